"""Waddington's Formula 1 (1962): the speedometer-and-dice racing game.

See docs/rules/waddington.md for the rules as Paddock plays them. Importing this package
registers the game under the name "waddington".
"""

from __future__ import annotations

from rules.base import register
from rules.waddington.catalog import catalog
from rules.waddington.engine import Waddington, lap_indicator, parse_settings, speed_options
from rules.waddington.movement import BandPass, Destination, find_destinations
from rules.waddington.simulate import simulate
from rules.waddington.state import (
    ACTION_ADAPTER,
    Car,
    Crossing,
    Move,
    PlayTactic,
    Proceed,
    Retire,
    SetSpeed,
    Settings,
    SoftSpin,
    TurnState,
    WaddingtonAction,
    WaddingtonState,
)

GAME = register(Waddington())

__all__ = [
    "ACTION_ADAPTER",
    "BandPass",
    "Car",
    "Crossing",
    "Destination",
    "GAME",
    "Move",
    "PlayTactic",
    "Proceed",
    "Retire",
    "SetSpeed",
    "Settings",
    "SoftSpin",
    "TurnState",
    "Waddington",
    "WaddingtonAction",
    "WaddingtonState",
    "catalog",
    "find_destinations",
    "lap_indicator",
    "parse_settings",
    "simulate",
    "speed_options",
]
