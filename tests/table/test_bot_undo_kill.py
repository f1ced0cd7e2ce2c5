"""An undo stored, then the bot killed (SIGKILL at the table's `after-take-back` fault point)
before anything was posted about it: at start-up the thread is told of the undo and asked
again, once, and `paddock verify` is clean."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from paddock_tools.bots import world
from paddock_tools.f1_driver import latest_with
from paddock_tools.fakediscord import ALICE, BOB
from paddock_tools.fakediscord.process import BotProcess, RemoteFakeDiscord
from store import SqliteStore
from store.undo import UNDO, mark_of
from store.verify import verify_store
from tests.waddington.waddington_helpers import db_state, remote_settled


async def test_an_undo_killed_after_its_commit_is_shown_after_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "undo-kill.db"
    async with RemoteFakeDiscord(world()) as fd:
        fault = {"PADDOCK_FAULT": "after-take-back:1"}  # the first take-back stored
        async with BotProcess(fd, db, env=fault) as first:
            await fd.slash("f1", "new", laps=1, robots=0, turn_minutes=60, user=ALICE)
            store = SqliteStore(db)
            await store.open(run_migrations=False)
            try:
                (gid,) = [g.id for g in await store.list_games()]
                await fd.click(f"pd:f1:{gid}:join", user=BOB)
                await fd.click(f"pd:f1:{gid}:start", user=ALICE)
                await remote_settled(fd, store, gid)
                record, game, state = await db_state(store, gid)
                seq, seat = record.seq, game.to_act(state)[0]
                before = record.state_json
                timers = [(t.event, t.due_at, t.payload) for t in await store.timers(gid)]
                seats = {s.seat: s for s in await store.seats(gid)}
                user = fd.world.user(seats[seat].user_id)  # type: ignore[arg-type]
                prompt = latest_with(fd, f"pd:f1:{gid}:act:{seq}.")
                assert prompt is not None
                played = await fd.click(
                    f"pd:f1:{gid}:act:{seq}.0", user=user, message_id=int(prompt["id"])
                )
                (offer,) = [c for c in played.messages if c.custom_ids and c.ephemeral]
                assert offer.custom_ids == [f"pd:f1:{gid}:undo:{seq + 1}"]
                await fd.wait_quiet()
                mark = fd.backend.mark()
                fd_click = asyncio.ensure_future(
                    fd.click(offer.custom_ids[0], user=user, message_id=int(offer.message["id"]))
                )
                await asyncio.wait_for(first.proc.wait(), 10)  # type: ignore[union-attr]
                assert first.returncode == -signal.SIGKILL
                assert any("PADDOCK_FAULT" in line for line in first.log)
                fd_click.cancel()

                # Stored, not shown: the mark and the state before the click.
                record = await store.load_game(gid)
                assert record.seq == seq + 2 and record.published_seq == seq + 1
                assert record.state_json == before
                assert [(t.event, t.due_at, t.payload) for t in await store.timers(gid)] == timers
                entry = (await store.actions(gid))[-1]
                undo = mark_of(entry)
                assert undo is not None and undo.kind == UNDO and undo.to == seq
                assert not any(
                    "took back" in (c.content or "")
                    for c in fd.backend.calls[mark:]
                    if c.is_message
                )

                async with BotProcess(fd, db) as second:  # READY once recovery has run
                    await fd.wait_quiet()
                    assert second.errors_since(0) == [], second.stderr_tail()
                    record = await store.load_game(gid)
                    assert record.published_seq == record.seq == seq + 2
                    told = [
                        c
                        for c in fd.backend.calls[mark:]
                        if c.kind == "channel_message"
                        and "took back their last decision." in (c.content or "")
                    ]
                    assert len(told) == 1
                    # asked again, once: the new prompt is the one live prompt
                    asked = [
                        c
                        for c in fd.backend.calls[mark:]
                        if c.kind == "channel_message"
                        and any(
                            cid.startswith(f"pd:f1:{gid}:act:{seq + 2}.") for cid in c.custom_ids
                        )
                    ]
                    assert len(asked) == 1
                    assert int(asked[0].message["id"]) == record.prompt_message_id
                    old = fd.backend.messages[int(prompt["id"])]
                    assert not [b for b in old.get("components") or []]
                    assert (await verify_store(store)).ok
            finally:
                await store.close()
