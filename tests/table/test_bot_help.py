"""Learning and finding things (issue 12): `/help` lists every command group the tree has,
`/<game> rules` shows that game's summary from `docs/play/<game>.md`, and every slash command
the players' pages name exists in the command tree, with the options they name."""

from __future__ import annotations

import re
from pathlib import Path

import discord
from discord import app_commands

from bot.cogs.help import DISCORD_SECTION, PLAY_DIR, discord_summary
from paddock_tools.bots import make_bot, world
from paddock_tools.fakediscord import ALICE, InProcessDriver

# what the issue asks /help to cover (the admin commands in a group of their own)
GROUPS = {"f1", "pit", "rf90", "league", "league-admin", "games", "help"}


def games_of(bot: discord.Client) -> dict[str, str]:
    """Each game's command group and its page: every game the bot runs (its spec's cog)."""
    return {p.area: p.kind for p in bot.table.presenters.values()}  # type: ignore[attr-defined]


PAGES = ("waddington", "pitformula", "rf90", "leagues")

CODE = re.compile(r"`([^`\n]+)`")
COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
# A slash command in prose: not part of a path (docs/play) or a URL.
SLASH = re.compile(r"(?<![\w/.<:])/([a-z][a-z0-9-]*)")


def top_level(bot: discord.Client) -> dict[str, app_commands.Command | app_commands.Group]:
    tree = bot.tree  # type: ignore[attr-defined]
    return {c.name: c for c in tree.get_commands(type=discord.AppCommandType.chat_input)}


def _embed(calls) -> dict:  # noqa: ANN001 - the harness's Calls
    (embed,) = calls.response.embeds
    return embed


async def test_help_lists_every_group_of_the_tree_only_to_you(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "help.db"), world()) as d:
        commands = top_level(d.bot)
        games = games_of(d.bot)
        assert set(commands) >= GROUPS  # /help covers the groups the issue names
        calls = await d.slash("help", user=ALICE)
        assert calls.ephemeral
        embed = _embed(calls)
        lines = embed["description"].splitlines()
        assert len(embed["description"]) <= 4096
        shared, how = embed["fields"]
        assert all(f"/{area}" in shared["name"] for area in games)
        for name, command in commands.items():
            (line,) = [x for x in lines if x.startswith(f"**/{name}**")]  # one line each
            assert command.description in line
            if isinstance(command, app_commands.Group):
                for sub in command.commands:  # its own line, or once for every game
                    listed = f"`{sub.name}`" in line
                    common = name in games and f"`{sub.name}`: {sub.description}" in shared["value"]
                    assert listed != common, (name, sub.name)
        assert len(lines) == len(commands)
        assert "`rules`" in shared["value"]
        for area, page in games.items():
            (line,) = [x for x in lines if x.startswith(f"**/{area}**")]
            assert f"docs/play/{page}.md" in line
        (league,) = [x for x in lines if x.startswith("**/league**")]
        assert "docs/play/leagues.md" in league
        (admin,) = [x for x in lines if x.startswith("**/league-admin**")]
        assert "docs/play/leagues.md" in admin and "`close-season`" in admin
        assert "`close-season`" not in league  # an admin command is not listed for everyone
        for area in games:
            assert f"`/{area} rules`" in how["value"]
        assert sum(len(str(v)) for v in embed.values()) <= 6000


async def test_each_game_answers_rules_with_its_own_page_only_to_you(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "rules.db"), world()) as d:
        games = games_of(d.bot)
        assert set(games) >= {"f1", "pit", "rf90"}
        seen = set()
        for area, kind in games.items():
            calls = await d.slash(area, "rules", user=ALICE)
            assert calls.ephemeral
            embed = _embed(calls)
            text = embed["description"]
            section = DISCORD_SECTION.search((PLAY_DIR / f"{kind}.md").read_text("utf-8"))
            assert section is not None, f"docs/play/{kind}.md has no Discord section"
            assert text == section.group(1).strip() == discord_summary(kind)
            assert len(text) <= 2000  # fits a message, not only an embed
            assert f"/{area} " in text  # that game's commands, not another's
            assert f"docs/play/{kind}.md" in embed["footer"]["text"]
            assert len(embed["title"]) <= 256
            seen.add(text)
        assert len(seen) == len(games)
        assert not d.messages or all(  # nothing public was posted
            int(m.get("flags") or 0) & 64 for m in d.messages.values()
        )


def _check(name: str, words: list[str], commands: dict, where: str) -> None:
    command = commands.get(name)
    assert command is not None, f"{where}: /{name} is not a command"
    if isinstance(command, app_commands.Group):
        if not words or ":" in words[0]:
            return  # the group as a whole, e.g. "`/league` (in a server)"
        sub = command.get_command(words[0])
        assert sub is not None, f"{where}: /{name} {words[0]} is not a command"
        command, words = sub, words[1:]
    params = {p.display_name for p in getattr(command, "parameters", [])}
    for word in words:
        option = word.partition(":")[0]
        if ":" in word and option.isidentifier():
            assert option in params, f"{where}: /{name} has no option {option}"


async def test_every_command_the_players_pages_name_exists(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "docs.db"), world()) as d:
        commands = top_level(d.bot)
    checked = 0
    for page in PAGES:
        path = PLAY_DIR / f"{page}.md"
        text = path.read_text("utf-8")
        for span in CODE.findall(text):  # `/f1 new laps:5`: the command and its options
            if span.startswith("/") and not span.startswith("/<"):
                head, *words = span[1:].split()
                _check(head, words, commands, path.name)
                checked += 1
        for name in SLASH.findall(
            CODE.sub("", COMMENT.sub("", text))
        ):  # and any named outside code
            _check(name, [], commands, path.name)
    assert checked > 40


def test_docs_check_catches_a_missing_command() -> None:
    """The page check is not vacuous: a command the tree lacks, or an option, fails."""
    group = app_commands.Group(name="f1", description="x")

    @group.command(name="new", description="x")
    async def new(interaction: discord.Interaction, laps: int = 3) -> None: ...

    commands = {"f1": group}
    _check("f1", ["new", "laps:5"], commands, "t")
    for name, words in [("f2", []), ("f1", ["hand"]), ("f1", ["new", "lap:5"])]:
        try:
            _check(name, words, commands, "t")
        except AssertionError:
            continue
        raise AssertionError(f"/{name} {words} passed")
