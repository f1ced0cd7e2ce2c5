"""The site's in-memory caches: bounded LRUs of what its pages work out, each keyed by
everything the value depends on, so that a key that changes is a miss and the old value
ages out (nothing is ever invalidated by hand; the site's store is read-only, so it cannot
keep what it works out in the database).

What each cache holds and its bound (web/site.py's `Site`; a game's own in web/games/):

- a race's replay in words (by game id and seq, `race_key`: a finished race never
  changes, and a take-back moves its seq on) - 64 races, ~100 KB each;
- RF90's steps (states; 8 races), drawn replays (2), Pit Formula's scorings (8);
- standings images, by their league and everything drawn on them - 8 MiB of PNG;
- a server's ratings, by the server and its finished games' version
  (`Store.finished_version`) - 256 servers.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class Lru(Generic[V]):
    """The last values worked out, by key: at most `size` of them, and (with `weight`, e.g.
    `len` of bytes) at most `budget` of their weights in all; one value is worked out once
    however many visitors ask for it at the same moment."""

    def __init__(
        self,
        size: int,
        *,
        weight: Callable[[V], int] | None = None,
        budget: int | None = None,
    ) -> None:
        self.size = size
        self.budget = budget
        self._weight = weight
        self.held = 0  # the weights of the values held
        self._items: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()
        self._busy: dict[Hashable, asyncio.Lock] = {}

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._items

    async def get(self, key: Hashable, make: Callable[[], Awaitable[V]]) -> V:
        if key in self._items:
            self._items.move_to_end(key)
            return self._items[key][0]
        lock = self._busy.setdefault(key, asyncio.Lock())
        try:
            async with lock:
                if key in self._items:  # the first visitor worked it out, the rest waited
                    return self._items[key][0]
                value = await make()
                self._put(key, value)
                return value
        finally:
            if not lock.locked():
                self._busy.pop(key, None)

    def _put(self, key: Hashable, value: V) -> None:
        weight = self._weight(value) if self._weight is not None else 0
        if self.budget is not None and weight > self.budget:
            return  # larger than the whole cache: served, not kept
        self._items[key] = (value, weight)
        self.held += weight
        while len(self._items) > self.size or (self.budget is not None and self.held > self.budget):
            _, (_, dropped) = self._items.popitem(last=False)
            self.held -= dropped
