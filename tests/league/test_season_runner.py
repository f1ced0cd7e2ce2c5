"""The season runner (issue 25 point 2 and 3): a round's race opens by itself at its start in the
league's channel, exactly once, its drivers pinged and nobody else, sign-up open for the
league's window; it starts when everyone has joined or when sign-up closes, robots filling the
grid; a reminder goes out ahead; a live round has short decisions. On an injectable clock."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.table.rounds import ROUND_OPEN, ROUND_REMINDER, SIGNUP
from paddock_tools.bots import make_bot, world
from paddock_tools.fakediscord import ALICE, BOB, CAROL, GUILD_ID, RACES_CHANNEL_ID, InProcessDriver
from paddock_tools.fakediscord import payloads as pl
from store.models import GameRecord
from tests.bot_helpers import dump
from tests.league.league_helpers import confirmed

DRIVERS_ROLE = 1100000000000000016  # below the bot's role
NOW = datetime(2026, 12, 5, 12, 0, tzinfo=UTC).timestamp()
R1 = datetime(2026, 12, 12, 19, 0, tzinfo=UTC).timestamp()  # 20:00 in Madrid
R2 = datetime(2026, 12, 19, 19, 0, tzinfo=UTC).timestamp()
R3 = datetime(2027, 1, 9, 19, 0, tzinfo=UTC).timestamp()
DAY, HOUR, MINUTE = 86400, 3600, 60


@pytest.fixture
async def d(tmp_path: Path) -> AsyncIterator[InProcessDriver]:
    w = world()
    w.add_role(pl.role_payload(DRIVERS_ROLE, "Cup Drivers", 0, position=1))
    async with InProcessDriver(make_bot(tmp_path / "bot.db"), w, timeout=30) as d:
        d.bot.timers.clock = lambda: NOW
        yield d


async def at(d: InProcessDriver, when: float, done: Callable[[], Awaitable[Any]]) -> Any:
    """The bot's clock moves to `when`; wait until `done()` returns something true."""
    d.bot.timers.clock = lambda: when
    d.bot.timers.poke()
    for _ in range(500):
        await asyncio.sleep(0.02)
        got = await done()
        if got:
            await asyncio.sleep(0.05)  # what the listener does after it
            return got
    timers = await d.bot.store.timers()
    raise AssertionError(f"the timer never did its work; timers left: {timers}")


async def season(d: InProcessDriver) -> None:
    """A Waddington's league in five commands: create, home, race settings, rounds; its
    drivers join."""
    await d.slash("league", "create", name="Cup", game="waddington", user=ALICE)
    await d.slash(
        "league-admin",
        "setup",
        league="Cup",
        channel=RACES_CHANNEL_ID,
        role=DRIVERS_ROLE,
        timezone="Europe/Madrid",
        user=ALICE,
    )
    settings = await d.slash(
        "league-admin",
        "race-settings",
        league="Cup",
        grid=3,
        game="laps=1",
        signup_minutes=30,
        user=ALICE,
    )
    assert not settings.ephemeral, settings.content
    assert "Robots fill the grid to 3 cars" in settings.content
    assert "Sign-up: open 30 min" in settings.content and "1 lap(s)" in settings.content
    for number, name, start, extra in (
        (1, "Monza", "2026-12-12 20:00", {}),
        (2, "Spa", "2026-12-19 20:00", {"mode": "live"}),
        (3, "Suzuka", "2027-01-09 20:00", {}),
    ):
        answer = await d.slash(
            "league-admin",
            "round-set",
            league="Cup",
            number=number,
            name=name,
            start=start,
            user=ALICE,
            **extra,
        )
        assert f"At its start I open its race in <#{RACES_CHANNEL_ID}>" in answer.content
    for user in (BOB, CAROL):
        await d.slash("league", "join", league="Cup", user=user)


async def round_games(d: InProcessDriver, number: int) -> list[GameRecord]:
    league = await d.bot.store.get_league(GUILD_ID, "Cup")
    rnd = await d.bot.store.get_round(league, number)
    return [g for g in await d.bot.store.list_games() if g.round_id == rnd.id]


def channel_posts(d: InProcessDriver, mark: int, channel: int) -> list[dict[str, Any]]:
    return [
        c.json
        for c in d.backend.calls[mark:]
        if c.kind == "channel_message" and c.path == f"/channels/{channel}/messages"
    ]


async def finish(d: InProcessDriver, record: GameRecord, users: list[pl.FakeUser]) -> None:
    """The humans hand their cars to the robot: the race runs to its end."""
    for user in users:
        await d.slash("f1", "autopilot", mode="on", user=user, channel_id=record.thread_id)
    for _ in range(500):
        if (await d.bot.store.load_game(record.id)).status == "finished":
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the race did not finish")


async def test_a_three_round_season_runs_itself(d: InProcessDriver) -> None:
    await season(d)
    store = d.bot.store
    league = await store.get_league(GUILD_ID, "Cup")
    timers = sorted((t.event, t.due_at) for t in await store.timers() if t.round_id)
    assert timers == sorted(
        [(ROUND_OPEN, R1), (ROUND_OPEN, R2), (ROUND_OPEN, R3)]
        + [(ROUND_REMINDER, R - DAY) for R in (R1, R2, R3)]
    )

    # The reminder, a day ahead: the drivers' role pinged, and nothing else.
    mark = d.backend.mark()
    reminders = await at(
        d, R1 - DAY, lambda: asyncio.sleep(0, channel_posts(d, mark, RACES_CHANNEL_ID))
    )
    (reminder,) = reminders
    assert reminder["content"].startswith(f"⏰ <@&{DRIVERS_ROLE}> Cup round 1: Monza starts")
    assert f"<t:{int(R1)}:R>" in reminder["content"]
    allowed = reminder["allowed_mentions"]
    assert allowed["roles"] == [DRIVERS_ROLE] and not allowed.get("users")
    assert "everyone" not in allowed.get("parse", [])

    # Round 1 opens at its start: announced in the league's channel, pinging the role, the
    # lobby in its thread, sign-up until 30 minutes on.
    mark = d.backend.mark()
    (game,) = await at(d, R1, lambda: round_games(d, 1))
    announced = channel_posts(d, mark, RACES_CHANNEL_ID)
    assert len(announced) == 1
    assert (
        f"<@&{DRIVERS_ROLE}> sign-up is open until <t:{int(R1 + 30 * MINUTE)}:t>"
        in (announced[0]["content"])
    )
    game = await store.load_game(game.id)
    assert game.status == "lobby" and game.thread_id is not None
    assert game.settings["host"] is None and game.settings["turn_seconds"] == 1440 * MINUTE
    assert (await store.get_round(league, 1)).opened_at == R1
    (signup,) = [t for t in await store.timers(game.id) if t.event == SIGNUP]
    assert signup.due_at == R1 + 30 * MINUTE
    # A league admin's manual race for the round is refused while it is on.
    refused = await d.slash("f1", "new", league="Cup", round=1, user=BOB)
    assert refused.ephemeral and "opened at its start" in refused.content

    # Both drivers join: it starts at once, robots filling the grid to 3 cars.
    await d.click(f"pd:f1:{game.id}:join", user=BOB)
    assert (await store.load_game(game.id)).status == "lobby"
    await d.click(f"pd:f1:{game.id}:join", user=CAROL)
    started = await store.load_game(game.id)
    assert started.status == "running"
    seats = await store.seats(game.id)
    assert [(s.user_id, s.robot) for s in seats] == [
        (BOB.id, False),
        (CAROL.id, False),
        (None, True),
    ]
    await finish(d, started, [BOB, CAROL])

    # Round 2, live: short decisions; only Bob joins, and sign-up's end starts it with two
    # robots.
    (game2,) = await at(d, R2, lambda: round_games(d, 2))
    assert game2.settings["turn_seconds"] == 2 * MINUTE
    await d.click(f"pd:f1:{game2.id}:join", user=BOB)
    assert (await store.load_game(game2.id)).status == "lobby"
    await at(
        d,
        R2 + 30 * MINUTE,
        lambda: _status_is(d, game2.id, "running"),
    )
    seats2 = await store.seats(game2.id)
    assert [s.robot for s in seats2] == [False, True, True]
    # The first decision's clock is the live round's two minutes.
    turn = [t for t in await store.timers(game2.id) if t.event == "f1_timeout"]
    assert turn and turn[0].due_at == R2 + 30 * MINUTE + 2 * MINUTE
    await finish(d, await store.load_game(game2.id), [BOB])

    # Round 3: both join; its result is the calendar's last, so the season is wrapped up,
    # once, in the league's channel.
    mark = d.backend.mark()
    (game3,) = await at(d, R3, lambda: round_games(d, 3))
    await d.click(f"pd:f1:{game3.id}:join", user=CAROL)
    await d.click(f"pd:f1:{game3.id}:join", user=BOB)
    await finish(d, await store.load_game(game3.id), [BOB, CAROL])
    await asyncio.sleep(0.2)
    assert [t for t in wrapups(d, mark) if t == "Cup: season 1 wrap-up"] == [
        "Cup: season 1 wrap-up"
    ]

    # Each round opened once, and its result is recorded.
    for number in (1, 2, 3):
        assert len(await round_games(d, number)) == 1
    results = await store.results(league.id)
    assert {r.round_number for r in results} == {1, 2, 3}
    assert all(r.source == "game" for r in results)
    assert (await store.get_league(GUILD_ID, "Cup")).wrapped_at is not None

    # Season 2 keeps the home, the settings and the drivers: one round, then closed; the
    # careers add up across both seasons.
    await confirmed(d, "league-admin", "close-season", league="Cup")
    await d.slash("league", "create", name="Cup", game="waddington", user=ALICE)
    at_r4 = datetime(2027, 2, 6, 19, 0, tzinfo=UTC).timestamp()
    d.bot.timers.clock = lambda: R3 + DAY
    await d.slash(
        "league-admin",
        "round-set",
        league="Cup",
        number=1,
        name="Imola",
        start="2027-02-06 20:00",
        user=ALICE,
    )
    mark = d.backend.mark()
    (game4,) = await at(d, at_r4, lambda: round_games(d, 1))
    assert (await store.load_game(game4.id)).settings["grid"] == 3  # the settings carried over
    await d.click(f"pd:f1:{game4.id}:join", user=BOB)
    await d.click(f"pd:f1:{game4.id}:join", user=CAROL)
    await finish(d, await store.load_game(game4.id), [BOB, CAROL])
    await asyncio.sleep(0.2)
    assert wrapups(d, mark) == ["Cup: season 2 wrap-up"]  # its one round was the last
    career = await d.slash("league", "driver", driver=BOB.id, user=CAROL)
    (field,) = [f for f in career.last.embed.fields if f.name == "Waddington's Formula 1"]
    assert field.value.startswith("2 seasons, 4 races"), field.value
    # Every REST call the bot made was one of Discord's routes the fake serves.
    assert [(c.method, c.path) for c in d.backend.unhandled] == []


def wrapups(d: InProcessDriver, mark: int) -> list[str]:
    """The titles of the season wrap-ups posted in the league's channel since `mark`."""
    return [
        str(e.get("title"))
        for post in channel_posts(d, mark, RACES_CHANNEL_ID)
        for e in post.get("embeds") or []
        if "wrap-up" in str(e.get("title"))
    ]


async def test_a_round_nobody_signs_up_for_is_not_raced(d: InProcessDriver) -> None:
    await season(d)
    store = d.bot.store
    (game,) = await at(d, R1, lambda: round_games(d, 1))
    game = await store.load_game(game.id)
    mark = d.backend.mark()
    await at(d, R1 + 30 * MINUTE, lambda: _status_is(d, game.id, "abandoned"))
    (notice,) = channel_posts(d, mark, game.thread_id or 0)
    assert "nobody signed up" in notice["content"] and "/f1 new" in notice["content"]
    # Its thread is archived after the league's grace (an hour), as a cancelled lobby's.
    assert [(t.event, t.due_at) for t in await store.timers(game.id)] == [
        ("paddock_archive", R1 + 30 * MINUTE + HOUR)
    ]
    # An admin may now open the round by hand: the bot's race is over.
    again = await d.slash("f1", "new", league="Cup", round=1, user=BOB)
    assert not again.ephemeral, again.content
    assert len(await round_games(d, 1)) == 2


async def _status_is(d: InProcessDriver, game_id: int, status: str) -> bool:
    return (await d.bot.store.load_game(game_id)).status == status


async def test_a_round_opens_once_however_often_it_is_asked(d: InProcessDriver) -> None:
    await season(d)
    store = d.bot.store
    league = await store.get_league(GUILD_ID, "Cup")
    rnd = await store.get_round(league, 1)
    d.bot.timers.clock = lambda: R1
    rounds = d.bot.table.rounds
    # Three openers at once (the timer, a catch-up, another process's): one race.
    made = await asyncio.gather(rounds.open(rnd), rounds.open(rnd), rounds.open(rnd))
    assert sum(m is not None for m in made) == 1
    assert len(await round_games(d, 1)) == 1
    announced = [
        c
        for c in d.backend.calls
        if c.kind == "channel_message" and "sign-up is open" in str(c.json)
    ]
    assert len(announced) == 1
    # Opened (and its timer still there): a start-up's catch-up finds nothing to open, even
    # with the timer gone.
    for timer in await store.timers():
        if timer.round_id == rnd.id:
            await store.delete_timer(timer.id)
    assert await store.rounds_to_open(R1 + 1, ROUND_OPEN) == []


async def test_a_restart_opens_a_round_whose_timer_was_lost_and_posts_an_unposted_lobby(
    tmp_path: Path,
) -> None:
    db = tmp_path / "bot.db"
    w = world()
    w.add_role(pl.role_payload(DRIVERS_ROLE, "Cup Drivers", 0, position=1))
    async with InProcessDriver(make_bot(db), w, timeout=30) as d:
        d.bot.timers.clock = lambda: NOW
        await season(d)
        await d.bot.timers.stop()  # the timer loop is this process's; it dies below
        store = d.bot.store
        league = await store.get_league(GUILD_ID, "Cup")
        # A process claimed round 1's opening and died before opening it...
        claimed = await store.claim_due_timer(R1 - DAY + 1)  # (the reminder)
        assert claimed is not None and claimed.event == ROUND_REMINDER
        claimed = await store.claim_due_timer(R1)
        assert claimed is not None and claimed.event == ROUND_OPEN
        # ... and round 2's race was stored but never posted (killed after the commit).
        r2 = await store.get_round(league, 2)
        await store.delete_timer(
            next(
                t.id for t in await store.timers() if t.round_id == r2.id and t.event == ROUND_OPEN
            )
        )
        orphan = await store.create_game(
            "waddington",
            1,
            {},
            None,
            settings={
                "host": None,
                "scheduled": True,
                "title": "Cup round 2: Spa",
                "signup_closes": R2 + 1800,
                "max_players": 6,
                "laps": 1,
                "turn_seconds": 120,
                "robots": 0,
                "grid": 3,
            },
            guild_id=GUILD_ID,
            channel_id=RACES_CHANNEL_ID,
            league_id=league.id,
            round_id=r2.id,
            status="lobby",
            seats=[],
            opens_round=R2,
        )
        before = await dump(store)
    w2 = world()
    w2.add_role(pl.role_payload(DRIVERS_ROLE, "Cup Drivers", 0, position=1))
    bot = make_bot(db)
    bot.timers.clock = lambda: R2 + 60  # the restart comes after both starts
    async with InProcessDriver(bot, w2, timeout=30) as d2:
        games = {g.round_id: g for g in await d2.bot.store.list_games()}
        r1 = await d2.bot.store.get_round(league, 1)
        assert r1.id in games and games[r1.id].thread_id is not None
        posted = await d2.bot.store.load_game(orphan.id)
        assert posted.thread_id is not None and posted.status_message_id is not None
        assert len([g for g in games.values() if g.round_id == r2.id]) == 1
        assert before != await dump(d2.bot.store)


async def test_bad_race_settings_and_clashing_rounds_are_refused_in_one_line(
    d: InProcessDriver,
) -> None:
    await season(d)

    async def refused(*path: str, expect: str, **kw: Any) -> None:
        before = await dump(d.bot.store)
        calls = await d.slash(*path, user=ALICE, **kw)
        assert calls.ephemeral and expect in calls.content, calls.content
        assert "\n" not in calls.content.strip()
        assert await dump(d.bot.store) == before

    await refused(
        "league-admin", "race-settings", league="Cup", game="tracks=monza", expect="`tracks` is not"
    )
    await refused(
        "league-admin", "race-settings", league="Cup", game="laps=11", expect="Laps go from 1 to 10"
    )
    await refused("league-admin", "race-settings", league="Cup", game="laps", expect="name=value")
    await refused("league-admin", "race-settings", league="Cup", grid=9, expect="at most 6 cars")
    await refused(
        "league-admin",
        "round-set",
        league="Cup",
        number=4,
        name="Imola",
        start="2026-12-12 20:30",
        expect="Round 1 starts",
    )
    await refused(
        "league-admin",
        "round-set",
        league="Cup",
        number=4,
        name="Imola",
        game="track=silverstone",
        expect="This league's game has no round settings of its own",
    )


async def test_an_rf90_league_races_its_tracks_in_order_and_a_round_may_choose(
    d: InProcessDriver,
) -> None:
    await d.slash("league", "create", name="Nineties", game="rf90", user=ALICE)
    await d.slash(
        "league-admin",
        "setup",
        league="Nineties",
        channel=RACES_CHANNEL_ID,
        timezone="Europe/Madrid",
        user=ALICE,
    )
    refused = await d.slash(
        "league-admin", "race-settings", league="Nineties", game="laps=3", user=ALICE
    )
    assert refused.ephemeral and "`laps` is not one of the game's settings" in refused.content
    settings = await d.slash(
        "league-admin",
        "race-settings",
        league="Nineties",
        game="tracks=silverstone, barcelona turns=10",
        mode="live",
        user=ALICE,
    )
    assert "Tracks, round by round: Silverstone → Barcelona" in settings.content
    assert "Mode: live (a race night), 2 min per decision" in settings.content
    for number, start, extra in (
        (1, "2026-12-12 20:00", {}),
        (2, "2026-12-12 22:00", {}),
        (3, "2026-12-13 20:00", {"game": "track=silverstone", "mode": "async"}),
    ):
        said = await d.slash(
            "league-admin",
            "round-set",
            league="Nineties",
            number=number,
            name=f"R{number}",
            start=start,
            user=ALICE,
            **extra,
        )
        assert "At its start I open its race" in said.content, said.content
    opened: dict[int, GameRecord] = {}
    for number, when in ((1, R1), (2, R1 + 2 * HOUR), (3, R1 + DAY)):
        league = await d.bot.store.get_league(GUILD_ID, "Nineties")
        rnd = await d.bot.store.get_round(league, number)

        async def made(rnd_id: int = rnd.id) -> list[GameRecord]:
            return [g for g in await d.bot.store.list_games() if g.round_id == rnd_id]

        (opened[number],) = await at(d, when, made)
    tracks = {n: g.settings["track"] for n, g in opened.items()}
    assert tracks == {1: "silverstone", 2: "barcelona", 3: "silverstone"}
    assert {n: g.settings.get("race_turns") for n, g in opened.items()} == {1: 10, 2: 10, 3: 10}
    turn = {n: g.settings["turn_seconds"] for n, g in opened.items()}
    assert turn == {1: 2 * MINUTE, 2: 2 * MINUTE, 3: 1440 * MINUTE}


async def test_a_channel_that_refuses_the_bot_leaves_no_lobby_behind(d: InProcessDriver) -> None:
    await season(d)
    store = d.bot.store
    d.backend.revoke(RACES_CHANNEL_ID, "send_messages")  # a moderator took it away
    (game,) = await at(d, R1, lambda: round_games(d, 1))
    assert (await store.load_game(game.id)).status_message_id is None
    # The bot tries again a minute, five minutes and half an hour on; sign-up (30 min)
    # closes between, finding a lobby nobody could see: it is closed.
    await at(d, R1 + 30 * MINUTE, lambda: _status_is(d, game.id, "abandoned"))
    # The channel given back, an admin may open the round by hand.
    d.backend.grant(RACES_CHANNEL_ID, "send_messages")
    again = await d.slash("f1", "new", league="Cup", round=1, user=BOB)
    assert not again.ephemeral, again.content


async def test_the_game_option_offers_what_the_league_s_game_takes(d: InProcessDriver) -> None:
    await d.slash("league", "create", name="Cup", game="waddington", user=ALICE)
    await d.slash("league", "create", name="Nineties", game="rf90", user=ALICE)
    waddington = await d.autocomplete(
        "league-admin", "race-settings", focused="game", game="", league="Cup", user=ALICE
    )
    assert [c["value"] for c in waddington] == ["laps=5", "soft_options=on"]
    rf90 = await d.autocomplete(
        "league-admin", "race-settings", focused="game", game="tr", league="Nineties", user=ALICE
    )
    assert [c["value"] for c in rf90] == ["tracks=silverstone, barcelona"]
    rounds = await d.autocomplete(
        "league-admin",
        "round-set",
        focused="game",
        game="",
        league="Nineties",
        number=1,
        name="R1",
        user=ALICE,
    )
    assert [c["value"] for c in rounds] == ["track=silverstone"]
    assert rounds[0]["name"] == "track=silverstone (this round's track)"
