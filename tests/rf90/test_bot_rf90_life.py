"""Race! Formula 90 in Discord through the real command tree and the fake Discord (issue 10):
a duel fought by two drivers in their cockpits, a pit stop asked as grouped menus (and
confirmed: it can't be taken back), refused
out-of-turn and stale clicks, a decision timed out and played by the seat policy, autopilot,
and a bot killed mid-activation and restarted."""

from __future__ import annotations

import asyncio
import copy
import re
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.choices import PAGE, decode, encode, narrow, path_to
from bot.cogs.rf90 import facets
from paddock_tools.bots import make_bot, world
from paddock_tools.fakediscord import ALICE, BOB, InProcessDriver
from paddock_tools.fakediscord import payloads as pl
from paddock_tools.fakediscord.process import BotProcess, RemoteFakeDiscord
from paddock_tools.rf90_driver import (
    PRESENTER,
    custom_ids,
    decide,
    loaded,
    prompt_of,
    seed_of,
    with_seed,
)
from rules.base import get_game
from rules.rf90 import DuelCards, PitStop, StartTurn, catalog
from store import SqliteStore
from store.verify import verify_store
from tests.bot_helpers import dump
from tests.helpers import thread_of, until
from tests.rf90.rf90_helpers import (
    USERS,
    grid_config,
    labels,
    open_race,
    remote_decide,
    remote_settled,
    to_the_duel,
)

ONE_LINE = re.compile(r"[^\n]+")


def question(content: str | None) -> str:
    """The question a cockpit step asks: its last line, `**<title>?**`."""
    found = re.findall(r"\*\*([^*]+)\?\*\*", content or "")
    assert found, f"no question in {content!r}"
    return found[-1]


async def play_until(d: InProcessDriver, gid: int, done: Any, limit: int = 300) -> Any:
    """Decide for whoever is to act (as the seat policy would) until `done(loaded)`."""
    for _ in range(limit):
        now = await loaded(d, gid)
        if done(now):
            return now
        assert not now.game.is_terminal(now.state), "the race ended first"
        await decide(d, gid, PRESENTER.waiting_seats(now.state)[0])
    raise AssertionError("never reached")


def car_of(state: Any, seat: int) -> Any:
    return next(c for c in state.cars if c.seat == seat)


# 2 and 3. A pit stop asked as grouped menus; refused out-of-turn and stale clicks -------------


async def test_a_pit_stop_is_asked_extra_sections_then_tyres_then_strategy(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "pit.db"), world(), timeout=20) as d:
        store = d.bot.store
        gid = await open_race(d)

        def alice_starts_a_turn(now: Any) -> bool:
            p = now.state.pending
            car = car_of(now.state, 0)
            return (
                now.state.phase == "race"
                and now.state.duel is None
                and p is not None
                and p.car == car.id
                and p.phase == "A"
                and not car.off_track
                and car.fuel_turn > now.state.turn
            )

        now = await play_until(d, gid, alice_starts_a_turn)
        before = car_of(now.state, 0)
        prompt = prompt_of(d, gid)
        assert f"<@{ALICE.id}>" in prompt["content"] and f"<@{BOB.id}>" not in prompt["content"]

        # 3. BOB, not to act, presses the cockpit button: one line, only for him, no change.
        snapshot = await dump(store)
        refused = await d.click(f"pd:rf90:{gid}:cockpit", user=BOB, message_id=int(prompt["id"]))
        assert refused.ephemeral and ONE_LINE.fullmatch(refused.content or "")
        assert refused.content == "It's not your turn: alice is to act."
        assert await dump(store) == snapshot

        # 2. ALICE's cockpit asks what she does this turn, then the stop in three questions.
        asked: list[tuple[str, list[str]]] = []
        # (A cockpit opened earlier and left alone keeps its buttons: pressed after the stop.)
        early = await d.click(f"pd:rf90:{gid}:cockpit", user=ALICE, message_id=int(prompt["id"]))
        old = early.last.message
        assert old is not None and "Pit stop" in labels(old)
        step = await d.click(f"pd:rf90:{gid}:cockpit", user=ALICE, message_id=int(prompt["id"]))
        assert step.ephemeral
        cockpit = step.last.message
        assert cockpit is not None
        answers = {
            "This turn": "Pit stop",
            "Extra sections": "1 extra",
            "Tyres": "wet" if before.tyre != "wet" else "intermediate",
        }
        chosen_strategy = ""
        clicks: list[str] = []
        for _ in range(6):
            title = question(step.last.content)
            offered = labels(step.last.message or {})
            asked.append((title, offered))
            if title == "Strategy":
                # What was chosen so far is shown above the question.
                for given in ("This turn", "Extra sections", "Tyres"):
                    assert f"{given}: **{answers[given]}**" in (step.last.content or "")
                others = set(offered) - {"keep my strategy", "Back", "More…"}
                chosen_strategy = sorted(others)[0]
                pick = chosen_strategy
            else:
                pick = answers[title]
            (button,) = [
                cid
                for cid, label in zip(custom_ids(step.last.message or {}), offered, strict=True)
                if label == pick
            ]
            clicks.append(button)
            step = await d.click(button, user=ALICE, message_id=int(cockpit["id"]))
            if title == "Strategy":
                break
        assert [title for title, _ in asked] == ["This turn", "Extra sections", "Tyres", "Strategy"]
        assert {"Race on", "Pit stop", "Skip this turn"} <= set(asked[0][1])
        assert asked[1][1][:3] == ["0 extra", "1 extra", "2 extra"]
        assert {"hard", "intermediate", "wet"} <= set(asked[2][1])
        assert "keep my strategy" in asked[3][1]
        # A stop can't be taken back (issue 27): her cockpit asks Confirm first, only to her,
        # and nothing is played until she confirms.
        tyres, extra = answers["Tyres"], "1 extra section"
        said = step.answer
        assert said.ephemeral and (said.content or "").startswith(
            f"Pit this turn ({tyres} tyres, strategy {chosen_strategy}, {extra})?"
        )
        confirm, cancel = said.custom_ids
        assert confirm.startswith(f"pd:rf90:{gid}:confirm:{now.record.seq}.0")
        assert cancel.startswith(f"pd:rf90:{gid}:confirm-no:")
        assert (await loaded(d, gid)).record.seq == now.record.seq
        step = await d.click(confirm, user=ALICE)
        assert step.answer.ephemeral and step.answer.content == "Confirmed: played."

        after = await loaded(d, gid)
        log = [a for a in await store.actions(gid) if a.seq > now.record.seq]
        assert log[0].actor == str(ALICE.id)
        action = after.game.parse_action(log[0].action_json)
        names = {r.name: r.id for r in catalog.tables().strategies}
        expected = StartTurn(
            seat=0,
            pit=PitStop(extra_sections=1, tyres=answers["Tyres"], strategy=names[chosen_strategy]),
        )
        assert action == expected
        car = car_of(after.state, 0)
        assert car.pit_stops == before.pit_stops + 1
        assert car.tyre == answers["Tyres"]
        assert car.strategy == names[chosen_strategy]
        public = [
            str(m.get("content"))
            for m in d.backend.messages.values()
            if not (int(m.get("flags") or 0) & 64)
        ]
        assert any(f"alice pits: fuel to turn {car.fuel_turn}" in t for t in public)

        # 3. A pick from before the stop, pressed again: out of date, one line, no change.
        snapshot = await dump(store)
        (old_pit,) = [
            cid
            for cid, label in zip(custom_ids(old), labels(old), strict=True)
            if label == "Pit stop"
        ]
        assert old_pit == clicks[0]
        stale = await d.click(old_pit, user=ALICE, message_id=int(old["id"]))
        assert stale.ephemeral and ONE_LINE.fullmatch(stale.content or "")
        assert "out of date" in (stale.content or "")
        assert await dump(store) == snapshot


# 1. A duel between two drivers ---------------------------------------------------------------


def best_card(options: list[Any], state: Any) -> Any:
    """Down with the highest card of the hand, one card."""
    cards = catalog.cards(state.track)
    singles = [a for a in options if isinstance(a, DuelCards) and len(a.cards) == 1]
    return max(singles, key=lambda a: (cards[a.cards[0]].mp, -a.cards[0]))


def public_texts(calls: list[Any]) -> list[str]:
    """What the thread's readers were shown by these calls: every message sent or edited
    that is not ephemeral."""
    return [
        c.content or ""
        for c in calls
        if c.is_message and not c.ephemeral and c.kind in ("channel_message", "edit_message")
    ]


async def click_through(
    d: InProcessDriver, gid: int, user: pl.FakeUser, message: dict[str, Any], path: list[int]
) -> list[Any]:
    """Answer a cockpit already open in `message` along `path`, pressing only buttons the
    message shows at each step (its token as it was when it opened)."""
    calls: list[Any] = []
    token = decode(custom_ids(message)[0].split(":")[4])[0]
    for k in range(1, len(path) + 1):
        wanted = [encode(token, path[: k - 1], page) for page in range(1, path[k - 1] // PAGE + 1)]
        wanted.append(encode(token, path[:k]))
        for arg in wanted:
            shown = custom_ids(d.backend.messages[int(message["id"])])
            assert f"pd:rf90:{gid}:pick:{arg}" in shown, (arg, shown)
            calls += await d.click(
                f"pd:rf90:{gid}:pick:{arg}", user=user, message_id=int(message["id"])
            )
    return calls


async def test_a_long_first_question_pages_back_as_well_as_on(tmp_path: Path) -> None:
    """A first question with more answers than a page (a card play from a big hand): More…
    goes on, and every later page has a way back to the page before, down to the first,
    without reopening the cockpit (issue 29 point 5)."""
    async with InProcessDriver(make_bot(tmp_path / "pages.db"), world(), timeout=20) as d:
        gid = await open_race(d)

        def long_first_question(now: Any) -> bool:
            waiting = PRESENTER.waiting_seats(now.state)
            if not waiting:
                return False
            options = now.game.legal_actions(now.state, waiting[0])
            first = narrow(options, facets(now.state), []).question
            return first is not None and len(first.answers) > PAGE

        now = await play_until(d, gid, long_first_question)
        user = USERS[PRESENTER.waiting_seats(now.state)[0]]
        prompt = prompt_of(d, gid)
        opened = await d.click(f"pd:rf90:{gid}:cockpit", user=user, message_id=int(prompt["id"]))
        cockpit = opened.last.message
        assert cockpit is not None
        mid = int(cockpit["id"])

        def page() -> tuple[str, list[str], dict[str, str]]:
            message = d.backend.messages[mid]
            shown = labels(message)
            return (
                question(message.get("content")),
                shown,
                dict(zip(shown, custom_ids(message), strict=True)),
            )

        title, first, buttons = page()
        assert "More…" in first and not [b for b in first if b.startswith("◀")]
        pages = [first]
        while "More…" in pages[-1]:  # on to the last page
            await d.click(buttons["More…"], user=user, message_id=mid)
            asked, shown, buttons = page()
            assert asked == title
            pages.append(shown)
        assert len(pages) > 1
        for back in range(len(pages) - 1, 0, -1):  # and back, a page at a time
            (previous,) = [b for b in pages[back] if b.startswith("◀")]
            assert previous == f"◀ Page {back}"
            await d.click(buttons[previous], user=user, message_id=mid)
            asked, shown, buttons = page()
            assert asked == title and shown == pages[back - 1]
        assert (await loaded(d, gid)).record.seq == now.record.seq  # nothing played


async def test_a_duel_between_two_drivers_decided_in_their_cockpits(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "duel.db"), world(), timeout=20) as d:
        store = d.bot.store
        users = USERS
        gid, _, mark = await to_the_duel(d)
        track = "silverstone"

        # Both put their cards down at the same time: the prompt names both, any order.
        now = await loaded(d, gid)
        duel = now.state.duel
        assert duel is not None and duel.stage == "cards"
        waiting = PRESENTER.waiting_seats(now.state)
        assert sorted(waiting) == [0, 1]
        prompt = prompt_of(d, gid)
        assert f"<@{ALICE.id}>" in prompt["content"] and f"<@{BOB.id}>" in prompt["content"]
        assert custom_ids(prompt) == [f"pd:rf90:{gid}:cockpit"]
        hands = {s: list(car_of(now.state, s).hand) for s in (0, 1)}
        cards = catalog.cards(track)
        secret = {cards[c].label for hand in hands.values() for c in hand}

        # The one listed second picks first; the other had opened the cockpit before that.
        first, second = waiting[1], waiting[0]
        opened = await d.click(
            f"pd:rf90:{gid}:cockpit", user=users[second], message_id=int(prompt["id"])
        )
        cockpit = opened.last.message
        assert opened.ephemeral and cockpit is not None and "**Cards?**" in opened.last.content
        before_first = d.backend.mark()
        picked = await decide(d, gid, first, choose=best_card)
        now = await loaded(d, gid)
        assert now.state.duel is not None and PRESENTER.waiting_seats(now.state) == [second]
        down = next(
            a
            for a in (now.game.parse_action(x.action_json) for x in await store.actions(gid))
            if isinstance(a, DuelCards) and a.seat == first
        )
        assert len(down.cards) == 1
        # Nothing public names a card from a hand before the reveal.
        shown = public_texts(d.backend.calls[mark:])
        assert shown and not [t for t in shown for label in secret if label in t]
        assert all(f"pd:rf90:{gid}:cockpit" == cid for cid in custom_ids(prompt_of(d, gid)))
        assert not [c for c in picked if c.ephemeral and "not your turn" in (c.content or "")]
        assert not [t for t in public_texts(d.backend.calls[before_first:]) if "Duel at" in t]

        # The second's cockpit, opened before the first's pick, is still current.
        options = now.game.legal_actions(now.state, second)
        target = options.index(best_card(options, now.state))
        path = path_to(options, facets(now.state), target)
        reveal = await click_through(d, gid, users[second], cockpit, path)
        assert not [c for c in reveal if c.ephemeral and "out of date" in (c.content or "")]
        after = await loaded(d, gid)
        assert after.state.duel is None or after.state.duel.section != duel.section
        picks = [
            (x.actor, a)
            for x in await store.actions(gid)
            if isinstance(a := after.game.parse_action(x.action_json), DuelCards)
        ]
        assert [(actor, a.seat) for actor, a in picks] == [
            (str(users[first].id), first),
            (str(users[second].id), second),
        ]
        assert picks[1][1] == options[target]

        # One public message reveals the result, with the totals.
        record = after.record
        game = after.game
        state = game.new_game(record.seed, record.config)
        results = []
        for done in await store.actions(gid):
            state, events = game.apply(state, game.parse_action(done.action_json))
            results += [e for e in events if e.kind == "duel_result"]
        (result,) = results
        assert result.text.startswith("Duel at ")
        totals = {int(k): v for k, v in result.data["totals"].items()}
        humans = {car_of(state, s).id: users[s].name for s in (0, 1)}
        assert set(humans) <= set(totals)
        revealed = [t for t in public_texts(reveal) if "Duel at" in t]
        assert len(revealed) == 1
        assert result.text in revealed[0].splitlines()
        for car, name in humans.items():
            assert f"{name} {totals[car]}" in result.text
        everywhere = [
            str(m.get("content"))
            for m in d.backend.messages.values()
            if not (int(m.get("flags") or 0) & 64) and "Duel at" in str(m.get("content"))
        ]
        assert everywhere == revealed


async def test_every_driver_a_duel_waits_for_is_pinged(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "pings.db"), world(), timeout=20) as d:
        gid, asked, mark = await to_the_duel(d)
        posted = [c for c in d.backend.calls[mark:] if c.kind == "channel_message"]

        def pinged(user: pl.FakeUser, calls: list[Any]) -> bool:
            return any(
                f"<@{user.id}>" in (c.content or "")
                and user.id in {int(u) for u in c.json["allowed_mentions"].get("users", [])}
                for c in calls
            )

        # Each driver asked whether to challenge or join was pinged by a new message ...
        for seat in asked:
            assert pinged(USERS[seat], posted), f"{USERS[seat].name} was never pinged"
        # ... and the live prompt to put the cards down is a message that pinged both.
        live = prompt_of(d, gid)
        (sent,) = [c for c in posted if c.message is not None and c.message["id"] == live["id"]]
        assert pinged(ALICE, [sent]) and pinged(BOB, [sent])


# 4. A decision timed out: the reminder, then the seat policy decides -------------------------


def alices_turn(now: Any) -> bool:
    """ALICE (seat 0) alone is to act, at the start of her car's turn in the race."""
    p = now.state.pending
    return (
        now.state.phase == "race"
        and now.state.duel is None
        and PRESENTER.waiting_seats(now.state) == [0]
        and p is not None
        and p.phase == "A"
    )


async def test_a_timed_out_decision_is_played_by_the_seat_policy(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with InProcessDriver(make_bot(tmp_path / "timeout.db"), world(), timeout=20) as d:
        store = d.bot.store
        gid = await open_race(d)
        now = await play_until(d, gid, alices_turn)
        thread = now.record.thread_id
        key = str(PRESENTER.move_key(now.state))
        timers = {t.event: t for t in await store.timers(gid)}
        assert set(timers) == {"rf90_idle", "rf90_reminder", "rf90_timeout"}
        reminder, timeout = timers["rf90_reminder"], timers["rf90_timeout"]
        for timer in (reminder, timeout):
            assert timer.payload["seats"] == [0] and timer.payload["key"] == key
        assert reminder.due_at < timeout.due_at
        prompt = prompt_of(d, gid)
        assert f"<t:{int(timeout.due_at)}:R>" in prompt["content"]

        # The reminder, in the thread, pinging only ALICE; nothing is played.
        mark = d.backend.mark()
        d.bot.timers.clock = lambda: reminder.due_at + 1
        d.bot.timers.poke()

        async def reminded() -> list[Any]:
            return [
                c
                for c in d.backend.calls[mark:]
                if c.kind == "channel_message" and "⏰" in (c.content or "")
            ]

        (sent,) = await until(reminded, "a reminder", seconds=10.0)
        assert sent.channel_id == thread
        assert sent.content.startswith(f"⏰ <@{ALICE.id}>, your move in race #{gid}")
        assert f"<t:{int(timeout.due_at)}:R>" in sent.content
        assert {int(u) for u in sent.json["allowed_mentions"]["users"]} == {ALICE.id}
        record = await store.load_game(gid)
        assert record.seq == now.record.seq
        assert {t.event for t in await store.timers(gid)} == {"rf90_timeout", "rf90_idle"}

        # The deadline passes: the seat policy plays ALICE's whole turn, marked as such.
        d.bot.timers.clock = lambda: timeout.due_at + 1
        d.bot.timers.poke()

        async def played() -> Any:
            record = await store.load_game(gid)
            return record.seq > now.record.seq and record.published_seq == record.seq

        await until(played, "the timeout played", seconds=10.0)
        await asyncio.sleep(0.1)
        game = now.game
        state = game.new_game(record.seed, record.config)
        mine = []
        for done in await store.actions(gid):
            action = game.parse_action(done.action_json)
            late = done.seq > now.record.seq and str(PRESENTER.move_key(state)) == key
            if late and action.seat == 0 and done.actor != "forced":
                assert action == game.robot_action(state, 0)  # the seat policy's choice
                mine.append(done)
            state, _ = game.apply(state, action)
        assert mine and all(a.actor == f"timeout:{ALICE.id}" and a.by_robot for a in mine)
        assert not [
            a
            for a in await store.actions(gid)
            if a.seq > now.record.seq and a.actor == str(ALICE.id)
        ]
        after = await loaded(d, gid)
        assert str(PRESENTER.move_key(after.state)) != key
        said = [
            c.content or ""
            for c in d.backend.calls[mark:]
            if c.kind == "channel_message" and c.channel_id == thread
        ]
        assert any("⏱ alice ran out of time: the robot decided for them." in t for t in said)
        # The next decision has its own clock, from the time the timeout fired.
        armed = {t.event: t for t in await store.timers(gid)}
        if not after.game.is_terminal(after.state):
            assert armed["rf90_timeout"].due_at == timeout.due_at + 1 + 3600
            assert armed["rf90_timeout"].payload["seats"] == PRESENTER.waiting_seats(after.state)
        assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]


# 5. Autopilot ----------------------------------------------------------------------------------


async def test_autopilot_plays_a_drivers_decisions_until_turned_off(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "auto.db"), world(), timeout=20) as d:
        store = d.bot.store
        gid = await open_race(d)
        now = await play_until(d, gid, alices_turn)
        thread = thread_of(d, now.record.thread_id)
        seq = now.record.seq

        on = await d.slash("rf90", "autopilot", mode="on", user=ALICE, channel_id=thread)
        assert on.answer.ephemeral and "Autopilot on" in (on.answer.content or "")
        assert (await store.seats(gid))[0].autopilot
        log = [a for a in await store.actions(gid) if a.seq > seq]
        assert log and log[0].actor == f"autopilot:{ALICE.id}"  # her turn, played at once

        # BOB decides in his cockpit; every decision of ALICE's is the autopilot's.
        keys: set[str] = set()
        for _ in range(80):
            now = await loaded(d, gid)
            waiting = PRESENTER.waiting_seats(now.state)
            assert 0 not in waiting  # never left waiting for her
            game = now.game
            state = game.new_game(now.record.seed, now.record.config)
            keys = set()
            for done in await store.actions(gid):
                action = game.parse_action(done.action_json)
                if done.seq > seq and action.seat == 0 and done.actor != "forced":
                    assert done.actor == f"autopilot:{ALICE.id}" and done.by_robot
                    assert action == game.robot_action(state, 0)
                    keys.add(str(PRESENTER.move_key(state)))
                state, _ = game.apply(state, action)
            if len(keys) >= 3:
                break
            await decide(d, gid, waiting[0])
        assert len(keys) >= 3

        off = await d.slash("rf90", "autopilot", mode="off", user=ALICE, channel_id=thread)
        assert off.answer.ephemeral and "Autopilot off" in (off.answer.content or "")
        mark = (await store.load_game(gid)).seq
        now = await play_until(d, gid, lambda n: 0 in PRESENTER.waiting_seats(n.state))
        prompt = prompt_of(d, gid)
        assert f"<@{ALICE.id}>" in prompt["content"]
        await decide(d, gid, 0)  # ALICE drives again
        after = [a for a in await store.actions(gid) if a.seq > mark]
        assert not any(a.actor.startswith("autopilot:") for a in after)
        assert any(a.actor == str(ALICE.id) for a in after)


# 6. Killed mid-activation, restarted ----------------------------------------------------------


def kill_point(seed: int, track: str) -> tuple[int, int, int]:
    """Replay the race as the test plays it (BOB on autopilot from the start, ALICE clicking
    what the seat policy would): the number N of ALICE's first action in the race that ends
    a section activation and is followed by a chain of other moves (BOB's, or forced ones)
    that ends another one. Killed at the chain's commit (`after-commit:N+1`), the thread has
    the pictures of N's activations and not yet those of the chain's. Returns N, the
    activations N ended and those the chain ended."""
    game = get_game("rf90")
    state = game.new_game(seed, grid_config(track, ("alice", "bob")))
    stored = 0

    def next_move(state: Any) -> Any:
        """The move the table plays by itself now (BOB's, or a forced one), if any."""
        waiting = PRESENTER.waiting_seats(state)
        if 1 in waiting:
            return game.robot_action(state, 1)
        for seat in waiting:
            options = game.legal_actions(state, seat)
            if len(options) == 1:
                return options[0]
        return None

    while not game.is_terminal(state):
        if (move := next_move(state)) is not None:
            state, _ = game.apply(state, move)
            stored += 1
            continue
        options = game.legal_actions(state, 0)
        wanted = game.robot_action(state, 0)
        racing = state.phase == "race"
        state, _, own = game.apply_frames(state, wanted if wanted in options else options[0])
        stored += 1
        clicked, chained = stored, 0
        while not game.is_terminal(state) and (move := next_move(state)) is not None:
            state, _, frames = game.apply_frames(state, move)
            stored += 1
            chained += len(frames)
        if racing and own and chained and clicked > 12:
            return clicked, len(own), chained
    raise AssertionError("no kill point in this race")


def pictures(fd: RemoteFakeDiscord, gid: int, since: int = 0) -> list[Any]:
    """The messages (calls) that posted the track of an activation, in order."""
    return [
        c
        for c in fd.backend.calls[since:]
        if c.kind == "channel_message"
        and any(f.filename == f"race{gid}-track.png" for f in c.files)
    ]


@dataclass
class Killed:
    """A race whose bot was killed at a chain's commit and restarted (see `killed_race`)."""

    fd: RemoteFakeDiscord
    store: SqliteStore
    second: BotProcess
    gid: int
    n: int  # ALICE's action, whose activations were posted before the kill
    chained: int  # activations the killed chain ended
    mark: int  # the calls' mark at the restart
    stale_prompt: int  # the live prompt when the bot died
    seen: dict[str, Any]  # that prompt as the drivers saw it, with its cockpit button
    left: dict[str, Any]  # a cockpit ALICE opened before the kill and left alone


@asynccontextmanager
async def killed_race(tmp_path: Path) -> AsyncIterator[Killed]:
    """ALICE drives, BOB is on autopilot. ALICE's click stores action n, which ends section
    activations: their pictures are posted before BOB's autopilot plays on; the bot is
    killed at the commit of that chain (which ended activations of its own), then started
    again on the same database."""
    db = tmp_path / "kill.db"
    track = "silverstone"
    async with RemoteFakeDiscord(world(), quiet=0.15) as fd:
        new = with_seed(
            fd.slash_payload("rf90", "new", track=track, turn_minutes=60, user=ALICE), 2026
        )
        n, own, chained = kill_point(seed_of(new), track)
        store = SqliteStore(db)
        try:
            async with BotProcess(fd, db, env={"PADDOCK_FAULT": f"after-commit:{n + 1}"}) as first:
                await fd.dispatch(new)
                await store.open(run_migrations=False)
                (gid,) = [g.id for g in await store.list_games()]
                await fd.click(f"pd:rf90:{gid}:join", user=BOB)
                await fd.click(f"pd:rf90:{gid}:start", user=ALICE)
                record = await store.load_game(gid)
                thread = record.thread_id
                assert thread is not None
                fd.world.channels.setdefault(thread, fd.backend.threads[thread])
                on = await fd.slash("rf90", "autopilot", mode="on", user=BOB, channel_id=thread)
                assert "Autopilot on" in (on.answer.content or "")
                while (await store.load_game(gid)).seq < n - 1:
                    assert first.alive  # not killed before the chosen action
                    await remote_decide(fd, store, gid)
                assert (await store.load_game(gid)).seq == n - 1
                before = len(pictures(fd, gid))
                record = await store.load_game(gid)
                seen = copy.deepcopy(fd.backend.messages[int(record.prompt_message_id or 0)])
                left = await remote_decide(fd, store, gid, spare=True)
                assert left is not None and custom_ids(left)
                await asyncio.wait_for(first.proc.wait(), 10)  # type: ignore[union-attr]
                assert first.returncode == -signal.SIGKILL
                assert any("PADDOCK_FAULT" in line for line in first.log)
            record = await store.load_game(gid)
            assert record.seq > n and record.published_seq == n
            assert len(pictures(fd, gid)) - before == own  # n's activations, and no more
            stale_prompt = record.prompt_message_id
            assert stale_prompt == int(seen["id"])
            # (stripped of its button when n's pictures were posted)
            assert custom_ids(fd.backend.messages[stale_prompt]) == []

            mark = fd.backend.mark()
            async with BotProcess(fd, db) as second:  # READY once recovery has run
                await fd.wait_quiet()
                assert second.errors_since(0) == [], second.stderr_tail()
                await remote_settled(fd, store, gid)
                yield Killed(fd, store, second, gid, n, chained, mark, stale_prompt, seen, left)
        finally:
            await store.close()


async def test_a_race_killed_mid_activation_resumes_after_a_restart(tmp_path: Path) -> None:
    async with killed_race(tmp_path) as k:
        fd, store, gid = k.fd, k.store, k.gid
        record, game, state = await remote_settled(fd, store, gid)
        assert record.seq > k.n and record.published_seq == record.seq
        # n's pictures, posted before the kill, are not posted again.
        assert len(pictures(fd, gid, k.mark)) <= k.chained

        # The prompt is posted again, once, pinging ALICE; the old one has no button.
        prompts = [
            c
            for c in fd.backend.calls[k.mark :]
            if c.kind == "channel_message" and f"pd:rf90:{gid}:cockpit" in c.custom_ids
        ]
        assert len(prompts) == 1
        assert prompts[0].message is not None
        assert int(prompts[0].message["id"]) == record.prompt_message_id != k.stale_prompt
        assert f"<@{ALICE.id}>" in (prompts[0].content or "")
        assert {int(u) for u in prompts[0].json["allowed_mentions"]["users"]} == {ALICE.id}
        assert custom_ids(fd.backend.messages[k.stale_prompt]) == []

        # Old buttons: the old prompt's cockpit button, pressed from a screen that still
        # shows it, opens the cockpit for the decision now (it is the same button); a pick
        # from a cockpit opened before the kill is out of date: one line, only for ALICE,
        # nothing changed.
        seq = record.seq
        snapshot = await dump(store)
        cockpit = f"pd:rf90:{gid}:cockpit"
        assert custom_ids(k.seen) == [cockpit]
        again = await fd.dispatch(
            pl.component_payload(fd.world, cockpit, message=k.seen, user=ALICE)
        )
        assert again.ephemeral and "?**" in (again.content or "")  # the decision's question
        stale = await fd.click(custom_ids(k.left)[0], user=ALICE, message_id=int(k.left["id"]))
        assert stale.ephemeral and ONE_LINE.fullmatch(stale.content or "")
        assert "out of date" in stale.content or "no longer valid" in stale.content
        assert await dump(store) == snapshot
        assert k.second.errors_since(0) == [], k.second.stderr_tail()

        # The replay of the log equals the snapshot; the race goes on from the new prompt.
        assert (await verify_store(store)).ok
        await remote_decide(fd, store, gid)
        assert (await store.load_game(gid)).seq > seq
        assert (await verify_store(store)).ok
        assert k.second.errors_since(0) == [], k.second.stderr_tail()


async def test_the_activations_a_killed_chain_ended_get_their_pictures(tmp_path: Path) -> None:
    async with killed_race(tmp_path) as k:
        record, game, _ = await remote_settled(k.fd, k.store, k.gid)
        assert len(pictures(k.fd, k.gid, k.mark)) == k.chained  # posted after the restart
        # Over both lives of the bot: one message with the track for every activation.
        state = game.new_game(record.seed, record.config)
        activations = 0
        for done in await k.store.actions(k.gid):
            state, _, frames = game.apply_frames(state, game.parse_action(done.action_json))
            activations += len(frames)
        assert len(pictures(k.fd, k.gid)) == activations + 1  # + the grid


async def test_a_duel_pick_timed_out_is_played_by_the_seat_policy(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "duel-late.db"), world(), timeout=20) as d:
        store = d.bot.store
        gid, asked, _ = await to_the_duel(d)
        now = await loaded(d, gid)
        thread = now.record.thread_id
        # The driver asked first puts a card down; the one asked second never does.
        first, late = asked
        await decide(d, gid, first, choose=best_card)
        now = await loaded(d, gid)
        assert PRESENTER.waiting_seats(now.state) == [late]
        timers = {t.event: t for t in await store.timers(gid)}
        timeout = timers["rf90_timeout"]
        assert late in timeout.payload["seats"]  # the late driver has a deadline
        mark = d.backend.mark()
        d.bot.timers.clock = lambda: timeout.due_at + 1
        d.bot.timers.poke()

        async def played() -> bool:
            record = await store.load_game(gid)
            return record.seq > now.record.seq and record.published_seq == record.seq

        await until(played, "the late pick played", seconds=3.0)
        log = [a for a in await store.actions(gid) if a.seq > now.record.seq]
        assert log[0].actor == f"timeout:{USERS[late].id}" and log[0].by_robot
        action = now.game.parse_action(log[0].action_json)
        assert action == now.game.robot_action(now.state, late)
        said = [c.content or "" for c in d.backend.calls[mark:] if c.channel_id == thread]
        assert any(f"⏱ {USERS[late].name} ran out of time" in t for t in said)
        assert any("Duel at " in t for t in said)
