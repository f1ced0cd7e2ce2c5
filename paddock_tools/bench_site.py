"""`paddock bench`'s league site parts (issue 26): a database filled with many leagues and
finished races, the site served from it by its real server (web/server.py's `start_site`, in
a process of its own, as `paddock web` runs), and its pages asked for over HTTP on
127.0.0.1 by an aiohttp client, each page kind timed from the request to the last byte.

The filler writes rows straight into the tables (one SQLite transaction; on PostgreSQL the
same file then copied by `paddock copy-db`'s binary COPY): 10,000 races played one by one
would take hours. Each race is one of a few real robot-only games (`Game.simulate`'s loop,
per game kind) replicated under other ids, seats and drivers: its action log, its final
snapshot, its league result and its placings, as the bot stores them, so every page reads
and replays real data. Run by `paddock_tools.bench` ("site"), and by the mixed load with
the site on (bench_mixed.py, `site`): served as `paddock run` serves it with
PADDOCK_WEB_PORT (`paddock web` as the bot's child, bot/site_child.py; `site_child_of`) or by
`paddock web` started on its own beside the bot (`web_process`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import random
import sqlite3
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paddock_tools.bench import _progress, bench_database, percentiles, quantile

SITE_LEAGUES, SITE_RACES = 1_000, 10_000
SITE_LEAGUES_QUICK, SITE_RACES_QUICK = 20, 100
SAMPLES, SAMPLES_QUICK = 600, 40  # requests per page kind
LEAGUES_PER_GUILD = 4  # a server's leagues share its drivers: careers across them
DRIVERS = 8  # members of each league; a race seats some of them
# League games by share of the leagues (RF90's races replay longest, Pit Formula's shortest)
KIND_SHARES = (("waddington", 6), ("rf90", 3), ("pitformula", 1))
TEMPLATES_PER_KIND = 2
PAGE_KINDS = ("home", "standings", "driver", "race")
ROUTES = {"home": "league", "standings": "standings", "driver": "driver", "race": "race"}
BUDGET_P99_MS = 50.0  # issue 26: a page's p99
START = 1_893_456_000.0  # 2030-01-01 00:00 UTC: the filled rounds' starts


@dataclass
class RaceTemplate:
    """A real finished game of one kind: replicated as many races of the filled leagues."""

    kind: str
    seed: int
    config: dict[str, Any]
    humans: int  # seats 0..humans-1 are drivers, the rest robots
    seats: int
    moves: list[tuple[int, str]]  # (seat that acted, action JSON)
    final_json: str
    placings: list[tuple[int, int | None, str]]  # (seat, place, status)
    log: Any = None  # its log in words (store/race_logs.py RaceLog), actors left out


def _with_log(template: RaceTemplate) -> RaceTemplate:
    from store.race_logs import replay_log

    moves = [(seq, "", action) for seq, (_, action) in enumerate(template.moves, 1)]
    template.log = replay_log(
        template.kind, template.seed, template.config, template.final_json, moves
    )
    return template


def race_templates(per_kind: int = TEMPLATES_PER_KIND) -> dict[str, list[RaceTemplate]]:
    """A few robot-only games of each league game, played to the end (as `simulate`)."""
    from rules.base import get_game

    out: dict[str, list[RaceTemplate]] = {}
    for kind, _ in KIND_SHARES:
        game = get_game(kind)
        for seed in range(1, per_kind + 1):
            config = game.simulation_config()
            players = config.get("players")
            humans = len(players) if isinstance(players, list) else int(players or 0)
            if isinstance(players, list):
                for i, player in enumerate(players):
                    player.update(name=f"Driver {i + 1}", robot=False)
            state = game.new_game(seed, config)
            moves = []
            while not game.is_terminal(state):
                seat = game.to_act(state)[0]
                action = game.robot_action(state, seat)
                state, _ = game.apply(state, action)
                moves.append((seat, action.model_dump_json()))
            placings: list[tuple[int, int | None, str]] = [
                (p.seat, p.place, p.status) for p in game.classification(state)
            ]
            out.setdefault(kind, []).append(
                _with_log(
                    RaceTemplate(
                        kind,
                        seed,
                        config,
                        humans,
                        max(len(placings), humans),
                        moves,
                        state.model_dump_json(),
                        placings,
                    )
                )
            )
    return out


@dataclass
class FilledLeague:
    token: str
    members: list[int]  # member ids
    races: list[int]  # finished games' ids


@dataclass
class Filled:
    leagues: list[FilledLeague] = field(default_factory=list)
    races: int = 0
    actions: int = 0
    seconds: float = 0.0


def _kind_of(index: int) -> str:
    """The game of the index-th league, by KIND_SHARES (interleaved, not in blocks)."""
    total = sum(share for _, share in KIND_SHARES)
    slot = (index * 7) % total  # 7 is prime to 10: every slot in turn
    for kind, share in KIND_SHARES:
        if slot < share:
            return kind
        slot -= share
    raise AssertionError("unreachable")


def fill_sqlite(
    path: Path, leagues: int, races: int, *, guild_from: int = 9_000, race_logs: bool = True
) -> Filled:
    """`leagues` leagues (LEAGUES_PER_GUILD a server, DRIVERS members each, site on) and
    `races` finished league races spread over them (a round each), written in one
    transaction into the migrated, empty SQLite file `path`; with `race_logs`, each race's
    log in words as the bot keeps it at the finish (store/race_logs.py; without: as for a
    race finished before the bot kept them, which the site replays)."""
    from store.dialect import now
    from store.race_logs import RaceLog
    from store.sites import new_token

    started = time.perf_counter()
    templates = race_templates()
    stamp = now()
    filled = Filled()
    db = sqlite3.connect(path)
    try:
        db.execute("PRAGMA synchronous = OFF")  # a bench's filler: a crash loses a bench run
        rows: dict[str, list[tuple[Any, ...]]] = {
            k: []
            for k in (
                "leagues",
                "members",
                "rounds",
                "games",
                "results",
                "seats",
                "snapshots",
                "placings",
                "logs",
            )
        }
        actions: list[tuple[Any, ...]] = []
        member_id = round_id = game_id = 0
        per_league = [races // leagues + (i < races % leagues) for i in range(leagues)]
        for index in range(leagues):
            guild = guild_from + index // LEAGUES_PER_GUILD
            kind = _kind_of(index)
            token = new_token()
            league_id = index + 1
            rows["leagues"].append(
                (
                    league_id,
                    guild,
                    f"League {index + 1}",
                    kind,
                    "bench",
                    json.dumps([25, 18, 15, 12, 10, 8, 6, 4, 2, 1]),
                    stamp,
                    token,
                )
            )
            users = [guild * 100 + k for k in range(DRIVERS)]  # the server's drivers
            members = []
            for k, user in enumerate(users):
                member_id += 1
                members.append(member_id)
                rows["members"].append((member_id, league_id, user, f"Driver {k + 1}", stamp))
            league = FilledLeague(token, members, [])
            for number in range(1, per_league[index] + 1):
                round_id += 1
                game_id += 1
                template = templates[kind][(index + number) % len(templates[kind])]
                at = START + (index * 50 + number) * 86_400
                rows["rounds"].append(
                    (round_id, league_id, number, f"Round {number}", at, at, "done")
                )
                # the drivers of this round's race, seat by seat (a different set each round)
                seated = [(number + k) % DRIVERS for k in range(template.humans)]
                rows["games"].append(
                    (
                        game_id,
                        kind,
                        guild,
                        1_000 + league_id,
                        2_000_000 + game_id,
                        league_id,
                        round_id,
                        template.seed,
                        json.dumps(template.config),
                        stamp,
                        stamp,
                        len(template.moves),
                    )
                )
                for seat in range(template.seats):
                    if seat < template.humans:
                        k = seated[seat]
                        rows["seats"].append((game_id, seat, users[k], f"Driver {k + 1}", 0))
                    else:
                        rows["seats"].append((game_id, seat, None, f"Robot {seat + 1}", 1))
                actors = []
                for seq, (seat, action_json) in enumerate(template.moves, 1):
                    human = seat < template.humans
                    actor = str(users[seated[seat]]) if human else "robot"
                    actors.append(actor)
                    actions.append((game_id, seq, actor, int(not human), action_json, stamp))
                rows["snapshots"].append((game_id, len(template.moves), template.final_json, at))
                if race_logs:
                    said = [(seq, actors[seq - 1], text) for seq, _, text in template.log.actions]
                    log = RaceLog(said, template.log.placings, template.log.steps)
                    rows["logs"].append((game_id, len(template.moves), log.to_json()))
                for seat, place, status in template.placings:
                    rows["placings"].append((game_id, seat, place, status))
                    if seat < template.humans:
                        member = members[seated[seat]]
                        rows["results"].append((round_id, member, place, status, game_id, stamp))
                league.races.append(game_id)
            filled.leagues.append(league)
        db.execute("BEGIN")
        db.executemany(
            "INSERT INTO leagues (id, guild_id, name, game, points_table, points_json,"
            " created_at, web_token, web_on) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)",
            rows["leagues"],
        )
        db.executemany(
            "INSERT INTO league_members (id, league_id, user_id, display_name, joined_at)"
            " VALUES (?, ?, ?, ?, ?)",
            rows["members"],
        )
        db.executemany(
            "INSERT INTO league_rounds (id, league_id, number, name, starts_at, opened_at,"
            " status) VALUES (?, ?, ?, ?, ?, ?, ?)",
            rows["rounds"],
        )
        db.executemany(
            "INSERT INTO games (id, kind, guild_id, channel_id, thread_id, league_id, round_id,"
            " seed, config_json, status, results_recorded, created_at, updated_at,"
            " published_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'finished', 1, ?, ?, ?)",
            rows["games"],
        )
        db.executemany(
            "INSERT INTO round_results (round_id, member_id, place, status, source, game_id,"
            " recorded_at) VALUES (?, ?, ?, ?, 'game', ?, ?)",
            rows["results"],
        )
        db.executemany(
            "INSERT INTO game_seats (game_id, seat, user_id, name, robot) VALUES (?, ?, ?, ?, ?)",
            rows["seats"],
        )
        db.executemany(
            "INSERT INTO game_actions (game_id, seq, actor, by_robot, action_json, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            actions,
        )
        db.executemany(
            "INSERT INTO game_snapshots (game_id, seq, state_json, updated_at)"
            " VALUES (?, ?, ?, datetime(?, 'unixepoch'))",
            rows["snapshots"],
        )
        # The placings the bot keeps the first time a rating is shown (store/careers.py):
        # a league whose drivers have looked at a rating has them.
        db.executemany(
            "INSERT INTO game_placings (game_id, seat, place, status) VALUES (?, ?, ?, ?)",
            rows["placings"],
        )
        db.executemany(
            "INSERT INTO race_logs (game_id, seq, log_json) VALUES (?, ?, ?)", rows["logs"]
        )
        db.execute("COMMIT")
    finally:
        db.close()
    filled.races = game_id
    filled.actions = len(actions)
    filled.seconds = round(time.perf_counter() - started, 1)
    return filled


async def fill(url: str, leagues: int, races: int, tmp: str) -> Filled:
    """Fill the migrated, empty database at `url` (a bench_database URL): SQLite directly,
    PostgreSQL by way of a SQLite file copied over (`paddock copy-db`'s COPY), then
    ANALYZEd (as autovacuum would have by the time a site is asked for pages)."""
    from store import open_store
    from store.postgres_copy import copy_sqlite_to_postgres

    if url.startswith("sqlite:///"):
        async with open_store(url):  # the tables, by the migrations
            pass
        return await asyncio.to_thread(
            fill_sqlite, Path(url.removeprefix("sqlite:///")), leagues, races
        )
    source = Path(tmp) / "site-fill.db"
    async with open_store(source):
        pass
    filled = await asyncio.to_thread(fill_sqlite, source, leagues, races)
    started = time.perf_counter()
    async with open_store(source) as src, open_store(url) as dst:
        await copy_sqlite_to_postgres(src, dst)  # type: ignore[arg-type]
        await dst._statement("ANALYZE")  # type: ignore[attr-defined]
    filled.seconds = round(filled.seconds + time.perf_counter() - started, 1)
    return filled


@dataclass
class ServedSite:
    """The site served by `site_process`: its http://host:port and, once it stopped, the CPU
    its handlers took per route name (ms of the process's CPU, threads included, a request
    each; the bench's requests come one at a time, so each is its own)."""

    url: str
    cpu_ms: dict[str, list[float]] = field(default_factory=dict)


@contextlib.asynccontextmanager
async def site_process(url: str) -> AsyncIterator[ServedSite]:
    """The site on `url` served by `start_site` in a process of its own (as `paddock web`,
    with a rate limit no single bench client reaches)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "paddock_tools.bench_site",
        url,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stdin is not None and proc.stderr is not None
    try:
        line = await asyncio.wait_for(proc.stdout.readline(), 60)
        if not line:
            err = (await proc.stderr.read()).decode(errors="replace")[-2000:]
            raise RuntimeError(f"the site did not start:\n{err}")
        served = ServedSite(f"http://{line.decode().strip()}")
        yield served
    finally:
        proc.stdin.close()  # the site's signal to stop
        try:
            tail = await asyncio.wait_for(proc.stdout.read(), 10)
            await asyncio.wait_for(proc.wait(), 10)
        except TimeoutError:
            proc.kill()
            await proc.wait()
        else:
            with contextlib.suppress(ValueError):
                served.cpu_ms = json.loads(tail or b"{}")


def page_paths(filled: Filled, rng: random.Random) -> Iterator[tuple[str, str]]:
    """(page kind, path) without end: a random league each time, the kinds in turn."""
    while True:
        for kind in PAGE_KINDS:
            league = rng.choice(filled.leagues)
            base = f"/l/{league.token}"
            if kind == "home":
                yield kind, base
            elif kind == "standings":
                yield kind, f"{base}/standings.png"
            elif kind == "driver":
                yield kind, f"{base}/driver/{rng.choice(league.members)}"
            else:
                yield kind, f"{base}/race/{rng.choice(league.races)}"


async def timed_get(session: Any, url: str) -> tuple[int, float, int]:
    """(status, ms from the request to the last byte read, bytes)."""
    start = time.perf_counter()
    async with session.get(url) as response:
        body = await response.read()
    return response.status, (time.perf_counter() - start) * 1000, len(body)


async def measure_pages(base_url: str, filled: Filled, samples: int) -> dict[str, Any]:
    """`samples` requests of each page kind, one at a time (keep-alive): p50/p95/p99 each."""
    import aiohttp

    rng = random.Random(26)
    times: dict[str, list[float]] = {k: [] for k in PAGE_KINDS}
    sizes: dict[str, list[int]] = {k: [] for k in PAGE_KINDS}
    statuses: dict[str, dict[str, int]] = {k: {} for k in PAGE_KINDS}
    paths = page_paths(filled, rng)
    async with aiohttp.ClientSession() as session:
        for _, path in itertools.islice(paths, 4 * min(8, samples)):  # warm-up, not counted
            await timed_get(session, base_url + path)
        for kind, path in itertools.islice(paths, samples * len(PAGE_KINDS)):
            status, ms, size = await timed_get(session, base_url + path)
            times[kind].append(ms)
            sizes[kind].append(size)
            statuses[kind][str(status)] = statuses[kind].get(str(status), 0) + 1
    out: dict[str, Any] = {}
    for kind in PAGE_KINDS:
        ordered = sorted(times[kind])
        out[kind] = {
            **percentiles(ordered),
            "p95": quantile(ordered, 0.95),
            "max": round(ordered[-1], 3),
            "requests": len(ordered),
            "statuses": statuses[kind],
            "bytes_p50": sorted(sizes[kind])[len(sizes[kind]) // 2],
        }
    return out


def mixed_site_size(quick: bool) -> tuple[int, int]:
    """The leagues and races of the site served during the mixed load: the page bench's."""
    return (SITE_LEAGUES_QUICK, SITE_RACES_QUICK) if quick else (SITE_LEAGUES, SITE_RACES)


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (the bot's site listens there next)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class WebProcess:
    """`paddock web` serving the site beside the bot (`web_process`): its address, its
    process id and, once stopped, its exit code."""

    url: str
    pid: int
    exit_code: int | None = None


WEB_READY_S = 60.0


@contextlib.asynccontextmanager
async def web_process(db: Path | str, port: int, log: Path) -> AsyncIterator[WebProcess]:
    """The site served as a busy bot's README says to serve it: `paddock web --db FILE` (or
    `--db-url URL`) in a process of its own, read-only on the bot's database, on
    127.0.0.1:`port`, with the deployment's own rate limit (none of the PADDOCK_* settings
    of this environment: the bench's). Its log (one line a request) goes to `log`. Stopped
    by SIGTERM, as a service manager stops it (killed if still there after 10 s)."""
    where = ["--db", str(db)] if isinstance(db, Path) else ["--db-url", db]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PADDOCK_")}
    with log.open("wb") as out:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot.cli",
            "web",
            *where,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=out,
            stderr=out,
        )
    running = WebProcess(f"http://127.0.0.1:{port}", proc.pid)
    try:
        try:
            await wait_listening(port, lambda: proc.returncode is None, "paddock web")
        except RuntimeError:
            tail = log.read_text(errors="replace")[-2000:]
            raise RuntimeError(
                f"paddock web did not start (exit {proc.returncode}):\n{tail}"
            ) from None
        yield running
    finally:
        if proc.returncode is None:
            proc.terminate()
        try:
            await asyncio.wait_for(proc.wait(), 10)
        except TimeoutError:
            proc.kill()
            await proc.wait()
        running.exit_code = proc.returncode


async def wait_listening(port: int, alive: Any, what: str, timeout: float = WEB_READY_S) -> None:
    """Until 127.0.0.1:`port` accepts a connection (RuntimeError after `timeout`, or once
    `alive()` says the process that should listen is gone)."""
    deadline = time.monotonic() + timeout
    while True:
        if not alive() or time.monotonic() > deadline:
            raise RuntimeError(f"{what} is not listening on 127.0.0.1:{port}")
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.1)
            continue
        writer.close()
        await writer.wait_closed()
        return


def site_child_of(pid: int) -> int | None:
    """The process id of the league site `paddock run` (process `pid`) started as its
    child (bot/site_child.py: `python -m bot.cli web ... --parent pid`), or None."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if int(fields[1]) == pid and b"bot.cli" in argv and b"web" in argv:
            return int(entry.name)
    return None


VISITOR_RPS = 2.0  # each simulated visitor's pace: under the site's own limit (3 a second)


async def site_load(
    base_url: str,
    filled: Filled,
    rps: float,
    stop: asyncio.Event,
    gate: asyncio.Event | None = None,
) -> dict[str, Any]:
    """Visitors asking for the site's pages at `rps` in all until `stop`: each visitor its
    own loopback address (127.0.0.10, .11...: the site limits each client to 3 a second,
    as it would limit real visitors), at VISITOR_RPS, the page kinds in turn; with `gate`,
    only while it is set (whoever clears it sets it again when `stop` is set). What they
    got: {"visitors", "requests", "rps", "statuses", "p50", "p99", "max"} ("rps" over the
    whole time, the gate's pauses included)."""
    import aiohttp

    visitors = max(1, round(rps / VISITOR_RPS))
    times: list[float] = []
    statuses: dict[str, int] = {}
    started = time.perf_counter()

    async def visitor(i: int) -> None:
        rng = random.Random(1000 + i)
        paths = page_paths(filled, rng)
        connector = aiohttp.TCPConnector(local_addr=(f"127.0.0.{10 + i}", 0))
        async with aiohttp.ClientSession(connector=connector) as session:
            # spread the visitors' first requests over one pace, not all at one instant
            next_at = time.perf_counter() + rng.uniform(0, visitors / rps)
            while not stop.is_set():
                if gate is not None and not gate.is_set():
                    await gate.wait()  # visitors away; back at a new pace, spread again
                    next_at = time.perf_counter() + rng.uniform(0, visitors / rps)
                    continue
                await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
                if stop.is_set():
                    break
                next_at += visitors / rps
                _, path = next(paths)
                try:
                    status, ms, _ = await timed_get(session, base_url + path)
                except aiohttp.ClientError as exc:
                    statuses[type(exc).__name__] = statuses.get(type(exc).__name__, 0) + 1
                    continue
                times.append(ms)
                statuses[str(status)] = statuses.get(str(status), 0) + 1

    await asyncio.gather(*(visitor(i) for i in range(visitors)))
    elapsed = time.perf_counter() - started
    ordered = sorted(times)
    figures = percentiles(ordered) if ordered else {"p50": None, "p99": None}
    return {
        "visitors": visitors,
        "requests": len(ordered),
        "rps": round(len(ordered) / elapsed, 1) if elapsed else 0.0,
        "statuses": statuses,
        **figures,
        "max": round(ordered[-1], 3) if ordered else None,
    }


async def bench_site(
    quick: bool,
    leagues: int | None = None,
    races: int | None = None,
    samples: int | None = None,
) -> dict[str, Any]:
    """Issue 26's page figures: `leagues` leagues and `races` finished races (1,000 and
    10,000; 20 and 100 with `quick`), the site served from them, each page kind asked
    `samples` times: {"leagues", "races", "actions", "fill_s", "pages": {kind: {"p50",
    "p95", "p99", "max", "requests", "statuses", "bytes_p50"}}, "budget_p99_ms",
    "within_budget"}."""
    leagues = leagues or (SITE_LEAGUES_QUICK if quick else SITE_LEAGUES)
    races = races or (SITE_RACES_QUICK if quick else SITE_RACES)
    samples = samples or (SAMPLES_QUICK if quick else SAMPLES)
    with tempfile.TemporaryDirectory() as tmp:
        async with bench_database(tmp, "site") as url:
            _progress(f"site: filling {leagues} leagues, {races} finished races")
            filled = await fill(url, leagues, races, tmp)
            _progress(f"site: filled in {filled.seconds:.0f} s; asking for its pages")
            async with site_process(url) as served:
                pages = await measure_pages(served.url, filled, samples)
    for kind, route in ROUTES.items():  # the site's CPU per request (not the client's)
        cpu = sorted(served.cpu_ms.get(route, [])[-samples:])  # (the warm-up left out)
        if cpu:
            pages[kind]["cpu_ms_mean"] = round(sum(cpu) / len(cpu), 2)
            pages[kind]["cpu_ms_p99"] = quantile(cpu, 0.99, digits=2)
    return {
        "leagues": len(filled.leagues),
        "races": filled.races,
        "actions": filled.actions,
        "fill_s": filled.seconds,
        "pages": pages,
        "budget_p99_ms": BUDGET_P99_MS,
        "within_budget": all(p["p99"] <= BUDGET_P99_MS for p in pages.values()),
    }


async def _serve(url: str) -> None:
    """The child of `site_process`: the site (as `start_site` serves it, with a middleware
    timing each handler's CPU) until its stdin closes; then the CPU per route as JSON."""
    from aiohttp import web

    from store import open_store
    from web.app import SITE_KEY, make_app
    from web.security import RateLimit
    from web.server import runner_options, settle

    cpu: dict[str, list[float]] = {}

    @web.middleware
    async def timed(request: web.Request, handler: Any) -> web.StreamResponse:
        start = time.process_time()  # the process's: the handler's threads count too
        try:
            return await handler(request)
        finally:
            name = request.match_info.route.name or "other"
            cpu.setdefault(name, []).append((time.process_time() - start) * 1000)

    store = open_store(url, read_only=True)
    await store.open(run_migrations=False)
    unlimited = RateLimit(burst=1_000_000_000, rate=1_000_000_000.0)
    app = make_app(store, "http://127.0.0.1", rate_limit=unlimited)
    app.middlewares.append(timed)  # inside the site's own guard
    runner = web.AppRunner(app, **runner_options())
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    app[SITE_KEY].base_url = f"http://{host}:{port}"  # as start_site's links
    await settle()  # as `paddock web` does once it listens
    print(f"{host}:{port}", flush=True)
    try:
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    finally:
        await runner.cleanup()
        await store.close()
    print(json.dumps(cpu), flush=True)


if __name__ == "__main__":
    asyncio.run(_serve(sys.argv[1]))
