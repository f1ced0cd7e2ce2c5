"""Pit Formula: the real-time arithmetic pit-crew game.

See docs/rules/pitformula.md for the rules as Paddock plays them. Importing this package
registers the game under the name "pitformula".
"""

from __future__ import annotations

from rules.base import register
from rules.pitformula.catalog import FLAG_NAMES, PARTS, Repairs, catalog
from rules.pitformula.coords import (
    CARD_SLOTS,
    SLOT_PART,
    SPARE,
    coord_of,
    normalise_card,
    normalise_token,
    parse_command,
    parse_fix,
    parse_tokens,
    slot_of,
)
from rules.pitformula.engine import (
    PitFormula,
    car_of_seat,
    card_view,
    competitor_scores,
    judge_car,
    missing_repairs,
    parse_settings,
    public_view,
    score_race,
    spare_penalty,
    super_race,
    table_layout,
)
from rules.pitformula.repairs import answers, is_correct
from rules.pitformula.robot import solution
from rules.pitformula.state import (
    ACTION_ADAPTER,
    Car,
    CardSlot,
    CarResult,
    Clear,
    Fix,
    Go,
    PitFormulaAction,
    PitFormulaState,
    Race,
    RaceResult,
    Retire,
    Reveal,
    RivalResult,
    Settings,
    Skill,
    TakeFlag,
    TimeUp,
)

GAME = register(PitFormula())

__all__ = [
    "ACTION_ADAPTER",
    "CARD_SLOTS",
    "FLAG_NAMES",
    "GAME",
    "PARTS",
    "SLOT_PART",
    "SPARE",
    "Car",
    "CarResult",
    "CardSlot",
    "Clear",
    "Fix",
    "Go",
    "PitFormula",
    "PitFormulaAction",
    "PitFormulaState",
    "Race",
    "RaceResult",
    "Repairs",
    "Retire",
    "Reveal",
    "RivalResult",
    "Settings",
    "Skill",
    "TakeFlag",
    "TimeUp",
    "answers",
    "car_of_seat",
    "card_view",
    "catalog",
    "competitor_scores",
    "coord_of",
    "is_correct",
    "judge_car",
    "missing_repairs",
    "normalise_card",
    "normalise_token",
    "parse_command",
    "parse_fix",
    "parse_settings",
    "parse_tokens",
    "public_view",
    "score_race",
    "slot_of",
    "solution",
    "spare_penalty",
    "super_race",
    "table_layout",
]
