"""Posting to a race's thread or channel through what Discord and moderators do to it.

Every move is stored before anything is posted (the store's rule), so a post that fails
loses nothing: the race is right in the database and `/<game> status` (or a restart) shows
it. What a failed post needs is an answer fit for the players, and no ERROR in the log for
faults that are part of running in a server:

- a thread archived (by Discord after a quiet spell, or by a moderator) is reopened and the
  post sent again; a locked one (only a moderator may reopen it) is said in one line;
- without Attach Files the text goes without its images, with one line asking for it;
- without Send Messages (in threads), a thread or channel deleted, or Discord failing (5xx
  after discord.py's own retries): `NotPosted`, a `PaddockError` whose one-line message
  says what to do; a player's interaction shows it to them only (the table's error path),
  a timer logs it as a WARNING;
- a message deleted by a moderator (404 Unknown Message) stays `discord.NotFound` for the
  caller, who posts a new one where it matters (a prompt) or lets it go (stripping buttons).

`PostChannel` wraps the channel `Table.channel_of` returns, so the games' cogs get this
behaviour from their plain `channel.send(...)` and `get_partial_message(...).edit(...)`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import discord

from bot.errors import EXPIRED, SAY_FAILURE, THINKING, NotPosted, is_expired

log = logging.getLogger("paddock.posting")

T = TypeVar("T")

UNKNOWN_CHANNEL = 10003
UNKNOWN_MESSAGE = 10008
MISSING_PERMISSIONS = 50013
MISSING_ACCESS = 50001
THREAD_ARCHIVED = 50083


def place_of(channel: Any) -> str:
    return "thread" if isinstance(channel, discord.Thread) else "channel"


def no_images_line(channel: Any) -> str:
    return f"I can't post images in this {place_of(channel)}: give me Attach Files."


def not_posted(
    exc: discord.HTTPException, channel: Any, status_command: str, *, place: str | None = None
) -> NotPosted:
    """The one line a player gets when a post failed for good."""
    place = place or place_of(channel)
    if isinstance(exc, discord.Forbidden) and exc.code in (MISSING_PERMISSIONS, MISSING_ACCESS):
        perm = "Send Messages in Threads" if place == "thread" else "Send Messages"
        text = f"I can't post in this {place}: give me {perm}, then use `{status_command}`."
    elif isinstance(exc, discord.NotFound) and exc.code == UNKNOWN_CHANNEL:
        text = f"This race's {place} was deleted; I can't post in it."
    elif exc.code == THREAD_ARCHIVED:
        text = (
            "This race's thread is archived and locked: a moderator can unlock it, then use "
            f"`{status_command}`."
        )
    elif exc.status >= 500:
        text = f"Discord failed to post this. Use `{status_command}` in a minute to show it."
    else:
        text = f"Discord refused this post ({exc.status}). Use `{status_command}` to show it."
    return NotPosted(f"Saved, but not shown: {text}", exc)


async def unarchive(channel: Any) -> bool:
    """Reopen an archived thread; False when it cannot be (locked, no permission)."""
    if not isinstance(channel, discord.Thread):
        return False
    if channel.locked:  # a moderator's lock: Manage Threads could lift it, the bot will not
        return False
    try:
        await channel.edit(archived=False)
    except discord.HTTPException as exc:
        log.warning("could not reopen archived thread %s: %s", channel.id, exc)
        return False
    log.info("reopened archived thread %s", channel.id)
    return True


def _has_files(kwargs: dict[str, Any]) -> bool:
    return bool(kwargs.get("file") or kwargs.get("files") or kwargs.get("attachments"))


async def through_faults(
    channel: Any,
    post: Callable[..., Awaitable[T]],
    content: str | None,
    kwargs: dict[str, Any],
    *,
    status_command: str,
    edit: bool = False,
) -> T:
    """`post(content=..., **kwargs)`, again after reopening an archived thread or without
    the files if Attach Files is missing (an edit without `content` keeps its text); raises
    `NotPosted` when it cannot be shown, `discord.NotFound` for a deleted message."""
    reopened = text_only = False
    while True:
        try:
            done = await post(content=content, **kwargs)
        except discord.HTTPException as exc:
            if exc.code == THREAD_ARCHIVED and not reopened:
                reopened = True
                if await unarchive(channel):
                    continue
            elif (
                isinstance(exc, discord.Forbidden)
                and exc.code == MISSING_PERMISSIONS
                and _has_files(kwargs)
            ):
                # Attach Files is missing (or Send Messages too: the text alone tells which)
                text_only = True
                kwargs = {k: v for k, v in kwargs.items() if k not in ("file", "files")}
                if "attachments" in kwargs:
                    kwargs["attachments"] = []  # an edit: its old pictures go too
                line = no_images_line(channel)
                if content:
                    content = f"{content}\n{line}"
                elif not edit:
                    content = line
                continue
            elif isinstance(exc, discord.NotFound) and exc.code == UNKNOWN_MESSAGE:
                raise  # a deleted message: the caller decides
            if isinstance(exc, discord.Forbidden | discord.NotFound | discord.DiscordServerError):
                raise not_posted(exc, channel, status_command) from exc
            if exc.code == THREAD_ARCHIVED:
                raise not_posted(exc, channel, status_command) from exc
            raise
        if text_only:
            log.warning("no Attach Files in %s %s: text only", place_of(channel), channel.id)
        return done


class PostMessage:
    """A message of the race's channel (`get_partial_message`), edited through the faults."""

    def __init__(self, channel: PostChannel, message: Any) -> None:
        self._channel = channel
        self._message = message

    def __getattr__(self, name: str) -> Any:
        return getattr(self._message, name)

    async def edit(self, content: Any = discord.utils.MISSING, **kwargs: Any) -> Any:
        given = content is not discord.utils.MISSING

        async def post(content: Any, **kw: Any) -> Any:
            if content is None and not given:
                return await self._message.edit(**kw)  # the text stays as it is
            return await self._message.edit(content=content, **kw)

        return await through_faults(
            self._channel.raw,
            post,
            content if given else None,
            kwargs,
            status_command=self._channel.status_command,
            edit=True,
        )


class PostChannel:
    """The race's thread or channel: `send` and message edits go through the faults; the
    rest (`id`, `mention`, `jump_url`...) is the channel's own."""

    def __init__(self, channel: Any, *, status_command: str) -> None:
        self.raw = channel
        self.status_command = status_command

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)

    async def send(self, content: Any = None, **kwargs: Any) -> discord.Message:
        return await through_faults(
            self.raw, self.raw.send, content, kwargs, status_command=self.status_command
        )

    def get_partial_message(self, message_id: int) -> PostMessage:
        return PostMessage(self, self.raw.get_partial_message(message_id))


# Interactions Discord no longer takes ---------------------------------------------------


async def defer(interaction: discord.Interaction, **kwargs: Any) -> bool:
    """Acknowledge a click; False when Discord no longer takes it (10062: answered after its
    3 s). The click still counts: what it does is stored and shown in the thread as if it
    had been acknowledged, so the outcome does not depend on the answer arriving."""
    try:
        await interaction.response.defer(**kwargs)
    except discord.HTTPException as exc:
        if not is_expired(exc):
            raise
        log.warning("interaction %s expired before it was acknowledged: %s", interaction.id, exc)
        interaction.extras[EXPIRED] = True  # a second answer would fail the same way
        return False
    return True


async def think(
    interaction: discord.Interaction, *, ephemeral: bool = False, starting: bool = False
) -> bool:
    """Answer a command (or a button whose result is a new message) at once with Discord's
    "thinking…", before its first store write, lock or image: a burst of commands then
    costs time in their results, never an interaction Discord gives up on. The result
    follows with `result`; a refusal found meanwhile comes privately, and (`starting`: the
    command opens or starts a game) a failure is said in public (bot/errors.py). False when
    Discord no longer takes the answer: the command goes on, its result is posted."""
    if starting:
        interaction.extras[SAY_FAILURE] = True
    answered = await defer(interaction, thinking=True, ephemeral=ephemeral)
    if answered and not ephemeral:
        interaction.extras[THINKING] = True
    return answered


async def result(
    interaction: discord.Interaction,
    content: str | None = None,
    *,
    channel: Any = None,
    **kwargs: Any,
) -> discord.Message | None:
    """The result of a command `think` answered: the "thinking…" message edited into it (the
    command's own message, which a thread can start from; an edit pings nobody). When that
    answer did not reach Discord (or its token expired), posted in `channel` instead, as
    what the command made must be announced; without `channel` (a private result), dropped."""
    if interaction.response.is_done() and not interaction.extras.get(EXPIRED):
        try:
            message = await interaction.edit_original_response(content=content, **kwargs)
        except discord.HTTPException as exc:
            if not is_expired(exc):
                raise
            log.warning("interaction %s expired: its result goes to the channel", interaction.id)
        else:
            interaction.extras.pop(THINKING, None)
            return message
    if channel is None:
        return None
    return await channel.send(content, **kwargs)


async def edit_source(interaction: discord.Interaction, **kwargs: Any) -> None:
    """Edit the message a button sits on: by answering the click (or, the click deferred
    already, through its answer), or, when Discord no longer takes that answer, by editing
    the message itself (a public one: the bot's own)."""
    message = interaction.message
    if not interaction.extras.get(EXPIRED):
        try:
            if interaction.response.is_done():
                await interaction.edit_original_response(**kwargs)
            else:
                await interaction.response.edit_message(**kwargs)
            return
        except discord.HTTPException as exc:
            if not is_expired(exc) or message is None or message.flags.ephemeral:
                raise
    elif message is None or message.flags.ephemeral:
        log.warning("interaction %s expired: its private message stays", interaction.id)
        return
    log.warning("interaction %s expired: editing its message instead", interaction.id)
    await message.edit(**kwargs)
