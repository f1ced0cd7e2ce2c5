"""What a race's live prompt carries besides its question, kept with the game.

A prompt opens with the lines of what happened since the last picture (a move with no
picture of its own), and each step of the move under way edits it with that step's lines;
when the move is over, its message tells the steps and the prompt keeps only its opening.
These lines are kept in the store with the game (written with `published_seq`), not in the
process: a restart neither drops them from the next edit nor tells them twice.

A simultaneous pick (everyone decides at once, e.g. RF90's set-up or qualifying) holds its
steps' lines until the last seat has picked: while it runs the thread may say who has picked
(the prompt's list of those still to pick), never what.

The feed also remembers what was shown for the last action (`last_seq`): the messages posted
for it and the lines it added to the steps, so that an undo (bot/table/undo.py) marks those
messages as taken back and drops those lines, after a restart too.
"""

from __future__ import annotations

from collections.abc import Hashable

from pydantic import BaseModel

from bot.limits import MESSAGE

# What the feed's lines may take of a message (bot/limits.py): the rest is kept for a line
# the table adds.
MESSAGE_LIMIT = MESSAGE - 100


class Feed(BaseModel):
    """The live prompt's lines (see the module's docstring)."""

    key: str | None = None  # the move these steps belong to (its move key, as text)
    opening: list[str] = []  # the lines the live prompt opened with
    steps: list[str] = []  # the lines of the move's steps so far
    base: str | None = None  # the live prompt's text without the steps (once a step edited it)
    last_seq: int | None = None  # the action the two below were shown for
    last_posted: list[int] = []  # the messages posted for it (its board, lines, the prompt)
    last_steps: int = 0  # how many of `steps` (at their end) are its lines

    @staticmethod
    def key_of(move_key: Hashable) -> str:
        return repr(move_key)

    def take_steps(self) -> list[str]:
        """The steps' lines, to be told now (a new message), and forget them."""
        steps, self.steps, self.last_steps = self.steps, [], 0
        return steps

    def add_steps(self, move_key: Hashable, lines: list[str]) -> None:
        """Lines of the move under way, kept for its message."""
        key = self.key_of(move_key)
        if self.key != key:
            self.steps = []
            self.key = key
        self.steps += lines
        self.last_steps += len(lines)

    def shown_for(self, seq: int) -> None:
        """What is shown from now on is shown for action `seq` (a new action: a new record;
        the same one again, e.g. `/<game> status`: added to its record)."""
        if self.last_seq != seq:
            self.last_seq, self.last_posted, self.last_steps = seq, [], 0

    def take_back(self, seq: int) -> list[int]:
        """Action `seq` is taken back: its lines leave the steps (they are not told as if
        they stood); the messages posted for it, to be marked as taken back."""
        posted: list[int] = []
        if self.last_seq == seq:
            if self.last_steps:
                del self.steps[-min(self.last_steps, len(self.steps)) :]
            posted = self.last_posted
        self.last_seq, self.last_posted, self.last_steps = None, [], 0
        return posted


def clip(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """Discord allows 2,000 characters: keep the newest lines (the end) of a long text."""
    return text if len(text) <= limit else "…" + text[-limit:]


def split(lines: list[str], limit: int = MESSAGE_LIMIT) -> list[list[str]]:
    """The lines in runs that each fit one message, in order (a run is never empty; a line
    longer than a message is one run of its own, clipped when sent)."""
    runs: list[list[str]] = [[]]
    size = 0
    for line in lines:
        if runs[-1] and size + len(line) + 1 > limit:
            runs.append([])
            size = 0
        runs[-1].append(line)
        size += len(line) + 1
    return [run for run in runs if run]
