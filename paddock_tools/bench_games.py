"""`paddock bench`'s parts that drive a bot in this process through discord.py's real command
tree (the fake Discord's in-process driver): league standings, Waddington's clicks and
boards, Pit Formula's repairs, many /f1 races at once ("concurrency", which
`paddock_tools.bench` runs in a fresh process), and the memory with many leagues. The figures'
shape: paddock_tools/bench.py."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import tempfile
import time
from collections.abc import AsyncIterator
from typing import Any

from paddock_tools import bots, f1_driver, fakediscord
from paddock_tools.bench import _progress_count, bench_bot, bench_database, percentiles, rss_mb
from paddock_tools.fakediscord import ALICE, BOB, InProcessDriver
from paddock_tools.fakediscord import payloads as pl


async def _league_fixture(store: Any, guild_id: int, name: str, drivers: int, rounds: int) -> Any:
    """A league with drivers and recorded rounds, written straight to the store."""
    league = await store.create_league(
        guild_id, name, "waddington", "waddington", [10, 8, 6, 4, 2, 1], None
    )
    members = [
        await store.join_league(league, 10_000 + i, f"Driver {i + 1}", None) for i in range(drivers)
    ]
    for number in range(1, rounds + 1):
        rnd = await store.set_round(league, number, f"Round {number}", None)
        order = members[number % drivers :] + members[: number % drivers]
        await store.record_round(
            league, rnd, [(m.id, place, "finished") for place, m in enumerate(order, 1)]
        )
    return league


async def bench_league(quick: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    from bot.league_tables import standings_report

    iterations = 25 if quick else 150
    with tempfile.TemporaryDirectory() as tmp:
        async with bench_database(tmp, "league") as url:
            bot = bench_bot(url)
            async with fakediscord.InProcessDriver(bot, bots.world()) as driver:
                await bot.images_warm  # as a running bot would have by now
                guild = driver.world.guild_id
                await _league_fixture(bot.store, guild, "Bench Cup", 10, 8)
                moves = []
                for _ in range(iterations):
                    start = time.perf_counter()
                    calls = await driver.slash("league", "standings", league="Bench Cup")
                    moves.append((time.perf_counter() - start) * 1000)
                    assert calls.files and calls.files[0].is_png
                report = await standings_report(
                    bot.store, await bot.store.get_league(guild, "Bench Cup")
                )
                renders, png = [], b""
                for _ in range(iterations):
                    start = time.perf_counter()
                    png = report.png()
                    renders.append((time.perf_counter() - start) * 1000)
                concurrent_games = 10
                for i in range(concurrent_games):
                    await _league_fixture(bot.store, guild, f"Parallel {i}", 6, 4)

                async def one(i: int) -> float:
                    start = time.perf_counter()
                    await driver.slash("league", "standings", league=f"Parallel {i}")
                    return (time.perf_counter() - start) * 1000

                together: list[float] = []
                for _ in range(2 if quick else 10):
                    together += await asyncio.gather(*(one(i) for i in range(concurrent_games)))
    league = {
        "move_ms": percentiles(moves),
        "render_ms": {"standings": percentiles(renders)},
        "png_bytes": {"standings": len(png)},
    }
    concurrency = {
        "games": concurrent_games,
        "p99_ms": percentiles(together)["p99"],
        "max_ms": round(max(together), 3),
    }
    return league, concurrency


async def bench_waddington(quick: bool) -> dict[str, Any]:
    """Clicks of real drivers through the command tree (rules, store, board and close-up
    images, the messages), and the images alone."""
    from renderer.waddington import render_board, render_closeup
    from rules.waddington import GAME as game  # typed: its destinations() for the close-up

    clicks = 40 if quick else 300
    moves: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        async with bench_database(tmp, "f1") as url:
            bot = bench_bot(url)
            async with InProcessDriver(bot, bots.world()) as driver:
                await bot.images_warm  # as a running bot would have by now
                gid = await f1_driver.start_race(driver, laps=3, robots=2)
                while len(moves) < clicks:
                    game, state, _ = await f1_driver.state_of(driver, gid)
                    if game.is_terminal(state):
                        gid = await f1_driver.start_race(driver, laps=3, robots=2)
                        continue
                    # from the click's arrival to the bot being done with it, not the harness
                    moves.append(await f1_driver.play_one_click(driver, gid) * 1000)
    state = game.new_game(7, game.simulation_config(players=6))
    for _ in range(60):  # a race under way: cars spread round the circuit
        state, _ = game.apply(state, game.robot_action(state, game.to_act(state)[0]))
    while state.turn is None or state.turn.phase != "move":
        state, _ = game.apply(state, game.robot_action(state, game.to_act(state)[0]))
    seat = game.to_act(state)[0]
    dests = game.destinations(state, seat)
    board_ms, closeup_ms = [], []
    board = closeup = b""
    render_board(state)  # the cached static layers are built once per process
    render_closeup(state, seat, dests)
    for _ in range(20 if quick else 100):
        start = time.perf_counter()
        board = render_board(state, highlight_seat=seat)
        board_ms.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        closeup = render_closeup(state, seat, dests)
        closeup_ms.append((time.perf_counter() - start) * 1000)
    return {
        "move_ms": percentiles(moves),
        "render_ms": {"board": percentiles(board_ms), "closeup": percentiles(closeup_ms)},
        "png_bytes": {"board": len(board), "closeup": len(closeup)},
    }


_RACES = itertools.count()


async def start_f1(driver: Any, *, laps: int, robots: int, settled: bool = True) -> int:
    """ALICE opens a /f1 race, BOB joins, ALICE starts it; the game id, read from the lobby's
    buttons (not from the store's list, which another process may be adding to). `settled`:
    back once a driver has a prompt (the robots and timers done), read from the bot's store."""

    # each race its own time limit (an hour or more): the same /f1 new again within a few
    # seconds would be a retry, answered with the race the first made
    minutes = 60 + next(_RACES) % 600
    calls = await driver.slash(
        "f1", "new", laps=laps, robots=robots, turn_minutes=minutes, user=ALICE
    )
    gid = _lobby_id(calls, "f1")
    await driver.click(f"pd:f1:{gid}:join", user=BOB)
    await driver.click(f"pd:f1:{gid}:start", user=ALICE)
    if settled:
        await f1_driver.settled(driver, gid)
    return gid


async def start_pit(driver: Any, channel_id: int, store: Any) -> Any:
    """ALICE starts a 12-race Pit Formula game with BOB in a channel; its game record (read
    from `store`, the bot's or a store of the bench's own on the bot's database)."""

    await driver.slash(
        "pit", "start", players=f"<@{BOB.id}>", races=12, user=ALICE, channel_id=channel_id
    )
    record = await store.find_game("pitformula", channel_id=channel_id)
    assert record is not None
    return record


def _lobby_id(calls: Any, area: str) -> int:
    """The game id in a lobby's Join button among the calls a command made."""
    for call in calls:
        for custom_id in call.custom_ids:
            parts = custom_id.split(":")
            if parts[:2] == ["pd", area] and parts[-1] == "join":
                return int(parts[2])
    raise AssertionError(f"no /{area} lobby in {list(calls)!r}")


@contextlib.asynccontextmanager
async def _database(tmp: str, name: str, url: str | None) -> AsyncIterator[str]:
    """`url` when given (a database shared with another process), else a new one."""
    if url is not None:
        yield url
        return
    async with bench_database(tmp, name) as new:
        yield new


async def bench_waddington_concurrency(
    quick: bool,
    url: str | None = None,
    ids_from: int | None = None,
    games: int | None = None,
    races_from: int = 0,
) -> dict[str, Any]:
    """Many /f1 races on one bot, each getting a click (fed to the connection state the way
    the gateway does): from each click to its race's last message or edit (state persisted,
    images drawn, prompt posted). Twice: clicks spread at 20 a second (a busy league night:
    "p99_ms"), and all at the same instant ("burst_p99_ms", bound by the CPU the images
    take: ~20-30 ms each on 2 cores). And the RSS with all the races loaded.

    `url`: a database another bench process uses at the same time (two_processes), and
    `ids_from` the fake Discord's first snowflake counter, so the two never make the same
    thread or message id, and `races_from` the first of its races' time limits (a command
    another process sent too would be a retry); `games`: instead of 200 (20 with `quick`)."""
    global _RACES
    from rules.base import get_game

    if ids_from is not None:
        pl._counter = itertools.count(ids_from)
    _RACES = itertools.count(races_from)
    game = get_game("waddington")
    count = games or (20 if quick else 200)
    latencies: dict[str, list[float]] = {"spread": [], "burst": []}
    with tempfile.TemporaryDirectory() as tmp:
        async with _database(tmp, "many", url) as db:
            bot = bench_bot(db)
            async with InProcessDriver(bot, bots.world()) as driver:
                await bot.images_warm
                gids = []
                for _ in range(count):
                    gids.append(await start_f1(driver, laps=2, robots=0))
                    _progress_count("concurrency: races started", len(gids), count)
                for call in driver.backend.calls:  # the fake Discord's copies of the images
                    call.files.clear()
                gc.collect()
                rss = rss_mb()
                for mode in ("spread", "burst", "spread", "burst"):
                    payloads, threads = [], {}
                    for gid in gids:
                        _, state, seq = await f1_driver.state_of(driver, gid)
                        if game.is_terminal(state):
                            continue
                        prompt = f1_driver.latest_with(driver, f"pd:f1:{gid}:act:{seq}.")
                        assert prompt is not None
                        custom_id = f1_driver.buttons(prompt)[0]["custom_id"]  # a public choice
                        seat = game.to_act(state)[0]
                        user = await f1_driver.seat_user(driver, gid, seat)
                        payloads.append(
                            pl.component_payload(driver.world, custom_id, message=prompt, user=user)
                        )
                        record = await bot.store.load_game(gid)
                        threads[f"/channels/{record.thread_id}/"] = len(payloads) - 1
                    mark = len(driver.backend.calls)
                    start = time.perf_counter()
                    sent: dict[int, float] = {}
                    for index, payload in enumerate(payloads):
                        if mode == "spread":
                            await asyncio.sleep(max(0.0, start + index / 20 - time.perf_counter()))
                        driver.backend.register_interaction(payload)
                        sent[index] = time.perf_counter()
                        bot._connection.parse_interaction_create(payload)
                    quiet_since, seen = time.perf_counter(), mark
                    while (
                        time.perf_counter() - quiet_since < 0.3 and time.perf_counter() - start < 60
                    ):
                        await asyncio.sleep(0.01)
                        if len(driver.backend.calls) != seen:
                            seen, quiet_since = len(driver.backend.calls), time.perf_counter()
                    last: dict[int, float] = {}
                    for call in driver.backend.calls[mark:]:
                        for prefix, index in threads.items():
                            if prefix in call.path:
                                last[index] = (call.at - sent[index]) * 1000
                    latencies[mode] += list(last.values())
                    for call in driver.backend.calls:  # the fake Discord's copies, not the bot's
                        call.files.clear()
                gc.collect()
                rss = max(rss, rss_mb())  # with every race moved on, boards drawn
    return {
        "games": count,
        "p99_ms": percentiles(latencies["spread"])["p99"],
        "max_ms": round(max(latencies["spread"]), 3),
        "burst_p99_ms": percentiles(latencies["burst"])["p99"],
        "rss_mb": rss,
    }


async def bench_pitformula(quick: bool) -> dict[str, Any]:
    """`/pit fix` answers through the command tree (rules + store), the images, and ten
    games running at once in one process."""
    from renderer.pitformula import render_scoring, render_table
    from rules.base import get_game
    from rules.pitformula import Fix

    game = get_game("pitformula")
    channels = [pl.RACES_CHANNEL_ID + 100 + i for i in range(10)]
    world = bots.world()
    for i, cid in enumerate(channels):
        world.add_channel(pl.text_channel_payload(cid, f"pit-{i}"))
    users = {pl.ALICE.id: pl.ALICE, pl.BOB.id: pl.BOB}

    async def seat_user(gid: int, seat: int) -> Any:
        return users[{s.seat: s.user_id for s in await bot.store.seats(gid)}[seat]]

    async def next_fix(gid: int) -> tuple[Any, Fix] | None:
        """The next repair a crew would make in this game (other moves are made directly)."""
        for _ in range(200):
            record = await bot.store.load_game(gid)
            state = game.load_state(record.state_json)
            if game.is_terminal(state):
                return None
            if state.phase != "repair":  # between races: the next Go! is on its way
                await asyncio.sleep(0.01)
                continue
            seat = game.to_act(state)[0]
            action = game.robot_action(state, seat)
            if isinstance(action, Fix):
                return await seat_user(gid, seat), action
            await bot.get_cog("PitCog")._act(
                gid, (await seat_user(gid, seat)).id, action.model_dump(exclude={"seat"})
            )
        return None

    fixes: list[float] = []
    together: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        async with bench_database(tmp, "pit") as url:
            bot = bench_bot(url)
            async with fakediscord.InProcessDriver(bot, world) as driver:
                await bot.images_warm  # as a running bot would have by now
                cog = bot.get_cog("PitCog")
                cog.countdown_seconds = 0
                games: list[int] = []
                for cid in channels:
                    games.append((await start_pit(driver, cid, bot.store)).id)
                while len(fixes) < (30 if quick else 200):
                    found = await next_fix(games[0])
                    if found is None:
                        break
                    user, fix = found
                    start = time.perf_counter()
                    await driver.slash(
                        "pit",
                        "fix",
                        part=fix.card,
                        tokens=" ".join(fix.tokens),
                        user=user,
                        channel_id=channels[0],
                    )
                    fixes.append((time.perf_counter() - start) * 1000)

                async def burst() -> list[float]:
                    """One repair in every game, all arriving at the same instant, fed to the
                    bot's connection state the way the gateway does; the time to each answer."""
                    payloads = []
                    for index, gid in enumerate(games):
                        found = await next_fix(gid)
                        if found is not None:
                            user, fix = found
                            payloads.append(
                                driver.slash_payload(
                                    "pit",
                                    "fix",
                                    part=fix.card,
                                    tokens=" ".join(fix.tokens),
                                    user=user,
                                    channel_id=channels[index],
                                )
                            )
                    start = time.perf_counter()
                    for payload in payloads:
                        driver.backend.register_interaction(payload)
                        bot._connection.parse_interaction_create(payload)
                    markers = [f"/interactions/{p['id']}/" for p in payloads]
                    answers: dict[str, float] = {}
                    while len(answers) < len(markers) and time.perf_counter() - start < 10:
                        await asyncio.sleep(0.002)
                        for call in driver.backend.calls[-200:]:
                            for marker in markers:
                                if marker in call.path and marker not in answers:
                                    answers[marker] = (call.at - start) * 1000
                    await asyncio.sleep(0.05)  # let the games settle before the next burst
                    return list(answers.values())

                for _ in range(3 if quick else 10):
                    together += await burst()
    state = game.new_game(3, game.simulation_config(players=4))
    while state.phase != "repair" or not state.cars[0].cards[0].tokens:
        before = state
        state, _ = game.apply(state, game.robot_action(state, game.to_act(state)[0]))
        if state.results:
            break
    table_ms, table = [], b""
    for _ in range(20 if quick else 100):
        start = time.perf_counter()
        table = render_table(state)
        table_ms.append((time.perf_counter() - start) * 1000)
    while not state.results:
        before = state
        state, _ = game.apply(state, game.robot_action(state, game.to_act(state)[0]))
    start = time.perf_counter()
    scoring = render_scoring(state, board=before)
    scoring_ms = (time.perf_counter() - start) * 1000
    return {
        "move_ms": percentiles(fixes),
        "render_ms": {
            "table": percentiles(table_ms),
            "scoring": {"p50": round(scoring_ms, 3), "p99": round(scoring_ms, 3)},
        },
        "png_bytes": {"table": len(table), "scoring": len(scoring)},
        "concurrency": {
            "games": len(games),
            "p99_ms": percentiles(together)["p99"],
            "max_ms": round(max(together), 3),
        },
    }


async def bench_memory() -> dict[str, float]:
    """RSS after 1, 10 and 200 leagues with results and a rendered standings each."""
    from bot.league_tables import standings_report
    from store import open_store

    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        async with bench_database(tmp, "mem") as url, open_store(url) as store:
            made = 0
            for target in (1, 10, 200):
                while made < target:
                    league = await _league_fixture(store, 1, f"League {made}", 6, 3)
                    (await standings_report(store, league)).png()
                    made += 1
                gc.collect()
                out[str(target)] = rss_mb()
    return out
