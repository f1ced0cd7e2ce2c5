"""Refused settings through the real command tree (issue 31): every game's `new` / `start`
command with each out-of-range option and each player count its modes refuse, and each
lobby's Start pressed with a count that does not fit. Every answer is one short line of
Paddock's own, only to the one who asked, that says what to do; the database is unchanged;
nothing of pydantic or Python shows through."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.errors import UNEXPECTED
from paddock_tools.bots import ERIN, make_bot, world
from paddock_tools.fakediscord import ALICE, BOB, CAROL, Calls, InProcessDriver
from paddock_tools.fakediscord import payloads as pl
from tests.bot_helpers import dump
from tests.helpers import store_of

ONE_LINE = re.compile(r"[^\n]+")
# What pydantic or Python says, never a player: validation wording, type names, tracebacks.
LEAKS = re.compile(
    r"Value error|validation error|pydantic|Input should|Traceback|File \"|line \d+|"
    r"\b(?:int|str|dict|float|bool|tuple|bytes|NoneType)\b|\blist\[|'list'|<class|Error\b"
)
DAN = pl.FakeUser(1100000000000000038, "dan")
ROBOT = pl.FakeUser(1100000000000000039, "robo", bot=True)
STRANGER_ID = 1100000000000000999  # a user who is not on the server


def refusal_world() -> pl.World:
    w = world()
    w.add_user(DAN)
    w.add_user(ROBOT)
    return w


@pytest.fixture
async def driver(tmp_path: Path) -> AsyncIterator[InProcessDriver]:
    bot = make_bot(tmp_path / "refusals.db")
    async with InProcessDriver(bot, refusal_world()) as d:
        cog: Any = bot.get_cog("PitCog")
        cog.countdown_seconds = 0
        yield d


def check(calls: Calls, what: str) -> str:
    """The one answer of a refusal: ephemeral, one line, Paddock's own words."""
    (answer,) = calls.answers
    text = answer.content or ""
    assert answer.ephemeral, (what, text)
    assert ONE_LINE.fullmatch(text), (what, text)
    assert not LEAKS.search(text), (what, text)
    assert text != UNEXPECTED, what
    assert not calls.errors, (what, calls.errors)
    return text


async def refused(d: InProcessDriver, *path: str, user: pl.FakeUser = ALICE, **options: Any) -> str:
    before = await dump(store_of(d))
    text = check(await d.slash(*path, user=user, **options), f"/{' '.join(path)} {options}")
    assert await dump(store_of(d)) == before, (path, options, text)
    return text


async def start_refused(d: InProcessDriver, custom_id: str, what: str) -> str:
    before = await dump(store_of(d))
    text = check(await d.click(custom_id, user=ALICE), what)
    assert await dump(store_of(d)) == before, (what, text)
    return text


def mentions(*users: pl.FakeUser) -> str:
    return " ".join(f"<@{u.id}>" for u in users)


F1_NEW = [
    {"laps": 0},
    {"laps": 11},
    {"max_players": 1},
    {"max_players": 7},
    {"robots": -1},
    {"robots": 6},
    {"turn_minutes": 0},
    {"turn_minutes": 10081},
    {"idle_days": 0},
    {"idle_days": 61},
    {"league": "Nowhere Cup", "round": 1},
    {"round": 1},
]
RF90_NEW = [
    {"max_players": 0},
    {"max_players": 7},
    {"turn_minutes": 0},
    {"turn_minutes": 10081},
    {"idle_days": 0},
    {"idle_days": 61},
    {"turns": 2},
    {"turns": 26},  # Silverstone's full race is 25 game turns
    {"league": "Nowhere Cup", "round": 1},
    {"league": "Nowhere Cup"},
]
# How many people each Pit Formula mode takes; every other count from 1 to 4 is refused.
PIT_COUNTS = {
    "standard": {2, 3, 4},
    "basic": {2, 3, 4},
    "points": {2, 3, 4},
    "standard-score": {2, 3, 4},
    "pitcrew": {4},
    "constructors": {4},
    "coop": {2},
}
PEOPLE = [ALICE, BOB, CAROL, DAN]


async def test_new_and_start_commands_refuse_bad_options_in_their_own_words(
    driver: InProcessDriver,
) -> None:
    d = driver
    for options in F1_NEW:
        await refused(d, "f1", "new", **options)
    for options in RF90_NEW:
        await refused(d, "rf90", "new", track="silverstone", **options)
    assert "Silverstone lasts at most 25 game turns" in await refused(
        d, "rf90", "new", track="silverstone", turns=26
    )
    for races in (0, 13):
        await refused(d, "pit", "start", races=races)
        await refused(d, "pit", "solo", rival="rookie", races=races)
    await refused(d, "pit", "start", mode="turbo")
    await refused(d, "pit", "solo", rival="nobody")
    await refused(d, "pit", "start", players=mentions(BOB, CAROL, DAN, ERIN))
    await refused(d, "pit", "start", players=mentions(ROBOT))
    await refused(d, "pit", "start", players=f"<@{STRANGER_ID}>")
    # Players named in the command: each mode with each count it does not take.
    for mode, fits in PIT_COUNTS.items():
        for count in sorted({1, 2, 3, 4} - fits):
            others = PEOPLE[1:count]
            # With nobody else named, the host alone starts at once (a typed word, no one).
            players = mentions(*others) if others else mentions(ALICE)
            text = await refused(d, "pit", "start", players=players, mode=mode, races=1)
            assert mode.split("-")[0].capitalize() in text.replace("Pit crew", "Pitcrew"), text
    alone = await refused(d, "pit", "start", players=mentions(ALICE), races=1)
    assert alone == (
        "Standard mode needs 2 to 4 crews: mention the other players in `players`, or "
        "leave it out to open a lobby they can join; `/pit solo` races alone."
    )
    assert await store_of(d).list_games() == []


async def test_every_lobby_start_with_a_count_that_does_not_fit_is_refused_plainly(
    driver: InProcessDriver,
) -> None:
    d = driver
    store = store_of(d)
    # Pit Formula: a lobby of each mode, Start pressed at each count the mode refuses.
    for mode, fits in PIT_COUNTS.items():
        await d.slash("pit", "start", mode=mode, races=1, user=ALICE)
        (lobby,) = [g for g in await store.list_games() if g.status == "lobby"]
        for count in range(1, 5):
            if count > 1:
                await d.click(f"pd:pit:{lobby.id}:join", user=PEOPLE[count - 1])
            if count in fits:
                continue
            text = await start_refused(d, f"pd:pit:{lobby.id}:start", f"{mode} with {count}")
            if count < min(fits):
                assert "wait for" in text and "to join" in text, text
            else:
                assert "must leave" in text, text
        await d.slash("pit", "cancel", user=ALICE)
    await d.slash("pit", "start", races=1, user=ALICE)
    (lobby,) = [g for g in await store.list_games() if g.status == "lobby"]
    alone = await start_refused(d, f"pd:pit:{lobby.id}:start", "standard alone")
    assert alone == (
        "Standard mode needs 2 to 4 crews: wait for another crew to join, or use `/pit solo` "
        "to race alone."
    )
    # Waddington's: a lone driver and no robots.
    await d.slash("f1", "new", laps=1, user=ALICE)
    (f1,) = [g for g in await store.list_games() if g.kind == "waddington"]
    await start_refused(d, f"pd:f1:{f1.id}:start", "f1 alone")
    full = await d.slash("f1", "new", laps=1, max_players=2, user=BOB)
    assert not full.errors
    (f1b,) = [g for g in await store.list_games() if g.kind == "waddington" and g.id != f1.id]
    await d.click(f"pd:f1:{f1b.id}:join", user=CAROL)
    before = await dump(store)
    check(await d.click(f"pd:f1:{f1b.id}:join", user=DAN), "f1 full")
    assert await dump(store) == before
    robots = await d.slash("f1", "new", laps=1, robots=5, user=CAROL)
    assert not robots.errors
    (f1c,) = [g for g in await store.list_games() if g.settings.get("robots") == 5]
    before = await dump(store)
    check(await d.click(f"pd:f1:{f1c.id}:robot-add", user=CAROL), "f1 six robots")
    assert await dump(store) == before
