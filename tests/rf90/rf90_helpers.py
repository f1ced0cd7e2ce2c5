"""RF90's test helpers: the rules' invariants, and a race driven through the fake Discord
(opened, played to a duel, its thread read back; in process or in a bot process) for the bot
tests of several folders."""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections import Counter
from types import SimpleNamespace
from typing import Any

from bot.choices import PAGE, encode, path_to
from bot.cogs.rf90 import facets
from bot.presenter import Loaded
from paddock_tools.fakediscord import ALICE, BOB, InProcessDriver
from paddock_tools.fakediscord import payloads as pl
from paddock_tools.fakediscord.backend import _walk_components
from paddock_tools.fakediscord.process import RemoteFakeDiscord
from paddock_tools.rf90_driver import PRESENTER, custom_ids, decide, loaded, prompt_of, with_seed
from rules.base import get_game
from rules.rf90 import DuelDeclare, catalog
from rules.rf90.state import RF90State
from store import SqliteStore
from tests.bot_helpers import dump

# --- the rules -------------------------------------------------------------------------------


def check_invariants(state: RF90State) -> None:
    track = catalog.track(state.track)
    # cards conserved: deck + discard + hands + dashboards + face-down duel cards
    everything = list(state.race_draw) + state.race_discard + state.track_draw
    everything += state.track_discard
    for car in state.cars:
        everything += car.hand
        if car.qual_card is not None:
            everything.append(car.qual_card)
    if state.duel is not None:
        for cs in state.duel.cards.values():
            everything += cs
    assert Counter(everything) == Counter(list(catalog.cards(state.track)))
    # damage discs conserved
    humans = sum(1 for c in state.cars if c.seat is not None)
    red, brown = catalog.tables().damage_bag.by_players[max(1, min(humans, 6))]
    assert state.bag_red + sum(c.damage_red for c in state.cars) == red
    assert state.bag_brown + sum(c.damage_brown for c in state.cars) == brown
    # section capacities, one place per running car
    placed = [cid for sec in state.sections for cid in sec]
    assert len(placed) == len(set(placed))
    for i, sec in enumerate(state.sections):
        assert len(sec) <= track.sections[i].capacity
        for cid in sec:
            assert state.cars[cid].section == i and state.cars[cid].running
    for car in state.cars:
        if car.running and state.phase in ("race", "finished"):
            assert car.off_track or car.id in state.sections[car.section]
    # trajectory spots hold one car each
    spots = [c.trajectory for c in state.cars if c.trajectory and c.running]
    assert len(spots) == len(set(spots))


# --- a race through the fake Discord ---------------------------------------------------------

USERS = {0: ALICE, 1: BOB}


def labels(message: dict[str, Any]) -> list[str]:
    """The labels of a message's buttons, in order."""
    return [
        c["label"]
        for c in _walk_components(message.get("components") or [])
        if c.get("custom_id") and "label" in c
    ]


async def open_race(
    d: InProcessDriver,
    *,
    drivers: tuple[pl.FakeUser, ...] = (ALICE, BOB),
    track: str = "silverstone",
    seed: int | None = None,
) -> int:
    """`/rf90 new` by the first driver (with this seed, if given), the others join, start."""
    payload = d.slash_payload("rf90", "new", track=track, turn_minutes=60, user=drivers[0])
    if seed is not None:
        with_seed(payload, seed)
    await d.dispatch(payload)
    (gid,) = [g.id for g in await d.bot.store.list_games()]
    for user in drivers[1:]:
        await d.click(f"pd:rf90:{gid}:join", user=user)
    await d.click(f"pd:rf90:{gid}:start", user=drivers[0])
    return gid


def grid_config(track: str, names: tuple[str, ...]) -> dict[str, Any]:
    lobby: Any = SimpleNamespace(settings={"track": track})
    seats: Any = [SimpleNamespace(name=n, user_id=i + 1, robot=False) for i, n in enumerate(names)]
    return PRESENTER.rules_config(lobby, seats)


def duel_seed(track: str, first: int, within: int = 80) -> int:
    """The first seed from `first` whose race, played as the test plays it (a single legal
    action is played by the table, others as the seat policy chooses, drivers joining every
    duel they are asked about), puts both drivers in a duel within `within` actions."""
    game = get_game("rf90")
    for seed in range(first, first + 200):
        state = game.new_game(seed, grid_config(track, ("alice", "bob")))
        for _ in range(within):
            waiting = PRESENTER.waiting_seats(state)
            duel = state.duel
            if duel is not None and duel.stage == "cards" and len(waiting) == 2:
                return seed
            forced = [o for s in waiting if len(o := game.legal_actions(state, s)) == 1]
            if forced:
                action = forced[0][0]
            elif duel is not None and duel.stage == "declare":
                action = DuelDeclare(seat=waiting[0], join=True)
            else:
                options = game.legal_actions(state, waiting[0])
                wanted = game.robot_action(state, waiting[0])
                action = wanted if wanted in options else options[0]
            state, _ = game.apply(state, action)
    raise AssertionError("no seed gives both drivers a duel")


def join(options: list[Any], state: Any) -> Any:
    return next(a for a in options if isinstance(a, DuelDeclare) and a.join)


async def to_the_duel(d: InProcessDriver) -> tuple[int, list[int], int]:
    """A race (its seed found offline) played to a duel both drivers are asked about: each
    joins through the cockpit when asked. Returns the race, the seats in the order they were
    asked, and the calls' mark before the decision that opened the duel."""
    track = "silverstone"
    seed = duel_seed(track, 1000)
    store = d.bot.store
    gid = await open_race(d, track=track, seed=seed)
    assert (await store.load_game(gid)).seed == seed
    asked: list[int] = []
    order: list[int] = []
    mark = d.backend.mark()
    for _ in range(300):
        now = await loaded(d, gid)
        duel = now.state.duel
        waiting = PRESENTER.waiting_seats(now.state)
        if duel is not None and duel.stage == "cards" and len(waiting) == 2:
            break
        if duel is None or duel.stage != "declare":
            mark = d.backend.mark()
            asked, order = [], []  # (a duel with one driver only: played as the policy would)
            await decide(d, gid, waiting[0])
            continue
        if not order:
            order = [now.state.cars[c].seat for c in reversed(duel.order)]
        (seat,) = waiting
        prompt = prompt_of(d, gid)
        assert f"<@{USERS[seat].id}>" in prompt["content"]
        assert f"<@{USERS[1 - seat].id}>" not in prompt["content"]
        assert "a duel in section" in prompt["content"]
        # The other driver waits their turn to be asked: refused, nothing changes.
        snapshot = await dump(store)
        early = await d.click(
            f"pd:rf90:{gid}:cockpit", user=USERS[1 - seat], message_id=int(prompt["id"])
        )
        assert early.ephemeral and (early.content or "").startswith("It's not your turn")
        assert await dump(store) == snapshot
        calls = await decide(d, gid, seat, choose=join)
        opened = next(c for c in calls if c.ephemeral and "**Duel?**" in (c.content or ""))
        assert labels({"components": opened.components}) == ["Join the duel", "Stay out"]
        asked.append(seat)
    else:
        raise AssertionError("no duel with both drivers")
    # One at a time, from the back of the section (the rules' order), each their own click.
    assert sorted(asked) == [0, 1]
    assert asked == [s for s in order if s in (0, 1)]
    game = get_game("rf90")
    logged = [(a.actor, game.parse_action(a.action_json)) for a in await store.actions(gid)]
    declares = [(actor, a.seat) for actor, a in logged if isinstance(a, DuelDeclare)]
    assert declares[-2:] == [(str(USERS[s].id), s) for s in asked]
    return gid, asked, mark


async def remote_state(store: SqliteStore, gid: int) -> Any:
    record = await store.load_game(gid)
    game = get_game("rf90")
    return record, game, game.load_state(record.state_json)


async def remote_settled(fd: RemoteFakeDiscord, store: SqliteStore, gid: int) -> Any:
    """Until everything stored is posted and ALICE's prompt is the live one."""
    for _ in range(500):
        record, game, state = await remote_state(store, gid)
        if (
            record.published_seq == record.seq
            and PRESENTER.waiting_seats(state) == [0]
            and record.prompt_message_id in fd.backend.messages
            and custom_ids(fd.backend.messages[record.prompt_message_id])
            == [f"pd:rf90:{gid}:cockpit"]
        ):
            return record, game, state
        await asyncio.sleep(0.03)
    raise AssertionError("no prompt for ALICE")


async def remote_decide(
    fd: RemoteFakeDiscord, store: SqliteStore, gid: int, *, spare: bool = False
) -> dict[str, Any] | None:
    """ALICE opens her cockpit from the live prompt and clicks what the seat policy would.
    `spare`: she opens it twice first and leaves the first alone (returned, its buttons
    kept)."""
    record, game, state = await remote_settled(fd, store, gid)
    prompt = int(record.prompt_message_id)
    left = None
    if spare:
        left = (await fd.click(f"pd:rf90:{gid}:cockpit", user=ALICE, message_id=prompt)).last
        assert left.ephemeral and left.message is not None
    opened = await fd.click(f"pd:rf90:{gid}:cockpit", user=ALICE, message_id=prompt)
    assert opened.ephemeral and opened.last.message is not None, opened.content
    cockpit = int(opened.last.message["id"])
    options = game.legal_actions(state, 0)
    wanted = game.robot_action(state, 0)
    path = path_to(options, facets(state), options.index(wanted) if wanted in options else 0)
    seats = {s.seat: s for s in await store.seats(gid)}
    token = PRESENTER.act_token(Loaded(record, game, state, seats), 0)
    args = [token] if not path else []
    for k in range(1, len(path) + 1):
        args += [encode(token, path[: k - 1], p) for p in range(1, path[k - 1] // PAGE + 1)]
        args.append(encode(token, path[:k]))
    for arg in args:
        await fd.click(f"pd:rf90:{gid}:pick:{arg}", user=ALICE, message_id=cockpit)
    return None if left is None else left.message


# --- the race's thread, as its drivers read it -----------------------------------------------

SEED = 4242


STAMP = re.compile(r"<t:\d+:[A-Za-z]>")  # a deadline: the clock's, not the race's


def public_calls(calls: list[Any]) -> list[tuple[Any, ...]]:
    """What the thread's readers were shown by these calls, as it would look in any race with
    the same public past: text (deadlines aside), buttons, pictures (their bytes), embeds."""
    return [
        (
            c.kind,
            STAMP.sub("<t>", c.content or ""),
            c.custom_ids,
            [(f.filename, hashlib.sha1(f.data).hexdigest()) for f in c.files],
            c.embeds,
        )
        for c in calls
        if c.is_message and not c.ephemeral
    ]


def thread_messages(backend: Any, thread: int) -> list[dict[str, Any]]:
    """The thread's public messages as they stand now (edits applied), oldest first."""
    return sorted(
        (
            m
            for m in backend.messages.values()
            if int(m["channel_id"]) == thread and not (int(m.get("flags") or 0) & 64)
        ),
        key=lambda m: int(m["id"]),
    )


async def logged_events(store: Any, gid: int, since: int = 0) -> list[Any]:
    """The events of the race's log after its first `since` actions, in order."""
    record = await store.load_game(gid)
    game = get_game("rf90")
    state = game.new_game(record.seed, record.config)
    out: list[Any] = []
    for done in await store.actions(gid):
        state, events = game.apply(state, game.parse_action(done.action_json))
        out += events if done.seq > since else []
    return out


async def logged_lines(store: Any, gid: int, since: int = 0) -> list[str]:
    """Every event line of the race's log (after `since`), as the thread shows them."""
    return PRESENTER.event_lines(await logged_events(store, gid, since))


async def assert_every_line_once(backend: Any, store: Any, gid: int) -> None:
    """Each event line of the log appears in the thread as many times as the log has it:
    none lost (a restart, an edit, a message too long), none told twice."""
    told = await logged_lines(store, gid)
    thread = (await store.load_game(gid)).thread_id
    known = set(told)
    seen = [
        line
        for m in thread_messages(backend, thread)
        for line in str(m.get("content") or "").splitlines()
        if line in known
    ]
    assert Counter(seen) == Counter(told), {
        "missing": Counter(told) - Counter(seen),
        "twice": Counter(seen) - Counter(told),
    }


def phase_of(state: Any) -> str | None:
    """The simultaneous pick under way, by the name its prompt asks it with."""
    if state.duel is not None and state.duel.stage == "cards":
        return "duel cards"
    key = PRESENTER.move_key(state)
    return key[0] if key[0] in ("setup", "substitute car", "qualifying") else None


async def race_at(d: InProcessDriver, phase: str) -> int:
    """A race of ALICE and BOB (the same every time) at the start of `phase`, both to pick."""
    if phase == "duel cards":
        gid, _, _ = await to_the_duel(d)
        return gid
    gid = await open_race(d, seed=SEED)
    while phase_of((now := await loaded(d, gid)).state) != phase:
        await decide(d, gid, PRESENTER.waiting_seats(now.state)[0])
    assert sorted(PRESENTER.waiting_seats(now.state)) == [0, 1]
    return gid
