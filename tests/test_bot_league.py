"""/league through discord.py's real command tree (in-process driver)."""

from __future__ import annotations

import io
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from PIL import Image

from bot.errors import UNEXPECTED
from tests.bot_helpers import DAVE, ERIN, LEAGUE_ROLE_ID, dump, make_bot, world
from tests.fakediscord import ALICE, BOB, CAROL, InProcessDriver


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
        "league", "round-set", league="Spring Cup", number=1, name="Aintree", user=ALICE
    )
    await driver.slash(
        "league", "round-set", league="Spring Cup", number=2, name="Goodwood", user=ALICE
    )
    r1 = await driver.slash(
        "league",
        "record",
        league="Spring Cup",
        round=1,
        order=f"<@{ALICE.id}> <@{BOB.id}> <@{ERIN.id}>",
        retired=f"<@{ERIN.id}>",
        user=ALICE,
    )
    assert "recorded" in r1.content and not r1.ephemeral
    await driver.slash(
        "league",
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
    await driver.slash("league", "close-season", league="Spring Cup", user=ALICE)
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
        "league",
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
        (("league", "round-set"), {"number": 1, "name": "Aintree"}),
        (("league", "record"), {"round": 1, "order": f"<@{BOB.id}>"}),
        (("league", "correct"), {"round": 1, "driver": BOB.id, "place": 1}),
        (("league", "remove-member"), {"driver": BOB.id}),
        (("league", "points"), {"table": "modern"}),
        (("league", "close-season"), {}),
    ]:
        await refused(
            driver, *path, league="Spring Cup", user=BOB, expect="Only league admins", **kw
        )
    # Manage Server (ALICE) and administrator (CAROL) pass the check.
    ok = await driver.slash(
        "league", "round-set", league="Spring Cup", number=1, name="Aintree", user=CAROL
    )
    assert not ok.ephemeral and "Round 1" in ok.content


async def test_configured_admin_role(driver: InProcessDriver) -> None:
    await create(driver)
    await refused(
        driver,
        "league",
        "round-set",
        league="Spring Cup",
        number=1,
        name="A",
        user=DAVE,
        expect="Only league admins",
    )
    await refused(
        driver,
        "league",
        "admin-role",
        options={"role": LEAGUE_ROLE_ID},
        user=DAVE,
        expect="Manage Server",
    )
    set_role = await driver.slash(
        "league", "admin-role", options={"role": LEAGUE_ROLE_ID}, user=ALICE
    )
    assert set_role.ephemeral and f"<@&{LEAGUE_ROLE_ID}>" in set_role.content
    ok = await driver.slash(
        "league", "round-set", league="Spring Cup", number=1, name="A", user=DAVE
    )
    assert not ok.ephemeral and "Round 1 of **Spring Cup (season 1)** is A" in ok.content


async def test_correct_points_and_new_season(driver: InProcessDriver) -> None:
    await create(driver)
    for user in (ALICE, BOB):
        await driver.slash("league", "join", league="Spring Cup", user=user)
    await driver.slash("league", "round-set", league="Spring Cup", number=1, name="A")
    await driver.slash(
        "league", "record", league="Spring Cup", round=1, order=f"<@{ALICE.id}> <@{BOB.id}>"
    )
    await refused(
        driver,
        "league",
        "correct",
        league="Spring Cup",
        round=1,
        driver=BOB.id,
        place=1,
        expect="alice already has place 1",
    )
    await driver.slash("league", "correct", league="Spring Cup", round=1, driver=ALICE.id, place=3)
    await driver.slash("league", "correct", league="Spring Cup", round=1, driver=BOB.id, place=1)
    await driver.slash("league", "points", league="Spring Cup", table="modern")
    text = (await driver.slash("league", "standings", league="Spring Cup")).last.embed.description
    assert text.index("bob") < text.index("alice")
    assert "25 pts" in text and "15 pts" in text
    closed = await driver.slash("league", "close-season", league="Spring Cup")
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
    opts = {o["name"]: o for o in subs["round-set"]["options"]}
    assert (opts["number"]["min_value"], opts["number"]["max_value"]) == (1, 99)
    assert (opts["name"]["min_length"], opts["name"]["max_length"]) == (1, 60)
    create_opts = {o["name"]: o for o in subs["create"]["options"]}
    assert create_opts["name"]["max_length"] == 50
    assert {c["value"] for c in create_opts["game"]["choices"]} == {
        "rf90",
        "waddington",
        "pitformula",
    }
    assert group["dm_permission"] is False  # guild only
    assert opts["league"]["autocomplete"] and opts["league"]["description"].startswith("League")
    # Discord enforces these ranges; discord.py does not, so the handler refuses too.
    await create(driver)
    await refused(
        driver,
        "league",
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
        expect="`monopoly` is not a value I can use here",
    )


async def test_robots_setting_is_an_admin_command_shown_in_info(driver: InProcessDriver) -> None:
    await create(driver, user=ALICE)
    info = await driver.slash("league", "info", league="Spring Cup", user=BOB)
    assert "by their order among members" in str(info.last.embed.fields)
    await refused(
        driver,
        "league",
        "robots",
        league="Spring Cup",
        places="on",
        user=BOB,
        expect="Only league admins",
    )
    done = await driver.slash("league", "robots", league="Spring Cup", places="on", user=ALICE)
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
