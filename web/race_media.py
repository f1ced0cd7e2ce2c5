"""What a finished race's page shows beyond its classification, log and final board, worked
out by replaying its action log from the seed, as the thread was shown it:

- Race! Formula 90: the animated replay (`/rf90 replay`'s: renderer/rf90_replay.py) and each
  section activation one by one (the grid, every activation, the finish: the states of
  rules/rf90/replay.py), with the pictures the thread showed of it (renderer.rf90's
  `activation_pictures`, which the bot's presenter draws too) and the lines it was told;
- Pit Formula: each race's scoring (the sheet and the numbers the bot posts once a race is
  scored) and the final standings picture.

A finished race never changes (a take-back moves its seq on), so what is costly is kept by
`race_key` in small LRUs (web/cache.py): the replayed steps (~0.1 s of CPU for a long RF90
race, replayed on one state with a copy only as each activation ends), Pit Formula's scorings
and the replay animation (seconds of drawing, one at a time so the rest of the site keeps
answering). Pictures of one
step are cheap (tens of milliseconds) and cached by the visitor's browser instead.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from renderer.pitformula import render_scoring, render_table
from renderer.rf90 import activation_pictures
from renderer.rf90_replay import caption, render_replay
from rules.base import get_game
from rules.pitformula import FLAG_NAMES, PitFormulaState, RaceResult, catalog
from rules.rf90 import GAME as RF90
from rules.rf90 import RF90State
from rules.rf90.replay import iter_activation_steps
from store import GameRecord, Store
from store.undo import standing
from web.cache import Lru
from web.race_data import Replayed, race_key


@dataclass(frozen=True)
class Step:
    """One picture of an RF90 race as its thread showed it: the grid, a section activation
    as it ended, or the finish."""

    state: RF90State
    lines: list[str]  # the event lines told with it (public: the thread's)
    title: str  # e.g. "Game turn 3 of 5 · section 4"
    sub: str  # the leader, the pole sitter or the winner


@dataclass(frozen=True)
class CarScore:
    car: int
    crew: str
    took: str  # the flag taken, or "-"
    kept: str  # the flag kept after the checks, or "-"
    wrong: str  # card slots repaired wrongly, missing repairs, or ""
    points: int


@dataclass(frozen=True)
class PitRace:
    """One Pit Formula race once scored."""

    number: int
    crash: str  # the crash card's name (shown face up at the race's Go!)
    super: bool
    cars: list[CarScore]
    rival: str | None  # the Rival's line in a solo game
    result: RaceResult
    state: PitFormulaState  # just after the scoring
    board: PitFormulaState  # just before: the cards as they lay (`render_scoring`'s board)


class RaceMedia:
    """The site's caches of replayed races and drawn replays."""

    def __init__(self, races: int = 8, replays: int = 2, logs: int = 64) -> None:
        self.steps: Lru[list[Step]] = Lru(races)
        self.pit: Lru[list[PitRace]] = Lru(races)
        self.replays: Lru[bytes | None] = Lru(replays)  # ~2-3 MB each
        self.logs: Lru[Replayed] = Lru(logs)  # ~100 KB each: a race's log in words
        self._drawing = asyncio.Semaphore(1)  # one replay drawn at a time: a core stays free

    async def rf90_steps(self, store: Store, game: GameRecord) -> list[Step]:
        async def make() -> list[Step]:
            actions = [a.action_json for a in standing(await store.actions(game.id))]

            def replay() -> list[Step]:
                done = list(iter_activation_steps(RF90, game.seed, game.config, actions))
                steps = []
                for i, (state, events) in enumerate(done):
                    first, sub, _car = caption(state, i, len(done))
                    steps.append(
                        Step(
                            state,
                            [e.text for e in events if e.text],
                            first.rpartition(" · ")[0],  # without the "n/N" counter
                            sub,
                        )
                    )
                return steps

            return await asyncio.to_thread(replay)

        return await self.steps.get(race_key(game), make)

    async def rf90_replay(self, store: Store, game: GameRecord) -> bytes | None:
        """The race as `/rf90 replay` posts it (None: it never reached an activation)."""

        async def make() -> bytes | None:
            states = [s.state for s in await self.rf90_steps(store, game)]
            if len(states) < 2:
                return None
            async with self._drawing:
                return await asyncio.to_thread(render_replay, states)

        return await self.replays.get(race_key(game), make)

    async def pit_races(
        self, store: Store, game: GameRecord, names: dict[int, str]
    ) -> list[PitRace]:
        async def make() -> list[PitRace]:
            actions = [a.action_json for a in standing(await store.actions(game.id))]
            return await asyncio.to_thread(_pit_races, game, actions, names)

        return await self.pit.get((*race_key(game), tuple(sorted(names.items()))), make)


async def step_picture(step: Step, name: str) -> bytes | None:
    """One of the pictures the thread showed of this step (None: no picture of that name)."""
    draw = activation_pictures(step.state, step.state.activation).get(name)
    return None if draw is None else await asyncio.to_thread(draw)


async def scoring_picture(race: PitRace, names: dict[int, str]) -> bytes:
    """The scoring sheet the bot posted once this race was scored."""
    return await asyncio.to_thread(render_scoring, race.state, names, board=race.board)


async def pit_standings(state_json: str, names: dict[int, str]) -> bytes:
    """The final standings picture the bot posted at the game's end."""
    state: PitFormulaState = get_game("pitformula").load_state(state_json)
    return await asyncio.to_thread(render_table, state, names)


def _flag(flag: int | None) -> str:
    return FLAG_NAMES[flag] if flag is not None else "-"


def _scoring_actions(game: GameRecord, actions: list[str]) -> set[int]:
    """The indexes of the actions that scored a race (a replay on one state, no copies)."""
    rules = get_game("pitformula")
    state: PitFormulaState = rules.new_game(game.seed, game.config)
    out = set()
    for i, raw in enumerate(actions):
        scored = len(state.results)
        state, _ = rules.apply_owned(state, rules.parse_action(raw))
        if len(state.results) != scored:
            out.add(i)
    return out


def _pit_races(game: GameRecord, actions: list[str], names: dict[int, str]) -> list[PitRace]:
    """Each scored race, replayed twice on a state of its own (no copy per action: nine
    tenths of a replay's time): first to find the actions that scored, then with copies of
    the state just before and just after each of those only."""
    rules = get_game("pitformula")
    scoring = _scoring_actions(game, actions)
    state: PitFormulaState = rules.new_game(game.seed, game.config)
    out = []
    for i, raw in enumerate(actions):
        if i not in scoring:
            state, _ = rules.apply_owned(state, rules.parse_action(raw))
            continue
        before = state.model_copy(deep=True)
        state, _ = rules.apply_owned(state, rules.parse_action(raw))
        after = state.model_copy(deep=True)  # kept: the replay goes on with its own
        result = after.results[-1]
        cars = []
        for cr in result.cars:
            seats = after.cars[cr.car].seats
            wrong = [
                *cr.errors,
                *(f"missing {n} {p}{'s' if n > 1 else ''}" for p, n in cr.missing.items() if n),
            ]
            cars.append(
                CarScore(
                    car=cr.car + 1,
                    crew=" & ".join(names.get(s, f"seat {s + 1}") for s in seats),
                    took=_flag(cr.took_flag),
                    kept=_flag(cr.flag),
                    wrong=("penalised; " if cr.penalized else "") + ", ".join(wrong),
                    points=cr.points,
                )
            )
        rival = None
        if result.rival is not None:
            total = sum(r.rival.points for r in after.results if r.rival is not None)
            rival = f"{result.rival.points} points (total {total})"
        out.append(
            PitRace(
                number=result.number,
                crash=catalog().crash_cards[result.crash].name,
                super=result.super,
                cars=cars,
                rival=rival,
                result=result,
                state=after,
                board=before,
            )
        )
    return out
