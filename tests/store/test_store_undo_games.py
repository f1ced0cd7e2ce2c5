"""Undo through the store for every registered game (issue 27's property): from random
reachable states of each game's races, an action its rules let be taken back is taken back
by the store to the snapshot before it, byte for byte, with the timers as they were, and
`paddock verify` replays the log (marks included) to the snapshot after each take-back and
at the end. The race then goes on from there, the same action played again."""

from __future__ import annotations

from typing import Any

import pytest

from rules.base import games
from store import Store, play
from store.models import TimerSpec
from store.undo import UNDO, Mark, state_after
from store.verify import verify_store
from tests.engine.test_undo import _walk

UNDOS_PER_GAME = 4  # take-backs tried in each race (each replays its log)


@pytest.fixture
def store(backend_store: Store) -> Store:
    return backend_store


def deadline(step: int) -> list[TimerSpec]:
    """A timer set of its own after each action: a restored one is told from the others."""
    return [TimerSpec(event="turn_timeout", due_at=1_900_000_000.123456789 + step, payload={})]


async def append(store: Store, gid: int, seq: int, action: Any, after: Any, step: int) -> int:
    """The walk's `step`-th action stored after `seq`, its state after it and its timers."""
    return await store.append_action(
        gid,
        seq,
        str(action.seat),
        action.model_dump_json(),
        after.model_dump_json(),
        timers=deadline(step),
    )


@pytest.mark.parametrize("name", sorted(games()))
async def test_an_allowed_undo_restores_the_snapshot_and_verify_replays_it(
    store: Store, name: str
) -> None:
    game = games()[name]
    seed = 1
    config = game.simulation_config()
    walk = _walk(game, seed)
    record, _ = await play.new_game(store, name, seed, config, [])
    gid = record.id
    seq = 0
    undone = 0
    for step, (before, action, after, events) in enumerate(walk):
        prior = await store.load_game(gid)
        assert prior.state_json == before.model_dump_json()
        timers = [(t.event, t.due_at, t.payload) for t in await store.timers(gid)]
        seq = await append(store, gid, seq, action, after, step)
        if undone >= UNDOS_PER_GAME or game.undo_refusal(before, after, action.seat, events):
            continue
        log = await store.actions(gid)
        back: Any = state_after(game, seed, config, log, seq - 1)
        seq = await store.take_back(
            gid, seq, str(action.seat), Mark(kind=UNDO, to=seq - 1), back.model_dump_json()
        )
        undone += 1
        assert (await store.load_game(gid)).state_json == prior.state_json  # byte for byte
        assert [(t.event, t.due_at, t.payload) for t in await store.timers(gid)] == timers
        report = await verify_store(store)
        assert report.ok, report.mismatches
        # the same action again: the race goes on as it went
        seq = await append(store, gid, seq, action, after, step)
    report = await verify_store(store)
    assert report.ok, report.mismatches
    assert undone == (0 if name == "pitformula" else UNDOS_PER_GAME)
