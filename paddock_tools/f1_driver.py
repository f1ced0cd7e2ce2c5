"""Driving a /f1 race in the in-process fake Discord: shared by the bot tests and the bench."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any, cast

from paddock_tools.fakediscord import ALICE, BOB, InProcessDriver
from paddock_tools.fakediscord.backend import _walk_components
from rules.base import get_game

if TYPE_CHECKING:
    from bot.client import PaddockBot
    from store import Store

USERS = {ALICE.id: ALICE, BOB.id: BOB}


def store_of(d: InProcessDriver) -> Store:
    """The bot's store (the driver holds the bot as a plain `discord.Client`)."""
    return cast("PaddockBot", d.bot).store


def buttons(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in _walk_components(message.get("components") or []) if "custom_id" in c]


def latest_with(d: InProcessDriver, prefix: str) -> dict[str, Any] | None:
    for message in reversed(list(d.backend.messages.values())):
        if any(b["custom_id"].startswith(prefix) for b in buttons(message)):
            return message
    return None


async def state_of(d: InProcessDriver, gid: int) -> tuple[Any, Any, int]:
    record = await store_of(d).load_game(gid)
    assert record.state_json is not None, "the race has not started"
    game = get_game("waddington")
    return game, game.load_state(record.state_json), record.seq


async def seat_user(d: InProcessDriver, gid: int, seat: int):  # noqa: ANN201
    seats = {s.seat: s for s in await store_of(d).seats(gid)}
    user_id = seats[seat].user_id
    assert user_id is not None, "a robot's seat has no user"
    return USERS[user_id]


async def settled(d: InProcessDriver, gid: int) -> None:
    """Wait until robots and timers are done: the race is over or a driver has a prompt."""
    for _ in range(500):
        game, state, seq = await state_of(d, gid)
        if game.is_terminal(state):
            return
        seats = {s.seat: s for s in await store_of(d).seats(gid)}
        human = not seats[game.to_act(state)[0]].robot
        if human and latest_with(d, f"pd:f1:{gid}:act:{seq}.") is not None:
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the race never came back to a driver")


async def play_one_click(d: InProcessDriver, gid: int) -> float:
    """The player to act clicks what the robot policy would choose (or the first offer),
    and Confirm when it is a costly decision the bot asks about first. Returns the seconds
    from the click that plays it (that Confirm, else the click itself) to the bot being done
    with it (state stored, images drawn, messages sent): what the bench measures."""
    game, state, seq = await state_of(d, gid)
    seat = game.to_act(state)[0]
    user = await seat_user(d, gid, seat)
    wanted = game.robot_action(state, seat)
    index = game.legal_actions(state, seat).index(wanted)
    custom_id = f"pd:f1:{gid}:act:{seq}.{index}"
    prompt = latest_with(d, f"pd:f1:{gid}:act:{seq}.")
    assert prompt is not None, "no prompt for the current state"
    offered = [b["custom_id"] for b in buttons(prompt)]
    if custom_id not in offered:
        # A Tactic card: it is offered only in the driver's ephemeral hand view.
        hand = await d.click(f"pd:f1:{gid}:hand", user=user, message_id=int(prompt["id"]))
        assert hand.ephemeral and custom_id in hand.last.custom_ids
        start = time.perf_counter()
        calls = await d.click(custom_id, user=user)  # on the ephemeral hand message
    else:
        start = time.perf_counter()
        calls = await d.click(custom_id, user=user, message_id=int(prompt["id"]))
    asked = [cid for cid in calls.custom_ids if cid.startswith(f"pd:f1:{gid}:confirm:")]
    if asked:  # a costly decision (a Tactic card that throws the dice) asks Confirm first
        start = time.perf_counter()
        calls = await d.click(asked[-1], user=user)
    took = time.perf_counter() - start
    assert not any(c.ephemeral and "not your turn" in (c.content or "") for c in calls)
    _, _, new_seq = await state_of(d, gid)
    assert new_seq > seq
    return took


async def start_race(
    d: InProcessDriver, *, laps: int = 1, robots: int = 1, channel_id: int | None = None
) -> int:
    """ALICE opens a race (in `channel_id`: the same command twice in one channel within
    a few seconds opens one race), BOB joins, ALICE starts it; returns the game id."""
    before = {g.id for g in await store_of(d).list_games()}
    await d.slash(
        "f1", "new", laps=laps, robots=robots, turn_minutes=60, user=ALICE, channel_id=channel_id
    )
    (gid,) = [g.id for g in await store_of(d).list_games() if g.id not in before]
    await d.click(f"pd:f1:{gid}:join", user=BOB)
    await d.click(f"pd:f1:{gid}:start", user=ALICE)
    await settled(d, gid)
    return gid
