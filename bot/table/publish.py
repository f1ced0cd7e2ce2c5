"""Publishing a race: what its thread is told after each action.

A move completed gets its board (or, in RF90, one message per section activation with its
pictures) and a new prompt pinging the seats to act; a step of the move under way edits the
prompt; a superseded prompt loses its buttons and gives its steps back to the move's message
(bot/feed.py keeps those lines with the game); the finish gets the classification and the
league points. Images are drawn off the event loop (`draw`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.components import shown, view_of
from bot.errors import NotPosted
from bot.feed import MESSAGE_LIMIT, Feed, clip, split
from bot.league_site import race_link
from bot.league_wrapup import wrap_up
from bot.limits import MESSAGE
from bot.presenter import Frame, Loaded
from bot.table.core import MENTION_NONE, draw, images, mention_only
from rules.base import Event
from rules.championship import places_among_members
from store import play

if TYPE_CHECKING:
    from bot.table.core import TableCore

log = logging.getLogger("paddock.table")


class Publisher:
    def __init__(self, core: TableCore) -> None:
        self.core = core

    async def send_lines(
        self,
        channel: Any,
        lines: list[str],
        fallback: str,
        posted: list[int] | None = None,
        **kwargs: Any,
    ) -> discord.Message:
        """`lines` in as many messages as they take (none is cut by Discord's 2,000
        characters), the last with `kwargs` (files, a view); `fallback` when there are none.
        `posted`: each message's id is added to it (the feed's record of an action)."""
        runs = split(lines) or [[fallback]]
        sent = [
            await channel.send(clip("\n".join(run)), allowed_mentions=MENTION_NONE)
            for run in runs[:-1]
        ]
        sent.append(await channel.send(clip("\n".join(runs[-1])), **kwargs))
        if posted is not None:
            posted += [m.id for m in sent]
        return sent[-1]

    async def post_frames(
        self,
        loaded: Loaded,
        events: list[Event],
        head: list[str],
        *,
        frames: list[Frame] | None = None,
        posted: bool = False,
    ) -> tuple[list[Event], list[str]]:
        """One message per frame (an RF90 section activation), its lines and pictures, the
        old prompt stripped first (unless `posted` frames did); `head` opens the first.
        Without `frames`, the pending ones, and the thread counts as up to date with them.
        Returns the events no message told and `head` if no frame was shown. The next
        frame is drawn while one is sent."""
        presenter = self.core.presenter(loaded.record)
        record = loaded.record
        pending = frames is None
        frames = self.core.race(record.id).take_frames() if frames is None else frames
        loaded.feed.shown_for(record.seq)  # (what an undo of it marks as taken back)
        # Frames the race's settings skip lend their lines to the next one shown; those of
        # skipped frames at the end stay with the events the caller tells in words. Each
        # message shown names its frame, whatever an earlier message said (its caption).
        shown_frames: list[tuple[Frame, list[str]]] = []
        carried: list[str] = []
        for frame in frames:
            own = presenter.event_lines(frame.events)
            if presenter.frame_shown(loaded, frame):
                shown_frames.append((frame, [*carried, *presenter.frame_caption(frame), *own]))
                carried = []
            else:
                carried += own
        told = frames[: frames.index(shown_frames[-1][0]) + 1] if shown_frames else []
        ahead = None
        if shown_frames:  # drawn while the old prompt is stripped
            ahead = asyncio.ensure_future(draw(presenter.frame_images(loaded, shown_frames[0][0])))
        try:
            channel = await self.core.channel_of(record)
            if not posted:
                await self.strip_prompt(channel, record.prompt_message_id, loaded.feed)
            for index, (_, lines) in enumerate(shown_frames):
                assert ahead is not None
                files = await ahead
                if index + 1 < len(shown_frames):  # drawn while this one is sent
                    following = presenter.frame_images(loaded, shown_frames[index + 1][0])
                    ahead = asyncio.ensure_future(draw(following))
                chunk = [*head, *lines]
                head = []
                summary = presenter.summary(loaded)
                await self.send_lines(
                    channel,
                    chunk,
                    summary,
                    loaded.feed.last_posted,
                    files=files,
                    allowed_mentions=MENTION_NONE,
                )
        finally:
            if ahead is not None:
                ahead.cancel()  # a send that failed leaves no drawing behind
        if pending:  # a restart from here must not post these again
            feed = loaded.feed.model_dump()
            await self.core.store.update_game(record.id, published_seq=record.seq, feed=feed)
        pictured = {id(e) for frame in told for e in frame.events}
        return [e for e in events if id(e) not in pictured], head

    async def strip_prompt(
        self, channel: Any, message_id: int | None, feed: Feed | None = None
    ) -> None:
        """A superseded prompt loses its buttons (it may have been deleted: no matter), and
        with its `feed`, the move's steps it showed (the move's message tells them): it
        keeps the lines it opened with."""
        if message_id is None:
            return
        content = {"content": feed.base} if feed is not None and feed.base is not None else {}
        if feed is not None:
            feed.base, feed.opening = None, []
        try:
            await channel.get_partial_message(message_id).edit(view=None, **content)
        except (discord.HTTPException, NotPosted) as exc:  # its buttons answer "out of date"
            log.info("could not strip the old prompt %s: %s", message_id, exc)

    async def publish(
        self,
        loaded: Loaded,
        events: list[Event],
        *,
        key_before: Any,
        start: bool = False,
        notes: list[str] | None = None,
        posted: bool = False,
    ) -> None:
        """Tell the thread what `events` did and ask the seats to act: a step of the move
        under way edits its prompt, a move completed gets its board (or pictures) and a new
        prompt. `key_before`: the move key before the action (None: a new prompt all the
        same, e.g. `/<game> status`). `posted`: pictures of this move's activations were
        already posted (advance), so this is no sub-step and the old prompt is stripped."""
        presenter = self.core.presenter(loaded.record)
        record, state, feed = loaded.record, loaded.state, loaded.feed
        feed.shown_for(record.seq)  # (what an undo of it marks as taken back)
        channel = await self.core.channel_of(record)
        frames = self.core.race(record.id).take_frames()
        pictured = bool(frames) or posted
        terminal = loaded.game.is_terminal(state)
        key = presenter.move_key(state)
        # The feed's steps are of the move under way (or of a game older than the feed).
        ongoing = not terminal and feed.key in (None, Feed.key_of(key))
        # A simultaneous pick still under way: what its picks did waits for the last one.
        held = ongoing and not frames and presenter.holds_lines(state)
        said = [*(notes or [])]
        if start:
            said = [*presenter.start_lines(loaded), *said]
        sub_step = (
            key_before is not None
            and key == key_before
            and ongoing
            and record.prompt_message_id is not None
            and not pictured
        )
        head = said if sub_step or held else [*feed.take_steps(), *said]
        if frames:
            events, head = await self.post_frames(
                loaded, events, head, frames=frames, posted=posted
            )
        told = presenter.event_lines(events)
        if held:
            feed.add_steps(key, told)
            told = []
        lines = [*head, *told]
        if terminal:
            if not pictured:
                await self.strip_prompt(channel, record.prompt_message_id, feed)
                boards = images(presenter.board(self.core.seen(loaded), None))
                files = await draw(boards)
                summary = presenter.summary(loaded)
                await self.send_lines(
                    channel, lines, summary, files=files, allowed_mentions=MENTION_NONE
                )
            elif lines:  # the last frame showed the finish; what followed it, in words
                await self.send_lines(channel, lines, "", allowed_mentions=MENTION_NONE)
            self.core.forget(record.id)
            await self.post_finish(loaded, channel)
            await self.core.store.update_game(
                record.id, published_seq=record.seq, prompt_message_id=None, feed={}
            )
            self.core.keep_race_log(record)  # for the league site's race page
            return
        prompt = presenter.prompt(
            loaded, presenter.waiting_seats(state), await self.core.deadline(loaded)
        )
        if sub_step:
            # A step of the same move: the prompt is edited, no new board.
            assert record.prompt_message_id is not None  # a sub-step edits the prompt there is
            if held:
                feed.opening += lines  # said in public, not a pick (none so far)
            else:
                feed.add_steps(key, lines)
            steps = [] if held else feed.steps
            text = "\n".join([*feed.opening, *steps, prompt.content])
            if len(text) <= MESSAGE_LIMIT:  # else a new message below tells the steps
                try:
                    await channel.get_partial_message(record.prompt_message_id).edit(
                        content=text,
                        view=view_of(*prompt.items[:25]),
                        attachments=await draw(prompt.images),
                        allowed_mentions=MENTION_NONE,
                    )
                except discord.NotFound:
                    log.info("prompt of game %s was deleted; posting a new one", record.id)
                else:
                    feed.base = "\n".join([*feed.opening, prompt.content])
                    await self.core.store.update_game(
                        record.id, published_seq=record.seq, feed=feed.model_dump()
                    )
                    return
            lines = [] if held else feed.take_steps()  # (told below: posted for it)
        if not pictured:  # stripped before the frames
            await self.strip_prompt(channel, record.prompt_message_id, feed)
        boards = (
            []
            if pictured
            else images(presenter.board(self.core.seen(loaded), presenter.acting_seat(state)))
        )
        # The board and the prompt's images are drawn at once (Pillow lets go of the GIL).
        board_files, prompt_files = await asyncio.gather(draw(boards), draw(prompt.images))
        told_any = False
        try:
            if board_files:  # the prompt below says where the race stands
                summary = presenter.summary(loaded)
                await self.send_lines(
                    channel,
                    lines,
                    summary,
                    feed.last_posted,
                    files=board_files,
                    allowed_mentions=MENTION_NONE,
                )
                told_any, lines = True, []
            if boards:
                self.core.race(record.id).last_board = state
            # Without a board the lines open the prompt itself (no message of a lone line);
            # what the prompt cannot hold goes before it.
            runs = split([*lines, prompt.content])
            for run in runs[:-1]:
                sent = await channel.send(clip("\n".join(run)), allowed_mentions=MENTION_NONE)
                feed.last_posted.append(sent.id)
                told_any = True
            opening = runs[-1][:-1]
            message = await channel.send(
                clip("\n".join(runs[-1])),
                view=view_of(*prompt.items[:25]),
                files=prompt_files,
                # nobody away or in their quiet hours is pinged (bot/availability.py)
                allowed_mentions=mention_only(
                    *(u for u in prompt.pings if u not in self.core.race(record.id).silent)
                ),
            )
        except NotPosted:
            # Not shown: this action's events are replayed from the log when it is shown
            # (published_seq stays behind); what was said besides them waits in the feed.
            if not told_any and said:
                kept = Feed.model_validate(record.feed)
                kept.steps += said
                await self.core.store.update_game(record.id, feed=kept.model_dump())
            raise
        # (its text is what it was sent with, until a step edits it: then `base`)
        feed.key, feed.opening, feed.base = Feed.key_of(key), opening, None
        feed.last_posted.append(message.id)
        await self.core.store.update_game(
            record.id,
            published_seq=record.seq,
            prompt_message_id=message.id,
            feed=feed.model_dump(),
        )

    async def post_finish(self, loaded: Loaded, channel: Any) -> None:
        presenter = self.core.presenter(loaded.record)
        lines, image = presenter.finish(loaded)
        record = loaded.record
        if not record.results_recorded and record.league_id is not None:
            # play.act records them with the finishing action; this is a safety net.
            await play.record_finish(self.core.store, record.id, loaded.game, loaded.state)
        # The league's points and link after the presenter's lines, whole: a long
        # classification is what gets cut.
        league = "\n" + await self.league_lines(loaded) if record.league_id is not None else ""
        await channel.send(
            "\n".join(lines)[: MESSAGE - 10 - len(league)] + league,
            files=await draw([image] if image else []),
            allowed_mentions=MENTION_NONE,
        )
        if record.league_id is not None:
            # The calendar's last round just got its result: the season's wrap-up, once.
            await wrap_up(self.core.bot, record.league_id, channel)

    async def league_lines(self, loaded: Loaded) -> str:
        """A league race's points as recorded, and its page on the site when the league's
        site is on (bot/league_site.py)."""
        from bot.league_tables import league_points_table

        assert loaded.record.league_id is not None
        league = await self.core.store.league_by_id(loaded.record.league_id)
        table = league_points_table(league)
        placings = play.league_placings(loaded.game, loaded.state, list(loaded.seats.values()))
        if not league.robots_take_places:
            placings = places_among_members(placings)
        by_user = {s.user_id: s.name for s in loaded.seats.values()}
        points = ", ".join(
            f"{shown(by_user[u])} {table.points_for(p) if p else 0}" for u, p, _ in placings
        )
        text = f"\nLeague points ({shown(league.label)}, recorded): {points or 'none'}"
        link = await race_link(self.core.bot.settings, self.core.store, league, loaded.record.id)
        # <...>: no preview card under the classification (its picture is the board)
        return text + (f"\nOn the web: <{link}>" if link else "")
