"""Race! Formula 90's pages on the league site: a finished race's animated replay (`/rf90
replay`'s: renderer/rf90_replay.py) and each picture its thread showed one by one (the grid,
every section activation, the finish: the states of rules/rf90/replay.py), with the pictures
the thread showed of it (renderer.rf90's `activation_pictures`, which the bot's presenter
draws too) and the lines it was told.

A finished race never changes (a take-back moves its seq on), so the replayed steps (~0.1 s
of CPU for a long race, replayed on one state with a copy only as each activation ends) and
the animation (seconds of drawing, one at a time so the rest of the site keeps answering)
are kept by `race_key` in small LRUs. A step's pictures are cheap (tens of milliseconds) and
cached by the visitor's browser instead.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from renderer.rf90 import activation_pictures
from renderer.rf90_replay import caption, render_replay
from rules.rf90 import GAME as RF90
from rules.rf90 import RF90State
from rules.rf90.replay import iter_activation_steps
from store import GameRecord, Store
from store.undo import standing
from web.cache import Lru
from web.race_data import RacePage, race_key
from web.site import MAX_AGE, NotFoundPage, Race, number, page, png, race, site

KIND = "rf90"


@dataclass(frozen=True)
class Step:
    """One picture of an RF90 race as its thread showed it: the grid, a section activation
    as it ended, or the finish."""

    state: RF90State
    lines: list[str]  # the event lines told with it (public: the thread's)
    title: str  # e.g. "Game turn 3 of 5 · section 4"
    sub: str  # the leader, the pole sitter or the winner


class RF90Pages:
    """RF90's race pages (web.games.RacePages) and their caches."""

    template = "games/rf90.html"

    def __init__(self, races: int = 8, replays: int = 2) -> None:
        self.steps: Lru[list[Step]] = Lru(races)
        self.replays: Lru[bytes | None] = Lru(replays)  # ~2-3 MB each
        self._drawing = asyncio.Semaphore(1)  # one replay drawn at a time: a core stays free

    def routes(self, race_path: str) -> list[web.RouteDef]:
        step = race_path + "/step/{n:[0-9]+}"
        return [
            web.get(race_path + "/replay.webp", self.replay_page, name="replay"),
            web.get(step, self.step_page, name="step"),
            web.get(step + ".png", self.step_png, name="step-track"),
            web.get(step + "/{picture:[a-z]+}.png", self.step_png, name="step-picture"),
        ]

    async def extra(self, request: web.Request, found: Race, page: RacePage) -> dict[str, Any]:
        return {"steps": page.steps}  # counted by the race's log's replay (RF90's spec)

    async def race_steps(self, store: Store, game: GameRecord) -> list[Step]:
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

    async def replay(self, store: Store, game: GameRecord) -> bytes | None:
        """The race as `/rf90 replay` posts it (None: it never reached an activation)."""

        async def make() -> bytes | None:
            states = [s.state for s in await self.race_steps(store, game)]
            if len(states) < 2:
                return None
            async with self._drawing:
                return await asyncio.to_thread(render_replay, states)

        return await self.replays.get(race_key(game), make)

    async def _step(self, request: web.Request) -> tuple[Race, int, list[Step]]:
        """The RF90 race the address names, the step number it asks for and the steps."""
        found = await race(request, KIND)
        steps = await self.race_steps(site(request).store, found.game)
        n = number(request.match_info["n"])
        if n > len(steps):
            raise NotFoundPage()
        return found, n, steps

    async def replay_page(self, request: web.Request) -> web.Response:
        found = await race(request, KIND)
        body = await self.replay(site(request).store, found.game)
        if body is None:
            raise NotFoundPage()
        return web.Response(body=body, content_type="image/webp", headers=MAX_AGE)

    async def step_page(self, request: web.Request) -> web.Response:
        found, n, steps = await self._step(request)
        return page(
            request,
            "step.html",
            base=found.base,
            suffix=found.suffix,
            league=found.season,
            game=found.game,
            title=f"{found.season.name} - Race! Formula 90 race #{found.game.id}",
            n=n,
            count=len(steps),
            step=steps[n - 1],
        )

    async def step_png(self, request: web.Request) -> web.Response:
        _, n, steps = await self._step(request)
        picture = request.match_info.get("picture", "track")  # `.../step/{n}.png`: the track
        return png(await step_picture(steps[n - 1], picture))


async def step_picture(step: Step, name: str) -> bytes | None:
    """One of the pictures the thread showed of this step (None: no picture of that name)."""
    draw = activation_pictures(step.state, step.state.activation).get(name)
    return None if draw is None else await asyncio.to_thread(draw)
