"""Faults from Discord and from moderators, against the real bot client over the loopback
fake Discord (REST and gateway on 127.0.0.1; `Backend.fail_next`, `delete_message`,
`archive_thread`, `delete_channel`, `revoke` inject them): a 429 with `retry-after`, 5xx on
a post, a dropped gateway connection and its RESUME, an expired interaction, a deleted
prompt, an archived or deleted thread, Send Messages or Attach Files taken away.

For each, the race stays right in the store (every click stored once: nothing lost, nothing
doubled; nothing posted twice), the bot carries on or tells the players in one line what to
do, and nothing is logged at ERROR (a WARNING line is fine)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from paddock_tools.bots import make_bot, world
from paddock_tools.f1_driver import (
    buttons,
    latest_with,
    play_one_click,
    seat_user,
    start_race,
    state_of,
)
from paddock_tools.fakediscord import ALICE, BOB, GENERAL_CHANNEL_ID, Call
from paddock_tools.fakediscord import payloads as pl
from paddock_tools.fakediscord.backend import UNKNOWN_INTERACTION
from paddock_tools.fakediscord.server import FakeDiscord
from rules.base import get_game
from tests.helpers import until

CALLBACK = r"^/interactions/\d+/[^/]+/callback$"
NO_IMAGES = "I can't post images in this thread: give me Attach Files."


class LogCapture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def lines(self, level: int = logging.WARNING) -> list[str]:
        return [r.getMessage() for r in self.records if r.levelno >= level]

    def errors(self) -> list[str]:
        return [
            f"{r.name}: {r.getMessage()} {r.exc_info!r}"
            for r in self.records
            if r.levelno >= logging.ERROR
        ]


@pytest.fixture(autouse=True)
def no_image_warm_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot drawing in its own threads would draw every kind of image at start-up (seconds,
    for RF90's close-ups): these tests draw a few Waddington's ones, lazily. (The image
    workers warm once, as they start: once for every test of this process.)"""
    monkeypatch.setattr("bot.drawing.warm_here", lambda: None)


@asynccontextmanager
async def bot_on_fake(tmp_path: Path) -> AsyncIterator[tuple[FakeDiscord, LogCapture]]:
    """The bot against a loopback fake Discord; no ERROR may be logged meanwhile."""
    capture = LogCapture()
    root = logging.getLogger()
    root.addHandler(capture)
    level = root.level
    root.setLevel(logging.INFO)
    try:
        async with FakeDiscord(world(), timeout=30) as fd:
            bot = make_bot(tmp_path / "faults.db")
            async with fd.running(bot):
                pit = bot.get_cog("PitCog")
                pit.countdown_seconds = 0  # type: ignore[attr-defined]
                pit.edit_interval = 0.01  # type: ignore[attr-defined]
                yield fd, capture
    finally:
        root.removeHandler(capture)
        root.setLevel(level)
    assert not capture.errors(), capture.errors()


# Helpers ------------------------------------------------------------------------------


async def record_of(fd: FakeDiscord, gid: int) -> Any:
    return await fd.bot.store.load_game(gid)  # type: ignore[union-attr]


async def human_actions(fd: FakeDiscord, gid: int) -> list[Any]:
    actions = await fd.bot.store.actions(gid)  # type: ignore[union-attr]
    assert [a.seq for a in actions] == list(range(1, len(actions) + 1))
    return [a for a in actions if a.actor.isdigit()]


def thread_here(fd: FakeDiscord, thread_id: int) -> int:
    """Registered in the world, so that commands sent from the thread carry it."""
    fd.world.channels.setdefault(thread_id, fd.backend.threads[thread_id])
    return thread_id


async def clicks_until(fd: FakeDiscord, gid: int, done: Callable[[], Any], limit: int = 12) -> int:
    """Play (as the robot policy would) until `done()`; the number of clicks."""
    for clicks in range(1, limit + 1):
        await play_one_click(fd, gid)
        if done():
            return clicks
    raise AssertionError("never happened")


def ok_posts(calls: list[Call], channel_id: int) -> list[Call]:
    return [
        c
        for c in calls
        if c.kind == "channel_message"
        and c.status == 200
        and c.path == f"/channels/{channel_id}/messages"
    ]


def same_post(a: Call, b: Call) -> bool:
    return (a.content, a.custom_ids, [f.data for f in a.files]) == (
        b.content,
        b.custom_ids,
        [f.data for f in b.files],
    )


def assert_nothing_posted_twice(calls: list[Call], channel_id: int) -> None:
    posts = ok_posts(calls, channel_id)
    for earlier, later in zip(posts, posts[1:], strict=False):
        assert not same_post(earlier, later), f"posted twice: {later!r}"


async def quiet(fd: FakeDiscord, gid: int, *, beyond: int = -1, published: bool = True) -> Any:
    """Wait until the bot is done with this race (a timer's work, a reopening): an action
    after `beyond` stored, and shown (or not, if `published` is false)."""

    async def settled() -> Any:
        record = await record_of(fd, gid)
        done = record.seq > beyond and (record.published_seq == record.seq) == published
        return record if done else None

    record = await until(settled)
    seen = -1
    while seen != len(fd.backend.calls):
        seen = len(fd.backend.calls)
        await asyncio.sleep(0.3)
    return record


def fire_turn_timers(fd: FakeDiscord) -> None:
    """The driver to act runs out of time: the reminder and the timeout fall due now."""
    timers = fd.bot.timers  # type: ignore[union-attr]
    shift = getattr(timers, "shifted", 0) + 86400  # a day on each time (the idle timer: 7)
    timers.shifted = shift
    timers.clock = lambda: time.time() + shift
    timers.poke()


async def f1_race(fd: FakeDiscord) -> tuple[int, int]:
    """Alice and Bob and a robot in a one-lap /f1 race; (game id, thread id)."""
    gid = await start_race(fd, laps=1, robots=1)  # type: ignore[arg-type]
    record = await record_of(fd, gid)
    return gid, thread_here(fd, record.thread_id)


def prompt_now(fd: FakeDiscord, gid: int, seq: int) -> dict[str, Any] | None:
    return latest_with(fd, f"pd:f1:{gid}:act:{seq}.")  # type: ignore[arg-type]


# 429 and 5xx --------------------------------------------------------------------------


async def test_a_429_is_waited_out_and_nothing_is_doubled(tmp_path: Path) -> None:
    async with bot_on_fake(tmp_path) as (fd, logs):
        gid, thread = await f1_race(fd)
        before = len(await human_actions(fd, gid))
        mark = fd.backend.mark()
        post = fd.backend.fail_next(
            rf"^/channels/{thread}/messages$", 429, method="POST", retry_after=0.25
        )
        answer = fd.backend.fail_next(CALLBACK, 429, retry_after=0.25)
        clicks = await clicks_until(fd, gid, lambda: post.hits)
        calls = fd.backend.calls[mark:]
        # each click stored once, though one answer and one post were sent twice
        assert len(await human_actions(fd, gid)) == before + clicks
        assert len(answer.hits) == 1 and len(post.hits) == 1
        retried = [c for c in calls if c.path == answer.hits[0].path]
        assert [c.status for c in retried] == [429, 200]  # the answer arrived, once
        again = [c for c in ok_posts(calls, thread) if same_post(c, post.hits[0])]
        assert len(again) == 1 and again[0].seq > post.hits[0].seq
        assert_nothing_posted_twice(fd.backend.calls, thread)
        _, _, seq = await state_of(fd, gid)  # type: ignore[arg-type]
        assert prompt_now(fd, gid, seq) is not None
        assert any("rate limited" in line for line in logs.lines())


def failures_told(calls: Any) -> list[Any]:
    """The private follow-ups among `calls` but the answers offering to undo a decision
    ("Played: ...", bot/table/undo.py)."""
    return [c for c in calls if c.kind == "followup" and not c.content.startswith("Played:")]


async def test_a_5xx_on_a_post_is_retried_or_said_in_one_line(tmp_path: Path) -> None:
    async with bot_on_fake(tmp_path) as (fd, logs):
        gid, thread = await f1_race(fd)
        # A 500 once: discord.py tries again (after 1 s) and the race goes on.
        mark = fd.backend.mark()
        once = fd.backend.fail_next(rf"^/channels/{thread}/messages$", 500, method="POST")
        await clicks_until(fd, gid, lambda: once.hits)
        again = [c for c in ok_posts(fd.backend.calls[mark:], thread) if same_post(c, once.hits[0])]
        assert len(again) == 1
        assert_nothing_posted_twice(fd.backend.calls, thread)

        # Discord down for posts (503s, which discord.py does not retry): the move is
        # stored, the player who made it is told in one line, privately, what to do.
        before = len(await human_actions(fd, gid))
        down = fd.backend.fail_next(
            rf"^/channels/{thread}/messages$", 503, method="POST", times=None
        )
        mark = fd.backend.mark()
        clicks = await clicks_until(fd, gid, lambda: down.hits)
        assert len(await human_actions(fd, gid)) == before + clicks
        told = failures_told(fd.backend.calls[mark:])
        assert len(told) == 1 and told[0].ephemeral
        assert told[0].content == (
            "Saved, but not shown: Discord failed to post this. Use `/f1 status` in a minute "
            "to show it."
        )
        record = await record_of(fd, gid)
        assert record.published_seq < record.seq

        # Discord is back: `/f1 status` posts what was missed and the prompt.
        fd.backend.clear_faults()
        shown = await fd.slash("f1", "status", user=BOB, channel_id=thread)
        record = await record_of(fd, gid)
        assert record.published_seq == record.seq
        assert prompt_now(fd, gid, record.seq) is not None
        board = ok_posts(shown, thread)[0]
        assert board.files  # the board, with what the failed post would have said
        missed = [line for line in (down.hits[0].content or "").splitlines() if line]
        assert missed and all(line in (board.content or "") for line in missed)
        await play_one_click(fd, gid)
        assert any("Discord failed to post this" in line for line in logs.lines())

        # The same for a move nobody clicked (a driver timed out): nobody to tell, so the
        # bot shows the race again a little later by itself.
        fd.bot.table.recovery.repost_delays = (0.3,)  # type: ignore[union-attr]
        seq = (await record_of(fd, gid)).seq
        # (the reminder, then the board of the robot's move, fail)
        down = fd.backend.fail_next(rf"^/channels/{thread}/messages$", 503, method="POST", times=2)
        mark = fd.backend.mark()
        fire_turn_timers(fd)
        record = await quiet(fd, gid, beyond=seq)
        assert len(down.hits) == 2 and prompt_now(fd, gid, record.seq) is not None
        missed = [line for line in (down.hits[1].content or "").splitlines() if line]
        later = [c for c in ok_posts(fd.backend.calls[mark:], thread) if c.seq > down.hits[1].seq]
        assert missed and all(line in (later[0].content or "") for line in missed)
        assert_nothing_posted_twice(fd.backend.calls, thread)


# The gateway --------------------------------------------------------------------------


async def test_a_dropped_gateway_resumes_and_no_click_is_lost_or_doubled(
    tmp_path: Path,
) -> None:
    async with bot_on_fake(tmp_path) as (fd, _):
        gid, thread = await f1_race(fd)
        before = len(await human_actions(fd, gid))
        await fd.drop_gateway()  # and wait for the bot to come back
        assert fd.resumes == 1
        assert len([f for f in fd.gateway_received if f.get("op") == 2]) == 1  # no IDENTIFY
        await play_one_click(fd, gid)
        # Dropped again, and a click comes while the bot is away: Discord keeps it in the
        # session and the RESUME replays it; it is handled once.
        back = asyncio.Event()
        await fd.drop_gateway(wait=False, hold=back)
        sent = len(fd.session_events)
        click = asyncio.create_task(play_one_click(fd, gid))
        await until(lambda: [f["t"] for f in fd.session_events[sent:]] == ["INTERACTION_CREATE"])
        assert not click.done()
        back.set()
        await click
        assert fd.resumes == 2
        assert len(await human_actions(fd, gid)) == before + 2
        answers = [c for c in fd.backend.calls if c.kind == "interaction_response"]
        assert len({c.path for c in answers}) == len(answers)  # one answer per interaction
        assert_nothing_posted_twice(fd.backend.calls, thread)
        await play_one_click(fd, gid)


# An expired interaction ---------------------------------------------------------------


async def test_a_click_answered_too_late_still_plays_and_nothing_is_answered_twice(
    tmp_path: Path,
) -> None:
    async with bot_on_fake(tmp_path) as (fd, logs):
        gid, thread = await f1_race(fd)
        before = len(await human_actions(fd, gid))
        _, _, seq = await state_of(fd, gid)  # type: ignore[arg-type]
        late = fd.backend.fail_next(CALLBACK, 404, UNKNOWN_INTERACTION)
        mark = fd.backend.mark()
        await play_one_click(fd, gid)  # the click counts
        calls = fd.backend.calls[mark:]
        assert len(late.hits) == 1
        # The move is stored once and shown in the thread (a new prompt), though the
        # player's answer failed; no second answer was tried (it would fail the same way).
        assert len(await human_actions(fd, gid)) == before + 1
        token = late.hits[0].path.split("/")[3]
        assert [c for c in calls if token in c.path] == late.hits
        _, _, now = await state_of(fd, gid)  # type: ignore[arg-type]
        assert now > seq and prompt_now(fd, gid, now) is not None
        assert any("expired" in line for line in logs.lines())
        await play_one_click(fd, gid)

        # `/f1 status` answered too late: the race is posted all the same, and the bot
        # does not try a second answer.
        _, _, now = await state_of(fd, gid)  # type: ignore[arg-type]
        late = fd.backend.fail_next(CALLBACK, 404, UNKNOWN_INTERACTION)
        status = await fd.slash("f1", "status", user=BOB, channel_id=thread)
        assert status.interaction_responses == late.hits  # one try
        assert not [c for c in status if c.kind == "followup"]
        reposted = [
            c for c in ok_posts(status, thread) if f"pd:f1:{gid}:act:{now}." in str(c.custom_ids)
        ]
        assert len(reposted) == 1

        # `/f1 new` answered too late: the race it made is announced in the channel all
        # the same, with its thread and lobby.
        fd.backend.fail_next(CALLBACK, 404, UNKNOWN_INTERACTION)
        opened = await fd.slash("f1", "new", laps=1, turn_minutes=60, user=ALICE)
        games = await fd.bot.store.list_games()  # type: ignore[union-attr]
        lobby = max(g.id for g in games)
        (said,) = ok_posts(opened, GENERAL_CHANNEL_ID)
        assert f"race #{lobby}: lobby open in the thread below." in (said.content or "")
        new_thread = (await record_of(fd, lobby)).thread_id
        assert new_thread in fd.backend.threads
        assert any(f"pd:f1:{lobby}:join" in c.custom_ids for c in ok_posts(opened, new_thread))

        # A lobby click answered too late: the seat is taken and the lobby message shows
        # it (edited directly instead of through the answer).
        fd.backend.fail_next(CALLBACK, 404, UNKNOWN_INTERACTION)
        joined = await fd.click(f"pd:f1:{lobby}:join", user=BOB)
        seats = await fd.bot.store.seats(lobby)  # type: ignore[union-attr]
        assert [s.user_id for s in seats] == [ALICE.id, BOB.id]
        edits = [c for c in joined if c.kind == "edit_message" and c.status == 200]
        assert len(edits) == 1 and "bob" in str(edits[0].embeds)


async def test_a_move_is_answered_at_once_while_its_race_is_busy_and_plays_after(
    tmp_path: Path,
) -> None:
    """The race's lock is held while the move before is shown (its board and prompt being
    posted, or a slow store): the next click is answered at once all the same, and its move
    is played once the lock is let go."""
    async with bot_on_fake(tmp_path) as (fd, logs):
        gid, _ = await f1_race(fd)
        game, state, seq = await state_of(fd, gid)  # type: ignore[arg-type]
        user = await seat_user(fd, gid, game.to_act(state)[0])  # type: ignore[arg-type]
        prompt = prompt_now(fd, gid, seq)
        assert prompt is not None
        (offer, *_) = [b["custom_id"] for b in buttons(prompt) if ":act:" in b["custom_id"]]
        lock = fd.bot.table.lock(gid)  # type: ignore[union-attr]
        await lock.acquire()
        mark = fd.backend.mark()
        click = asyncio.create_task(fd.click(offer, user=user, message_id=int(prompt["id"])))
        try:
            answer = await fd.backend.wait_for_call(
                kind="interaction_response", since=mark, timeout=10
            )
            assert answer.json["type"] == 6  # deferred: Discord shows the click taken
            await asyncio.sleep(0.2)
            assert (await state_of(fd, gid))[2] == seq  # type: ignore[arg-type]
        finally:
            lock.release()
        calls = await click
        assert (await state_of(fd, gid))[2] > seq  # type: ignore[arg-type]
        assert calls.interaction_responses == [answer]  # answered once
        assert not logs.errors()


# A deleted message --------------------------------------------------------------------


async def test_a_prompt_deleted_by_a_moderator_is_posted_again(tmp_path: Path) -> None:
    async with bot_on_fake(tmp_path) as (fd, _):
        gid, thread = await f1_race(fd)
        before = len(await human_actions(fd, gid))
        # The driver picks a speed (the prompt is edited for the end square)...
        game, state, seq = await state_of(fd, gid)  # type: ignore[arg-type]
        while state.turn.phase != "speed":
            await play_one_click(fd, gid)
            game, state, seq = await state_of(fd, gid)  # type: ignore[arg-type]
        await play_one_click(fd, gid)
        _, state, seq = await state_of(fd, gid)  # type: ignore[arg-type]
        assert state.turn.phase == "move"
        before = len(await human_actions(fd, gid))
        prompt = prompt_now(fd, gid, seq)
        assert prompt is not None
        # ...a moderator deletes the prompt while the driver's client still shows it...
        held = fd.backend.delete_message(int(prompt["id"]))
        seat = game.to_act(state)[0]
        user = await seat_user(fd, gid, seat)  # type: ignore[arg-type]
        index = game.legal_actions(state, seat).index(game.robot_action(state, seat))
        payload = pl.component_payload(
            fd.world, f"pd:f1:{gid}:act:{seq}.{index}", message=held, user=user
        )
        clicked = await fd.dispatch(payload)
        # ...the edit finds it gone (404 Unknown Message): the move is stored and a new
        # prompt (or the next board and prompt) is posted in the thread.
        assert any(c.status == 404 and c.kind == "edit_message" for c in clicked)
        assert len(await human_actions(fd, gid)) == before + 1
        _, _, now = await state_of(fd, gid)  # type: ignore[arg-type]
        assert prompt_now(fd, gid, now) is not None
        await play_one_click(fd, gid)

        # The newest prompt deleted: `/f1 status` posts it again, and the race goes on.
        _, _, now = await state_of(fd, gid)  # type: ignore[arg-type]
        fd.backend.delete_message(int(prompt_now(fd, gid, now)["id"]))  # type: ignore[index]
        assert prompt_now(fd, gid, now) is None
        await fd.slash("f1", "status", user=BOB, channel_id=thread)
        assert prompt_now(fd, gid, now) is not None
        await play_one_click(fd, gid)
        assert_nothing_posted_twice(fd.backend.calls, thread)


# Archived and deleted threads ---------------------------------------------------------


async def test_an_archived_thread_is_reopened_a_locked_one_is_said(tmp_path: Path) -> None:
    async with bot_on_fake(tmp_path) as (fd, logs):
        gid, thread = await f1_race(fd)
        seq = (await record_of(fd, gid)).seq
        # Discord archived the quiet thread; the driver runs out of time: the robot's move
        # and the next prompt are posted after the bot reopened the thread.
        await fd.push("THREAD_UPDATE", fd.backend.archive_thread(thread))
        mark = fd.backend.mark()
        fire_turn_timers(fd)
        record = await quiet(fd, gid, beyond=seq)
        assert not fd.backend.threads[thread]["thread_metadata"]["archived"]
        assert any(
            c.method == "PATCH" and c.path == f"/channels/{thread}" for c in fd.backend.calls[mark:]
        )
        assert prompt_now(fd, gid, record.seq) is not None
        assert any(
            "ran out of time" in (c.content or "")
            for c in ok_posts(fd.backend.calls[mark:], thread)
        )

        # Locked by a moderator (the bot may not reopen it): stored all the same, a WARNING
        # says why; unlocked, `/f1 status` shows what was missed.
        await play_one_click(fd, gid)
        seq = (await record_of(fd, gid)).seq
        await fd.push("THREAD_UPDATE", fd.backend.archive_thread(thread, locked=True))
        fire_turn_timers(fd)
        record = await quiet(fd, gid, beyond=seq, published=False)
        assert any("archived and locked" in line for line in logs.lines())
        meta = fd.backend.threads[thread]["thread_metadata"]
        meta.update(archived=False, locked=False)
        await fd.slash("f1", "status", user=BOB, channel_id=thread)
        record = await record_of(fd, gid)
        assert record.published_seq == record.seq
        assert prompt_now(fd, gid, record.seq) is not None


async def test_a_deleted_thread_is_replaced_and_the_race_goes_on(tmp_path: Path) -> None:
    async with bot_on_fake(tmp_path) as (fd, logs):
        gid, thread = await f1_race(fd)
        before = await fd.bot.store.actions(gid)  # type: ignore[union-attr]
        # A moderator deletes the race's thread (the bot sees THREAD_DELETE)...
        gone = fd.backend.delete_channel(thread)
        mark = fd.backend.mark()
        await fd.push(
            "THREAD_DELETE",
            {k: gone[k] for k in ("id", "guild_id", "parent_id", "type")},
        )
        record = await until(
            lambda: _moved(fd, gid, thread),
        )
        # ...a new thread in the same channel carries on, announced where the old one was.
        new = thread_here(fd, record.thread_id)
        notices = ok_posts(fd.backend.calls[mark:], GENERAL_CHANNEL_ID)
        assert len(notices) == 1 and f"<#{new}>" in (notices[0].content or "")
        await quiet(fd, gid)
        assert prompt_now(fd, gid, record.seq) is not None
        assert await fd.bot.store.actions(gid) == before  # type: ignore[union-attr]
        await play_one_click(fd, gid)

        # Deleted while the bot was away (no THREAD_DELETE): the next post finds it gone.
        fd.backend.delete_channel(new)
        fire_turn_timers(fd)
        await until(lambda: _moved(fd, gid, new))
        await quiet(fd, gid)
        record = await record_of(fd, gid)  # the timeout may play after the thread moved
        assert prompt_now(fd, gid, record.seq) is not None
        assert any("was deleted" in line for line in logs.lines())

        # A lobby's thread deleted: the lobby opens again in a new thread, seats kept.
        await fd.slash("f1", "new", laps=1, user=BOB)
        lobby = max(g.id for g in await fd.bot.store.list_games())  # type: ignore[union-attr]
        old = (await record_of(fd, lobby)).thread_id
        gone = fd.backend.delete_channel(old)
        await fd.push(
            "THREAD_DELETE", {k: gone[k] for k in ("id", "guild_id", "parent_id", "type")}
        )
        moved = await until(lambda: _moved(fd, lobby, old))
        await until(lambda: latest_with(fd, f"pd:f1:{lobby}:join"))  # type: ignore[arg-type]
        joined = await fd.click(f"pd:f1:{lobby}:join", user=ALICE)
        # the click answered first (deferred), the new lobby message updated through it
        assert joined.response.response_type == 6 and joined.answer.kind == "edit_original"
        seats = await fd.bot.store.seats(lobby)  # type: ignore[union-attr]
        assert [s.user_id for s in seats] == [BOB.id, ALICE.id]
        assert (await record_of(fd, lobby)).thread_id == moved.thread_id


async def _moved(fd: FakeDiscord, gid: int, old_thread: int) -> Any:
    record = await record_of(fd, gid)
    return record if record.thread_id not in (None, old_thread) else None


# Permissions taken away ---------------------------------------------------------------


async def test_without_attach_files_text_goes_alone_with_one_line(tmp_path: Path) -> None:
    async with bot_on_fake(tmp_path) as (fd, _):
        gid, thread = await f1_race(fd)
        before = len(await human_actions(fd, gid))
        fd.backend.revoke(GENERAL_CHANNEL_ID, "attach_files")  # the thread's channel
        mark = fd.backend.mark()

        def refused(kind: str) -> list[Call]:
            return [c for c in fd.backend.calls[mark:] if c.status == 403 and c.kind == kind]

        # a close-up on the prompt (edited) and a board (posted) were refused
        clicks = await clicks_until(
            fd, gid, lambda: refused("edit_message") and refused("channel_message")
        )
        assert len(await human_actions(fd, gid)) == before + clicks
        calls = fd.backend.calls[mark:]
        shown = [
            c
            for c in calls
            if c.status == 200
            and c.kind in ("channel_message", "edit_message")
            and c.channel_id == thread
        ]
        assert shown and not any(c.files for c in shown)
        for kind in ("edit_message", "channel_message"):
            for no in refused(kind):
                # the same message again, at once, without its images and with one line more
                (retry,) = [c for c in calls if c.seq == no.seq + 1]
                assert retry.path == no.path and retry.status == 200 and not retry.files
                assert retry.content == (f"{no.content}\n" if no.content else "") + NO_IMAGES
                assert retry.custom_ids == no.custom_ids
        _, _, seq = await state_of(fd, gid)  # type: ignore[arg-type]
        assert prompt_now(fd, gid, seq) is not None
        fd.backend.grant(GENERAL_CHANNEL_ID, "attach_files")
        mark = fd.backend.mark()
        await clicks_until(fd, gid, lambda: any(c.files for c in fd.backend.calls[mark:]))


async def test_without_send_messages_the_player_is_told_privately(tmp_path: Path) -> None:
    async with bot_on_fake(tmp_path) as (fd, logs):
        gid, thread = await f1_race(fd)
        before = len(await human_actions(fd, gid))
        fd.backend.revoke(GENERAL_CHANNEL_ID, "send_messages_in_threads")
        mark = fd.backend.mark()
        clicks = await clicks_until(
            fd,
            gid,
            lambda: any(
                c.status == 403 and c.kind == "channel_message" for c in fd.backend.calls[mark:]
            ),
        )
        assert len(await human_actions(fd, gid)) == before + clicks
        told = failures_told(fd.backend.calls[mark:])
        assert len(told) == 1 and told[0].ephemeral
        assert told[0].content == (
            "Saved, but not shown: I can't post in this thread: give me Send Messages in "
            "Threads, then use `/f1 status`."
        )
        fd.backend.grant(GENERAL_CHANNEL_ID, "send_messages_in_threads")
        shown = await fd.slash("f1", "status", user=ALICE, channel_id=thread)
        (refused, *_) = [c for c in fd.backend.calls[mark:] if c.status == 403]
        missed = [line for line in (refused.content or "").splitlines() if line]
        board = ok_posts(shown, thread)[0]
        assert missed and all(line in (board.content or "") for line in missed)
        record = await record_of(fd, gid)
        assert record.published_seq == record.seq
        assert prompt_now(fd, gid, record.seq) is not None
        await play_one_click(fd, gid)
        assert any("Send Messages in Threads" in line for line in logs.lines())

        # A lobby nobody could see is not kept: the host is told why.
        fd.backend.revoke(GENERAL_CHANNEL_ID, "send_messages_in_threads")
        opened = await fd.slash("f1", "new", laps=1, user=BOB)
        assert opened.last.ephemeral and opened.last.content == (
            "I can't post in the race's thread: give me Send Messages in Threads, then open "
            "the race again with `/f1 new`."
        )
        lobby = max(g.id for g in await fd.bot.store.list_games())  # type: ignore[union-attr]
        assert (await record_of(fd, lobby)).status not in ("lobby", "running")


async def test_pit_formula_without_attach_files_races_on_in_text(tmp_path: Path) -> None:
    async with bot_on_fake(tmp_path) as (fd, _):
        fd.backend.revoke(GENERAL_CHANNEL_ID, "attach_files")
        mark = fd.backend.mark()
        started = await fd.slash("pit", "start", players=f"<@{BOB.id}>", races=1, user=ALICE)
        assert started.errors == []
        (record,) = [g for g in await fd.bot.store.list_games() if g.kind == "pitformula"]  # type: ignore[union-attr]
        await until(lambda: _running(fd, record.id))
        race = await until(
            lambda: [
                c
                for c in ok_posts(fd.backend.calls[mark:], GENERAL_CHANNEL_ID)
                if f"pd:pit:{record.id}:cards" in c.custom_ids
            ]
        )
        line = "I can't post images in this channel: give me Attach Files."
        assert line in (race[0].content or "") and not race[0].files
        # Alice takes the flag, which ends the one-race game: the answer, the scoring and
        # the final standings, all in text.
        flag = await fd.slash("pit", "flag", user=ALICE)
        assert flag.answer.ephemeral and "flag" in (flag.answer.content or "")
        state = get_game("pitformula").load_state((await record_of(fd, record.id)).state_json)
        assert state.phase == "over" and state.results[0].cars[0].took_flag is not None
        final = ok_posts(flag, GENERAL_CHANNEL_ID)[-1]
        assert "Final standings" in (final.content or "") and not final.files
        assert (final.content or "").endswith(f"\n{line}")


async def _running(fd: FakeDiscord, gid: int) -> bool:
    record = await record_of(fd, gid)
    return (
        record.status == "running"
        and get_game("pitformula").load_state(record.state_json).phase == "repair"
    )


# RF90: one message per section activation (post_frames) -------------------------------


async def test_rf90_activations_without_attach_files_then_without_send(tmp_path: Path) -> None:
    from paddock_tools.rf90_driver import PRESENTER, decide, loaded

    async with bot_on_fake(tmp_path) as (fd, logs):
        payload = fd.slash_payload("rf90", "new", track="silverstone", turn_minutes=60, user=ALICE)
        await fd.dispatch(payload)
        (gid,) = [g.id for g in await fd.bot.store.list_games()]  # type: ignore[union-attr]
        await fd.click(f"pd:rf90:{gid}:join", user=BOB)
        fd.backend.revoke(GENERAL_CHANNEL_ID, "attach_files")
        mark = fd.backend.mark()
        await fd.click(f"pd:rf90:{gid}:start", user=ALICE)
        thread = thread_here(fd, (await record_of(fd, gid)).thread_id)

        def refused() -> list[Call]:
            return [c for c in fd.backend.calls[mark:] if c.status == 403]

        async def decide_until(done: Callable[[], Any]) -> None:
            for _ in range(40):
                if done():
                    return
                now = await loaded(fd, gid)  # type: ignore[arg-type]
                await decide(fd, gid, PRESENTER.waiting_seats(now.state)[0])  # type: ignore[arg-type]
            raise AssertionError("never happened")

        # Each activation's message goes without its pictures, with one line more.
        await decide_until(lambda: len(refused()) >= 3)
        posts = ok_posts(fd.backend.calls[mark:], thread)
        activations = [c for c in posts if "is activated" in (c.content or "")]
        assert activations and not any(c.files for c in posts)
        for no in refused():
            (retry,) = [c for c in fd.backend.calls if c.seq == no.seq + 1]
            assert retry.status == 200 and not retry.files
            assert retry.content == (f"{no.content}\n" if no.content else "") + NO_IMAGES

        # Send Messages in Threads taken too: the driver's decision is stored, and they are
        # told in one line, privately; given back, `/rf90 status` shows what was missed.
        fd.backend.grant(GENERAL_CHANNEL_ID, "attach_files")
        fd.backend.revoke(GENERAL_CHANNEL_ID, "send_messages_in_threads")
        mark = fd.backend.mark()
        await decide_until(lambda: refused())
        told = [
            c
            for c in fd.backend.calls[mark:]
            if c.kind == "followup" and "Saved" in (c.content or "")
        ]
        assert len(told) == 1 and told[0].ephemeral
        assert told[0].content == (
            "Saved, but not shown: I can't post in this thread: give me Send Messages in "
            "Threads, then use `/rf90 status`."
        )
        record = await record_of(fd, gid)
        assert record.published_seq < record.seq
        fd.backend.grant(GENERAL_CHANNEL_ID, "send_messages_in_threads")
        shown = await fd.slash("rf90", "status", user=BOB, channel_id=thread)
        record = await record_of(fd, gid)
        assert record.published_seq == record.seq
        missed = [line for line in (refused()[0].content or "").splitlines() if line]
        said = "\n".join(c.content or "" for c in ok_posts(shown, thread))
        assert missed and all(line in said for line in missed)
        assert any(c.files for c in ok_posts(shown, thread))
        now = await loaded(fd, gid)  # type: ignore[arg-type]
        await decide(fd, gid, PRESENTER.waiting_seats(now.state)[0])  # type: ignore[arg-type]
        assert_nothing_posted_twice(fd.backend.calls, thread)


async def test_pit_formula_race_message_deleted_status_posts_it_again(tmp_path: Path) -> None:
    async with bot_on_fake(tmp_path) as (fd, _):
        await fd.slash("pit", "start", players=f"<@{BOB.id}>", races=2, user=ALICE)
        (record,) = [g for g in await fd.bot.store.list_games() if g.kind == "pitformula"]  # type: ignore[union-attr]
        await until(lambda: _running(fd, record.id))
        live = await until(lambda: _live_message(fd, record.id))
        fd.backend.delete_message(int(live))  # a moderator deletes the race message
        before = (await record_of(fd, record.id)).seq
        await fd.slash("pit", "status", user=BOB)
        again = await until(lambda: _live_message(fd, record.id))
        assert again != live and int(again) in fd.backend.messages
        assert (await record_of(fd, record.id)).seq == before  # nothing played meanwhile
        taken = await fd.click(f"pd:pit:{record.id}:flag", user=ALICE, message_id=int(again))
        assert taken.response.ephemeral
        state = get_game("pitformula").load_state((await record_of(fd, record.id)).state_json)
        assert state.results[0].cars[0].took_flag is not None  # race 1 scored, Alice's flag


async def test_pit_formula_race_message_deleted_comes_back_at_the_next_move(
    tmp_path: Path,
) -> None:
    """The race message is edited as crews lay tokens; deleted by a moderator, the next edit
    posts it again (with its buttons) instead of logging a failure every time."""
    from tests.pitformula.pf_helpers import on_table

    async with bot_on_fake(tmp_path) as (fd, logs):
        await fd.slash("pit", "start", players=f"<@{BOB.id}>", races=2, user=ALICE)
        (record,) = [g for g in await fd.bot.store.list_games() if g.kind == "pitformula"]  # type: ignore[union-attr]
        await until(lambda: _running(fd, record.id))
        live = await until(lambda: _live_message(fd, record.id))
        await fd.click(f"pd:pit:{record.id}:cards", user=ALICE)
        await fd.click(f"pd:pit:{record.id}:reveal:t1", user=ALICE)
        await asyncio.sleep(0.1)  # that edit of the race message is done
        fd.backend.delete_message(int(live))
        state = get_game("pitformula").load_state((await record_of(fd, record.id)).state_json)
        laid = await fd.slash("pit", "fix", part="t1", tokens=on_table(state, "T"), user=ALICE)
        assert laid.answer.ephemeral and "laid on" in (laid.answer.content or "")
        again = await until(lambda: _live_message(fd, record.id))
        assert again != live
        message = fd.backend.messages[int(again)]
        assert "race message was deleted; carry on" in message["content"]
        assert f"pd:pit:{record.id}:flag" in str(message.get("components"))
        assert not [line for line in logs.lines() if "could not edit" in line]


async def test_pit_formula_time_up_without_send_messages_is_a_warning(tmp_path: Path) -> None:
    """The solo stopwatch runs out in a channel the bot can no longer post in: the race is
    scored and stored, a WARNING says why nothing was shown (no ERROR traceback)."""
    async with bot_on_fake(tmp_path) as (fd, logs):
        await fd.slash("pit", "solo", rival="rookie", races=2, user=ALICE)
        (record,) = [g for g in await fd.bot.store.list_games() if g.kind == "pitformula"]  # type: ignore[union-attr]
        await until(lambda: _running(fd, record.id))
        fd.backend.revoke(GENERAL_CHANNEL_ID, "send_messages")
        timers = await fd.bot.store.timers(record.id)  # type: ignore[union-attr]
        (timer,) = [t for t in timers if t.event == "pit_time_up"]
        fd.bot.dispatch("pit_time_up_timer_complete", timer)

        async def scored() -> bool:
            state = get_game("pitformula").load_state((await record_of(fd, record.id)).state_json)
            return bool(state.results)

        await until(scored)
        await until(lambda: any("Send Messages" in line for line in logs.lines()))


async def test_a_deleted_lobby_message_comes_back_with_status(tmp_path: Path) -> None:
    async with bot_on_fake(tmp_path) as (fd, _):
        payload = fd.slash_payload("rf90", "new", track="barcelona", user=ALICE)
        await fd.dispatch(payload)
        (gid,) = [g.id for g in await fd.bot.store.list_games()]  # type: ignore[union-attr]
        record = await record_of(fd, gid)
        thread = thread_here(fd, record.thread_id)
        fd.backend.delete_message(int(record.status_message_id))
        asked = await fd.slash("rf90", "status", user=BOB, channel_id=thread)
        assert asked.response.ephemeral
        again = (await record_of(fd, gid)).status_message_id
        assert again != record.status_message_id and int(again) in fd.backend.messages
        await fd.click(f"pd:rf90:{gid}:join", user=BOB, message_id=int(again))
        assert [s.user_id for s in await fd.bot.store.seats(gid)] == [ALICE.id, BOB.id]  # type: ignore[union-attr]


async def _live_message(fd: FakeDiscord, gid: int) -> Any:
    record = await record_of(fd, gid)
    mid = record.status_message_id
    return mid if mid is not None and int(mid) in fd.backend.messages else None
