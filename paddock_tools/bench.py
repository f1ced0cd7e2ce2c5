"""`paddock bench`: speed and memory measured in this run, printed as one JSON object.

Shape (every game adds its own entry under "games"):
{"calibration_ms": f, "games": {"<game>": {"move_ms": {"p50", "p99"},
 "render_ms": {"<image>": {"p50", "p99"}}, "png_bytes": {"<image>": n},
 "sim_actions_per_s": f}}, "concurrency": {"games", "p99_ms", "max_ms", "rss_mb"},
 "rss_mb": {"1": f, "10": f, "200": f}}

"concurrency" is /f1 races on one bot (200; 20 with --quick), run in a fresh process as a bot
runs, each getting a click: spread at 20 a second ("p99_ms", the budget's figure) and all at
the same instant ("burst_p99_ms"); "rss_mb" is that process's, the most seen.

"mixed" is issue 11's load, in a fresh process too: 150 Waddington + 25 RF90 + 25 Pit Formula
games on one bot (--quick: 14 + 3 + 3), whose simulated users act after a seeded pause of
1-4 s each time, for 60 s (--quick: 15 s): Waddington's driver pinged clicks a button of the
prompt, RF90's opens the cockpit and clicks down to what the seat policy would choose, each
Pit Formula crew makes its robot's repair, reveal, flag... For every interaction, from its
dispatch to its first answer (a defer counts: "answer_p99_ms") and to the move done (the next
prompt posted when the move hands the turn on, the answer otherwise: "done_p99_ms");
"late_answers" those answered after Discord's 3 s deadline or never; the RSS every second
("rss_mb": the first, after the games were set up; the last; the most; one a minute:
"by_minute"), and the CPU the process used ("cpu_cores": 1.0 is one core busy). The
simulated users read the games through a store of their own, not the bot's connection. Also
per game ("by_game"), and what went wrong: "errors_logged" (ERROR log records),
"http_errors" (the fake Discord's refusals), "stuck_moves" (answered, but no next prompt),
"refused_moves". A game over is replaced by a new one of its kind, started by its users'
interactions as the set-up's are ("games_renewed"), so that the load stays at its count of
games however long the run.
  {"mixed": {"games": {"waddington", "rf90", "pitformula"}, "seconds", "interactions",
   "answer_p99_ms", "answer_max_ms", "done_p99_ms", "late_answers", "unanswered",
   "rss_mb": {"start", "end", "max", "by_minute"}, "by_game": {...}, ...}}

"two_processes" is issue 14's figure, with --db only: two fresh bench processes at the same
time on one PostgreSQL schema (the same tables, each its own races), each running the
"concurrency" part: {"games": [a, b], "p99_ms": [a, b], "max_ms", "burst_p99_ms": [a, b],
"rss_mb": [a, b]}. On SQLite: {"skipped": "<why>"}.

"burst" is issue 30's race night, in a fresh process: 200 games (--quick: 20; `--burst N`)
opened at one instant, three in four `/f1 new` (each lobby joined and started as soon as its
users see it) and one in four `/pit start`, then played as the mixed load. "burst" in it
tells how the opening interactions were answered: from dispatch to the answer (a defer
counts) and to the result shown, "over_1s" and "late_answers" (after 3 s, or never), in all
and "by_command"; the rest, as "mixed", is the play that follows:
  {"burst": {"burst": {"interactions", "answer_p50_ms", "answer_p99_ms", "answer_max_ms",
   "over_1s", "late_answers", "unanswered", "shown_p99_ms", "shown_max_ms",
   "seconds_to_all_started", "by_command": {"/f1 new": {...}, "join", "start",
   "/pit start"}}, "games", "answer_p99_ms", "late_answers", ...as "mixed"}}

`--only mixed,two_processes` runs just those parts (PART_NAMES lists them).

"rf90" adds the cockpit clicks of a race through the command tree: "press_ms" (a decision's
last click to everything posted, robots' activations after it included),
"press_to_picture_ms" (to its activation's pictures posted: the budget's figure), "cockpit_ms",
and the replay ("replay_s", "replay_bytes", "replay_frames"). Progress goes to stderr.

`move_ms` is one command through discord.py's real command tree (the in-process driver of
paddock_tools/fakediscord, the test suite's fake Discord too) to the persisted state and the
rendered image.
`calibration_ms` is a fixed pure-Python workload, so figures compare across machines as
ratios.

"backend" names the database the bots and stores ran on: "sqlite" (a new file per part, the
default) or "postgresql" (`--db postgresql://...`: a new schema per part on that server,
dropped afterwards); "database" is where, without a password.

This module runs the parts and holds what they share; the parts themselves: bench_games.py
(league, waddington, pitformula, concurrency, memory), bench_rf90.py, bench_mixed.py (mixed,
burst; its view of the fake Discord in bench_watch.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Collection, Mapping
from pathlib import Path
from typing import Any

from paddock_tools import bots

# The PostgreSQL server the bench runs on (`paddock bench --db postgresql://...`); None: a
# SQLite file per part.
DB_URL: str | None = None


def backend() -> str:
    return "sqlite" if DB_URL is None else "postgresql"


@contextlib.asynccontextmanager
async def bench_database(tmp: str, name: str) -> AsyncIterator[str]:
    """A new, empty database of the backend under test, as a URL `open_store` and the
    settings take: a SQLite file in `tmp`, or a schema of its own on the PostgreSQL server
    (dropped at the end, so runs never see each other's rows)."""
    if DB_URL is None:
        yield f"sqlite:///{Path(tmp) / f'{name}.db'}"
        return
    import asyncpg

    from store.errors import StoreUnavailable
    from store.postgres_connection import fault_problem, redacted

    schema = f"paddock_bench_{name}_{uuid.uuid4().hex[:8]}"
    try:
        conn = await asyncpg.connect(DB_URL, timeout=10)
    except Exception as exc:  # the server named on the command line: one line, no traceback
        problem = fault_problem(exc, timeout=10)
        if problem is None:
            raise
        raise StoreUnavailable(redacted(DB_URL), problem) from exc
    try:
        await conn.execute(f"CREATE SCHEMA {schema}")
    finally:
        await conn.close()
    try:
        yield f"{DB_URL}{'&' if '?' in DB_URL else '?'}search_path={schema}"
    finally:
        conn = await asyncpg.connect(DB_URL, timeout=10)
        try:
            await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        finally:
            await conn.close()


def bench_bot(url: str) -> Any:
    """A bot for the in-process driver on the database `bench_database` gave."""
    if url.startswith("sqlite:///"):
        return bots.make_bot(Path(url.removeprefix("sqlite:///")))
    return bots.make_bot(Path("unused.db"), database_url=url)


P50_P99 = {"p50": 0.50, "p99": 0.99}


def quantile(ordered: list[float], q: float, digits: int = 3) -> float:
    """The `q` quantile of `ordered` (sorted, not empty): its value at index q·n (the last
    at most), rounded."""
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], digits)


def percentiles(
    samples_ms: list[float], quantiles: Mapping[str, float] = P50_P99
) -> dict[str, float]:
    """The samples' `quantiles` by name (p50 and p99 unless told), from one sort."""
    ordered = sorted(samples_ms)
    return {name: quantile(ordered, q) for name, q in quantiles.items()}


def median(values: list[float]) -> float | None:
    """The middle value (the upper one of an even count), None for none."""
    return sorted(values)[len(values) // 2] if values else None


def calibration_ms() -> float:
    """A fixed pure-Python workload (integer arithmetic, dicts, sorting); best of three."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        acc: dict[int, int] = {}
        for i in range(300_000):
            acc[i % 1009] = acc.get(i % 1009, 0) + (i * i) % 97
        sorted(acc.items(), key=lambda kv: (kv[1], kv[0]))
        best = min(best, (time.perf_counter() - start) * 1000)
    return round(best, 3)


def rss_mb(pid: int | None = None) -> float:
    """The resident memory of this process (or of process `pid`), in MB."""
    try:
        status = Path(f"/proc/{pid or 'self'}/status").read_text()
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    if pid is not None:
        raise RuntimeError(f"no memory figure for process {pid} (needs Linux's /proc)")
    import resource

    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


async def answer_ms(driver: Any, *path: str, **options: Any) -> float:
    """From the interaction's arrival to the bot's answer to it (not to the end of any
    follow-up work the command starts)."""
    payload = driver.slash_payload(*path, **options)
    start = time.perf_counter()
    await driver.dispatch(payload)
    marker = f"/interactions/{payload['id']}/"
    answer = next(c for c in driver.backend.calls if marker in c.path)
    return (answer.at - start) * 1000


def bench_simulations(quick: bool) -> dict[str, dict[str, Any]]:
    """Robot-only games per registered game: actions per second."""
    from rules.base import games

    found: dict[str, dict[str, Any]] = {}
    for name, game in sorted(games().items()):
        try:
            start = time.perf_counter()
            actions = 0
            for seed in range(1 if quick else 5):
                actions += game.simulate(seed)["actions"]
        except NotImplementedError:
            continue
        found[name] = {"sim_actions_per_s": round(actions / (time.perf_counter() - start), 1)}
    return found


def _progress_count(what: str, done: int, total: int) -> None:
    if done == total or done % 25 == 0:
        _progress(f"{what} {done}/{total}")


def _in_fresh_process(part: str, quick: bool, label: str = "", **options: Any) -> dict[str, Any]:
    """One part of the bench run in a new Python process (`options`: the part's keyword
    arguments); its JSON result. Its progress lines go on to stderr (`label` before them)."""
    import collections
    import json
    import subprocess
    import threading

    code = (
        f"import asyncio, json, sys; from paddock_tools import bench; bench.DB_URL = {DB_URL!r}; "
        f"print(json.dumps(asyncio.run(bench.PARTS[{part!r}]({quick!r}, **{options!r}))))"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    tail: collections.deque[str] = collections.deque(maxlen=15)

    def relay() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            tail.append(line.rstrip("\n"))
            if line.startswith("bench: "):
                print(f"bench: {label}{line.removeprefix('bench: ')}", end="", file=sys.stderr)

    relaying = threading.Thread(target=relay, daemon=True)
    relaying.start()
    assert proc.stdout is not None
    stdout = proc.stdout.read()  # (communicate() would take stderr from the relay)
    proc.wait()
    relaying.join()
    if proc.returncode != 0:
        lines = "\n".join(tail)
        raise RuntimeError(f"bench part {part!r} failed:\n{lines}")
    return json.loads(stdout.strip().splitlines()[-1])


async def bench_two_processes(quick: bool, games: int | None = None) -> dict[str, Any]:
    """Issue 14's figure: two fresh bot processes at the same time on one PostgreSQL database
    (one schema: the same tables, each process its own races), each running the /f1
    concurrency part (200 races each; 20 with `quick`): both p99s of the clicks spread at
    20 a second. SQLite: skipped (one process owns a SQLite file), and the JSON says so."""
    if DB_URL is None:
        return {"skipped": "needs --db postgresql://...: processes share a database there only"}
    from store import open_store

    with tempfile.TemporaryDirectory() as tmp:
        async with bench_database(tmp, "two") as url:
            async with open_store(url):
                pass  # the tables, made once before both start
            options = {"url": url, "games": games}
            results = await asyncio.gather(
                *(
                    asyncio.to_thread(
                        _in_fresh_process,
                        "concurrency",
                        quick,
                        label=f"process {n + 1}: ",
                        ids_from=1 + n * 2_000_000,  # the two fakes' snowflakes never meet
                        races_from=300 * n,  # nor their /f1 new commands
                        **options,
                    )
                    for n in range(2)
                )
            )
    return {
        "games": [r["games"] for r in results],
        "p99_ms": [r["p99_ms"] for r in results],
        "max_ms": max(r["max_ms"] for r in results),
        "burst_p99_ms": [r["burst_p99_ms"] for r in results],
        "rss_mb": [r["rss_mb"] for r in results],
    }


async def bench_mixed(quick: bool, **options: Any) -> dict[str, Any]:
    """The mixed load of the three games (paddock_tools/bench_mixed.py)."""
    from paddock_tools import bench_mixed

    return await bench_mixed.bench_mixed(quick, **options)


BURST_GAMES, BURST_GAMES_QUICK = 200, 20


async def bench_burst(
    quick: bool, games: int | None = None, seconds: float | None = None
) -> dict[str, Any]:
    """Issue 30's race night: `games` new games opened at one instant (200; 20 with
    `quick`), three in four `/f1 new` (each lobby then joined and started at once by its
    users) and one in four `/pit start` with a second player, then played as the mixed
    load for `seconds` (paddock_tools/bench_mixed.py)."""
    from paddock_tools import bench_mixed

    count = games or (BURST_GAMES_QUICK if quick else BURST_GAMES)
    pit = count // 4
    return await bench_mixed.bench_mixed(
        quick, games={"waddington": count - pit, "pitformula": pit}, seconds=seconds, burst=True
    )


SITE_PAIRS, SITE_PAIRS_QUICK = 3, 1
SITE_RPS = 20.0  # issue 26: the site under 20 requests a second during the mixed load
# Where the site is served during the load: by `paddock web` started on its own beside the
# bot, or as `paddock run` serves it with PADDOCK_WEB_PORT ("in_bot": since 2026-12-06
# evening, `paddock web` as the bot's child process, bot/site_child.py; before, in the
# bot's own process and event loop)
SITE_MODES = ("own_process", "in_bot")
# --quick (CI runs it from a wheel): one short pair of small loads, the shape not the figure
SITE_LOAD_SECONDS_QUICK = 6.0
SITE_LOAD_GAMES_QUICK = {"waddington": 4, "rf90": 1, "pitformula": 1}
SITE_LOAD_FIGURES = (
    "interactions",
    "answer_p99_ms",
    "answer_max_ms",
    "late_answers",
    "cpu_cores",
    "errors_logged",
    "site",
)


SITE_TURNS_SECONDS = 300.0  # --site-turns: one run this long a mode (--mixed-seconds: longer)
# what else a long run tells: whether the answers drift over it, and whether it is the bot's
# doing or the bench's own process (the fake Discord's event loop, its CPU)
SITE_TURNS_FIGURES = (
    "answer_p99_ms_by_minute",
    "fake_loop_lag_p99_ms",
    "fake_cpu_cores",
    "rss_mb",
    "fake_messages_kept",
)


async def bench_site_load(
    quick: bool,
    pairs: int | None = None,
    seconds: float | None = None,
    modes: Collection[str] = SITE_MODES,
    turns: float | None = None,
) -> dict[str, Any]:
    """Issue 26's second figure: the mixed load (bench_mixed.py) in pairs of fresh bot
    processes on the same filled database, one with visitors asking for the site's pages
    at SITE_RPS, one with the site on and no visitor; the pairs alternate which runs first
    (A B, B A...), so that a machine getting busier or quieter weighs on both alike. Each
    of `modes` (SITE_MODES) has its pairs: the site served by `paddock web` in a process
    of its own ("own_process"), or as `paddock run` with PADDOCK_WEB_PORT serves it (its
    child process: "in_bot"); the modes' pairs are interleaved (pair 1 of each, then pair
    2...), in turns which goes first. Per mode, the bot's answer p99 of each run and each
    pair's difference (with - without): {"rps", "modes", "<mode>": {"pairs", "answer_p99_ms",
    "answer_p99_difference_ms", "median_difference_ms"}}.
    `turns` (seconds): instead of pairs of runs, one run a mode (SITE_TURNS_SECONDS) in
    which the visitors come and go in turns of that length, the bot's answers compared
    between the turns with and without them (bench_mixed's `site_blocks`): {"rps",
    "modes", "turn_s", "<mode>": {<SITE_LOAD_FIGURES>, "turns": ...}}."""
    unknown = set(modes) - set(SITE_MODES)
    if unknown or not modes:
        raise ValueError(f"site_load modes are {', '.join(SITE_MODES)}: not {sorted(unknown)}")
    if turns:
        return await _site_load_turns(quick, turns, seconds, modes)
    count = pairs or (SITE_PAIRS_QUICK if quick else SITE_PAIRS)
    length = seconds or (SITE_LOAD_SECONDS_QUICK if quick else None)
    ordered = [m for m in SITE_MODES if m in modes]
    runs: dict[str, list[dict[str, Any]]] = {mode: [] for mode in ordered}
    for n in range(count):
        for mode in ordered if n % 2 == 0 else ordered[::-1]:
            pair: dict[str, Any] = {}
            order = (SITE_RPS, 0.0) if n % 2 else (0.0, SITE_RPS)
            for rps in order:
                label = "with" if rps else "without"
                _progress(f"site under load ({mode}): pair {n + 1}/{count}, {label} visitors")
                options: dict[str, Any] = {
                    "site": rps,
                    "site_apart": mode == "own_process",
                    **({"seconds": length} if length else {}),
                }
                if quick:
                    options["games"] = SITE_LOAD_GAMES_QUICK
                mixed = await asyncio.to_thread(
                    functools.partial(
                        _in_fresh_process,
                        "mixed",
                        quick,
                        label=f"{mode} pair {n + 1} {label}: ",
                        **options,
                    )
                )
                pair[label] = {key: mixed[key] for key in SITE_LOAD_FIGURES}
            pair["first"] = "with" if order[0] else "without"
            pair["answer_p99_difference_ms"] = _difference(
                pair["with"]["answer_p99_ms"], pair["without"]["answer_p99_ms"]
            )
            runs[mode].append(pair)
    out: dict[str, Any] = {"rps": SITE_RPS, "modes": ordered}
    for mode, mode_runs in runs.items():
        differences = sorted(
            p["answer_p99_difference_ms"]
            for p in mode_runs
            if p["answer_p99_difference_ms"] is not None
        )
        out[mode] = {
            "pairs": mode_runs,
            "answer_p99_ms": {
                label: [p[label]["answer_p99_ms"] for p in mode_runs]
                for label in ("without", "with")
            },
            "answer_p99_difference_ms": differences,
            "median_difference_ms": median(differences),
        }
    return out


async def _site_load_turns(
    quick: bool, turn_s: float, seconds: float | None, modes: Collection[str]
) -> dict[str, Any]:
    """bench_site_load with `turns`: one run a mode, the visitors coming and going."""
    length = seconds or (SITE_LOAD_SECONDS_QUICK * 2 if quick else SITE_TURNS_SECONDS)
    out: dict[str, Any] = {"rps": SITE_RPS, "modes": [], "turn_s": turn_s}
    for mode in [m for m in SITE_MODES if m in modes]:
        _progress(f"site under load ({mode}): visitors coming and going every {turn_s:g} s")
        options: dict[str, Any] = {
            "site": SITE_RPS,
            "site_apart": mode == "own_process",
            "site_blocks": turn_s,
            "seconds": length,
            **({"games": SITE_LOAD_GAMES_QUICK} if quick else {}),
        }
        mixed = await asyncio.to_thread(
            functools.partial(_in_fresh_process, "mixed", quick, label=f"{mode}: ", **options)
        )
        out["modes"].append(mode)
        out[mode] = {key: mixed[key] for key in (*SITE_LOAD_FIGURES, *SITE_TURNS_FIGURES)}
    return out


def _difference(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(a - b, 3)


async def bench_concurrency(quick: bool, **options: Any) -> dict[str, Any]:
    """Many /f1 races at once on one bot (paddock_tools/bench_games.py)."""
    from paddock_tools import bench_games

    return await bench_games.bench_waddington_concurrency(quick, **options)


PARTS: dict[str, Any] = {
    "concurrency": bench_concurrency,
    "mixed": bench_mixed,
    "burst": bench_burst,
}


def _progress(part: str) -> None:
    """Progress on stderr (stdout carries only the JSON): a full run takes minutes."""
    print(f"bench: {part}…", file=sys.stderr, flush=True)


# What `--only` takes: the parts of a run, in the order they run.
PART_NAMES = (
    "league",
    "waddington",
    "pitformula",
    "rf90",
    "simulations",
    "concurrency",
    "mixed",
    "burst",
    "two_processes",
    "memory",
    "site",
    "site_load",
)


async def run_bench(
    quick: bool = False,
    db: str | None = None,
    only: Collection[str] | None = None,
    mixed_seconds: float | None = None,
    burst_games: int | None = None,
    site_pairs: int | None = None,
    site_modes: Collection[str] = SITE_MODES,
    site_turns: float | None = None,
) -> dict[str, Any]:
    """`db`: a postgresql:// URL to run on that server (a schema per part); None: SQLite.
    `only`: these parts of PART_NAMES (default: all). `mixed_seconds`: the mixed load's
    length, and the burst's play's (default: its own). `burst_games`: the games the burst
    opens at once (default 200; 20 with `quick`). `site_pairs`: the site_load part's pairs
    of runs (default 3; 1 with `quick`), or with `site_turns` one run a mode with the
    visitors coming and going in turns of that many seconds; `site_modes`: where the site
    is served in them
    (SITE_MODES, default both)."""
    from paddock_tools.bench_games import (
        bench_league,
        bench_memory,
        bench_pitformula,
        bench_waddington,
    )

    global DB_URL
    DB_URL = db
    unknown = set(only or ()) - set(PART_NAMES)
    if unknown:
        raise ValueError(f"unknown bench part(s): {', '.join(sorted(unknown))}")
    wanted = set(only or PART_NAMES)
    result: dict[str, Any] = {"calibration_ms": calibration_ms(), "quick": quick}
    result["backend"] = backend()
    if db is not None:
        from store.postgres_connection import redacted

        result["database"] = redacted(db)
    games: dict[str, Any] = {}
    if "league" in wanted:
        _progress("league standings")
        league, concurrency = await bench_league(quick)
        league["concurrency"] = concurrency  # standings asked in 10 leagues at once
        games["league"] = league
    if "waddington" in wanted:
        _progress("Waddington's clicks and boards")
        games["waddington"] = await bench_waddington(quick)
    if "pitformula" in wanted:
        _progress("Pit Formula repairs")
        games["pitformula"] = await bench_pitformula(quick)
    if "rf90" in wanted:
        _progress("RF90 race, track and cockpit clicks")
        from paddock_tools.bench_rf90 import bench_rf90, bench_rf90_replay, bench_rf90_table

        rf90 = bench_rf90(quick)
        for key, value in (await bench_rf90_table(quick)).items():  # nested figures merged
            rf90[key] = {**rf90[key], **value} if isinstance(rf90.get(key), dict) else value
        _progress("RF90 replay")
        rf90 |= bench_rf90_replay(quick)
        games["rf90"] = rf90
    if "simulations" in wanted:
        _progress("simulations")
        for name, figures in bench_simulations(quick).items():
            games.setdefault(name, {}).update(figures)
    if games:
        result["games"] = games
    # In a process of its own, as a bot runs: the RSS is then the bot's, not this run's heap.
    if "concurrency" in wanted:
        _progress("concurrent /f1 races in a fresh bot process")
        result["concurrency"] = await asyncio.to_thread(_in_fresh_process, "concurrency", quick)
    if "mixed" in wanted:
        _progress("mixed load: the three games in a fresh bot process")
        options: dict[str, Any] = {"seconds": mixed_seconds} if mixed_seconds else {}
        result["mixed"] = await asyncio.to_thread(
            functools.partial(_in_fresh_process, "mixed", quick, **options)
        )
    if "burst" in wanted:
        _progress("a race night's opening burst, then its play, in a fresh bot process")
        burst: dict[str, Any] = {"seconds": mixed_seconds} if mixed_seconds else {}
        if burst_games:
            burst["games"] = burst_games
        result["burst"] = await asyncio.to_thread(
            functools.partial(_in_fresh_process, "burst", quick, **burst)
        )
    if "two_processes" in wanted:
        _progress("two bot processes on one database")
        result["two_processes"] = await bench_two_processes(quick)
    if "memory" in wanted:
        _progress("memory with 1, 10 and 200 leagues")
        result["rss_mb"] = await bench_memory()
    if "site" in wanted:
        _progress("the league site's pages on a filled database")
        from paddock_tools.bench_site import bench_site

        result["site"] = await bench_site(quick)
    if "site_load" in wanted:
        _progress("the mixed load with and without the site's visitors, in pairs")
        result["site_load"] = await bench_site_load(
            quick, pairs=site_pairs, seconds=mixed_seconds, modes=site_modes, turns=site_turns
        )
    return result
