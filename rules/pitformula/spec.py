"""Pit Formula as Paddock knows it besides its rules (rules/spec.py)."""

from __future__ import annotations

from rules.spec import GameSpec, SimOption, Variants, Zone


def _part(card: str) -> str:
    return card[0]  # a part card stays with its part (T, W, G, E): the slots show the part


def variants() -> Variants:
    """Every simulated mode (Settings.mode: standard, pitcrew, constructors, solo, coop; and
    standard's basic game, points championship and standard score), over 3 races (the last a
    super crash race) rather than 5 to keep it fast."""
    from rules.pitformula.simulate import SIM_MODES

    short = {"races": 3}
    out: Variants = {mode: ({"mode": mode}, short) for mode in (*SIM_MODES, "coop")}
    out["points"] = ({"mode": "points"}, {"points_target": 20, "super_from_points": 12})
    return out


SPEC = GameSpec(
    name="pitformula",
    title="Pit Formula",
    cog="bot.cogs.pitformula",
    board="renderer.pitformula:render_table",
    colours=(),  # crews, not cars: no colour to claim
    simulate=(SimOption("--mode", "pitformula", values="rules.pitformula.simulate:SIM_MODES"),),
    variants="rules.pitformula.spec:variants",
    site="web.games.pitformula:PitFormulaPages",
    hidden=(
        # face-down part cards: no crew sees them, its own neither, until revealed
        Zone(("cars", "*", "cards", "*", "card"), _part, when=lambda s, cs: not cs["revealed"]),
        *(Zone(("decks", d), _part) for d in ("tyre", "wing", "gas", "engine")),
        *(Zone(("decks", d), "crash") for d in ("crash", "super")),
        Zone(("trophy_stack",), "trophy"),
        # trophy tokens won are shown as a number (what they are shows in the race results)
        Zone(("cars", "*", "trophies"), "trophy"),
        Zone(("rival_trophies",), "trophy"),
    ),
)
