"""A finished league race's page: its classification, its log in words and its final board,
only what its public thread showed (the event lines the thread was told, the board it was
shown; never a hand, never a user id).

The log is the game's action log replayed from its seed through its rules (what `/<game>
log` does in bot/table/log.py), off the event loop; or, for a race the bot kept it for at
its finish (store/race_logs.py, migration 0017), read as it was kept.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from renderer.boards import board_renderers
from rules.base import get_game
from rules.championship import game_kinds
from store import ActionRecord, GameRecord, League, NotFound, Store
from store.race_logs import RaceLog, replay_log
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
    seat_names: dict[int, str]  # each seat's name as the thread showed it
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


# What the replay of a race's log gives its page (store/race_logs.py): kept by the race
# (`race_key`) in the site's LRU, the same for every visitor of the race.
Replayed = RaceLog


def replay(game: GameRecord, actions: list[ActionRecord]) -> Replayed:
    """The race's log replayed from its seed (CPU: off the event loop)."""
    return replay_log(
        game.kind,
        game.seed,
        game.config,
        game.state_json or "",
        ((a.seq, a.actor, a.action_json) for a in actions),
    )


async def race_page(
    store: Store, league: League, game: GameRecord, cache: Lru[Replayed] | None = None
) -> RacePage:
    """The race's page: its replay (kept in `cache`, if given, by `race_key`), the names
    of its seats and its round as they are now."""
    seats = {s.seat: s for s in await store.seats(game.id)}
    names = {str(s.user_id): s.name for s in seats.values() if s.user_id}
    assert game.state_json is not None  # finished_race checked it

    async def make() -> Replayed:
        kept = await store.race_log(game.id, game.seq)  # the bot keeps it at the finish
        if kept is not None:
            return kept
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
        seat_names={seat: s.name for seat, s in seats.items()},
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
