"""The static data of Pit Formula: tokens, part cards, crash cards, trophies and Rivals.

Loaded once from the JSON files in `rules/pitformula/data/` (via importlib.resources),
validated by pydantic models and cached. Nothing here is part of a game state: states refer to
cards, trophies and Rivals by id.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any, Literal

from pydantic import Field, model_validator

from rules.base import Model

Part = Literal["tyre", "wing", "gas", "engine"]
PARTS: tuple[Part, ...] = ("tyre", "wing", "gas", "engine")
PART_LETTER: dict[Part, str] = {"tyre": "T", "wing": "W", "gas": "G", "engine": "E"}
LETTER_PART: dict[str, Part] = {v: k for k, v in PART_LETTER.items()}
FLAG_NAMES = ("gold", "silver", "bronze")


def _read(name: str) -> object:
    raw = resources.files("rules.pitformula.data").joinpath(name).read_text("utf-8")
    return json.loads(raw)


class PartCard(Model):
    id: str
    part: Part
    numbers: tuple[int, int]
    source: str


class Repairs(Model):
    """How many cards of each part must be repaired."""

    tyre: int = Field(0, ge=0, le=4)
    wing: int = Field(0, ge=0, le=1)
    gas: int = Field(0, ge=0, le=1)
    engine: int = Field(0, ge=0, le=1)

    def get(self, part: str) -> int:
        return int(getattr(self, part))

    def total(self) -> int:
        return self.tyre + self.wing + self.gas + self.engine

    def text(self) -> str:
        bits = []
        if self.tyre:
            bits.append(f"{self.tyre} tyre{'s' if self.tyre > 1 else ''}")
        bits += [p for p in ("wing", "gas", "engine") if self.get(p)]
        return ", ".join(bits) if bits else "nothing"


class CrashCard(Model):
    id: str
    name: str
    deck: Literal["crash", "super"]
    kind: Literal["all", "leader", "last"]
    all: Repairs | None = None
    special: Repairs | None = None
    others: Repairs | None = None
    source: str

    @model_validator(mode="after")
    def _shape(self) -> CrashCard:
        if self.kind == "all":
            if self.all is None or self.special is not None or self.others is not None:
                raise ValueError(f"{self.id}: an 'all' card has only 'all' repairs")
        elif self.special is None or self.others is None or self.all is not None:
            raise ValueError(f"{self.id}: a {self.kind} card has 'special' and 'others'")
        return self

    def uses_engine(self) -> bool:
        return any(r is not None and r.engine for r in (self.all, self.special, self.others))

    def text(self) -> str:
        if self.kind == "all":
            assert self.all is not None
            return f"All players repair {self.all.text()}."
        assert self.special is not None and self.others is not None
        who = "Leader" if self.kind == "leader" else "Last place"
        return (
            f"{who} must repair {self.special.text()}. "
            f"The other players repair {self.others.text()}."
        )


class Trophy(Model):
    id: str
    points: tuple[int, int, int]  # gold, silver, bronze
    source: str


class Rival(Model):
    id: str
    name: str
    stopwatch_s: int = Field(gt=0)
    rounds_without_refill: int = Field(ge=0)
    error_multiplier: int = Field(ge=1)
    source: str


class Mode(Model):
    """A way to play offered by `/pit start`: the rules settings it sets, and its words."""

    id: str
    config: dict[str, Any]  # keys of new_game's config
    help: str  # what it is, in one line
    name: str = ""  # how a refused player count names it (default: its id, capitalised)
    people: str = "crews"  # and its people

    @property
    def title(self) -> str:
        return self.name or self.id.capitalize()


class Components(Model):
    tokens: dict[Part, list[int]]
    board: dict[Part, int]
    spare_parts: int
    trophy_tokens: int
    crash_cards: int
    super_crash_cards: int
    rival_cards: int
    flags: list[str]
    points_per_part: dict[Part, int]
    standard_score: dict[str, list[int]]
    super_crash_bonus: int


class Catalog(Model):
    components: Components
    part_cards: dict[str, PartCard]
    crash_cards: dict[str, CrashCard]
    trophies: dict[str, Trophy]
    rivals: dict[str, Rival]
    modes: dict[str, Mode]

    def cards_of(self, part: str) -> list[str]:
        return [c.id for c in self.part_cards.values() if c.part == part]

    def crash_deck(self, deck: str, basic: bool) -> list[str]:
        return [
            c.id
            for c in self.crash_cards.values()
            if c.deck == deck and not (basic and c.uses_engine())
        ]

    @model_validator(mode="after")
    def _counts(self) -> Catalog:
        comp = self.components
        for part in PARTS:
            n = len(self.cards_of(part))
            if n != len(comp.tokens[part]):
                raise ValueError(f"{n} {part} cards, expected {len(comp.tokens[part])}")
        if len(self.crash_deck("crash", False)) != comp.crash_cards:
            raise ValueError("wrong number of crash cards")
        if len(self.crash_deck("super", False)) != comp.super_crash_cards:
            raise ValueError("wrong number of super crash cards")
        if len(self.trophies) != comp.trophy_tokens:
            raise ValueError("wrong number of trophy tokens")
        if len(self.rivals) != comp.rival_cards:
            raise ValueError("wrong number of Rival cards")
        return self


@cache
def catalog() -> Catalog:
    """Every static table of the game, loaded and validated once."""
    parts = _read("part_cards.json")["cards"]  # type: ignore[index]
    crashes = _read("crash_cards.json")["cards"]  # type: ignore[index]
    trophies = _read("trophies.json")["trophies"]  # type: ignore[index]
    rivals = _read("rivals.json")["rivals"]  # type: ignore[index]
    modes = _read("modes.json")["modes"]  # type: ignore[index]
    comp = _read("components.json")
    assert isinstance(comp, dict)
    comp = {k: v for k, v in comp.items() if not k.startswith("_")}
    return Catalog(
        components=Components.model_validate(comp),
        part_cards={c["id"]: PartCard.model_validate(c) for c in parts},
        crash_cards={c["id"]: CrashCard.model_validate(c) for c in crashes},
        trophies={t["id"]: Trophy.model_validate(t) for t in trophies},
        rivals={r["id"]: Rival.model_validate(r) for r in rivals},
        modes={m["id"]: Mode.model_validate(m) for m in modes},
    )
