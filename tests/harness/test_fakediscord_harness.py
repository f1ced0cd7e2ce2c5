"""Self-tests for the offline Discord harness in ``paddock_tools/fakediscord``.

A tiny bot (defined below) is driven through discord.py's real machinery, first with the
in-process driver and then against the loopback fake Discord server.
"""

from __future__ import annotations

import io
import re
import time

import discord
import pytest
from discord import app_commands
from discord.ext import commands
from PIL import Image

from paddock_tools.fakediscord import (
    ALICE,
    BOB,
    GENERAL_CHANNEL_ID,
    GUILD_ID,
    Attachment,
    BotError,
    HTTPError,
    InProcessDriver,
)
from paddock_tools.fakediscord.server import FakeDiscord

# --------------------------------------------------------------------------- the demo bot


def make_png(color: str = "red") -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (8, 8), color).save(buf, format="PNG")
    return buf.getvalue()


class CounterButton(
    discord.ui.DynamicItem[discord.ui.Button], template=r"demo:counter:(?P<count>\d+)"
):
    def __init__(self, count: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=f"Count {count}",
                style=discord.ButtonStyle.primary,
                custom_id=f"demo:counter:{count}",
            )
        )
        self.count = count

    @classmethod
    async def from_custom_id(cls, interaction, item, match: re.Match[str]) -> CounterButton:
        return cls(int(match["count"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(CounterButton(self.count + 1))
        await interaction.response.edit_message(content=f"Count: {self.count + 1}", view=view)


class GameSelectView(discord.ui.View):
    @discord.ui.select(
        custom_id="demo:game",
        options=[discord.SelectOption(label="RF90"), discord.SelectOption(label="Pit Formula")],
    )
    async def game(self, interaction: discord.Interaction, select: discord.ui.Select) -> None:
        await interaction.response.send_message(f"picked {select.values[0]}", ephemeral=True)


class LeagueGroup(app_commands.Group, name="league", description="Leagues"):
    @app_commands.command(description="Create a league")
    @app_commands.choices(
        game=[
            app_commands.Choice(name="Waddington's Formula 1", value="waddington"),
            app_commands.Choice(name="RF90", value="rf90"),
        ]
    )
    async def create(
        self, interaction: discord.Interaction, name: str, game: app_commands.Choice[str]
    ) -> None:
        embed = discord.Embed(title=name, description=f"Game: {game.name}")
        await interaction.response.send_message(embed=embed)


class DemoGroup(app_commands.Group, name="demo", description="Demo commands"):
    def __init__(self) -> None:
        super().__init__()
        self.add_command(LeagueGroup())

    @app_commands.command(description="Ping")
    async def ping(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("pong")

    @app_commands.command(description="Secret")
    async def secret(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("shh", ephemeral=True)

    @app_commands.command(description="Image")
    async def image(self, interaction: discord.Interaction) -> None:
        file = discord.File(io.BytesIO(make_png()), filename="board.png")
        await interaction.response.send_message("board", file=file)

    @app_commands.command(description="Admin only")
    @app_commands.checks.has_permissions(manage_guild=True)
    async def admin(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"admin ok {interaction.user.name}")

    @app_commands.command(description="Counter")
    async def counter(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("Counter posted", ephemeral=True)
        view = discord.ui.View(timeout=None)
        view.add_item(CounterButton(0))
        assert interaction.channel is not None
        await interaction.channel.send("Count: 0", view=view)

    @app_commands.command(description="Echo")
    async def echo(
        self, interaction: discord.Interaction, text: str, times: int, who: discord.Member
    ) -> None:
        await interaction.response.defer(thinking=True)
        embed = discord.Embed(title=text * times, description=who.mention)
        await interaction.followup.send(embed=embed)
        await interaction.edit_original_response(content=f"done for {who.name}")

    @app_commands.command(description="Choose a game")
    async def choose(self, interaction: discord.Interaction) -> None:
        view = GameSelectView()
        await interaction.response.send_message("Pick a game", view=view, ephemeral=True)

    @app_commands.command(description="Pick a track")
    async def track(self, interaction: discord.Interaction, name: str) -> None:
        await interaction.response.send_message(f"track {name}")

    @track.autocomplete("name")
    async def track_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        tracks = ["Monza", "Monaco", "Silverstone"]
        return [app_commands.Choice(name=t, value=t.lower()) for t in tracks if current in t]

    @app_commands.command(description="Upload")
    async def upload(self, interaction: discord.Interaction, file: discord.Attachment) -> None:
        data = await file.read()
        await interaction.response.send_message(f"{file.filename}: {len(data)} bytes")

    @app_commands.command(description="Thread")
    async def thread(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True)
        assert isinstance(interaction.channel, discord.TextChannel)
        msg = await interaction.channel.send("Race thread")
        thread = await msg.create_thread(name="Race 1")
        await thread.send("Lights out!")
        await interaction.followup.send(f"thread {thread.name}", ephemeral=True)


class DemoBot(commands.Bot):
    def __init__(self) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            guild_ready_timeout=0.1,
        )
        self.ready_seen = False

    async def setup_hook(self) -> None:
        self.tree.add_command(DemoGroup())
        self.tree.on_error = self.on_tree_error
        self.add_dynamic_items(CounterButton)
        await self.tree.sync()

    async def on_ready(self) -> None:
        self.ready_seen = True

    async def on_tree_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        if isinstance(error, app_commands.MissingPermissions):
            await interaction.response.send_message("You need Manage Server", ephemeral=True)
            return
        raise error


# --------------------------------------------------------------------------- in-process


@pytest.fixture
async def driver():
    async with InProcessDriver(DemoBot()) as d:
        yield d


async def test_startup_state(driver: InProcessDriver) -> None:
    bot = driver.bot
    assert bot.ready_seen
    assert bot.user is not None and bot.user.id == driver.world.application_id
    assert bot.application_id == driver.world.application_id
    guild = bot.get_guild(GUILD_ID)
    assert guild is not None and guild.get_channel(GENERAL_CHANNEL_ID) is not None
    # login + tree.sync went over the fake REST API
    paths = [(c.method, c.path) for c in driver.calls]
    assert ("GET", "/users/@me") in paths
    assert ("GET", "/oauth2/applications/@me") in paths
    sync = driver.calls.filter("PUT", r"^/applications/\d+/commands$")
    assert sync and sync[0].json[0]["name"] == "demo"


async def test_ping(driver: InProcessDriver) -> None:
    calls = await driver.slash("demo", "ping", user=ALICE)
    assert len(calls) == 1
    resp = calls.response
    assert resp.response_type == 4
    assert resp.content == "pong"
    assert not resp.ephemeral


async def test_secret_is_ephemeral(driver: InProcessDriver) -> None:
    calls = await driver.slash("demo secret", user=BOB)
    assert calls.content == "shh"
    assert calls.ephemeral
    assert calls.response.flags & 64


async def test_image_sends_png(driver: InProcessDriver) -> None:
    calls = await driver.slash("demo", "image")
    (png,) = calls.files
    assert png.filename == "board.png" and png.is_png
    assert Image.open(io.BytesIO(png.data)).size == (8, 8)
    assert calls.response.json["data"]["attachments"][0]["filename"] == "board.png"


async def test_check_failure_goes_through_tree_on_error(driver: InProcessDriver) -> None:
    denied = await driver.slash("demo", "admin", user=BOB)
    assert denied.content == "You need Manage Server"
    assert denied.ephemeral
    allowed = await driver.slash("demo", "admin", user=ALICE)
    assert allowed.content == "admin ok alice"
    # explicit permission override
    forced = await driver.slash("demo", "admin", user=BOB, permissions=0x20)
    assert forced.content == "admin ok bob"


async def test_nested_group_with_choices(driver: InProcessDriver) -> None:
    calls = await driver.slash("demo", "league", "create", name="Spring Cup", game="waddington")
    embed = calls.last.embed
    assert embed is not None and embed.title == "Spring Cup"
    assert embed.description == "Game: Waddington's Formula 1"


async def test_defer_followup_and_edit_original(driver: InProcessDriver) -> None:
    calls = await driver.slash("demo", "echo", text="ab", times=2, who=BOB)
    kinds = [c.kind for c in calls]
    assert kinds == ["interaction_response", "followup", "edit_original"]
    assert calls[0].response_type == 5
    assert calls[1].embed is not None and calls[1].embed.title == "abab"
    assert calls[1].embed.description == f"<@{BOB.id}>"
    assert calls[2].content == f"done for {BOB.name}"


async def test_autocomplete(driver: InProcessDriver) -> None:
    choices = await driver.autocomplete("demo", "track", focused="name", name="Mon")
    assert choices == [{"name": "Monza", "value": "monza"}, {"name": "Monaco", "value": "monaco"}]
    assert (await driver.slash("demo", "track", name="monza")).content == "track monza"
    assert not driver.backend.unhandled


async def test_attachment_option(driver: InProcessDriver) -> None:
    calls = await driver.slash("demo", "upload", file=Attachment("track.png", make_png("blue")))
    assert re.fullmatch(r"track\.png: \d+ bytes", calls.content or "")


async def test_dynamic_item_button(driver: InProcessDriver) -> None:
    calls = await driver.slash("demo", "counter")
    assert [c.kind for c in calls] == ["interaction_response", "channel_message"]
    assert calls.response.ephemeral
    posted = calls.last
    assert posted.content == "Count: 0" and posted.custom_ids == ["demo:counter:0"]

    clicked = await driver.click("demo:counter:0", user=BOB)
    assert clicked.response.response_type == 7
    assert clicked.content == "Count: 1"
    assert clicked.custom_ids == ["demo:counter:1"]
    # the stored message was edited in place, so the next click finds the new button
    clicked = await driver.click("demo:counter:1")
    assert clicked.content == "Count: 2"
    assert driver.messages[int(posted.message["id"])]["content"] == "Count: 2"


async def test_select_in_ephemeral_view(driver: InProcessDriver) -> None:
    calls = await driver.slash("demo", "choose")
    assert calls.ephemeral and calls.response.custom_ids == ["demo:game"]
    picked = await driver.select("demo:game", ["Pit Formula"], user=BOB)
    assert picked.content == "picked Pit Formula" and picked.ephemeral


async def test_threads_and_custom_handler(driver: InProcessDriver) -> None:
    calls = await driver.slash("demo", "thread")
    kinds = [c.kind for c in calls]
    assert kinds[:2] == ["interaction_response", "channel_message"]
    assert "create_thread" in kinds
    assert calls.last.content == "thread Race 1" and calls.last.ephemeral

    # custom responders can simulate Discord errors
    driver.on("POST", "/channels/{cid}/messages", lambda call, cid: _raise(HTTPError(403)))
    with pytest.raises(BotError) as excinfo:
        await driver.slash("demo", "counter")
    assert excinfo.value.calls[-1].status == 403
    assert isinstance(excinfo.value.__cause__, app_commands.CommandInvokeError)
    assert isinstance(excinfo.value.__cause__.original, discord.Forbidden)


def _raise(exc: Exception):
    raise exc


# --------------------------------------------------------------------------- loopback server


async def test_real_client_against_fake_server() -> None:
    started = time.monotonic()
    async with FakeDiscord() as fd:
        bot = DemoBot()
        async with fd.running(bot):
            assert bot.is_ready() and bot.ready_seen
            assert bot.get_guild(GUILD_ID) is not None
            calls = await fd.slash("demo", "ping", user=ALICE)
            assert calls.content == "pong"

            calls = await fd.slash("demo", "image", user=BOB)
            (png,) = calls.files
            assert png.is_png and png.filename == "board.png"

            calls = await fd.slash("demo", "counter")
            assert calls.last.custom_ids == ["demo:counter:0"]
            clicked = await fd.click("demo:counter:0")
            assert clicked.content == "Count: 1"

            denied = await fd.slash("demo", "admin", user=BOB)
            assert denied.content == "You need Manage Server" and denied.ephemeral
            assert not fd.backend.unhandled
        assert bot.is_closed()
        assert fd.identify is not None and fd.identify["token"] == "fake-token"
    assert time.monotonic() - started < 5
