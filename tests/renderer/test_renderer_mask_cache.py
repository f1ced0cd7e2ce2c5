"""renderer/common.py's text mask cache: bounded by the masks' pixels and their number,
least recently used out first, a mask drawn once while it is kept."""

from __future__ import annotations

from PIL import Image

from renderer import common
from renderer.common import Mask, _MaskCache


def _cache(pixels: int, count: int = 100) -> tuple[_MaskCache, list[str]]:
    drawn: list[str] = []

    def draw(text: str, size: int, bold: bool, anchor: str) -> Mask:
        drawn.append(text)
        return Image.new("L", (len(text) * 10, size)), 0, 0  # 10 px a letter, `size` high

    return _MaskCache(draw, pixels, count), drawn


def test_a_kept_mask_is_drawn_once_and_given_back_as_it_is() -> None:
    cache, drawn = _cache(pixels=10_000)
    first = cache("Lap 2", 10, False, "la")
    assert cache("Lap 2", 10, False, "la") is first
    assert drawn == ["Lap 2"]
    cache("Lap 2", 12, False, "la")  # another size is another mask
    cache("Lap 2", 10, True, "la")
    cache("Lap 2", 10, False, "ma")
    assert drawn == ["Lap 2"] * 4 and len(cache) == 4


def test_the_least_recently_used_masks_go_once_the_pixels_are_over_budget() -> None:
    cache, drawn = _cache(pixels=1_000)  # 10 masks of 100 px: "a" to "j" at size 10
    letters = "abcdefghij"
    for letter in letters:
        cache(letter, 10, False, "la")
    assert len(cache) == 10 and cache.pixels == 1_000
    cache("a", 10, False, "la")  # used again: now the most recent
    cache("wide", 10, False, "la")  # 400 px: the four least recently used go (b, c, d, e)
    assert cache.pixels == 1_000 and len(cache) == 7
    drawn.clear()
    for letter in "afghij":
        cache(letter, 10, False, "la")
    assert drawn == []  # all still kept
    cache("b", 10, False, "la")
    assert drawn == ["b"]


def test_the_number_of_masks_is_bounded_too() -> None:
    cache, _ = _cache(pixels=10**9, count=3)
    for text in ("1", "2", "3", "4", "5"):
        cache(text, 10, False, "la")
    assert len(cache) == 3 and cache.pixels == 300


def test_a_mask_larger_than_the_budget_is_still_kept_alone() -> None:
    cache, drawn = _cache(pixels=100)
    cache("a", 10, False, "la")
    long = cache("a long line of events", 10, False, "la")
    assert len(cache) == 1 and cache("a long line of events", 10, False, "la") is long
    assert drawn == ["a", "a long line of events"]


def test_the_renderer_cache_is_the_bounded_one_and_clears() -> None:
    common._text_mask("Lap 1/3", 14, False, "la")
    assert len(common._text_mask) >= 1 and common._text_mask.pixels > 0
    assert common._text_mask.max_pixels == common.MASK_CACHE_PIXELS
    common.clear_text_caches()
    assert len(common._text_mask) == 0 and common._text_mask.pixels == 0
