"""The table layer under /f1 (Waddington's races): a kill between commit and prompt recovered
at start-up, the life-cycle commands (cancel, abandon, replace, autopilot, /games), forged
buttons, and one board image per completed move."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bot.cogs.waddington import WaddingtonPresenter
from bot.table.ending import ARCHIVE
from paddock_tools.bots import make_bot, world
from paddock_tools.f1_driver import (
    buttons,
    latest_with,
    play_one_click,
    seat_user,
    settled,
    start_race,
    state_of,
)
from paddock_tools.fakediscord import ALICE, BOB, CAROL, RACES_CHANNEL_ID, InProcessDriver
from paddock_tools.fakediscord import payloads as pl
from paddock_tools.fakediscord.process import BotProcess, RemoteFakeDiscord
from rules.base import get_game
from store import SqliteStore
from tests.bot_helpers import dump
from tests.helpers import thread_of
from tests.waddington.waddington_helpers import db_state, remote_click

PRESENTER = WaddingtonPresenter()
INVALID = "This button is no longer valid."
OTHER_GUILD_ID = 1100000000000000901


async def replayed(store: SqliteStore, gid: int) -> list[tuple[Any, Any]]:
    """(the state before it, the action) for each action in the race's log."""
    record = await store.load_game(gid)
    game = get_game("waddington")
    state = game.new_game(record.seed, record.config)
    out = []
    for action in await store.actions(gid):
        out.append((state, action))
        state, _ = game.apply(state, game.parse_action(action.action_json))
    return out


def act_messages(
    messages: dict[int, dict[str, Any]], gid: int, *, ephemeral: bool = False
) -> list[dict[str, Any]]:
    """The public messages (or the ephemeral ones: hand views) that still carry an `act`
    button of this race."""
    prefix = f"pd:f1:{gid}:act:"
    return [
        m
        for m in messages.values()
        if bool(int(m.get("flags") or 0) & 64) == ephemeral
        and any(b["custom_id"].startswith(prefix) for b in buttons(m))
    ]


async def open_lobby(d: InProcessDriver) -> int:
    before = {g.id for g in await d.bot.store.list_games()}
    await d.slash("f1", "new", laps=1, turn_minutes=60, user=ALICE)
    (gid,) = [g.id for g in await d.bot.store.list_games() if g.id not in before]
    await d.click(f"pd:f1:{gid}:join", user=BOB)
    return gid


async def play_until_seat(d: InProcessDriver, gid: int, user: pl.FakeUser) -> None:
    """Click for whoever is to act until it is `user`'s turn (at the start of a move)."""
    for _ in range(60):
        game, state, _ = await state_of(d, gid)
        seat = game.to_act(state)[0]
        if (await seat_user(d, gid, seat)) is user and state.turn.phase == "speed":
            return
        await play_one_click(d, gid)
    raise AssertionError(f"it never became {user.name}'s turn")


# 1. Kill between commit and prompt ---------------------------------------------------------


def seed_of(payload: dict[str, Any]) -> int:
    """The race's seed, as `/f1 new` derives it from the interaction id."""
    return int.from_bytes(int(payload["id"]).to_bytes(8, "big")[-6:], "big")


def kill_point(seed: int) -> tuple[Any, int]:
    """Replay the race as it will be played (everyone follows the robot policy, as the test
    clicks): the action number N (robots' actions count) of the first driver's click, after a
    few actions, that completes a move and hands the turn to the robot; the start state."""
    game = get_game("waddington")
    seats = [
        SimpleNamespace(name="alice", robot=False),
        SimpleNamespace(name="bob", robot=False),
        SimpleNamespace(name="Robot 1", robot=True),
    ]
    lobby: Any = SimpleNamespace(settings={"laps": 1, "soft_options": False})
    config = PRESENTER.rules_config(lobby, seats)  # type: ignore[arg-type]
    start = state = game.new_game(seed, config)
    commits = 0
    while not game.is_terminal(state):
        seat = game.to_act(state)[0]
        after, _ = game.apply(state, game.robot_action(state, seat))
        commits += 1
        if (
            commits >= 4
            and seat != 2
            and PRESENTER.move_key(after) != PRESENTER.move_key(state)
            and PRESENTER.acting_seat(after) == 2
        ):
            return start, commits
        state = after
    raise AssertionError("no driver's move hands over to the robot")


async def test_kill_between_commit_and_prompt_is_recovered_at_start_up(tmp_path: Path) -> None:
    db = tmp_path / "fault.db"
    async with RemoteFakeDiscord(world()) as fd:
        # The seed comes from the interaction id: build `/f1 new` first, to know from the
        # replayed race which commit is the driver's click to be killed on.
        new = fd.slash_payload("f1", "new", laps=1, robots=1, turn_minutes=60, user=ALICE)
        start, n = kill_point(seed_of(new))
        fault = {"PADDOCK_FAULT": f"after-commit:{n}"}
        async with BotProcess(fd, db, env=fault) as first:
            await fd.dispatch(new)
            store = SqliteStore(db)
            await store.open(run_migrations=False)
            try:
                (gid,) = [g.id for g in await store.list_games()]
                await fd.click(f"pd:f1:{gid}:join", user=BOB)
                await fd.click(f"pd:f1:{gid}:start", user=ALICE)
                record, game, state = await db_state(store, gid)
                assert record.seed == seed_of(new)
                assert game.new_game(record.seed, record.config) == start  # as replayed
                clicked = -1
                while (await db_state(store, gid))[0].seq < n:
                    assert first.alive  # not killed before the chosen action
                    clicked = await remote_click(fd, store, gid)
                await asyncio.wait_for(first.proc.wait(), 10)  # type: ignore[union-attr]
                assert first.returncode == -signal.SIGKILL
                assert any("PADDOCK_FAULT" in line for line in first.log)
                assert clicked + 1 == n  # the driver's click stored the nth action

                # Killed after the commit, before anything was posted about it.
                record, game, state = await db_state(store, gid)
                assert record.seq == n and record.published_seq == n - 1
                assert PRESENTER.acting_seat(state) == 2  # the robot's move comes next
                assert latest_with(fd, f"pd:f1:{gid}:act:{n}.") is None
                stale_prompt = record.prompt_message_id
                assert stale_prompt is not None

                mark = fd.backend.mark()
                async with BotProcess(fd, db) as second:  # READY once recovery has run
                    await fd.wait_quiet()
                    assert second.errors_since(0) == [], second.stderr_tail()
                    record, game, state = await db_state(store, gid)
                    seq = record.seq
                    assert seq > n  # the robot played its move at start-up
                    log = await store.actions(gid)
                    assert [a.actor for a in log if a.seq > n] == ["robot"] * (seq - n)
                    assert record.published_seq == seq
                    seat = PRESENTER.acting_seat(state)
                    seats = {s.seat: s for s in await store.seats(gid)}
                    assert seat is not None and not seats[seat].robot

                    # The prompt for the current state, posted exactly once.
                    prefix = f"pd:f1:{gid}:act:{seq}."
                    posted = [
                        c
                        for c in fd.backend.calls[mark:]
                        if c.kind == "channel_message"
                        and any(cid.startswith(prefix) for cid in c.custom_ids)
                    ]
                    assert len(posted) == 1
                    assert int(posted[0].message["id"]) == record.prompt_message_id
                    # ... and it is the only message with act buttons (the stale one lost its)
                    assert [m["id"] for m in act_messages(fd.backend.messages, gid)] == [
                        posted[0].message["id"]
                    ]
                    assert buttons(fd.backend.messages[stale_prompt]) == []
                    # A hand view the killed click came from keeps its buttons (its
                    # interaction died with the bot): they are out of date and refused.
                    for hand in act_messages(fd.backend.messages, gid, ephemeral=True):
                        owner = int(hand["interaction_metadata"]["user"]["id"])
                        old = buttons(hand)[0]["custom_id"]
                        assert old.startswith(f"pd:f1:{gid}:act:{n - 1}.")
                        stale = await fd.click(old, user=owner, message_id=int(hand["id"]))
                        assert stale.ephemeral
                        assert "out of date" in stale.content or "not your turn" in stale.content
                    assert (await store.load_game(gid)).seq == seq

                    # The driver's turn timers are in the database.
                    timers = await store.timers(gid)
                    assert sorted(t.event for t in timers) == [
                        "f1_idle",
                        "f1_reminder",
                        "f1_timeout",
                    ]
                    turn = [t for t in timers if t.event != "f1_idle"]
                    assert all(t.payload["seats"] == [seat] for t in turn)
                    assert all(t.payload["key"] == str(PRESENTER.move_key(state)) for t in turn)
                    (timeout,) = [t for t in timers if t.event == "f1_timeout"]
                    assert f"<t:{int(timeout.due_at)}:R>" in posted[0].message["content"]

                    # Play goes on from the new prompt.
                    assert await remote_click(fd, store, gid) == seq
                    record, _, _ = await db_state(store, gid)
                    assert record.seq > seq
            finally:
                await store.close()


# 2. Cancel, abandon, replace, autopilot, /games ----------------------------------------------


async def test_cancel_a_lobby_by_button_and_by_command(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "cancel.db"), world()) as d:
        store = d.bot.store
        # The Cancel button: refused for a driver who is not the host, then the host's.
        gid = await open_lobby(d)
        before = await dump(store)
        refused = await d.click(f"pd:f1:{gid}:cancel", user=BOB)
        assert refused.ephemeral and "Only the host" in refused.content
        assert await dump(store) == before
        done = await d.click(f"pd:f1:{gid}:cancel", user=ALICE)
        assert "Lobby cancelled" in done.content and done.last.custom_ids == []
        assert (await store.load_game(gid)).status == "abandoned"
        # Nothing left armed but the thread's archiving (tests/table/test_bot_archive.py).
        assert [t.event for t in await store.timers(gid)] == [ARCHIVE]

        # `/f1 cancel` in the lobby's thread.
        gid = await open_lobby(d)
        record = await store.load_game(gid)
        thread = thread_of(d, record.thread_id)
        before = await dump(store)
        refused = await d.slash("f1", "cancel", user=BOB, channel_id=thread)
        assert refused.ephemeral and "Only the host" in refused.content
        assert await dump(store) == before
        done = await d.slash("f1", "cancel", user=ALICE, channel_id=thread)
        assert not done.ephemeral and f"Lobby #{gid} cancelled" in done.content
        assert (await store.load_game(gid)).status == "abandoned"
        assert buttons(d.backend.messages[record.status_message_id]) == []  # lobby closed
        again = await d.slash("f1", "cancel", user=ALICE, channel_id=thread)
        assert again.ephemeral and "lobby was cancelled" in again.content


async def test_abandon_a_race_with_a_confirm_button(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "abandon.db"), world()) as d:
        store = d.bot.store
        gid = await start_race(d)
        record = await store.load_game(gid)
        thread = thread_of(d, record.thread_id)
        assert await store.timers(gid) != []
        before = await dump(store)
        refused = await d.slash("f1", "abandon", user=BOB, channel_id=thread)
        assert refused.ephemeral and "Only the host" in refused.content
        assert await dump(store) == before

        asked = await d.slash("f1", "abandon", user=ALICE, channel_id=thread)
        assert asked.ephemeral and asked.last.custom_ids == [f"pd:f1:{gid}:abandon"]
        assert await dump(store) == before  # asking changes nothing
        confirm = int(asked.last.message["id"])
        forged = await d.click(f"pd:f1:{gid}:abandon", user=BOB, message_id=confirm)
        assert forged.ephemeral and "Only the host" in forged.content
        assert await dump(store) == before

        done = await d.click(f"pd:f1:{gid}:abandon", user=ALICE, message_id=confirm)
        record = await store.load_game(gid)
        assert record.status == "abandoned"
        assert [t.event for t in await store.timers(gid)] == [ARCHIVE]
        said = [c.content or "" for c in done if c.kind == "channel_message"]
        assert [c.channel_id for c in done if c.kind == "channel_message"] == [thread]
        assert any("abandoned" in s and "No league points" in s for s in said)
        assert act_messages(d.backend.messages, gid) == []  # the prompt lost its buttons
        assert await store.games_of_user(d.world.guild_id, ALICE.id) == []


async def test_replace_hands_the_seat_to_a_robot_that_plays_at_once(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "replace.db"), world()) as d:
        store = d.bot.store
        gid = await start_race(d)
        record = await store.load_game(gid)
        thread = thread_of(d, record.thread_id)
        await play_until_seat(d, gid, BOB)
        game, state, seq = await state_of(d, gid)
        bob_seat = game.to_act(state)[0]
        key = PRESENTER.move_key(state)

        before = await dump(store)
        refused = await d.slash("f1", "replace", driver=ALICE, user=BOB, channel_id=thread)
        assert refused.ephemeral and "Only the host" in refused.content
        assert await dump(store) == before

        replaced = await d.slash("f1", "replace", driver=BOB, user=ALICE, channel_id=thread)
        # answered first ("thinking…", before the race's lock), then told in public
        assert replaced.response.response_type == 5
        assert not replaced.answer.ephemeral and "to a robot" in replaced.answer.content
        seats = {s.seat: s for s in await store.seats(gid)}
        assert seats[bob_seat].robot and seats[bob_seat].user_id == BOB.id
        log = [a for a in await store.actions(gid) if a.seq > seq]
        bob_moves = [a for a in log if json.loads(a.action_json)["seat"] == bob_seat]
        assert bob_moves and all(a.actor == "robot" and a.by_robot for a in bob_moves)
        game, state, _ = await state_of(d, gid)
        assert PRESENTER.move_key(state) != key  # the robot finished the move at once
        await settled(d, gid)
        assert seats[game.to_act(state)[0]].user_id == ALICE.id
        gone = await d.slash("f1", "autopilot", mode="on", user=BOB, channel_id=thread)
        assert gone.ephemeral and "You are not driving" in gone.content  # BOB no longer drives


async def test_autopilot_plays_your_turns_until_you_turn_it_off(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "auto.db"), world()) as d:
        store = d.bot.store
        gid = await start_race(d)
        thread = thread_of(d, (await store.load_game(gid)).thread_id)
        await play_until_seat(d, gid, ALICE)
        game, state, seq = await state_of(d, gid)
        alice_seat = game.to_act(state)[0]
        on = await d.slash("f1", "autopilot", mode="on", user=ALICE, channel_id=thread)
        assert on.response.response_type == 5  # answered before the race's lock
        assert on.answer.ephemeral and "Autopilot on" in on.answer.content
        assert (await store.seats(gid))[alice_seat].autopilot
        mine = [a for a in await store.actions(gid) if a.seq > seq]
        assert mine and mine[0].actor == f"autopilot:{ALICE.id}"  # her turn, played at once

        # BOB plays; every move of ALICE's seat is the autopilot's, for two more moves.
        for _ in range(60):
            await settled(d, gid)
            game, state, _ = await state_of(d, gid)
            assert game.to_act(state)[0] != alice_seat  # never left waiting for her
            await play_one_click(d, gid)
            logged = await replayed(store, gid)
            hers = [a for s, a in logged if s.turn.seat == alice_seat]
            autopiloted = {
                PRESENTER.move_key(s) for s, a in logged if a.actor == f"autopilot:{ALICE.id}"
            }
            if len(autopiloted) >= 3:
                break
        assert len(autopiloted) >= 3
        assert all(a.actor == f"autopilot:{ALICE.id}" and a.by_robot for a in hers if a.seq > seq)

        off = await d.slash("f1", "autopilot", mode="off", user=ALICE, channel_id=thread)
        assert off.answer.ephemeral and "Autopilot off" in off.answer.content
        mark = (await state_of(d, gid))[2]
        await play_until_seat(d, gid, ALICE)
        _, _, seq = await state_of(d, gid)
        prompt = latest_with(d, f"pd:f1:{gid}:act:{seq}.")
        assert prompt is not None and f"<@{ALICE.id}>" in prompt["content"]
        await play_one_click(d, gid)  # ALICE drives again
        after = [a for a in await store.actions(gid) if a.seq > mark]
        assert not any(a.actor.startswith("autopilot:") for a in after)
        assert any(a.actor == str(ALICE.id) for a in after)


async def test_games_lists_the_race_with_turn_and_deadline(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "games.db"), world()) as d:
        store = d.bot.store
        gid = await start_race(d)
        record = await store.load_game(gid)
        await play_until_seat(d, gid, BOB)
        (timeout,) = [t for t in await store.timers(gid) if t.event == "f1_timeout"]
        due = f"<t:{int(timeout.due_at)}:R>"

        alice = await d.slash("games", user=ALICE)
        assert alice.ephemeral
        assert f"#{gid} in <#{record.thread_id}>" in alice.content
        assert "you drive alice" in alice.content and "bob to act" in alice.content
        assert due in alice.content
        bob = await d.slash("games", user=BOB)
        assert "**your turn**" in bob.content and due in bob.content
        carol = await d.slash("games", user=CAROL)
        assert "You have no games running" in carol.content


async def test_reminders_by_direct_message_only_for_those_who_opt_in(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "dm.db"), world()) as d:
        store = d.bot.store
        gid = await start_race(d)
        await play_until_seat(d, gid, BOB)
        on = await d.slash("games", reminders="on", user=BOB)
        assert on.ephemeral and "Reminders by direct message: **on**" in on.content
        assert await store.dm_reminders(BOB.id) and not await store.dm_reminders(ALICE.id)
        (reminder,) = [t for t in await store.timers(gid) if t.event == "f1_reminder"]
        (timeout,) = [t for t in await store.timers(gid) if t.event == "f1_timeout"]
        d.bot.timers.clock = lambda: reminder.due_at + 1
        d.bot.timers.poke()
        for _ in range(200):
            await asyncio.sleep(0.02)
            if not any(t.event == "f1_reminder" for t in await store.timers(gid)):
                break
        await asyncio.sleep(0.1)
        dms = [
            c
            for c in d.backend.calls
            if c.kind == "channel_message" and int(c.path.split("/")[2]) in d.backend.dm_channels
        ]
        assert len(dms) == 1  # to bob, whose turn it is, and who asked for them
        assert f"<t:{int(timeout.due_at)}:R>" in dms[0].content
        thread = (await store.load_game(gid)).thread_id
        assert f"/{thread}" in dms[0].content  # a link back to the race
        off = await d.slash("games", reminders="off", user=BOB)
        assert "**off**" in off.content and not await store.dm_reminders(BOB.id)


# 3. Forged buttons ---------------------------------------------------------------------------


async def test_forged_buttons_are_refused_and_change_nothing(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "forged.db"), world()) as d:
        store = d.bot.store
        gid = await start_race(d)
        game, state, seq = await state_of(d, gid)
        user = await seat_user(d, gid, game.to_act(state)[0])  # the driver to act
        prompt = latest_with(d, f"pd:f1:{gid}:act:{seq}.")
        assert prompt is not None
        custom_id = f"pd:f1:{gid}:act:{seq}.0"
        before = await dump(store)

        async def refused(payload: dict[str, Any]) -> None:
            calls = await d.dispatch(payload)
            assert calls.errors == []
            assert len(calls.interaction_responses) == 1
            assert calls.ephemeral and calls.content == INVALID
            assert await dump(store) == before

        # The same button from another server (same channel id, the right driver).
        other_guild = pl.component_payload(d.world, custom_id, message=prompt, user=user)
        other_guild.update(
            guild_id=str(OTHER_GUILD_ID),
            guild={"id": str(OTHER_GUILD_ID), "locale": "en-US", "features": []},
            authorizing_integration_owners={"0": str(OTHER_GUILD_ID)},
        )
        other_guild["channel"]["guild_id"] = str(OTHER_GUILD_ID)
        await refused(other_guild)
        # From another channel of the same server.
        elsewhere = {**prompt, "channel_id": str(RACES_CHANNEL_ID)}
        await refused(pl.component_payload(d.world, custom_id, message=elsewhere, user=user))
        # A game id SQLite cannot hold, and an area nobody serves.
        for forged in (f"pd:f1:{2**63}:act:{seq}.0", f"pd:f1:{2**64 + gid}:join", "pd:nope:1:x"):
            row = {"type": 1, "components": [{"type": 2, "style": 2, "custom_id": forged}]}
            carrier = {**prompt, "components": [row]}  # Discord sends a message's own buttons
            await refused(pl.component_payload(d.world, forged, message=carrier, user=user))

        # The genuine click still works.
        await play_one_click(d, gid)


# 4. One board per completed move -------------------------------------------------------------


async def test_one_board_per_completed_move_and_superseded_prompts_lose_buttons(
    tmp_path: Path,
) -> None:
    async with InProcessDriver(make_bot(tmp_path / "boards.db"), world()) as d:
        store = d.bot.store
        gid = await open_lobby(d)
        started = await d.click(f"pd:f1:{gid}:start", user=ALICE)
        assert [f.filename for f in started.files if "board" in f.filename] == [
            f"race{gid}-board.png"
        ]
        mark = d.backend.mark()
        assert all(not s.robot for s in await store.seats(gid))
        for _ in range(400):
            game, state, seq = await state_of(d, gid)
            if game.is_terminal(state):
                break
            await play_one_click(d, gid)
            record = await store.load_game(gid)
            live = act_messages(d.backend.messages, gid)
            if record.status == "running":
                prefix = f"pd:f1:{gid}:act:{record.seq}."
                assert [int(m["id"]) for m in live] == [record.prompt_message_id]
                acts = [b["custom_id"] for b in buttons(live[0]) if ":act:" in b["custom_id"]]
                assert acts and all(cid.startswith(prefix) for cid in acts)
            else:
                assert live == []
        assert game.is_terminal(state)
        assert (await store.load_game(gid)).status == "finished"

        # The completed moves: distinct (game turn, seat) of the logged actions.
        moves = {PRESENTER.move_key(s) for s, _ in await replayed(store, gid)}
        assert None not in moves and len(moves) > 2

        files = [f for c in d.backend.calls[mark:] for f in c.files]
        boards = [f for f in files if "board" in f.filename]
        assert all(f.is_png for f in boards)
        assert len(boards) == len(moves)
        results = [f for f in files if f.filename.endswith("result.png")]
        assert len(results) == 1 and results[0].is_png
        assert re.search(r"Classification", list(d.backend.messages.values())[-1]["content"])


async def test_a_database_fault_mid_click_tells_the_player_and_changes_nothing(
    tmp_path: Path,
) -> None:
    """The disk fills (or the file locks) as a move is stored: the player is told in one
    line that nothing changed, the race is as it was, and the same click works afterwards."""
    from bot.errors import STORE_DOWN
    from store.errors import StoreUnavailable

    async with InProcessDriver(make_bot(tmp_path / "down.db"), world()) as d:
        gid = await start_race(d, laps=1, robots=0)
        store = d.bot.store
        before = await store.load_game(gid)
        real = store.append_actions

        async def full(*args: Any, **kwargs: Any) -> int:
            raise StoreUnavailable(store.path, "the disk is full")

        store.append_actions = full
        game, state, seq = await state_of(d, gid)
        seat = game.to_act(state)[0]
        user = await seat_user(d, gid, seat)
        prompt = latest_with(d, f"pd:f1:{gid}:act:{seq}.")
        assert prompt is not None
        custom_id = buttons(prompt)[0]["custom_id"]
        d.raise_errors = False  # the operator's ERROR log line is expected here
        refused = await d.click(custom_id, user=user, message_id=int(prompt["id"]))
        d.raise_errors = True
        assert refused.ephemeral and refused.content == STORE_DOWN
        (logged,) = refused.errors  # one line for the operator, naming the file
        assert "down.db: the disk is full" in logged.getMessage()
        after = await store.load_game(gid)
        assert (after.seq, after.state_json) == (before.seq, before.state_json)

        store.append_actions = real
        await d.click(custom_id, user=user, message_id=int(prompt["id"]))
        assert (await store.load_game(gid)).seq > before.seq


def test_the_bot_process_returns_freed_image_buffers() -> None:
    """On glibc the mmap threshold is fixed (see bot/memory.py); elsewhere nothing is done."""
    import platform

    from bot.memory import tune_malloc

    assert tune_malloc() is (sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc")


def test_the_bot_lets_the_event_loop_have_the_gil_back_within_a_millisecond(
    tmp_path: Path,
) -> None:
    """A bot built as `paddock run` builds it sets the switch interval (bot/threads.py)."""
    from bot.threads import SWITCH_INTERVAL_S

    before = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)
        make_bot(tmp_path / "gil.db")
        assert abs(sys.getswitchinterval() - SWITCH_INTERVAL_S) < 1e-9
    finally:
        sys.setswitchinterval(before)


async def test_the_bot_collects_young_less_often_and_freezes_its_start_up(
    tmp_path: Path,
) -> None:
    """A bot built as `paddock run` builds it collects the youngest generation every 5,000
    objects, and once its images are warm freezes what start-up built (bot/memory.py)."""
    import gc

    from bot.memory import YOUNG_THRESHOLD

    before = gc.get_threshold()
    gc.unfreeze()
    try:
        bot = make_bot(tmp_path / "gc.db")
        assert gc.get_threshold() == (YOUNG_THRESHOLD, before[1], before[2])
        async with InProcessDriver(bot, world()):
            assert bot.images_warm is not None
            await bot.images_warm
            assert gc.get_freeze_count() > 10_000  # modules, commands, image caches
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


async def test_images_are_drawn_by_the_image_threads_at_most_three_at_once(
    image_threads: None,
) -> None:
    """With PADDOCK_IMAGE_PROCESSES=0, `draw` uses bot/threads.py's pool: however many images
    are asked for at once, no more than IMAGE_THREADS are in memory being drawn, each in a
    `paddock-image` thread."""
    import threading
    import time

    from bot.presenter import Image
    from bot.table import draw
    from bot.threads import IMAGE_THREADS

    guard = threading.Lock()
    drawing, most, names = 0, 0, set()

    def one() -> bytes:
        nonlocal drawing, most
        with guard:
            drawing += 1
            most = max(most, drawing)
            names.add(threading.current_thread().name)
        time.sleep(0.02)
        with guard:
            drawing -= 1
        return b"png"

    files = await draw([Image(f"{i}.png", one) for i in range(12)])
    assert [f.filename for f in files] == [f"{i}.png" for i in range(12)]
    assert most == IMAGE_THREADS == 3
    assert names and all(n.startswith("paddock-image") for n in names)


def test_freed_heap_memory_goes_back_at_most_every_thirty_seconds() -> None:
    """bot/memory.py's Trimmer: nothing before `every` seconds, one trim once they have
    passed, none again until another `every` seconds have."""
    from bot.memory import TRIM_EVERY_S, Trimmer

    now, trims = [100.0], []
    trimmer = Trimmer(trims.append, clock=lambda: now[0])
    assert not trimmer.now_and_then() and trims == []
    now[0] += TRIM_EVERY_S - 0.1
    assert not trimmer.now_and_then() and trims == []
    now[0] += 0.2
    assert trimmer.now_and_then() and trims == [0]  # malloc_trim(0): trim every heap
    assert not trimmer.now_and_then() and trims == [0]
    now[0] += TRIM_EVERY_S
    assert trimmer.now_and_then() and trims == [0, 0] and trimmer.trims == 2
    assert not Trimmer(None, clock=lambda: now[0] + 1e6).now_and_then()  # not glibc


def test_glibc_malloc_trim_is_found_where_glibc_runs() -> None:
    import platform

    from bot.memory import TRIMMER

    glibc = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
    assert (TRIMMER.trim is not None) is glibc


async def test_drawing_images_trims_the_heap_when_a_trim_is_due(
    monkeypatch: pytest.MonkeyPatch, image_threads: None
) -> None:
    """`draw` gives the image thread's turn to the trimmer after each image: a trim due is
    made there (off the event loop), one only however many images. (A worker process trims
    its own heap the same way: bot/drawing.py `drawn`.)"""
    import bot.drawing
    import bot.table.core as table
    from bot import memory
    from bot.presenter import Image

    now, trims = [0.0], []
    trimmer = memory.Trimmer(trims.append, clock=lambda: now[0])
    monkeypatch.setattr(bot.drawing, "TRIMMER", trimmer)
    await table.draw([Image("a.png", lambda: b"png")])
    assert trims == []
    now[0] = memory.TRIM_EVERY_S
    files = await table.draw([Image(f"{i}.png", lambda: b"png") for i in range(4)])
    assert len(files) == 4 and trims == [0]
