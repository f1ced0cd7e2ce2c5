"""Helpers that tests of several features share, each written once here (docs/testing.md).

A game's own helpers live in its folder (tests/rf90/rf90_helpers.py, tests/pitformula/
pf_helpers.py, tests/waddington/waddington_helpers.py, tests/league/league_helpers.py); the
fake Discord, the games' drivers and the bot's test setup in their own modules
in paddock_tools (fakediscord/, f1_driver.py, rf90_driver.py, bots.py)."""

from __future__ import annotations

import asyncio
import inspect
import io
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from PIL import Image

from bot.client import PaddockBot
from renderer import common

ROOT = Path(__file__).resolve().parent.parent  # the repository


# --- waiting ---------------------------------------------------------------------------------


async def until(
    check: Callable[[], Any], what: str = "the check", *, seconds: float = 30.0, every: float = 0.02
) -> Any:
    """Poll `check()` (plain, or returning an awaitable) until it returns something true, and
    return that; fail after `seconds` naming `what`."""
    deadline = time.monotonic() + seconds
    while True:
        result = check()
        if inspect.isawaitable(result):
            result = await result
        if result:
            return result
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(every)


# --- the bot under the in-process driver -----------------------------------------------------


def store_of(d: Any) -> Any:
    """The bot's store (the driver holds the bot as a plain `discord.Client`)."""
    bot = d.bot
    assert isinstance(bot, PaddockBot)
    return bot.store


def thread_of(d: Any, thread_id: int | None) -> int:
    """A race's thread, registered in the world, so that commands and clicks sent from the
    thread carry it as their channel, as Discord's do."""
    assert thread_id is not None
    d.world.channels.setdefault(thread_id, d.backend.threads[thread_id])
    return thread_id


# --- images ----------------------------------------------------------------------------------

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def open_png(data: bytes) -> Image.Image:
    """A PNG's pixels as RGB (failing if the bytes are not a PNG)."""
    assert data.startswith(PNG_MAGIC)
    image = Image.open(io.BytesIO(data))
    image.load()
    return image.convert("RGB")


def pixels(image: Image.Image) -> list[tuple[int, ...]]:
    raw = image.convert("RGB").tobytes()
    return [tuple(raw[i : i + 3]) for i in range(0, len(raw), 3)]


def near(a: tuple[int, ...], b: tuple[int, ...], tol: int = 24) -> bool:
    """Two colours within `tol` of each other in every channel."""
    return all(abs(x - y) <= tol for x, y in zip(a, b, strict=True))


def count(img: Image.Image, box: tuple[int, int, int, int], rgb: tuple[int, int, int]) -> int:
    """How many pixels in `box` are close to `rgb`."""
    return sum(1 for px in img.crop(box).get_flattened_data() if near(px, rgb))


# --- every text an image draws, read on a phone (issue 12) -----------------------------------

PHONE_WIDTH, PHONE_MIN_PX = 400, 12  # an image shown 400 px wide; no text under 12 px there


@dataclass(frozen=True)
class Drawn:
    text: str
    size: int


def record_texts(
    monkeypatch: pytest.MonkeyPatch,
    modules: Iterable[ModuleType],
    caches: Iterable[Any] = (),
) -> Iterator[Callable[[Callable[[], object]], list[Drawn]]]:
    """For a renderer's `texts` fixture (`yield from record_texts(...)`): a function that
    renders and returns every text drawn through `draw_text` in `modules`, static layers
    included: their `caches` (functools caches) are emptied first so that they are drawn
    again, and once more afterwards (the same pixels, drawn through the spy)."""
    drawn: list[Drawn] = []
    real = common.draw_text

    def spy(draw, xy, text, size, *args, **kwargs) -> str:  # noqa: ANN001
        shown = real(draw, xy, text, size, *args, **kwargs)
        if shown:
            drawn.append(Drawn(shown, size))
        return shown

    for module in modules:
        monkeypatch.setattr(module, "draw_text", spy, raising=False)
    caches = list(caches)

    def clear() -> None:
        for cached in caches:
            cached.cache_clear()

    def record(render: Callable[[], object]) -> list[Drawn]:
        clear()
        drawn.clear()
        render()
        return list(drawn)

    yield record
    clear()


def assert_phone_legible(drawn: list[Drawn], width: int, names: Iterable[str] = ()) -> None:
    """Every text is 12 px or more when the image is shown 400 px wide, and none is cut
    short (ellipsized) but a driver's name among `names` (which a player chooses)."""
    assert drawn
    names = tuple(names)
    for t in drawn:
        assert t.size * PHONE_WIDTH / width >= PHONE_MIN_PX, t
        if t.text.endswith(common.ELLIPSIS):
            assert any(n.startswith(t.text[:-1].rstrip()) for n in names), t
