"""A league's home (issue 25 point 1): its channel, its drivers' role given by /league join and
taken by /league leave, its time zone; round starts as Discord timestamps; bad input refused
in one line with nothing changed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from paddock_tools.bots import ERIN, make_bot, world
from paddock_tools.fakediscord import ALICE, BOB, GUILD_ID, RACES_CHANNEL_ID, InProcessDriver
from paddock_tools.fakediscord import payloads as pl
from tests.bot_helpers import dump

DRIVERS_ROLE = 1100000000000000016  # below the bot's role (position 3)
HIGH_ROLE = 1100000000000000017  # above it


@pytest.fixture
async def driver(tmp_path: Path) -> AsyncIterator[InProcessDriver]:
    w = world()
    w.add_role(pl.role_payload(DRIVERS_ROLE, "Cup Drivers", 0, position=1))
    w.add_role(pl.role_payload(HIGH_ROLE, "Champions", 0, position=5))
    async with InProcessDriver(make_bot(tmp_path / "bot.db"), w) as d:
        d.bot.timers.clock = lambda: datetime(2026, 12, 5, 12, 0, tzinfo=UTC).timestamp()
        await d.slash("league", "create", name="Cup", game="waddington", user=ALICE)
        yield d


async def refused(d: InProcessDriver, *path: str, expect: str, **kw: object) -> str:
    before = await dump(d.bot.store)
    calls = await d.slash(*path, **kw)
    assert calls.ephemeral, calls.content
    assert expect in calls.content, calls.content
    assert "\n" not in calls.content.strip()
    assert await dump(d.bot.store) == before
    return calls.content


def roles_of(d: InProcessDriver, user: pl.FakeUser) -> tuple[int, ...]:
    return d.world.users[user.id].roles


async def test_home_role_and_time_zone_are_kept_and_shown(driver: InProcessDriver) -> None:
    d = driver
    set_home = await d.slash(
        "league-admin",
        "setup",
        league="Cup",
        channel=RACES_CHANNEL_ID,
        role=DRIVERS_ROLE,
        timezone="europe/madrid",
        user=ALICE,
    )
    assert not set_home.ephemeral
    assert f"races open in <#{RACES_CHANNEL_ID}>" in set_home.content
    assert f"drivers get <@&{DRIVERS_ROLE}>" in set_home.content
    assert "times in Europe/Madrid" in set_home.content
    league = await d.bot.store.get_league(GUILD_ID, "Cup")
    assert (league.channel_id, league.role_id, league.timezone) == (
        RACES_CHANNEL_ID,
        DRIVERS_ROLE,
        "Europe/Madrid",
    )

    # /league join gives the role, /league leave takes it back; the answer pings nobody else.
    joined = await d.slash("league", "join", league="Cup", user=BOB)
    assert DRIVERS_ROLE in roles_of(d, BOB)
    assert joined.last.message.get("allowed_mentions", {}).get("roles") in (None, [])
    left = await d.slash("league", "leave", league="Cup", user=BOB)
    assert "You left" in left.content
    assert DRIVERS_ROLE not in roles_of(d, BOB)

    # A round's start, written in the league's zone, is shown as a Discord timestamp.
    at = datetime(2026, 12, 12, 19, 0, tzinfo=UTC).timestamp()  # 20:00 in Madrid
    rnd = await d.slash(
        "league-admin",
        "round-set",
        league="Cup",
        number=1,
        name="Monza",
        start="2026-12-12 20:00",
        user=ALICE,
    )
    assert f"starting <t:{int(at)}:F>" in rnd.content
    assert (await d.bot.store.get_round(league, 1)).starts_at == at
    calendar = await d.slash("league", "calendar", league="Cup", user=ERIN)
    assert f"<t:{int(at)}:F>" in calendar.last.embed.description
    info = await d.slash("league", "info", league="Cup", user=ERIN)
    home = next(f for f in info.last.embed.fields if f.name == "Home")
    assert f"<#{RACES_CHANNEL_ID}>" in home.value and "Europe/Madrid" in home.value

    # The next season keeps the home.
    await d.bot.store.close_season(league)
    await d.slash("league", "create", name="Cup", game="waddington", user=ALICE)
    season2 = await d.bot.store.get_league(GUILD_ID, "Cup")
    assert season2.season == 2 and season2.role_id == DRIVERS_ROLE
    assert season2.timezone == "Europe/Madrid" and season2.channel_id == RACES_CHANNEL_ID


async def test_bad_homes_and_starts_are_refused_in_one_line(driver: InProcessDriver) -> None:
    d = driver
    home = {"league": "Cup", "channel": RACES_CHANNEL_ID, "user": ALICE}
    await refused(d, "league-admin", "setup", **home, role=HIGH_ROLE, expect="above my highest")
    await refused(d, "league-admin", "setup", **home, role=GUILD_ID, expect="can't be given")
    await refused(
        d, "league-admin", "setup", **home, timezone="Mars/Olympus", expect="I don't know the time"
    )
    await refused(d, "league-admin", "setup", **{**home, "user": BOB}, expect="Only league admins")
    rs = {"league": "Cup", "number": 1, "name": "Monza", "user": ALICE}
    await refused(
        d, "league-admin", "round-set", **rs, start="2026-12-01 20:00 UTC", expect="has passed"
    )
    await refused(d, "league-admin", "round-set", **rs, start="saturday", expect="Write the start")


async def test_a_role_the_bot_may_not_give_leaves_the_join_standing(
    driver: InProcessDriver,
) -> None:
    d = driver
    await d.slash(
        "league-admin",
        "setup",
        league="Cup",
        channel=RACES_CHANNEL_ID,
        role=DRIVERS_ROLE,
        user=ALICE,
    )
    d.backend.revoke(GUILD_ID, "manage_roles")  # server-wide, as the fake Discord models it
    joined = await d.slash("league", "join", league="Cup", user=BOB)
    assert "joined **Cup (season 1)**" in joined.content
    assert f"I couldn't give you <@&{DRIVERS_ROLE}>" in joined.content
    assert DRIVERS_ROLE not in roles_of(d, BOB)
    league = await d.bot.store.get_league(GUILD_ID, "Cup")
    assert await d.bot.store.member_by_user(league.id, BOB.id) is not None


async def test_autocomplete_offers_starts_in_the_league_zone(driver: InProcessDriver) -> None:
    d = driver
    await d.slash(
        "league-admin",
        "setup",
        league="Cup",
        channel=RACES_CHANNEL_ID,
        timezone="Asia/Tokyo",
        user=ALICE,
    )
    offered = await d.autocomplete(
        "league-admin",
        "round-set",
        focused="start",
        start="",
        league="Cup",
        number=1,
        name="Suzuka",
        user=ALICE,
    )
    assert offered[0]["value"] == "2026-12-12 20:00 Asia/Tokyo"
