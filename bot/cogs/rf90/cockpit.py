"""The words of an RF90 driver's private cockpit: the engine's legal actions asked as a few
short questions (bot/choices.py facets), a trajectory as the close-up draws it, and the
driver's own car and hand."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bot.choices import Facet
from bot.components import shown
from renderer.common import counted
from rules.rf90 import (
    ChooseSetup,
    ChooseStart,
    DuelCards,
    DuelDeclare,
    EndTurn,
    Mulligan,
    PlayCards,
    Qualify,
    RF90State,
    StartTurn,
    catalog,
)

if TYPE_CHECKING:
    pass


def _cards(state: RF90State) -> dict[int, Any]:
    return catalog.cards(state.track)


def facets(state: RF90State) -> list[Facet]:
    """The questions a decision is asked in, in the engine's words."""
    cards = _cards(state)
    name = catalog.name

    def card_list(ids: list[int] | None) -> str | None:
        return None if ids is None else ", ".join(cards[c].label for c in ids) or "no card"

    def this_turn(a: Any) -> str | None:
        if not isinstance(a, StartTurn):
            return None
        if a.pit is not None:
            return "Pit stop"
        if a.skip:
            return "Skip this turn"
        if a.extreme:
            return "Try the Extreme Trajectory"
        if a.wise_driving is not None:
            return "Wise Driving"
        return "Race on"

    def strategy(a: Any) -> str | None:
        if isinstance(a, ChooseStart):
            return name(a.strategy)
        if isinstance(a, StartTurn):
            chosen = a.pit.strategy if a.pit is not None else a.new_strategy
            return name(chosen) if chosen else "keep my strategy"
        return None

    def tyres(a: Any) -> str | None:
        if isinstance(a, ChooseStart):
            return a.tyres
        if isinstance(a, StartTurn) and a.pit is not None:
            return a.pit.tyres
        return None

    def off_track(a: Any) -> str | None:
        pay = getattr(a, "off_track_pay", None)
        if pay is None:
            return None
        return f"tyres: {card_list(pay.tyre_cards)}; card symbol: {card_list([pay.discard])}"

    def flag(name: str, yes: str, no: str) -> Any:
        return lambda a: (yes if getattr(a, name) else no) if hasattr(a, name) else None

    return [
        Facet(
            "Skill",
            lambda a: name(a.skill, "no skill") if isinstance(a, ChooseSetup) else None,
        ),
        Facet(
            "Set-up",
            lambda a: (
                f"tyres {a.tyres} · wear {a.wear} · cards {a.cards}"
                if isinstance(a, ChooseSetup)
                else None
            ),
        ),
        Facet(
            "Your hand",
            lambda a: (
                ("Substitute car: a new hand" if a.swap else "Keep it")
                if isinstance(a, Mulligan)
                else None
            ),
        ),
        Facet("Qualifying card", lambda a: cards[a.card].label if isinstance(a, Qualify) else None),
        Facet("Fuel", lambda a: f"{a.fuel} turns" if isinstance(a, Qualify) else None),
        Facet("This turn", this_turn),
        Facet(
            "Extra sections",
            lambda a: (
                f"{a.pit.extra_sections} extra"
                if isinstance(a, StartTurn) and a.pit is not None
                else None
            ),
        ),
        Facet("Tyres", tyres),
        Facet("Strategy", strategy),
        Facet(
            "Wise Driving",
            lambda a: card_list(a.wise_driving) if isinstance(a, StartTurn) else None,
        ),
        Facet(
            "Save Fuel discard",
            lambda a: (
                card_list([a.save_fuel_discard])
                if getattr(a, "save_fuel_discard", None) is not None
                else None
            ),
        ),
        Facet(
            "Cards", lambda a: card_list(a.cards) if isinstance(a, PlayCards | DuelCards) else None
        ),
        Facet("Trajectory bonus", flag("use_trajectory", "use it", "not this time")),
        Facet(
            "Pay tyres with",
            lambda a: (
                card_list(a.tyre_cards)
                if isinstance(a, PlayCards) and a.tyre_cards
                else "chips"
                if isinstance(a, PlayCards)
                else None
            ),
        ),
        Facet(
            "Sharp Trajectory discard",
            lambda a: (
                card_list([a.sharp_discard])
                if getattr(a, "sharp_discard", None) is not None
                else None
            ),
        ),
        Facet("Blue disc", flag("blue_bonus", "spend one for +1", "keep it")),
        Facet(
            "Save Fuel",
            lambda a: (
                {"track_card": "take the Track card", "fuel": "save fuel"}[a.save_fuel_choice]
                if isinstance(a, PlayCards)
                else None
            ),
        ),
        Facet("Balance", flag("balance_damage", "pay a tyre with damage", "no")),
        Facet("Unlap", flag("unlap", "unlap myself", "stay behind")),
        Facet("Late braking", flag("late_brake", "try it", "no")),
        Facet(
            "Trajectory",
            lambda a: trajectory_label(state, a.trajectory) if isinstance(a, EndTurn) else None,
        ),
        Facet(
            "Duel",
            lambda a: (
                ("Join the duel" if a.join else "Stay out") if isinstance(a, DuelDeclare) else None
            ),
        ),
        Facet("If the attempt fails, pay", off_track),
    ]


def trajectory_label(state: RF90State, trajectory: str | None) -> str:
    """A trajectory as the close-up draws it (its symbol's kind and colours, its section),
    not its id."""
    if trajectory is None:
        return "none"
    track = catalog.track(state.track)
    t = track.trajectory(trajectory)
    words = {"tyres": "tyre", "damage": "damage disc", "cards": "card"}
    cost = ", ".join(counted(n, words[what]) for what, n in t.cost.model_dump().items() if n)
    return (
        f"{t.kind.capitalize()} in section {track.trajectory_section(trajectory)}: "
        f"{'/'.join(t.colours)}, +{t.bonus} MP" + (f" (costs {cost})" if cost else "")
    )


def dashboard(state: RF90State, seat: int) -> str:
    """The seat's own car and hand, for its cockpit only."""
    car = next(c for c in state.cars if c.seat == seat)
    cards = _cards(state)
    hand = ", ".join(cards[c].label for c in car.hand) or "no cards"
    skill = catalog.name(car.skill)
    if state.phase in ("setup", "qualifying"):
        # before the grid: no place, lap or fuel yet, only what this driver has chosen
        chosen = [
            f"set-up: tyres {car.setup.tyres}, wear {car.setup.wear}, cards {car.setup.cards}"
            if car.setup_chosen
            else "set-up: not chosen yet",
            f"skill {skill}",
        ]
        if car.qual_fuel is not None:
            chosen.append(f"fuel to turn {car.qual_fuel}")
        return (
            f"**{shown(car.name)}** · before the start · "
            + " · ".join(chosen)
            + (f"\nHand: {hand}")
        )
    return (
        f"**{shown(car.name)}** · section {car.section}, lap "
        f"{car.lap} · tyres {car.tyre or '-'} ({car.chips} chips) · damage {car.damage_red} red, "
        f"{car.damage_brown} brown · refuel by turn {car.fuel_turn} · strategy "
        f"{catalog.name(car.strategy)} · skill {skill}\n"
        f"Hand: {hand}"
    )
