"""What Paddock needs to know of a game besides its rules, declared once, next to them.

Each game's package gives its `Game` a `spec`; nothing else lists the games. The bot loads
each spec's cog (its presenter and commands), the renderer finds its board (and what warms its
images' caches), leagues take its
title and colours, `paddock simulate` its options, and the conformance tests its variants
and what its views hide. Other layers are named by import path ("module:attribute"), so the
rules import nothing above them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Json = Any
Path = tuple[Any, ...]


def _nobody(state: Json, path: Path) -> set[int]:
    return set()


def _always(state: Json, parent: Json) -> bool:
    return True


@dataclass(frozen=True)
class Zone:
    """Hidden data at `path` in the state's JSON ("*" matches every index or key): a list of
    values or one value (None is left alone). `owner` gives the seats that may see it (none:
    nobody may); `when` whether it is hidden now, given the state and the containing object.
    The conformance tests shuffle the values of one `pool` among the zones, and move a single
    value (`universe` given) to another possible one: the views must not change."""

    path: Path
    pool: str | Callable[[Any], str]  # a name, or a value's pool
    owner: Callable[[Json, Path], set[int]] = _nobody
    when: Callable[[Json, Json], bool] = _always
    universe: tuple[Any, ...] = ()
    held: bool = False  # a hand: held until an action names its cards; no rule reveals it


def car_seat(state: Json, path: Path) -> set[int]:
    """The seat of the car at `path` ("cars", index, ...): who may see that car's zone."""
    seat = state["cars"][path[1]]["seat"]
    return set() if seat is None else {seat}


@dataclass(frozen=True)
class SimOption:
    """A `paddock simulate` option of this game, passed to `simulation_config` by name."""

    flag: str  # "--track"
    help: str  # what it is, for `--help`; the values it takes are added from `values`
    type: type = str
    values: str | None = None  # "module:attribute": the values it takes, for the help


# Per variant: (simulation_config options, config keys to change).
Variants = dict[str, tuple[dict[str, Any], dict[str, Any]]]


@dataclass(frozen=True)
class GameSpec:
    name: str  # the rules package's name: the store's game kind
    title: str
    cog: str | None = None  # the bot extension with the game's presenter and commands
    board: str | None = None  # "module:function": a state's board as PNG bytes
    # "module:function": builds its images' cached layers, once, at the bot's start-up
    warm: str | None = None
    colours: tuple[str, ...] = ()  # car colours a league driver may claim
    simulate: tuple[SimOption, ...] = ()
    # variants the conformance tests play ("module:function" returning Variants; none: the
    # default simulation)
    variants: str | None = None
    hidden: tuple[Zone, ...] = ()  # what public_view and seat_view hide
    # "module:function" (seed, config, actions' JSON) -> (each action's events, the count of
    # the pictures its thread was shown between actions), in one replay: a game whose thread
    # shows more than one picture per move (RF90's section activations). None: the actions
    # applied in turn, no such picture (store/race_logs.py)
    replay: str | None = None
    # "module:class": what the league site adds to its finished races' pages (web/games/),
    # made once per site. None: the classification, the log and the final board only
    site: str | None = None


def resolve(target: str) -> Any:
    """The object an import path "module:attribute" names."""
    import importlib

    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)
