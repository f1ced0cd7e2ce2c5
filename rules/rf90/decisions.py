"""What one decision is in Race! Formula 90, for whoever asks the drivers (the bot's table).

The engine says which seats act and what they may do; these say how its steps group into
decisions a driver is asked once, which seats are people to ask (the robots' turns are the
engine's own), and when a single legal action may be played without asking.
"""

from __future__ import annotations

from collections.abc import Hashable

from rules.rf90.engine import RF90
from rules.rf90.state import ROBOT_SEAT, RF90State


def choosing_setup(state: RF90State) -> bool:
    """Whether some driver has still to choose skill and set-up (else: the substitute car)."""
    return any(c.seat is not None and not c.setup_chosen for c in state.cars)


def drivers_to_act(game: RF90, state: RF90State) -> list[int]:
    """The seats to ask now: the engine's `to_act` without the robots' turn (it drives them)."""
    return [s for s in game.to_act(state) if s != ROBOT_SEAT]


def decision_key(state: RF90State) -> Hashable:
    """The decision under way: the simultaneous phases as a whole, a start choice, a car's
    turn (its phases A, B and E are steps of one decision) or a duel of one activation."""
    if state.phase == "setup":
        # the set-up, then the substitute car: a question of its own
        return ("setup",) if choosing_setup(state) else ("substitute car",)
    if state.phase == "qualifying":
        return (state.phase,)
    if state.phase == "start":
        return ("start", state.start_next)
    if state.duel is not None:
        # each driver asked is a new decision; the cards are put down by all at once, so
        # one decision whoever picks first
        duel = ("duel", state.turn, state.activation, state.duel.section)
        if state.duel.stage == "cards":
            return (*duel, "cards")
        return (*duel, "declare", len(state.duel.asked))
    if state.pending is not None:
        return ("turn", state.turn, state.pending.car)
    return (state.phase, state.turn)


def single_option_is_secret(state: RF90State) -> bool:
    """Whether playing a decision's only legal action unasked would tell others about a hand.
    Card plays (phase B) and duel cards: with one card in hand there are one or two ways to
    play it depending on the card (a Balance disc, a Sharp Trajectory of its colour, Save
    Fuel), so the number of options shows the card."""
    return (state.pending is not None and state.pending.phase == "B") or (
        state.duel is not None and state.duel.stage == "cards"
    )


def simultaneous(state: RF90State) -> bool:
    """Whether every seat asked decides at once, unseen by the others: set-up, substitute
    car, qualifying, the duel's cards."""
    return (state.duel is not None and state.duel.stage == "cards") or state.phase in (
        "setup",
        "qualifying",
    )
