"""Dead games end by themselves: a race nobody acts in for its idle days is abandoned with a
notice, and a lobby nobody starts is closed."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from bot.table.ending import ARCHIVE
from paddock_tools.bots import make_bot, world
from paddock_tools.f1_driver import buttons, settled
from paddock_tools.fakediscord import ALICE, BOB, InProcessDriver


async def wait_status(d: InProcessDriver, gid: int, status: str) -> None:
    for _ in range(300):
        if (await d.bot.store.load_game(gid)).status == status:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"game #{gid} never became {status}")


async def test_a_race_nobody_plays_is_abandoned_after_its_idle_days(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "idle.db"), world()) as d:
        await d.slash("f1", "new", laps=1, turn_minutes=60, idle_days=1, user=ALICE)
        (gid,) = [g.id for g in await d.bot.store.list_games()]
        await d.click(f"pd:f1:{gid}:join", user=BOB)
        await d.click(f"pd:f1:{gid}:start", user=ALICE)
        await settled(d, gid)
        started = time.time()
        # Half a day later nothing is abandoned: the robot drives the absent drivers' moves.
        d.bot.timers.clock = lambda: started + 43_200
        d.bot.timers.poke()
        for _ in range(100):
            await asyncio.sleep(0.02)
            if any(a.actor.startswith("timeout:") for a in await d.bot.store.actions(gid)):
                break
        assert (await d.bot.store.load_game(gid)).status == "running"
        # Past a day with nobody acting: abandoned, with a notice, and nothing left armed.
        d.bot.timers.clock = lambda: started + 86_400 + 60
        d.bot.timers.poke()
        await wait_status(d, gid, "abandoned")
        notice = "Nobody has acted in this race for 1 days"
        for _ in range(250):  # the notice is posted once the abandon is stored
            texts = [str(m.get("content")) for m in d.backend.messages.values()]
            if any(notice in t for t in texts):
                break
            await asyncio.sleep(0.02)
        assert any(notice in t for t in texts)
        # Nothing left armed but the thread's archiving (tests/table/test_bot_archive.py).
        assert [t.event for t in await d.bot.store.timers(gid)] == [ARCHIVE]
        live = [
            m
            for m in d.backend.messages.values()
            if any(b["custom_id"].startswith(f"pd:f1:{gid}:act:") for b in buttons(m))
        ]
        assert live == []  # the last prompt lost its buttons


async def test_a_lobby_nobody_starts_is_closed(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "lobby.db"), world()) as d:
        await d.slash("f1", "new", idle_days=2, user=ALICE)
        (gid,) = [g.id for g in await d.bot.store.list_games()]
        assert [t.event for t in await d.bot.store.timers(gid)] == ["f1_idle"]
        d.bot.timers.clock = lambda: time.time() + 2 * 86_400 + 60
        d.bot.timers.poke()
        await wait_status(d, gid, "abandoned")
        texts = [str(m.get("content")) for m in d.backend.messages.values()]
        assert any("This lobby was not started within 2 days" in t for t in texts)
        lobby = (await d.bot.store.load_game(gid)).status_message_id
        assert buttons(d.backend.messages[lobby]) == []  # the lobby lost its buttons
