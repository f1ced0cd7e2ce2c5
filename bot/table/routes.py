"""A click on a game's button, routed from its stateless custom_id (bot/components.py) to
what it does: a lobby's buttons, a legal action (`act`; a costly one asked first), the answer
to such a question (bot/table/confirm.py), a confirmed abandon or rewind, a log's page, an
undo (`undo`, bot/table/undo.py), or the game's own (its presenter's `on_button`)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord

from bot.components import view_of
from bot.errors import SAY_FAILURE
from bot.posting import defer, think
from bot.presenter import Presenter, TablePort
from bot.table.confirm import ACTIONS as CONFIRM_ACTIONS
from bot.table.core import MENTION_NONE, ROUTED, InvalidButton
from bot.table.rewind import ACTIONS as REWIND_ACTIONS
from rules.errors import PaddockError

if TYPE_CHECKING:
    from bot.table.confirm import Confirmations
    from bot.table.core import TableCore
    from bot.table.life import Life
    from bot.table.lobby import Lobby
    from bot.table.log import Log
    from bot.table.moves import Moves
    from bot.table.rewind import Rewind
    from bot.table.undo import Undos

LOBBY_ACTIONS = ("join", "leave", "start", "cancel", "robot-add", "robot-remove", "colour")


class Routes:
    def __init__(
        self,
        core: TableCore,
        moves: Moves,
        lobby: Lobby,
        life: Life,
        log: Log,
        port: TablePort,
        *,
        rewind: Rewind,
        confirm: Confirmations,
        undos: Undos,
    ) -> None:
        self.core = core
        self.rewind = rewind  # an admin's rewind: its Confirm / Cancel
        self.undos = undos
        self.moves = moves
        self.lobby = lobby
        self.life = life
        self.log = log
        self.port = port  # what a presenter is given (its own buttons)
        self.confirm = confirm  # a costly decision asked first, and its answer

    def router(
        self, presenter: Presenter
    ) -> Callable[[discord.Interaction, int, str, str | None], Awaitable[None]]:
        async def route(
            interaction: discord.Interaction, game_id: int, action: str, arg: str | None
        ) -> None:
            # A move, a lobby's button and a confirmed abandon are answered first: the click
            # waits neither for the database nor for the race's lock (held while the previous
            # move is shown), so a burst costs time in what follows, never a click Discord
            # gives up on; refusals follow as private lines, the lobby or the question is
            # edited through the answer.
            answered = None
            first = presenter.answered_first(action)  # a game's own button (Pit Formula's)
            confirming = action in ("abandon", *REWIND_ACTIONS, *CONFIRM_ACTIONS)
            if action in ("act", "undo") or action in LOBBY_ACTIONS or confirming:
                answered = await defer(interaction)
                if action == "start":  # a start failing after this answer is said in public
                    interaction.extras[SAY_FAILURE] = True
            elif first == "private":
                answered = await think(interaction, ephemeral=True)
            elif first == "update":
                answered = await defer(interaction)
            if action == "act" and arg:  # checked and read under the race's lock, once
                await self.act_button(interaction, presenter, game_id, arg, answered=answered)
                return
            if action in CONFIRM_ACTIONS:  # checked and read under the race's lock, once
                await self.confirm.answer(interaction, presenter, game_id, action, arg)
                return
            if action == "undo" and arg:  # (likewise)
                await self.undos.button(interaction, presenter, game_id, arg)
                return
            record = await self.core.record_for_button(interaction, presenter, game_id)
            interaction.extras[ROUTED] = record
            if action in LOBBY_ACTIONS:
                await self.lobby.lobby_button(interaction, presenter, record.id, action, arg)
            elif action == "abandon":
                await self.life.abandon(interaction, record, confirmed=True)
            elif action in REWIND_ACTIONS:
                await self.rewind.answer(interaction, record, action, arg)
            elif action == "page":
                await self.log.log_button(interaction, record, arg)
            elif not await presenter.on_button(
                self.port, interaction, record.id, action, arg or ""
            ):
                raise InvalidButton()

        return route

    async def act_button(
        self,
        interaction: discord.Interaction,
        presenter: Presenter,
        game_id: int,
        arg: str,
        *,
        answered: bool | None = None,
    ) -> None:
        """`act:<token>.<index>`: the index-th legal action offered when the presenter's
        act token (by default the sequence number) was `token`."""
        token, _, index_text = arg.partition(".")
        if not (token.isalnum() and index_text.isdigit()):
            raise InvalidButton()
        await self.act_index(
            interaction, presenter, game_id, token, int(index_text), answered=answered
        )

    async def act_index(
        self,
        interaction: discord.Interaction,
        presenter: Presenter,
        game_id: int,
        token: str,
        index: int,
        *,
        done: str = "Played.",
        answered: bool | None = None,
    ) -> None:
        """The index-th of the user's legal actions, if the act token still holds; an
        ephemeral message it came from (a hand, a cockpit) is answered with `done`.
        `answered`: the click was deferred already (False: too late for Discord); None:
        it is deferred now, before the race's lock, so a refusal comes as a followup."""
        if answered is None:
            answered = await defer(interaction)
        async with self.core.lock(game_id):
            # The game as it is under the lock, read once: the row (checked as a button's),
            # the seats, this user's legal actions and act token.
            record = await self.core.record_for_button(interaction, presenter, game_id)
            loaded = await self.core.load(game_id, record=record)
            decision = self.core.decision(loaded, presenter, interaction.user.id)
            if token != decision.token:
                raise PaddockError(
                    "That choice is out of date: the race has moved on. Use the newest message."
                )
            options = decision.options
            if not 0 <= index < len(options):
                raise PaddockError("That choice is no longer offered. Use the newest message.")
            if await self.confirm.asks(interaction, loaded, decision.seat, options[index]):
                return  # a costly decision: its driver's Confirm plays it
            # A click Discord no longer took (answered late) still plays: the thread shows it.
            key_before = presenter.move_key(loaded.state)
            # A StaleState (another process acted first) reaches the user as its message.
            before = loaded
            loaded, played = await self.moves.commit(
                loaded, options[index], actor=str(interaction.user.id), human=True
            )
            # The decision may be taken back: its private answer carries an Undo button.
            offer = self.undos.offer(before, loaded, played, decision.seat)
            message = interaction.message
            said: asyncio.Future[Any] | None = None
            # Sent while the robots play on and the activation's pictures are drawn: the
            # thread's pictures do not wait for this answer's round trip.
            if answered and message is not None and message.flags.ephemeral:
                view = view_of(offer.item) if offer else None
                said = asyncio.ensure_future(
                    interaction.edit_original_response(content=done, view=view, attachments=[])
                )
            elif answered and offer is not None:  # a public button: a private answer too
                said = asyncio.ensure_future(
                    interaction.followup.send(
                        f"Played: {offer.text}",
                        view=view_of(offer.item),
                        ephemeral=True,
                        allowed_mentions=MENTION_NONE,
                    )
                )
            if said is not None:
                try:
                    await self.moves.advance(loaded, played.events, key_before=key_before)
                except BaseException:
                    # the race's error is the one to report; this answer's fate is moot
                    said.add_done_callback(lambda task: task.cancelled() or task.exception())
                    raise
                await said
            else:
                await self.moves.advance(loaded, played.events, key_before=key_before)
