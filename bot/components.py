"""Stateless buttons that survive restarts (Avrae's pattern).

A button's custom_id names the area, the thing it acts on and the action, e.g.
`pd:league:12:join` or `pd:waddington:7:speed:120`; `PaddockButton` routes it to the handler
the area registered, which loads what it needs from the database.

Every component interaction reaches `PaddockButton`: a custom_id this module would not have
made (another pattern, an empty part, an id padded with zeros or beyond SQLite's integers,
another component type) is refused in one line before any handler sees it, and a handler's
refusal (a PaddockError) is the one line the user gets.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, cast

import discord

from bot.errors import report_error
from rules.errors import PaddockError
from store.errors import in_code as in_code
from store.errors import shown as shown
from store.models import Seat

if TYPE_CHECKING:
    from bot.client import PaddockBot

Handler = Callable[[discord.Interaction, int, str, str | None], Awaitable[None]]

INVALID_BUTTON = "This button is no longer valid."
MAX_REF = 2**63 - 1  # SQLite's INTEGER: no game or league id is larger
# What `custom_id` makes, and all a click may carry: ASCII only, ids without leading zeros.
TEMPLATE = (
    r"pd:(?P<area>[a-z0-9]+):(?P<ref>0|[1-9][0-9]*):(?P<action>[a-z0-9_-]+)"
    r"(?::(?P<arg>[A-Za-z0-9_.-]+))?"
)
_PATTERN = re.compile(TEMPLATE)
# The dynamic item's own template takes every custom_id, so that a forged one gets an answer
# too (discord.py leaves a component interaction nobody matches unanswered).
ANY_CUSTOM_ID = r"(?s).*"


def custom_id(area: str, ref: int, action: str, arg: str | int | None = None) -> str:
    cid = f"pd:{area}:{ref}:{action}" + (f":{arg}" if arg is not None else "")
    if len(cid) > 100 or not _PATTERN.fullmatch(cid) or not 0 <= ref <= MAX_REF:
        raise ValueError(f"bad custom_id {cid!r}")
    return cid


def parse_custom_id(text: str) -> tuple[str, int, str, str | None] | None:
    """(area, id, action, argument) of a custom_id `custom_id` could have made, else None."""
    match = _PATTERN.fullmatch(text) if len(text) <= 100 else None
    if match is None:
        return None
    ref = int(match["ref"])
    if not 0 < ref <= MAX_REF:
        return None
    return match["area"], ref, match["action"], match["arg"]


def button(
    label: str,
    area: str,
    ref: int,
    action: str,
    arg: str | int | None = None,
    *,
    style: discord.ButtonStyle = discord.ButtonStyle.secondary,
    disabled: bool = False,
    emoji: str | None = None,
) -> PaddockButton:
    return PaddockButton(
        area,
        ref,
        action,
        None if arg is None else str(arg),
        label=label,
        style=style,
        disabled=disabled,
        emoji=emoji,
    )


class PaddockButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=ANY_CUSTOM_ID):
    def __init__(
        self,
        area: str,
        ref: int,
        action: str,
        arg: str | None = None,
        *,
        label: str | None = None,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        disabled: bool = False,
        emoji: str | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=style,
                disabled=disabled,
                emoji=emoji,
                custom_id=custom_id(area, ref, action, arg),
            )
        )
        self.area: str | None = area
        self.ref, self.action, self.arg = ref, action, arg

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> PaddockButton:
        # Never raises: discord.py would log it and leave the click unanswered.
        parsed = parse_custom_id(match.string)
        if parsed is None or item.type is not discord.ComponentType.button:
            return cls.forged()
        area, ref, action, arg = parsed
        return cls(area, ref, action, arg, label=getattr(item, "label", None))

    @classmethod
    def forged(cls) -> PaddockButton:
        """The stand-in for a custom_id no Paddock button has: its click is refused."""
        forged = cls("forged", 1, "refuse")
        forged.area = None
        return forged

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = cast("PaddockBot", interaction.client)
        handler = bot.component_routes.get(self.area) if self.area else None
        try:
            if handler is None:  # forged, or an area this bot no longer serves
                raise PaddockError(INVALID_BUTTON)
            await handler(interaction, self.ref, self.action, self.arg)
        except Exception as exc:  # one error path for components too
            await report_error(interaction, exc)


def human_seat(seat: int, user: discord.abc.User) -> Seat:
    """A game seat for a Discord user, named as the server shows them."""
    return Seat(seat=seat, user_id=user.id, name=user.display_name[:32], robot=False)


# discord.py keeps a sent view listening until its timeout, and gives an ephemeral one with
# none 15 minutes: thousands of views held at once in a busy bot. Buttons here are
# DynamicItems routed by custom_id from whatever message was clicked (the view is not
# needed once sent), so a view lets go a moment after it is sent.
SENT_VIEW_TIMEOUT = 1.0


def view_of(*items: discord.ui.Item[Any]) -> discord.ui.View:
    view = discord.ui.View(timeout=SENT_VIEW_TIMEOUT)
    for item in items:
        view.add_item(item)
    return view
