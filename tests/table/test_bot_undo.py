"""A driver's undo (issue 27) through /f1 and the fake Discord: a misclicked speed taken back
with the Undo button (state and timers as before the click, byte for byte; the line not told
again; asked again; `paddock verify` clean), a completed move's board and prompt marked as
taken back, the refusals in one line (after the dice, another driver's move, an undo of an
undo, an old Undo button), an undo racing a move (one winner, the loser told), and
`/pit undo` refused."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.table.undo import WITHDRAWN
from paddock_tools.bots import make_bot, world
from paddock_tools.f1_driver import buttons, latest_with, seat_user, state_of
from paddock_tools.fakediscord import ALICE, BOB, CAROL, InProcessDriver
from paddock_tools.fakediscord import payloads as pl
from paddock_tools.fakediscord.backend import Calls
from rules.base import get_game
from store import play
from store.undo import UNDO, mark_of
from store.verify import verify_store
from tests.bot_helpers import dump

TAKEN = "↩️ Taken back:"


@pytest.fixture
async def d(tmp_path: Path) -> Any:
    driver = InProcessDriver(make_bot(tmp_path / "undo.db"), world())
    await driver.start()
    yield driver
    await driver.close()


async def race(d: InProcessDriver) -> tuple[int, int]:
    """ALICE and BOB race (no robots); the game id and its thread."""
    await d.slash("f1", "new", laps=2, robots=0, turn_minutes=60, user=ALICE)
    (gid,) = [g.id for g in await d.bot.store.list_games()]
    await d.click(f"pd:f1:{gid}:join", user=BOB)
    await d.click(f"pd:f1:{gid}:start", user=ALICE)
    record = await d.bot.store.load_game(gid)
    assert record.thread_id is not None
    return gid, record.thread_id


async def now(d: InProcessDriver, gid: int) -> tuple[Any, Any, int, int, pl.FakeUser]:
    """The game, its state, seq, the seat to act and its user."""
    game, state, seq = await state_of(d, gid)
    seat = game.to_act(state)[0]
    return game, state, seq, seat, await seat_user(d, gid, seat)


async def snapshot(d: InProcessDriver, gid: int) -> tuple[str | None, list[Any]]:
    """The stored state's JSON and the game's timers (without their row ids)."""
    record = await d.bot.store.load_game(gid)
    timers = [(t.event, t.due_at, t.payload) for t in await d.bot.store.timers(gid)]
    return record.state_json, timers


async def click(d: InProcessDriver, gid: int, index: int) -> Calls:
    """The driver to act presses the index-th legal action on the prompt."""
    _, _, seq, _, user = await now(d, gid)
    prompt = latest_with(d, f"pd:f1:{gid}:act:{seq}.")
    assert prompt is not None
    return await d.click(f"pd:f1:{gid}:act:{seq}.{index}", user=user, message_id=int(prompt["id"]))


def offer(calls: Calls) -> tuple[str, int] | None:
    """The Undo button a click's private answer carries: (custom_id, message id)."""
    for call in calls.messages:
        for cid in call.custom_ids:
            if ":undo:" in cid:
                assert call.ephemeral  # never on a public message
                return cid, int(call.message["id"])
    return None


def thread_texts(d: InProcessDriver, thread: int) -> list[str]:
    return [
        m.get("content") or ""
        for m in d.backend.messages.values()
        if int(m.get("channel_id") or 0) == thread and not int(m.get("flags") or 0) & 64
    ]


async def robot_choice(d: InProcessDriver, gid: int) -> int:
    game, state, _, seat, _ = await now(d, gid)
    return game.legal_actions(state, seat).index(game.robot_action(state, seat))


def prompt_index(game: Any, state: Any, seat: int, kinds: tuple[str, ...]) -> int | None:
    """The index of the first legal action of these kinds (those the prompt offers)."""
    for i, action in enumerate(game.legal_actions(state, seat)):
        if action.kind in kinds:
            return i
    return None


async def verified(d: InProcessDriver) -> None:
    report = await verify_store(d.bot.store)
    assert report.ok, report


async def test_a_misclicked_speed_is_taken_back_as_if_never_clicked(d: InProcessDriver) -> None:
    gid, thread = await race(d)
    game, state, seq, seat, user = await now(d, gid)
    name = (await d.bot.store.seats(gid))[seat].name
    before = await snapshot(d, gid)
    labels = [b["label"] for b in buttons(latest_with(d, f"pd:f1:{gid}:act:{seq}.") or {})]

    clicked = await click(d, gid, 0)  # the slowest speed, by mistake
    said = game.apply(state, game.legal_actions(state, seat)[0])[1][0].text  # "… sets N mph."
    (answer,) = [c for c in clicked.messages if c.ephemeral]
    assert answer.content == f"Played: {said}"
    found = offer(clicked)
    assert found is not None and found[0] == f"pd:f1:{gid}:undo:{seq + 1}"
    old_prompt = latest_with(d, f"pd:f1:{gid}:act:{seq + 1}.")
    assert old_prompt is not None and said in old_prompt["content"]  # a step of the move

    # Another driver's click on it, and an undo by someone not racing: refused, unchanged.
    kept = await dump(d.bot.store)
    other = BOB if user is ALICE else ALICE
    stolen = await d.click(found[0], user=other, message_id=found[1])
    assert stolen.ephemeral
    assert stolen.content == "Only the driver who made that decision can take it back."
    stranger = await d.slash("f1", "undo", user=CAROL, channel_id=thread)
    assert stranger.ephemeral and stranger.content == "You have nothing to take back."
    assert await dump(d.bot.store) == kept

    undone = await d.click(found[0], user=user, message_id=found[1])
    assert undone.answer.ephemeral
    assert undone.answer.content == f"↩️ Taken back: {said} Make your decision again below."
    assert d.backend.messages[found[1]]["components"] == []  # its button is gone
    # The race as before the click, byte for byte, the deadline and timers included.
    assert await snapshot(d, gid) == before
    log = await d.bot.store.actions(gid)
    mark = mark_of(log[-1])
    assert mark is not None and mark.kind == UNDO and mark.to == seq
    assert log[-1].actor == str(user.id) and log[-1].seq == seq + 2
    # The thread is told; the old prompt lost its buttons and its speed line; the decision is
    # asked again with the same buttons; the speed is told nowhere as if it stood.
    assert f"↩️ {name} took back their last decision." in "\n".join(thread_texts(d, thread))
    old = d.backend.messages[int(old_prompt["id"])]
    assert buttons(old) == [] and old["content"] == WITHDRAWN
    again = latest_with(d, f"pd:f1:{gid}:act:{seq + 2}.")
    assert again is not None and [b["label"] for b in buttons(again)] == labels
    assert not any(said in text for text in thread_texts(d, thread))
    # Nor by /f1 log: the entry is there, what it did is not.
    logged = await d.slash("f1", "log", user=CAROL, channel_id=thread)
    assert f"`{seq + 1}` {name}: (taken back)" in logged.content
    assert f"`{seq + 2}` ↩️ {name} took back their last decision." in logged.content
    assert said not in logged.content
    await verified(d)

    # An undo of the undo: refused, nothing changed.
    kept = await dump(d.bot.store)
    twice = await d.slash("f1", "undo", user=user, channel_id=thread)
    assert twice.ephemeral and twice.content == "That was already taken back."
    assert await dump(d.bot.store) == kept

    # The same speed clicked again plays as the first time did.
    again_clicked = await click(d, gid, 0)
    assert offer(again_clicked) is not None
    _, state_now, _ = await state_of(d, gid)
    assert state_now == game.apply(state, game.legal_actions(state, seat)[0])[0]
    await verified(d)


async def completed_move(d: InProcessDriver, gid: int) -> tuple[Calls, Any, tuple[str, int]]:
    """Play on (as the robots would) until a driver's decision completes their move, may be
    taken back and hands over to the other driver: its calls, the state before it, its Undo."""
    for _ in range(80):
        game, state, _, seat, _ = await now(d, gid)
        index = await robot_choice(d, gid)
        if state.turn.phase == "after_move":  # end the move rather than play a card
            proceed = prompt_index(game, state, seat, ("proceed",))
            index = index if proceed is None else proceed
        before = await snapshot(d, gid)
        calls = await click(d, gid, index)
        _, after, _, next_seat, _ = await now(d, gid)
        found = offer(calls)
        if found is not None and next_seat != seat:
            return calls, before, found
    raise AssertionError("no undoable decision completed a move")


async def test_a_completed_move_undone_marks_its_board_and_prompt_as_taken_back(
    d: InProcessDriver,
) -> None:
    gid, thread = await race(d)
    calls, before, (undo_id, carrier) = await completed_move(d, gid)
    _, _, seq, seat, _ = await now(d, gid)
    posted = [c for c in calls if c.kind == "channel_message" and c.status == 200]
    boards = [c for c in posted if any("board" in f.filename for f in c.files)]
    assert boards, "a completed move posts its board"
    prompt = latest_with(d, f"pd:f1:{gid}:act:{seq}.")
    assert prompt is not None
    ids = [int(c.message["id"]) for c in posted]
    texts = {i: d.backend.messages[i]["content"] for i in ids}
    mover = int(undo_id.split(":")[-1])
    assert mover == seq
    user = pl.ALICE if (await seat_user(d, gid, seat)) is BOB else BOB

    undone = await d.click(undo_id, user=user, message_id=carrier)
    assert undone.answer.content.startswith("↩️ Taken back:")
    assert await snapshot(d, gid) == before
    for i in ids:  # edited, not deleted: marked, its words withdrawn, the images kept
        message = d.backend.messages[i]
        assert message["content"] == WITHDRAWN, message["content"]
        assert texts[i] and texts[i] != WITHDRAWN
    assert all(d.backend.messages[int(c.message["id"])]["attachments"] for c in boards)
    assert buttons(d.backend.messages[int(prompt["id"])]) == []
    game, state, seq_now, seat_now, now_user = await now(d, gid)
    assert now_user is user and seq_now == seq + 1
    assert latest_with(d, f"pd:f1:{gid}:act:{seq_now}.") is not None  # asked again
    await verified(d)


async def test_no_undo_once_another_driver_moved_nor_after_the_dice(
    d: InProcessDriver,
) -> None:
    gid, thread = await race(d)
    # A move completed, then the other driver's click: the undo names them.
    calls, _, (undo_id, carrier) = await completed_move(d, gid)
    _, _, _, seat, other = await now(d, gid)
    mover = BOB if other is ALICE else ALICE
    await click(d, gid, await robot_choice(d, gid))
    other_name = (await d.bot.store.seats(gid))[seat].name
    kept = await dump(d.bot.store)
    late = await d.slash("f1", "undo", user=mover, channel_id=thread)
    assert late.ephemeral
    assert late.content == f"{other_name} has moved since: you can't take that back."
    old = await d.click(undo_id, user=mover, message_id=carrier)
    assert old.content == "That decision can no longer be taken back: the race moved on."
    assert await dump(d.bot.store) == kept

    # A throw of the dice: no Undo offered, and `/f1 undo` says why in one line.
    for _ in range(120):
        game, state, seq, seat, user = await now(d, gid)
        index = await robot_choice(d, gid)
        legal = game.legal_actions(state, seat)
        if state.turn.phase == "speed":  # flat out: a corner's dice come soon
            index = max(i for i, a in enumerate(legal) if a.kind == "set_speed")
        elif state.turn.phase == "move":  # as far as it goes
            index = max(i for i, a in enumerate(legal) if a.kind == "move")
        elif state.turn.phase == "after_move":
            index = next(i for i, a in enumerate(legal) if a.kind == "proceed")
        action = legal[index]
        after = game.apply(state, action)[0]
        calls = await click(d, gid, index)
        if after.rng != state.rng and not game.is_terminal(after):  # the dice were thrown
            break
    else:
        raise AssertionError("nobody threw the dice")
    assert offer(calls) is None
    kept = await dump(d.bot.store)
    refused = await d.slash("f1", "undo", user=user, channel_id=thread)
    assert refused.ephemeral
    assert refused.content == "You can't take that back: the dice have been rolled."
    assert await dump(d.bot.store) == kept


async def test_an_undo_racing_the_next_move_leaves_one_winner_and_tells_the_loser(
    d: InProcessDriver,
) -> None:
    gid, thread = await race(d)
    _, before, (undo_id, carrier) = await completed_move(d, gid)
    game, state, seq, seat, next_user = await now(d, gid)
    mover = BOB if next_user is ALICE else ALICE
    index = await robot_choice(d, gid)
    prompt = latest_with(d, f"pd:f1:{gid}:act:{seq}.")
    assert prompt is not None

    undo, move = await asyncio.gather(
        d.slash("f1", "undo", user=mover, channel_id=thread),
        d.click(f"pd:f1:{gid}:act:{seq}.{index}", user=next_user, message_id=int(prompt["id"])),
    )
    log = await d.bot.store.actions(gid)
    if mark_of(log[-1]) is not None:  # the undo won: the move is refused as out of date
        assert await snapshot(d, gid) == before
        assert move.ephemeral and "out of date" in move.content
        assert undo.content.startswith("↩️ Taken back:")
    else:  # the move won: the undo names who moved
        name = (await d.bot.store.seats(gid))[seat].name
        assert log[-1].actor == str(next_user.id)
        assert undo.content == f"{name} has moved since: you can't take that back."
    assert sum(mark_of(e) is not None for e in log) <= 1
    await verified(d)


async def test_an_undo_another_process_beat_to_the_race_is_too_late(
    d: InProcessDriver,
) -> None:
    gid, thread = await race(d)
    await completed_move(d, gid)
    game, state, seq, seat, next_user = await now(d, gid)
    mover = BOB if next_user is ALICE else ALICE
    store: Any = d.bot.store
    take_back = store.take_back
    move = game.robot_action(state, seat)

    async def beaten(*args: Any, **kwargs: Any) -> int:
        # another shard's process stores the next driver's move first (the row lock's
        # sequence check then refuses the undo)
        await play.act(store, gid, move, str(next_user.id))
        return await take_back(*args, **kwargs)

    store.take_back = beaten
    try:
        late = await d.slash("f1", "undo", user=mover, channel_id=thread)
    finally:
        del store.take_back
    assert late.ephemeral
    assert late.content == "Too late: the race moved on before your undo arrived."
    log = await d.bot.store.actions(gid)
    assert log[-1].seq == seq + 1 and log[-1].actor == str(next_user.id)
    assert not any(mark_of(e) for e in log)
    _, state_now, _ = await state_of(d, gid)
    assert state_now == get_game("waddington").apply(state, move)[0]


async def test_pit_formula_refuses_undo_in_one_line(d: InProcessDriver) -> None:
    started = await d.slash("pit", "start", players=f"<@{BOB.id}>", races=1, user=ALICE)
    assert not started.errors
    refused = await d.slash("pit", "undo", user=ALICE)
    assert refused.ephemeral
    assert refused.content == (
        "Pit Formula is played in real time: nothing is taken back. "
        "Take your tokens off a card with `/pit clear` instead."
    )
