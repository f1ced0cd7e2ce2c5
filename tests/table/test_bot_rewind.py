"""An admin's rewind (issue 27 point 4): `/<game> rewind to:N` takes a race back to action N of
its log, for a bug or a dispute. Through the command tree and the fake Discord: a finished
league race of Waddington's rewound by a league admin (asked first, Confirm or Cancel), the
thread reopened and told who rewound, to where, and that the dice and cards after that point
come from the race's stored random state; the standings no longer count it; played again the
same way it finishes the same way and the standings count it again. Refused, changing
nothing: a driver who is no admin, numbers the log does not offer, an old Confirm, a closed
season, a lobby, a real-time game."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any

from bot.table.ending import ARCHIVE
from paddock_tools.bots import make_bot, world
from paddock_tools.f1_driver import play_one_click, settled, state_of
from paddock_tools.fakediscord import (
    ALICE,
    BOB,
    CAROL,
    GENERAL_CHANNEL_ID,
    Calls,
    FakeUser,
    InProcessDriver,
)
from rules.base import get_game
from store.undo import state_after
from store.verify import verify_store
from tests.bot_helpers import dump
from tests.helpers import store_of, thread_of
from tests.league.league_helpers import confirmed

DAY = 86400.0
ROW = re.compile(r"^\s*(\d+)\. (\w+)\s+(\d+) pts", re.MULTILINE)
LOG = "pick a number `/f1 log` shows."


async def play_to_the_finish(d: InProcessDriver, gid: int) -> Any:
    """Each driver to act clicks what the robot policy would (or its first offer)."""
    for _ in range(400):
        game, state, _ = await state_of(d, gid)
        if game.is_terminal(state):
            return state
        await play_one_click(d, gid)
    raise AssertionError("the race never finished")


async def robot_next(d: InProcessDriver, gid: int, end: int) -> int:
    """The latest of the race's last 40 actions after which the robot was to act, and a
    driver later (the race comes back to them)."""
    store = store_of(d)
    record, log = await store.load_game(gid), await store.actions(gid)
    robots = {s.seat for s in await store.seats(gid) if s.robot}
    game = get_game("waddington")
    robot_to_act = {
        to: set(game.to_act(state_after(game, record.seed, record.config, log, to))) <= robots
        for to in range(end - 40, end)
    }
    for to in range(end - 2, end - 40, -1):
        if robot_to_act[to] and not all(robot_to_act[t] for t in range(to + 1, end)):
            return to
    raise AssertionError("the robot never acted in the last actions")


async def standings(d: InProcessDriver) -> tuple[list[tuple[str, str, str]], str]:
    """The league table's rows (place, name, points) and its footer."""
    embed = (await d.slash("league", "standings", league="Cup", user=BOB)).last.embed
    assert embed is not None and embed.footer.text is not None
    return ROW.findall(embed.description or ""), embed.footer.text


async def rewind(d: InProcessDriver, thread: int, to: int, user: FakeUser = CAROL) -> Calls:
    return await d.slash("f1", "rewind", to=to, user=user, channel_id=thread)


def refused(calls: Calls, text: str) -> None:
    (answer,) = calls.answers
    assert answer.ephemeral and answer.content == text, answer.content
    assert not answer.custom_ids  # no question, nothing to press


def thread_texts(d: InProcessDriver, thread: int, mark: int) -> list[str]:
    return [
        str(c.content)
        for c in d.backend.calls[mark:]
        if c.kind == "channel_message" and c.channel_id == thread and c.content
    ]


async def test_an_admin_rewinds_a_finished_league_race_and_the_standings_follow(
    tmp_path: Path,
) -> None:
    async with InProcessDriver(make_bot(tmp_path / "rewind.db"), world(), timeout=60) as d:
        store = store_of(d)
        await d.slash("league", "create", name="Cup", game="waddington", user=ALICE)
        await d.slash("league", "join", league="Cup", user=ALICE)
        await d.slash("league", "join", league="Cup", user=BOB)
        await d.slash("league-admin", "round-set", league="Cup", number=1, name="Aintree")
        await d.slash("f1", "new", league="Cup", round=1, laps=1, robots=1, user=ALICE)
        (gid,) = [g.id for g in await store.list_games()]
        await d.click(f"pd:f1:{gid}:join", user=BOB)
        await d.click(f"pd:f1:{gid}:start", user=ALICE)
        await settled(d, gid)
        first = await play_to_the_finish(d, gid)
        finished = await store.load_game(gid)
        end = finished.seq
        league = await store.get_league(d.world.guild_id, "Cup")
        counted, footer = await standings(d)
        assert [points for _, _, points in counted] == ["10", "8"] and "1/1 rounds" in footer
        assert (await store.league_by_id(league.id)).wrapped_at is not None

        # Days later (past the race's idle days), its thread archived a while ago.
        later = time.time() + 8 * DAY
        d.bot.timers.clock = lambda: later  # type: ignore[attr-defined]
        d.bot.timers.poke()  # type: ignore[attr-defined]
        thread = thread_of(d, finished.thread_id)
        meta = d.backend.threads[thread]["thread_metadata"]
        for _ in range(300):
            if meta.get("archived"):
                break
            await asyncio.sleep(0.02)
        assert meta.get("archived"), "the archive timer never fired"

        # Refused, changing nothing: a driver who is no admin; numbers the log has not.
        to = await robot_next(d, gid, end)  # after the rewind, the robot plays on at once
        before = await dump(store)
        refused(
            await rewind(d, thread, to, user=BOB),
            f"Only the host (<@{ALICE.id}>) or a league admin can rewind this race.",
        )
        refused(await rewind(d, thread, end + 1), f"The race has {end} actions; pick one of them.")
        refused(await rewind(d, thread, end), f"The race is at action {end} already.")

        # Asked first: the question names the action as the log tells it; Cancel changes nothing.
        shown = end - to + 1  # the log's last actions, from action `to`
        log = (await d.slash("f1", "log", count=shown, user=CAROL, channel_id=thread)).answer
        (words,) = re.findall(rf"^`{to}` (.*)$", str(log.content), re.MULTILINE)
        asked = await rewind(d, thread, to)
        question = asked.answer
        assert question.ephemeral
        assert question.content == (
            f"Rewind the race to action {to} ({words})? Everything after it is taken back: "
            f"{end - to} action{'s' if end - to > 1 else ''}, and the league result of this "
            "race is removed until it finishes again."
        )
        confirm, cancel = question.custom_ids
        assert confirm == f"pd:f1:{gid}:rewind:{end}.{to}" and cancel == f"pd:f1:{gid}:rewind-no"
        assert await dump(store) == before
        cancelled = await d.click(cancel, user=CAROL)
        assert cancelled.answer.content == "Cancelled: nothing changed."
        assert await dump(store) == before

        # Confirmed: the race runs again from that action, told in its reopened thread.
        mark = d.backend.mark()
        await rewind(d, thread, to)
        done = await d.click(confirm, user=CAROL)
        assert not done.errors, done.errors
        assert done.answer.content == f"Rewound to action {to}."
        assert not meta.get("archived")
        told = thread_texts(d, thread, mark)
        notice = (
            f"⏪ <@{CAROL.id}> rewound the race to action {to} ({words}): everything after it is "
            "taken back. The dice and cards from here come from the race's stored random "
            "state: played the same way, they fall the same way. This race's league result "
            "is removed from the standings until it finishes again."
        )
        assert any(notice in text for text in told), told
        record = await store.load_game(gid)
        assert record.status == "running" and not record.results_recorded
        assert record.last_human_at == later  # its idle days count from the rewind
        assert await store.results(league.id) == []
        counted, footer = await standings(d)
        assert counted == [] and "0/1 rounds" in footer, (counted, footer)
        assert (await store.league_by_id(league.id)).wrapped_at is None
        # Its end timer (the archive) gone; a new clock from now: not idle at once.
        timers = {t.event: t.due_at for t in await store.timers(gid)}
        assert ARCHIVE not in timers and "f1_timeout" in timers
        assert timers["f1_idle"] >= later + 6 * DAY
        since = (await store.load_game(gid)).seq - end  # the mark, and the robots' moves
        rewound_log = (await d.slash("f1", "log", count=since, channel_id=thread)).answer.content
        assert f"`{end + 1}` ⏪ a league admin rewound the race to action {to}." in str(rewound_log)
        assert (await verify_store(store)).ok

        # Now the log has a take-back: its numbers, refused in words.
        before = await dump(store)
        now = (await store.load_game(gid)).seq
        refused(await rewind(d, thread, to + 1), f"Action {to + 1} was taken back; {LOG}")
        refused(
            await rewind(d, thread, end + 1),
            f"Number {end + 1} is a take-back, not an action; {LOG}",
        )
        refused(await rewind(d, thread, now + 1), f"The race's log ends at {now}; {LOG}")
        assert await dump(store) == before

        # An old Confirm, after the race moved on: nothing changes.
        stale = (await rewind(d, thread, 1)).answer.custom_ids[0]
        await play_one_click(d, gid)
        before = await dump(store)
        moved = await d.click(stale, user=CAROL)
        assert moved.answer.content == "The race has moved on since you asked: ask again."
        assert await dump(store) == before

        # Played again the same way, it finishes the same way (the same dice and cards),
        # and the standings count it again; the wrap-up is posted again.
        again = await play_to_the_finish(d, gid)
        assert again == first
        record = await store.load_game(gid)
        assert record.status == "finished" and record.results_recorded
        results = await store.results(league.id)
        assert results and all(r.source == "game" and r.game_id == gid for r in results)
        counted, footer = await standings(d)
        assert [points for _, _, points in counted] == ["10", "8"] and "1/1 rounds" in footer
        assert (await store.league_by_id(league.id)).wrapped_at is not None
        wrapups = [
            m
            for m in d.backend.messages.values()
            if any(e.get("title") == "Cup: season 1 wrap-up" for e in m.get("embeds") or [])
        ]
        assert len(wrapups) == 2  # at the first finish and at this one
        assert (await verify_store(store)).ok

        # Its season closed: the result stands.
        await confirmed(d, "league-admin", "close-season", league="Cup")
        before = await dump(store)
        refused(
            await rewind(d, thread, to),
            "This race's season is over: its result stands, so the race cannot be rewound.",
        )
        assert await dump(store) == before


async def test_a_lobby_and_a_real_time_game_are_not_rewound(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "no-rewind.db"), world(), timeout=30) as d:
        store = store_of(d)
        await d.slash("f1", "new", laps=1, robots=1, user=ALICE)
        (lobby,) = await store.list_games()
        thread = thread_of(d, lobby.thread_id)
        refused(
            await rewind(d, thread, 0, user=ALICE),
            "This race has not started: there is nothing to rewind. Start it from its lobby, "
            "or `/f1 cancel` closes it.",
        )
        await d.slash(
            "pit", "start", players=f"<@{BOB.id}>", races=1, channel_id=GENERAL_CHANNEL_ID
        )
        before = await dump(store)
        calls = await d.slash("pit", "rewind", to=0, user=ALICE, channel_id=GENERAL_CHANNEL_ID)
        refused(
            calls,
            "Pit Formula is played in real time: a game cannot be rewound. `/pit abandon` ends "
            "one that went wrong.",
        )
        assert await dump(store) == before
