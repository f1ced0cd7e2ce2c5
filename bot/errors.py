"""One error path for commands and components.

Users see a short ephemeral message (what went wrong, what to do); operators see the
traceback in the log. A PaddockError (IllegalAction included) shows the message it carries.
"""

from __future__ import annotations

import logging

import discord
from discord import app_commands

from rules.errors import PaddockError
from store.errors import StoreUnavailable

log = logging.getLogger("paddock.errors")

UNEXPECTED = "Something went wrong on our side and it has been logged. Please try again shortly."
STORE_DOWN = (
    "I can't write to my database right now, so nothing was changed. Please try again in a "
    "few minutes; if it keeps happening, tell the server's admins."
)


class NotAdmin(app_commands.CheckFailure):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def user_message(error: BaseException) -> str | None:
    """The message a user should see for this error, or None when it is our fault."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    if isinstance(error, PaddockError):
        return error.message
    if isinstance(error, NotAdmin):
        return error.message
    if isinstance(error, app_commands.TransformerError):
        typed = str(error.value).replace("`", "ˋ")  # kept inside its code span
        return f"`{typed}` is not a value I can use here; pick one from the list offered."
    if isinstance(error, app_commands.NoPrivateMessage):
        return "This command works in a server, not in direct messages."
    if isinstance(error, app_commands.CommandOnCooldown):
        return f"Slow down: try again in {error.retry_after:.0f} s."
    if isinstance(error, app_commands.MissingPermissions | app_commands.BotMissingPermissions):
        return str(error)
    if isinstance(error, app_commands.CheckFailure):
        return "You can't use this command here."
    return None


async def send_ephemeral(interaction: discord.Interaction, text: str) -> None:
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
    except discord.HTTPException:
        log.warning("could not tell the user about an error", exc_info=True)


async def report_error(interaction: discord.Interaction, error: BaseException) -> None:
    message = user_message(error)
    original = getattr(error, "original", error)
    if isinstance(original, StoreUnavailable):  # the operator's problem, not the player's
        log.error("store unavailable: %s", original)
        message = STORE_DOWN
    elif message is None:
        where = interaction.command.qualified_name if interaction.command else "component"
        log.error("unhandled error in %s", where, exc_info=error)
        message = UNEXPECTED
    else:
        log.debug("refused: %s", message)
    await send_ephemeral(interaction, message)
