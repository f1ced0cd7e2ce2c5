"""Pit Formula's pages on the league site: each race's scoring (the sheet and the numbers the
bot posts once a race is scored) and the final standings picture, in place of a final board.

A finished game never changes (a take-back moves its seq on), so its scorings (two replays
on one state, with copies only around the scoring actions) are kept by `race_key` and the
seats' names in a small LRU.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from renderer.pitformula import render_scoring, render_table
from rules.base import get_game
from rules.pitformula import FLAG_NAMES, PitFormulaState, RaceResult, catalog
from store import GameRecord, Store
from store.undo import standing
from web.cache import Lru
from web.race_data import RacePage, race_key
from web.site import NotFoundPage, Race, names, number, png, race, site

KIND = "pitformula"


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


class PitFormulaPages:
    """Pit Formula's race pages (web.games.RacePages) and their cache."""

    template = "games/pitformula.html"

    def __init__(self, races: int = 8) -> None:
        self.scorings: Lru[list[PitRace]] = Lru(races)

    def routes(self, race_path: str) -> list[web.RouteDef]:
        return [
            web.get(race_path + "/scoring/{n:[0-9]+}.png", self.scoring_png, name="scoring"),
            web.get(race_path + "/standings.png", self.standings_png, name="race-standings"),
        ]

    async def extra(self, request: web.Request, found: Race, page: RacePage) -> dict[str, Any]:
        races = await self.races(site(request).store, found.game, page.seat_names)
        # its final standings in the board's place (the board when no race was scored)
        return {"pit": races, "board": not races}

    async def races(self, store: Store, game: GameRecord, names: dict[int, str]) -> list[PitRace]:
        async def make() -> list[PitRace]:
            actions = [a.action_json for a in standing(await store.actions(game.id))]
            return await asyncio.to_thread(_pit_races, game, actions, names)

        return await self.scorings.get((*race_key(game), tuple(sorted(names.items()))), make)

    async def scoring_png(self, request: web.Request) -> web.Response:
        found = await race(request, KIND)
        store = site(request).store
        seats = await names(store, found.game)
        races = await self.races(store, found.game, seats)
        n = number(request.match_info["n"])
        if n > len(races):
            raise NotFoundPage()
        return png(await scoring_picture(races[n - 1], seats))

    async def standings_png(self, request: web.Request) -> web.Response:
        found = await race(request, KIND)
        if found.game.state_json is None:
            raise NotFoundPage()
        seats = await names(site(request).store, found.game)
        return png(await pit_standings(found.game.state_json, seats))


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
