"""`paddock bench`'s league site parts (issue 26) in small: the filler's leagues and races
served by the real site server and asked for over HTTP (every page kind answered 200, every
figure reported), the mixed load with the site visited while served by the bot or by
`paddock web` in a process of its own beside it, and the pairing of runs with and without
visitors in both. The shape and the pages, never the timings
(those are the bench's to measure: docs/performance.md)."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.cli import main
from paddock_tools import bench, bench_site
from store import open_store
from store.race_logs import replay_log


def check_pages(site: dict[str, Any], leagues: int, races: int, samples: int) -> None:
    assert (site["leagues"], site["races"]) == (leagues, races)
    assert site["actions"] > races * 50  # whole races' logs, not stubs
    assert set(site["pages"]) == {"home", "standings", "driver", "race"}
    for kind, page in site["pages"].items():
        assert page["statuses"] == {"200": samples}, kind  # every page rendered
        assert page["requests"] == samples
        assert 0 < page["p50"] <= page["p95"] <= page["p99"] <= page["max"], kind
        assert page["bytes_p50"] > 1000, kind
        # the site process's own CPU for that page kind (a page is never free)
        assert 0 < page["cpu_ms_mean"] <= page["cpu_ms_p99"], kind
    assert site["budget_p99_ms"] == 50.0
    assert site["within_budget"] == all(p["p99"] <= 50.0 for p in site["pages"].values())


async def test_site_pages_in_small_report_every_figure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench, "DB_URL", None)
    site = await bench_site.bench_site(True, leagues=5, races=12, samples=6)
    check_pages(site, 5, 12, 6)


async def test_site_pages_on_postgres(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The filler's rows copied to a PostgreSQL schema of their own; the site reads them."""
    monkeypatch.setattr(bench, "DB_URL", pg_url)
    site = await bench_site.bench_site(True, leagues=4, races=8, samples=4)
    check_pages(site, 4, 8, 4)


async def test_the_filled_races_show_their_drivers_log_and_board(tmp_path: Path) -> None:
    """What the filler wrote is what the bot would have: each league's home lists its
    rounds' results, a driver's page their seasons on the server, a race its classification,
    its log in words and its final board (a PNG); every game kind of the league mix."""
    filled = await bench_site.fill(f"sqlite:///{tmp_path / 'site.db'}", 10, 30, str(tmp_path))
    assert filled.races == 30 and sum(len(lg.races) for lg in filled.leagues) == 30
    async with open_store(tmp_path / "site.db") as store:  # each race's log as the bot keeps it
        for league in filled.leagues:
            game = await store.load_game(league.races[0])
            done = [(a.seq, a.actor, a.action_json) for a in await store.actions(game.id)]
            assert game.state_json is not None
            expected = replay_log(game.kind, game.seed, game.config, game.state_json, done)
            assert await store.race_log(game.id, game.seq) == expected
    async with (
        bench_site.site_process(f"sqlite:///{tmp_path / 'site.db'}") as served,
        aiohttp.ClientSession() as session,
    ):
        kinds = set()
        for league in filled.leagues:
            base_l = f"{served.url}/l/{league.token}"
            async with session.get(base_l) as r:
                home = await r.text()
                assert r.status == 200 and "Round 1" in home and "Driver 1" in home
            async with session.get(f"{base_l}/driver/{league.members[0]}") as r:
                assert r.status == 200 and "Driver 1" in await r.text()
            race = league.races[0]
            async with session.get(f"{base_l}/race/{race}") as r:
                page = await r.text()
                assert r.status == 200 and "Driver" in page
                titles = ("Race! Formula 90", "Pit Formula", "Formula 1 race")
                kinds.add(next(k for k in titles if k in page))
            async with session.get(f"{base_l}/race/{race}/board.png") as r:
                assert r.status == 200 and (await r.read()).startswith(b"\x89PNG")
            async with session.get(f"{base_l}/standings.png") as r:
                assert r.status == 200 and r.content_type == "image/png"
        assert kinds == {"Race! Formula 90", "Pit Formula", "Formula 1 race"}
    # once stopped, the CPU each of its routes took, a request each
    assert {k: len(v) for k, v in served.cpu_ms.items()} == {
        route: len(filled.leagues) for route in ("league", "driver", "race", "board", "standings")
    }


def test_the_visitors_ask_for_every_page_kind_of_random_leagues() -> None:
    filled = bench_site.Filled(
        [bench_site.FilledLeague(f"token{i}xyz", [10 * i + 1], [100 + i]) for i in range(3)]
    )
    paths = bench_site.page_paths(filled, random.Random(1))
    asked = [next(paths) for _ in range(40)]
    assert [k for k, _ in asked[:4]] == ["home", "standings", "driver", "race"]
    assert {p.split("/")[2] for _, p in asked} == {f"token{i}xyz" for i in range(3)}
    assert all(p.endswith("/standings.png") for k, p in asked if k == "standings")


async def test_mixed_load_with_the_site_served_by_the_bot_and_visited(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The mixed load in small with the site on as `paddock run` serves it
    (PADDOCK_WEB_PORT: the bot's child process) and visitors asking for its pages: they got
    pages from that child (its CPU reported), and the bot still answered."""
    monkeypatch.setattr(bench, "DB_URL", None)
    games = {"waddington": 1, "rf90": 1, "pitformula": 1}
    mixed = await bench.bench_mixed(True, games=games, seconds=5, site=20)
    site = mixed["site"]
    assert site["rps_asked"] == 20 and site["visitors"] == 10
    assert site["served_by"] == "bot_child" and site["cpu_cores"] > 0
    assert site["requests"] > 20 and set(site["statuses"]) == {"200"}
    assert 0 < site["p50"] <= site["p99"] <= site["max"]
    assert mixed["interactions"] > 0 and mixed["answer_p99_ms"] > 0
    assert mixed["errors_logged"] == 0 and mixed["user_failures"] == 0


async def test_mixed_load_with_the_site_in_a_process_of_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The mixed load in small with the site served by `paddock web` beside the bot, on the
    same SQLite file: the visitors got pages from it (every one a 200), every figure is
    reported, the bot still answered, and the site's process is gone afterwards, stopped
    as a service manager stops it (SIGTERM, exit 0)."""
    monkeypatch.setattr(bench, "DB_URL", None)
    games = {"waddington": 1, "rf90": 1, "pitformula": 1}
    for rps in (20.0, 0.0):
        mixed = await bench.bench_mixed(True, games=games, seconds=5, site=rps, site_apart=True)
        site = mixed["site"]
        assert site["served_by"] == "own_process" and site["rps_asked"] == rps
        if rps:
            assert site["visitors"] == 10 and site["requests"] > 20
            assert set(site["statuses"]) == {"200"}
            assert 0 < site["p50"] <= site["p99"] <= site["max"]
            assert site["cpu_cores"] > 0  # the pages were made in that process
            assert site["cpu_ms_per_request"] > 0
        else:
            assert site["requests"] == 0 and site["cpu_cores"] >= 0
        assert site["exit_code"] == 0
        with pytest.raises(ProcessLookupError):
            os.kill(site["pid"], 0)
        for key in bench.SITE_LOAD_FIGURES:
            assert mixed[key] is not None, key
        assert mixed["interactions"] > 0 and mixed["answer_p99_ms"] > 0
        assert mixed["errors_logged"] == 0 and mixed["user_failures"] == 0


async def test_a_site_process_that_cannot_start_says_why(tmp_path: Path) -> None:
    """No database there: `paddock web` exits, and the bench stops with its log's words."""
    missing = tmp_path / "nothing.db"
    with pytest.raises(RuntimeError, match="paddock web did not start"):
        async with bench_site.web_process(missing, bench_site.free_port(), tmp_path / "web.log"):
            pass
    assert not missing.exists()  # read-only: nothing made


async def test_site_load_pairs_alternate_and_report_both_runs_and_the_difference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The pairing alone (each run is the mixed load above): per mode, with and without
    visitors in turns, A B then B A, each pair's difference with - without; the modes'
    pairs interleaved, each going first in turn."""
    runs: list[tuple[bool, float]] = []

    def fake_run(part: str, quick: bool, label: str = "", **options: Any) -> dict[str, Any]:
        assert part == "mixed" and quick and options["seconds"] == 5
        assert options["games"] == bench.SITE_LOAD_GAMES_QUICK  # --quick: small
        runs.append((options["site_apart"], options["site"]))
        p99 = 30.0 + len(runs) + (5.0 if options["site"] else 0.0)
        return {key: 1 for key in bench.SITE_LOAD_FIGURES} | {"answer_p99_ms": p99}

    monkeypatch.setattr(bench, "_in_fresh_process", fake_run)
    load = await bench.bench_site_load(True, pairs=3, seconds=5)
    apart, in_bot = (True, 0.0), (False, 0.0)
    assert runs == [
        *(apart, (True, 20.0), in_bot, (False, 20.0)),  # pair 1: own process first
        *((False, 20.0), in_bot, (True, 20.0), apart),  # pair 2: in the bot first
        *(apart, (True, 20.0), in_bot, (False, 20.0)),
    ]
    assert load["modes"] == ["own_process", "in_bot"] and load["rps"] == 20.0
    own, bot = load["own_process"], load["in_bot"]
    assert [p["first"] for p in own["pairs"]] == ["without", "with", "without"]
    assert [p["first"] for p in bot["pairs"]] == ["without", "with", "without"]
    assert own["answer_p99_ms"] == {"without": [31.0, 38.0, 39.0], "with": [37.0, 42.0, 45.0]}
    assert bot["answer_p99_ms"] == {"without": [33.0, 36.0, 41.0], "with": [39.0, 40.0, 47.0]}
    assert own["answer_p99_difference_ms"] == [4.0, 6.0, 6.0]
    assert own["median_difference_ms"] == 6.0 and bot["median_difference_ms"] == 6.0


async def test_site_load_in_one_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    modes: list[bool] = []

    def fake_run(part: str, quick: bool, label: str = "", **options: Any) -> dict[str, Any]:
        modes.append(options["site_apart"])
        return {key: 1 for key in bench.SITE_LOAD_FIGURES} | {"answer_p99_ms": 1.0}

    monkeypatch.setattr(bench, "_in_fresh_process", fake_run)
    load = await bench.bench_site_load(True, modes=["in_bot"])
    assert modes == [False, False] and set(load) == {"rps", "modes", "in_bot"}
    with pytest.raises(ValueError, match="site_load modes"):
        await bench.bench_site_load(True, modes=["elsewhere"])


def test_bench_site_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--site", "--site-pairs", "0"]) == 2
    assert capsys.readouterr().err.strip() == "bench: --site-pairs takes 1 to 20 pairs"
    assert main(["bench", "--site", "--site-modes", "own_process,nowhere"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "bench: --site-modes takes own_process,in_bot or one of them"


def test_turns_report_compares_the_turns_with_and_without_visitors() -> None:
    """Answers sent in each turn (its first second left out), pooled by whether the visitors
    came, and each turn with them against the one before: from known answer times."""
    from paddock_tools.bench_mixed import _blocks_report
    from paddock_tools.bench_watch import Timing

    turns = [(0.0, False), (10.0, True), (20.0, False), (30.0, True), (40.0, False)]
    sent = [
        Timing("waddington", at, at + ms / 1000, "")
        for at, ms in [
            *((1.5 + i * 0.1, 10.0) for i in range(50)),  # turn 1, without: 10 ms
            (0.5, 900.0),  # in turn 1's first second: left out
            *((11.5 + i * 0.1, 30.0) for i in range(50)),  # turn 2, with: 30 ms
            *((21.5 + i * 0.1, 20.0) for i in range(50)),  # turn 3, without: 20 ms
            *((31.5 + i * 0.1, 25.0) for i in range(50)),  # turn 4, with: 25 ms
            (41.5, 5000.0),  # the turn the load ended in: left out
        ]
    ]
    sent.append(Timing("rf90", 12.0, None, "never answered"))  # not an answer time
    report = _blocks_report(sent, turns, end=40.0)
    assert report["turn_s"] == 10.0
    assert [(t["visitors"], t["answers"]) for t in report["turns"]] == [
        (False, 50),
        (True, 50),
        (False, 50),
        (True, 50),
    ]
    assert [t["p99"] for t in report["turns"]] == [10.0, 30.0, 20.0, 25.0]
    assert [t["p50"] for t in report["turns"]] == [10.0, 30.0, 20.0, 25.0]
    assert report["pooled"]["without"]["p99"] == 20.0 and report["pooled"]["with"]["p99"] == 30.0
    assert report["pooled"]["with"]["p50"] == 30.0  # 25 and 30 ms, fifty each
    assert report["difference_ms"] == {"p50": 10.0, "p90": 10.0, "p99": 10.0}
    assert report["pairs"]["p99"] == [5.0, 20.0]  # 25 - 20, 30 - 10
    assert report["median_pair_ms"]["p99"] == 20.0
    assert report["higher"]["p99"] == "2 of 2"
    # the noise: without 10 then 20 (+10), with 30 then 25 (-5)
    assert report["same_kind_ms"]["p99"] == [-5.0, 10.0]


async def test_mixed_load_with_visitors_coming_and_going(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mixed load in small with the site's visitors in turns of 2 s (away first): each
    whole turn's answers reported, the pages asked only in the turns with visitors."""
    monkeypatch.setattr(bench, "DB_URL", None)
    games = {"waddington": 2, "rf90": 1, "pitformula": 1}
    mixed = await bench.bench_mixed(True, games=games, seconds=8, site=20, site_blocks=2.0)
    site = mixed["site"]
    turns = site["turns"]
    assert turns["turn_s"] == pytest.approx(2.0, abs=0.1)
    assert [t["visitors"] for t in turns["turns"]] == [False, True, False, True]
    assert all(t["answers"] > 0 for t in turns["turns"])
    assert turns["pooled"]["with"]["p99"] > 0 and turns["pooled"]["without"]["p99"] > 0
    assert len(turns["pairs"]["p99"]) == 2 and len(turns["same_kind_ms"]["p99"]) == 2
    # 20 a second for the 4 s of visits, not for all 8 (and a few of the last turn's)
    assert 40 <= site["requests"] <= 120 and set(site["statuses"]) == {"200"}
    assert mixed["errors_logged"] == 0 and mixed["user_failures"] == 0


async def test_site_load_in_turns_runs_once_a_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    """--site-turns: one run a mode, visitors at 20 a second coming and going in turns."""
    runs: list[dict[str, Any]] = []

    def fake_run(part: str, quick: bool, label: str = "", **options: Any) -> dict[str, Any]:
        runs.append(options)
        return {key: len(runs) for key in (*bench.SITE_LOAD_FIGURES, *bench.SITE_TURNS_FIGURES)}

    monkeypatch.setattr(bench, "_in_fresh_process", fake_run)
    load = await bench.bench_site_load(False, turns=20.0)
    assert [(r["site_apart"], r["site"], r["site_blocks"], r["seconds"]) for r in runs] == [
        (True, 20.0, 20.0, bench.SITE_TURNS_SECONDS),
        (False, 20.0, 20.0, bench.SITE_TURNS_SECONDS),
    ]
    assert load["modes"] == ["own_process", "in_bot"] and load["turn_s"] == 20.0
    assert load["own_process"]["site"] == 1 and load["in_bot"]["site"] == 2
    assert load["in_bot"]["fake_loop_lag_p99_ms"] == 2  # whether the bench itself lagged


def test_the_visitors_turns_start_away_and_run_past_the_end() -> None:
    from paddock_tools.bench_visitors import turns

    assert turns(10.0, 2.0, 15.0) == [(10.0, False), (12.0, True), (14.0, False), (16.0, True)]
