"""Playing a stored game: load, apply through the rules, persist log + snapshot, record the
league result once at the finish. Used by the bot's game cogs, the demo and the bench."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rules.base import Action, Event, Game, GameState, get_game
from store.errors import StaleState
from store.models import GameRecord, Seat, TimerSpec
from store.protocol import Store


@dataclass
class Played:
    record: GameRecord
    game: Game[Any]
    state: GameState
    events: list[Event]
    seq: int
    finished: bool
    results_recorded: bool
    frames: list[Any] = field(default_factory=list)  # what the game's apply showed on the way


async def new_game(
    store: Store,
    kind: str,
    seed: int,
    config: dict[str, Any],
    seats: list[Seat],
    **where: Any,
) -> tuple[GameRecord, GameState]:
    game = get_game(kind)
    state = game.new_game(seed, config)
    record = await store.create_game(
        kind, seed, config, state.model_dump_json(), seats=seats, **where
    )
    return record, state


async def load(store: Store, game_id: int) -> tuple[GameRecord, Game[Any], GameState]:
    record = await store.load_game(game_id)
    game = get_game(record.kind)
    if record.state_json is None:
        raise ValueError(f"game #{game_id} has not started")
    return record, game, game.load_state(record.state_json)


async def act(
    store: Store,
    game_id: int,
    action: Action | dict[str, Any],
    actor: str,
    *,
    by_robot: bool = False,
    expected_seq: int | None = None,
    loaded: tuple[GameRecord, Game[Any], GameState] | None = None,
    seats: list[Seat] | None = None,
    timers: list[TimerSpec] | Callable[[GameState], list[TimerSpec] | None] | None = None,
    human_at: float | None = None,
    apply: Callable[[GameState, Action], tuple[GameState, list[Event], list[Any]]] | None = None,
    end_timers: list[TimerSpec] | None = None,
) -> Played:
    """Apply one action to a stored game and persist it.

    Raises IllegalAction (nothing stored) or StaleState (someone acted first). Pass
    `expected_seq` when the caller decided on a state it loaded earlier (e.g. a button
    shown for seq N), so a second click on an old state is refused rather than re-applied.
    A finishing action records the league result in the same transaction (from `seats`, read
    here if not given); `timers` (or a function of the new state giving them) and `human_at`
    are stored with the action too, `end_timers` instead of `timers` if it finishes.
    """
    # `loaded`: what the caller just loaded under its lock, to save a second read; the
    # sequence check in append_action still refuses it if another process moved on.
    record, game, state = loaded or await load(store, game_id)
    if expected_seq is not None and expected_seq != record.seq:
        raise StaleState(game_id, record.seq, record.state_json or "")
    parsed = action if isinstance(action, Action) else game.parse_action(action)
    frames: list[Any] = []
    if apply is None:
        new_state, events = game.apply(state, parsed)
    else:  # e.g. RF90's state at each section activation, for one picture each
        new_state, events, frames = apply(state, parsed)
    return await persist(
        store,
        record,
        game,
        [(actor, parsed, by_robot)],
        new_state,
        events,
        frames,
        seats=seats,
        timers=timers,
        human_at=human_at,
        end_timers=end_timers,
    )


async def persist(
    store: Store,
    record: GameRecord,
    game: Game[Any],
    steps: list[tuple[str, Action, bool]],
    state: GameState,
    events: list[Event],
    frames: list[Any],
    *,
    seats: list[Seat] | None = None,
    timers: list[TimerSpec] | Callable[[GameState], list[TimerSpec] | None] | None = None,
    human_at: float | None = None,
    end_timers: list[TimerSpec] | None = None,
) -> Played:
    """Store actions already applied to `record`'s state, one after the other (actor,
    action, by robot), ending in `state`: every one logged, one snapshot, one transaction
    with the sequence check (a robots' chain costs one commit, not one per move). The
    league result of a finishing chain and the timers go in the same transaction: at the
    finish, `end_timers` (none by default) replace the game's timers."""
    finished = game.is_terminal(state)
    results = None
    if finished and record.league_id is not None and not record.results_recorded:
        seats = seats if seats is not None else await store.seats(record.id)
        results = league_placings(game, state, seats)
    seq = await store.append_actions(
        record.id,
        record.seq,
        [(actor, action.model_dump_json(), by_robot) for actor, action, by_robot in steps],
        state.model_dump_json(),
        status="finished" if finished else None,
        results=results,
        timers=(end_timers or []) if finished else timers(state) if callable(timers) else timers,
        human_at=human_at,
    )
    return Played(record, game, state, events, seq, finished, results is not None, frames)


def league_placings(
    game: Game[Any], state: GameState, seats: list[Seat]
) -> list[tuple[int, int | None, str]]:
    """(user id, place, status) of the seats people drove, in the game's finishing order.
    Robots, including drivers replaced by one, score nothing."""
    by_seat = {s.seat: s for s in seats}
    out: list[tuple[int, int | None, str]] = []
    for p in game.classification(state):
        seat = by_seat.get(p.seat)
        if seat is not None and seat.user_id is not None and not seat.robot:
            out.append((seat.user_id, p.place, p.status))
    return out


async def record_finish(store: Store, game_id: int, game: Game[Any], state: GameState) -> bool:
    """Send a finished league game's classification to its round (idempotent)."""
    placings = league_placings(game, state, await store.seats(game_id))
    return await store.record_game_results(game_id, placings)


def action_summary(action_json: str) -> str:
    data = json.loads(action_json)
    kind = data.pop("kind", "?")
    seat = data.pop("seat", "?")
    args = ", ".join(f"{k}={v}" for k, v in data.items())
    return f"seat {seat}: {kind}({args})"
