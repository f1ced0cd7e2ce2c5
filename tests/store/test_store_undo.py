"""Taking moves back in the store (issue 27, store/undo.py), on both databases: an undo puts
back the state before the action byte for byte and its timers (the deadline) as they were;
it is a log entry, so `verify` replays it; a second undo, an undo after a chain, and an undo
racing a move are refused or lose cleanly; a rewind of a finished league race removes its
result."""

from __future__ import annotations

import asyncio

import pytest

from store import LeagueError, Seat, StaleState, Store, open_store, play
from store.errors import NothingToUndo
from store.models import ActionRecord, TimerSpec
from store.undo import REWIND, UNDO, Mark, mark_of, standing
from store.verify import verify_store
from tests.toygame.rules import Roll, ToyGame

pytestmark = pytest.mark.usefixtures("toy_game")


@pytest.fixture
def store(backend_store: Store) -> Store:
    return backend_store


SEATS = [
    Seat(seat=0, user_id=1, name="A", robot=False),
    Seat(seat=1, user_id=2, name="B", robot=False),
]


def deadline(seat: int, due: float) -> list[TimerSpec]:
    return [
        TimerSpec(event="toy_reminder", due_at=due - 60, payload={"seats": [seat], "n": "ü"}),
        TimerSpec(event="toy_timeout", due_at=due, payload={"seats": [seat]}),
    ]


def shape(timers: list) -> list[tuple[str, float, dict]]:
    return [(t.event, t.due_at, t.payload) for t in timers]


async def move(store: Store, gid: int, seat: int, due: float, **kw: int) -> play.Played:
    return await play.act(
        store, gid, Roll(seat=seat, **kw), actor=str(seat + 1), timers=deadline(1 - seat, due)
    )


async def undo_last(store: Store, game: ToyGame, gid: int, actor: str) -> int:
    """What the bot does: the state before the last action, from the standing log."""
    record = await store.load_game(gid)
    kept = standing(await store.actions(gid))[:-1]
    before = game.replay(
        record.seed, record.config, [game.parse_action(a.action_json) for a in kept]
    )
    return await store.take_back(
        gid, record.seq, actor, Mark(kind=UNDO, to=record.seq - 1), before.model_dump_json()
    )


async def test_an_undo_restores_the_snapshot_and_the_timers_and_verify_replays_it(
    store: Store, toy_game: ToyGame
) -> None:
    record, _ = await play.new_game(store, "toy", 5, {"players": 2}, SEATS)
    gid = record.id
    await move(store, gid, 0, 1_000.0)
    before = await store.load_game(gid)
    timers_before = shape(await store.timers(gid))
    assert timers_before == shape(deadline(1, 1_000.0))
    await move(store, gid, 1, 2_000.0, boost=1)  # the misclick
    assert shape(await store.timers(gid)) == shape(deadline(0, 2_000.0))

    seq = await undo_last(store, toy_game, gid, "2")
    after = await store.load_game(gid)
    assert seq == 3 and after.seq == 3
    assert after.state_json == before.state_json  # byte for byte
    assert shape(await store.timers(gid)) == timers_before  # the deadline as it was
    log = await store.actions(gid)
    assert [mark_of(a) for a in log] == [None, None, Mark(kind=UNDO, to=1)]
    assert log[-1].actor == "2"
    assert [a.seq for a in standing(log)] == [1]
    report = await verify_store(store)
    assert report.ok, report.mismatches

    # The seat moves again: the log goes on after the mark, verify still clean.
    await move(store, gid, 1, 3_000.0)
    assert [a.seq for a in standing(await store.actions(gid))] == [1, 4]
    assert (await verify_store(store)).ok


async def test_undo_of_an_undo_and_of_a_chain_are_refused(store: Store, toy_game: ToyGame) -> None:
    record, _ = await play.new_game(store, "toy", 5, {"players": 2}, SEATS)
    gid = record.id
    await move(store, gid, 0, 1_000.0)
    await undo_last(store, toy_game, gid, "1")
    with pytest.raises(NothingToUndo):  # the last entry is the mark: nothing to take back
        await store.take_back(gid, 2, "1", Mark(kind=UNDO, to=1), "{}")
    # Two actions appended in one chain (a move and a robot's): the first is not undoable
    # with the timers kept, since the chain moved from before both.
    state = toy_game.load_state((await store.load_game(gid)).state_json)
    s1, _ = toy_game.apply(state, Roll(seat=0))
    s2, _ = toy_game.apply(s1, Roll(seat=1))
    await store.append_actions(
        gid,
        2,
        [
            ("1", Roll(seat=0).model_dump_json(), False),
            ("robot", Roll(seat=1).model_dump_json(), True),
        ],
        s2.model_dump_json(),
        timers=[],
    )
    with pytest.raises(NothingToUndo):
        await store.take_back(gid, 4, "robot", Mark(kind=UNDO, to=3), s1.model_dump_json())
    assert (await store.load_game(gid)).seq == 4 and (await verify_store(store)).ok


async def test_an_undo_racing_a_move_leaves_one_winner(backend_url: str, toy_game: ToyGame) -> None:
    a, b = open_store(backend_url), open_store(backend_url)
    await a.open()
    await b.open()
    try:
        record, _ = await play.new_game(a, "toy", 5, {"players": 2}, SEATS)
        gid = record.id
        await move(a, gid, 0, 1_000.0)
        start = await a.load_game(gid)
        state = toy_game.load_state(start.state_json)
        s1, _ = toy_game.apply(state, Roll(seat=1))
        first = toy_game.new_game(5, {"players": 2})
        got = await asyncio.gather(
            a.take_back(gid, 1, "1", Mark(kind=UNDO, to=0), first.model_dump_json()),
            b.append_action(gid, 1, "2", Roll(seat=1).model_dump_json(), s1.model_dump_json()),
            return_exceptions=True,
        )
        assert sorted(type(r).__name__ for r in got) == ["StaleState", "int"]
        loser = next(r for r in got if isinstance(r, StaleState))
        latest = await a.load_game(gid)
        assert latest.seq == 2 and loser.seq == 2 and loser.state_json == latest.state_json
        assert len(await a.actions(gid)) == 2
        assert (await verify_store(a)).ok
    finally:
        await a.close()
        await b.close()


async def test_a_rewind_of_a_finished_league_race_removes_its_result(
    store: Store, toy_game: ToyGame
) -> None:
    lg = await store.create_league(1, "Cup", "waddington", "waddington", [10, 8], 1)
    await store.join_league(lg, 1, "A", None)
    await store.join_league(lg, 2, "B", None)
    rnd = await store.set_round(lg, 1, "R1", None)
    record, _ = await play.new_game(
        store, "toy", 3, {"players": 2}, SEATS, league_id=lg.id, round_id=rnd.id
    )
    game = toy_game
    played = None
    while played is None or not played.finished:
        state = game.load_state((await store.load_game(record.id)).state_json)
        played = await play.act(
            store, record.id, game.robot_action(state, game.to_act(state)[0]), actor="r"
        )
    assert len(await store.results(lg.id)) == 2
    assert (await store.get_round(lg, 1)).status == "done"
    seq = played.seq
    kept = standing(await store.actions(record.id))[:2]
    at_two = game.replay(3, {"players": 2}, [game.parse_action(a.action_json) for a in kept])

    new_seq = await store.take_back(
        record.id,
        seq,
        "99",
        Mark(kind=REWIND, to=2),
        at_two.model_dump_json(),
        timers=[],
        human_at=1_900_000_000.0,
    )
    assert new_seq == seq + 1
    again = await store.load_game(record.id)
    assert again.status == "running" and not again.results_recorded
    assert again.last_human_at == 1_900_000_000.0  # the idle days count from the rewind
    assert again.state_json == at_two.model_dump_json()
    assert await store.results(lg.id) == []
    assert (await store.get_round(lg, 1)).status == "scheduled"
    assert (await verify_store(store)).ok

    # Raced to the finish again: the result is recorded once more.
    played = None
    while played is None or not played.finished:
        state = game.load_state((await store.load_game(record.id)).state_json)
        played = await play.act(
            store, record.id, game.robot_action(state, game.to_act(state)[0]), actor="r"
        )
    assert played.results_recorded and len(await store.results(lg.id)) == 2
    assert (await verify_store(store)).ok

    # A closed season's race is not rewound: its result stays.
    await store.close_season(await store.league_by_id(lg.id))
    with pytest.raises(LeagueError, match="season is over"):
        await store.take_back(
            record.id,
            played.seq,
            "99",
            Mark(kind=REWIND, to=2),
            at_two.model_dump_json(),
            timers=[],
        )
    assert len(await store.results(lg.id)) == 2
    assert (await store.load_game(record.id)).status == "finished"


async def test_verify_finds_a_mark_to_an_entry_that_did_not_stand(
    store: Store, toy_game: ToyGame
) -> None:
    record, _ = await play.new_game(store, "toy", 5, {"players": 2}, SEATS)
    gid = record.id
    await move(store, gid, 0, 1_000.0)
    await move(store, gid, 1, 1_000.0)
    start = toy_game.new_game(5, {"players": 2}).model_dump_json()
    await store.take_back(gid, 2, "9", Mark(kind=REWIND, to=0), start, timers=[])
    assert (await verify_store(store)).ok
    # A forged mark back to entry 2, which the rewind took back: verify says so.
    state = toy_game.load_state(start)
    await store.append_action(
        gid, 3, "9", Mark(kind=REWIND, to=2).to_json(), state.model_dump_json()
    )
    report = await verify_store(store)
    assert not report.ok and "did not stand" in report.mismatches[0].problem


def test_standing_drops_what_each_mark_took_back() -> None:
    def entry(seq: int, body: str = '{"seat": 0, "kind": "roll"}') -> ActionRecord:
        return ActionRecord(
            game_id=1, seq=seq, actor="1", by_robot=False, action_json=body, created_at=""
        )

    log = [
        entry(1),
        entry(2),
        entry(3, Mark(kind=UNDO, to=1).to_json()),
        entry(4),
        entry(5),
        entry(6, Mark(kind=REWIND, to=4).to_json()),
        entry(7),
    ]
    assert [a.seq for a in standing(log)] == [1, 4, 7]
    assert [a.seq for a in standing(log[:3])] == [1]
    assert standing([entry(1), entry(2, Mark(kind=REWIND, to=0).to_json())]) == []
