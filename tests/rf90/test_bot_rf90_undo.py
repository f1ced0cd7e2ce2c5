"""An RF90 card play taken back before the next activation (issue 27): the cockpit's answer
carries an Undo button only for a card play that drew and turned over nothing; pressed, the
race is as before the play (state and timers, byte for byte), its lines are not told as if
they stood, and the cockpit asks again; `paddock verify` is clean."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.cogs.rf90.presenter import RF90Presenter
from paddock_tools.bots import make_bot, world
from paddock_tools.fakediscord import InProcessDriver
from paddock_tools.rf90_driver import decide, loaded, prompt_of
from rules.rf90 import GAME
from store.undo import UNDO, mark_of
from store.verify import verify_store
from tests.rf90.rf90_helpers import SEED, open_race

PRESENTER = RF90Presenter()


def undoable_play(options: list[Any], state: Any) -> Any | None:
    """A card play whose take-back the rules allow and after which the same driver decides
    again (no forced move, no robot, in between): the seat's next step of its turn."""
    for action in options:
        if action.kind != "play_cards":
            continue
        after, events = GAME.apply(state, action)
        if GAME.undo_refusal(state, after, action.seat, events) is not None:
            continue
        if PRESENTER.waiting_seats(after) == [action.seat] and (
            len(GAME.legal_actions(after, action.seat)) > 1
        ):
            return action
    return None


async def test_a_card_play_is_taken_back_before_the_next_activation(tmp_path: Path) -> None:
    d = InProcessDriver(make_bot(tmp_path / "rf90-undo.db"), world())
    await d.start()
    try:
        gid = await open_race(d, seed=SEED)
        for _ in range(400):
            now = await loaded(d, gid)
            seat = PRESENTER.waiting_seats(now.state)[0]
            options = GAME.legal_actions(now.state, seat)
            wanted = undoable_play(options, now.state)
            if wanted is not None:
                break
            calls = await decide(d, gid, seat)
            assert not any(":undo:" in cid for c in calls for cid in c.custom_ids) or any(
                c.ephemeral for c in calls
            )
        else:
            raise AssertionError("no card play that may be taken back")
        store = d.bot.store
        before = (await store.load_game(gid)).state_json
        timers = [(t.event, t.due_at, t.payload) for t in await store.timers(gid)]
        activation = now.state.activation
        lines = PRESENTER.event_lines(GAME.apply(now.state, wanted)[1])
        assert lines

        earlier = set(d.backend.messages)
        calls = await decide(d, gid, seat, choose=lambda options, state: wanted)
        (answer,) = [
            c for c in calls if c.kind == "edit_original" and c.content == "Done: decision sent."
        ]
        assert answer.ephemeral and answer.content == "Done: decision sent."
        (undo,) = answer.custom_ids
        seq = (await store.load_game(gid)).seq
        assert undo == f"pd:rf90:{gid}:undo:{seq}"
        prompt = prompt_of(d, gid)
        assert all(line in prompt["content"] for line in lines)  # a step of the turn

        user = now.seats[seat].user_id
        assert user is not None
        undone = await d.click(undo, user=user, message_id=int(answer.message["id"]))
        assert undone.answer.content.startswith("↩️ Taken back: ")
        record = await store.load_game(gid)
        assert record.state_json == before  # byte for byte
        assert [(t.event, t.due_at, t.payload) for t in await store.timers(gid)] == timers
        log = await store.actions(gid)
        mark = mark_of(log[-1])
        assert mark is not None and mark.kind == UNDO and mark.to == seq - 1
        after = await loaded(d, gid)
        assert after.state.activation == activation  # before the next activation
        assert PRESENTER.waiting_seats(after.state) == [seat]
        # Asked again: one live prompt, the play's lines nowhere as if they stood.
        again = prompt_of(d, gid)
        assert int(again["id"]) != int(prompt["id"])
        assert "took back their last decision." in again["content"]
        for key, message in d.backend.messages.items():
            if key in earlier and key != int(prompt["id"]) or int(message.get("flags") or 0) & 64:
                continue  # (earlier turns may have said the same)
            text = message.get("content") or ""
            assert not any(line in text for line in lines), (lines, text)
        # The same play again: it plays as it did the first time.
        await decide(d, gid, seat, choose=lambda options, state: wanted)
        assert (await loaded(d, gid)).state == GAME.apply(now.state, wanted)[0]
        assert (await verify_store(store)).ok
    finally:
        await d.close()
