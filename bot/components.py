"""Stateless buttons that survive restarts (Avrae's pattern).

A button's custom_id names the area, the thing it acts on and the action, e.g.
`pd:league:12:join` or `pd:waddington:7:speed:120`; `PaddockButton` routes it to the handler
the area registered, which loads what it needs from the database.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord

from bot.errors import report_error
from rules.errors import PaddockError
from store.models import Seat

if TYPE_CHECKING:
    from bot.client import PaddockBot

Handler = Callable[[discord.Interaction, int, str, str | None], Awaitable[None]]

INVALID_BUTTON = "This button is no longer valid."
TEMPLATE = (
    r"pd:(?P<area>[a-z0-9]+):(?P<ref>\d+):(?P<action>[a-z0-9_-]+)(?::(?P<arg>[A-Za-z0-9_.-]+))?"
)


def custom_id(area: str, ref: int, action: str, arg: str | int | None = None) -> str:
    cid = f"pd:{area}:{ref}:{action}" + (f":{arg}" if arg is not None else "")
    if len(cid) > 100 or not re.fullmatch(TEMPLATE, cid):
        raise ValueError(f"bad custom_id {cid!r}")
    return cid


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


class PaddockButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=TEMPLATE):
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
        self.area, self.ref, self.action, self.arg = area, ref, action, arg

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Button[Any],
        match: re.Match[str],
    ) -> PaddockButton:
        return cls(
            match["area"], int(match["ref"]), match["action"], match["arg"], label=item.label
        )

    async def callback(self, interaction: discord.Interaction) -> None:
        bot: PaddockBot = interaction.client  # type: ignore[assignment]
        handler = bot.component_routes.get(self.area)
        try:
            if handler is None:  # forged, or an area this bot no longer serves
                raise PaddockError(INVALID_BUTTON)
            await handler(interaction, self.ref, self.action, self.arg)
        except Exception as exc:  # one error path for components too
            await report_error(interaction, exc)


def human_seat(seat: int, user: discord.abc.User) -> Seat:
    """A game seat for a Discord user, named as the server shows them."""
    return Seat(seat=seat, user_id=user.id, name=user.display_name[:32], robot=False)


def view_of(*items: discord.ui.Item[Any]) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return view
