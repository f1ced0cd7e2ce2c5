"""`paddock bench --db postgresql://...`: the same bench on PostgreSQL, each part in a schema
of its own (dropped afterwards), the backend named in the JSON. (The whole bench is run by
tests/test_cli.py on SQLite; here the parts that choose the database.)"""

from __future__ import annotations

import socket
from pathlib import Path

import asyncpg
import pytest

from bot import bench
from bot.cli import main
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
    before = await schemas(pg_url)
    async with bench.bench_database("/unused", "f1") as url:
        (schema,) = await schemas(pg_url) - before
        assert schema.startswith("paddock_bench_f1_") and url.endswith(f"search_path={schema}")
        bot = bench.bench_bot(url)
        assert isinstance(bot.store, PostgresStore)
        await bot.store.open()
        try:
            game = await bot.store.create_game("toy", 1, {}, "{}")
            assert [g.id for g in await bot.store.list_games()] == [game.id]  # a new database
        finally:
            await bot.store.close()
    assert await schemas(pg_url) == before


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
