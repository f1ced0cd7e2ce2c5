"""Waddington's Formula 1 as Paddock knows it besides its rules (rules/spec.py)."""

from __future__ import annotations

from rules.spec import GameSpec, SimOption, Variants, Zone, car_seat


def variants() -> Variants:
    """One circuit (paddock-park): the variants are the optional rules."""
    return {
        "default": ({}, {}),
        "soft-rules": ({"players": 3}, {"soft_tactic_after_dice": True, "soft_spin_tyres": True}),
        "eight-cars": ({"players": 8, "laps": 1, "more_than_six": True}, {}),
        # races started before the card window on public facts, replayed as they were played
        "legacy-card-window": ({"players": 3}, {"public_card_window": False}),
    }


SPEC = GameSpec(
    name="waddington",
    title="Waddington's Formula 1",
    cog="bot.cogs.waddington",
    board="renderer.waddington:render_board",
    warm="renderer.waddington:warm_caches",
    colours=("yellow", "orange", "green", "red", "black", "blue"),  # the six cars (rule 19)
    simulate=(SimOption("--laps", "laps (waddington)", int),),
    variants="rules.waddington.spec:variants",
    hidden=(
        Zone(("cars", "*", "hand"), "tactic", car_seat, held=True),
        Zone(("tactic_undealt",), "tactic"),
        Zone(("tactic_used",), "tactic"),  # face down on the used pile (counted in public)
        Zone(("pit_deck",), "pit"),
    ),
)
