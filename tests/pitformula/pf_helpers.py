"""Pit Formula's test helpers: positions for the scenario, renderer and bot tests, and the
engine contract's own statement of what a crew may send (`pf_legal`)."""

from __future__ import annotations

from typing import Any

from rules.base import Action
from rules.pitformula import GAME, PitFormulaState, catalog, coord_of
from rules.pitformula.catalog import PART_LETTER
from rules.pitformula.coords import SLOT_PART
from rules.pitformula.repairs import TOKEN_COUNT
from rules.pitformula.state import ON_TABLE, Clear, Fix, Go, Retire, Reveal, TakeFlag, TimeUp

__all__ = ["Clear", "Fix", "Go", "Retire", "Reveal", "TakeFlag", "TimeUp"]


def new(config: dict[str, Any] | None = None, seed: int = 1) -> PitFormulaState:
    return GAME.new_game(seed, {"mode": "standard", "players": 4, **(config or {})})


# The configurations every mode of the game is tested in.
CONFIGS = [
    {"players": 4},
    {"players": 3, "basic": True},
    {"players": 2, "points_target": 40},
    {"mode": "pitcrew", "players": 4},
    {"mode": "constructors", "players": 4},
    {"mode": "solo", "players": 1},
    {"mode": "coop", "players": 2},
]


def robot_move(state: PitFormulaState) -> Action:
    """The robots' next action, as the simulation plays them: the starter's Go, then the
    earliest of the crews' (ties to the lowest seat)."""
    seats = GAME.to_act(state)
    if state.phase == "ready":
        return GAME.robot_action(state, seats[0])
    choices = [GAME.robot_action(state, s) for s in seats]
    return min(choices, key=lambda a: (getattr(a, "at_ms", None) or 0, a.seat))


def card_with(part: str, numbers: tuple[int, int]) -> str:
    for c in catalog().part_cards.values():
        if c.part == part and tuple(c.numbers) == tuple(numbers):
            return c.id
    raise AssertionError(f"no {part} card {numbers}")


def set_card(state: PitFormulaState, car: int, slot: str, part: str, numbers: tuple[int, int]):
    """Give a car a specific card (swapped with wherever that card was)."""
    cid = card_with(part, numbers)
    cs = next(c for c in state.cars[car].cards if c.slot == slot)
    for pile in list(state.decks.values()) + list(state.discards.values()):
        if cid in pile:
            pile[pile.index(cid)] = cs.card
            break
    else:
        for other in state.cars:
            for ocs in other.cards:
                if ocs.card == cid:
                    ocs.card = cs.card
    cs.card = cid


def force_crash(state: PitFormulaState, crash_id: str) -> None:
    deck = "super" if catalog().crash_cards[crash_id].deck == "super" else "crash"
    pile = state.decks[deck]
    if crash_id in pile:
        pile.remove(crash_id)
    pile.append(crash_id)


def force_trophy(state: PitFormulaState, trophy_id: str) -> None:
    if trophy_id in state.trophy_stack:
        state.trophy_stack.remove(trophy_id)
    state.trophy_stack.append(trophy_id)


def on_table(state: PitFormulaState, letter: str, skip: int = 0) -> str:
    """The coordinate of a token of this part (its face's letter, e.g. "T") still on the
    table: the first, or the one after `skip` others."""
    found = [s for s, f in enumerate(state.faces) if f[0] == letter and state.where[s] == ON_TABLE]
    return coord_of(found[skip])


def token(state: PitFormulaState, face: str, skip: int = 0) -> str:
    """The coordinate of a token with this face (e.g. "T3") still on the table."""
    found = [s for s, f in enumerate(state.faces) if f == face and state.where[s] == ON_TABLE]
    return coord_of(found[skip])


def start(state: PitFormulaState, crash: str, trophy: str | None = None) -> PitFormulaState:
    state = state.model_copy(deep=True)
    force_crash(state, crash)
    if trophy:
        force_trophy(state, trophy)
    seat = state.cars[state.starter].seats[0]
    state, _ = GAME.apply(state, Go(seat=seat))
    return state


def act(state: PitFormulaState, *actions) -> PitFormulaState:
    events = []
    for a in actions:
        state, ev = GAME.apply(state, a)
        events += ev
    return state


def fix(state: PitFormulaState, seat: int, card: str, faces: list[str], at_ms: int = 1000):
    """Reveal the card if needed and lay tokens with these faces ("T3", or "spare")."""
    car = next(c for c in state.cars if seat in c.seats)
    cs = next(c for c in car.cards if c.slot == card)
    if not cs.revealed:
        state, _ = GAME.apply(state, Reveal(seat=seat, cards=[card], at_ms=at_ms))
    coords: list[str] = []
    for f in faces:
        if f == "spare":
            coords.append("spare")
        else:
            skip = sum(1 for g in faces[: len(coords)] if g == f)
            coords.append(token(state, f, skip))
    state, _ = GAME.apply(state, Fix(seat=seat, card=card, tokens=coords, at_ms=at_ms))
    return state


def flag(state: PitFormulaState, seat: int, at_ms: int = 2000) -> PitFormulaState:
    state, _ = GAME.apply(state, TakeFlag(seat=seat, at_ms=at_ms))
    return state


def repair(
    state: PitFormulaState,
    seat: int,
    slot: str,
    wrong: bool = False,
    spares: int = 0,
    at_ms: int = 1000,
) -> PitFormulaState:
    """Reveal a card if needed and repair it from the table: rightly, or wrongly (a token that
    spells no answer), with the first `spares` tokens replaced by spare parts."""
    from rules.pitformula import SLOT_PART, answers, is_correct
    from rules.pitformula.engine import card_numbers
    from rules.pitformula.robot import find_tokens

    car = next(c for c in state.cars if seat in c.seats)
    cs = next(c for c in car.cards if c.slot == slot)
    if not cs.revealed:
        state, _ = GAME.apply(state, Reveal(seat=seat, cards=[slot], at_ms=at_ms))
        car = next(c for c in state.cars if seat in c.seats)
        cs = next(c for c in car.cards if c.slot == slot)
    part = SLOT_PART[slot]
    a, b = card_numbers(cs)
    options = sorted((list(ans) for ans in answers(part, a, b)), key=len)
    if wrong:
        n = len(options[0])
        options = []
        for d in range(10):
            digits = [d] + [(d + 1 + i) % 10 for i in range(n - 1)]
            if not is_correct(part, a, b, digits):
                options.append(digits)
    for digits in options:
        found = find_tokens(state, part, digits[spares:], 0)
        if found is not None:
            tokens = ["spare"] * spares + found
            state, _ = GAME.apply(state, Fix(seat=seat, card=slot, tokens=tokens, at_ms=at_ms))
            return state
    raise AssertionError(f"no tokens left for {slot} of seat {seat}")


def repair_tyres(
    state: PitFormulaState, seat: int, wrong: tuple[str, ...] = (), at_ms: int = 1000
) -> PitFormulaState:
    for slot in ("t1", "t2", "t3", "t4"):
        state = repair(state, seat, slot, wrong=slot in wrong, at_ms=at_ms)
    return state


# --- what a crew may send (the engine contract's own statement) ------------------------------


def pf_car(state: PitFormulaState, seat: int) -> int | None:
    return next((i for i, c in enumerate(state.cars) if seat in c.seats), None)


def _fix_ok(state: PitFormulaState, car_i: int, a: Fix) -> bool:
    """docs/rules/pitformula.md, "What a crew may send": a face-up empty card of the car, 1-2
    tokens for a tyre card and 2 otherwise, each a token of its part on the table named once,
    or `spare` (at most the spare parts left)."""
    cards = {cs.slot: cs for cs in state.cars[car_i].cards}
    cs = cards.get(a.card)
    if cs is None or not cs.revealed or cs.tokens:
        return False
    part = SLOT_PART[a.card]
    lo, hi = TOKEN_COUNT[part]
    free = {
        coord_of(slot)
        for slot, face in enumerate(state.faces)
        if state.where[slot] == ON_TABLE and face[0] == PART_LETTER[part]
    }
    named = [t for t in a.tokens if t != "spare"]
    return (
        lo <= len(a.tokens) <= hi
        and len(set(named)) == len(named)
        and all(t in free for t in named)
        and len(a.tokens) - len(named) <= state.race.spares_left
    )


def _reveal_ok(state: PitFormulaState, car_i: int, a: Reveal) -> bool:
    cards = {cs.slot: cs for cs in state.cars[car_i].cards}
    return (
        len(set(a.cards)) == len(a.cards)
        and all(n in cards for n in a.cards)
        and any(not cards[n].revealed for n in a.cards)
    )


def pf_legal(state: PitFormulaState, a: Action) -> bool:
    """The contract's answer: at the action's time, listed (at the race clock) or free-form
    (a Fix, several cards revealed at once)."""
    if state.phase == "over" or a.seat not in GAME.to_act(state):
        return False
    if isinstance(a, Go) or state.phase != "repair":
        return a in GAME.legal_actions(state, a.seat)  # a race starts with Go, nothing else
    car_i = pf_car(state, a.seat)
    assert car_i is not None
    t = state.race.clock_ms if a.at_ms is None else a.at_ms
    deadline = state.race.deadline_ms
    if isinstance(a, TimeUp):
        return deadline is not None and t >= deadline
    if deadline is not None and t > deadline:
        return False
    if isinstance(a, Fix):
        return _fix_ok(state, car_i, a)
    if isinstance(a, Reveal) and _reveal_ok(state, car_i, a):
        return True
    return a.model_copy(update={"at_ms": None}) in GAME.legal_actions(state, a.seat)
