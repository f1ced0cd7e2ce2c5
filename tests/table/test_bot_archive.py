"""Finished races give back their threads (issue 28 point 3): a while after a race ends (its
classification posted, abandoned or its lobby cancelled) its thread is archived, unlocked, by
a stored timer (a league's setting, an hour by default). `/<game> status` in an archived race
that is over answers privately and leaves it archived; a thread the bot may not archive (no
Manage Threads) stays as it is, with one WARNING line."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.table.ending import ARCHIVE
from paddock_tools.bots import make_bot, world
from paddock_tools.fakediscord import ALICE, BOB, InProcessDriver
from tests.bot_helpers import dump
from tests.helpers import store_of, thread_of

HOUR = 3600.0
NOW = 1_900_000_000.0  # the bot's clock in these tests, so that due times are exact


@pytest.fixture
async def d(tmp_path: Path) -> AsyncIterator[InProcessDriver]:
    """The bot on the fake Discord, its clock held at NOW."""
    async with InProcessDriver(make_bot(tmp_path / "archive.db"), world(), timeout=30) as d:
        d.bot.timers.clock = lambda: NOW  # type: ignore[attr-defined]
        yield d


def meta(d: InProcessDriver, thread: int) -> dict[str, Any]:
    return d.backend.threads[thread]["thread_metadata"]


async def new_race(d: InProcessDriver, **options: Any) -> tuple[int, int]:
    before = {g.id for g in await store_of(d).list_games()}
    await d.slash("f1", "new", laps=1, robots=1, turn_minutes=60, user=ALICE, **options)
    (gid,) = [g.id for g in await store_of(d).list_games() if g.id not in before]
    return gid, thread_of(d, (await store_of(d).load_game(gid)).thread_id)


async def fire_at(d: InProcessDriver, when: float, done: Any) -> None:
    """The bot's clock moves to `when`; wait until `done()` holds (the timer has fired)."""
    d.bot.timers.clock = lambda: when  # type: ignore[attr-defined]
    d.bot.timers.poke()  # type: ignore[attr-defined]
    for _ in range(300):
        await asyncio.sleep(0.02)
        if await done():
            await asyncio.sleep(0.05)  # what the listener does after it
            return
    raise AssertionError("the timer never did its work")


def archive_calls(d: InProcessDriver, thread: int, mark: int) -> list[dict[str, Any]]:
    return [
        c.json
        for c in d.backend.calls[mark:]
        if c.method == "PATCH" and c.path == f"/channels/{thread}"
    ]


async def test_a_finished_race_thread_is_archived_an_hour_later_and_stays_so(
    d: InProcessDriver,
) -> None:
    store = store_of(d)
    gid, thread = await new_race(d)
    await d.click(f"pd:f1:{gid}:start", user=ALICE)
    # The robots drive to the end: the classification is posted, the race is over.
    await d.slash("f1", "autopilot", mode="on", user=ALICE, channel_id=thread)
    record = await store.load_game(gid)
    assert record.status == "finished" and record.published_seq == record.seq
    texts = [str(m.get("content")) for m in d.backend.messages.values()]
    assert any("Classification" in t for t in texts)
    # One stored timer, not wiped by the finish that armed it: the thread, an hour on.
    (timer,) = await store.timers(gid)
    assert (timer.event, timer.due_at) == (ARCHIVE, NOW + HOUR)
    assert not meta(d, thread).get("archived")

    mark = d.backend.mark()
    await fire_at(d, NOW + HOUR - 1, _at_once)  # a second early: not yet
    assert await store.timers(gid) != [] and not meta(d, thread).get("archived")
    await fire_at(d, NOW + HOUR, lambda: _archived(d, thread))
    assert archive_calls(d, thread, mark) == [{"archived": True, "locked": False}]
    assert meta(d, thread)["archived"] and not meta(d, thread)["locked"]
    assert await store.timers(gid) == []

    # /f1 status in the archived race that is over: privately, and it stays archived.
    mark = d.backend.mark()
    status = await d.slash("f1", "status", user=BOB, channel_id=thread)
    (answer,) = status.answers
    assert answer.ephemeral and "is over: it has finished" in (answer.content or "")
    assert meta(d, thread)["archived"]
    assert archive_calls(d, thread, mark) == []
    assert not [c for c in d.backend.calls[mark:] if c.kind == "channel_message"]


async def _at_once() -> bool:
    return True  # nothing to wait for: the clock is before the timer


async def _archived(d: InProcessDriver, thread: int) -> bool:
    return bool(meta(d, thread).get("archived"))


async def test_a_league_sets_the_grace_and_an_abandoned_race_and_a_lobby_get_it(
    d: InProcessDriver,
) -> None:
    store = store_of(d)
    await d.slash("league", "create", name="Cup", game="waddington", user=ALICE)
    await d.slash("league", "join", league="Cup", user=ALICE)
    await d.slash("league-admin", "round-set", league="Cup", number=1, name="Monza")
    await d.slash("league-admin", "round-set", league="Cup", number=2, name="Spa")
    # Bad input: one line, only to the admin, nothing changed.
    for hours in (-1, 169):
        before = await dump(store)
        bad = await d.slash("league-admin", "archive", league="Cup", hours=hours, user=ALICE)
        (answer,) = bad.answers
        assert answer.ephemeral and re.fullmatch(r"[^\n]+", answer.content or "")
        assert "0 to 168 hours" in (answer.content or "")
        assert await dump(store) == before
    refused = await d.slash("league-admin", "archive", league="Cup", hours=3, user=BOB)
    assert refused.answer.ephemeral and "Only league admins" in (refused.answer.content or "")
    done = await d.slash("league-admin", "archive", league="Cup", hours=3, user=ALICE)
    assert "archived 3 hours after the race ends" in (done.answer.content or "")
    assert (await store.get_league(d.world.guild_id, "Cup")).archive_hours == 3
    info = await d.slash("league", "info", league="Cup", user=BOB)
    assert any("3 hours after" in str(f) for f in info.last.embeds[0]["fields"])

    gid, thread = await new_race(d, league="Cup", round=1)
    await d.click(f"pd:f1:{gid}:start", user=ALICE)
    await d.slash("f1", "abandon", user=ALICE, channel_id=thread)
    await d.click(f"pd:f1:{gid}:abandon", user=ALICE)
    assert (await store.load_game(gid)).status == "abandoned"
    (timer,) = await store.timers(gid)
    assert (timer.event, timer.due_at) == (ARCHIVE, NOW + 3 * HOUR)

    lobby, lobby_thread = await new_race(d, league="Cup", round=2)
    await d.click(f"pd:f1:{lobby}:cancel", user=ALICE)
    assert (await store.load_game(lobby)).status == "abandoned"
    (timer,) = await store.timers(lobby)
    assert (timer.event, timer.due_at) == (ARCHIVE, NOW + 3 * HOUR)

    await fire_at(d, NOW + 3 * HOUR, lambda: _archived(d, lobby_thread))
    assert meta(d, thread)["archived"] and meta(d, lobby_thread)["archived"]


async def test_without_manage_threads_the_thread_is_left_with_one_warning(
    d: InProcessDriver, caplog: pytest.LogCaptureFixture
) -> None:
    store = store_of(d)
    gid, thread = await new_race(d)
    await d.slash("f1", "cancel", user=ALICE, channel_id=thread)
    (timer,) = await store.timers(gid)
    assert (timer.event, timer.due_at) == (ARCHIVE, NOW + HOUR)
    parent = (await store.load_game(gid)).channel_id
    d.backend.revoke(parent, "manage_threads")
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        await fire_at(d, NOW + HOUR, lambda: _timers_gone(store, gid))
    assert not meta(d, thread).get("archived")
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    mine = [r for r in warnings if "archive" in r.getMessage()]
    assert len(mine) == 1 and mine[0].levelno == logging.WARNING
    assert mine[0].exc_info is None and f"{thread}" in mine[0].getMessage()
    assert not [r for r in warnings if r.levelno >= logging.ERROR]

    # A game played in a channel of its own (Pit Formula) leaves that channel alone.
    cog: Any = d.bot.get_cog("PitCog")  # type: ignore[attr-defined]
    cog.countdown_seconds = 0
    await d.slash("pit", "solo", rival="rookie", races=1, user=ALICE)
    pit = max(g.id for g in await store.list_games())
    await d.slash("pit", "flag", user=ALICE)
    for _ in range(200):
        if (await store.load_game(pit)).status == "finished":
            break
        await asyncio.sleep(0.02)
    assert (await store.load_game(pit)).status == "finished"
    assert [t.event for t in await store.timers(pit)] == []


async def _timers_gone(store: Any, gid: int) -> bool:
    return await store.timers(gid) == []
