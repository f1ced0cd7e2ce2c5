"""A test-only game, declared only here: the worked example of docs/architecture.md's "Where
a new game plugs in". Its rules (rules.py), its spec (spec.py), its board (board.py), its
presenter and commands (cog.py); `registered()` adds it to the registry for a while, and the
bot, the leagues and the renderer's boards find it there as they find the real games.
test_toygame.py plays it through the real command tree, from `/league create` to the
league's standings."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rules.base import register, unregister
from tests.toygame.rules import ToyGame


@contextmanager
def registered() -> Iterator[ToyGame]:
    """The toy game in the registry until the block ends (then it is unknown again, so no
    other test sees its commands)."""
    game = register(ToyGame())
    try:
        yield game
    finally:
        unregister(game.name)
