"""The mixed load's view of the fake Discord (paddock_tools/bench_mixed.py): every interaction
a simulated user sends, timed from its dispatch to its first answer and to what it shows its
user, and every game's place with its newest prompt, read from the fake's calls as they come.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import time
from collections.abc import Iterator
from typing import Any

DEADLINE_S = 3.0  # Discord's: an interaction not answered by then fails for its user
WAIT_S = 30.0  # how long a simulated user waits for an answer or a prompt before giving up
KEEP_S = 2 * WAIT_S  # what the fake and the users keep of older interactions is let go
KEEP_PER_CHANNEL = 8  # a channel's newest messages are kept however old


@dataclasses.dataclass
class Sent:
    """One interaction a simulated user sent, and what the fake Discord saw of it."""

    kind: str
    at: float
    what: str  # the button's custom_id or the command, for the report of one never answered
    answered: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)
    answer_at: float | None = None
    answer_type: int | None = None  # the callback's type: 4 message, 5/6 deferred, 7 update
    message: dict[str, Any] | None = None  # the message the answer made or edited
    done_at: float | None = None
    # What the user saw of it: the answer's message, or the deferred answer's content when
    # it came (a "thinking" answer edited); a refusal after a deferred click (an ephemeral
    # followup) shows too, and marks it refused.
    shown: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)
    shown_at: float | None = None
    shown_message: dict[str, Any] | None = None  # the message it showed first
    refused: bool = False

    def show(self, at: float, message: dict[str, Any] | None, *, refused: bool = False) -> None:
        if self.shown_at is None:
            self.shown_at, self.shown_message = at, message
        self.refused = self.refused or refused
        self.shown.set()


@dataclasses.dataclass(slots=True)
class Timing:
    """What the report needs of an interaction once its user is long done with it."""

    kind: str
    at: float
    answer_at: float | None
    what: str  # kept only for one answered late or never


def _walk(components: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for component in components:
        yield component
        yield from _walk(component.get("components") or [])


def has_button(message: dict[str, Any] | None, custom_id: str) -> bool:
    """Whether the message (as the fake holds it) shows this button."""
    components = (message or {}).get("components") or []
    return any(c.get("custom_id") == custom_id for c in _walk(components))


def _what(payload: dict[str, Any]) -> str:
    data = payload.get("data") or {}
    if "custom_id" in data:
        return str(data["custom_id"])
    names, options = [str(data.get("name"))], data.get("options") or []
    while options and options[0].get("type") in (1, 2):  # subcommand (group)
        names.append(str(options[0]["name"]))
        options = options[0].get("options") or []
    return "/" + " ".join(names)


@dataclasses.dataclass
class Place:
    """A game's thread or channel: the newest call there carrying its prompt's buttons."""

    prefix: str  # custom_id prefix of the prompt's buttons
    suffix: str = ""  # ... and suffix, for a place awaited (its channel not known yet)
    prompt: dict[str, Any] | None = None
    prompt_at: float = 0.0
    prompted: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)

    def shows(self, custom_id: str) -> bool:
        """Whether the prompt as the fake holds it has this button. (A user clicks only what
        a message shows: discord.py drops, unanswered, a click on a button the message no
        longer has, e.g. the race message of a race just over, before the next is posted.)"""
        return has_button(self.prompt, custom_id)


class Watch:
    """Reads the fake Discord's calls as they come (timed by the fake as it received them):
    each interaction's first answer, and each game's prompts. What the fake keeps is let go
    once no one can need it (the calls read, the images, the gateway frames sent,
    interactions and messages minutes old), so that this process stays small over a long
    run."""

    def __init__(self, fd: Any) -> None:
        self.fd, self.backend = fd, fd.backend
        self.by_token: dict[str, Sent] = {}
        self.timings: list[Timing] = []  # of the interactions let go
        self.places: dict[int, Place] = {}
        self.awaited: list[Place] = []  # new games' places, their thread not yet known
        self.http_errors: dict[str, int] = {}
        # lobbies posted (game id -> its message), until their users take them
        self._lobbies: dict[int, dict[str, Any]] = {}
        self._lobby_posted: collections.defaultdict[int, asyncio.Event] = collections.defaultdict(
            asyncio.Event
        )
        self._tokens: collections.deque[tuple[float, str, Sent]] = collections.deque()
        self._posted: dict[int, collections.deque[tuple[float, int]]] = {}  # per channel

    async def dispatch(self, payload: dict[str, Any], kind: str) -> Sent:
        """The interaction sent to the bot over the gateway, as Discord sends it."""
        self.backend.register_interaction(payload)
        sent = Sent(kind, time.perf_counter(), what=_what(payload))
        self.by_token[payload["token"]] = sent
        self._tokens.append((sent.at, payload["token"], sent))
        await self.fd.push("INTERACTION_CREATE", payload)
        return sent

    def poll(self) -> None:
        calls = self.backend.calls
        count = len(calls)
        for call in calls[:count]:
            self._see(call)
            call.files.clear()
        del calls[:count]
        self.backend.attachments.clear()
        self.fd.dispatched.clear()  # kept for a RESUME; the bench drops no connection
        for session in self.fd.sessions.values():
            session.sent.clear()
        self._let_go(time.perf_counter() - KEEP_S)

    def _let_go(self, before: float) -> None:
        """Interactions sent before `before` (their users gave up waiting long ago) and the
        channels' messages posted then, but a channel's last few (a race message or a prompt
        the bot may still edit): Discord keeps those, not the bot's process. An edit of a
        message let go would show as a 404 in `http_errors`."""
        while self._tokens and self._tokens[0][0] < before:
            _, token, sent = self._tokens.popleft()
            self.backend.interactions.pop(token, None)
            self.by_token.pop(token, None)
            self.timings.append(_timing(sent))
        for posted in self._posted.values():
            while len(posted) > KEEP_PER_CHANNEL and posted[0][0] < before:
                self.backend.messages.pop(posted.popleft()[1], None)

    def all_timings(self) -> list[Timing]:
        """Every interaction sent, in order."""
        return [*self.timings, *(_timing(sent) for _, _, sent in self._tokens)]

    def _see(self, call: Any) -> None:
        path = call.path
        parts = path.split("/")
        if call.method == "POST" and call.status < 400 and call.message is not None:
            # a message made: a channel's, an interaction's answer or a follow-up
            posted = self._posted.setdefault(int(call.message["channel_id"]), collections.deque())
            posted.append((call.at, int(call.message["id"])))
        if call.status >= 400:
            key = f"{call.status} {call.method} /{parts[1]}"
            self.http_errors[key] = self.http_errors.get(key, 0) + 1
        if parts[1] == "interactions" and len(parts) > 3:
            sent = self.by_token.get(parts[3])
            if sent is not None and sent.answer_at is None:
                sent.answer_at, sent.message = call.at, call.message
                sent.answer_type = int((call.json or {}).get("type") or 0)
                sent.answered.set()
                if sent.answer_type in (4, 7):
                    # a message as the answer: private, a refusal; public, a command's result
                    private = bool(int((call.message or {}).get("flags") or 0) & 64)
                    sent.show(call.at, call.message, refused=sent.answer_type == 4 and private)
        elif parts[1] == "webhooks" and len(parts) > 3 and call.status < 400:
            sent = self.by_token.get(parts[3])
            if sent is not None and call.message is not None:
                followup = call.method == "POST" and len(parts) == 4
                if followup and int(call.message.get("flags") or 0) & 64:
                    sent.show(call.at, call.message, refused=True)
                elif followup or (call.method == "PATCH" and parts[-1] == "@original"):
                    sent.show(call.at, call.message)  # a deferred answer's result
        elif parts[1] == "channels" and len(parts) > 3 and parts[3] == "messages":
            if call.method == "POST" and call.status < 400 and call.message is not None:
                self._lobby(call)
            place = self.places.get(int(parts[2])) or self._found(int(parts[2]), call)
            if (
                place is not None
                and call.status < 400
                and call.message is not None
                and any(c.startswith(place.prefix) for c in call.custom_ids)
            ):
                place.prompt, place.prompt_at = call.message, call.at
                place.prompted.set()

    def _lobby(self, call: Any) -> None:
        """A race's lobby posted (its Join button names the game)."""
        for custom_id in call.custom_ids:
            parts = custom_id.split(":")
            if parts[:2] in (["pd", "f1"], ["pd", "rf90"]) and parts[-1] == "join":
                self._lobbies[int(parts[2])] = call.message
                self._lobby_posted[int(parts[2])].set()

    async def lobby(self, gid: int) -> dict[str, Any] | None:
        """Game `gid`'s lobby message once posted (taken: asked once a game), or None."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._lobby_posted[gid].wait(), WAIT_S)
        self._lobby_posted.pop(gid, None)
        return self._lobbies.pop(gid, None)

    def _found(self, channel: int, call: Any) -> Place | None:
        """An awaited place whose buttons this message carries, now known by its channel."""
        for place in self.awaited:
            if call.status < 400 and any(
                c.startswith(place.prefix) and c.endswith(place.suffix) for c in call.custom_ids
            ):
                self.awaited.remove(place)
                self.places[channel] = place
                return place
        return None

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            self.poll()
            await asyncio.sleep(0.005)
        self.poll()


def _timing(sent: Sent) -> Timing:
    late = sent.answer_at is None or sent.answer_at - sent.at > DEADLINE_S
    return Timing(sent.kind, sent.at, sent.answer_at, sent.what if late else "")
