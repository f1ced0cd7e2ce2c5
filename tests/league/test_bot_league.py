"""/league through discord.py's real command tree (in-process driver)."""

from __future__ import annotations

import io
import logging
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from PIL import Image

from bot.errors import UNEXPECTED
from paddock_tools.bots import DAVE, ERIN, LEAGUE_ROLE_ID, make_bot, world
from paddock_tools.fakediscord import ALICE, BOB, CAROL, GUILD_ID, Calls, InProcessDriver
from paddock_tools.fakediscord.backend import Call
from paddock_tools.fakediscord.payloads import component_payload
from tests.bot_helpers import dump
from tests.league.league_helpers import confirmed


@pytest.fixture
async def driver(tmp_path: Path) -> AsyncIterator[InProcessDriver]:
    async with InProcessDriver(make_bot(tmp_path / "bot.db"), world()) as d:
        yield d


async def create(d: InProcessDriver, name: str = "Spring Cup", **kw: object):  # noqa: ANN201
    return await d.slash("league", "create", name=name, game=kw.pop("game", "waddington"), **kw)


async def refused(d: InProcessDriver, *path: str, expect: str, **kw: object) -> str:
    """Run a command that must be refused: ephemeral message, database unchanged."""
    before = await dump(d.bot.store)
    calls = await d.slash(*path, **kw)
    assert calls.ephemeral, calls.content
    assert expect in calls.content, calls.content
    assert await dump(d.bot.store) == before
    return calls.content


async def test_create_join_and_standings_png(driver: InProcessDriver) -> None:
    calls = await create(driver, user=BOB)
    assert not calls.ephemeral
    assert "League **Spring Cup** created" in calls.content and "10-8-6-4-2-1" in calls.content
    league = await driver.bot.store.get_league(driver.world.guild_id, "Spring Cup")
    assert calls.last.custom_ids == [f"pd:league:{league.id}:join"]

    joined = await driver.slash("league", "join", league="spring cup", colour="red", user=BOB)
    assert "joined **Spring Cup (season 1)** in the red car" in joined.content
    await driver.slash("league", "join", league="Spring Cup", colour="blue", user=ALICE)
    await driver.slash("league", "join", league="Spring Cup", user=ERIN)

    await driver.slash(
        "league-admin", "round-set", league="Spring Cup", number=1, name="Aintree", user=ALICE
    )
    await driver.slash(
        "league-admin", "round-set", league="Spring Cup", number=2, name="Goodwood", user=ALICE
    )
    r1 = await driver.slash(
        "league-admin",
        "record",
        league="Spring Cup",
        round=1,
        order=f"<@{ALICE.id}> <@{BOB.id}> <@{ERIN.id}>",
        retired=f"<@{ERIN.id}>",
        user=ALICE,
    )
    assert "recorded" in r1.content and not r1.ephemeral
    await driver.slash(
        "league-admin",
        "record",
        league="Spring Cup",
        round=2,
        order=f"<@{BOB.id}> <@{ALICE.id}>",
        user=ALICE,
    )

    standings = await driver.slash("league", "standings", league="Spring Cup", user=ERIN)
    assert not standings.ephemeral
    png = standings.files[0]
    assert png.filename == "standings.png" and png.is_png
    image = Image.open(io.BytesIO(png.data))
    assert image.width >= 900
    embed = standings.last.embed
    assert embed.image.url == "attachment://standings.png"
    # ALICE 10+8 = 18, BOB 8+10 = 18 -> level on points and countback (a win and a second
    # each); ALICE won the earlier round. ERIN 6 points for 3rd though retired.
    text = embed.description
    assert text.index("alice") < text.index("bob") < text.index("erin")
    assert "18 pts" in text and "6 pts" in text

    results = await driver.slash("league", "results", league="Spring Cup", round=1)
    assert "1. alice - 10 pts" in results.last.embed.description
    assert "3. erin (retired) - 6 pts" in results.last.embed.description


async def test_refusals_leave_the_database_unchanged(driver: InProcessDriver) -> None:
    await create(driver)
    await driver.slash("league", "join", league="Spring Cup", colour="red", user=BOB)
    await refused(
        driver,
        "league",
        "create",
        name="spring cup",
        game="rf90",
        expect="already has a league called **Spring Cup**",
    )
    await refused(
        driver,
        "league",
        "join",
        league="Autumn Cup",
        user=ERIN,
        expect="no league called **Autumn Cup**",
    )
    await refused(
        driver, "league", "join", league="Spring Cup", user=BOB, expect="already a member"
    )
    await refused(
        driver,
        "league",
        "join",
        league="Spring Cup",
        colour="red",
        user=ERIN,
        expect="already drives the red car",
    )
    await refused(
        driver,
        "league",
        "join",
        league="Spring Cup",
        colour="mauve",
        user=ERIN,
        expect="Pick a colour from: yellow, orange",
    )
    await refused(
        driver,
        "league",
        "create",
        name="Custom",
        game="waddington",
        custom_points="1-2-3",
        expect="must not increase",
    )
    await refused(
        driver, "league", "results", league="Spring Cup", round=4, expect="has no round 4"
    )
    await confirmed(driver, "league-admin", "close-season", league="Spring Cup", user=ALICE)
    await refused(
        driver,
        "league",
        "join",
        league="Spring Cup",
        user=ERIN,
        expect="Season 1 of **Spring Cup** is closed",
    )
    await refused(
        driver,
        "league-admin",
        "round-set",
        league="Spring Cup",
        number=1,
        name="X",
        user=ALICE,
        expect="is closed",
    )


async def test_admin_commands_are_refused_for_non_admins(driver: InProcessDriver) -> None:
    await create(driver, user=BOB)  # creating is open to everyone
    for path, kw in [
        (("league-admin", "round-set"), {"number": 1, "name": "Aintree"}),
        (("league-admin", "record"), {"round": 1, "order": f"<@{BOB.id}>"}),
        (("league-admin", "correct"), {"round": 1, "driver": BOB.id, "place": 1}),
        (("league-admin", "remove-member"), {"driver": BOB.id}),
        (("league-admin", "points"), {"table": "modern"}),
        (("league-admin", "close-season"), {}),
    ]:
        await refused(
            driver, *path, league="Spring Cup", user=BOB, expect="Only league admins", **kw
        )
    # Manage Server (ALICE) and administrator (CAROL) pass the check.
    ok = await driver.slash(
        "league-admin", "round-set", league="Spring Cup", number=1, name="Aintree", user=CAROL
    )
    assert not ok.ephemeral and "Round 1" in ok.content


async def test_configured_admin_role(driver: InProcessDriver) -> None:
    await create(driver)
    await refused(
        driver,
        "league-admin",
        "round-set",
        league="Spring Cup",
        number=1,
        name="A",
        user=DAVE,
        expect="Only league admins",
    )
    await refused(
        driver,
        "league-admin",
        "admin-role",
        options={"role": LEAGUE_ROLE_ID},
        user=DAVE,
        expect="Manage Server",
    )
    set_role = await driver.slash(
        "league-admin", "admin-role", options={"role": LEAGUE_ROLE_ID}, user=ALICE
    )
    assert set_role.ephemeral and f"<@&{LEAGUE_ROLE_ID}>" in set_role.content
    ok = await driver.slash(
        "league-admin", "round-set", league="Spring Cup", number=1, name="A", user=DAVE
    )
    assert not ok.ephemeral and "Round 1 of **Spring Cup (season 1)** is A" in ok.content


async def test_correct_points_and_new_season(driver: InProcessDriver) -> None:
    await create(driver)
    for user in (ALICE, BOB):
        await driver.slash("league", "join", league="Spring Cup", user=user)
    await driver.slash("league-admin", "round-set", league="Spring Cup", number=1, name="A")
    await driver.slash(
        "league-admin", "record", league="Spring Cup", round=1, order=f"<@{ALICE.id}> <@{BOB.id}>"
    )
    await refused(
        driver,
        "league-admin",
        "correct",
        league="Spring Cup",
        round=1,
        driver=BOB.id,
        place=1,
        expect="alice already has place 1",
    )
    await driver.slash(
        "league-admin", "correct", league="Spring Cup", round=1, driver=ALICE.id, place=3
    )
    await driver.slash(
        "league-admin", "correct", league="Spring Cup", round=1, driver=BOB.id, place=1
    )
    await driver.slash("league-admin", "points", league="Spring Cup", table="modern")
    text = (await driver.slash("league", "standings", league="Spring Cup")).last.embed.description
    assert text.index("bob") < text.index("alice")
    assert "25 pts" in text and "15 pts" in text
    closed = await confirmed(driver, "league-admin", "close-season", league="Spring Cup")
    assert "Champion: bob" in closed.content
    season2 = await create(driver)
    assert "season 2" in season2.content
    info = await driver.slash("league", "info", league="Spring Cup")
    assert "Drivers (2)" in [f.name for f in info.last.embed.fields]
    old = await driver.slash("league", "standings", league="Spring Cup", season=1)
    assert "season closed" in old.last.embed.footer.text


async def test_join_button_survives_as_a_stateless_custom_id(tmp_path: Path) -> None:
    db = tmp_path / "restart.db"
    async with InProcessDriver(make_bot(db), world()) as d:
        created = await create(d)
        custom_id = created.last.custom_ids[0]
        message = d.backend.find_message(custom_id)
    # A new bot process on the same database: the old message's button still works.
    async with InProcessDriver(make_bot(db), world()) as d:
        d.backend.messages[int(message["id"])] = message  # Discord kept the message
        clicked = await d.click(custom_id, user=BOB)
        assert "joined **Spring Cup (season 1)** in the yellow car" in clicked.content
        again = await d.click(custom_id, user=BOB)
        assert again.ephemeral and "already a member" in again.content
        league = await d.bot.store.get_league(d.world.guild_id, "Spring Cup")
        assert [m.user_id for m in await d.bot.store.members(league.id)] == [BOB.id]


async def test_unexpected_errors_are_logged_and_answered_briefly(
    driver: InProcessDriver, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("database on fire")

    monkeypatch.setattr(driver.bot.store, "list_leagues", broken)
    driver.raise_errors = False
    with caplog.at_level(logging.ERROR, logger="paddock.errors"):
        calls = await driver.slash("league", "list")
    assert calls.ephemeral and calls.content == UNEXPECTED
    assert "database on fire" not in calls.content
    assert any("database on fire" in r.exc_text for r in caplog.records if r.exc_text) or any(
        r.exc_info and "database on fire" in str(r.exc_info[1]) for r in caplog.records
    )


async def test_option_ranges_are_declared_and_handlers_still_refuse(
    driver: InProcessDriver,
) -> None:
    tree = driver.bot.tree
    group = tree.get_command("league").to_dict(tree)
    subs = {c["name"]: c for c in group["options"]}
    admin = tree.get_command("league-admin").to_dict(tree)
    opts = {o["name"]: o for o in {c["name"]: c for c in admin["options"]}["round-set"]["options"]}
    assert (opts["number"]["min_value"], opts["number"]["max_value"]) == (1, 99)
    assert (opts["name"]["min_length"], opts["name"]["max_length"]) == (1, 60)
    create_opts = {o["name"]: o for o in subs["create"]["options"]}
    assert create_opts["name"]["max_length"] == 50
    # the games are offered as they are registered (each declares itself: rules/spec.py)
    assert create_opts["game"]["autocomplete"] and "choices" not in create_opts["game"]
    offered = await driver.autocomplete("league", "create", focused="game", game="")
    assert {c["value"] for c in offered} >= {"rf90", "waddington", "pitformula"}
    assert group["dm_permission"] is False  # guild only
    assert opts["league"]["autocomplete"] and opts["league"]["description"].startswith("League")
    # Discord enforces these ranges; discord.py does not, so the handler refuses too.
    await create(driver)
    await refused(
        driver,
        "league-admin",
        "round-set",
        league="Spring Cup",
        number=0,
        name="X",
        expect="Round numbers go from 1 to 99",
    )
    await refused(
        driver,
        "league",
        "create",
        name="X",
        game="monopoly",
        expect="Pick a game from the list: ",
    )


async def test_robots_setting_is_an_admin_command_shown_in_info(driver: InProcessDriver) -> None:
    await create(driver, user=ALICE)
    info = await driver.slash("league", "info", league="Spring Cup", user=BOB)
    assert "by their order among members" in str(info.last.embed.fields)
    await refused(
        driver,
        "league-admin",
        "robots",
        league="Spring Cup",
        places="on",
        user=BOB,
        expect="Only league admins",
    )
    done = await driver.slash(
        "league-admin", "robots", league="Spring Cup", places="on", user=ALICE
    )
    assert "robots in a race take places" in done.content
    league = await driver.bot.store.get_league(driver.world.guild_id, "Spring Cup")
    assert league.robots_take_places
    info = await driver.slash("league", "info", league="Spring Cup", user=BOB)
    assert "robots in a race take places" in str(info.last.embed.fields)


async def test_a_mention_typed_into_a_name_pings_nobody(driver: InProcessDriver) -> None:
    created = await create(driver, name=f"<@{BOB.id}> Cup", user=ALICE)
    # Shown, but no longer a mention: a zero-width space follows its `<` and `@`.
    assert f"**<\u200b@\u200b{BOB.id}> Cup**" in created.content
    assert f"<@{BOB.id}>" not in created.content.replace(f"league:<@{BOB.id}> Cup`", "")
    allowed = created.last.json.get("allowed_mentions") or created.last.json["data"].get(
        "allowed_mentions"
    )
    assert allowed == {"parse": []}  # Discord pings nobody for this message


# Admin commands in a group Discord hides from members (issue 12) ---------------------------

ADMIN_COMMANDS = {
    "round-set",
    "round-remove",
    "record",
    "correct",
    "remove-member",
    "points",
    "robots",
    "archive",
    "away",
    "close-season",
    "admin-role",
    "setup",
    "race-settings",
    "web",
}


async def test_admin_commands_are_a_group_discord_shows_only_to_managers(
    driver: InProcessDriver,
) -> None:
    tree = driver.bot.tree
    league = tree.get_command("league").to_dict(tree)
    admin = tree.get_command("league-admin").to_dict(tree)
    assert {c["name"] for c in admin["options"]} == ADMIN_COMMANDS
    assert not ADMIN_COMMANDS & {c["name"] for c in league["options"]}
    # Hidden from members without Manage Server (0x20) until a server allows more...
    assert str(admin["default_member_permissions"]) == "32" and admin["dm_permission"] is False
    assert league["default_member_permissions"] is None  # ...while /league is for everyone
    # ...and a member who calls one anyway gets one line, nothing changed.
    await create(driver)
    for name in sorted(ADMIN_COMMANDS - {"admin-role"}):
        command = tree.get_command("league-admin").get_command(name)
        # the fewest options that pass Discord: the required ones
        kw = {
            "number": 1,
            "name": "Aintree",
            "round": 1,
            "order": f"<@{BOB.id}>",
            "driver": BOB.id,
            "places": "on",
            "hours": 2,
        }
        required = {p.name for p in command.parameters if p.required} - {"league"}
        text = await refused(
            driver,
            "league-admin",
            name,
            league="Spring Cup",
            user=BOB,
            expect="Only league admins can do this",
            **{k: v for k, v in kw.items() if k in required},
        )
        assert "\n" not in text


async def test_close_season_asks_first_and_only_confirm_by_its_admin_closes(
    driver: InProcessDriver,
) -> None:
    cog = driver.bot.get_cog("LeagueAdminCog")
    await create(driver)
    for user in (ALICE, BOB):
        await driver.slash("league", "join", league="Spring Cup", user=user)
    before = await dump(driver.bot.store)
    asked = await driver.slash("league-admin", "close-season", league="Spring Cup", user=ALICE)
    assert asked.ephemeral
    assert asked.content == "Close season 1 of **Spring Cup**? This cannot be undone."
    confirm, cancel = asked.last.custom_ids
    assert [b["label"] for b in asked.last.components[0]["components"]] == ["Confirm", "Cancel"]
    assert await dump(driver.bot.store) == before  # nothing until Confirm
    # Another admin (CAROL) or a driver cannot answer ALICE's question.
    for user in (CAROL, BOB):
        other = await driver.click(confirm, user=user)
        assert other.ephemeral and "Only the admin who asked" in other.content
    assert await dump(driver.bot.store) == before
    # Cancel: the question says so and loses its buttons; nothing changed.
    cancelled = await driver.click(cancel, user=ALICE)
    assert cancelled.response.response_type == 7  # the question itself is edited
    assert "nothing changed" in cancelled.content and not cancelled.last.components
    assert await dump(driver.bot.store) == before
    # Too late: the Confirm of a question that timed out changes nothing.
    cog.confirm_seconds = 0
    late = (await driver.slash("league-admin", "close-season", league="Spring Cup")).last
    timed_out = await driver.click(late.custom_ids[0], user=ALICE)
    assert "timed out: nothing changed" in timed_out.content and not timed_out.last.components
    assert await dump(driver.bot.store) == before
    cog.confirm_seconds = 180
    # Confirm: closed, and the channel is told.
    done = await confirmed(driver, "league-admin", "close-season", league="Spring Cup")
    # answered first (deferred, before the store), the question edited through the answer
    assert done.response.response_type == 6 and done.messages[0].kind == "edit_original"
    assert not done.messages[0].components
    public = done.last
    assert not public.ephemeral and "Season 1 of **Spring Cup** is closed" in public.content
    league = await driver.bot.store.get_league(driver.world.guild_id, "Spring Cup")
    assert not league.is_open
    # A closed season is refused before anything is asked.
    again = await refused(
        driver, "league-admin", "close-season", league="Spring Cup", expect="is closed"
    )
    assert "Confirm" not in again


async def test_an_admin_who_lost_the_role_cannot_confirm(driver: InProcessDriver) -> None:
    await driver.slash("league-admin", "admin-role", options={"role": LEAGUE_ROLE_ID}, user=ALICE)
    await create(driver)
    asked = await driver.slash("league-admin", "close-season", league="Spring Cup", user=DAVE)
    assert asked.ephemeral and "cannot be undone" in asked.content
    await driver.slash("league-admin", "admin-role", user=ALICE)  # no role any more
    before = await dump(driver.bot.store)
    pressed = await driver.click(asked.last.custom_ids[0], user=DAVE)
    assert pressed.ephemeral and "Only league admins" in pressed.content
    assert await dump(driver.bot.store) == before


async def test_remove_member_asks_first(driver: InProcessDriver) -> None:
    await create(driver)
    await driver.slash("league", "join", league="Spring Cup", name="Bobby", user=BOB)
    await refused(
        driver,
        "league-admin",
        "remove-member",
        league="Spring Cup",
        driver=ERIN.id,
        expect="is not a member",
    )
    before = await dump(driver.bot.store)
    asked = await driver.slash("league-admin", "remove-member", league="Spring Cup", driver=BOB.id)
    assert asked.ephemeral and "Remove Bobby" in asked.content
    assert asked.last.body["allowed_mentions"] == {"parse": []}
    assert await dump(driver.bot.store) == before
    twice = await driver.slash("league-admin", "remove-member", league="Spring Cup", driver=BOB.id)
    removed = await driver.click(asked.last.custom_ids[0], user=ALICE)
    assert "Bobby was removed from **Spring Cup (season 1)**" in removed.content
    assert not removed.ephemeral
    league = await driver.bot.store.get_league(driver.world.guild_id, "Spring Cup")
    (member,) = await driver.bot.store.members(league.id)
    assert member.user_id == BOB.id and not member.active
    # A second question asked before the first was confirmed: Bob is no longer a member, so
    # its Confirm changes nothing more.
    after = await dump(driver.bot.store)
    again = await driver.click(twice.last.custom_ids[0], user=ALICE)
    assert again.ephemeral and "not a member" in again.content
    assert await dump(driver.bot.store) == after


async def test_forged_confirm_buttons_are_refused(driver: InProcessDriver) -> None:
    await create(driver)
    await driver.slash("league", "join", league="Spring Cup", user=BOB)
    asked = await driver.slash("league-admin", "close-season", league="Spring Cup")
    message_id = int(asked.last.message["id"])
    league = await driver.bot.store.get_league(driver.world.guild_id, "Spring Cup")
    before = await dump(driver.bot.store)
    far = 4102444800  # 2100
    for custom_id in [
        f"pd:league:{league.id}:close",  # no asker
        f"pd:league:{league.id}:close:{ALICE.id}",  # no expiry
        f"pd:league:{league.id}:close:{ALICE.id}.{far}.{BOB.id}",  # a part too many
        f"pd:league:{league.id}:remove:{ALICE.id}.{far}",  # no driver
        f"pd:league:{league.id}:close:x{ALICE.id}.{far}",
        f"pd:league:{league.id + 1}:close:{ALICE.id}.{far}",  # no such league
        f"pd:league:{league.id}:cancel",
    ]:
        button = {"type": 2, "style": 4, "custom_id": custom_id, "label": "Confirm"}
        message = {
            **driver.backend.messages[message_id],
            "components": [{"type": 1, "components": [button]}],
        }
        calls = await driver.dispatch(
            component_payload(driver.world, custom_id, message=message, user=ALICE)
        )
        assert calls.ephemeral and calls.content == "This button is no longer valid.", custom_id
    assert await dump(driver.bot.store) == before


# Autocomplete on every league and round option (issue 12) --------------------------------


async def leagues_and_rounds(d: InProcessDriver) -> None:
    """Leagues of every game, one Waddington's league closed, and a calendar."""
    for name, game in [
        ("Spring Cup", "waddington"),
        ("Sprint Series", "waddington"),
        ("Old Cup", "waddington"),
        ("Barcelona Club", "rf90"),
        ("Pit Stop Masters", "pitformula"),
    ]:
        await create(d, name=name, game=game)
    await confirmed(d, "league-admin", "close-season", league="Old Cup")
    await d.slash("league", "join", league="Spring Cup", user=ALICE)
    for number, venue, date in [
        (1, "Aintree", "3 May"),
        (2, "Silverstone", None),
        (3, "Monza", None),
    ]:
        await d.slash(
            "league-admin", "round-set", league="Spring Cup", number=number, name=venue, date=date
        )
    await d.slash("league-admin", "record", league="Spring Cup", round=1, order=f"<@{ALICE.id}>")


def values(choices: list[dict]) -> list:
    return [c["value"] for c in choices]


async def test_league_options_offer_the_leagues_of_their_game(driver: InProcessDriver) -> None:
    await leagues_and_rounds(driver)
    # A game's command offers that game's open leagues only...
    f1 = await driver.autocomplete("f1", "new", focused="league", league="")
    assert values(f1) == ["Spring Cup", "Sprint Series"]
    assert f1[0]["name"] == "Spring Cup (season 1)"
    assert values(await driver.autocomplete("f1", "new", focused="league", league="sprint")) == [
        "Sprint Series"
    ]
    rf90 = await driver.autocomplete("rf90", "new", focused="league", league="", track="barcelona")
    assert values(rf90) == ["Barcelona Club"]
    pit = await driver.autocomplete("pit", "start", focused="league", league="")
    assert values(pit) == ["Pit Stop Masters"]
    # ...while /league offers every league here, naming its game (closed ones say so),
    everything = await driver.autocomplete("league", "standings", focused="league", league="")
    assert set(values(everything)) == {
        "Spring Cup",
        "Sprint Series",
        "Old Cup",
        "Barcelona Club",
        "Pit Stop Masters",
    }
    names = {c["value"]: c["name"] for c in everything}
    assert names["Old Cup"] == "Old Cup (Waddington's Formula 1, season 1, closed)"
    assert names["Barcelona Club"].startswith("Barcelona Club (Race! Formula 90")
    # those starting with what was typed first, then those containing it.
    typed = await driver.autocomplete("league", "info", focused="league", league="c")
    assert values(typed) == ["Barcelona Club", "Old Cup", "Spring Cup"]
    # Joining and the admin commands change a season: open leagues only.
    join = await driver.autocomplete("league", "join", focused="league", league="cup")
    assert values(join) == ["Spring Cup"]
    admin = await driver.autocomplete("league-admin", "close-season", focused="league", league="")
    assert "Old Cup" not in values(admin) and "Barcelona Club" in values(admin)


async def test_round_options_offer_the_rounds_that_fit(driver: InProcessDriver) -> None:
    await leagues_and_rounds(driver)
    # Opening a race: the rounds still to race, with their venue.
    to_race = await driver.autocomplete("f1", "new", focused="round", league="Spring Cup", round="")
    assert values(to_race) == [2, 3]
    assert [c["name"] for c in to_race] == ["Round 2: Silverstone", "Round 3: Monza"]
    by_venue = await driver.autocomplete(
        "pit", "start", focused="round", league="Spring Cup", round="mon"
    )
    assert values(by_venue) == [3]
    assert values(
        await driver.autocomplete(
            "rf90", "new", focused="round", league="Spring Cup", round="2", track="barcelona"
        )
    ) == [2]
    # No league yet, or one that is not here: nothing to offer.
    assert await driver.autocomplete("f1", "new", focused="round", round="") == []
    nowhere = await driver.autocomplete("f1", "new", focused="round", league="Nope", round="")
    assert nowhere == []
    # Reading or correcting a result: the rounds raced.
    raced = await driver.autocomplete(
        "league", "results", focused="round", league="Spring Cup", round=""
    )
    assert [c["name"] for c in raced] == ["Round 1: Aintree · 3 May · raced"]
    assert values(raced) == [1]
    correct = await driver.autocomplete(
        "league-admin", "correct", focused="round", league="Spring Cup", round=""
    )
    assert values(correct) == [1]
    # Recording a result or removing a round: those with no result.
    for command, option in [("record", "round"), ("round-remove", "number")]:
        offered = await driver.autocomplete(
            "league-admin", command, focused=option, league="Spring Cup", **{option: ""}
        )
        assert values(offered) == [2, 3], command
    # Editing the calendar: every round and the next number.
    calendar = await driver.autocomplete(
        "league-admin", "round-set", focused="number", league="Spring Cup", number=""
    )
    assert values(calendar) == [1, 2, 3, 4]
    assert calendar[-1]["name"] == "Round 4: a new round"
    # A round with a result drops out of the races' list.
    await driver.slash(
        "league-admin", "record", league="Spring Cup", round=2, order=f"<@{ALICE.id}>"
    )
    after = await driver.autocomplete("f1", "new", focused="round", league="Spring Cup", round="")
    assert values(after) == [3]


async def test_every_league_and_round_option_has_autocomplete(driver: InProcessDriver) -> None:
    """Wherever a command takes a league (or a league's round), Discord is told to ask the
    bot for choices."""
    tree = driver.bot.tree
    found = []
    for top in tree.get_commands():
        commands = list(top.walk_commands()) if hasattr(top, "walk_commands") else [top]
        for command in commands:
            params = {p.name: p for p in getattr(command, "parameters", [])}
            if "league" not in params:
                continue
            found.append(command.qualified_name)
            assert params["league"].autocomplete, command.qualified_name
            if "round" in params:
                assert params["round"].autocomplete, command.qualified_name
    assert {"f1 new", "pit start", "rf90 new", "league results", "league-admin record"} <= set(
        found
    )


async def test_a_big_league_pages_within_discords_limits(driver: InProcessDriver) -> None:
    """60 drivers with long names, 40 rounds, 30 leagues: /league info, calendar and list
    stay within Discord's limits (field 1,024, description 4,096, message 2,000) and page
    with buttons that show the rest; nothing is cut off."""
    await create(driver, "Big League")
    store = driver.bot.store
    league = await store.get_league(GUILD_ID, "Big League")
    for n in range(60):
        await store.join_league(
            league, 1200000000000000000 + n, f"Driver {n:02d} " + "x" * 22, None
        )
    for n in range(1, 41):
        await store.set_round(league, n, f"Grand Prix of Somewhere Far {n:02d}", "2027-05-01 14:00")
    for n in range(29):
        await store.create_league(GUILD_ID, f"League {n:02d} " + "y" * 40, "rf90", "f1", [3, 2], 1)

    async def every_page(first: Calls, what: str, text: Callable[[Call], str], limit: int) -> str:
        seen, call = "", first.last
        for _ in range(12):
            assert len(text(call)) <= limit
            seen += text(call) + "\n"
            ahead = [i for i in call.custom_ids if f":page:{what}." in i]
            if not ahead:
                break
            nxt = ahead[-1]  # ▶
            buttons = {
                c["custom_id"]: c.get("disabled", False)
                for row in call.components
                for c in row.get("components", [])
                if "custom_id" in c
            }
            if buttons[nxt]:
                break
            call = (await driver.click(nxt)).last
        return seen

    def drivers_field(call: Call) -> str:
        assert call.embed is not None
        return next(str(f.value) for f in call.embed.fields if str(f.name).startswith("Drivers"))

    info = await every_page(
        await driver.slash("league", "info", league="Big League"), "info", drivers_field, 1024
    )
    assert len(set(re.findall(r"Driver \d\d", info))) == 60  # every driver on some page

    def description(call: Call) -> str:
        assert call.embed is not None
        return str(call.embed.description)

    calendar = await every_page(
        await driver.slash("league", "calendar", league="Big League"), "calendar", description, 4096
    )
    assert len(set(re.findall(r"Round \d+", calendar))) == 40

    listed = await every_page(
        await driver.slash("league", "list"), "list", lambda c: c.content or "", 2000
    )
    assert len(set(re.findall(r"League \d\d", listed))) == 29 and "Big League" in listed
