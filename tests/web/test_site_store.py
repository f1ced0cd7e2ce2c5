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


async def test_the_servers_index_is_made_with_its_first_public_league(store: Store) -> None:
    assert (await store.site_index(GUILD)).token is None
    cup = await store.create_league(GUILD, "Cup", "waddington", "w", [10, 8], None)
    other = await store.create_league(GUILD, "Other", "waddington", "w", [10, 8], None)
    await store.set_admin_role(GUILD, 55)  # a settings row before the index: kept
    elsewhere = await store.set_web(
        await store.create_league(GUILD + 1, "Far", "waddington", "w", [10], None), "on"
    )
    assert (await store.site_index(GUILD)).token is None  # another server's league
    cup = await store.set_web(cup, "on")
    index = await store.site_index(GUILD)
    assert index.on and index.token and len(index.token) >= 22
    assert await store.admin_role(GUILD) == 55
    assert await store.leagues_by_index_token(index.token) == [cup]  # not Other, not Far
    await store.set_web(other, "on")
    assert (await store.site_index(GUILD)) == index  # made once
    listed = await store.leagues_by_index_token(index.token)
    assert [lg.name for lg in listed] == ["Cup", "Other"]
    # a wrong token, an index that is off and a server with no public league: [] alike
    assert await store.leagues_by_index_token(new_token()) == []
    off = await store.set_site_index(GUILD, "off")
    assert off.token == index.token and not off.on
    assert await store.leagues_by_index_token(index.token) == []
    await store.set_web(cup, "off")
    await store.set_web(cup, "on")  # the admin's off sticks: no index made again
    assert not (await store.site_index(GUILD)).on
    on = await store.set_site_index(GUILD, "on")
    assert on.token == index.token and on.on
    new = await store.set_site_index(GUILD, "regenerate")
    assert new.on and new.token not in (None, index.token)
    assert await store.leagues_by_index_token(index.token) == []  # revoked
    assert len(await store.leagues_by_index_token(str(new.token))) == 2
    await store.set_web(cup, "off")
    await store.set_web(await store.get_league(GUILD, "Other"), "off")
    assert await store.leagues_by_index_token(str(new.token)) == []  # nothing public
    assert (await store.site_index(GUILD + 1)).token not in (None, new.token)
    assert elsewhere.web_on


async def test_search_is_per_league_and_moves_to_the_next_season(store: Store) -> None:
    first = await store.set_web(
        await store.create_league(GUILD, "Cup", "waddington", "w", [10, 8], None), "on"
    )
    assert not first.web_search and await store.searchable_web_tokens() == []
    first = await store.set_web_search(first, True)
    assert first.web_search
    assert await store.searchable_web_tokens() == [first.web_token]
    await store.set_web(first, "off")
    assert await store.searchable_web_tokens() == []  # private: not for crawlers either
    first = await store.set_web(first, "on")
    await store.close_season(first)
    second = await store.create_league(GUILD, "Cup", "waddington", "w", [10, 8], None)
    assert second.web_search and not (await store.league_by_id(first.id)).web_search
    assert await store.searchable_web_tokens() == [second.web_token]
    assert not (await store.set_web_search(second, False)).web_search
    assert await store.searchable_web_tokens() == []
