"""The store's careers and ratings on both databases (SQLite, and PostgreSQL with
PADDOCK_TEST_DATABASE_URL): the season's wrap-up claimed once (across stores too), the seasons
a driver raced on a server, finished games' finishing orders kept once."""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

import pytest

from rules.rng import Rng
from store import League, Seat, Store, open_store
from tests.toygame.rules import ToyGame, ToyState

GUILD = 1

pytestmark = pytest.mark.usefixtures("toy_game")


@pytest.fixture
def store(backend_store: Store) -> Store:
    return backend_store


async def query(url: str, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """SQL (`?` placeholders) on the store's database, on a connection of its own."""
    if url.startswith("sqlite:///"):
        db = sqlite3.connect(url.removeprefix("sqlite:///"), isolation_level=None)
        try:
            return [tuple(r) for r in db.execute(sql, args).fetchall()]
        finally:
            db.close()
    import asyncpg

    from store.dialect import numbered

    conn = await asyncpg.connect(url)
    try:
        return [tuple(r) for r in await conn.fetch(numbered(sql), *args)]
    finally:
        await conn.close()


async def season(store: Store, name: str = "Cup", rounds: int = 2) -> League:
    league = await store.create_league(GUILD, name, "waddington", "w", [10, 8, 6], None)
    for user in (1, 2):
        await store.join_league(league, user, f"D{user}", None)
    for n in range(1, rounds + 1):
        await store.set_round(league, n, f"R{n}", None)
    return league


async def test_the_wrap_up_is_claimed_once_when_the_calendar_is_raced(store: Store) -> None:
    league = await season(store)
    one, two = await store.members(league.id)
    r1, r2 = await store.get_round(league, 1), await store.get_round(league, 2)
    assert not await store.wrap_season(league.id)  # nothing raced
    await store.record_round(league, r1, [(one.id, 1, "finished"), (two.id, 2, "finished")])
    assert not await store.wrap_season(league.id)  # round 2 still to race
    await store.record_round(league, r2, [(two.id, 1, "finished"), (one.id, 2, "finished")])
    assert await store.wrap_season(league.id)
    assert (await store.league_by_id(league.id)).wrapped_at is not None
    # Once: a correction, or the close that follows, claims nothing more.
    await store.correct_result(league, r2, one, None, "retired")
    assert not await store.wrap_season(league.id)
    closed = await store.close_season(league)
    assert closed.wrapped_at is not None
    assert not await store.wrap_season(league.id)


async def test_closing_a_season_with_results_claims_its_wrap_up(store: Store) -> None:
    league = await season(store, rounds=3)
    one, _ = await store.members(league.id)
    await store.record_round(league, await store.get_round(league, 1), [(one.id, 1, "finished")])
    assert not await store.wrap_season(league.id)  # rounds 2 and 3 to race
    await store.close_season(league)
    assert await store.wrap_season(league.id)
    assert not await store.wrap_season(league.id)
    # A season closed before any result has nothing to wrap up.
    empty = await season(store, name="Empty")
    await store.close_season(empty)
    assert not await store.wrap_season(empty.id)
    assert (await store.league_by_id(empty.id)).wrapped_at is None


async def test_of_two_stores_claiming_at_once_exactly_one_wraps_up(
    backend_url: str, store: Store
) -> None:
    league = await season(store, rounds=1)
    one, _ = await store.members(league.id)
    await store.record_round(league, await store.get_round(league, 1), [(one.id, 1, "finished")])
    others = [open_store(backend_url) for _ in range(3)]
    for other in others:
        await other.open()
    try:
        claims = await asyncio.gather(*(s.wrap_season(league.id) for s in [store, *others]))
    finally:
        for other in others:
            await other.close()
    assert sorted(claims) == [False, False, False, True]


async def test_driver_leagues_are_every_season_on_this_server(store: Store) -> None:
    cup = await season(store)
    await store.close_season(cup)
    cup2 = await store.create_league(GUILD, "Cup", "waddington", "w", [10], None)  # season 2
    await store.leave_league(cup2, 2)  # left: still one of their seasons
    await store.create_league(GUILD, "Alpha", "waddington", "w", [10], None)  # not a member
    f90 = await store.create_league(GUILD, "Zeta", "rf90", "w", [10], None)
    await store.join_league(f90, 2, "D2", None)
    elsewhere = await store.create_league(GUILD + 1, "Cup", "waddington", "w", [10], None)
    await store.join_league(elsewhere, 2, "D2", None)
    found = await store.driver_leagues(GUILD, 2)
    assert [(lg.game, lg.name, lg.season) for lg in found] == [
        ("rf90", "Zeta", 1),
        ("waddington", "Cup", 1),
        ("waddington", "Cup", 2),
    ]
    assert await store.driver_leagues(GUILD, 99) == []


async def test_season_sheets_hold_what_each_season_reads_one_by_one(store: Store) -> None:
    cup = await season(store, rounds=3)
    one, two = await store.members(cup.id)
    await store.record_round(
        cup, await store.get_round(cup, 2), [(two.id, 1, "finished"), (one.id, None, "retired")]
    )
    await store.record_round(
        cup, await store.get_round(cup, 1), [(one.id, 1, "finished"), (two.id, 2, "finished")]
    )
    other = await season(store, "Other", rounds=1)
    empty = await store.create_league(GUILD, "Empty", "waddington", "w", [10], None)
    sheets = await store.season_sheets([other.id, cup.id, empty.id, cup.id])
    assert list(sheets) == [other.id, cup.id, empty.id]
    for league in (cup, other, empty):
        sheet = sheets[league.id]
        assert sheet.members == await store.members(league.id)
        assert sheet.results == await store.results(league.id)
        assert sheet.rounds == await store.rounds(league.id)
    assert [(r.round_number, r.place) for r in sheets[cup.id].results] == [
        (1, 1),
        (1, 2),
        (2, 1),
        (2, None),
    ]
    assert sheets[empty.id].members == [] and sheets[empty.id].rounds == []
    assert await store.season_sheets([]) == {}
    assert await store.member_by_id(two.id) == two
    assert await store.member_by_id(two.id + 1000) is None


def _final(positions: list[int]) -> str:
    """A finished toy race: the seats placed by how far they went."""
    return ToyState(rng=Rng.from_seed(1), positions=positions).model_dump_json()


async def _finished(
    store: Store, positions: list[int], seats: list[tuple[int | None, bool]], **kw: Any
) -> int:
    record = await store.create_game(
        "toy",
        1,
        {"players": len(positions)},
        _final(positions),
        guild_id=kw.pop("guild_id", GUILD),
        status=kw.pop("status", "finished"),
        seats=[
            Seat(seat=i, user_id=u, name=f"S{i}", robot=robot) for i, (u, robot) in enumerate(seats)
        ],
        **kw,
    )
    return record.id


async def test_finished_placings_in_finishing_order_kept_once(
    backend_url: str, store: Store, toy_game: ToyGame
) -> None:
    first = await _finished(store, [5, 21, 12], [(1, False), (2, False), (None, True)])
    second = await _finished(store, [22, 3], [(2, False), (3, False)])
    await _finished(store, [1, 2], [(1, False), (2, False)], status="running")
    await _finished(store, [21, 2], [(1, False), (2, False)], status="abandoned")
    await _finished(store, [21, 2], [(1, False), (2, False)], guild_id=GUILD + 1)
    # The second finished before the first (by the time of its last state).
    await query(
        backend_url,
        "UPDATE game_snapshots SET updated_at = ? WHERE game_id = ?",
        "2020-01-01T00:00:00+00:00",
        second,
    )
    rows = await store.finished_placings(GUILD)
    assert [(p.game_id, p.seat, p.user_id, p.robot, p.place, p.status) for p in rows] == [
        (second, 0, 2, False, 1, "finished"),
        (second, 1, 3, False, 2, "finished"),
        (first, 1, 2, False, 1, "finished"),
        (first, 2, None, True, 2, "finished"),
        (first, 0, 1, False, 3, "finished"),
    ]
    assert {p.kind for p in rows} == {"toy"} and {p.league_id for p in rows} == {None}
    # Kept: the order is the one worked out the first time, not the state read again.
    await query(
        backend_url,
        "UPDATE game_snapshots SET state_json = ? WHERE game_id = ?",
        _final([30, 1, 2]),
        first,
    )
    assert await store.finished_placings(GUILD) == rows
    kept = await query(backend_url, "SELECT count(*) FROM game_placings")
    assert kept == [(5,)]


async def test_a_game_whose_rules_are_gone_is_left_out(backend_url: str, store: Store) -> None:
    lost = await _finished(store, [21, 1], [(1, False), (2, False)])
    await query(backend_url, "UPDATE games SET kind = ? WHERE id = ?", "lost-game", lost)
    kept = await _finished(store, [1, 21], [(1, False), (2, False)])
    rows = await store.finished_placings(GUILD)
    assert [(p.game_id, p.user_id, p.place) for p in rows] == [(kept, 2, 1), (kept, 1, 2)]


async def test_the_finished_version_moves_with_every_finished_game(
    backend_url: str, store: Store
) -> None:
    """What the league site keeps a server's ratings by (web/league_data.py): it changes
    when a game here finishes, and when a finished one runs again or finishes anew."""
    assert await store.finished_version(GUILD) == (0, 0, "")
    first = await _finished(store, [5, 21], [(1, False), (2, False)])
    one = await store.finished_version(GUILD)
    await _finished(store, [1, 2], [(1, False), (2, False)], status="running")
    await _finished(store, [21, 2], [(1, False), (2, False)], guild_id=GUILD + 1)
    assert await store.finished_version(GUILD) == one  # neither is a finished race here
    await _finished(store, [21, 3], [(2, False), (3, False)])
    two = await store.finished_version(GUILD)
    assert two[0] == 2 and two != one
    # the first taken back (running again), then finished anew, longer and later
    await query(backend_url, "UPDATE games SET status = 'running' WHERE id = ?", first)
    assert (await store.finished_version(GUILD))[0] == 1
    await query(
        backend_url,
        "UPDATE game_snapshots SET seq = seq + 2, updated_at = ? WHERE game_id = ?",
        "2999-01-01T00:00:00+00:00",
        first,
    )
    await query(backend_url, "UPDATE games SET status = 'finished' WHERE id = ?", first)
    again = await store.finished_version(GUILD)
    assert again[0] == 2 and again not in (one, two)
