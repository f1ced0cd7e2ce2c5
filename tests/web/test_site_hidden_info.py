"""The hidden-information property of the league site, over every registered game (issue 26:
"only what the public thread showed: no hand, no face-down card, no pick before its reveal").

Each game is raced to the end by its robots and stored as a finished league race; every page
and picture of the race is fetched by following its links (the race page, RF90's replay and
activation pages with their pictures, Pit Formula's scoring sheets and standings). Then:

- no private text is on any page: the texts of every seat's `seat_view` that are not in
  `public_view` at the same step, and the values of the game's hidden zones (its spec's
  `hidden`: face-down cards, draw piles), at any step of the race, unless they became public
  at some step (in a `public_view` or an event line: a card played is shown);
- the texts a page tells of the race come only from public events (the log's lines, each
  activation's lines);
- every picture answers as a picture (that none depends on a hidden card, drawn again where
  the hidden cards differ: tests/web/test_site_hidden_pictures.py).

What counts as a private value's text is per game, as a page would put it: RF90's card ids by
their labels ("red +4 (1) T2 D1") and a hand as a list ("[162, 23, ...]"); Waddington's cards
by their titles and texts; Pit Formula's face-down cards as their reveal says ("t3 2-7") and
their ids. `test_the_check_finds_a_seat_view_put_on_a_page` shows the check fails on a page
that shows a seat's view.
"""

from __future__ import annotations

import html as markup
import json
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from rules.base import Game, get_game
from rules.pitformula import catalog as pit_catalog
from rules.rf90 import catalog as rf90_catalog
from rules.spec import Zone
from store import open_store
from tests.web.web_helpers import Raced, league_race
from web.app import make_app
from web.security import RateLimit
from web.server import runner_options

GAMES = ["rf90", "pitformula", "waddington", "toy"]
RF90_CARD_KEYS = {"hand", "qual_card", "drawn", "cards", "race_draw", "track_draw",
                  "race_discard", "track_discard"}  # fmt: skip
IMAGE_TYPES = {"image/png", "image/webp"}


# --- what a value looks like on a page ----------------------------------------------------


def texts_of(kind: str, state: Any, value: Any, path: tuple[Any, ...]) -> set[str]:
    """The texts a page would show of `value` (at `path` of a view or of the state's JSON):
    long enough to be told apart from the page's other words and numbers."""
    out: set[str] = set()
    if isinstance(value, str):
        if len(value) >= 3 and not value.isdigit():
            out.add(value)
    elif isinstance(value, bool) or value is None:
        pass
    elif isinstance(value, int):
        if kind == "rf90" and RF90_CARD_KEYS & {p for p in path if isinstance(p, str)}:
            card = rf90_catalog.cards(state["track"]).get(value)
            if card is not None:
                out.add(card.label)
    elif isinstance(value, list):
        if len(value) >= 2 and all(isinstance(v, int | str) for v in value):
            out |= {str(value), json.dumps(value), ", ".join(map(str, value))}
        for i, v in enumerate(value):
            out |= texts_of(kind, state, v, (*path, i))
    elif isinstance(value, dict):
        if kind == "pitformula" and isinstance(value.get("card"), str) and "slot" in value:
            a, b = pit_catalog().part_cards[value["card"]].numbers
            out.add(f"{value['slot']} {a}-{b}")  # as its reveal is told
        if kind == "pitformula" and "numbers" in value and "slot" in value:
            out.add(f"{value['slot']} {value['numbers'][0]}-{value['numbers'][1]}")
        for k, v in value.items():
            out |= texts_of(kind, state, v, (*path, k))
    return out


def differing(seat: Any, public: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """(path, value) of every part of a seat's view that the public view does not hold."""
    if isinstance(seat, dict) and isinstance(public, dict):
        for k, v in seat.items():
            yield from differing(v, public.get(k, object()), (*path, k))
    elif isinstance(seat, list) and isinstance(public, list) and len(seat) == len(public):
        for i, (a, b) in enumerate(zip(seat, public, strict=True)):
            yield from differing(a, b, (*path, i))
    elif seat != public:
        yield path, seat


def zone_values(zone: Zone, node: Any, state: Any, path: tuple[Any, ...] = ()) -> Iterator[Any]:
    """(path, value, parent) of what the zone hides in the state's JSON now."""
    if len(path) == len(zone.path):
        return
    step = zone.path[len(path)]
    keys = (range(len(node)) if isinstance(node, list) else list(node)) if step == "*" else [step]
    for k in keys:
        try:
            child = node[k]
        except (KeyError, IndexError, TypeError):
            continue
        if len(path) + 1 == len(zone.path):
            if child is not None and zone.when(state, node):
                yield (*path, k), child, node
        else:
            yield from zone_values(zone, child, state, (*path, k))


def history(game: Game[Any], seed: int, config: dict[str, Any], actions: list[str]) -> list[Any]:
    """(state, events) after each action, from the start."""
    state = game.new_game(seed, config)
    out = [(state, [])]
    for raw in actions:
        state, events = game.apply(state, game.parse_action(raw))
        out.append((state, events))
    return out


def private_texts(kind: str, steps: list[Any], seats: int) -> tuple[set[str], str]:
    """The private texts of a race (never public at any step) and its public event lines."""
    game = get_game(kind)
    private: set[str] = set()
    public: set[str] = set()
    told = []
    for state, events in steps:
        raw = state.model_dump(mode="json")
        view = game.public_view(state)
        public |= texts_of(kind, raw, view, ())
        told += [e.text for e in events if e.text]
        for seat in range(seats):
            for path, value in differing(game.seat_view(state, seat), view):
                private |= texts_of(kind, raw, value, path)
        for zone in game.spec.hidden:
            for path, value, parent in zone_values(zone, raw, raw):
                private |= texts_of(kind, raw, value, path)
                if kind == "pitformula" and path[-1] == "card":
                    private |= texts_of(kind, raw, parent, path[:-1])
    told_blob = "\n".join(told)
    return {t for t in private - public if t not in told_blob}, told_blob


def leaks(page: str, private: set[str], token: str) -> list[str]:
    # the league's token is random: a short card id could turn up in it by chance
    text = markup.unescape(page).replace(token, "TOKEN")
    return sorted(t for t in private if t in text)


# --- the site -------------------------------------------------------------------------------


@pytest.fixture(params=GAMES)
def kind(request: pytest.FixtureRequest) -> str:
    if request.param == "toy":
        request.getfixturevalue("toy_game")  # registered for this test only
    return str(request.param)


@pytest.fixture
async def raced(tmp_path: Path, kind: str) -> Raced:
    return await league_race(tmp_path, kind, seed=11)


@pytest.fixture
async def race_client(raced: Raced) -> AsyncIterator[TestClient]:
    store = open_store(raced.path, read_only=True)
    await store.open(run_migrations=False)
    app = make_app(store, "https://paddock.example", rate_limit=RateLimit(burst=10**6, rate=10**6))
    try:
        async with TestClient(TestServer(app, **runner_options())) as c:
            yield c
    finally:
        await store.close()


async def crawl(client: TestClient, start: str) -> tuple[dict[str, str], dict[str, str]]:
    """Every page and picture under the race's address, by its links: (pages, pictures),
    path -> HTML or content type."""
    pages: dict[str, str] = {}
    pictures: dict[str, str] = {}
    todo = [start]
    while todo:
        path = todo.pop()
        if path in pages or path in pictures:
            continue
        response = await client.get(path)
        body = await response.read()
        assert response.status == 200, (path, response.status)
        if response.content_type == "text/html":
            pages[path] = body.decode()
            links = re.findall(r'(?:href|src)="([^"]+)"', pages[path])
            todo += [link for link in links if link.startswith(start)]
        else:
            assert response.content_type in IMAGE_TYPES and body, path
            pictures[path] = response.content_type
    return pages, pictures


async def race_of(client: TestClient, raced: Raced) -> tuple[str, list[Any], dict[str, str]]:
    from store import SqliteStore

    store = SqliteStore(raced.path)
    await store.open()
    try:
        record = await store.load_game(raced.game_id)
        actions = [a.action_json for a in await store.actions(raced.game_id)]
    finally:
        await store.close()
    steps = history(get_game(record.kind), record.seed, record.config, actions)
    start = f"/l/{raced.league.web_token}/race/{raced.game_id}"
    pages, pictures = await crawl(client, start)
    return record.kind, steps, {**pages, **{f"picture {p}": t for p, t in pictures.items()}}


async def test_no_page_of_a_race_shows_what_a_hand_held(
    race_client: TestClient, raced: Raced, kind: str
) -> None:
    kind_, steps, fetched = await race_of(race_client, raced)
    assert kind_ == kind
    private, told = private_texts(kind, steps, len(raced.seats))
    if kind != "toy":  # the toy game hides nothing; every real game has something to hide
        assert private, kind
    pages = {p: h for p, h in fetched.items() if not p.startswith("picture ")}
    pictures = [p for p in fetched if p.startswith("picture ")]
    if kind == "rf90":  # the replay, and the two pictures of every activation page
        steps_shown = [p for p in pages if "/step/" in p]
        assert steps_shown and len(pictures) == 2 + 2 * len(steps_shown), pictures
    if kind == "pitformula":  # each race's scoring sheet and the final standings
        assert sum("/scoring/" in p for p in pictures) == len(steps[-1][0].results)
    for path, page in pages.items():
        assert not leaks(page, private, str(raced.league.web_token)), path
    # the texts told of the race are the public event lines
    race_page = pages[f"/l/{raced.league.web_token}/race/{raced.game_id}"]
    logged = re.findall(r"<li value=\"\d+\"><strong>.*?</strong>: (.*?)</li>", race_page, re.S)
    lines = ["; ".join(e.text for e in ev if e.text) or "(no public effect)" for _, ev in steps[1:]]
    assert [markup.unescape(t) for t in logged] == lines
    for path, page in pages.items():
        for line in re.findall(r"<ul class=\"told\">(.*?)</ul>", page, re.S):
            for item in re.findall(r"<li>(.*?)</li>", line, re.S):
                assert markup.unescape(item) in told, (path, item)


async def test_the_check_finds_a_seat_view_put_on_a_page(
    race_client: TestClient, raced: Raced, kind: str
) -> None:
    """The property above can fail: the race page with a seat's view (or, for a game whose
    hidden cards nobody sees, the whole state) added, as a careless template would, leaks."""
    _, steps, fetched = await race_of(race_client, raced)
    private, _ = private_texts(kind, steps, len(raced.seats))
    if kind == "toy":
        assert not private  # the toy game hides nothing: nothing for a page to leak
        return
    game = get_game(kind)
    page = fetched[f"/l/{raced.league.web_token}/race/{raced.game_id}"]
    token = str(raced.league.web_token)
    for state, _ in steps:
        shown = state.model_dump_json() if kind == "pitformula" else str(game.seat_view(state, 0))
        found = leaks(page + markup.escape(shown), private, token)
        if found:
            break
    assert found, kind
