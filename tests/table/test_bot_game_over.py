"""Every game command in a game that is over (issues 29 and 31): a finished, an abandoned and a
cancelled game of each game, in its thread (or channel, for /pit, where the newest of the
channel's games is meant). Each command answers privately in one line that the game is over
and how it ended, and what can still be done; `/<game> log` and `/rf90 replay` still work
and show the race's end, and `/<game> rewind` asks to rewind a finished race."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from discord import app_commands

from paddock_tools.bots import make_bot, world
from paddock_tools.f1_driver import play_one_click
from paddock_tools.fakediscord import ALICE, BOB, GENERAL_CHANNEL_ID, Calls, InProcessDriver
from paddock_tools.rf90_driver import PRESENTER, decide, loaded
from tests.helpers import store_of, thread_of

ONE_LINE = re.compile(r"[^\n]+")
# Commands that open a new game, or tell the rules: not about the game of this place.
NOT_OF_A_GAME = {"new", "start", "solo", "rules"}
# The options each command needs, by name (any that a game's command requires).
OPTIONS: dict[str, dict[str, Any]] = {
    "log": {"count": 50},
    "replace": {"driver": BOB.id},
    "autopilot": {"mode": "on"},
    "rewind": {"to": 1},
    "fix": {"part": "t1", "tokens": "a1"},
    "clear": {"part": "t1"},
}
ENDS = {"finished": "finished", "abandoned": "abandoned", "cancelled": "cancelled"}


def commands_of(d: InProcessDriver, area: str) -> list[str]:
    group = d.bot.tree.get_command(area)  # type: ignore[attr-defined]
    assert isinstance(group, app_commands.Group)
    return sorted(c.name for c in group.commands if c.name not in NOT_OF_A_GAME)


async def newest(d: InProcessDriver) -> Any:
    return max(await store_of(d).list_games(), key=lambda g: g.id)


async def open_thread_game(d: InProcessDriver, area: str) -> Any:
    options: dict[str, Any] = {"turn_minutes": 60}
    if area == "f1":
        options.update(laps=1, robots=1)
    else:
        options.update(track="silverstone", turns=3)
    await d.slash(area, "new", user=ALICE, **options)
    record = await newest(d)
    thread_of(d, record.thread_id)
    return record


async def finished_thread_game(d: InProcessDriver, area: str) -> Any:
    """Started, then driven to the end by the autopilot (and the robots)."""
    record = await open_thread_game(d, area)
    await d.click(f"pd:{area}:{record.id}:start", user=ALICE)
    await d.slash(area, "autopilot", mode="on", user=ALICE, channel_id=record.thread_id)
    record = await store_of(d).load_game(record.id)
    assert record.status == "finished"
    return record


async def abandoned(d: InProcessDriver, area: str, record: Any) -> Any:
    where = record.thread_id or record.channel_id
    await d.slash(area, "abandon", user=ALICE, channel_id=where)
    await d.click(f"pd:{area}:{record.id}:abandon", user=ALICE)
    record = await store_of(d).load_game(record.id)
    assert record.status == "abandoned" and record.state_json is not None
    return record


async def every_command(d: InProcessDriver, area: str, record: Any, end: str) -> dict[str, Calls]:
    """Each game command of `area` where `record` was played; every answer private, one
    line, naming the end. Returns the calls of each command."""
    where = record.thread_id or record.channel_id
    out: dict[str, Calls] = {}
    for name in commands_of(d, area):
        calls = await d.slash(area, name, user=ALICE, channel_id=where, **OPTIONS.get(name, {}))
        assert not calls.errors, (area, name, end, calls.errors)
        (answer,) = calls.answers
        text = answer.content or ""
        works = name in ("log", "replay") and end != "cancelled"
        if name == "rewind" and end == "finished" and area != "pit":
            # a finished race may be rewound (tests/table/test_bot_rewind.py): it asks first
            assert answer.ephemeral and text.startswith("Rewind the race to action 1 ("), text
            assert answer.custom_ids[-1] == f"pd:{area}:{record.id}:rewind-no", answer
            works = True
        if not works:
            assert answer.ephemeral and ONE_LINE.fullmatch(text), (area, name, end, text)
            assert ENDS[end] in text and "over" in text, (area, name, end, text)
        out[name] = calls
    # Nothing was played or changed by any of them.
    assert (await store_of(d).load_game(record.id)).seq == record.seq
    return out


def check_log(calls: Calls, end: str, record: Any) -> None:
    answer = calls.answer
    text = answer.content or ""
    assert answer.ephemeral, text
    assert f"`{record.seq}` " in text, text  # the race's last action
    assert ENDS[end] in text and "over" in text, text


async def test_thread_games_that_are_over_say_so_and_show_their_log_and_replay(
    tmp_path: Path,
) -> None:
    async with InProcessDriver(make_bot(tmp_path / "over.db"), world(), timeout=60) as d:
        for area in ("f1", "rf90"):
            done = await finished_thread_game(d, area)
            answers = await every_command(d, area, done, "finished")
            check_log(answers["log"], "finished", done)
            if area == "rf90":
                replay = answers["replay"]
                assert [f.filename for f in replay.files] == [f"race{done.id}-replay.webp"]
                assert "whole race" in (replay.last.content or "")
                assert "finished" in (replay.last.content or "")

            stopped = await open_thread_game(d, area)
            await d.click(f"pd:{area}:{stopped.id}:join", user=BOB)
            await d.click(f"pd:{area}:{stopped.id}:start", user=ALICE)
            if area == "f1":  # a move, so that the log has one to tell
                await play_one_click(d, stopped.id)
            else:
                now = await loaded(d, stopped.id)
                await decide(d, stopped.id, PRESENTER.waiting_seats(now.state)[0])
            stopped = await abandoned(d, area, stopped)
            answers = await every_command(d, area, stopped, "abandoned")
            check_log(answers["log"], "abandoned", stopped)
            if area == "rf90":
                replay = answers["replay"]
                assert "abandoned" in (replay.last.content or ""), replay.last.content

            closed = await open_thread_game(d, area)
            await d.slash(area, "cancel", user=ALICE, channel_id=closed.thread_id)
            closed = await store_of(d).load_game(closed.id)
            answers = await every_command(d, area, closed, "cancelled")
            assert "new" in (answers["log"].answer.content or "")  # how to race again


async def test_pit_commands_after_a_game_mean_the_channel_newest_game(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "pit-over.db")
    async with InProcessDriver(bot, world(), timeout=20) as d:
        cog: Any = bot.get_cog("PitCog")
        cog.countdown_seconds = 0
        channel = GENERAL_CHANNEL_ID
        await d.slash("pit", "solo", rival="rookie", races=1, user=ALICE, channel_id=channel)
        await d.slash("pit", "flag", user=ALICE, channel_id=channel)
        for _ in range(200):  # the race is scored in the background
            done = await newest(d)
            if done.status == "finished" and done.published_seq == done.seq:
                break
            await asyncio.sleep(0.02)
        assert done.status == "finished"
        answers = await every_command(d, "pit", done, "finished")
        check_log(answers["log"], "finished", done)

        await d.slash("pit", "start", players=f"<@{BOB.id}>", races=1, channel_id=channel)
        running = await newest(d)
        assert running.id != done.id
        stopped = await abandoned(d, "pit", running)
        answers = await every_command(d, "pit", stopped, "abandoned")
        check_log(answers["log"], "abandoned", stopped)

        await d.slash("pit", "start", races=1, user=ALICE, channel_id=channel)
        lobby = await newest(d)
        await d.slash("pit", "cancel", user=ALICE, channel_id=channel)
        closed = await store_of(d).load_game(lobby.id)
        answers = await every_command(d, "pit", closed, "cancelled")
        assert "/pit start" in (answers["fix"].answer.content or "")
