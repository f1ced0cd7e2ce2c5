"""The store's side of the site on both databases (PostgreSQL with
PADDOCK_TEST_DATABASE_URL): a league's switch and token, moved to its next season; a store
opened read-only reads and refuses every write, ratings included."""

from __future__ import annotations

import pytest

from store import Store, StoreUnavailable, open_store
from store.sites import new_token

GUILD = 7


@pytest.fixture
def store(backend_store: Store) -> Store:
    return backend_store


async def test_on_off_and_regenerate(store: Store) -> None:
    league = await store.create_league(GUILD, "Cup", "waddington", "w", [10, 8], None)
    assert (league.web_token, league.web_on) == (None, False)
    on = await store.set_web(league, "on")
    assert on.web_on and on.web_token and len(on.web_token) >= 22
    assert (await store.league_by_web_token(on.web_token)) == on
    off = await store.set_web(on, "off")
    assert off.web_token == on.web_token and not off.web_on
    assert await store.league_by_web_token(on.web_token) is None
    again = await store.set_web(off, "on")
    assert again.web_token == on.web_token  # the same address
    new = await store.set_web(again, "regenerate")
    assert new.web_on and new.web_token != on.web_token
    assert await store.league_by_web_token(on.web_token) is None  # revoked
    assert (await store.league_by_web_token(str(new.web_token))) == new
    assert await store.league_by_web_token(new_token()) is None


async def test_the_next_season_takes_the_address(store: Store) -> None:
    first = await store.set_web(
        await store.create_league(GUILD, "Cup", "waddington", "w", [10, 8], None), "on"
    )
    await store.close_season(first)
    second = await store.create_league(GUILD, "Cup", "waddington", "w", [10, 8], None)
    assert (second.web_token, second.web_on) == (first.web_token, True)
    old = await store.league_by_id(first.id)
    assert (old.web_token, old.web_on) == (None, False)
    assert (await store.league_by_web_token(str(first.web_token))) == second


async def test_a_read_only_store_reads_and_refuses_writes(store: Store, backend_url: str) -> None:
    league = await store.set_web(
        await store.create_league(GUILD, "Cup", "waddington", "w", [10, 8], None), "on"
    )
    reader = open_store(backend_url, read_only=True)
    await reader.open(run_migrations=False)
    try:
        assert (await reader.league_by_web_token(str(league.web_token))) == league
        assert await reader.finished_placings(GUILD) == []
        with pytest.raises(StoreUnavailable, match="read-only"):
            await reader.set_web(league, "off")
        with pytest.raises(StoreUnavailable, match="read-only"):
            await reader.create_league(GUILD, "Other", "waddington", "w", [10], None)
    finally:
        await reader.close()
    assert (await store.league_by_id(league.id)).web_on
