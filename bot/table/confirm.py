"""Costly decisions asked first: an action its game says can't be undone and changes the race
(the presenter's `confirmation`: retiring, an RF90 pit stop, a Tactic card that throws the
dice) is not played at once. Its driver gets the game's question, only to them, with Confirm
and Cancel, unless they turned that off (`/games confirm:off`, `UserSettings.confirmations`).

The buttons are stateless like every other (`pd:<area>:<game>:confirm:<seq>.<seat>.<index>`,
and `confirm-no` for Cancel, built and read by one pattern: the sequence number it was asked
at, the seat, the action's place among the seat's legal actions); the action itself waits in
the race's memory (`Race.asked`, by seat, seq and index; a seat's questions of an earlier seq
are dropped when it is asked again). Confirm plays exactly that action, only for that seat's
driver and only if the race has not moved on since (the same seq); after a restart the
memory is gone, and the driver is asked to decide again. Cancel forgets it.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

import discord

from bot.components import button, view_of
from bot.errors import EXPIRED
from bot.posting import edit_source, result
from bot.presenter import Loaded, Presenter
from bot.table.core import MENTION_NONE, InvalidButton
from rules.base import Action
from rules.errors import PaddockError

if TYPE_CHECKING:
    from bot.table.core import TableCore
    from bot.table.moves import Moves

log = logging.getLogger("paddock.table")

CONFIRM = "confirm"
CANCEL = "confirm-no"
ACTIONS = (CONFIRM, CANCEL)
# A question's argument: the sequence number it was asked at, the seat it asks and the
# action's index among that seat's legal actions then.
_ARG = re.compile(
    r"(?P<seq>0|[1-9][0-9]{0,17})\.(?P<seat>0|[1-9][0-9]?)\.(?P<index>0|[1-9][0-9]{0,5})"
)

CONFIRMED = "Confirmed: played."
CANCELLED = "Cancelled: not played, nothing changed."
MOVED_ON = "That decision is no longer open: the race has moved on."
AGAIN = "Please make that decision again."
NOT_YOURS = "This question is for another driver: only they can answer it."


def confirm_arg(seq: int, seat: int, index: int) -> str:
    """The Confirm / Cancel buttons' argument (read back by `parse_confirm_arg`)."""
    arg = f"{seq}.{seat}.{index}"
    if not _ARG.fullmatch(arg):
        raise ValueError(f"bad question {arg!r}")
    return arg


def parse_confirm_arg(arg: str | None) -> tuple[int, int, int] | None:
    """(seq, seat, index) of an argument `confirm_arg` could have made, else None."""
    match = _ARG.fullmatch(arg) if arg is not None else None
    if match is None:
        return None
    return int(match["seq"]), int(match["seat"]), int(match["index"])


class Confirmations:
    def __init__(self, core: TableCore, moves: Moves) -> None:
        self.core = core
        self.moves = moves

    async def asks(
        self, interaction: discord.Interaction, loaded: Loaded, seat: int, action: Action
    ) -> bool:
        """Under the race's lock, just before `action` would be played for `seat` (whose
        driver is the user): True when the driver is asked first instead (the action kept
        for their Confirm), False when it is to be played now."""
        presenter = self.core.presenter(loaded.record)
        question = presenter.confirmation(loaded, seat, action)
        options = loaded.options(seat)
        if question is None or action not in options:  # (not legal: the rules refuse it)
            return False
        mine = await self.core.store.user_settings(interaction.user.id, self.core.clock())
        if not mine.confirmations:
            return False
        seq, index = loaded.record.seq, options.index(action)
        asked = self.core.race(loaded.id).asked
        for key in [k for k in asked if k[0] == seat and k[1] != seq]:
            del asked[key]  # that seat's questions of a race that has moved on since
        asked[(seat, seq, index)] = action
        arg = confirm_arg(seq, seat, index)
        view = view_of(
            button(
                "Confirm", presenter.area, loaded.id, CONFIRM, arg, style=discord.ButtonStyle.danger
            ),
            button("Cancel", presenter.area, loaded.id, CANCEL, arg),
        )
        await _ask(interaction, question, view)
        return True

    async def answer(
        self,
        interaction: discord.Interaction,
        presenter: Presenter,
        game_id: int,
        action: str,
        arg: str | None,
    ) -> None:
        """Confirm or Cancel pressed (the click deferred by the route): checked under the
        race's lock (that seat's driver, the race where it was), then played or forgotten;
        the question is edited into what came of it."""
        parsed = parse_confirm_arg(arg)
        if parsed is None or action not in ACTIONS:
            raise InvalidButton()
        seq, seat, index = parsed
        async with self.core.lock(game_id):
            record = await self.core.record_for_button(interaction, presenter, game_id)
            loaded = await self.core.load(game_id, record=record)
            mine = loaded.human_seat(interaction.user.id)
            if mine is None or mine.seat != seat:
                raise PaddockError(NOT_YOURS)
            chosen = self.core.race(game_id).asked.pop((seat, seq, index), None)
            if action == CANCEL:
                await edit_source(interaction, content=CANCELLED, view=None)
                return
            if record.status != "running" or record.seq != seq:
                await edit_source(interaction, content=MOVED_ON, view=None)
                return
            if chosen is None:  # asked before a restart: the memory is gone
                await edit_source(interaction, content=AGAIN, view=None)
                return
            # The same sequence number is the same race, but a seat handed to the robot or
            # a game's own rule may still have taken the decision from this driver.
            decision = self.core.decision(loaded, presenter, interaction.user.id)
            if decision.seat != seat or chosen not in decision.options:
                await edit_source(interaction, content=MOVED_ON, view=None)
                return
            key_before = presenter.move_key(loaded.state)
            loaded, played = await self.moves.commit(
                loaded, chosen, actor=str(interaction.user.id), human=True
            )
            await edit_source(interaction, content=CONFIRMED, view=None)
            await self.moves.advance(loaded, played.events, key_before=key_before)


async def _ask(interaction: discord.Interaction, question: str, view: discord.ui.View) -> None:
    """The question, only to the driver: a command's private answer, the private message a
    click came from (a hand, a cockpit) edited into it, or a private message of its own for
    a click on the race's public prompt."""
    if interaction.extras.get(EXPIRED):  # Discord took no answer: nothing can be asked
        log.warning("interaction %s expired: its question is not asked", interaction.id)
        return
    if not interaction.response.is_done():
        await interaction.response.send_message(
            question, view=view, ephemeral=True, allowed_mentions=MENTION_NONE
        )
    elif interaction.type is discord.InteractionType.application_command:
        await result(interaction, question, view=view, allowed_mentions=MENTION_NONE)
    elif interaction.message is not None and interaction.message.flags.ephemeral:
        await interaction.edit_original_response(
            content=question, view=view, attachments=[], allowed_mentions=MENTION_NONE
        )
    else:
        await interaction.followup.send(
            question, view=view, ephemeral=True, allowed_mentions=MENTION_NONE
        )
