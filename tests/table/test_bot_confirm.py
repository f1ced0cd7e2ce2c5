"""A decision that can't be undone and changes a race asks Confirm first (issue 27 point 3),
through the command tree and the fake Discord: `/f1 retire` and a Tactic card that throws the
dice ask, only to their driver, and change nothing until Confirm; Cancel changes nothing; a
card that throws no dice plays at once; another user's Confirm is refused; a Confirm after
the race moved on, or after a restart, changes nothing and says so; `/games confirm:off`
plays at once. (RF90's pit stop: tests/rf90/test_bot_rf90_life.py.)"""

from __future__ import annotations

from pathlib import Path

from bot.table.confirm import AGAIN, CANCELLED, CONFIRMED, MOVED_ON, NOT_YOURS
from paddock_tools.bots import make_bot, world
from paddock_tools.f1_driver import buttons, latest_with, seat_user, start_race, state_of
from paddock_tools.fakediscord import ALICE, BOB, Calls, FakeUser, InProcessDriver
from rules.waddington import GAME, Move, PlayTactic, Retire, SetSpeed, WaddingtonState
from rules.waddington.scenario import build, card_of_type
from tests.bot_helpers import dump
from tests.waddington.waddington_helpers import play

TYRE = card_of_type("tyre_care")  # after the move, before the dice
SUPERB = card_of_type("superb_driving")  # before the move: no dice follow it
FAR = {"row": 40, "lane": 1}


async def race(d: InProcessDriver) -> tuple[int, int, int, FakeUser, FakeUser]:
    """A started /f1 race of ALICE and BOB: its id, thread, the seat to act, its driver and
    the other one."""
    gid = await start_race(d, laps=1, robots=0)
    thread = (await d.bot.store.load_game(gid)).thread_id
    assert thread is not None
    game, state, _ = await state_of(d, gid)
    seat = game.to_act(state)[0]
    driver = await seat_user(d, gid, seat)
    return gid, thread, seat, driver, BOB if driver is ALICE else ALICE


def answer(calls: Calls) -> tuple[str, list[str], bool]:
    """What the user who clicked or typed read as its answer: its text, buttons and whether
    only they saw it."""
    said = calls.answer
    return said.content or "", said.custom_ids, said.ephemeral


async def test_retiring_asks_first_cancel_changes_nothing_and_confirm_retires(
    tmp_path: Path,
) -> None:
    async with InProcessDriver(make_bot(tmp_path / "retire.db"), world()) as d:
        gid, thread, seat, driver, other = await race(d)
        _, state, seq = await state_of(d, gid)
        index = GAME.legal_actions(state, seat).index(Retire(seat=seat))
        before = await dump(d.bot.store)

        asked = await d.slash("f1", "retire", user=driver, channel_id=thread)
        text, ids, private = answer(asked)
        assert private and text.startswith("Retire your car (") and "can't be taken back" in text
        arg = f"{seq}.{seat}.{index}"  # the seq asked at, the seat, the action's index
        assert ids == [f"pd:f1:{gid}:confirm:{arg}", f"pd:f1:{gid}:confirm-no:{arg}"]
        assert all(c.ephemeral for c in asked.messages)  # nothing in the thread
        assert await dump(d.bot.store) == before  # asked, not played
        confirm, cancel = ids

        # Another user pressing Confirm is refused, only to them; nothing changes.
        refused = await d.click(confirm, user=other)
        assert answer(refused) == (NOT_YOURS, [], True)
        assert await dump(d.bot.store) == before

        # Cancel: not played, the question loses its buttons, nothing changes.
        cancelled = await d.click(cancel, user=driver)
        assert answer(cancelled) == (CANCELLED, [], True)
        assert await dump(d.bot.store) == before

        # Asked again, confirmed: exactly that action is played, by that driver.
        asked = await d.slash("f1", "retire", user=driver, channel_id=thread)
        confirm, _ = answer(asked)[1]
        done = await d.click(confirm, user=driver)
        assert answer(done) == (CONFIRMED, [], True)
        _, state, after = await state_of(d, gid)
        assert state.cars[seat].status == "retired" and after > seq
        first = (await d.bot.store.actions(gid))[seq]
        assert (first.seq, first.actor) == (seq + 1, str(driver.id))
        assert GAME.parse_action(first.action_json) == Retire(seat=seat)


async def test_a_confirm_after_the_race_moved_on_or_a_restart_changes_nothing(
    tmp_path: Path,
) -> None:
    db = tmp_path / "moved.db"
    d = InProcessDriver(make_bot(db), world())
    await d.start()
    try:
        gid, thread, seat, driver, _ = await race(d)
        _, _, seq = await state_of(d, gid)
        asked = await d.slash("f1", "retire", user=driver, channel_id=thread)
        confirm, _ = answer(asked)[1]

        # The driver plays on from the public prompt instead (a speed): the race moves on.
        prompt = latest_with(d, f"pd:f1:{gid}:act:{seq}.")
        assert prompt is not None
        speed = buttons(prompt)[0]["custom_id"]
        await d.click(speed, user=driver, message_id=int(prompt["id"]))
        _, moved, seq = await state_of(d, gid)
        before = await dump(d.bot.store)
        late = await d.click(confirm, user=driver)
        assert answer(late) == (MOVED_ON, [], True)
        assert await dump(d.bot.store) == before
        assert moved.cars[seat].status == "running"

        # Asked again at this seq; the bot restarts before the Confirm (its memory is gone).
        asked = await d.slash("f1", "retire", user=driver, channel_id=thread)
        confirm, _ = answer(asked)[1]
        assert confirm.startswith(f"pd:f1:{gid}:confirm:{seq}.{seat}.")
        messages, threads = dict(d.backend.messages), dict(d.backend.threads)
    finally:
        await d.close()
    async with InProcessDriver(make_bot(db), world()) as d:
        d.backend.messages.update(messages)  # Discord keeps the thread and its messages
        d.backend.threads.update(threads)
        before = await dump(d.bot.store)
        again = await d.click(confirm, user=driver)
        assert answer(again) == (AGAIN, [], True)
        assert await dump(d.bot.store) == before
        _, state, _ = await state_of(d, gid)
        assert state.cars[seat].status == "running"


async def test_with_confirmations_off_retiring_plays_at_once(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "off.db"), world()) as d:
        gid, thread, seat, driver, _ = await race(d)
        off = await d.slash("games", confirm="off", user=driver)
        assert "Confirm before a decision that can't be undone: off" in (off.content or "")
        retired = await d.slash("f1", "retire", user=driver, channel_id=thread)
        text, ids, _ = answer(retired)
        assert text.endswith(" retires.") and not any(":confirm" in i for i in ids)
        _, state, _ = await state_of(d, gid)
        assert state.cars[seat].status == "retired"
        on = await d.slash("games", confirm="on", user=driver)
        assert "Confirm before a decision that can't be undone: on" in (on.content or "")


async def put_state(d: InProcessDriver, gid: int, state: WaddingtonState) -> None:
    """The stored race moved to `state` (its seq kept): a position a test needs."""
    async with d.bot.store.transaction() as db:
        await db.execute(
            "UPDATE game_snapshots SET state_json = ? WHERE game_id = ?", (state.to_json(), gid)
        )


def position(mover: int, hand: list[str], *, moved: bool) -> WaddingtonState:
    """`mover`'s red car at 80 mph before Copse Corner (+20 over its safety speed) holding
    `hand`, the other car far ahead: before its move, or after it (the band to judge)."""
    red = {"colour": "Red", "row": 8, "lane": 1, "speed": 80, "hand": hand, "tyre": 2}
    cars = [red, FAR] if mover == 0 else [FAR, red]
    state = build(cars, to_move=mover, throws=[9], public_card_window=True)
    if moved:
        state, _ = play(state, SetSpeed(seat=mover, speed=80), Move(seat=mover, to=(12, 1)))
        assert state.turn is not None and state.turn.phase == "after_move"
    return state


async def play_card(
    d: InProcessDriver, gid: int, thread: int, driver: FakeUser, card: str
) -> tuple[Calls, int, int]:
    """The driver opens their hand and presses the card's button; the calls, the seq it
    was pressed at and the card's index among the legal actions."""
    game, state, seq = await state_of(d, gid)
    seat = game.to_act(state)[0]
    legal = game.legal_actions(state, seat)
    index = next(i for i, a in enumerate(legal) if isinstance(a, PlayTactic) and a.card == card)
    hand = await d.slash("f1", "hand", user=driver, channel_id=thread)
    custom_id = f"pd:f1:{gid}:act:{seq}.{index}"
    assert hand.ephemeral and custom_id in hand.last.custom_ids
    assert hand.last.message is not None
    played = await d.click(custom_id, user=driver, message_id=int(hand.last.message["id"]))
    return played, seq, index


async def test_a_card_that_throws_the_dice_asks_and_one_that_does_not_plays_at_once(
    tmp_path: Path,
) -> None:
    async with InProcessDriver(make_bot(tmp_path / "cards.db"), world()) as d:
        gid, thread, seat, driver, _ = await race(d)

        # After the move, before the dice: the card closes the window and the dice follow.
        await put_state(d, gid, position(seat, [TYRE, SUPERB], moved=True))
        before = await dump(d.bot.store)
        # Two questions open at once (the card, then retiring): each Confirm is its own.
        asked, seq, index = await play_card(d, gid, thread, driver, TYRE)
        retiring = await d.slash("f1", "retire", user=driver, channel_id=thread)
        text, ids, private = answer(asked)
        assert private and text.startswith("Play **Careful Driving: Tyre Wear -2**? It throws")
        arg = f"{seq}.{seat}.{index}"
        assert ids == [f"pd:f1:{gid}:confirm:{arg}", f"pd:f1:{gid}:confirm-no:{arg}"]
        assert await dump(d.bot.store) == before
        done = await d.click(ids[0], user=driver)
        assert answer(done) == (CONFIRMED, [], True)
        logged = (await d.bot.store.actions(gid))[seq]
        assert GAME.parse_action(logged.action_json) == PlayTactic(seat=seat, card=TYRE)
        thread_text = " ".join(
            str(m.get("content"))
            for m in d.backend.messages.values()
            if not int(m.get("flags") or 0) & 64
        )
        assert "took Copse" in thread_text and "threw 9" in thread_text  # the dice, once
        _, state, _ = await state_of(d, gid)
        assert state.cars[seat].status == "running"  # the card, not the retirement
        late = await d.click(answer(retiring)[1][0], user=driver)
        assert answer(late) == (MOVED_ON, [], True)

        # Before the move: no dice follow the card, so it is played at once.
        game, state, _ = await state_of(d, gid)
        mover = game.to_act(state)[0]
        who = await seat_user(d, gid, mover)
        await put_state(d, gid, position(mover, [SUPERB], moved=False))
        played, seq, _ = await play_card(d, gid, thread, who, SUPERB)
        text, ids, _ = answer(played)
        assert text == "Played." and not ids
        _, state, after = await state_of(d, gid)
        assert after == seq + 1 and SUPERB not in state.cars[mover].hand
        assert state.turn is not None and state.turn.superb
