"""The engine shape every game follows (docs/architecture.md, "rules/: one engine shape").

A game is a `Game` object registered by name. Its state and actions are pydantic models;
`apply` is a pure reducer that never mutates its input and raises `IllegalAction` with a
player-facing message when an action is not allowed now.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, TypeAdapter

from rules.rng import Rng
from rules.spec import GameSpec


class Model(BaseModel):
    """Base of every rules model: unknown fields are refused, so a typo never passes silently."""

    model_config = ConfigDict(extra="forbid")


class GameState(Model):
    """A game's whole state, JSON-serialisable, including its random source."""

    rng: Rng

    def to_json(self) -> str:
        return self.model_dump_json()


class Action(Model):
    """One decision by one seat. Subclasses add a `kind` literal and their own fields."""

    seat: int
    kind: str


class Event(Model):
    """Something that happened while applying an action, for the log line and the images."""

    kind: str
    text: str = ""
    data: dict[str, Any] = {}


class Placing(Model):
    """One seat's result in a finished game."""

    seat: int
    place: int
    status: Literal["running", "retired", "out of fuel", "timed out", "finished"] = "finished"


S = TypeVar("S", bound=GameState)


class Game(ABC, Generic[S]):
    """What the bot, the store and the renderer may ask of any game."""

    name: ClassVar[str]
    title: ClassVar[str]
    spec: ClassVar[GameSpec]  # the rest Paddock knows of it (rules/spec.py)
    state_type: ClassVar[type[GameState]]
    action_adapter: ClassVar[TypeAdapter[Any]]

    @abstractmethod
    def new_game(self, seed: int, config: dict[str, Any]) -> S:
        """The starting state for this seed and configuration."""

    @abstractmethod
    def apply(self, state: S, action: Action) -> tuple[S, list[Event]]:
        """Validate and apply, returning a new state; raise IllegalAction otherwise."""

    def apply_owned(self, state: S, action: Action) -> tuple[S, list[Event]]:
        """`apply` to a state its caller owns and never reads again (a log replayed from
        its seed): the same new state and events, but a game whose `apply` first copies the
        state may change this one in place instead. The default is `apply`."""
        return self.apply(state, action)

    @abstractmethod
    def to_act(self, state: S) -> list[int]:
        """Seats that may act now (empty when the game is over)."""

    @abstractmethod
    def legal_actions(self, state: S, seat: int) -> list[Action]:
        """What this seat may do now; empty when it may not act."""

    @abstractmethod
    def is_terminal(self, state: S) -> bool: ...

    @abstractmethod
    def classification(self, state: S) -> list[Placing]:
        """Finishing order of a terminal game, one entry per seat."""

    @abstractmethod
    def robot_action(self, state: S, seat: int) -> Action:
        """The robot policy's choice for this seat (used for robots, timeouts, simulations)."""

    def public_view(self, state: S) -> dict[str, Any]:
        return state.model_dump(mode="json", exclude={"rng"})

    # Taking a move back (issue 27; each game's docs/rules/<game>.md names it as a Paddock
    # rule). Why an action may not be undone, in a few words a player reads after "You
    # can't take that back:" - its events that show hidden information, by kind, and what
    # to say when the random source moved or a card left a hidden pile.
    undo_reveals: ClassVar[Mapping[str, str]] = {}
    undo_random: ClassVar[str] = "something random has been drawn"
    undo_drawn: ClassVar[str] = "a card has been drawn"

    def undo_refusal(self, before: S, after: S, seat: int, events: list[Event]) -> str | None:
        """None when `seat`'s action from `before` to `after` (with its `events`) may be taken
        back, else why not. Whether anyone acted since is the caller's (the log's) to say.

        Refused when the game is over, when the random source moved (dice, a shuffle), when
        an event shows hidden information (`undo_reveals`), or when a hidden pile of the
        spec's (`hidden`: a zone no seat holds) changed other than by cards put at its end,
        i.e. a card was drawn from it: an undo must never let a player see and choose again.
        """
        if self.is_terminal(after):
            return "the race is over"
        if before.rng != after.rng:
            return self.undo_random
        for event in events:
            if event.kind in self.undo_reveals:
                return self.undo_reveals[event.kind]
        if drew_from_hidden_pile(self.spec, before, after):
            return self.undo_drawn
        return None

    def seat_view(self, state: S, seat: int) -> dict[str, Any]:
        return self.public_view(state)

    # Helpers shared by every game -------------------------------------------------------

    def parse_action(self, data: dict[str, Any] | str) -> Action:
        if isinstance(data, str):
            return self.action_adapter.validate_json(data)
        return self.action_adapter.validate_python(data)

    def load_state(self, data: str) -> S:
        return self.state_type.model_validate_json(data)  # type: ignore[return-value]

    def simulation_config(self, players: int | None = None, **options: Any) -> dict[str, Any]:
        """The config for a robot-only game with these command-line options."""
        raise NotImplementedError(f"{self.name} has no robot-only simulation yet")

    def simulate(self, seed: int, **options: Any) -> dict[str, Any]:
        """Play a robot-only game to the end; a JSON-ready summary (same seed, same dict)."""
        state = self.new_game(seed, self.simulation_config(**options))
        actions = 0
        while not self.is_terminal(state):
            seat = self.to_act(state)[0]
            state, _ = self.apply(state, self.robot_action(state, seat))
            actions += 1
        return {
            "game": self.name,
            "seed": seed,
            "actions": actions,
            "classification": [p.model_dump(mode="json") for p in self.classification(state)],
        }

    def replay(self, seed: int, config: dict[str, Any], actions: list[Action]) -> S:
        state = self.new_game(seed, config)
        for action in actions:
            state, _ = self.apply(state, action)
        return state


def drew_from_hidden_pile(spec: GameSpec, before: GameState, after: GameState) -> bool:
    """Whether a hidden pile of `spec` (a zone at a fixed path that no hand holds: a deck,
    a discard pile) lost or reordered cards between the two states: a pile only added to
    at its end (a discard) told nobody anything."""
    for zone in spec.hidden:
        if zone.held or "*" in zone.path:
            continue
        old, new = _at(before, zone.path), _at(after, zone.path)
        if isinstance(old, list) and isinstance(new, list):
            if new[: len(old)] != old:
                return True
        elif old is not None and new is not None and old != new:
            return True
    return False


def _at(state: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        if state is None:
            return None
        state = state.get(key) if isinstance(state, dict) else getattr(state, key, None)
    return state


_REGISTRY: dict[str, Game[Any]] = {}

G = TypeVar("G", bound=Game[Any])


def register(game: G) -> G:
    """Add a game to the registry: from then on the bot, the store, the renderer and the
    tools know it (a test may register one of its own, then `unregister` it)."""
    if game.name in _REGISTRY:
        raise ValueError(f"game {game.name!r} is already registered")
    if (game.spec.name, game.spec.title) != (game.name, game.title):
        raise ValueError(f"game {game.name!r}: its spec names another game")
    _REGISTRY[game.name] = game
    return game


def unregister(name: str) -> None:
    _REGISTRY.pop(name, None)


def specs() -> dict[str, GameSpec]:
    """Every registered game's spec, by name."""
    return {name: game.spec for name, game in games().items()}


def games() -> dict[str, Game[Any]]:
    _load_builtin_games()
    return dict(_REGISTRY)


def get_game(name: str) -> Game[Any]:
    _load_builtin_games()
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY)) or "none"
        raise KeyError(f"unknown game {name!r} (known: {known})") from None


_builtins_loaded = False


def _load_builtin_games() -> None:
    """Import the game packages so that they register themselves, once: scanning the
    package on every look-up took ~0.7 ms, and every click looks its game up."""
    global _builtins_loaded
    if _builtins_loaded:
        return
    import importlib
    import pkgutil

    import rules

    for info in pkgutil.iter_modules(rules.__path__):
        if info.ispkg:
            importlib.import_module(f"rules.{info.name}")
    _builtins_loaded = True
