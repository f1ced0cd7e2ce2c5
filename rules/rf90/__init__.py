"""Race! Formula 90 (2nd edition) with the Barcelona and Silverstone expansion.

See docs/rules/rf90.md for the rules as Paddock plays them. Importing this package registers
the game under the name "rf90".
"""

from __future__ import annotations

from typing import cast

from rules.base import _REGISTRY, register
from rules.rf90 import catalog
from rules.rf90.engine import RF90, fuel_chit, go_off_track, target_check
from rules.rf90.state import (
    ACTION_ADAPTER,
    ROBOT_SEAT,
    Car,
    ChooseSetup,
    ChooseStart,
    Duel,
    DuelCards,
    DuelDeclare,
    EndTurn,
    Mulligan,
    OffTrackPay,
    Pending,
    PitStop,
    PlayCards,
    Qualify,
    RF90Action,
    RF90State,
    RobotTurn,
    Setup,
    StartTurn,
)

GAME = cast(RF90, _REGISTRY["rf90"]) if "rf90" in _REGISTRY else register(RF90())

__all__ = [
    "ACTION_ADAPTER",
    "Car",
    "ChooseSetup",
    "ChooseStart",
    "Duel",
    "DuelCards",
    "DuelDeclare",
    "EndTurn",
    "GAME",
    "Mulligan",
    "OffTrackPay",
    "Pending",
    "PitStop",
    "PlayCards",
    "Qualify",
    "RF90",
    "RF90Action",
    "RF90State",
    "ROBOT_SEAT",
    "RobotTurn",
    "Setup",
    "StartTurn",
    "catalog",
    "fuel_chit",
    "go_off_track",
    "target_check",
]
