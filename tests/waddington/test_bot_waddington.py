"""A whole Waddington's race through discord.py's real command tree: two users and a robot,
an out-of-turn click refused, a turn timed out and driven by the robot, and a restart of the
bot mid-race that carries on exactly where it was."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from bot.table.ending import ARCHIVE
from paddock_tools.bots import make_bot, world
from paddock_tools.f1_driver import latest_with, play_one_click, seat_user, settled, state_of
from paddock_tools.fakediscord import ALICE, BOB, CAROL, InProcessDriver
from store.verify import verify_store
from tests.bot_helpers import dump


@pytest.mark.image_processes  # as `paddock run` draws: every picture sent to a worker
async def test_full_race_two_users_and_a_robot(tmp_path: Path) -> None:
    db = tmp_path / "race.db"
    d = InProcessDriver(make_bot(db), world())
    await d.start()
    opened = await d.slash("f1", "new", laps=1, robots=1, turn_minutes=60, user=ALICE)
    assert any("lobby open" in (c.content or "") for c in opened)
    threads = [c for c in d.backend.calls if c.kind == "create_thread"]
    assert threads
    gid = (await d.bot.store.list_games())[0].id
    join = await d.click(f"pd:f1:{gid}:join", user=BOB)
    assert "bob" in json.dumps(join.last.json)
    refused = await d.click(f"pd:f1:{gid}:start", user=BOB)
    assert refused.ephemeral and "Only the host" in refused.content
    started = await d.click(f"pd:f1:{gid}:start", user=ALICE)
    assert not started.ephemeral
    record = await d.bot.store.load_game(gid)
    assert record.status == "running"
    seats = await d.bot.store.seats(gid)
    assert [s.robot for s in seats] == [False, False, True]
    boards = [f for c in d.backend.calls for f in c.files if "board" in f.filename]
    assert boards and boards[-1].is_png

    # An out-of-turn click: refused, ephemeral, nothing stored.
    game, state, seq = await state_of(d, gid)
    seat = game.to_act(state)[0]
    other = BOB if (await seat_user(d, gid, seat)) is ALICE else ALICE
    before = await dump(d.bot.store)
    wrong = await d.click(f"pd:f1:{gid}:act:{seq}.0", user=other)
    assert wrong.ephemeral and "It's not your turn" in wrong.content
    stranger = await d.click(f"pd:f1:{gid}:act:{seq}.0", user=CAROL)
    assert stranger.ephemeral and "not your turn" in stranger.content
    assert await dump(d.bot.store) == before

    # A few moves, then the bot restarts mid-race.
    for _ in range(6):
        await play_one_click(d, gid)
    _, state_before, seq_before = await state_of(d, gid)
    prompt_before = latest_with(d, f"pd:f1:{gid}:act:{seq_before}.")
    assert prompt_before is not None
    messages, threads_kept = dict(d.backend.messages), dict(d.backend.threads)
    await d.close()

    d = InProcessDriver(make_bot(db), world())
    d.backend.messages.update(messages)  # Discord keeps the thread and its messages
    d.backend.threads.update(threads_kept)
    await d.start()
    _, state_after, seq_after = await state_of(d, gid)
    assert seq_after == seq_before and state_after == state_before
    await play_one_click(d, gid)  # the old prompt's buttons still work

    # A timed-out turn: the reminder, then the robot drives for the absent driver.
    game, state, seq = await state_of(d, gid)
    while state.turn.phase != "speed":
        await play_one_click(d, gid)
        game, state, seq = await state_of(d, gid)
    absent = game.to_act(state)[0]
    timers = await d.bot.store.timers(gid)
    assert [t.event for t in timers] == ["f1_reminder", "f1_timeout", "f1_idle"]
    deadline = timers[1].due_at
    prompt = latest_with(d, f"pd:f1:{gid}:act:{seq}.")
    assert f"<t:{int(deadline)}:R>" in prompt["content"]  # the deadline, in the reader's zone
    d.bot.timers.clock = lambda: deadline + 1  # an hour passes
    d.bot.timers._restart()
    for _ in range(500):
        await asyncio.sleep(0.02)
        if any(a.actor.startswith("timeout:") for a in await d.bot.store.actions(gid)):
            break
    await settled(d, gid)
    log = await d.bot.store.actions(gid)
    timed_out = [a for a in log if a.actor.startswith("timeout:")]
    assert timed_out and all(a.by_robot for a in timed_out)
    assert json.loads(timed_out[0].action_json)["seat"] == absent
    sent = " ".join(str(m.get("content")) for m in d.backend.messages.values())
    assert "ran out of time" in sent and "your move in race" in sent
    d.bot.timers.clock = __import__("time").time
    d.bot.timers._restart()

    # Play to the end.
    for _ in range(400):
        game, state, _ = await state_of(d, gid)
        if game.is_terminal(state):
            break
        await play_one_click(d, gid)
    assert game.is_terminal(state)
    record = await d.bot.store.load_game(gid)
    assert record.status == "finished"
    last = list(d.backend.messages.values())[-1]
    assert "Classification" in last["content"]
    assert any(f.filename.endswith("result.png") for c in d.backend.calls for f in c.files)
    assert (await verify_store(d.bot.store)).ok
    # Nothing left armed but the thread's archiving (tests/table/test_bot_archive.py).
    assert [t.event for t in await d.bot.store.timers(gid)] == [ARCHIVE]
    await d.close()


async def test_league_round_race_records_points_once(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "lg.db"), world()) as d:
        await d.slash("league", "create", name="Cup", game="waddington", user=ALICE)
        await d.slash("league", "join", league="Cup", user=ALICE)
        await d.slash(
            "league-admin", "round-set", league="Cup", number=1, name="Aintree", user=ALICE
        )
        half = await d.slash("f1", "new", league="Cup", laps=1, user=ALICE)
        assert half.ephemeral and "both `league` and `round`" in half.content
        nonmember = await d.slash("f1", "new", league="Cup", round=1, user=BOB)
        assert nonmember.ephemeral and "Join **Cup (season 1)** first" in nonmember.content
        await d.slash("f1", "new", league="Cup", round=1, laps=1, robots=1, user=ALICE)
        (gid,) = [g.id for g in await d.bot.store.list_games()]
        refused = await d.click(f"pd:f1:{gid}:join", user=BOB)
        assert refused.ephemeral and "join **Cup (season 1)** first" in refused.content
        await d.slash("league", "join", league="Cup", user=BOB)
        await d.click(f"pd:f1:{gid}:join", user=BOB)
        await d.click(f"pd:f1:{gid}:start", user=ALICE)
        await settled(d, gid)
        for _ in range(400):
            game, state, _ = await state_of(d, gid)
            if game.is_terminal(state):
                break
            await play_one_click(d, gid)
        league = await d.bot.store.get_league(d.world.guild_id, "Cup")
        results = await d.bot.store.results(league.id)
        seats = {s.seat: s for s in await d.bot.store.seats(gid)}
        # The league's default: members are placed by their order among members (the
        # robot's place is not theirs to take).
        humans = [p for p in game.classification(state) if not seats[p.seat].robot]
        expected = sorted((seats[p.seat].user_id, i + 1) for i, p in enumerate(humans))
        members = {m.id: m.user_id for m in await d.bot.store.members(league.id)}
        assert sorted((members[r.member_id], r.place) for r in results) == expected
        assert all(r.source == "game" and r.game_id == gid for r in results)
        *_, finish, wrapup = d.backend.messages.values()
        assert "League points (Cup (season 1), recorded)" in finish["content"]
        # The calendar's one round raced: the season's wrap-up follows (tests/league).
        assert wrapup["embeds"][0]["title"] == "Cup: season 1 wrap-up"
        standings = await d.slash("league", "standings", league="Cup")
        points = {1: 10, 2: 8, 3: 6}
        for user_id, place in expected:
            name = {ALICE.id: "alice", BOB.id: "bob"}[user_id]
            assert f"{name}" in standings.last.embed.description
            assert f"{points[place]:>4} pts" in standings.last.embed.description
