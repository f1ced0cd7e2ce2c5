"""Waddington's Formula 1 test helpers: actions applied in a row for the rules tests, and a
race in a bot process driven through the fake Discord (/f1) for the table and shard tests."""

from __future__ import annotations

import asyncio
from typing import Any

from paddock_tools.f1_driver import buttons, latest_with
from paddock_tools.fakediscord.process import RemoteFakeDiscord
from rules.base import get_game
from rules.waddington import GAME
from store import SqliteStore


def play(state, *actions):
    events = []
    for a in actions:
        state, ev = GAME.apply(state, a)
        events += ev
    return state, events


# --- a race in a bot process ---------------------------------------------------------------


async def db_state(store: SqliteStore, gid: int) -> tuple[Any, Any, Any]:
    record = await store.load_game(gid)
    game = get_game("waddington")
    return record, game, game.load_state(record.state_json)


async def remote_settled(fd: RemoteFakeDiscord, store: SqliteStore, gid: int) -> None:
    """Until a driver is to act and their prompt for the current seq is in the thread."""
    for _ in range(300):
        record, game, state = await db_state(store, gid)
        seats = {s.seat: s for s in await store.seats(gid)}
        seat = game.to_act(state)[0]
        if not seats[seat].robot and latest_with(fd, f"pd:f1:{gid}:act:{record.seq}.") is not None:
            return
        await asyncio.sleep(0.03)
    raise AssertionError("no prompt for the driver to act")


async def remote_click(fd: RemoteFakeDiscord, store: SqliteStore, gid: int) -> int:
    """The driver to act clicks what the robot policy chooses, on the prompt in the thread
    (or in their hand view for a Tactic card); returns the seq it was clicked at."""
    await remote_settled(fd, store, gid)
    record, game, state = await db_state(store, gid)
    seat = game.to_act(state)[0]
    seats = {s.seat: s for s in await store.seats(gid)}
    user = fd.world.user(seats[seat].user_id)  # type: ignore[arg-type]
    index = game.legal_actions(state, seat).index(game.robot_action(state, seat))
    custom_id = f"pd:f1:{gid}:act:{record.seq}.{index}"
    prompt = latest_with(fd, f"pd:f1:{gid}:act:{record.seq}.")
    assert prompt is not None
    if custom_id in [b["custom_id"] for b in buttons(prompt)]:
        await fd.click(custom_id, user=user, message_id=int(prompt["id"]))
    else:
        hand = await fd.click(f"pd:f1:{gid}:hand", user=user, message_id=int(prompt["id"]))
        assert custom_id in hand.last.custom_ids
        await fd.click(custom_id, user=user, message_id=int(hand.last.message["id"]))
    return record.seq
