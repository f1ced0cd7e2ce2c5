"""Availability through the fake Discord (issue 25 point 5): `/games` away, quiet hours, time
zone and digest, shown one line each; bad values refused in one line with nothing changed;
a driver's deadline waiting while they are away (no league), the robot deciding at once for
one away in a league whose policy says so, a reminder in quiet hours posted without its ping
and the deadline moved to their end, the daily digest by DM; `/league-admin away`. The bot's
clock is fixed (the timers fire when it is moved)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from paddock_tools.bots import make_bot, world
from paddock_tools.f1_driver import play_one_click, seat_user, settled, state_of
from paddock_tools.fakediscord import ALICE, BOB, GUILD_ID, InProcessDriver
from paddock_tools.fakediscord import payloads as pl
from store.models import Timer
from tests.bot_helpers import dump
from tests.helpers import until

T = datetime(2026, 12, 5, 22, 0, tzinfo=UTC).timestamp()  # the bot's clock: 22:00 UTC
HOUR = 3600.0
DAY = 86400.0


@pytest.fixture
async def d(tmp_path: Path) -> AsyncIterator[InProcessDriver]:
    async with InProcessDriver(make_bot(tmp_path / "away.db"), world()) as driver:
        driver.bot.timers.clock = lambda: T
        yield driver


def at(moment: float, d: InProcessDriver) -> None:
    d.bot.timers.clock = lambda: moment
    d.bot.timers.poke()


async def race(d: InProcessDriver, **league: object) -> int:
    """ALICE opens a one-lap /f1 race (60 minutes a move), BOB joins, ALICE starts it; then
    clicks for whoever is to act until it is BOB's turn."""
    before = {g.id for g in await d.bot.store.list_games()}
    await d.slash("f1", "new", laps=1, robots=1, turn_minutes=60, user=ALICE, **league)
    (gid,) = [g.id for g in await d.bot.store.list_games() if g.id not in before]
    await d.click(f"pd:f1:{gid}:join", user=BOB)
    await d.click(f"pd:f1:{gid}:start", user=ALICE)
    await settled(d, gid)
    for _ in range(60):
        game, state, _ = await state_of(d, gid)
        if await seat_user(d, gid, game.to_act(state)[0]) is BOB:
            return gid
        await play_one_click(d, gid)
        await settled(d, gid)
    raise AssertionError("it never became bob's turn")


async def bobs(d: InProcessDriver, gid: int, event: str) -> Timer:
    seat = next(s.seat for s in await d.bot.store.seats(gid) if s.user_id == BOB.id)
    (timer,) = [
        t for t in await d.bot.store.timers(gid) if t.event == event and seat in t.payload["seats"]
    ]
    return timer


def dms(d: InProcessDriver) -> list[str]:
    return [
        c.content or ""
        for c in d.backend.calls
        if c.kind == "channel_message" and int(c.path.split("/")[2]) in d.backend.dm_channels
    ]


async def refused(d: InProcessDriver, *path: str, expect: str, **kw: object) -> None:
    before = await dump(d.bot.store)
    calls = await d.slash(*path, **kw)
    assert calls.ephemeral, calls.content
    assert expect in calls.content and "\n" not in calls.content.strip(), calls.content
    assert await dump(d.bot.store) == before


async def test_settings_are_kept_shown_one_line_each_and_bad_ones_change_nothing(
    d: InProcessDriver,
) -> None:
    fresh = await d.slash("games", user=BOB)
    assert fresh.ephemeral
    for line in (
        "Reminders by direct message: off",
        "Away: no",
        "Quiet hours: none",
        "Daily digest: off",
        "Time zone: UTC",
        "Confirm before a decision that can't be undone: on",
    ):
        assert f"\n{line}\n" in f"\n{fresh.content}\n", fresh.content
    set_all = await d.slash(
        "games",
        timezone="europe/madrid",
        quiet_from="23:00",
        quiet_to="7",
        digest="on",
        digest_at="08:30",
        user=BOB,
    )
    assert set_all.ephemeral and "Saved." in set_all.content
    assert "Quiet hours: 23:00 to 07:00" in set_all.content
    assert "Daily digest: on, at 08:30" in set_all.content
    assert "Time zone: Europe/Madrid" in set_all.content
    # The digest's timer: the next 08:30 in Madrid (UTC+1 in December), of no game.
    (digest,) = await d.bot.store.timers()
    assert (digest.event, digest.game_id, digest.payload) == ("digest", None, {"user": BOB.id})
    assert digest.due_at == datetime(2026, 12, 6, 7, 30, tzinfo=UTC).timestamp()

    await refused(d, "games", quiet_from="23:00", user=BOB, expect="Give both `quiet_from`")
    await refused(d, "games", quiet_from="8", quiet_to="08:00", user=BOB, expect="two different")
    await refused(d, "games", digest_at="25:00", user=BOB, expect="HH:MM")
    await refused(d, "games", timezone="Mars/Olympus", user=BOB, expect="I don't know the time")
    await refused(d, "games", away="2026-12-01", user=BOB, expect="has passed")
    await refused(d, "games", away="soon", user=BOB, expect="the day you are back")
    # A bad value beside good ones: nothing of the good ones is kept either.
    await refused(d, "games", digest="off", away="soon", user=BOB, expect="the day you are back")
    offered = await d.autocomplete("games", focused="away", away="", user=BOB)
    assert [c["value"] for c in offered[:3]] == ["off", "2026-12-06", "2026-12-07"]

    off = await d.slash("games", quiet_from="off", digest="off", user=BOB)
    assert "Quiet hours: none" in off.content and "Daily digest: off" in off.content
    assert await d.bot.store.timers() == []


async def test_league_admins_set_the_away_allowance_and_beyond_it_nothing_changes(
    d: InProcessDriver,
) -> None:
    await d.slash("league", "create", name="Cup", game="waddington", user=ALICE)
    await d.slash("league", "join", league="Cup", user=BOB)
    answer = await d.slash("league-admin", "away", league="Cup", days=3, policy="robot", user=ALICE)
    assert answer.ephemeral
    assert "may be away 3 days a season" in answer.content
    assert "the robot decides for them at once" in answer.content
    league = await d.bot.store.get_league(GUILD_ID, "Cup")
    assert (league.away_days, league.away_policy) == (3, "robot")
    await refused(
        d, "league-admin", "away", league="Cup", days=5, user=BOB, expect="Only league admins"
    )
    info = await d.slash("league", "info", league="Cup", user=BOB)
    away = next(f for f in info.last.embed.fields if f.name == "Away")
    assert "3 days a season" in away.value

    await refused(d, "games", away="2026-12-10", user=BOB, expect="allows 3 a season")
    ok = await d.slash("games", away="2026-12-08", user=BOB)  # 26 h + 2 days: 3 days
    until_at = datetime(2026, 12, 8, tzinfo=UTC).timestamp()
    assert f"Away until <t:{int(until_at)}:F>" in ok.content
    assert "Cup (season 1) 3 of 3 days used (the robot decides for you)" in ok.content
    back = await d.slash("games", away="back", user=BOB)
    assert "Welcome back." in back.content and "Away: no" in back.content


async def test_away_outside_a_league_the_deadline_waits_for_the_driver(
    d: InProcessDriver,
) -> None:
    gid = await race(d)
    old = await bobs(d, gid, "f1_timeout")
    left = old.payload["deadline"] - T
    assert 0 < left <= HOUR
    answer = await d.slash("games", away="2026-12-10", user=BOB)
    assert "Deadlines worked out again in 1 race." in answer.content
    back_at = datetime(2026, 12, 10, tzinfo=UTC).timestamp()
    timeout = await bobs(d, gid, "f1_timeout")
    assert timeout.due_at == timeout.payload["deadline"] == back_at + left
    assert (await bobs(d, gid, "f1_reminder")).due_at == back_at + 0.75 * left
    listed = await d.slash("games", user=BOB)
    assert f"due <t:{int(back_at + left)}:R>" in listed.content
    # Back early: the deadline stays where it was.
    await d.slash("games", away="off", user=BOB)
    assert (await bobs(d, gid, "f1_timeout")).due_at == back_at + left


async def test_away_in_a_robot_league_the_robot_decides_at_once(d: InProcessDriver) -> None:
    await d.slash("league", "create", name="Cup", game="waddington", user=ALICE)
    await d.slash("league-admin", "round-set", league="Cup", number=1, name="Monza", user=ALICE)
    for user in (ALICE, BOB):
        await d.slash("league", "join", league="Cup", user=user)
    await d.slash("league-admin", "away", league="Cup", policy="robot", user=ALICE)
    gid = await race(d, league="Cup", round=1)
    mark = (await d.bot.store.load_game(gid)).seq
    await d.slash("games", away="2026-12-07", user=BOB)

    async def decided() -> bool:
        actions = await d.bot.store.actions(gid)
        return any(a.seq > mark and a.actor == f"timeout:{BOB.id}" for a in actions)

    await until(decided, "the robot deciding for bob")

    def said() -> list[str]:  # read at each poll: the note may be posted after the action
        return [c.content or "" for c in d.backend.calls if c.kind == "channel_message"]

    await until(lambda: any("bob is away: the robot decided for them." in s for s in said()))


async def test_quiet_hours_leave_out_the_ping_and_move_the_deadline_to_their_end(
    d: InProcessDriver,
) -> None:
    gid = await race(d)
    await d.slash("games", reminders="on", user=BOB)
    await d.slash("games", timezone="UTC", quiet_from="21:00", quiet_to="07:00", user=BOB)
    morning = datetime(2026, 12, 6, 7, tzinfo=UTC).timestamp()
    timeout = await bobs(d, gid, "f1_timeout")
    assert timeout.due_at == morning  # 23:00 at the latest: in the quiet hours
    reminder = await bobs(d, gid, "f1_reminder")
    assert T < reminder.due_at < T + HOUR  # at its time: 07:00 would be the deadline
    thread = (await d.bot.store.load_game(gid)).thread_id
    at(reminder.due_at + 1, d)

    def reminded() -> list[pl.Call]:
        return [
            c
            for c in d.backend.calls
            if c.kind == "channel_message" and "⏰" in (c.content or "") and f"/{thread}/" in c.path
        ]

    (posted,) = await until(reminded, "the reminder")
    assert f"<@{BOB.id}>" in (posted.content or "")
    assert posted.json["allowed_mentions"]["users"] == []  # not pinged
    assert dms(d) == []  # and no DM in the quiet hours
    at(morning, d)

    async def decided() -> bool:
        return any(a.actor == f"timeout:{BOB.id}" for a in await d.bot.store.actions(gid))

    await until(decided, "the timeout at the end of the quiet hours")


async def test_the_daily_digest_lists_the_races_waiting_and_comes_again_tomorrow(
    d: InProcessDriver,
) -> None:
    gid = await race(d)
    await d.slash("games", digest="on", digest_at="22:30", user=BOB)
    await d.slash("games", digest="on", digest_at="22:30", user=ALICE)  # nothing waits for her
    half = datetime(2026, 12, 5, 22, 30, tzinfo=UTC).timestamp()  # before bob's deadline
    assert [(t.due_at, t.payload) for t in await d.bot.store.timers() if t.game_id is None] == [
        (half, {"user": BOB.id}),
        (half, {"user": ALICE.id}),
    ]
    deadline = (await bobs(d, gid, "f1_timeout")).due_at
    at(half, d)
    (digest,) = await until(lambda: dms(d), "bob's digest")
    record = await d.bot.store.load_game(gid)
    assert digest.startswith("☀ Your daily digest: 1 race waiting for you\n")
    assert f"#{gid}" in digest and "Waddington" in digest
    assert f"https://discord.com/channels/{GUILD_ID}/{record.thread_id}" in digest
    assert f"<t:{int(deadline)}:F>" in digest

    async def rearmed() -> list[float]:
        return [t.due_at for t in await d.bot.store.timers() if t.game_id is None]

    assert await until(lambda: rearmed()) == [half + DAY, half + DAY]
    assert len(dms(d)) == 1  # none to alice: no race waits for her


async def test_a_race_taken_back_does_not_ping_a_driver_in_their_quiet_hours(
    d: InProcessDriver,
) -> None:
    """The prompt asking again after a rewind leaves out the ping of a driver whose quiet
    hours it is, as the prompt after a move does."""
    gid = await race(d)  # bob's turn
    at_bobs_turn = (await d.bot.store.load_game(gid)).seq
    await d.slash("games", timezone="UTC", quiet_from="21:00", quiet_to="07:00", user=BOB)
    await play_one_click(d, gid)
    await settled(d, gid)
    thread = (await d.bot.store.load_game(gid)).thread_id
    asked = await d.slash("f1", "rewind", to=at_bobs_turn, user=ALICE, channel_id=thread)
    (confirm,) = [c for c in asked.custom_ids if ":rewind:" in c]
    mark = len(d.backend.calls)
    await d.click(confirm, user=ALICE)
    await settled(d, gid)
    game, state, _ = await state_of(d, gid)
    assert await seat_user(d, gid, game.to_act(state)[0]) is BOB  # asked again
    prompts = [
        c
        for c in d.backend.calls[mark:]
        if c.kind == "channel_message" and f"<@{BOB.id}>" in (c.content or "")
    ]
    assert prompts, "the prompt asking bob again"
    assert all(BOB.id not in map(int, c.json["allowed_mentions"]["users"]) for c in prompts)
