"""A finished league race's page: its classification, its log in words and its final board,
only what its public thread showed (the event lines the thread was told, the board it was
shown; never a hand, never a user id).

The log is the game's action log replayed from its seed through its rules (what `/<game>
log` does in bot/table/log.py), off the event loop.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from renderer.boards import board_renderers
from rules.base import Event, get_game
from rules.championship import game_kinds
from rules.rf90 import GAME as RF90
from rules.rf90.replay import iter_action_steps
from store import ActionRecord, GameRecord, League, NotFound, Store
from store.undo import standing
from web.cache import Lru


def race_key(game: GameRecord) -> tuple[int, int]:
    """What a finished race's replay depends on: its id and its log's length (a take-back,
    which makes the race run again, moves it on)."""
    return (game.id, game.seq)


@dataclass
class Placed:
    place: str
    name: str
    status: str  # "" when finished


@dataclass
class LogLine:
    seq: int
    who: str
    text: str


@dataclass
class RacePage:
    game: GameRecord
    league: League
    title: str
    round_name: str | None
    classification: list[Placed]
    log: list[LogLine]
    has_board: bool
    steps: int = 0  # Race! Formula 90: the pictures of its thread (grid, activations, finish)


async def finished_race(store: Store, seasons: list[League], game_id: int) -> GameRecord | None:
    """The game if it is a finished race of one of these seasons (else None: the same 404
    for a game that is missing, of another league, or not finished)."""
    try:
        game = await store.load_game(game_id)
    except NotFound:
        return None
    if game.status != "finished" or game.league_id not in {s.id for s in seasons}:
        return None
    if game.state_json is None:
        return None
    return game


def _who(actor: str, names: dict[str, str]) -> str:
    kind, _, user = actor.partition(":")
    if actor in names:
        return names[actor]
    if kind in ("timeout", "autopilot") and user in names:
        return f"{names[user]} ({'timed out' if kind == 'timeout' else kind})"
    # Never the actor as stored: a person's is their Discord user id.
    return {"robot": "robot", "forced": "forced", "bot": "the bot"}.get(kind, "a driver")


@dataclass(frozen=True)
class Replayed:
    """What the replay of a race's log gives its page, before any name is put in: each
    standing action's (seq, actor as stored, its line in words), the final classification's
    (seat, place, status), and for RF90 the count of its thread's pictures. The same for
    every visitor of the race: kept by the race (`race_key`) in the site's LRU."""

    actions: list[tuple[int, str, str]]
    placings: list[tuple[int, int, str]]
    steps: int


def replay(game: GameRecord, actions: list[ActionRecord]) -> Replayed:
    """The race's log replayed from its seed (CPU: off the event loop)."""
    rules = get_game(game.kind)

    def said(done: ActionRecord, events: list[Event]) -> tuple[int, str, str]:
        text = "; ".join(e.text for e in events if e.text) or "(no public effect)"
        return done.seq, done.actor, text

    lines = []
    steps = 0
    if game.kind == "rf90":  # the log and the count of its thread's pictures at once
        logged = iter(actions)
        for events, done_steps in iter_action_steps(
            RF90, game.seed, game.config, (a.action_json for a in actions), snapshots=False
        ):
            steps += len(done_steps)
            if events is not None:
                lines.append(said(next(logged), events))
    else:
        state = rules.new_game(game.seed, game.config)
        for done in actions:
            # the replay's own state, never read again: no copy per action (RF90's were
            # nine tenths of its race page's time)
            state, events = rules.apply_owned(state, rules.parse_action(done.action_json))
            lines.append(said(done, events))
    final = rules.load_state(game.state_json or "")
    placings: list[tuple[int, int, str]] = [
        (p.seat, p.place, p.status) for p in rules.classification(final)
    ]
    return Replayed(lines, placings, steps)


async def race_page(
    store: Store, league: League, game: GameRecord, cache: Lru[Replayed] | None = None
) -> RacePage:
    """The race's page: its replay (kept in `cache`, if given, by `race_key`), the names
    of its seats and its round as they are now."""
    seats = {s.seat: s for s in await store.seats(game.id)}
    names = {str(s.user_id): s.name for s in seats.values() if s.user_id}
    assert game.state_json is not None  # finished_race checked it

    async def make() -> Replayed:
        actions = standing(await store.actions(game.id))  # without what was taken back
        return await asyncio.to_thread(replay, game, actions)

    done = await (cache.get(race_key(game), make) if cache is not None else make())
    log = [LogLine(seq, _who(actor, names), text) for seq, actor, text in done.actions]
    placed = [
        Placed(
            place=str(place),
            name=seats[seat].name if seat in seats else f"car {seat + 1}",
            status="" if status in ("running", "finished") else status,
        )
        for seat, place, status in done.placings
    ]
    round_name = None
    if game.round_id is not None:
        rnd = await store.round_by_id(game.round_id)
        round_name = f"Round {rnd.number}: {rnd.name}"
    return RacePage(
        game=game,
        league=league,
        title=f"{league.name} - {game_kinds().get(game.kind, game.kind)} race #{game.id}",
        round_name=round_name,
        classification=placed,
        log=log,
        has_board=game.kind in board_renderers(),
        steps=done.steps,
    )


async def final_board(game: GameRecord) -> bytes | None:
    """The board of the race's final state, as the thread was shown it (None: a game with
    no board image)."""
    render = board_renderers().get(game.kind)
    if render is None or game.state_json is None:
        return None
    rules = get_game(game.kind)
    state_json = game.state_json
    return await asyncio.to_thread(lambda: render(rules.load_state(state_json)))
