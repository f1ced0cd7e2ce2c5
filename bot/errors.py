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


# Discord's answers for an interaction it no longer takes: its token expired (the 3 s to
# answer, or 15 min for followups, passed), or it was answered already.
UNKNOWN_CHANNEL = 10003
UNKNOWN_WEBHOOK = 10015
UNKNOWN_INTERACTION = 10062
ALREADY_ACKNOWLEDGED = 40060


# Keys of `interaction.extras` (bot/posting.py). THINKING: a public "thinking…" answer not
# yet replaced by the command's result. SAY_FAILURE: a start, whose failure after the answer
# is said where the answer was (the channel), not to its user alone. EXPIRED: see below.
THINKING = "paddock_thinking"
SAY_FAILURE = "paddock_say_failure"
EXPIRED = "paddock_expired"  # Discord took no answer to it (its 3 s passed): none is tried


class NotPosted(PaddockError):
    """Stored, but Discord would not show it (no permission, a deleted thread, a 5xx...):
    the message says in one line what to do (see bot/posting.py)."""

    def __init__(self, message: str, cause: discord.HTTPException | None = None) -> None:
        super().__init__(message)
        self.cause = cause

    @property
    def gone(self) -> bool:
        """The thread or channel itself was deleted (10003 Unknown Channel)."""
        return isinstance(self.cause, discord.NotFound) and self.cause.code == UNKNOWN_CHANNEL


def is_expired(error: BaseException) -> bool:
    """Discord no longer takes an answer to this interaction: telling the user is no use."""
    return isinstance(error, discord.HTTPException) and error.code in (
        UNKNOWN_WEBHOOK,
        UNKNOWN_INTERACTION,
        ALREADY_ACKNOWLEDGED,
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


async def send_ephemeral(
    interaction: discord.Interaction, text: str, *, failure: bool = False
) -> None:
    """`text` to the interaction's user only. A `failure` (not a refusal) of a start
    answered already (SAY_FAILURE) is said in public instead, where the answer was: the
    channel learns that the game it was told of did not start."""
    thinking = interaction.extras.pop(THINKING, False)
    try:
        if failure and interaction.extras.get(SAY_FAILURE) and interaction.response.is_done():
            if thinking:
                await interaction.edit_original_response(
                    content=f"⚠️ {text}", embeds=[], attachments=[], view=None
                )
            else:
                await interaction.followup.send(
                    f"⚠️ {text}", allowed_mentions=discord.AllowedMentions.none()
                )
            return
        if thinking:
            # Discord's first followup would take the place of the public "thinking…"
            # answer, and be public with it: that answer goes, the line comes privately.
            await interaction.delete_original_response()
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
    except discord.HTTPException as exc:
        log.warning("could not tell the user about an error: %s", exc)


async def report_error(interaction: discord.Interaction, error: BaseException) -> None:
    message = user_message(error)
    original = getattr(error, "original", error)
    metrics = getattr(interaction.client, "metrics", None)  # bot/metrics.py
    if metrics is not None:
        metrics.database_error(original)
    where = interaction.command.qualified_name if interaction.command else "component"
    if is_expired(original):
        # Discord gave up on this interaction (answered too late, or twice): a second
        # answer would fail the same way. What was stored stands; the thread shows it.
        log.warning(
            "interaction %s (%s) could not be answered: %s", interaction.id, where, original
        )
        return
    # a refusal has a message for the user; a failure is ours, Discord's or the store's
    failure = message is None or isinstance(original, NotPosted | StoreUnavailable)
    if isinstance(original, NotPosted):
        log.warning("%s: %s (%s)", where, original.message, original.cause)
    elif message is None and isinstance(
        original, discord.Forbidden | discord.NotFound | discord.DiscordServerError
    ):
        # Something a moderator or Discord did (a message or channel gone, a permission
        # taken, an outage), not a bug of ours: one line in the log, one for the user.
        log.warning("Discord refused a call in %s: %s", where, original)
        message = "Discord refused that just now. Please try again shortly."
    if isinstance(original, StoreUnavailable):  # the operator's problem, not the player's
        log.error("store unavailable: %s", original)
        message = STORE_DOWN
    elif message is None:
        log.error("unhandled error in %s", where, exc_info=error)
        message = UNEXPECTED
    else:
        log.debug("refused: %s", message)
    await send_ephemeral(interaction, message, failure=failure)
