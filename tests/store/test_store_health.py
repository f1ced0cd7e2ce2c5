"""What an operator's health check and metrics read of the store (store/health.py), on both
databases: the ping, and the counts of active games and due timers."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from store import Store, StoreUnavailable, open_store


@pytest.fixture
def store(backend_store: Store) -> Store:
    return backend_store


async def test_a_ping_answers_while_open_and_names_the_database_once_closed(
    backend_url: str,
) -> None:
    store = open_store(backend_url)
    await store.open()
    await store.ping()
    await store.close()
    with pytest.raises(StoreUnavailable) as closed:
        await store.ping()
    assert str(closed.value).startswith(store.path)
    assert "not open" in str(closed.value)


async def test_a_ping_that_gets_no_answer_in_time_is_refused_in_one_line(store: Store) -> None:
    async def stalled(sql: str, *args: Any) -> Any:
        await asyncio.sleep(10)

    store._val = stalled  # type: ignore[attr-defined, method-assign]  # a server that hangs
    with pytest.raises(StoreUnavailable, match=r"no answer within 0\.05 s"):
        await store.ping(timeout=0.05)


async def test_active_games_are_counted_by_kind_and_status(store: Store) -> None:
    assert await store.games_active() == {}
    await store.create_game("toy", 1, {}, None, status="lobby")
    await store.create_game("toy", 2, {}, None, status="lobby")
    await store.create_game("toy", 3, {}, '{"at": 0}')
    await store.create_game("other", 4, {}, '{"at": 0}')
    over = await store.create_game("toy", 5, {}, '{"at": 0}')
    await store.update_game(over.id, status="finished")
    gone = await store.create_game("other", 6, {}, None, status="lobby")
    await store.end_game(gone.id, from_status=("lobby",))
    assert await store.games_active() == {
        ("toy", "lobby"): 2,
        ("toy", "running"): 1,
        ("other", "running"): 1,
    }


async def test_due_timers_are_counted_until_claimed(store: Store) -> None:
    assert await store.timers_due(1000.0) == 0
    await store.add_timer("turn", 100.0, {})
    await store.add_timer("turn", 200.0, {})
    await store.add_timer("turn", 300.0, {})
    assert await store.timers_due(50.0) == 0
    assert await store.timers_due(200.0) == 2  # due at exactly now counts
    await store.claim_due_timer(200.0)
    assert await store.timers_due(200.0) == 1
