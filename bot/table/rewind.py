"""An admin's rewind (issue 27): `/<game> rewind to:N` takes a race back to an earlier action
for a bug or a dispute, N being an action's number in `/<game> log` (0: the start).

The host or a league admin asks; the answer is a private question with Confirm / Cancel
(stateless buttons carrying the sequence number seen and N: a Confirm after the race moved
on changes nothing). Confirmed, under the race's lock, the race is replayed from its seed to
action N and the take-back stored (bot/table/takeback.py): a finished race runs again, its
league result gone until it finishes again. The dice and cards after N come from the state's
own random state, so the same decisions draw the same numbers. A game played in real time
(its presenter's `rewinds` is False) is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord

from bot.components import button, view_of
from bot.posting import edit_source, result, think
from bot.presenter import Loaded, Presenter
from bot.table.core import MENTION_NONE, InvalidButton
from bot.table.log import actor_names, entry_line
from rules.errors import PaddockError
from store.errors import LeagueError, StaleState
from store.models import ActionRecord, GameRecord
from store.undo import Mark, has_marks, mark_of, standing

if TYPE_CHECKING:
    from bot.table.core import TableCore
    from bot.table.ending import Endings
    from bot.table.log import Log
    from bot.table.takeback import TakeBacks

CONFIRM, CANCEL = "rewind", "rewind-no"  # the question's buttons (routes.py)
ACTIONS = (CONFIRM, CANCEL)
MOVED_ON = "The race has moved on since you asked: ask again."
WORDS = 200  # what the question and the notice quote of action N, at most


def target_refusal(log: list[ActionRecord], seq: int, to: int, area: str, noun: str) -> str | None:
    """Why `to` is no place to rewind to (one line), or None: it must be an action of the
    log that still stands, or 0 (the start), and not where the race is now."""
    if not 0 <= to <= seq:
        if has_marks(log):
            return f"The {noun}'s log ends at {seq}; pick a number `/{area} log` shows."
        return f"The {noun} has {seq} actions; pick one of them."
    stands = standing(log)
    at = stands[-1].seq if stands else 0
    if to == at:
        return f"The {noun} is at {'its start' if to == 0 else f'action {to}'} already."
    if to != 0 and to not in {entry.seq for entry in stands}:
        entry = next((e for e in log if e.seq == to), None)
        if entry is not None and mark_of(entry) is not None:
            return f"Number {to} is a take-back, not an action; pick a number `/{area} log` shows."
        return f"Action {to} was taken back; pick a number `/{area} log` shows."
    return None


def where(to: int, words: str | None) -> str:
    """Where a rewind goes, in words: "its start", or "action 12 (alice: rolled a 4)"."""
    return "its start" if to == 0 else f"action {to}" + (f" ({words})" if words else "")


class Rewind:
    def __init__(self, core: TableCore, takebacks: TakeBacks, log: Log, endings: Endings) -> None:
        self.core = core
        self.takebacks = takebacks
        self.log = log
        self.endings = endings

    async def ask(
        self, interaction: discord.Interaction, presenter: Presenter[Any], to: int
    ) -> None:
        """`/<game> rewind to:N`: checked, then the private question (nothing changes)."""
        record = await self.endings.game_here(
            interaction, presenter, running=False, ended=presenter.rewinds
        )
        self.refuse_state(presenter, record)
        await self.core.require_manager(interaction, record, f"rewind this {presenter.noun}")
        await think(interaction, ephemeral=True)  # before the log's read and replay
        loaded = await self.core.load(record.id)
        record = loaded.record
        await self.refuse_closed_season(record)
        log = await self.core.store.actions(record.id)
        refusal = target_refusal(log, record.seq, to, presenter.area, presenter.noun)
        if refusal is not None:
            raise PaddockError(refusal)
        taken = sum(1 for entry in standing(log) if entry.seq > to)
        noun = presenter.noun
        league = ""
        if finished_league_race(record):
            league = f", and the league result of this {noun} is removed until it finishes again"
        question = (
            f"Rewind the {noun} to {where(to, await self.words(loaded, to))}? Everything "
            f"after it is taken back: {taken} action{'s' if taken != 1 else ''}{league}."
        )
        await result(
            interaction,
            question,
            view=view_of(
                button(
                    "Confirm",
                    presenter.area,
                    record.id,
                    CONFIRM,
                    f"{record.seq}.{to}",
                    style=discord.ButtonStyle.danger,
                ),
                button("Cancel", presenter.area, record.id, CANCEL),
            ),
            allowed_mentions=MENTION_NONE,
        )

    async def answer(
        self, interaction: discord.Interaction, record: GameRecord, action: str, arg: str | None
    ) -> None:
        """Confirm or Cancel pressed (the route answered the click first): Confirm rewinds,
        if the race is still where it was when the question was asked."""
        if action == CANCEL:
            await edit_source(interaction, content="Cancelled: nothing changed.", view=None)
            return
        seen, _, to = (arg or "").partition(".")
        if not (seen.isdigit() and to.isdigit() and len(seen) <= 18 and len(to) <= 18):
            raise InvalidButton()
        presenter = self.core.presenter(record)
        if not presenter.rewinds:
            raise InvalidButton()
        await self.core.require_manager(interaction, record, f"rewind this {presenter.noun}")
        async with self.core.lock(record.id):
            loaded = await self.core.load(record.id)
            if loaded.record.seq != int(seen):
                await edit_source(interaction, content=MOVED_ON, view=None)
                return
            done = await self.rewind(interaction.user, loaded, int(to))
        await edit_source(interaction, content=done, view=None)

    async def rewind(self, user: discord.abc.User, loaded: Loaded[Any], to: int) -> str:
        """Under the race's lock: the race taken back to action `to` and the thread told;
        what the question becomes."""
        presenter, record = self.core.presenter(loaded.record), loaded.record
        self.refuse_state(presenter, record)  # e.g. abandoned since the question
        log = await self.core.store.actions(record.id)
        refusal = target_refusal(log, record.seq, to, presenter.area, presenter.noun)
        if refusal is not None:  # (a Confirm the bot never offered)
            raise PaddockError(refusal)
        words = await self.words(loaded, to)
        state = await self.takebacks.state_after(loaded, to)
        drivers = await self.core.waiting_drivers(loaded, state)
        noun = presenter.noun
        notice = (
            f"⏪ {user.mention} rewound the {noun} to {where(to, words)}: everything "
            f"after it is taken back. The dice and cards from here come from the {noun}'s "
            "stored random state: played the same way, they fall the same way."
        )
        if finished_league_race(record):
            notice += (
                f" This {noun}'s league result is removed from the standings until it "
                "finishes again."
            )
        try:
            await self.takebacks.take_back(
                loaded,
                Mark(kind="paddock.rewind", to=to),  # (REWIND)
                str(user.id),
                state,
                timers=self.takebacks.fresh_timers(loaded, state, drivers),
                notes=[notice],
            )
        except StaleState:  # another process acted meanwhile: nothing was written
            return MOVED_ON
        except LeagueError as exc:  # its season closed meanwhile: nothing was written
            return exc.message
        return f"Rewound to {where(to, None)}."

    async def words(self, loaded: Loaded[Any], to: int) -> str | None:
        """Action `to` as `/<game> log` tells it (None for the start)."""
        if to == 0:
            return None
        who = actor_names(loaded)
        for seq, actor, events in await self.log.history(loaded):
            if seq == to:
                line = entry_line(who(actor), events)
                return line if len(line) <= WORDS else line[: WORDS - 1] + "…"
        return None

    def refuse_state(self, presenter: Presenter[Any], record: GameRecord) -> None:
        """A game that cannot be rewound, in one line saying what to do instead."""
        area, noun = presenter.area, presenter.noun
        if not presenter.rewinds:
            raise PaddockError(
                f"{presenter.title} is played in real time: a {noun} cannot be rewound. "
                f"`/{area} abandon` ends one that went wrong."
            )
        if record.status == "lobby":
            raise PaddockError(
                f"This {noun} has not started: there is nothing to rewind. Start it from its "
                f"lobby, or `/{area} cancel` closes it."
            )
        if record.status not in ("running", "finished"):
            raise PaddockError(
                f"This {noun} was abandoned: it is over and cannot be rewound. "
                f"`/{area} new` opens a new {noun}."
            )

    async def refuse_closed_season(self, record: GameRecord) -> None:
        """A finished league race whose season is closed keeps its result (the store would
        refuse it too: `LeagueError`)."""
        if finished_league_race(record):
            assert record.league_id is not None
            league = await self.core.store.league_by_id(record.league_id)
            if not league.is_open:
                raise PaddockError(
                    "This race's season is over: its result stands, so the race cannot be rewound."
                )


def finished_league_race(record: GameRecord) -> bool:
    return record.status == "finished" and record.league_id is not None
