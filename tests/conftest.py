from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from store import SqliteStore, Store, open_store
from tests.toygame import registered
from tests.toygame.rules import ToyGame

# The PostgreSQL half of the store tests runs when this names a server's database (each
# test gets a schema of its own there, dropped afterwards); .ci/run always sets it.
PG_ENV = "PADDOCK_TEST_DATABASE_URL"
PG_SKIP = (
    f"{PG_ENV} is not set, so the PostgreSQL store tests did not run "
    f"(e.g. {PG_ENV}=postgresql://postgres@127.0.0.1:5432/test)"
)

# Where the bots of the tests draw their images (bot/drawing.py): in their own threads, unless
# a test is marked `image_processes` (each game's whole race, tests/table/test_drawing.py) or
# the developer's shell says otherwise. The worker processes run at a lower CPU priority than
# everything else: with both cores filled by the suite, they would get almost none, and the
# tests that wait seconds for a picture would be measuring that. Bot processes the tests
# start (paddock_tools.fakediscord.process.BotProcess) are given the same setting.
IMAGE_PROCESSES_ENV = "PADDOCK_IMAGE_PROCESSES"
os.environ.setdefault(IMAGE_PROCESSES_ENV, "0")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "image_processes: the test's bots draw their images in worker processes (2), as "
        "`paddock run` does by default",
    )


@pytest.fixture(autouse=True)
def _image_processes(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test marked `image_processes`: its bots draw in two worker processes, started and
    warmed before it begins, at the test's own priority (the suite fills both cores)."""
    if request.node.get_closest_marker("image_processes") is None:
        return
    import asyncio

    import bot.drawing

    monkeypatch.setenv(IMAGE_PROCESSES_ENV, "2")
    monkeypatch.setattr(bot.drawing, "IMAGE_NICE", 0)
    asyncio.run(bot.drawing.use_processes(2).warm())


# The suite runs on two cores (pytest-xdist, `-n 2 --dist loadgroup` in pyproject.toml). No two
# tests share a file, a port or a database schema, so any two may run at once; but the tests
# below start bot processes (or the CLI, or the bench) and kill them or time them, so they
# run one at a time, on one worker (the "processes" group), each with a core to itself at
# most, as in a serial run. A module named here whole, or one test (its name without
# parameters). The bench's own test (tests/cli/test_cli.py) is not in the group: at two
# minutes it is most of a worker's share alone (docs/testing.md).
PROCESSES = "processes"
PROCESS_TESTS = {
    "tests/harness/test_fakediscord_process.py",
    "tests/store/test_shards.py",
    "tests/store/test_shards_e2e.py",
    "tests/league/test_season_shards.py",
    "tests/store/test_store.py::test_crash_in_the_middle_of_a_game_loses_nothing",
    "tests/store/test_store_faults.py::test_two_processes_starting_on_one_new_database_both_succeed",
    "tests/store/test_store_pg.py::test_two_processes_racing_on_one_game_exactly_one_wins",
    "tests/store/test_store_pg.py::test_two_processes_claim_each_due_timer_once",
    "tests/store/test_store_pg.py::test_two_processes_starting_on_an_empty_database_both_come_up",
    "tests/store/test_store_pg.py::test_two_processes_playing_one_game_never_interleave_a_move",
    "tests/cli/test_bench_backend.py::test_two_processes_share_one_postgres_schema",
    "tests/cli/test_bench_backend.py::test_mixed_load_in_small_reports_every_figure",
    "tests/cli/test_bench_backend.py::test_burst_in_small_reports_the_opening_and_the_play_after_it",
    "tests/cli/test_bench_site.py::test_mixed_load_with_the_site_served_by_the_bot_and_visited",
    "tests/cli/test_bench_site.py::test_site_pages_in_small_report_every_figure",
    "tests/cli/test_bench_site.py::test_site_pages_on_postgres",
    "tests/rf90/test_bot_rf90_life.py::test_a_race_killed_mid_activation_resumes_after_a_restart",
    "tests/rf90/test_bot_rf90_life.py::test_the_activations_a_killed_chain_ended_get_their_pictures",
    "tests/rf90/test_bot_rf90_thread.py::"
    "test_every_line_appears_once_through_kills_at_each_step_of_a_turn",
    "tests/table/test_bot_table.py::test_kill_between_commit_and_prompt_is_recovered_at_start_up",
    "tests/table/test_bot_undo_kill.py",
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    modules: dict[str, Any] = {}
    for item in items:
        path, _, name = item.nodeid.partition("::")
        modules[path] = getattr(item, "module", None)
        if path in PROCESS_TESTS or f"{path}::{name.split('[', 1)[0]}" in PROCESS_TESTS:
            item.add_marker(pytest.mark.xdist_group(PROCESSES))
    # A test renamed or moved would quietly leave the group: its module must still have it.
    for entry in PROCESS_TESTS:
        path, _, name = entry.partition("::")
        if name and modules.get(path) is not None:
            assert hasattr(modules[path], name), f"conftest.PROCESS_TESTS: no test {entry}"


@pytest.fixture
def toy_game() -> Iterator[ToyGame]:
    """The test-only toy game (tests/toygame/), registered for the test's duration."""
    with registered() as game:
        yield game


@pytest.fixture
def image_threads() -> Iterator[None]:
    """Images drawn in the bot's own threads (PADDOCK_IMAGE_PROCESSES=0: bot/drawing.py),
    for a test that watches them there; the worker processes as they were afterwards."""
    from bot.drawing import DRAWING, use_processes

    before = DRAWING.processes
    use_processes(0)
    yield
    use_processes(before)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    s = SqliteStore(tmp_path / "paddock.db")
    await s.open()
    try:
        yield s
    finally:
        await s.close()


def with_search_path(url: str, schema: str) -> str:
    """The URL with the schema put first on the search path (asyncpg hands unknown query
    parameters to the server as settings)."""
    return f"{url}{'&' if '?' in url else '?'}search_path={schema}"


@pytest.fixture
def pg_url() -> str:
    """The test server's database URL, or skip."""
    url = os.environ.get(PG_ENV, "").strip()
    if not url:
        pytest.skip(PG_SKIP)
    return url


@pytest.fixture
async def pg_schema(pg_url: str) -> AsyncIterator[str]:
    """A URL on a new, empty schema of the test database; dropped after the test, so
    tests (and test runs) never see each other's tables."""
    import asyncpg

    name = f"paddock_test_{uuid.uuid4().hex[:12]}"
    conn = await asyncpg.connect(pg_url, timeout=10)
    try:
        await conn.execute(f"CREATE SCHEMA {name}")
    finally:
        await conn.close()
    try:
        yield with_search_path(pg_url, name)
    finally:
        conn = await asyncpg.connect(pg_url, timeout=10)
        try:
            await conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
        finally:
            await conn.close()


@pytest.fixture(params=["sqlite", "postgres"])
def backend_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database for each store: a new SQLite file, then a new PostgreSQL schema (skipped
    without PADDOCK_TEST_DATABASE_URL)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'paddock.db'}"
    return request.getfixturevalue("pg_schema")


@pytest.fixture
async def backend_store(backend_url: str) -> AsyncIterator[Store]:
    """An open store of each kind (the same tests run against both)."""
    s = open_store(backend_url)
    await s.open()
    try:
        yield s
    finally:
        await s.close()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    # `-q` hides skip reasons: say once, at the end, why the PostgreSQL tests did not run.
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if PG_SKIP in str(r.longrepr)]
    if skipped:
        terminalreporter.write_line(f"{len(skipped)} skipped: {PG_SKIP}", yellow=True)
