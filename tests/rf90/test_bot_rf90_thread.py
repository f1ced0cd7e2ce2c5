"""An RF90 race's thread as its drivers read it (issues 28 and 29): a simultaneous pick shows
nothing of what anyone picked until the last pick, then all of it in one message; every
event line of the log appears in the thread exactly once, through restarts at each step of a
turn; every activation picture names its section; no text says "game turn 1" or "section 0"
before the start."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

from paddock_tools.bots import make_bot, world
from paddock_tools.fakediscord import ALICE, BOB, InProcessDriver
from paddock_tools.fakediscord.process import BotProcess, RemoteFakeDiscord
from paddock_tools.rf90_driver import PRESENTER, decide, loaded, prompt_of, seed_of, with_seed
from store import SqliteStore
from store.verify import verify_store
from tests.rf90.rf90_helpers import (
    SEED,
    assert_every_line_once,
    open_race,
    phase_of,
    remote_decide,
    remote_settled,
)

# 1. A simultaneous pick shows nothing until the last one -------------------------------------


async def test_the_substitute_car_is_asked_in_a_new_message_that_pings(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "sub.db"), world(), timeout=30) as d:
        gid = await open_race(d, seed=SEED)
        prompt = prompt_of(d, gid)
        assert "choose your skill and set-up" in prompt["content"]
        assert "game turn 1 of" not in prompt["content"]  # no game turn has begun
        assert "before the start" in prompt["content"]
        await decide(d, gid, 1)
        calls = await decide(d, gid, 0)
        asked = [c for c in calls if c.kind == "channel_message" and "substitute car" in c.content]
        assert len(asked) == 1
        assert {int(u) for u in asked[0].json["allowed_mentions"]["users"]} == {ALICE.id, BOB.id}
        assert prompt_of(d, gid)["id"] == asked[0].message["id"]  # the live prompt now
        assert "set-up" not in asked[0].content.splitlines()[-2]  # the question asked


# 2. Texts before the start, and in a turn ------------------------------------------------------


async def test_the_cockpit_before_the_start_shows_no_place_lap_or_fuel(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "cockpit.db"), world(), timeout=30) as d:
        gid = await open_race(d, seed=SEED)
        for phase in ("setup", "substitute car", "qualifying"):
            while phase_of((now := await loaded(d, gid)).state) != phase:
                await decide(d, gid, PRESENTER.waiting_seats(now.state)[0])
            opened = await d.click(
                f"pd:rf90:{gid}:cockpit", user=ALICE, message_id=int(prompt_of(d, gid)["id"])
            )
            text = opened.last.content or ""
            assert opened.ephemeral and "before the start" in text, text
            assert "section 0" not in text and "lap 0" not in text, text
            assert "refuel by turn 0" not in text, text
            if phase != "setup":  # her own set-up, as she chose it
                assert "set-up: tyres " in text and "skill " in text


async def test_a_turns_prompt_keeps_the_activated_section_through_its_steps(
    tmp_path: Path,
) -> None:
    async with InProcessDriver(make_bot(tmp_path / "steps.db"), world(), timeout=30) as d:
        gid = await open_race(d, drivers=(ALICE,), seed=SEED)
        steps = 0
        for _ in range(300):
            now = await loaded(d, gid)
            pending = now.state.pending
            mine = pending is not None and now.state.cars[pending.car].seat == 0
            if mine and now.state.phase == "race" and now.state.duel is None:
                section = now.state.activation
                key = PRESENTER.move_key(now.state)
                assert f"your turn in section {section}." in prompt_of(d, gid)["content"]
                await decide(d, gid, 0)
                after = await loaded(d, gid)
                if PRESENTER.move_key(after.state) == key:  # a step of the same turn
                    content = prompt_of(d, gid)["content"]
                    assert f"your turn in section {section}." in content, content
                    steps += 1
                    if steps >= 3:
                        break
                continue
            await decide(d, gid, PRESENTER.waiting_seats(now.state)[0])
        assert steps >= 3


# 3. Every line once, through restarts at each step of a turn ----------------------------------


async def test_every_line_appears_once_through_kills_at_each_step_of_a_turn(
    tmp_path: Path,
) -> None:
    """ALICE races alone with the robots. Every step of a turn of hers is played by a bot
    that never saw the race before (the last one was SIGKILLed while idle); every other
    step, that bot is itself killed at the step's commit, before anything is shown, and the
    next one shows it at start-up. The thread tells every event line of the log exactly
    once: no edit drops the lines a prompt opened with, nothing is told twice."""
    db = tmp_path / "kills.db"
    async with RemoteFakeDiscord(world(), quiet=0.15) as fd:
        new = with_seed(
            fd.slash_payload("rf90", "new", track="silverstone", turns=3, user=ALICE), SEED
        )
        assert seed_of(new) == SEED
        store = SqliteStore(db)
        try:
            async with BotProcess(fd, db) as first:
                await fd.dispatch(new)
                await store.open(run_migrations=False)
                (gid,) = [g.id for g in await store.list_games()]
                await fd.click(f"pd:rf90:{gid}:start", user=ALICE)
                # to ALICE's first turn in the race
                while True:
                    record, game, state = await remote_settled(fd, store, gid)
                    if _turn_starts(state):
                        break
                    await remote_decide(fd, store, gid)
                assert first.errors_since(0) == [], first.stderr_tail()
                await first.kill()
            key = PRESENTER.move_key(state)
            steps = 0
            while PRESENTER.move_key(state) == key:
                record = await store.load_game(gid)
                at_commit = steps % 2 == 1
                env = {"PADDOCK_FAULT": f"after-commit:{record.seq + 1}"} if at_commit else {}
                async with BotProcess(fd, db, env=env) as bot:
                    await remote_decide(fd, store, gid)
                    if at_commit:
                        await asyncio.wait_for(bot.proc.wait(), 10)  # type: ignore[union-attr]
                        assert bot.returncode == -signal.SIGKILL
                        stored = await store.load_game(gid)
                        assert stored.seq > record.seq and stored.published_seq == record.seq
                    else:
                        record, game, state = await remote_settled(fd, store, gid)
                        assert bot.errors_since(0) == [], bot.stderr_tail()
                        await bot.kill()
                if at_commit:
                    async with BotProcess(fd, db) as again:  # shows it at start-up
                        record, game, state = await remote_settled(fd, store, gid)
                        assert again.errors_since(0) == [], again.stderr_tail()
                        await again.kill()
                steps += 1
            assert steps >= 2  # a turn of at least two steps: both kinds of kill
            await assert_every_line_once(fd.backend, store, gid)
            assert (await verify_store(store)).ok
        finally:
            await store.close()


def _turn_starts(state: Any) -> bool:
    """ALICE (seat 0) is to start a turn in the race (its first step), not in a duel."""
    pending = state.pending
    return (
        state.phase == "race"
        and state.duel is None
        and pending is not None
        and pending.phase == "A"
        and state.cars[pending.car].seat == 0
    )
