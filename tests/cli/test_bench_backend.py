"""`paddock bench --db postgresql://...`: the same bench on PostgreSQL, each part in a schema
of its own (dropped afterwards), the backend named in the JSON. (The whole bench is run by
tests/cli/test_cli.py on SQLite; here the parts that choose the database, and the mixed and
two-process parts in small.)"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import asyncpg
import pytest

from bot.cli import main
from paddock_tools import bench
from store import PostgresStore, SqliteStore


async def schemas(url: str) -> set[str]:
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch("SELECT nspname FROM pg_namespace")
    finally:
        await conn.close()
    return {r["nspname"] for r in rows}


async def test_each_part_gets_a_new_postgres_schema_dropped_afterwards(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bench, "DB_URL", pg_url)
    assert bench.backend() == "postgresql"
    # Other tests (and test runs) make schemas of their own meanwhile: only this one counts.
    before = await schemas(pg_url)
    async with bench.bench_database("/unused", "f1") as url:
        schema = url.rsplit("search_path=", 1)[-1]
        assert schema.startswith("paddock_bench_f1_") and schema not in before
        assert schema in await schemas(pg_url)
        bot = bench.bench_bot(url)
        assert isinstance(bot.store, PostgresStore)
        await bot.store.open()
        try:
            game = await bot.store.create_game("toy", 1, {}, "{}")
            assert [g.id for g in await bot.store.list_games()] == [game.id]  # a new database
        finally:
            await bot.store.close()
    assert schema not in await schemas(pg_url)


async def test_without_db_each_part_gets_a_sqlite_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bench, "DB_URL", None)
    assert bench.backend() == "sqlite"
    async with bench.bench_database(str(tmp_path), "pit") as url:
        assert url == f"sqlite:///{tmp_path / 'pit.db'}"
        bot = bench.bench_bot(url)
        assert isinstance(bot.store, SqliteStore) and bot.store.path == str(tmp_path / "pit.db")


def test_bench_db_takes_a_postgres_url_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--db", "sqlite:///x.db"]) == 2
    assert capsys.readouterr().err.strip() == (
        "bench: --db takes a postgresql://... URL (SQLite is the default)"
    )


def test_bench_on_an_unreachable_server_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nobody listens there once this socket is closed
    assert main(["bench", "--quick", "--db", f"postgresql://u:pw@127.0.0.1:{port}/x"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert (
        err[-1] == f"paddock: postgresql://u@127.0.0.1:{port}/x: cannot connect: connection refused"
    )
    assert "pw" not in "\n".join(err)


async def test_mixed_load_in_small_reports_every_figure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mixed part (issue 11's load) in small: one game of each kind, a few seconds."""
    monkeypatch.setattr(bench, "DB_URL", None)
    games = {"waddington": 1, "rf90": 1, "pitformula": 1}
    mixed = await bench.bench_mixed(True, games=games, seconds=4)
    assert mixed["games"] == games
    assert mixed["interactions"] > 0
    assert mixed["answer_p99_ms"] > 0 and mixed["done_p99_ms"] > 0
    assert isinstance(mixed["late_answers"], int) and mixed["late_answers"] >= 0
    rss = mixed["rss_mb"]
    assert set(rss) == {"start", "end", "max", "slope_mb_per_min_second_half", "by_minute"}
    assert all(rss[k] > 0 for k in ("start", "end", "max"))
    assert rss["max"] >= max(rss["start"], rss["end"])
    assert rss["by_minute"] == [rss["start"]]  # a sample a minute: the first, in 4 s
    # every game was started by its users' interactions (a failed start raises), and none
    # was over in 4 s, so none was replaced
    assert mixed["games_renewed"] == 0 and mixed["games_not_renewed"] == {}
    assert set(mixed["by_game"]) == set(games)
    assert sum(g["interactions"] for g in mixed["by_game"].values()) == mixed["interactions"]
    # the bot ran in a process of its own: its CPU time and the fake's are apart
    assert mixed["cpu_cores"] > 0 and mixed["fake_cpu_cores"] > 0
    assert mixed["fake_loop_lag_p99_ms"] is not None and mixed["fake_loop_lag_p99_ms"] >= 0
    assert mixed["errors_logged"] == 0 and mixed["user_failures"] == 0


async def test_burst_in_small_reports_the_opening_and_the_play_after_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 30's burst in small: four games opened at one instant (three /f1 races, each
    joined and started; one /pit start), then played for a few seconds. The shape, not the
    timings (those are the bench's to measure)."""
    monkeypatch.setattr(bench, "DB_URL", None)
    burst = await bench.bench_burst(True, games=4, seconds=4)
    assert burst["games"] == {"waddington": 3, "pitformula": 1}
    opened = burst["burst"]
    by_command = opened["by_command"]
    assert {w: f["interactions"] for w, f in by_command.items()} == {
        "/f1 new": 3,
        "join": 3,
        "start": 3,
        "/pit start": 1,
    }
    assert opened["interactions"] == 10
    for figures in (opened, *by_command.values()):
        assert 0 < figures["answer_p50_ms"] <= figures["answer_p99_ms"]
        assert figures["answer_p99_ms"] <= figures["answer_max_ms"]
        # the result is shown with the answer or after it (a deferred answer's edit)
        assert figures["shown_max_ms"] >= figures["answer_max_ms"]
        assert figures["shown_p99_ms"] >= figures["answer_p99_ms"]
        for count in ("over_1s", "late_answers", "unanswered"):
            assert isinstance(figures[count], int) and figures[count] >= 0
        assert figures["unanswered"] <= figures["late_answers"] <= figures["over_1s"]
    assert opened["seconds_to_all_started"] > 0
    # the play that follows, as the mixed load reports it
    assert burst["seconds"] == 4 and burst["interactions"] >= 0
    assert set(burst["by_game"]) == {"waddington", "pitformula"}
    assert burst["games_not_renewed"] == {} and burst["user_failures"] == 0
    assert burst["errors_logged"] == 0 and burst["http_errors"] == {}


async def test_two_processes_are_skipped_on_sqlite(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench, "DB_URL", None)
    skipped = await bench.bench_two_processes(True)
    assert set(skipped) == {"skipped"} and "postgresql://" in skipped["skipped"]


async def test_two_processes_share_one_postgres_schema(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two fresh bench processes at once on one schema, each its own few /f1 races: both
    p99s reported, and the schema dropped afterwards."""
    monkeypatch.setattr(bench, "DB_URL", pg_url)
    before = await schemas(pg_url)
    two = await bench.bench_two_processes(True, games=2)
    assert two["games"] == [2, 2]
    assert len(two["p99_ms"]) == 2 and all(p > 0 for p in two["p99_ms"])
    assert two["max_ms"] >= max(two["p99_ms"])
    assert len(two["rss_mb"]) == 2 and all(r > 0 for r in two["rss_mb"])
    left = await schemas(pg_url) - before  # (other test runs make and drop theirs meanwhile)
    assert not [s for s in left if s.startswith("paddock_bench_two_")]


def test_bench_only_runs_the_parts_named(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--quick", "--json", "--only", "two_processes"]) == 0
    out = capsys.readouterr()
    result = json.loads(out.out)
    assert result["backend"] == "sqlite" and "skipped" in result["two_processes"]
    assert not {"games", "concurrency", "mixed", "rss_mb"} & set(result)
    assert "bench: two bot processes on one database" in out.err
    assert main(["bench", "--only", "mixed,nonsense"]) == 2
    assert "unknown part nonsense" in capsys.readouterr().err


def test_mixed_rss_slope_is_megabytes_per_minute_of_samples_a_second_apart() -> None:
    from paddock_tools.bench_mixed import _slope_per_min

    assert _slope_per_min([200.0 + i / 2 for i in range(30)]) == 30.0  # +0.5 MB a second
    assert _slope_per_min([250.0, 251.0, 250.0, 251.0, 250.0, 251.0]) == round(60 / 35 * 3, 2)
    assert _slope_per_min([250.0, 250.0]) is None  # too few samples to say
