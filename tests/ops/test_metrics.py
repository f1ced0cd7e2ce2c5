"""/metrics (bot/metrics.py, bot/ops.py) through the fake Discord: what a few commands,
clicks, timers and images move, by exactly that much."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient

from bot.client import PaddockBot
from bot.errors import STORE_DOWN
from paddock_tools.bots import make_bot, world
from paddock_tools.fakediscord import ALICE, BOB, InProcessDriver
from paddock_tools.fakediscord import payloads as pl
from store import StoreUnavailable
from store.models import Timer
from tests.helpers import until
from tests.ops.ops_helpers import Scrape, ops_client, scrape

ANSWERED = "paddock_interactions_answered_total"
ANSWER_COUNT = "paddock_answer_seconds_count"
NOW = 1_000_000.0


@pytest.fixture
async def driver(tmp_path: Path) -> AsyncIterator[InProcessDriver]:
    async with InProcessDriver(make_bot(tmp_path / "bot.db"), world()) as d:
        yield d


@pytest.fixture
async def client(driver: InProcessDriver) -> AsyncIterator[TestClient]:
    async with ops_client(bot(driver)) as c:
        yield c


def bot(d: InProcessDriver) -> PaddockBot:
    assert isinstance(d.bot, PaddockBot)
    return d.bot


def moved(after: Scrape, before: Scrape, name: str, **labels: str) -> float:
    return after.get(name, **labels) - before.get(name, **labels)


async def test_each_answer_is_counted_once_by_kind_and_timed_by_game(
    driver: InProcessDriver, client: TestClient
) -> None:
    d = driver
    before = await scrape(client)
    assert before.has(ANSWERED, kind="commands") and before.has(ANSWERED, kind="buttons")

    await d.slash("f1", "new", laps=1, robots=1, turn_minutes=60, user=ALICE)
    (game,) = await bot(d).store.list_games()
    await d.click(f"pd:f1:{game.id}:join", user=BOB)  # deferred, then the lobby edited
    await d.slash("help", user=BOB)
    await d.slash("games", user=BOB)
    choices = await d.autocomplete("games", focused="timezone", timezone="europe/ma")
    assert choices
    # A button of an area nobody serves, on the lobby's message: refused, answered all the same.
    lobby = d.backend.find_message(f"pd:f1:{game.id}:join")
    row = {"type": 1, "components": [{"type": 2, "style": 2, "custom_id": "pd:nowhere:1:go"}]}
    carrier = {**lobby, "components": [row]}
    forged = await d.dispatch(
        pl.component_payload(d.world, "pd:nowhere:1:go", message=carrier, user=BOB)
    )
    assert forged.ephemeral

    after = await scrape(client)
    assert moved(after, before, ANSWERED, kind="commands") == 3
    assert moved(after, before, ANSWERED, kind="buttons") == 2
    assert moved(after, before, ANSWERED, kind="autocomplete") == 1
    # Each interaction's first answer timed once, in its game's area.
    assert moved(after, before, ANSWER_COUNT, game="f1") == 2
    assert moved(after, before, ANSWER_COUNT, game="help") == 1
    assert moved(after, before, ANSWER_COUNT, game="games") == 2  # the command, its choices
    assert moved(after, before, ANSWER_COUNT, game="other") == 1  # an area nobody serves
    assert {labels["game"] for labels in after.labels_of(ANSWER_COUNT)} == {
        "f1",
        "help",
        "games",
        "other",
    }
    assert 0 < after.get("paddock_answer_seconds_sum", game="f1") < 2.0
    # (A slow answer lands above the fast buckets: every f1 answer here is within 1 s.)
    assert after.get("paddock_answer_seconds_bucket", game="f1", le="1.0") == 2

    # The lobby is read from the store at the scrape, in its game's area; every game shown.
    assert after.get("paddock_games_active", game="f1", status="lobby") == 1
    assert after.get("paddock_games_active", game="f1", status="running") == 0
    assert after.has("paddock_games_active", game="rf90", status="lobby")
    assert after.has("paddock_games_active", game="pit", status="running")


async def test_a_race_start_draws_its_board_and_each_drawing_is_timed(
    driver: InProcessDriver, client: TestClient
) -> None:
    d = driver
    await d.slash("f1", "new", laps=1, robots=1, turn_minutes=60, user=ALICE)
    (game,) = await bot(d).store.list_games()
    await d.click(f"pd:f1:{game.id}:join", user=BOB)
    before = await scrape(client)
    mark = len(d.backend.calls)
    await d.click(f"pd:f1:{game.id}:start", user=ALICE)
    await until(lambda: bot(d).store.load_game(game.id), "the race")
    await until(lambda: any(c.files for c in d.backend.calls[mark:]), "the board posted")
    boards = [
        f for c in d.backend.calls[mark:] for f in c.files if f.filename.endswith("-board.png")
    ]
    after = await scrape(client)
    drawn = moved(after, before, "paddock_image_draw_seconds_count", image="board")
    assert boards and drawn == len(boards)
    assert moved(after, before, "paddock_image_draw_seconds_sum", image="board") > 0
    assert after.get("paddock_games_active", game="f1", status="running") == 1
    assert after.get("paddock_games_active", game="f1", status="lobby") == 0


async def test_due_timers_are_counted_and_how_late_each_fired_is_observed(
    driver: InProcessDriver, client: TestClient
) -> None:
    b = bot(driver)
    fired: list[int] = []

    async def on_demo_timer_complete(timer: Timer) -> None:
        fired.append(timer.id)

    b.add_listener(on_demo_timer_complete)
    await b.timers.stop()  # held: the timers below stay due until the loop runs again
    b.timers.clock = lambda: NOW
    await b.store.add_timer("demo", NOW - 100, {})
    await b.store.add_timer("demo", NOW - 10, {})
    await b.store.add_timer("demo", NOW + 3600, {})  # not due
    before = await scrape(client)
    assert before.get("paddock_timers_due") == 2

    b.timers.start()
    await until(lambda: len(fired) == 2, "the two due timers fired")
    after = await scrape(client)
    assert after.get("paddock_timers_due") == 0
    assert moved(after, before, "paddock_timers_late_seconds_count") == 2
    assert moved(after, before, "paddock_timers_late_seconds_sum") == pytest.approx(110)
    # 10 s late within the 30 s bucket, 100 s late only from the 300 s one.
    assert moved(after, before, "paddock_timers_late_seconds_bucket", le="30.0") == 1
    assert moved(after, before, "paddock_timers_late_seconds_bucket", le="60.0") == 1
    assert moved(after, before, "paddock_timers_late_seconds_bucket", le="300.0") == 2


async def test_store_errors_are_counted_where_they_are_reported(
    driver: InProcessDriver, client: TestClient
) -> None:
    d, b = driver, bot(driver)
    down = StoreUnavailable(b.store.path, "the database is locked by another process")
    before = await scrape(client)

    # A command's: the player is told, the operator's counter moves.
    async def failing(*args: object) -> None:
        raise down

    real = b.store.games_of_user
    b.store.games_of_user = failing  # type: ignore[method-assign]
    d.raise_errors = False  # the operator's ERROR line is expected
    try:
        told = await d.slash("games", user=BOB)
    finally:
        b.store.games_of_user = real  # type: ignore[method-assign]
    assert STORE_DOWN in told.content
    after_command = await scrape(client)
    assert moved(after_command, before, "paddock_database_errors_total", kind="unavailable") == 1

    # A timer handler's (an event handler that failed).
    async def on_demo_timer_complete(timer: Timer) -> None:
        raise down

    b.add_listener(on_demo_timer_complete)
    await b.timers.create("demo", 0.0, {})
    await until(
        lambda: b.metrics.database_errors.labels("unavailable")._value.get() == 2,
        "the timer handler's error counted",
        seconds=5,
    )

    # The timer loop's own (it restarts a second later).
    real_claim = b.store.claim_due_timer
    claims = 0

    async def claim_once_failing(*args: object, **kwargs: object) -> Timer | None:
        nonlocal claims
        claims += 1
        if claims == 1:
            raise down
        return await real_claim(*args, **kwargs)  # type: ignore[arg-type]

    b.store.claim_due_timer = claim_once_failing  # type: ignore[method-assign]
    b.timers.poke()
    await until(lambda: claims >= 2, "the loop restarted", seconds=5)
    after = await scrape(client)
    assert moved(after, before, "paddock_database_errors_total", kind="unavailable") == 3
    assert moved(after, before, "paddock_database_errors_total", kind="query") == 0
    assert b.timers.alive


async def test_two_bots_in_one_process_keep_their_own_counts(
    tmp_path: Path, driver: InProcessDriver, client: TestClient
) -> None:
    other = make_bot(tmp_path / "other.db")
    async with InProcessDriver(other, world()) as d2, ops_client(other) as other_client:
        before = await scrape(other_client)
        await driver.slash("help", user=BOB)
        await d2.slash("help", user=BOB)
        await d2.slash("help", user=ALICE)
        await asyncio.sleep(0)
        after = await scrape(other_client)
        assert moved(after, before, ANSWERED, kind="commands") == 2
    assert (await scrape(client)).get(ANSWERED, kind="commands") == 1
