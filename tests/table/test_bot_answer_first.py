"""Issue 30, a race night's opening burst: every command and button that writes answers (or
defers) before its first store write, lock or image. Here the store's writes are held back
(`HeldWrites`, as a burst slows them): the answer comes all the same and nothing is stored
yet; once the writes go through, the result follows. A refusal found after the answer
reaches its user privately; a start that fails after it says so in the channel; the same
command again within a few seconds (a retry of one answered already) makes no second game."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Coroutine
from pathlib import Path
from typing import Any

import pytest

from bot.errors import STORE_DOWN
from bot.table.lobby import RETRY_SECONDS
from paddock_tools.bots import make_bot, world
from paddock_tools.f1_driver import latest_with
from paddock_tools.fakediscord import (
    ALICE,
    BOB,
    GENERAL_CHANNEL_ID,
    RACES_CHANNEL_ID,
    Calls,
    InProcessDriver,
)
from paddock_tools.fakediscord.backend import Call
from store.errors import StoreUnavailable
from tests.bot_helpers import HeldWrites, dump


@pytest.fixture
async def driver(tmp_path: Path) -> AsyncIterator[InProcessDriver]:
    async with InProcessDriver(make_bot(tmp_path / "burst.db"), world(), timeout=10) as d:
        d.bot.get_cog("PitCog").countdown_seconds = 0  # type: ignore[union-attr]
        yield d


async def answered_while_held(
    d: InProcessDriver, send: Coroutine[Any, Any, Calls]
) -> tuple[Call, Calls]:
    """`send` (a command or a click) with the store's writes held back: its answer (the
    interaction callback) comes while they are, and nothing it does is stored until they
    are let through. The answer, and every call the interaction made."""
    store = d.bot.store
    before = await dump(store)
    with HeldWrites(store) as held:
        mark = d.backend.mark()
        task = asyncio.ensure_future(send)
        try:
            answer = await d.backend.wait_for_call(
                kind="interaction_response", since=mark, timeout=5
            )
            await asyncio.sleep(0.05)  # anything the bot would do before its first write
            assert held.waiting >= 1  # it did get to a write, and waits there
            assert await dump(store) == before  # nothing written before the answer
        except BaseException:
            task.cancel()
            raise
    calls = await task
    assert calls.interaction_responses == [answer]  # answered once
    return answer, calls


async def games(d: InProcessDriver) -> list[Any]:
    return await d.bot.store.list_games()


# Answers before the store ---------------------------------------------------------------


async def test_f1_new_is_answered_before_the_store_and_its_lobby_follows(
    driver: InProcessDriver,
) -> None:
    send = driver.slash("f1", "new", laps=1, turn_minutes=60, user=ALICE)
    answer, calls = await answered_while_held(driver, send)
    assert answer.response_type == 5 and not answer.ephemeral  # "thinking…", in public
    (record,) = await games(driver)
    # The "thinking…" answer became the announcement, and the race's thread starts from it.
    said = [c for c in calls if c.kind == "edit_original"]
    assert [c.content for c in said] == [
        f"🏁 **Waddington's Formula 1** - race #{record.id}: lobby open in the thread below."
    ]
    (thread,) = [c for c in calls if c.kind == "create_thread"]
    assert thread.path == f"/channels/{GENERAL_CHANNEL_ID}/messages/{said[0].message['id']}/threads"
    assert record.thread_id is not None and record.status == "lobby"
    lobby = latest_with(driver, f"pd:f1:{record.id}:join")
    assert lobby is not None and int(lobby["channel_id"]) == record.thread_id
    assert not any(c.ephemeral for c in calls.messages)


async def test_pit_start_is_answered_before_the_store_then_the_game_is_on(
    driver: InProcessDriver,
) -> None:
    send = driver.slash("pit", "start", players=f"<@{BOB.id}>", races=1, user=ALICE)
    answer, calls = await answered_while_held(driver, send)
    assert answer.response_type == 5 and not answer.ephemeral
    (record,) = await games(driver)
    assert record.status == "running"
    said = calls.messages[0]  # the game's line, before its first race is shown
    assert said.kind == "edit_original" and not said.ephemeral
    assert "Pit Formula (standard, 1 race)" in (said.content or "")
    assert any(f"pd:pit:{record.id}:cards" in c.custom_ids for c in calls.messages[1:])


async def test_a_pit_formula_action_is_answered_before_the_store_is_read(
    driver: InProcessDriver,
) -> None:
    """Even the race's reads come after the answer ("thinking…", privately): with many
    races the store's queue must not keep a crew past Discord's 3 s."""
    await driver.slash("pit", "start", players=f"<@{BOB.id}>", races=1, user=ALICE)
    (record,) = await games(driver)

    async def held(send: Coroutine[Any, Any, Calls]) -> Calls:
        with HeldWrites(driver.bot.store, reads=True) as held:
            mark = driver.backend.mark()
            task = asyncio.ensure_future(send)
            answer = await driver.backend.wait_for_call(
                kind="interaction_response", since=mark, timeout=5
            )
            assert answer.response_type == 5 and answer.ephemeral
            await asyncio.sleep(0.05)
            assert held.waiting >= 1  # its first read, held
        return await task

    # the race message's `My cards` button: the cards edited into the private answer
    cards = await held(driver.click(f"pd:pit:{record.id}:cards", user=ALICE))
    assert cards.answer.ephemeral and "Your part cards" in (cards.answer.content or "")
    calls = await held(driver.slash("pit", "flag", user=ALICE))
    assert calls.answer.ephemeral and "flag" in (calls.answer.content or "")
    assert any('"kind":"flag"' in a.action_json for a in await driver.bot.store.actions(record.id))


async def test_pit_start_pings_the_other_crews_in_its_first_countdown(
    driver: InProcessDriver,
) -> None:
    """An edited answer pings nobody (Discord's rule): the first countdown does."""
    driver.bot.get_cog("PitCog").countdown_seconds = 0.01  # type: ignore[union-attr]
    calls = await driver.slash("pit", "start", players=f"<@{BOB.id}>", races=2, user=ALICE)
    ready = [c for c in calls.messages if "ready..." in (c.content or "")]
    assert ready[0].content.startswith(f"<@{BOB.id}> Race 1: ready")
    assert ready[0].body["allowed_mentions"]["users"] == [BOB.id]  # not the host


async def test_lobby_join_and_start_are_answered_before_the_store(
    driver: InProcessDriver,
) -> None:
    await driver.slash("f1", "new", laps=1, robots=1, turn_minutes=60, user=ALICE)
    (record,) = await games(driver)
    lobby = latest_with(driver, f"pd:f1:{record.id}:join")
    assert lobby is not None
    at = {"message_id": int(lobby["id"])}

    answer, joined = await answered_while_held(
        driver, driver.click(f"pd:f1:{record.id}:join", user=BOB, **at)
    )
    assert answer.response_type == 6  # deferred: the lobby is edited through the answer
    assert [s.user_id for s in await driver.bot.store.seats(record.id)] == [ALICE.id, BOB.id]
    (edited,) = [c for c in joined if c.kind == "edit_original"]
    assert "bob" in str(edited.embeds) and edited.custom_ids  # the lobby, still open

    answer, started = await answered_while_held(
        driver, driver.click(f"pd:f1:{record.id}:start", user=ALICE, **at)
    )
    assert answer.response_type == 6
    assert (await driver.bot.store.load_game(record.id)).status == "running"
    (edited,) = [c for c in started if c.kind == "edit_original"]
    assert not edited.custom_ids  # the lobby as it started, its buttons gone
    assert any(f"pd:f1:{record.id}:act:" in str(c.custom_ids) for c in started.messages)


async def test_league_commands_are_answered_before_the_store(driver: InProcessDriver) -> None:
    send = driver.slash("league", "create", name="Night Cup", game="waddington", user=ALICE)
    answer, calls = await answered_while_held(driver, send)
    assert answer.response_type == 5
    assert "League **Night Cup** created" in (calls.answer.content or "")
    assert calls.answer.custom_ids  # its Join button
    answer, calls = await answered_while_held(
        driver, driver.slash("league", "join", league="Night Cup", user=BOB)
    )
    assert answer.response_type == 5 and "joined **Night Cup" in (calls.answer.content or "")
    league = await driver.bot.store.get_league(driver.world.guild_id, "Night Cup")
    assert [m.user_id for m in await driver.bot.store.members(league.id)] == [BOB.id]


# Refusals and failures after the answer -------------------------------------------------


async def test_a_refusal_found_after_the_answer_comes_privately(driver: InProcessDriver) -> None:
    await driver.slash("league", "create", name="Night Cup", game="waddington", user=ALICE)
    await driver.slash(
        "league-admin", "round-set", league="Night Cup", number=1, name="Monza", user=ALICE
    )
    before = await dump(driver.bot.store)
    # ALICE is not one of the league's drivers: found once the league is read, after the
    # public "thinking…" answer. That answer goes; one private line comes; nothing stored.
    calls = await driver.slash(
        "f1", "new", league="Night Cup", round=1, turn_minutes=60, user=ALICE
    )
    assert [c.response_type for c in calls.interaction_responses] == [5]
    assert [c.kind for c in calls if c.kind != "interaction_response"] == [
        "delete_original",
        "followup",
    ]
    (line,) = calls.messages
    assert line.ephemeral and "Join **Night Cup" in (line.content or "")
    assert await dump(driver.bot.store) == before
    # (the fake, as Discord, would show a followup in the "thinking…" answer's place, and
    # as public as it: deleting that answer first is what keeps the line private)


async def test_a_start_failing_after_the_answer_says_so_in_the_channel(
    driver: InProcessDriver,
) -> None:
    store = driver.bot.store
    real = store.start_game

    async def down(*args: Any, **kwargs: Any) -> None:
        raise StoreUnavailable(store.path, "the disk is full")

    store.start_game = down
    driver.raise_errors = False  # the operator's ERROR line is expected
    try:
        # /pit start with players: the public "thinking…" answer says that it failed
        calls = await driver.slash("pit", "start", players=f"<@{BOB.id}>", user=ALICE)
        said = calls.messages[-1]
        assert said.kind == "edit_original" and not said.ephemeral
        assert said.content == f"⚠️ {STORE_DOWN}"
        assert [g.status for g in await games(driver)] == ["abandoned"]  # no stray lobby
        # a lobby's Start: the lobby's thread is told, and the lobby stays open
        await driver.slash("f1", "new", laps=1, robots=1, turn_minutes=60, user=ALICE)
        gid = max(g.id for g in await games(driver))
        calls = await driver.click(f"pd:f1:{gid}:start", user=ALICE)
        (said,) = calls.messages
        assert said.kind == "followup" and not said.ephemeral
        assert said.content == f"⚠️ {STORE_DOWN}"
        assert said.message is not None
        assert int(said.message["channel_id"]) == (await store.load_game(gid)).thread_id
        assert (await store.load_game(gid)).status == "lobby"
    finally:
        store.start_game = real
        driver.raise_errors = True
    await driver.click(f"pd:f1:{gid}:start", user=ALICE)  # pressed again: it starts
    assert (await store.load_game(gid)).status == "running"


async def test_a_race_whose_thread_cannot_be_made_is_not_kept_and_says_so(
    driver: InProcessDriver,
) -> None:
    driver.backend.fail_next(r"/threads$", 403, 50013, method="POST")
    calls = await driver.slash("f1", "new", laps=1, turn_minutes=60, user=ALICE)
    (record,) = await games(driver)
    assert record.status == "abandoned"  # no lobby nobody can join
    announced = [c for c in calls if c.kind == "edit_original"]
    assert announced[-1].content == (
        f"🏁 **Waddington's Formula 1** - race #{record.id}: not opened. I can't start threads "
        "here: give me Create Public Threads, then open the race again with `/f1 new`."
    )
    assert calls.last.ephemeral and "Create Public Threads" in (calls.last.content or "")


# No double start ------------------------------------------------------------------------


async def test_a_retry_of_f1_new_makes_no_second_race(driver: InProcessDriver) -> None:
    options = {"laps": 1, "turn_minutes": 60, "user": ALICE}
    await driver.slash("f1", "new", **options)
    (first,) = await games(driver)
    before = await dump(driver.bot.store)
    again = await driver.slash("f1", "new", **options)
    assert await dump(driver.bot.store) == before  # no second race, nothing written
    (told,) = again.messages
    assert told.ephemeral and told.content == (
        f"You opened **Waddington's Formula 1** - race #{first.id} with this command a moment "
        f"ago: its lobby is in <#{first.thread_id}>. (The same command again within "
        f"{RETRY_SECONDS:.0f} s opens nothing more: change an option, or wait, to open another.)"
    )
    assert not [c for c in again if c.kind == "create_thread"]
    # Another option, another race (a league night's next round); another user, too.
    await driver.slash("f1", "new", laps=2, turn_minutes=60, user=ALICE)
    await driver.slash("f1", "new", **{**options, "user": BOB})
    assert len(await games(driver)) == 3
    # The same command once the window is over: a new race.
    clock = driver.bot.timers.clock
    driver.bot.timers.clock = lambda: clock() + RETRY_SECONDS + 1
    await driver.slash("f1", "new", **options)
    assert len(await games(driver)) == 4


async def test_a_retry_after_its_lobby_was_cancelled_opens_a_new_one(
    driver: InProcessDriver,
) -> None:
    options = {"laps": 1, "turn_minutes": 60, "user": ALICE}
    await driver.slash("f1", "new", **options)
    (first,) = await games(driver)
    await driver.click(f"pd:f1:{first.id}:cancel", user=ALICE)
    await driver.slash("f1", "new", **options)
    assert [g.status for g in await games(driver)] == ["abandoned", "lobby"]


async def test_the_same_f1_new_twice_at_once_makes_one_race(driver: InProcessDriver) -> None:
    """Both arrive before either is stored (a double submit under a burst): the store's
    note of the command lets one through."""
    mark = driver.backend.mark()
    with HeldWrites(driver.bot.store) as held:
        sent = [
            asyncio.ensure_future(driver.slash("f1", "new", laps=1, turn_minutes=60, user=ALICE))
            for _ in range(2)
        ]
        while held.waiting < 2:
            await asyncio.sleep(0.01)
    await asyncio.gather(*sent)
    (record,) = await games(driver)
    lines = [c.content or "" for c in Calls(driver.backend.calls[mark:]).messages]
    assert sum("lobby open in the thread below" in line for line in lines) == 1
    assert sum(f"race #{record.id} with this command a moment ago" in line for line in lines) == 1


async def test_a_retry_of_pit_start_makes_no_second_game(driver: InProcessDriver) -> None:
    options = {"players": f"<@{BOB.id}>", "races": 2, "user": ALICE}
    await driver.slash("pit", "start", **options)
    (first,) = await games(driver)
    again = await driver.slash("pit", "start", **options)
    assert len(await games(driver)) == 1
    (told,) = again.messages
    assert told.ephemeral and told.content == (
        f"Your Pit Formula game (#{first.id}) is already on in this channel: play it, or end "
        "it with `/pit abandon`."
    )
    # Twice at once, in another channel: one game.
    where = {**options, "channel_id": RACES_CHANNEL_ID}
    mark = driver.backend.mark()
    with HeldWrites(driver.bot.store) as held:
        sent = [asyncio.ensure_future(driver.slash("pit", "start", **where)) for _ in range(2)]
        while held.waiting < 2:
            await asyncio.sleep(0.01)
    await asyncio.gather(*sent)
    assert len(await games(driver)) == 2
    calls = Calls(driver.backend.calls[mark:])
    lines = [c.content or "" for c in calls.messages if c.ephemeral]
    assert len(lines) == 1 and "with this command a moment ago: it is on" in lines[0]
