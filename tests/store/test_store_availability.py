"""Availability in the store, on both databases (conftest.backend_url): a person's settings,
away periods counted in the league seasons they drive in (refused beyond the allowance,
nothing changed), a league's away settings carried to the next season, a person's timer of
no game kept to one."""

from __future__ import annotations

import pytest

from store import Store
from store.availability import AwayRefused, away_days

DAY = 86400.0
T0 = 1_800_000_000.0  # a fixed instant: every time below is counted from it
USER = 2**60 + 5  # snowflakes need 64 bits on both databases


@pytest.fixture
def store(backend_store: Store) -> Store:
    return backend_store


def test_away_days_count_a_part_day_as_one() -> None:
    assert away_days(T0, T0 + DAY) == 1
    assert away_days(T0, T0 + DAY + 1) == 2
    assert away_days(T0, T0 + 60) == 1
    assert away_days(T0, T0) == 0


async def test_a_persons_settings_round_trip_with_defaults(store: Store) -> None:
    fresh = await store.user_settings(USER, T0)
    assert (fresh.timezone, fresh.quiet_from, fresh.digest, fresh.digest_at) == (
        None,
        None,
        False,
        540,
    )
    assert fresh.away_until is None
    assert fresh.confirmations  # a costly decision asks Confirm first unless turned off
    await store.set_user_settings(USER, timezone="Europe/Madrid", quiet_from=1380, quiet_to=420)
    await store.set_user_settings(USER, digest=True, digest_at=480)
    await store.set_dm_reminders(USER, True)
    got = await store.user_settings(USER, T0)
    assert (got.timezone, got.quiet_from, got.quiet_to, got.digest, got.digest_at) == (
        "Europe/Madrid",
        1380,
        420,
        True,
        480,
    )
    assert got.dm_reminders and got.confirmations
    await store.set_user_settings(USER, confirmations=False)
    off = await store.user_settings(USER, T0)
    assert off.confirmations is False and off.timezone == "Europe/Madrid"
    assert (await store.users_settings([USER], T0))[USER].confirmations is False
    await store.set_user_settings(USER, quiet_from=None, quiet_to=None)
    assert (await store.user_settings(USER, T0)).quiet_from is None
    with pytest.raises(ValueError):
        await store.set_user_settings(USER, dm_reminders=True)
    assert list(await store.users_settings([USER, 7], T0)) == [USER]


async def test_away_is_counted_in_each_season_and_refused_beyond_it(store: Store) -> None:
    cup = await store.create_league(1, "Cup", "waddington", "waddington", [10, 8], 100)
    short = await store.create_league(1, "Sprint", "waddington", "waddington", [10, 8], 100)
    short = await store.set_league_away(short, 5, "robot")
    assert (short.away_days, short.away_policy) == (5, "robot")
    assert (cup.away_days, cup.away_policy) == (14, "wait")
    for league in (cup, short):
        await store.join_league(league, USER, "Ana", None)

    await store.set_away(USER, T0, T0 + 3 * DAY)
    now = await store.user_settings(USER, T0 + 1)
    assert (now.away_from, now.away_until) == (T0, T0 + 3 * DAY)
    assert (await store.user_settings(USER, T0 + 3 * DAY)).away_until is None  # over then
    assert [(u.league.name, u.used) for u in await store.away_uses(USER)] == [
        ("Cup", 3),
        ("Sprint", 3),
    ]
    # Extending the period under way counts it once, from its start: 5 days fit in Sprint's 5.
    await store.set_away(USER, T0 + DAY, T0 + 4 * DAY + 10)
    assert [u.used for u in await store.away_uses(USER)] == [5, 5]
    # Six days do not: refused, naming the league and what is left; nothing changed.
    with pytest.raises(AwayRefused) as refused:
        await store.set_away(USER, T0 + DAY, T0 + 5 * DAY + 10)
    assert str(refused.value) == (
        "That is 6 away days, but **Sprint (season 1)** allows 5 a season and you have 5 "
        "left: choose an earlier date (nothing changed)."
    )
    assert (await store.user_settings(USER, T0 + DAY)).away_until == T0 + 4 * DAY + 10
    # Back early: the days up to now count (2 of them), the rest is given back.
    await store.set_away(USER, T0 + 1.5 * DAY, None)
    assert (await store.user_settings(USER, T0 + 1.5 * DAY)).away_until is None
    assert [u.used for u in await store.away_uses(USER)] == [2, 2]
    # A new period counts on top; one ended within the hour is forgotten.
    await store.set_away(USER, T0 + 10 * DAY, T0 + 13 * DAY)
    assert [u.used for u in await store.away_uses(USER)] == [5, 5]
    with pytest.raises(AwayRefused):
        await store.set_away(USER, T0 + 10 * DAY, T0 + 13 * DAY + 1)
    await store.set_away(USER, T0 + 10 * DAY + 600, None)
    assert [u.used for u in await store.away_uses(USER)] == [2, 2]


async def test_a_season_counts_only_its_own_away_days_and_keeps_the_settings(
    store: Store,
) -> None:
    cup = await store.create_league(1, "Cup", "waddington", "waddington", [10, 8], 100)
    cup = await store.set_league_away(cup, 3, "robot")
    await store.join_league(cup, USER, "Ana", None)
    await store.set_away(USER, T0, T0 + 3 * DAY)
    await store.set_away(USER, T0 + 2 * DAY, None)
    assert [u.used for u in await store.away_uses(USER)] == [2]
    await store.close_season(cup)
    season2 = await store.create_league(1, "Cup", "waddington", "waddington", [10, 8], 100)
    assert (season2.season, season2.away_days, season2.away_policy) == (2, 3, "robot")
    assert [(u.league.season, u.used) for u in await store.away_uses(USER)] == [(2, 0)]
    await store.set_away(USER, T0 + 5 * DAY, T0 + 8 * DAY)  # 3 of season 2's 3
    with pytest.raises(AwayRefused):
        await store.set_away(USER, T0 + 5 * DAY, T0 + 8 * DAY + 1)


async def test_a_persons_timer_of_no_game_is_kept_to_one(store: Store) -> None:
    await store.set_user_timer("digest", USER, T0 + 10)
    await store.set_user_timer("digest", USER, T0 + 20)
    await store.set_user_timer("digest", 7, T0 + 30)
    timers = await store.timers()
    assert [(t.event, t.due_at, t.game_id, t.payload) for t in timers] == [
        ("digest", T0 + 20, None, {"user": USER}),
        ("digest", T0 + 30, None, {"user": 7}),
    ]
    await store.set_user_timer("digest", USER, None)
    assert [t.payload for t in await store.timers()] == [{"user": 7}]
