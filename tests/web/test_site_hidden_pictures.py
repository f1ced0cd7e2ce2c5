"""The hidden-information property of the league site's pictures, over every game that hides
something (issue 26: "nothing a hand holds appears"; tests/web/test_site_hidden_info.py checks
the pages' text).

A game is raced to the end by its robots and stored as a finished league race
(tests/web/web_helpers.py). Each picture its race page serves is drawn by the site's own
functions (web/race_data.py, web/games/), with the arguments the site passes them, from
the states the site draws it from; then drawn again from *twins* of those states, which differ
only in what the game's spec hides (`GameSpec.hidden`: every seat's hand, face-down cards,
qualifying picks, duel cards, the draw and discard piles; their values shuffled among
themselves, one pool at a time, so each hand keeps its size and its number of Race and Track
cards; the random source reseeded). Each twin's `public_view` is checked to be the state's.
The two pictures must have the same pixels (every frame of an animation): a picture that
showed a hidden card would differ.

The pictures, by game:

- Race! Formula 90: the final board, the replay animation (every activation step), and each
  picture of an activation page (renderer.rf90's `activation_pictures`: the track and the
  dashboards) for the grid, a few activations and the finish;
- Waddington's Formula 1: the final board;
- Pit Formula: the final board, each race's scoring sheet (drawn from the state just after the
  scoring and the board just before it) and the final standings.

`test_every_picture_the_site_serves_is_covered` ties the list to the site's routes; the last
tests show the comparison fails on a picture that shows what a hand holds (RF90's cockpit,
which the bot shows its driver alone, and each game's board with a hidden card written on it).
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

import pytest
from PIL import Image, ImageChops, ImageDraw, ImageSequence

from renderer.rf90 import activation_pictures
from renderer.rf90_cockpit import render_cockpit
from rules.base import Game, GameState, games, get_game
from rules.rf90 import RF90State
from rules.rng import Rng
from rules.spec import Json, Zone
from store import GameRecord, Store, open_store
from tests.web.web_helpers import Raced, league_race
from web.app import make_app
from web.games.pitformula import PitFormulaPages, pit_standings, scoring_picture
from web.games.rf90 import RF90Pages, Step, step_picture
from web.race_data import final_board, race_key

KINDS = ["rf90", "waddington", "pitformula"]
# The race's pictures, by the name of the site's route (web/app.py), and the games serving them.
ROUTES = {
    "board": KINDS,
    "replay": ["rf90"],
    "step-track": ["rf90"],
    "step-picture": ["rf90"],
    "scoring": ["pitformula"],
    "race-standings": ["pitformula"],
}
RF90_STEPS = 5  # activation pages drawn: the grid, the finish and some between


# --- twins: the same race, other hidden cards ---------------------------------------------


@dataclass
class Place:
    pool: str
    box: Any  # the list or object holding the value
    key: Any
    universe: tuple[Any, ...]


def hidden_places(zones: tuple[Zone, ...], data: Json) -> list[Place]:
    """Every value the zones hide now in the state's JSON (each card of a hand a place)."""
    out = []

    def walk(zone: Zone, node: Json, depth: int) -> Iterator[tuple[Any, Any]]:
        if node is None:
            return
        step = zone.path[depth]
        if step == "*":
            keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        else:
            keys = [step] if step in node else []
        for k in keys:
            if depth + 1 < len(zone.path):
                yield from walk(zone, node[k], depth + 1)
            elif node[k] is not None and zone.when(data, node):
                yield node, k

    for zone in zones:
        for box, key in walk(zone, data, 0):
            value = box[key]
            spots = list(enumerate(value)) if isinstance(value, list) else [(key, value)]
            for k, v in spots:
                pool = zone.pool(v) if callable(zone.pool) else zone.pool
                out.append(Place(pool, value if isinstance(value, list) else box, k, zone.universe))
    return out


def hidden_values(game: Game[Any], state: GameState) -> list[Any]:
    data = state.model_dump(mode="json")
    return [p.box[p.key] for p in hidden_places(game.spec.hidden, data)]


def held(game: Game[Any], state: GameState) -> list[list[Any]]:
    """Each hand (a zone no rule reveals) as its sorted cards."""
    data = state.model_dump(mode="json")
    zones = tuple(z for z in game.spec.hidden if z.held)
    hands: dict[int, list[Any]] = {}
    for p in hidden_places(zones, data):
        hands.setdefault(id(p.box), []).append(p.box[p.key])
    return [sorted(h) for h in hands.values()]


def twin(game: Game[Any], state: GameState, rng: random.Random) -> GameState:
    """The state with every hidden value moved: each pool's values shuffled among its places
    (a pool of one value with a universe: another value of it), the random source reseeded.
    Its public view is the state's."""
    data = state.model_dump(mode="json")
    copy = json.loads(json.dumps(data))
    places = hidden_places(game.spec.hidden, copy)
    pools: dict[str, list[Place]] = {}
    for place in places:
        pools.setdefault(place.pool, []).append(place)
    for spots in pools.values():
        values = [p.box[p.key] for p in spots]
        if len(spots) == 1 and spots[0].universe:
            values = [rng.choice([u for u in spots[0].universe if u != values[0]])]
        elif len(set(map(str, values))) > 1:
            shuffled = values
            while shuffled == values:
                shuffled = rng.sample(values, len(values))
            values = shuffled
        for place, value in zip(spots, values, strict=True):
            place.box[place.key] = value
    copy["rng"] = Rng.from_seed(rng.randrange(2**32)).model_dump()
    other: GameState = game.state_type.model_validate(copy)
    assert game.public_view(other) == game.public_view(state), "the twin is not a twin"
    if any(len(set(map(str, [p.box[p.key] for p in s]))) > 1 for s in pools.values()):
        assert hidden_values(game, other) != hidden_values(game, state)
    return other


# --- pictures -------------------------------------------------------------------------------


def frames(data: bytes) -> list[Image.Image]:
    with Image.open(io.BytesIO(data)) as im:
        return [f.convert("RGBA") for f in ImageSequence.Iterator(im)]


def difference(a: bytes, b: bytes) -> str | None:
    """Where two pictures differ (None: the same pixels, every frame)."""
    if a == b:
        return None
    fa, fb = frames(a), frames(b)
    if len(fa) != len(fb):
        return f"{len(fa)} frames against {len(fb)}"
    for i, (x, y) in enumerate(zip(fa, fb, strict=True)):
        if x.size != y.size:
            return f"frame {i}: {x.size} against {y.size}"
        if x.tobytes() != y.tobytes():
            boxes = [band.getbbox() for band in ImageChops.difference(x, y).split()]
            return f"frame {i}: pixels differ in {[b for b in boxes if b]}"
    return None


@dataclass
class Picture:
    """A picture of the race as the site draws it: the states it is drawn from, and how."""

    name: str
    states: list[GameState]
    draw: Callable[[list[GameState]], Awaitable[bytes | None]]


@dataclass
class Race:
    kind: str
    store: Store
    game: GameRecord
    names: dict[int, str]
    rf90: RF90Pages
    pit: PitFormulaPages

    @property
    def rules(self) -> Game[Any]:
        return get_game(self.kind)

    def final(self) -> GameState:
        assert self.game.state_json is not None
        return self.rules.load_state(self.game.state_json)

    def with_state(self, state: GameState) -> GameRecord:
        return self.game.model_copy(update={"state_json": state.model_dump_json()})


async def pictures(race: Race) -> list[Picture]:
    """Every kind of picture the race page serves, from the states the site draws it from."""

    async def board(states: list[GameState]) -> bytes | None:
        return await final_board(race.with_state(states[0]))

    out = [Picture("board.png", [race.final()], board)]
    if race.kind == "rf90":
        steps = await race.rf90.race_steps(race.store, race.game)
        assert len(steps) > RF90_STEPS

        async def replay(states: list[GameState]) -> bytes | None:
            # the site's own replay, drawn from these states for the race's steps
            media = RF90Pages()

            async def replayed() -> list[Step]:
                return [
                    replace(s, state=cast(RF90State, t)) for s, t in zip(steps, states, strict=True)
                ]

            await media.steps.get(race_key(race.game), replayed)
            return await media.replay(race.store, race.game)

        out.append(Picture("replay.webp", [s.state for s in steps], replay))
        last = len(steps) - 1
        for n in sorted({0, 1, last // 3, 2 * last // 3, last}):
            step = steps[n]
            for name in activation_pictures(step.state, step.state.activation):

                def shown(step: Step, name: str) -> Callable[[list[GameState]], Awaitable[bytes]]:
                    async def draw(states: list[GameState]) -> bytes:
                        drawn = await step_picture(
                            replace(step, state=cast(RF90State, states[0])), name
                        )
                        assert drawn is not None
                        return drawn

                    return draw

                out.append(Picture(f"step/{n + 1}/{name}.png", [step.state], shown(step, name)))
    if race.kind == "pitformula":
        races = await race.pit.races(race.store, race.game, race.names)
        assert races
        for n, scored in enumerate(races, 1):

            def sheet(scored: Any) -> Callable[[list[GameState]], Awaitable[bytes]]:
                async def draw(states: list[GameState]) -> bytes:
                    after, before = states
                    changed = replace(scored, state=after, board=before)
                    return await scoring_picture(changed, race.names)

                return draw

            out.append(Picture(f"scoring/{n}.png", [scored.state, scored.board], sheet(scored)))

        async def standings(states: list[GameState]) -> bytes:
            return await pit_standings(states[0].model_dump_json(), race.names)

        out.append(Picture("standings.png", [race.final()], standings))
    return out


async def leaked(race: Race, picture: Picture, rng: random.Random) -> str | None:
    """How the picture differs when drawn from twins of its states (None: it does not)."""
    drawn = await picture.draw(picture.states)
    assert drawn, picture.name
    assert await picture.draw(picture.states) == drawn, f"{picture.name} is not deterministic"
    twins = [twin(race.rules, s, rng) for s in picture.states]
    other = await picture.draw(twins)
    assert other, picture.name
    return difference(drawn, other)


# --- the race -------------------------------------------------------------------------------


@pytest.fixture(params=KINDS)
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def raced(tmp_path: Path, kind: str) -> Raced:
    return await league_race(tmp_path, kind, seed=11)


@pytest.fixture
async def race(raced: Raced, kind: str) -> AsyncIterator[Race]:
    store = open_store(raced.path, read_only=True)  # as the site opens it
    await store.open(run_migrations=False)
    try:
        game = await store.load_game(raced.game_id)
        assert game.kind == kind
        names = {s.seat: s.name for s in await store.seats(game.id)}  # web.site.names
        yield Race(kind, store, game, names, RF90Pages(), PitFormulaPages())
    finally:
        await store.close()


# --- the property ---------------------------------------------------------------------------


async def test_no_picture_of_a_race_depends_on_hidden_cards(race: Race) -> None:
    rng = random.Random(26)
    shown = await pictures(race)
    found = {p.name: d for p in shown if (d := await leaked(race, p, rng)) is not None}
    assert not found, found
    # not vacuous: hidden cards were there to change, and the hands did change
    states = [s for p in shown for s in p.states]
    assert any(hidden_values(race.rules, s) for s in states)
    if any(z.held for z in race.rules.spec.hidden):
        final = race.final()
        hands = held(race.rules, final)
        assert any(hands) and hands != held(race.rules, twin(race.rules, final, rng))


def test_every_game_that_hides_something_is_covered() -> None:
    assert sorted(n for n, g in games().items() if g.spec.hidden) == sorted(KINDS)


async def test_every_picture_the_site_serves_is_covered(race: Race) -> None:
    """The routes of a race's pictures are the ones drawn here, for the games drawn here."""
    app = make_app(race.store, "https://paddock.example")
    served = {
        r.name
        for r in app.router.resources()
        if r.name and "/race/" in r.canonical and r.canonical.endswith((".png", ".webp"))
    }
    assert served == set(ROUTES)
    names = {p.name.split("/")[0] for p in await pictures(race)}
    kinds = {
        "board": "board.png",
        "replay": "replay.webp",
        "step-track": "step",
        "step-picture": "step",
        "scoring": "scoring",
        "race-standings": "standings.png",
    }
    assert {kinds[r] for r, games_ in ROUTES.items() if race.kind in games_} == names
    if race.kind == "rf90":  # every picture of an activation page: the track's, then the rest
        step = (await race.rf90.race_steps(race.store, race.game))[0]
        assert list(activation_pictures(step.state, step.state.activation))[0] == "track"


# --- the check can fail ---------------------------------------------------------------------


async def test_the_check_finds_a_hand_in_a_picture(race: Race) -> None:
    """The board with a hidden card written on it (the first hand's cards, or for a game
    whose hidden cards nobody holds the first hidden one), as a careless renderer would."""
    rng = random.Random(26)

    async def careless(states: list[GameState]) -> bytes:
        board = await final_board(race.with_state(states[0]))
        assert board is not None
        hands = [h for h in held(race.rules, states[0]) if h]
        secret = hands[0] if hands else hidden_values(race.rules, states[0])[0]
        with Image.open(io.BytesIO(board)) as im:
            img = im.convert("RGB")
        ImageDraw.Draw(img).text((10, 10), str(secret), fill=(255, 0, 0))
        out = io.BytesIO()
        img.save(out, format="PNG")
        return out.getvalue()

    found = await leaked(race, Picture("careless board", [race.final()], careless), rng)
    assert found is not None and "pixels differ" in found


@pytest.mark.parametrize("kind", ["rf90"])  # (RF90's own picture: the other games have none)
async def test_the_check_finds_the_cockpit(race: Race) -> None:
    """RF90's cockpit (the bot shows a driver their own hand with it, never in public)
    depends on the hand: the comparison sees it, at every step drawn for the site."""
    rng = random.Random(26)
    steps = await race.rf90.race_steps(race.store, race.game)
    seated = [c.seat for c in cast(RF90State, race.final()).cars if c.seat is not None]
    assert seated
    for step in (steps[1], steps[-1]):

        async def cockpit(states: list[GameState]) -> bytes:
            return render_cockpit(cast(RF90State, states[0]), seated[0])

        found = await leaked(race, Picture("cockpit", [step.state], cockpit), rng)
        assert found is not None and "pixels differ" in found
