"""`/<game> log`: a race's actions in words, replayed from its log (the lines the thread
was shown, so nothing private), in pages with stateless ◀ / ▶."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

import discord

from bot.components import shown
from bot.pages import MESSAGE, numbered_page_of, page_view, pages
from bot.presenter import Loaded
from bot.table.core import MENTION_NONE, InvalidButton
from bot.table.ending import ending
from bot.table.takeback import mark_line
from rules.base import Event
from store.models import GameRecord
from store.undo import REWIND, UNDO, Mark, mark_of, state_after

if TYPE_CHECKING:
    from bot.table.core import TableCore


class Log:
    def __init__(self, core: TableCore) -> None:
        self.core = core

    async def history(self, loaded: Loaded) -> list[tuple[int, str, list[Event]]]:
        """(seq, actor, events) of every action, by replaying the log from the seed (in a
        worker thread: a long race's log takes the event loop too long)."""
        game, record = loaded.game, loaded.record
        actions = await self.core.store.actions(loaded.id)

        def replay() -> list[tuple[int, str, list[Event]]]:
            state = game.new_game(record.seed, record.config)
            out: list[tuple[int, str, list[Event]]] = []
            for i, done in enumerate(actions):
                mark = mark_of(done)
                if mark is not None:  # an undo or a rewind: the race as it was then
                    state = state_after(game, record.seed, record.config, actions[: i + 1], None)
                    if mark.kind == UNDO:  # what the decision showed may tell of a hand
                        out = [
                            (seq, who, [WITHDRAWN])
                            if seq > mark.to and not marked(new)
                            else (seq, who, new)
                            for seq, who, new in out
                        ]
                    told = Event(kind=mark.kind, data={"to": mark.to})
                    out.append((done.seq, done.actor, [told]))
                    continue
                state, new = game.apply(state, game.parse_action(done.action_json))
                out.append((done.seq, done.actor, new))
            return out

        return await asyncio.to_thread(replay)

    async def log_page(
        self, loaded: Loaded, count: int, upto: int, page: int | None = None
    ) -> tuple[str, discord.ui.View | None]:
        """The `count` actions up to `upto` in words: who acted, and what happened (the
        lines the thread was shown, so nothing private), cut into pages within a message;
        page `page` (None: the last, the newest actions) and its ◀ / ▶, which name the
        actions asked for: a page shows the same ones after the race has moved on."""
        who = actor_names(loaded)
        lines = []
        for seq, actor, events in await self.history(loaded):
            if not upto - count < seq <= upto:
                continue
            lines.append(f"`{seq}` {entry_line(who(actor), events)}")
        lines = lines or ["Nothing has been played yet."]
        if upto == loaded.record.seq:  # a log that reaches the end tells how it ended
            lines += self.end_lines(loaded)
        cut = pages(lines, MESSAGE)
        page = len(cut) - 1 if page is None else min(page, len(cut) - 1)
        area = self.core.presenter(loaded.record).area
        return cut[page], page_view(area, loaded.id, f"log-{upto}-{count}", page, len(cut))

    async def log_button(
        self, interaction: discord.Interaction, record: GameRecord, arg: str | None
    ) -> None:
        """◀ / ▶ of a log: the page it names, on the private answer it sits on (only
        there: the log's asker's own message)."""
        found = numbered_page_of(arg, "log", 2)
        message = interaction.message
        if found is None or message is None or not message.flags.ephemeral:
            raise InvalidButton()
        (upto, count), page = found
        if not (1 <= count <= 50 and 0 <= upto <= record.seq):
            raise InvalidButton()
        text, view = await self.log_page(await self.core.load(record.id), count, upto, page)
        await interaction.response.edit_message(
            content=text, view=view, allowed_mentions=MENTION_NONE
        )

    def end_lines(self, loaded: Loaded) -> list[str]:
        """How a game that is over ended, after its last action (none while it is on)."""
        record, noun = loaded.record, self.core.presenter(loaded.record).noun
        if record.status in ("lobby", "running"):
            return []
        if ending(record) == "abandoned":
            return [f"🏳 **This {noun} is over**: it was abandoned here."]
        order = ", ".join(
            f"{p.place}. {shown(loaded.name(p.seat))}"
            + ("" if p.status in ("running", "finished") else f" ({p.status})")
            for p in loaded.game.classification(loaded.state)
        )
        return [f"🏁 **This {noun} is over**: it has finished. Final order: {order}."]


def actor_names(loaded: Loaded) -> Callable[[str], str]:
    """How the log names an entry's actor: a driver, a robot, the bot, or a league admin
    (a person not driving: an admin's rewind)."""
    names = {str(s.user_id): s.name for s in loaded.seats.values() if s.user_id}

    def who(actor: str) -> str:
        kind, _, user = actor.partition(":")
        if actor in names:
            return names[actor]
        if kind in ("timeout", "autopilot") and user in names:
            return f"{names[user]} ({'timed out' if kind == 'timeout' else kind})"
        if kind.isdigit():
            return "a league admin"
        return {"robot": "robot", "forced": "forced", "bot": "the bot"}.get(kind, kind)

    return who


def entry_line(who: str, events: list[Event]) -> str:
    """One log entry in words (without its number): who acted and what it did, or a mark."""
    mark = marked(events)
    if mark is not None:
        return mark_line(mark, who)
    if events == [WITHDRAWN]:
        return f"{shown(who)}: (taken back)"
    said = "; ".join(shown(e.text) for e in events if e.text) or "(no public effect)"
    return f"{shown(who)}: {said}"


# A decision its driver took back, in the log: what it did is not told again.
WITHDRAWN = Event(kind="paddock.withdrawn")


def marked(events: list[Event]) -> Mark | None:
    """The mark a history entry is (its one event), or None for a game's action."""
    if len(events) == 1 and events[0].kind in (UNDO, REWIND):
        return Mark(kind=events[0].kind, to=events[0].data["to"])  # type: ignore[arg-type]
    return None
