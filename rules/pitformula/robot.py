"""Simulated pit crews (Paddock rule): they solve at a set speed, make mistakes at a set rate,
and sometimes repair an extra part before taking a flag.

A crew's action carries a virtual `at_ms`: the car's last action time plus the time this step
takes. The choice is deterministic: it draws from a private Rng seeded from the state's Rng, the
seat and the race's sequence number, and never touches the state's own Rng.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules.base import Action
from rules.pitformula import coords
from rules.pitformula.catalog import PART_LETTER, Part
from rules.pitformula.coords import SLOT_PART, SPARE
from rules.pitformula.engine import car_of_seat, card_numbers, missing_repairs
from rules.pitformula.repairs import answers
from rules.pitformula.state import (
    ON_TABLE,
    CardSlot,
    Fix,
    Go,
    PitFormulaState,
    Retire,
    Reveal,
    TakeFlag,
    TimeUp,
)
from rules.rng import Rng

REVEAL_MS = 800
FLAG_MS = 400
_MIX = 0x9E3779B97F4A7C15
_MASK = (1 << 64) - 1


def _rng(state: PitFormulaState, *salt: int) -> Rng:
    seed = state.rng.state
    for s in salt:
        seed = ((seed ^ (s & _MASK)) * _MIX + 1) & _MASK
    return Rng.from_seed(seed)


def _available(state: PitFormulaState) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for slot, face in enumerate(state.faces):
        if state.where[slot] == ON_TABLE:
            out.setdefault(face, []).append(slot)
    return out


def find_tokens(
    state: PitFormulaState, part: Part, digits: Sequence[int], spares: int, rng: Rng | None = None
) -> list[str] | None:
    """Coordinates (and spares, at most `spares`) that show these digits, or None."""
    avail = _available(state)
    letter = PART_LETTER[part]
    used: set[int] = set()
    out: list[str] = []
    for d in digits:
        free = [s for s in avail.get(f"{letter}{d}", []) if s not in used]
        if free:
            slot = rng.choice(free) if rng else free[0]
            used.add(slot)
            out.append(coords.coord_of(slot))
        elif spares > 0:
            spares -= 1
            out.append(SPARE)
        else:
            return None
    return out


def solution(
    state: PitFormulaState, cs: CardSlot, spares: int, rng: Rng | None = None
) -> list[str] | None:
    """A correct set of tokens for this card from the table, fewest spare parts first."""
    part = SLOT_PART[cs.slot]
    a, b = card_numbers(cs)
    options = sorted(answers(part, a, b), key=len)
    for allowed in range(0, spares + 1):
        for ans in options:
            found = find_tokens(state, part, ans, allowed, rng)
            if found is not None:
                return found
    return None


def _wrong(state: PitFormulaState, cs: CardSlot, rng: Rng) -> list[str] | None:
    part = SLOT_PART[cs.slot]
    a, b = card_numbers(cs)
    ans = list(rng.choice(answers(part, a, b)))
    i = rng.below(len(ans))
    ans[i] = (ans[i] + 1 + rng.below(9)) % 10
    return find_tokens(state, part, ans, 0, rng)


def robot_action(state: PitFormulaState, seat: int) -> Action:
    if state.phase == "ready":
        return Go(seat=seat)
    car_i = car_of_seat(state, seat)
    car = state.cars[car_i]
    race = state.race
    skill = state.settings.skill(seat)
    rng = _rng(state, seat, race.number, race.seq)
    t = car.last_ms
    deadline = race.deadline_ms

    def timed(action_ms: int) -> int | None:
        """The action's time, or None when the stopwatch would run out first."""
        at = t + action_ms
        return None if deadline is not None and at > deadline else at

    def out_of_time() -> Action:
        assert deadline is not None
        return TimeUp(seat=seat, at_ms=max(deadline, t))

    fix_ms = int(skill.speed_ms * (0.5 + rng.random()))
    member = car.seats.index(seat)
    missing = missing_repairs(car)
    if missing:
        to_reveal: list[str] = []
        todo: list[CardSlot] = []
        for part, n in missing.items():
            open_ = [cs for cs in car.cards if SLOT_PART[cs.slot] == part and not cs.tokens]
            shown = [cs for cs in open_ if cs.revealed]
            hidden = [cs.slot for cs in open_ if not cs.revealed]
            todo += shown[:n]
            to_reveal += hidden[: max(0, n - len(shown))]
        if to_reveal:
            at = timed(REVEAL_MS)
            return Reveal(seat=seat, cards=to_reveal, at_ms=at) if at is not None else out_of_time()
        order = todo[member % len(todo) :] + todo[: member % len(todo)]
        for cs in order:
            tokens = None
            if rng.random() < skill.error_rate:
                tokens = _wrong(state, cs, rng)
            if tokens is None:
                tokens = solution(state, cs, race.spares_left, rng)
            if tokens is not None:
                at = timed(fix_ms)
                if at is None:
                    return out_of_time()
                return Fix(seat=seat, card=cs.slot, tokens=tokens, at_ms=at)
        # stuck: no tokens and no spare parts for any required card
        return Retire(seat=seat, at_ms=t)
    # every required repair is in place: sometimes repair one extra part first
    greedy = _rng(state, car_i, race.number, 7).random() < skill.greed
    filled = sum(1 for cs in car.cards if cs.tokens)
    flags_left = len(race.flags_taken) < race.flags
    if greedy and filled <= car.required.total():
        extra = [cs for cs in car.cards if cs.revealed and not cs.tokens]
        for cs in extra:
            tokens = solution(state, cs, 0, rng)
            at = timed(fix_ms + FLAG_MS)
            if tokens is not None and at is not None:
                return Fix(seat=seat, card=cs.slot, tokens=tokens, at_ms=at - FLAG_MS)
        hidden = [cs.slot for cs in car.cards if not cs.revealed]
        at = timed(REVEAL_MS + fix_ms + FLAG_MS)
        if hidden and not extra and at is not None:
            return Reveal(seat=seat, cards=[rng.choice(hidden)], at_ms=t + REVEAL_MS)
    if flags_left:
        at = timed(FLAG_MS)
        return TakeFlag(seat=seat, at_ms=at) if at is not None else out_of_time()
    return Retire(seat=seat, at_ms=t)
