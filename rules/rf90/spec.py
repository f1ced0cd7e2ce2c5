"""Race! Formula 90 as Paddock knows it besides its rules (rules/spec.py)."""

from __future__ import annotations

from typing import Any

from rules.spec import GameSpec, Json, Path, SimOption, Variants, Zone, car_seat


def _pending_seat(state: Json, path: Path) -> set[int]:
    seat = state["cars"][state["pending"]["car"]]["seat"]
    return set() if seat is None else {seat}


def _duel_seat(state: Json, path: Path) -> set[int]:
    seat = state["cars"][int(path[2])]["seat"]
    return set() if seat is None else {seat}


def _card(card: int) -> str:
    """Race and Track cards stay apart: how many of each a hand holds is public (Track cards
    are given in public, played cards are shown)."""
    from rules.rf90.catalog import TRACK_CARD_BASE

    return "track" if card > TRACK_CARD_BASE else "race"


def _before_reveal(state: Json, parent: Json) -> bool:
    return state["phase"] in ("setup", "qualifying")


def variants() -> Variants:
    """Team-mates, a set-up fixed by the race configuration and a shortened race (first: it
    is the short one, so it gets the second seed); both tracks; robots alone."""
    teams: dict[str, Any] = {
        "players": [
            {"team": "Scuderia"},
            {"team": "Scuderia"},
            {"skill": "tuning", "setup": {"tyres": 3, "wear": 3, "cards": 2}},
            {},
            {},
        ],
        "race_turns": 5,
    }
    return {
        "teams-short": ({"track": "barcelona"}, teams),
        "barcelona": ({"players": 4, "track": "barcelona"}, {}),
        "silverstone": ({"players": 3, "track": "silverstone"}, {}),
        "robots-only": ({"players": 0, "track": "silverstone"}, {}),
    }


SPEC = GameSpec(
    name="rf90",
    title="Race! Formula 90",
    cog="bot.cogs.rf90",
    board="renderer.rf90:render_track",
    warm="renderer.rf90:warm_caches",
    # the dashboards' colours are a Paddock choice (docs/rules/rf90.md)
    colours=("red", "blue", "green", "yellow", "white", "black"),
    simulate=(SimOption("--track", "rf90", values="rules.rf90.catalog:TRACKS"),),
    variants="rules.rf90.spec:variants",
    replay="rules.rf90.replay:logged_replay",
    site="web.games.rf90:RF90Pages",
    # read from the engine's public_view / seat_view (rules/rf90/engine.py)
    hidden=(
        Zone(("cars", "*", "hand"), _card, car_seat, held=True),
        Zone(("cars", "*", "qual_card"), _card, car_seat, _before_reveal),
        Zone(("cars", "*", "qual_fuel"), "fuel", car_seat, _before_reveal, (8, 10, 12, 14, 16)),
        Zone(("pending", "drawn"), _card, _pending_seat),
        Zone(("duel", "cards", "*"), _card, _duel_seat),
        Zone(("race_draw",), _card),
        Zone(("track_draw",), _card),
        Zone(("race_discard",), _card),  # counts only (HTP, Substitute Car)
        Zone(("track_discard",), _card),
    ),
)
