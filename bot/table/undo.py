"""A driver's undo of their last decision (issue 27), written once for every game:
`/<game> undo` and the Undo button on the private answer to a decision.

Under the race's lock the log's last entry must be the driver's own decision (not a
robot's, a forced or an autopilot move, nor a take-back), and the rules must let it be taken
back (`Game.undo_refusal`: no dice, nothing hidden shown, the race not over). Then the
take-back (bot/table/takeback.py) stores a mark with the state before the decision (the log
replayed without it) and the timers as they were, under the move's row lock and sequence
check; the messages posted for the decision are marked as taken back (edited, never
deleted: bot/feed.py remembers them, after a restart too) and the thread is told and asked
again. Every refusal is one line. A game may refuse undo altogether (`Presenter.undo_refused`:
Pit Formula, played in real time).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord

from bot.components import button, shown
from bot.errors import NotPosted
from bot.feed import Feed
from bot.posting import edit_source, result, think
from bot.presenter import Loaded, Presenter
from bot.table.core import MENTION_NONE, InvalidButton
from bot.table.takeback import mark_line
from rules.base import Action, Event, GameState
from rules.errors import PaddockError
from store.errors import StaleState
from store.models import ActionRecord, GameRecord
from store.undo import UNDO, Mark, mark_of, state_after

if TYPE_CHECKING:
    from bot.table.core import TableCore
    from bot.table.moves import Moves
    from bot.table.takeback import TakeBacks
    from store.play import Played

log = logging.getLogger("paddock.table")

NOTHING = "You have nothing to take back."
ALREADY = "That was already taken back."
OLD_BUTTON = "That decision can no longer be taken back: the race moved on."
TOO_LATE = "Too late: the race moved on before your undo arrived."
TAKEN_BACK = "↩️ Taken back:"  # opens a message posted for a decision taken back


@dataclass
class Offer:
    """The Undo button a driver's private answer to their decision carries."""

    text: str  # what the decision did, in the thread's words
    item: discord.ui.Item[Any]


# What a message posted for a decision taken back becomes: its words withdrawn, not struck
# through, since they may tell what the driver's hand held (a card played), and nothing
# public may depend on the hand after an undo; its images (the board) stay.
WITHDRAWN = f"{TAKEN_BACK} what this message said no longer stands: its driver took it back."


def withdrawn(feed: Feed, seq: int) -> list[int]:
    """Action `seq` taken back in `feed`: its lines dropped; the messages posted for it,
    to be marked. A step that only edited the live prompt: the prompt, superseded by the
    one asking again, is left saying it was taken back rather than what the step made it."""
    posted = feed.take_back(seq)
    if not posted and feed.base is not None:
        feed.base = WITHDRAWN
    return posted


def name_of(loaded: Loaded[Any], actor: str) -> str | None:
    """The name of the driver a log entry's actor (a user id) is, as typed (not escaped)."""
    if not actor.isdigit():
        return None
    seat = next((s for s in loaded.seats.values() if s.user_id == int(actor)), None)
    return None if seat is None else seat.name


class Undos:
    def __init__(self, core: TableCore, moves: Moves, takebacks: TakeBacks) -> None:
        self.core = core
        self.moves = moves
        self.takebacks = takebacks

    # Offering the Undo button -----------------------------------------------------------

    def offer(
        self, before: Loaded[Any], after: Loaded[Any], played: Played, seat: int
    ) -> Offer | None:
        """The Undo button for a decision just stored (`before` -> `after`), when taking it
        back is allowed now: the game undoes, nobody (no robot, no forced move) plays
        before the driver's answer is read, and the rules allow it (no dice, nothing
        shown). Only on the driver's private answer: nothing public depends on it."""
        presenter = self.core.presenter(after.record)
        if presenter.undo_refused is not None or self.moves._plays_next(after) is not None:
            return None
        if after.game.undo_refusal(before.state, after.state, seat, played.events) is not None:
            return None
        said = " ".join(presenter.event_lines(played.events)) or "your decision."
        item = button("Undo", presenter.area, after.id, "undo", played.seq, emoji="↩️")
        return Offer(said, item)

    # /<game> undo and the Undo button ---------------------------------------------------

    async def command(
        self, interaction: discord.Interaction, presenter: Presenter[Any], record: GameRecord
    ) -> None:
        """`/<game> undo` in the race's thread: answered privately."""
        await think(interaction, ephemeral=True)  # before the race's lock
        said = await self.undo(interaction, presenter, record.id)
        await result(interaction, said)

    async def button(
        self, interaction: discord.Interaction, presenter: Presenter[Any], game_id: int, arg: str
    ) -> None:
        """`undo:<seq>`: take back action `seq`, if it is still the last one (the click was
        deferred: its private message becomes the answer)."""
        if not arg.isdigit() or arg != str(int(arg)):
            raise InvalidButton()
        said = await self.undo(interaction, presenter, game_id, seq=int(arg))
        await edit_source(interaction, content=said, view=None)

    async def undo(
        self,
        interaction: discord.Interaction,
        presenter: Presenter[Any],
        game_id: int,
        *,
        seq: int | None = None,
    ) -> str:
        """Take back the user's last decision (`seq`: only if it is that action); the line
        they read, or a PaddockError whose one line says why not."""
        if presenter.undo_refused is not None:
            raise PaddockError(presenter.undo_refused)
        user = interaction.user.id
        async with self.core.lock(game_id):
            record = await self.core.record_for_button(interaction, presenter, game_id)
            loaded = await self.core.load(game_id, record=record)
            if loaded.record.status != "running":
                raise PaddockError(f"This {presenter.noun} is over.")
            entries = await self.core.store.actions(game_id)
            last, action, seat = self.last_decision(loaded, entries, user, seq)
            before, events = await asyncio.to_thread(self.replayed, loaded, entries, action)
            why = loaded.game.undo_refusal(before, loaded.state, seat, events)
            if why is not None:
                raise PaddockError(f"You can't take that back: {why}.")
            mark = Mark(kind="paddock.undo", to=last.seq - 1)
            posted = withdrawn(loaded.feed, last.seq)  # its lines are not told again

            async def marked() -> None:
                await self.strike(loaded.record, posted)

            try:
                await self.takebacks.take_back(
                    loaded,
                    mark,
                    str(user),
                    before,
                    notes=[mark_line(mark, loaded.name(seat))],
                    then=marked,
                )
            except StaleState:  # another process's move won (the row lock's sequence check)
                raise PaddockError(TOO_LATE) from None
        said = " ".join(presenter.event_lines(events)) or "your last decision."
        return f"↩️ Taken back: {said} Make your decision again below."

    def last_decision(
        self, loaded: Loaded[Any], entries: list[ActionRecord], user: int, seq: int | None
    ) -> tuple[ActionRecord, Action, int]:
        """The log's last entry, if it is this user's own decision for their seat (and
        action `seq`, for a button), with its action and seat; else the one-line refusal."""
        last = entries[-1] if entries else None
        mark = mark_of(last) if last is not None else None
        mine = loaded.human_seat(user)
        if seq is not None and (last is None or last.seq != seq):
            if last is not None and mark is not None and mark.to == seq - 1:
                raise PaddockError(ALREADY)
            raise PaddockError(OLD_BUTTON)
        if last is None or mine is None:
            raise PaddockError(NOTHING)
        if seq is not None and last.actor != str(user):
            raise PaddockError("Only the driver who made that decision can take it back.")
        if mark is not None:
            if mark.kind == UNDO and last.actor == str(user):
                raise PaddockError(ALREADY)
            raise PaddockError("The race was taken back since: you can't take that back.")
        if last.actor != str(user) or last.by_robot:
            if not any(e.actor == str(user) and mark_of(e) is None for e in entries):
                raise PaddockError(NOTHING)
            raise PaddockError(f"{self.moved(loaded, last.actor)} since: you can't take that back.")
        action = loaded.game.parse_action(last.action_json)
        if getattr(action, "seat", None) != mine.seat:
            raise PaddockError(NOTHING)
        return last, action, mine.seat

    @staticmethod
    def moved(loaded: Loaded[Any], actor: str) -> str:
        """Who made the last entry, as "<who> has moved" (escaped)."""
        if actor == "robot" or actor.startswith("autopilot:"):
            return "The robots have moved"
        name = name_of(loaded, actor)
        return "The race has moved on" if name is None else f"{shown(name)} has moved"

    @staticmethod
    def replayed(
        loaded: Loaded[Any], entries: list[ActionRecord], action: Action
    ) -> tuple[GameState, list[Event]]:
        """The race before the last entry (the standing log without it, from the seed) and
        the events of that entry played again from there (off the event loop)."""
        record = loaded.record
        last = entries[-1].seq
        before = state_after(loaded.game, record.seed, record.config, entries, last - 1)
        _, events = loaded.game.apply(before, action)
        return before, events

    # Marking what was posted ------------------------------------------------------------

    async def strike(self, record: GameRecord, posted: list[int]) -> None:
        """The messages posted for a decision taken back: each marked so (`WITHDRAWN`, its
        images kept), not deleted; one deleted meanwhile is let go."""
        if not posted:
            return
        channel = await self.core.channel_of(record)
        for message_id in posted:
            try:
                message = await channel.fetch_message(message_id)
                if message.content.startswith(TAKEN_BACK):  # (marked before a restart)
                    continue
                await channel.get_partial_message(message_id).edit(
                    content=WITHDRAWN, allowed_mentions=MENTION_NONE
                )
            except (discord.HTTPException, NotPosted) as exc:
                log.info("could not mark message %s as taken back: %s", message_id, exc)

    # After a restart ---------------------------------------------------------------------

    async def recovered(self, loaded: Loaded[Any]) -> bool:
        """At start-up, a race whose undo was stored but not shown (the process stopped
        between the two): its posts marked, the thread told and asked again, as the undo
        would have. False when the race has no undo to show (recovered as after a move)."""
        if self.core.presenter(loaded.record).undo_refused is not None:
            return False
        done = loaded.record.published_seq or 0
        entries = await self.core.store.actions(loaded.id)
        marks = [(e, m) for e in entries if e.seq > done and (m := mark_of(e)) is not None]
        if not any(m.kind == UNDO for _, m in marks):
            return False
        notes = []
        for entry, mark in marks:
            if mark.kind == UNDO:
                await self.strike(loaded.record, withdrawn(loaded.feed, mark.to + 1))
            notes.append(mark_line(mark, name_of(loaded, entry.actor) or "someone"))
        events = await self.moves.recovered_events(loaded)
        await self.moves.advance(loaded, events, key_before=None, notes=notes)
        return True
