"""The mechanics of an RF90 race, shared by the engine and the seat policy: what one `apply`
works with (`Ctx`), and the small steps it is made of — drawing and discarding cards, checks,
damage, moving, running wide and paying for it, tyres.

These functions change the state they are given (the engine's copy) and never validate an
action: `rules/rf90/legality.py` decides what `apply` accepts before any of them runs.
"""

from __future__ import annotations

from typing import Any

from rules.base import Event
from rules.rf90 import catalog as cat
from rules.rf90.state import Car, OffTrackPay, RF90State


class Ctx:
    """What one `apply` call works with: the (copied) state, the static data, the events."""

    def __init__(self, state: RF90State, watch: bool = False, snapshots: bool = True) -> None:
        self.s = state
        self.track = cat.track(state.track, state.race_turns)
        self.cards = cat.cards(state.track)
        # the robot data of this field: track and player seats (docs/rules/rf90.md, "Balance")
        seats = sum(1 for c in state.cars if c.seat is not None)
        self.tables = cat.race_tables(state.track, seats)
        self.events: list[Event] = []
        # (section, state) as each section activation ends, when watched (pictures)
        self.activations: list[tuple[int, RF90State]] | None = [] if watch else None
        self.activation_events: list[int] = []  # how many events there were at each end
        self.snapshots = snapshots  # False: `activations` hold the state itself (counting)

    def ev(self, kind: str, text: str, **data: Any) -> None:
        self.events.append(Event(kind=kind, text=text, data=data))

    def car(self, cid: int) -> Car:
        return self.s.cars[cid]


# --- small helpers -----------------------------------------------------------------------------


def hand_limit(car: Car) -> int:
    return cat.tables().setup.cards[car.setup.cards]


def damage_capacity(car: Car) -> int:
    return cat.tables().setup.wear[car.setup.wear]


def damage_penalty(car: Car) -> int:
    """MP lost by a badly damaged player's car (Paddock rule, `damage_effects` in rules.json)."""
    eff = cat.tables().damage_effects
    if car.is_robot or damage_capacity(car) - car.damage > eff.spaces_left:
        return 0
    return eff.mp_penalty


def base_chips(car: Car) -> int:
    return cat.tables().setup.tyres[car.setup.tyres]


def fuel_chit(state: RF90State, car: Car) -> tuple[int, bool]:
    """Where the refuelling chit sits on the turn indicator: (space, carried over the top)."""
    n = cat.track(state.track, state.race_turns).race_turns
    if car.fuel_turn > n:
        return car.fuel_turn - n, True
    return car.fuel_turn, False


def max_fuel(ctx: Ctx) -> int:
    """The most turns of fuel a tank holds: 10 per stop and 3 per extra section, 2 at most."""
    f = ctx.tables.fuel
    return f.per_stop + f.per_extra_section * f.max_extra_sections


def fuel_room(ctx: Ctx, car: Car) -> bool:
    """Whether Save Fuel may shift the refuelling chit one turn later (HTP: at most 16 turns)."""
    return car.fuel_turn + 1 - ctx.s.turn <= max_fuel(ctx)


def target_check(ctx: Ctx, car: Car) -> int:
    base = ctx.cards[car.qual_card].check_factor if car.qual_card else 50
    return base + bonus_to_checks(car)


def bonus_to_checks(car: Car) -> int:
    bonus = (20 if car.skill == "reflexes" else 0) + (10 if car.strategy == "consistency" else 0)
    if not car.is_robot:  # brown discs weigh on checks (Paddock rule, `damage_effects`)
        bonus -= cat.tables().damage_effects.check_per_brown * car.damage_brown
    return bonus


def position_key(ctx: Ctx, car: Car) -> tuple[int, int, int]:
    """Sort key, smaller = further ahead in the race."""
    slot = 99 if car.off_track else ctx.s.sections[car.section].index(car.id)
    return (-car.lap, -car.section, slot)


def race_order(ctx: Ctx) -> list[int]:
    running = [c for c in ctx.s.cars if c.running]
    return [c.id for c in sorted(running, key=lambda c: position_key(ctx, c))]


def leader(ctx: Ctx) -> int | None:
    order = race_order(ctx)
    return order[0] if order else None


def draw_race(ctx: Ctx) -> int | None:
    s = ctx.s
    if not s.race_draw:
        if not s.race_discard:
            return None
        s.race_draw = s.rng.shuffled(s.race_discard)
        s.race_discard = []
        ctx.ev("reshuffle", "The Race deck is reshuffled.")
    return s.race_draw.pop()


def draw_track(ctx: Ctx) -> int | None:
    s = ctx.s
    if not s.track_draw:
        if not s.track_discard:
            return None
        s.track_draw = s.rng.shuffled(s.track_discard)
        s.track_discard = []
    return s.track_draw.pop()


def discard(ctx: Ctx, cid: int) -> None:
    if cid > cat.TRACK_CARD_BASE:
        ctx.s.track_discard.append(cid)
    else:
        ctx.s.race_discard.append(cid)


def give_race_cards(ctx: Ctx, car: Car, n: int) -> None:
    for _ in range(n):
        cid = draw_race(ctx)
        if cid is not None:
            car.hand.append(cid)


def give_track_cards(ctx: Ctx, car: Car, n: int, why: str = "") -> None:
    for _ in range(n):
        cid = draw_track(ctx)
        if cid is not None:
            car.hand.append(cid)
            ctx.ev("track_card", f"{car.name} draws a Track card{why}.", car=car.id)


def blind_check(ctx: Ctx, car: Car, target: int, what: str) -> bool:
    """Reveal the top Race card: the check passes when its check factor is below the target."""
    cid = draw_race(ctx)
    cf = ctx.cards[cid].check_factor if cid is not None else 99
    if cid is not None:
        ctx.s.race_discard.append(cid)
    ok = cf < target
    if not ok and car.strategy == "lucky":
        cid = draw_race(ctx)
        if cid is not None:
            ctx.s.race_discard.append(cid)
            ok = ctx.cards[cid].check_factor < target
    ctx.ev(
        "check",
        f"{car.name}: {what} check {cf} vs {target}: {'passed' if ok else 'failed'}.",
        car=car.id,
        ok=ok,
    )
    return ok


def retire(ctx: Ctx, car: Car, status: str, why: str) -> None:
    if not car.running:
        return
    if not car.off_track and car.id in ctx.s.sections[car.section]:
        ctx.s.sections[car.section].remove(car.id)
    car.status = status  # type: ignore[assignment]
    car.out_turn = ctx.s.turn
    car.trajectory = None
    car.off_track = False
    ctx.ev("out", f"{car.name} is out: {why}.", car=car.id, status=status)
    if status == "retired" and ctx.s.phase == "race":
        ctx.s.safety_car_until = ctx.s.turn + ctx.tables.flags.safety_car_turns
        ctx.ev("safety_car", "The safety car comes out.", until=ctx.s.safety_car_until)


def take_damage(ctx: Ctx, car: Car, n: int) -> int:
    """Draw n discs from the bag; a car with more discs than damage spaces is out."""
    drawn = 0
    for _ in range(n):
        total = ctx.s.bag_red + ctx.s.bag_brown
        if total == 0:
            ctx.ev("bag_empty", "The damage bag is empty: no disc drawn.")
            break
        if ctx.s.rng.below(total) < ctx.s.bag_red:
            ctx.s.bag_red -= 1
            car.damage_red += 1
        else:
            ctx.s.bag_brown -= 1
            car.damage_brown += 1
        drawn += 1
    if drawn:
        ctx.ev("damage", f"{car.name} draws {drawn} damage disc(s).", car=car.id, n=drawn)
    if car.damage > damage_capacity(car):
        retire(ctx, car, "retired", "too much damage")
    return drawn


def place_back(ctx: Ctx, car: Car, section: int) -> None:
    ctx.s.sections[section].append(car.id)
    car.section = section


def enter_section(ctx: Ctx, car: Car, section: int, unlap: bool = True) -> None:
    """A moving car enters a section behind the cars there, but in front of the cars at its
    back that skipped their turn: a car with the "turn skipped" marker has stopped for this game
    turn and is overtaken by every car that reaches it (Paddock rule, `skipped_cars` in
    rules.json; EXP names the marker, its 3.0 L rulebook is not among the sources) — except
    under a yellow flag, and a car that does not unlap itself stays behind a higher lap."""
    lst = ctx.s.sections[section]
    pos = len(lst)
    if ctx.tables.skipped_cars.overtaken_on_entry and section not in ctx.s.yellow_flags:
        while pos > 0:
            other = ctx.s.cars[lst[pos - 1]]
            if other.mark != "skipped" or (other.lap > car.lap and not unlap):
                break
            pos -= 1
    if pos < len(lst):
        names = ", ".join(ctx.s.cars[c].name for c in lst[pos:])
        ctx.ev("pass_skipped", f"{car.name} passes {names} (turn skipped).", car=car.id)
    lst.insert(pos, car.id)
    car.section = section


def section_full(ctx: Ctx, section: int) -> bool:
    return len(ctx.s.sections[section]) >= ctx.track.sections[section].capacity


def teammates(a: Car, b: Car) -> bool:
    """Robots of one type are a team; players sharing a team name in the race configuration are
    a team (Paddock rule)."""
    if a.robot is not None:
        return a.robot == b.robot
    return a.team is not None and b.robot is None and a.team == b.team


def skipped_aside(ctx: Ctx, car: Car) -> bool:
    """A car that skipped its turn stands aside: passing it needs no lapping check."""
    return car.mark == "skipped" and ctx.tables.skipped_cars.overtaken_on_entry


def must_yield(car: Car, other: Car) -> bool:
    """Blue flag: `car` is lapped by `other` (a higher lap, not a teammate) and must let it by."""
    return other.lap > car.lap and not teammates(car, other)


def blue_flag_yield(ctx: Ctx, car: Car) -> None:
    """At the end of a lapped car's individual turn, the cars of a higher lap (not teammates)
    behind it in its section go in front of it, in their order (Paddock rule)."""
    if not car.running or car.off_track or not ctx.tables.lapping.lapped_car_yields:
        return
    lst = ctx.s.sections[car.section]
    i = lst.index(car.id)
    faster = [c for c in lst[i + 1 :] if must_yield(car, ctx.s.cars[c])]
    if not faster:
        return
    for c in faster:
        lst.remove(c)
    lst[i:i] = faster
    ctx.ev(
        "blue_flag_yield",
        f"{car.name} obeys the blue flag and lets "
        + ", ".join(ctx.s.cars[c].name for c in faster)
        + " by.",
        car=car.id,
        passed_by=faster,
    )


def robot_only(state: RF90State) -> bool:
    """No player seats: robot turns are played as RobotTurn actions (Paddock rule)."""
    return all(c.seat is None for c in state.cars)


def safety_car(ctx: Ctx) -> bool:
    return ctx.s.turn <= ctx.s.safety_car_until


def move(ctx: Ctx, car: Car, mp: int, unlap: bool = True) -> int:
    """Spend MP moving forward section by section; stop at a full section. Returns steps.

    Leaving a section passes the cars in front in it. Passing a lapped car (not a teammate) needs
    a lapping check from a player's car (blue flag); a robot pays a fixed MP cost instead and
    never unlaps itself. Entering a section with a yellow flag ends the move.
    """
    n = ctx.track.length
    steps = 0
    if car.off_track:
        if mp <= 0 or section_full(ctx, car.section):
            return 0
        car.off_track = False
        place_back(ctx, car, car.section)
        ctx.ev("reenter", f"{car.name} re-enters the track.", car=car.id)
        mp -= 1
    left = max(0, mp)
    while left > 0:
        lst = ctx.s.sections[car.section]
        passed = [ctx.s.cars[c] for c in lst[: lst.index(car.id)]]
        if (car.is_robot or not unlap) and any(o.lap > car.lap for o in passed):
            ctx.ev("no_unlap", f"{car.name} does not unlap itself.", car=car.id)
            break
        lapped = [
            o
            for o in passed
            if o.lap < car.lap and not teammates(car, o) and not skipped_aside(ctx, o)
        ]
        if lapped and car.is_robot:
            left -= ctx.tables.lapping.robot_mp
            ctx.ev(
                "blue_flag", f"{car.name} laps a car.", car=car.id, lapped=[o.id for o in lapped]
            )
            if left <= 0:
                break
        elif lapped:
            names = ", ".join(o.name for o in lapped)
            ctx.ev(
                "blue_flag", f"Blue flag for {names}.", car=car.id, lapped=[o.id for o in lapped]
            )
            if not blind_check(ctx, car, target_check(ctx, car), "Lapping"):
                lp = ctx.tables.lapping
                left -= lp.skill_fail_mp if car.skill == "lapping" else lp.fail_mp
                if left <= 0:
                    break
        nxt = (car.section + 1) % n
        if section_full(ctx, nxt):
            break
        lst.remove(car.id)
        enter_section(ctx, car, nxt, unlap=unlap and not car.is_robot)
        if nxt == 0:
            car.lap += 1
        steps += 1
        left -= 1
        if nxt in ctx.s.yellow_flags:
            ctx.ev("yellow_flag", f"{car.name} slows under the yellow flag.", car=car.id)
            break
    return steps


def move_back(ctx: Ctx, car: Car, sections: int) -> None:
    n = ctx.track.length
    if not car.off_track:
        ctx.s.sections[car.section].remove(car.id)
    car.off_track = False
    car.off_penalty = 0
    sec, lap = car.section, car.lap
    for i in range(sections + n):
        if i >= sections and not section_full(ctx, sec):
            break
        if sec == 0:
            lap -= 1
        sec = (sec - 1) % n
    car.lap = lap
    place_back(ctx, car, sec)


def go_off_track(ctx: Ctx, car: Car, corner_section: int, pay: OffTrackPay | None = None) -> None:
    """Phase E off-track resolution at this corner: pay, then wait at the re-entry point.

    The card symbol (EXP) takes its card first, since a car with no card for it is out:
    `pay.discard`, else the lowest card not named for tyres, else the lowest card (Paddock
    rule). A player then pays the tyres with the other cards named in `pay` (at most the tyres
    due), then chips, then the lowest cards left; tyres still unpaid become damage discs
    (Paddock rule, as in phase C). The symbol's card is discarded after the other payments.
    """
    off = ctx.track.sections[corner_section].off_track
    if off is None:
        take_damage(ctx, car, 1)
        return
    ctx.ev("off_track", f"{car.name} goes off track at section {corner_section}.", car=car.id)
    if not car.is_robot:
        named = [c for c in (pay.tyre_cards if pay else []) if c in car.hand]
        symbol: int | None = None  # the card kept back for the card symbol
        if off.cost.cards and car.hand:
            if pay is not None and pay.discard in car.hand:
                symbol = pay.discard
            else:
                pool = [c for c in car.hand if c not in named] or car.hand
                symbol = min(pool, key=lambda c: (ctx.cards[c].mp, c))
        tyres = off.cost.tyres
        for cid in [c for c in named if c != symbol][:tyres]:
            car.hand.remove(cid)
            discard(ctx, cid)
            tyres -= 1
        pay_tyres_auto(ctx, car, tyres, keep=symbol)
        if car.running and off.cost.damage:
            take_damage(ctx, car, off.cost.damage)
        if car.running and off.cost.cards:
            if symbol is None:
                retire(ctx, car, "retired", "off track with no card left to discard")
                return
            car.hand.remove(symbol)
            discard(ctx, symbol)
    if not car.running:
        return
    if car.id in ctx.s.sections[car.section]:
        ctx.s.sections[car.section].remove(car.id)
    car.trajectory = None
    car.off_track = True
    car.section = off.reentry
    car.off_penalty = off.penalty


def no_move(ctx: Ctx, car: Car) -> None:
    """The car's turn ends without moving (it left the track): a move of 0, as events go."""
    car.last_mp = 0
    ctx.ev("move", f"{car.name} moves 0 section(s).", car=car.id, mp=0, steps=0, turn=ctx.s.turn)


def pay_tyres_auto(ctx: Ctx, car: Car, n: int, keep: int | None = None) -> None:
    """Pay tyres with chips first, then the lowest cards but `keep`; what is left becomes
    damage."""
    chips = min(car.chips, n)
    car.chips -= chips
    n -= chips
    while n > 0 and (usable := [c for c in car.hand if c != keep]):
        worst = min(usable, key=lambda c: (ctx.cards[c].mp, c))
        car.hand.remove(worst)
        discard(ctx, worst)
        n -= 1
    if n > 0:
        take_damage(ctx, car, n)


def can_pair(a: cat.Card, b: cat.Card, push: bool) -> tuple[bool, bool]:
    """Whether two cards may be played together, and whether it is a Push pairing."""
    if a.pair or b.pair:
        return True, False
    lo, hi = sorted((a.mp, b.mp))
    if lo == 1 or (lo == 2 and hi == 2):
        return True, False
    if push and lo == 2:
        return True, True
    return False, False


def runs_wide_here(ctx: Ctx, car: Car) -> bool:
    """Whether a failed green check sends this car off the track where it stands: a curve
    section with an off-track trajectory (Paddock rule, `off_track.green_check_in_corner`)."""
    sec = ctx.track.sections[car.section]
    return (
        ctx.tables.off_track.green_check_in_corner
        and not car.off_track
        and sec.kind == "curve"
        and sec.off_track is not None
    )


def weather_modifier(ctx: Ctx, car: Car) -> int:
    space = ctx.tables.weather.spaces[ctx.s.weather]
    if car.tyre is None:
        return 0
    mod = ctx.tables.weather.modifiers[space.state][car.tyre]
    if car.skill == "rain_expert" and space.state == "uncertain" and car.tyre != "intermediate":
        return max(0, mod)
    return mod


def fit_tyres(ctx: Ctx, car: Car, tyres: str) -> None:
    kind = ctx.tables.tyres.get(tyres)
    if tyres == "soft":
        car.soft_sets += 1
    car.tyre = tyres  # type: ignore[assignment]
    car.chips = base_chips(car) + kind.chips
    car.blue = kind.blue + (3 if tyres == "wet" and car.skill == "rain_expert" else 0)
    give_track_cards(ctx, car, kind.track_cards, " (hard tyres)")
