"""Taking moves back in the action log (issue 27): a driver's undo of their last action and
an admin's rewind to an earlier one.

Nothing is deleted. A take-back is a log entry of its own, a *mark* (`{"kind":
"paddock.undo" | "paddock.rewind", "to": N}`), meaning "the race is again as it was after
entry N" (0: its start). The actions that stand are the log read in order, each mark
dropping what came after its `to` (`standing`); the snapshot is always the game's start
with the standing actions applied, which is what `paddock verify` checks. A mark is written
by `GameStore.take_back` under the same row lock and sequence check as a move, so an undo
racing a move leaves one winner.

What an undo restores beyond the state: each append keeps the sequence number it moved
from and the game's timers as they were (`game_snapshots.prior_seq`,
`prior_timers_json`), so an undo of that append's one action puts the deadline back as it
was, not a new one.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel

from rules.base import Game, GameState
from store.models import ActionRecord

UNDO, REWIND = "paddock.undo", "paddock.rewind"


class Mark(BaseModel):
    """A take-back in the log: the race is again as it was after entry `to`."""

    kind: Literal["paddock.undo", "paddock.rewind"]
    to: int

    def to_json(self) -> str:
        return self.model_dump_json()


def mark_of(entry: ActionRecord | str) -> Mark | None:
    """The mark an entry is, or None for a game's action."""
    body = entry if isinstance(entry, str) else entry.action_json
    if '"paddock.' not in body:  # (cheap: every entry of every replay passes here)
        return None
    data = json.loads(body)
    return Mark.model_validate(data) if data.get("kind") in (UNDO, REWIND) else None


def standing(log: list[ActionRecord]) -> list[ActionRecord]:
    """The game's actions that stand, in order: the log without its marks and what each
    mark took back."""
    out: list[ActionRecord] = []
    for entry in log:
        mark = mark_of(entry)
        if mark is None:
            out.append(entry)
        else:
            while out and out[-1].seq > mark.to:
                out.pop()
    return out


def has_marks(log: list[ActionRecord]) -> bool:
    return any(mark_of(entry) is not None for entry in log)


def state_after(
    game: Game[Any], seed: int, config: dict[str, Any], log: list[ActionRecord], to: int | None
) -> GameState:
    """The race as it stood after entry `to` of `log` (None: after the whole log; 0: its
    start): the standing actions up to there, replayed from the seed."""
    state = game.new_game(seed, config)
    for entry in standing(log):
        if to is not None and entry.seq > to:
            break
        # the replay's own state, never read again: no copy per action
        state, _ = game.apply_owned(state, game.parse_action(entry.action_json))
    return state
