"""The site's caches (web/cache.py) never serve what changed: a new result redraws the
standings image and a new race changes the ratings, a race taken back and finished again
shows its new log, a regenerated token still answers 404 at the old address, and what one
league's pages cached never shows on another's. Each page is read from the site after
its caches were filled, and compared with what a site with empty caches serves."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator

import pytest
from aiohttp.test_utils import TestClient, TestServer

from rules.base import get_game
from store import SqliteStore, Store
from store.undo import Mark, standing
from tests.web.conftest import BASE
from tests.web.test_site_pages import text_of
from tests.web.web_helpers import Filled, _race
from web.app import make_app
from web.cache import Lru
from web.security import RateLimit
from web.server import runner_options


@pytest.fixture
async def writer(data: Filled) -> AsyncIterator[SqliteStore]:
    """The bot's side: a store that writes the database the site reads."""
    store = SqliteStore(data.path)
    await store.open()
    try:
        yield store
    finally:
        await store.close()


async def fresh(site_store: Store, path: str) -> tuple[int, bytes]:
    """What a site with nothing cached serves at `path` (status, body)."""
    app = make_app(site_store, BASE, rate_limit=RateLimit(burst=100_000, rate=100_000))
    async with TestClient(TestServer(app, **runner_options())) as other:
        response = await other.get(path)
        return response.status, await response.read()


async def body_of(client: TestClient, path: str, status: int = 200) -> bytes:
    response = await client.get(path)
    body = await response.read()
    assert response.status == status, (path, body[:300])
    return body


async def test_a_new_result_redraws_the_standings_image(
    client: TestClient, site_store: Store, writer: SqliteStore, data: Filled
) -> None:
    home = f"/l/{data.league.web_token}"
    before = await body_of(client, f"{home}/standings.png")
    assert await body_of(client, f"{home}/standings.png") == before  # (now from the cache)
    members = await writer.members(data.league.id)
    await writer.record_round(
        data.league,
        await writer.get_round(data.league, 2),
        [(members[2].id, 1, "finished"), (members[0].id, 2, "finished")],
    )
    after = await body_of(client, f"{home}/standings.png")
    assert after != before
    assert (200, after) == await fresh(site_store, f"{home}/standings.png")
    # the season before keeps its own image
    older = await body_of(client, f"{home}/standings.png?season=1")
    assert older not in (before, after)


async def test_a_new_race_changes_the_ratings_on_a_drivers_page(
    client: TestClient, site_store: Store, writer: SqliteStore, data: Filled
) -> None:
    page = f"/l/{data.league.web_token}/driver/{data.member_ids[0]}"
    assert "(1 rated race)" in await text_of(client, page)
    await _race(writer, data.league, 2, data.user_ids[:2])
    html = await text_of(client, page)
    assert "(2 rated races)" in html
    assert (200, html.encode()) == await fresh(site_store, page)


async def test_a_race_taken_back_and_finished_again_shows_its_new_log(
    client: TestClient, site_store: Store, writer: SqliteStore, data: Filled
) -> None:
    path = f"/l/{data.league.web_token}/race/{data.game_id}"
    before = await text_of(client, path)
    game = await writer.load_game(data.game_id)
    actions = standing(await writer.actions(game.id))
    rules = get_game(game.kind)
    state = rules.new_game(game.seed, game.config)
    for done in actions[:-1]:
        state, _ = rules.apply(state, rules.parse_action(done.action_json))
    # An admin's rewind of the last action: the race runs again, its result gone...
    seq = await writer.take_back(
        game.id,
        game.seq,
        "admin",
        Mark(kind="paddock.rewind", to=actions[-2].seq),
        state.model_dump_json(),
        timers=[],
    )
    await text_of(client, path, 404)
    # ...then the same action again: it finishes as before, with the last line's new number
    last = actions[-1]
    final, _ = rules.apply(state, rules.parse_action(last.action_json))
    users = {s.seat: s.user_id for s in await writer.seats(game.id)}
    placings: list[tuple[int, int | None, str]] = [
        (int(users[p.seat] or 0), p.place, p.status) for p in rules.classification(final)
    ]
    await writer.append_actions(
        game.id,
        seq,
        [(last.actor, last.action_json, False)],
        final.model_dump_json(),
        status="finished",
        results=placings,
    )
    after = await text_of(client, path)
    assert f'<li value="{seq + 1}">' in after and f'<li value="{seq + 1}">' not in before
    assert f'<li value="{last.seq}">' in before and f'<li value="{last.seq}">' not in after
    assert (200, after.encode()) == await fresh(site_store, path)


async def test_a_regenerated_token_still_answers_404_at_the_old_address(
    client: TestClient, site_store: Store, writer: SqliteStore, data: Filled
) -> None:
    old = f"/l/{data.league.web_token}"
    pages = [
        "",
        "/standings.png",
        f"/driver/{data.member_ids[0]}",
        f"/race/{data.game_id}",
        f"/race/{data.game_id}/board.png",
    ]
    seen = {page: await body_of(client, old + page) for page in pages}  # all cached now
    league = await writer.set_web(data.league, "regenerate")
    new = f"/l/{league.web_token}"
    for page in pages:
        await body_of(client, old + page, 404)
        body = await body_of(client, new + page)
        if page in ("/standings.png", f"/race/{data.game_id}/board.png"):
            assert body == seen[page]  # the same league: the same pictures
        else:  # the same page, its links at the new address
            assert body.replace(new.encode(), old.encode()) == seen[page]


async def test_one_leagues_cached_pages_never_show_on_anothers(
    client: TestClient, site_store: Store, writer: SqliteStore, data: Filled
) -> None:
    mine = f"/l/{data.league.web_token}"
    race = await text_of(client, f"{mine}/race/{data.game_id}")
    image = await body_of(client, f"{mine}/standings.png")
    other = await writer.set_web(data.private, "on")  # another league of the same server
    theirs = f"/l/{other.web_token}"
    # the race (cached) is not theirs, under their address or with their season asked
    await text_of(client, f"{theirs}/race/{data.game_id}", 404)
    await text_of(client, f"{theirs}/race/{data.game_id}/board.png", 404)
    their_image = await body_of(client, f"{theirs}/standings.png")
    assert their_image != image
    assert (200, their_image) == await fresh(site_store, f"{theirs}/standings.png")
    home = await text_of(client, theirs)
    assert "Hidden Ring" in home and "Silverstone" not in home
    assert "Round 1: Silverstone" in race


async def test_the_lru_keeps_its_bounds_and_works_a_value_out_once() -> None:
    made: list[str] = []

    async def make(value: bytes) -> bytes:
        made.append(value.decode())
        await asyncio.sleep(0.01)  # the others ask meanwhile
        return value

    cache: Lru[bytes] = Lru(3, weight=len, budget=10)
    for key in "abc":
        value = key.encode() * 3
        assert await cache.get(key, functools.partial(make, value)) == value
    assert len(cache) == 3 and cache.held == 9
    await cache.get("a", lambda: make(b"x"))  # a hit: made once, now the newest
    await cache.get("d", lambda: make(b"dddd"))  # 13 > 10: the oldest ("b") goes
    assert "b" not in cache and "a" in cache and "d" in cache and cache.held == 10
    await cache.get("e", lambda: make(b"e" * 11))  # larger than the whole cache: not kept
    assert "e" not in cache and cache.held == 10
    assert made == ["aaa", "bbb", "ccc", "dddd", "e" * 11]
    several = Lru[bytes](2)
    results = await asyncio.gather(*(several.get("k", lambda: make(b"k")) for _ in range(5)))
    assert results == [b"k"] * 5 and made.count("k") == 1
