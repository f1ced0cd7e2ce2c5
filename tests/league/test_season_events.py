"""A league round as the server's scheduled event (issue 25 point 2): made when the round gets
a start, moved with it, deleted when it loses its start, is removed or its season closes, on
Discord's own `/guilds/{id}/scheduled-events` routes; without Manage Events, nothing of it,
the admin told once, and the round still opens."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import discord
import pytest

from paddock_tools.bots import make_bot, world
from paddock_tools.fakediscord import ALICE, GUILD_ID, RACES_CHANNEL_ID, InProcessDriver
from paddock_tools.fakediscord import payloads as pl
from tests.league.league_helpers import confirmed

NOW = datetime(2026, 12, 5, 12, 0, tzinfo=UTC).timestamp()
R1 = datetime(2026, 12, 12, 19, 0, tzinfo=UTC).timestamp()  # 20:00 in Madrid
EVENTS = f"/guilds/{GUILD_ID}/scheduled-events"


async def started(tmp_path: Path, w: pl.World) -> Any:
    bot = make_bot(tmp_path / "bot.db")
    bot.timers.clock = lambda: NOW
    return InProcessDriver(bot, w, timeout=30)


@pytest.fixture
async def d(tmp_path: Path) -> AsyncIterator[InProcessDriver]:
    async with await started(tmp_path, world()) as d:
        await d.slash("league", "create", name="Cup", game="waddington", user=ALICE)
        yield d


def event_calls(d: InProcessDriver, mark: int) -> list[tuple[str, str, Any]]:
    return [(c.method, c.path, c.json) for c in d.backend.calls[mark:] if c.path.startswith(EVENTS)]


async def home(d: InProcessDriver) -> Any:
    return await d.slash(
        "league-admin",
        "setup",
        league="Cup",
        channel=RACES_CHANNEL_ID,
        timezone="Europe/Madrid",
        user=ALICE,
    )


async def round_set(d: InProcessDriver, number: int, **kw: Any) -> Any:
    return await d.slash(
        "league-admin", "round-set", league="Cup", number=number, name="Monza", user=ALICE, **kw
    )


async def test_a_round_is_an_event_moved_with_it_and_deleted_with_it(d: InProcessDriver) -> None:
    events = d.backend.scheduled_events
    said = await home(d)
    assert "Manage Events" not in said.content  # the bot has it: nothing to tell
    mark = d.backend.mark()
    await round_set(d, 1, start="2026-12-12 20:00")
    ((method, path, body),) = event_calls(d, mark)
    assert (method, path) == ("POST", EVENTS)
    assert body["name"] == "Cup round 1: Monza" and body["entity_type"] == 3
    assert body["privacy_level"] == 2
    assert datetime.fromisoformat(body["scheduled_start_time"]).timestamp() == R1
    assert datetime.fromisoformat(body["scheduled_end_time"]).timestamp() == R1 + 3600
    assert body["entity_metadata"] == {"location": "#races"}
    (event,) = events.of_guild(GUILD_ID)
    league = await d.bot.store.get_league(GUILD_ID, "Cup")
    assert (await d.bot.store.get_round(league, 1)).event_id == int(event["id"])

    # A new start moves it (the same event); a rename without a start keeps the start.
    mark = d.backend.mark()
    await round_set(d, 1, start="2026-12-12 21:00")
    assert [(m, p) for m, p, _ in event_calls(d, mark)] == [
        ("GET", f"{EVENTS}/{event['id']}"),
        ("PATCH", f"{EVENTS}/{event['id']}"),
    ]
    (moved,) = events.of_guild(GUILD_ID)
    assert datetime.fromisoformat(moved["scheduled_start_time"]).timestamp() == R1 + 3600
    await d.slash("league-admin", "round-set", league="Cup", number=1, name="Monza GP", user=ALICE)
    assert (await d.bot.store.get_round(league, 1)).starts_at == R1 + 3600
    (renamed,) = events.of_guild(GUILD_ID)
    assert renamed["id"] == event["id"] and renamed["name"] == "Cup round 1: Monza GP"

    # `start:none` takes the round off the schedule: its event is deleted.
    mark = d.backend.mark()
    off = await round_set(d, 1, start="none")
    assert "starting" not in off.content
    assert [(m, p) for m, p, _ in event_calls(d, mark)] == [("DELETE", f"{EVENTS}/{event['id']}")]
    assert events.of_guild(GUILD_ID) == []
    assert (await d.bot.store.get_round(league, 1)).event_id is None

    # Removing a round, and closing the season, delete the events of rounds still to open.
    await round_set(d, 1, start="2026-12-12 20:00")
    await round_set(d, 2, start="2026-12-19 20:00")
    assert len(events.of_guild(GUILD_ID)) == 2
    await d.slash("league-admin", "round-remove", league="Cup", number=2, user=ALICE)
    assert len(events.of_guild(GUILD_ID)) == 1
    await confirmed(d, "league-admin", "close-season", league="Cup")
    assert events.of_guild(GUILD_ID) == []
    assert [(c.method, c.path) for c in d.backend.unhandled] == []  # Discord's routes only


async def test_without_manage_events_the_admin_is_told_once_and_the_round_still_opens(
    tmp_path: Path,
) -> None:
    w = world()
    bits = discord.Permissions(manage_events=True).value
    w.add_role(
        pl.role_payload(
            pl.ROLE_BOT_ID, "Paddock", pl.BOT_PERMISSIONS & ~bits, position=3, managed=True
        )
    )
    w.revoked[GUILD_ID] = w.revoked.get(GUILD_ID, 0) | bits
    async with await started(tmp_path, w) as d:
        await d.slash("league", "create", name="Cup", game="waddington", user=ALICE)
        said = await home(d)
        assert "I don't have Manage Events" in said.content
        assert "they still open at their start" in said.content
        mark = d.backend.mark()
        answer = await round_set(d, 1, start="2026-12-12 20:00")
        assert "Manage Events" not in answer.content  # told once, at the home
        assert event_calls(d, mark) == []
        d.bot.timers.clock = lambda: R1
        d.bot.timers.poke()
        for _ in range(300):
            if [g for g in await d.bot.store.list_games() if g.round_id is not None]:
                break
            await asyncio.sleep(0.02)
        else:
            raise AssertionError("the round did not open")
