"""The RF90 rules engine: set-up, qualification, the game turn, individual turns, robots.

`apply` deep-copies the state and works on the copy. After each accepted action the engine
advances on its own (robot cars, automatic steps) until a player's decision is needed or the
race is over, so `to_act` always names the seat(s) to decide next.
"""

from __future__ import annotations

from typing import Any

from rules.base import Action, Event, Game, Placing
from rules.championship import CAR_COLOURS
from rules.errors import IllegalAction, NotYourTurn
from rules.rf90 import catalog as cat
from rules.rf90.state import (
    ACTION_ADAPTER,
    FUEL_TURNS,
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
    RF90State,
    RobotToken,
    RobotTurn,
    Setup,
    StartTurn,
)

DUEL = -1  # _next_car: a duel was opened, loop again


class Ctx:
    """What one `apply` call works with: the (copied) state, the static data, the events."""

    def __init__(self, state: RF90State, watch: bool = False) -> None:
        self.s = state
        self.track = cat.track(state.track)
        self.cards = cat.cards(state.track)
        self.tables = cat.tables()
        self.events: list[Event] = []
        # (section, state) as each section activation ends, when watched (pictures)
        self.activations: list[tuple[int, RF90State]] | None = [] if watch else None
        self.activation_events: list[int] = []  # how many events there were at each end

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
    n = cat.track(state.track).race_turns
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


def setup_problem(skill: str | None, tyres: int, wear: int, cards: int) -> str | None:
    """Why a skill and set-up are not allowed (HTP, Car Setup), or None when they are."""
    t = cat.tables().setup
    if skill is not None and skill not in cat.skill_ids():
        return f"Unknown skill {skill!r}: choose one of {', '.join(cat.skill_ids())}."
    low = min(t.tyres)
    for name, v in (("tyres", tyres), ("wear", wear), ("cards", cards)):
        if not low <= v <= t.max_per_category:
            return (
                f"Set-up tokens are worth {low} to {t.max_per_category} points: "
                f"{name} {v} is not allowed."
            )
    points = t.tuning_points if skill == "tuning" else t.points
    if tyres + wear + cards > points:
        extra = "" if skill == "tuning" else " (8 with Tuning)"
        return f"Your set-up uses {tyres + wear + cards} points: at most {points}{extra}."
    return None


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


def check_off_track_pay(car: Car, pay: OffTrackPay | None) -> None:
    if pay is None:
        return
    chosen = [*pay.tyre_cards, *([pay.discard] if pay.discard is not None else [])]
    if len(set(chosen)) != len(chosen) or any(c not in car.hand for c in chosen):
        raise IllegalAction("Pay off-track costs with different cards from your hand.")


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
        if car.soft_sets >= (kind.max_sets or 99):
            raise IllegalAction("You have used both sets of soft tyres.")
        car.soft_sets += 1
    car.tyre = tyres  # type: ignore[assignment]
    car.chips = base_chips(car) + kind.chips
    car.blue = kind.blue + (3 if tyres == "wet" and car.skill == "rain_expert" else 0)
    give_track_cards(ctx, car, kind.track_cards, " (hard tyres)")


# --- the game ----------------------------------------------------------------------------------


class RF90(Game[RF90State]):
    name = "rf90"
    title = "Race! Formula 90"
    state_type = RF90State
    action_adapter = ACTION_ADAPTER

    # set-up -------------------------------------------------------------------------------

    def new_game(self, seed: int, config: dict[str, Any]) -> RF90State:
        from rules.rng import Rng

        track_name = config.get("track", "barcelona")
        track = cat.track(track_name)
        tables = cat.tables()
        players = config.get("players", [])
        if isinstance(players, int):
            players = [{} for _ in range(players)]
        if len(players) > 6:
            raise ValueError("RF90 takes at most 6 players")
        rng = Rng.from_seed(seed)
        cars: list[Car] = []
        colours = [p.get("colour") for p in players]
        for c in colours:
            if c is not None and c not in CAR_COLOURS["rf90"]:
                raise ValueError(f"unknown colour {c!r}: one of {', '.join(CAR_COLOURS['rf90'])}")
        taken = [c for c in colours if c is not None]
        if len(taken) != len(set(taken)):
            raise ValueError("two players chose the same colour")
        free = iter(c for c in CAR_COLOURS["rf90"] if c not in taken)
        for seat, p in enumerate(players):
            colour = p.get("colour") or next(free)
            chosen = "setup" in p or "skill" in p  # fixed by the race configuration
            setup = Setup.model_validate(p.get("setup", {}))
            skill = p.get("skill")
            if chosen:
                problem = setup_problem(skill, setup.tyres, setup.wear, setup.cards)
                if problem:
                    raise ValueError(f"seat {seat}: {problem}")
            cars.append(
                Car(
                    id=seat,
                    seat=seat,
                    name=p.get("name", f"{colour.capitalize()} car"),
                    colour=colour,
                    skill=skill,
                    team=p.get("team"),
                    setup=setup,
                    setup_chosen=chosen,
                )
            )
        for team in {c.team for c in cars if c.team is not None}:
            if sum(1 for c in cars if c.team == team) > tables.teams.max_cars:
                raise ValueError(f"team {team!r} has more than {tables.teams.max_cars} cars")
        n_players = max(1, len(players))
        robots = config.get("robots") or tables.robots.by_players[min(n_players, 6)]
        for rtype in ("superfast", "fast", "slow"):
            for k in range(robots.get(rtype, 0)):
                cars.append(
                    Car(
                        id=len(cars),
                        robot=rtype,
                        name=f"{rtype.capitalize()} robot {k + 1}",
                        colour=tables.robots.colours[rtype],
                    )
                )
        red, brown = tables.damage_bag.by_players[min(n_players, 6)]
        state = RF90State(
            rng=rng,
            track=track_name,
            cars=cars,
            sections=[[] for _ in track.sections],
            race_draw=rng.shuffled(sorted(cat.race_deck())),
            track_draw=rng.shuffled(sorted(cat.track_deck(track_name))),
            bag_red=red,
            bag_brown=brown,
        )
        ctx = Ctx(state)
        if all(c.setup_chosen for c in state.cars):
            self._deal_hands(ctx)
        self._advance(ctx)
        return state

    def _deal_hands(self, ctx: Ctx) -> None:
        """After the set-up: each player draws hand size + 1 cards, in seat order."""
        for car in ctx.s.cars:
            if not car.is_robot:
                give_race_cards(ctx, car, hand_limit(car) + ctx.tables.setup.extra_starting_cards)
                if car.skill == "qualifying":
                    give_track_cards(ctx, car, 2)

    # engine interface ---------------------------------------------------------------------

    def to_act(self, state: RF90State) -> list[int]:
        s = state
        if s.phase == "setup":
            choosing = [c.seat for c in s.cars if c.seat is not None and not c.setup_chosen]
            if choosing:
                return choosing  # type: ignore[return-value]
            return [c.seat for c in s.cars if c.seat is not None and not c.mulligan_done]
        if s.phase == "qualifying":
            return [c.seat for c in s.cars if c.seat is not None and c.qual_card is None]
        if s.phase == "start":
            return [s.cars[s.grid_order[s.start_next]].seat]  # type: ignore[list-item]
        if s.phase == "race":
            if s.robot_next is not None:
                return [ROBOT_SEAT]
            if s.duel is not None and s.duel.stage == "cards":
                # the cards are picked face down, by everyone in the duel at once
                return [s.cars[c].seat for c in self._duel_pickers(s.duel)]  # type: ignore[misc]
            if s.duel is not None:
                cid = self._duel_next(s)
                return [s.cars[cid].seat] if cid is not None else []  # type: ignore[list-item]
            if s.pending is not None:
                return [s.cars[s.pending.car].seat]  # type: ignore[list-item]
        return []

    def is_terminal(self, state: RF90State) -> bool:
        return state.phase == "finished"

    def apply(self, state: RF90State, action: Action) -> tuple[RF90State, list[Event]]:
        ctx = self._apply(state, action, watch=False)
        return ctx.s, ctx.events

    def apply_watching(
        self, state: RF90State, action: Action
    ) -> tuple[RF90State, list[Event], list[tuple[int, RF90State]]]:
        """`apply`, and the state as each section activation ended during it: (section, state)
        pairs, so that a picture can be drawn after every activation (DESIGN.md, renderer)."""
        ctx = self._apply(state, action, watch=True)
        assert ctx.activations is not None
        return ctx.s, ctx.events, ctx.activations

    def apply_frames(
        self, state: RF90State, action: Action
    ) -> tuple[RF90State, list[Event], list[tuple[int, RF90State, int]]]:
        """`apply_watching`, each activation also telling how many of the events had happened
        when it ended: (section, state, event count), one picture and its lines each."""
        ctx = self._apply(state, action, watch=True)
        assert ctx.activations is not None
        frames = [
            (section, at, n)
            for (section, at), n in zip(ctx.activations, ctx.activation_events, strict=True)
        ]
        return ctx.s, ctx.events, frames

    def _apply(self, state: RF90State, action: Action, watch: bool) -> Ctx:
        if state.phase == "finished":
            raise IllegalAction("The race is over.")
        if action.seat not in self.to_act(state):
            raise NotYourTurn()
        ctx = Ctx(state.model_copy(deep=True), watch)
        handler = {
            "choose_setup": self._choose_setup,
            "mulligan": self._mulligan,
            "qualify": self._qualify,
            "choose_start": self._choose_start,
            "start_turn": self._start_turn,
            "play_cards": self._play_cards,
            "end_turn": self._end_turn,
            "duel_declare": self._duel_declare,
            "duel_cards": self._duel_cards,
            "robot_turn": self._robot_turn_action,
        }.get(action.kind)
        if handler is None:
            raise IllegalAction(f"Unknown action {action.kind!r}.")
        handler(ctx, action)
        self._advance(ctx)
        return ctx

    def seat_car(self, state: RF90State, seat: int) -> Car:
        for c in state.cars:
            if c.seat == seat:
                return c
        raise IllegalAction(f"There is no seat {seat}.")

    # phase handlers -----------------------------------------------------------------------

    def _choose_setup(self, ctx: Ctx, a: Action) -> None:
        assert isinstance(a, ChooseSetup)
        s = ctx.s
        if s.phase != "setup":
            raise IllegalAction("The set-up is chosen before qualifying.")
        car = self.seat_car(s, a.seat)
        if car.setup_chosen:
            raise IllegalAction("You have already chosen your skill and set-up.")
        problem = setup_problem(a.skill, a.tyres, a.wear, a.cards)
        if problem:
            raise IllegalAction(problem)
        car.skill = a.skill
        car.setup = Setup(tyres=a.tyres, wear=a.wear, cards=a.cards)
        car.setup_chosen = True
        skill = f", skill {a.skill}" if a.skill else ""
        ctx.ev(
            "setup",
            f"{car.name} sets up: tyres {a.tyres}, wear {a.wear}, cards {a.cards}{skill}.",
            car=car.id,
        )
        if all(c.setup_chosen for c in s.cars):
            self._deal_hands(ctx)

    def _mulligan(self, ctx: Ctx, a: Action) -> None:
        assert isinstance(a, Mulligan)
        if ctx.s.phase != "setup":
            raise IllegalAction("The substitute car can only be taken before qualifying.")
        car = self.seat_car(ctx.s, a.seat)
        if not all(c.setup_chosen for c in ctx.s.cars):
            raise IllegalAction("Every player chooses a set-up before the substitute car.")
        if a.swap:
            n = len(car.hand)
            for cid in car.hand:
                discard(ctx, cid)
            car.hand = []
            give_race_cards(ctx, car, n)
            ctx.ev("mulligan", f"{car.name} takes the substitute car (new hand).", car=car.id)
        car.mulligan_done = True
        if all(c.mulligan_done for c in ctx.s.cars if not c.is_robot):
            ctx.s.phase = "qualifying"

    def _qualify(self, ctx: Ctx, a: Action) -> None:
        assert isinstance(a, Qualify)
        car = self.seat_car(ctx.s, a.seat)
        if a.card not in car.hand:
            raise IllegalAction("That card is not in your hand.")
        if a.fuel not in FUEL_TURNS:
            raise IllegalAction("Choose a fuel token: turn 8, 10, 12, 14 or 16.")
        car.hand.remove(a.card)
        car.qual_card = a.card
        car.qual_fuel = a.fuel
        if all(c.qual_card is not None for c in ctx.s.cars if not c.is_robot):
            self._resolve_qualifying(ctx)

    def _resolve_qualifying(self, ctx: Ctx) -> None:
        s, tables = ctx.s, ctx.tables
        for car in s.cars:
            if car.is_robot:
                continue
            card = ctx.cards[car.qual_card]  # type: ignore[index]
            car.qual_value = card.mp + tables.fuel.turns[car.qual_fuel]  # type: ignore[index]
            car.qual_value += 2 if car.skill == "qualifying" else 0
            car.qual_check = card.check_factor
            car.fuel_turn = car.qual_fuel  # type: ignore[assignment]
        for rtype in ("slow", "fast", "superfast"):
            robots = [c for c in s.cars if c.robot == rtype]
            tokens = s.rng.shuffled(tables.robots.fuel_tokens[rtype])
            for i, car in enumerate(robots):
                tok = tokens[i % len(tokens)]
                car.qual_value, car.qual_check = tok.value, tok.check
                s.robot_tokens.append(
                    RobotToken(robot=rtype, value=tok.value, check=tok.check, turn=tok.turn)
                )
        draw = {c.id: s.rng.random() for c in s.cars}
        order = sorted(s.cars, key=lambda c: (-(c.qual_value or 0), c.qual_check, draw[c.id]))
        s.grid_order = [c.id for c in order]
        grid = ctx.track.grid_sections()
        gi = 0
        for car in order:
            while len(s.sections[grid[gi]]) >= ctx.track.sections[grid[gi]].capacity:
                gi += 1
            place_back(ctx, car, grid[gi])
            car.lap = 0
        ctx.ev(
            "qualifying",
            "Grid: " + ", ".join(f"{i + 1}. {s.cars[c].name}" for i, c in enumerate(s.grid_order)),
            grid=s.grid_order,
        )
        wcard = draw_race(ctx)
        if wcard is not None:
            s.weather = tables.weather.space_for(ctx.cards[wcard].check_factor)
            s.race_discard.append(wcard)
        ctx.ev("weather", f"Weather: {tables.weather.spaces[s.weather].name}.", space=s.weather)
        space = tables.weather.spaces[s.weather]
        closest = space.closest if space.state == "uncertain" else space.state
        if closest == "middle":
            closest = "dry" if s.rng.below(2) == 0 else "rain"
        robot_tyre = "hard" if closest == "dry" else "wet"
        for car in s.cars:
            if car.is_robot:
                car.tyre = robot_tyre  # type: ignore[assignment]
        s.phase = "start"
        s.start_next = 0
        self._skip_robot_starts(ctx)

    def _skip_robot_starts(self, ctx: Ctx) -> None:
        s = ctx.s
        while s.start_next < len(s.grid_order) and s.cars[s.grid_order[s.start_next]].is_robot:
            s.start_next += 1
        if s.start_next >= len(s.grid_order):
            s.phase = "race"
            s.turn = 1
            self._begin_game_turn(ctx)

    def _choose_start(self, ctx: Ctx, a: Action) -> None:
        assert isinstance(a, ChooseStart)
        car = self.seat_car(ctx.s, a.seat)
        if a.strategy not in cat.strategy_ids():
            raise IllegalAction(f"Unknown strategy {a.strategy!r}.")
        fit_tyres(ctx, car, a.tyres)
        car.strategy = a.strategy
        ctx.s.start_next += 1
        self._skip_robot_starts(ctx)

    # the game turn ------------------------------------------------------------------------

    def _begin_game_turn(self, ctx: Ctx) -> None:
        s = ctx.s
        s.duelled = []
        s.active_section = None
        s.active_leader = None
        s.yellow_flags = []
        for car in s.cars:
            car.mark = None
        # No list of cars is set aside at the turn start: the cars in front of the leader in its
        # section play last only while the Leader token stays there (see `activation_pieces`).
        s.deferred = []
        for tok in s.robot_tokens:
            if tok.done or tok.turn != s.turn:
                continue
            tok.done = True
            cands = [
                cid
                for cid in race_order(ctx)
                if s.cars[cid].robot == tok.robot
                and not s.cars[cid].robot_pitted
                and not s.cars[cid].robot_pit_due
            ]
            if cands:
                s.cars[cands[0]].robot_pit_due = True
        stage = ctx.track.stage(s.turn)
        ctx.ev("turn", f"Turn {s.turn} (stage {stage}).", turn=s.turn, stage=stage)
        if s.turn > 1 and s.turn in ctx.track.stages:
            self._stage_events(ctx, stage)

    def _stage_events(self, ctx: Ctx, stage: int) -> None:
        """A new race stage: weather forecast and debris (Paddock rule, `stage_events`)."""
        s, se, wt = ctx.s, ctx.tables.stage_events, ctx.tables.weather
        cid = draw_race(ctx)
        if cid is None:
            return
        s.race_discard.append(cid)
        card = ctx.cards[cid]
        aim = wt.space_for(card.check_factor)
        step = max(-se.weather_steps, min(se.weather_steps, aim - s.weather))
        ctx.ev(
            "stage",
            f"Stage {stage} begins: forecast card {card.check_factor}.",
            stage=stage,
            card=cid,
            forecast=aim,
        )
        if step:
            s.weather += step
            ctx.ev("weather", f"Weather: {wt.spaces[s.weather].name}.", space=s.weather)
            self._robots_weather(ctx)
        if se.flag_safety_car and card.flag:
            s.safety_car_until = max(s.safety_car_until, s.turn + ctx.tables.flags.safety_car_turns)
            ctx.ev("safety_car", "Debris: the safety car comes out.", until=s.safety_car_until)

    def _advance(self, ctx: Ctx) -> None:
        """Run automatic steps until a player must decide or the race ends."""
        s = ctx.s
        if s.phase == "setup" and not any(not c.is_robot for c in s.cars):
            s.phase = "qualifying"
        if s.phase == "qualifying" and not any(not c.is_robot for c in s.cars):
            self._resolve_qualifying(ctx)
        while s.phase == "race":
            if s.duel is not None:
                if self._duel_auto(ctx):
                    return
                continue
            if s.pending is not None or s.robot_next is not None:
                return
            nxt = self._next_car(ctx)
            if nxt == DUEL:
                continue
            if nxt is None:
                self._end_game_turn(ctx)
                continue
            car = s.cars[nxt]
            if car.is_robot and robot_only(s):
                s.robot_next = car.id  # played through a RobotTurn action
                return
            if car.is_robot:
                self._robot_turn(ctx, car)
            else:
                self._begin_individual(ctx, car)

    def activation_pieces(self, ctx: Ctx) -> tuple[int | None, list[tuple[int, list[int]]]]:
        """The leader and the (sub)sections in activation order, each with its cars front first.

        Always from where the Leader token is now (rf90-how-to-play, Activate Section: "The next
        section to be activated is the section immediately behind the leader that contains cars
        that have not yet been activated"): the leader's section, then each section behind it
        round the track. The Leader token splits its section (FAS third case): the leader and the
        cars behind come first, the cars in front of the leader (lapped cars) come last, being
        behind everybody else. Once the leader has left that section ("When the Leader moves to
        another section ..."), its cars, lapped ones included, are one section behind the new
        FAS and play in their order when it is reached.
        """
        s = ctx.s
        lead = leader(ctx)
        if lead is None:
            return None, []
        n = ctx.track.length
        off: dict[int, list[int]] = {}
        for c in s.cars:
            if c.running and c.off_track:
                off.setdefault(c.section, []).append(c.id)
        lcar = s.cars[lead]
        lsec = lcar.section
        cars_l = s.sections[lsec]
        li = len(cars_l) if lcar.off_track else cars_l.index(lead)
        pieces = [(lsec, cars_l[li:] + off.get(lsec, []))]
        for k in range(1, n):
            sec = (lsec - k) % n
            pieces.append((sec, s.sections[sec] + off.get(sec, [])))
        if li > 0:
            pieces.append((lsec, cars_l[:li]))
        return lead, pieces

    def _next_car(self, ctx: Ctx) -> int | None:
        s = ctx.s
        lead, pieces = self.activation_pieces(ctx)
        if lead is None:
            return None
        if s.cars[lead].mark is None:  # first activation of the FAS: only the leader plays
            self._start_activation(ctx, s.cars[lead].section)
            return lead
        lsec = s.cars[lead].section
        for i, (sec, cars) in enumerate(pieces):
            unmoved = [c for c in cars if s.cars[c].mark is None]
            if not unmoved:
                continue
            # the part of the leader's section in front of the leader (lapped cars) is the last
            # piece; it is activated on its own, marked by no leader (FAS third case)
            by = None if i > 0 and sec == lsec and i == len(pieces) - 1 else lead
            fresh = sec != s.active_section or by != s.active_leader
            if fresh:  # a new activation (a restart from a new leader activates again)
                s.active_section, s.active_leader = sec, by
                self._start_activation(ctx, sec)
            on_track = [c for c in unmoved if not s.cars[c].off_track]
            if (
                ctx.track.sections[sec].kind == "curve"
                and fresh
                and not safety_car(ctx)
                and len(on_track) >= 2
                and any(not s.cars[c].is_robot for c in on_track)
            ):  # off-track cars waiting to re-enter take no part and play after the duel
                s.duelled.append(sec)
                s.duel = Duel(section=sec, order=on_track)
                return DUEL
            return unmoved[0]
        return None

    def _start_activation(self, ctx: Ctx, section: int) -> None:
        """A section (or the part of one) is activated: the one before it has ended."""
        self._end_activation(ctx)
        ctx.s.activation = section
        ctx.ev("activate", f"Section {section} is activated.", section=section, turn=ctx.s.turn)

    def _end_activation(self, ctx: Ctx) -> None:
        s = ctx.s
        if s.activation is not None and ctx.activations is not None:
            ctx.activations.append((s.activation, s.model_copy(deep=True)))
            ctx.activation_events.append(len(ctx.events))
        s.activation = None

    def _end_game_turn(self, ctx: Ctx) -> None:
        s = ctx.s
        self._end_activation(ctx)
        ctx.ev("turn_end", f"End of turn {s.turn}.", turn=s.turn)
        if s.turn >= ctx.track.race_turns or not any(c.running for c in s.cars):
            s.phase = "finished"
            order = race_order(ctx)
            win = s.cars[order[0]].name if order else "nobody"
            ctx.ev("finish", f"The race is over: {win} wins.", order=order)
            return
        s.turn += 1
        self._begin_game_turn(ctx)

    # robots -------------------------------------------------------------------------------

    def _robot_weather_tyre(self, ctx: Ctx) -> str | None:
        """The tyres robots want in this weather (hard for dry, wet for rain), None in the
        middle space (robots keep their tyres there, Paddock rule)."""
        space = ctx.tables.weather.spaces[ctx.s.weather]
        closest = space.closest if space.state == "uncertain" else space.state
        if closest == "middle":
            return None
        return "hard" if closest == "dry" else "wet"

    def _robots_weather(self, ctx: Ctx) -> None:
        """After a weather change: robots whose tyres no longer suit the weather stop again (HTP,
        Fuel Management: robots pit once "unless weather changes"), at most
        `robots.weather_stops` times per race (Paddock rule; a fuel stop also fits the weather's
        tyres and is not counted). A change back cancels a stop not yet made."""
        tyre = self._robot_weather_tyre(ctx)
        if tyre is None:
            return
        limit = ctx.tables.robots.weather_stops
        for car in ctx.s.cars:
            if not (car.is_robot and car.running):
                continue
            if car.tyre == tyre:
                if car.robot_weather_pit is not None:
                    car.robot_weather_pit = None
                    ctx.ev("robot_tyres", f"{car.name} keeps its {tyre} tyres.", car=car.id)
                continue
            if car.robot_weather_stops >= limit:
                continue
            if car.robot_weather_pit != tyre:
                car.robot_weather_pit = tyre  # type: ignore[assignment]
                ctx.ev("robot_tyres", f"{car.name} will pit for {tyre} tyres.", car=car.id)

    def _robot_late_brake(self, ctx: Ctx, car: Car) -> None:
        """A robot ending its move at a late brake point behind another car tries to pass it:
        blind check against the printed target; a failure has no cost (Paddock rule)."""
        sec = ctx.track.sections[car.section]
        lst = ctx.s.sections[car.section]
        if car.off_track or sec.late_brake is None or lst.index(car.id) == 0:
            return
        cid = draw_race(ctx)
        cf = ctx.cards[cid].check_factor if cid is not None else 99
        if cid is not None:
            ctx.s.race_discard.append(cid)
        ok = cf < sec.late_brake.target
        ctx.ev(
            "check",
            f"{car.name}: Late braking check {cf} vs {sec.late_brake.target}: "
            + ("passed." if ok else "failed."),
            car=car.id,
            ok=ok,
        )
        if ok:
            lst.remove(car.id)
            lst.insert(0, car.id)
            ctx.ev("late_brake", f"{car.name} brakes late and passes.", car=car.id)

    def _robot_turn_action(self, ctx: Ctx, a: Action) -> None:
        assert isinstance(a, RobotTurn)
        s = ctx.s
        if s.robot_next is None or a.car != s.robot_next:
            raise IllegalAction(f"It is not car {a.car}'s turn.")
        s.robot_next = None
        self._robot_turn(ctx, s.cars[a.car])

    def _robot_turn(self, ctx: Ctx, car: Car) -> None:
        s, rt = ctx.s, ctx.tables.robots
        assert car.robot is not None
        if car.off_track and car.robot_pit_due:  # it cannot pit from off the track
            retire(ctx, car, "out of fuel", "off track on its refuelling turn")
            return
        if (car.robot_pit_due or car.robot_weather_pit) and not car.off_track:
            if car.robot_pit_due:
                car.robot_pitted = True
                tyre = self._robot_weather_tyre(ctx)  # a fuel stop fits the weather's tyres
                if tyre is not None:
                    car.tyre = tyre  # type: ignore[assignment]
            elif car.robot_weather_pit:
                car.robot_weather_stops += 1
            car.robot_pit_due = False
            if car.robot_weather_pit:
                car.tyre = car.robot_weather_pit
                car.robot_weather_pit = None
            car.pit_stops += 1
            car.trajectory = None
            move_back(ctx, car, ctx.track.pit_sections)
            ctx.ev("pit", f"{car.name} pits.", car=car.id)
        elif self._robot_mistake(ctx, car):
            car.mark = "ended"
            return
        mp = rt.speed[car.robot]
        if car.off_track:  # re-entering after running wide: the off-track penalty
            mp -= car.off_penalty
            car.off_penalty = 0
        if car.trajectory:
            mp += ctx.track.trajectory(car.trajectory).bonus
            car.trajectory = None
        if ctx.track.sections[car.section].kind == "curve" and not car.off_track:
            mp += rt.corner_bonus[car.robot]
        if safety_car(ctx):
            mp = min(mp, ctx.tables.flags.safety_car_max_mp)
        car.last_mp = mp
        steps = move(ctx, car, mp)
        ctx.ev(
            "move",
            f"{car.name} moves {steps} section(s).",
            car=car.id,
            mp=mp,
            steps=steps,
            turn=s.turn,
        )
        car.mark = "ended"
        if car.running:
            self._robot_late_brake(ctx, car)
        blue_flag_yield(ctx, car)
        self._occupy_best(ctx, car, allow_extreme=False)

    def _robot_mistake(self, ctx: Ctx, car: Car) -> bool:
        """A robot starting its turn in a curve with an off-track trajectory reveals the top Race
        card and runs wide on a high check factor (Paddock rule, `off_track.robot_mistake_from`);
        it pays nothing and ignores the card symbol (EXP, Off-track Discard Card symbol)."""
        sec = ctx.track.sections[car.section]
        limit = ctx.tables.off_track.robot_mistake_from
        if car.off_track or sec.kind != "curve" or sec.off_track is None or limit > 99:
            return False
        cid = draw_race(ctx)
        if cid is None:
            return False
        ctx.s.race_discard.append(cid)
        if ctx.cards[cid].check_factor < limit:
            return False
        ctx.ev("runs_wide", f"{car.name} runs wide at {sec.name}.", car=car.id)
        car.trajectory = None
        go_off_track(ctx, car, sec.index)
        no_move(ctx, car)
        return True

    def _occupy_best(self, ctx: Ctx, car: Car, allow_extreme: bool) -> None:
        if car.off_track or not car.running:
            return
        free = self.free_trajectories(ctx.s, car.section)
        free = [t for t in free if allow_extreme or ctx.track.trajectory(t).kind != "extreme"]
        if free:
            best = max(free, key=lambda t: (ctx.track.trajectory(t).bonus, t))
            car.trajectory = best

    def free_trajectories(self, state: RF90State, section: int) -> list[str]:
        track = cat.track(state.track)
        taken = {c.trajectory for c in state.cars if c.trajectory and c.running}
        return [t.id for t in track.sections[section].trajectories if t.id not in taken]

    # individual turns (players) -----------------------------------------------------------

    def _begin_individual(self, ctx: Ctx, car: Car) -> None:
        s = ctx.s
        if car.off_track and car.fuel_turn <= s.turn:
            retire(ctx, car, "out of fuel", "off track on its refuelling turn")
            return
        ahead = [c for c in race_order(ctx)]
        idx = ahead.index(car.id)
        s.pending = Pending(
            car=car.id,
            phase="A",
            trajectory=car.trajectory,
            start_section=car.section,
            start_lap=car.lap,
            ahead_at_start=ahead[:idx],
        )

    def _require_pending(self, ctx: Ctx, seat: int, phase: str) -> Car:
        p = ctx.s.pending
        if p is None or ctx.s.duel is not None:
            raise IllegalAction("There is no individual turn in progress.")
        car = ctx.s.cars[p.car]
        if car.seat != seat:
            raise NotYourTurn()
        if p.phase != phase:
            names = {"A": "start your turn", "B": "play your cards", "E": "end your turn"}
            raise IllegalAction(f"Now you must {names[p.phase]}.")
        return car

    def _start_turn(self, ctx: Ctx, a: Action) -> None:
        assert isinstance(a, StartTurn)
        s = ctx.s
        car = self._require_pending(ctx, a.seat, "A")
        p = s.pending
        assert p is not None
        must_pit = car.fuel_turn <= s.turn
        if must_pit and a.pit is None:
            raise IllegalAction(f"Your refuelling chit is on turn {s.turn}: you must pit now.")
        if a.skip and a.pit is not None:
            raise IllegalAction("You cannot skip the turn and pit.")
        if a.new_strategy is not None:
            if a.new_strategy not in cat.strategy_ids():
                raise IllegalAction(f"Unknown strategy {a.new_strategy!r}.")
            if not (a.skip or car.skill == "versatility"):
                raise IllegalAction("Change strategy by skipping the turn or in a pit stop.")
        check_off_track_pay(car, a.off_track_pay)
        if a.extreme and (
            p.trajectory is None or ctx.track.trajectory(p.trajectory).kind != "extreme"
        ):
            raise IllegalAction("You are not on an Extreme Trajectory.")
        if a.wise_driving is not None:
            if car.skill != "wise_driving" or car.wise_used:
                raise IllegalAction("Wise Driving is not available now.")
            if any(c not in car.hand or c > cat.TRACK_CARD_BASE for c in a.wise_driving):
                raise IllegalAction("Wise Driving discards Race cards from your hand only.")
            if len(set(a.wise_driving)) != len(a.wise_driving):
                raise IllegalAction("Name each card to discard with Wise Driving once.")
            if a.save_fuel_discard in a.wise_driving:
                raise IllegalAction("A card discarded with Wise Driving cannot pay Save Fuel too.")
        if a.save_fuel_discard is not None:
            if car.strategy != "save_fuel":
                raise IllegalAction("Only Save Fuel lets you discard to draw two cards.")
            if a.save_fuel_discard not in car.hand or ctx.cards[a.save_fuel_discard].mp <= 2:
                raise IllegalAction("Discard a card with more than 2 MP from your hand.")
        if a.new_strategy is not None:
            car.strategy = a.new_strategy
        if a.skip:
            car.mark = "skipped"
            car.trajectory = None
            s.pending = None
            ctx.ev("skip", f"{car.name} skips the turn.", car=car.id, turn=s.turn)
            blue_flag_yield(ctx, car)
            return
        if a.wise_driving is not None:
            for cid in a.wise_driving:
                car.hand.remove(cid)
                discard(ctx, cid)
            races = sum(1 for c in car.hand if c <= cat.TRACK_CARD_BASE)
            give_race_cards(ctx, car, max(0, hand_limit(car) - races))
            car.wise_used = True
            ctx.ev("wise_driving", f"{car.name} uses Wise Driving.", car=car.id)
        if a.pit is not None:
            self._pit(ctx, car, a.pit)
            p.trajectory = None
        if a.extreme:
            assert p.trajectory is not None
            traj = ctx.track.trajectory(p.trajectory)
            assert traj.target is not None
            ok = blind_check(ctx, car, traj.target + bonus_to_checks(car), "Extreme Trajectory")
            if ok:
                p.extreme_ok = True
            else:
                car.trajectory = None
                p.trajectory = None
                corner = ctx.track.next_corner(car.section)
                if corner is not None and corner.off_track is not None:
                    # off the track: the turn ends at the re-entry point (phase E), no draw
                    go_off_track(ctx, car, corner.index, a.off_track_pay)
                    if car.running:
                        no_move(ctx, car)
                        p.phase = "E"
                        return
                else:
                    take_damage(ctx, car, 1)
                if not car.running:
                    s.pending = None
                    return
        # phase B: draw
        if a.save_fuel_discard is not None:
            car.hand.remove(a.save_fuel_discard)
            discard(ctx, a.save_fuel_discard)
            n = 2
        else:
            n = 1
        before = len(car.hand)
        give_race_cards(ctx, car, n)
        p.drawn = car.hand[before:]
        p.phase = "B"

    def _pit(self, ctx: Ctx, car: Car, pit: PitStop) -> None:
        s, fuel = ctx.s, ctx.tables.fuel
        if pit.strategy is not None and pit.strategy not in cat.strategy_ids():
            raise IllegalAction(f"Unknown strategy {pit.strategy!r}.")
        if car.off_track:
            raise IllegalAction("You cannot pit from off the track.")
        back = ctx.track.pit_sections - (2 if car.skill == "pitting" else 0)
        car.trajectory = None
        move_back(ctx, car, max(1, back) + pit.extra_sections)
        car.fuel_turn = s.turn + fuel.per_stop + fuel.per_extra_section * pit.extra_sections
        s.bag_red += car.damage_red
        car.damage_red = 0
        fit_tyres(ctx, car, pit.tyres)
        if pit.strategy:
            car.strategy = pit.strategy
        car.wise_used = False
        if car.skill == "wise_driving":
            have = sum(1 for c in car.hand if c <= cat.TRACK_CARD_BASE)
        else:
            have = len(car.hand)
        give_race_cards(ctx, car, max(0, hand_limit(car) - have))
        if car.skill == "pitting":
            give_track_cards(ctx, car, 2, " (Pitting)")
        car.pit_stops += 1
        chit, over = fuel_chit(s, car)
        ctx.ev(
            "pit",
            f"{car.name} pits: fuel to turn {car.fuel_turn}"
            + (f" (chit on {chit}, over the top)" if over else "")
            + ".",
            car=car.id,
            fuel_turn=car.fuel_turn,
        )

    def _play_cards(self, ctx: Ctx, a: Action) -> None:
        assert isinstance(a, PlayCards)
        s = ctx.s
        car = self._require_pending(ctx, a.seat, "B")
        p = s.pending
        assert p is not None
        cards = a.cards
        if len(set(cards)) != len(cards) or any(c not in car.hand for c in cards):
            raise IllegalAction("Play one or two cards from your hand.")
        played = [ctx.cards[c] for c in cards]
        push_pair = False
        if len(played) == 2:
            ok, push_pair = can_pair(played[0], played[1], car.strategy == "push")
            if not ok:
                raise IllegalAction(
                    "Those two cards cannot be played together "
                    "(pair a +1 with any card, or two +2 cards)."
                )
        rest = [c for c in car.hand if c not in cards]
        if len(set(a.tyre_cards)) != len(a.tyre_cards) or any(c not in rest for c in a.tyre_cards):
            raise IllegalAction("Pay tyres with cards from your hand that you are not playing.")
        traj = ctx.track.trajectory(p.trajectory) if p.trajectory else None
        use_traj = bool(a.use_trajectory and traj is not None)
        if use_traj and traj is not None:
            if not any(c.colour in traj.colours for c in played):
                use_traj = False  # no card of the trajectory's colour: no bonus, no cost
            if traj.kind == "extreme" and not p.extreme_ok:
                use_traj = False
        sharp = use_traj and traj is not None and traj.kind == "sharp"
        sharp_cost = traj.cost if (sharp and traj is not None) else cat.Cost()
        sharp_discard: int | None = None
        if sharp_cost.cards:
            pool = [c for c in rest if c not in a.tyre_cards]
            if not pool:
                raise IllegalAction(
                    "This Sharp Trajectory needs a card to discard: play without it."
                )
            if a.sharp_discard is None:  # not chosen: the lowest card
                sharp_discard = min(pool, key=lambda c: (ctx.cards[c].mp, c))
            elif a.sharp_discard in pool:
                sharp_discard = a.sharp_discard
            else:
                raise IllegalAction(
                    "Discard for the Sharp Trajectory a card you neither play nor pay tyres with."
                )
        if a.blue_bonus and car.blue <= 0:
            raise IllegalAction("You have no +1 MP blue disc.")
        if (
            car.strategy == "save_fuel"
            and a.save_fuel_choice == "fuel"
            and all(c.mp <= 2 for c in played)
            and not fuel_room(ctx, car)
        ):
            raise IllegalAction(
                f"Your tank holds at most {max_fuel(ctx)} turns of fuel: take the Track card."
            )
        check_off_track_pay(car, a.off_track_pay)
        if a.off_track_pay is not None and set(cards) & {
            *a.off_track_pay.tyre_cards,
            a.off_track_pay.discard,
        }:
            raise IllegalAction("Pay off-track costs with cards you are not playing.")
        # Phase B ends: the cards are played
        for cid in cards:
            car.hand.remove(cid)
        car.trajectory = None
        if push_pair:
            car.fuel_turn -= 1
            ctx.ev("push", f"{car.name} pushes: refuelling chit one turn earlier.", car=car.id)
            if car.fuel_turn <= s.turn:
                for cid in cards:
                    discard(ctx, cid)
                retire(ctx, car, "out of fuel", "the refuelling chit reached the current turn")
                s.pending = None
                return
        # Phase C: pay resources
        tyres = sum(c.tyres for c in played) + sharp_cost.tyres
        asked = tyres
        if car.strategy == "save_tyres" and tyres > 0:
            tyres -= 1
        balance = 0
        if a.balance_damage:
            if car.strategy != "balance" or tyres <= 0:
                raise IllegalAction("Only Balance pays a tyre with a damage disc, with tyres due.")
            tyres -= 1
            balance = 1
        by_cards = min(len(a.tyre_cards), tyres)
        for cid in a.tyre_cards[:by_cards]:
            car.hand.remove(cid)
            discard(ctx, cid)
        chips = min(car.chips, tyres - by_cards)
        car.chips -= chips
        short = tyres - by_cards - chips
        damage = sum(c.damage for c in played) + sharp_cost.damage + short + balance
        if sharp_discard is not None:
            car.hand.remove(sharp_discard)
            discard(ctx, sharp_discard)
        ctx.ev(
            "pay",
            f"{car.name} pays {tyres} tyre(s): {chips} chip(s) and {by_cards} card(s).",
            car=car.id,
            tyres=tyres,
            chips=chips,
            cards=by_cards,
        )
        drawn_damage = take_damage(ctx, car, damage) if damage else 0
        if not car.running:
            for cid in cards:
                discard(ctx, cid)
            s.pending = None
            return
        # phase C in EXP's order: pay, perform checks, draw cards, play flags, change weather
        mp_cards = 0
        blind = False
        wide = False  # a failed green check in a corner with an off-track trajectory
        target = target_check(ctx, car)
        for c in played:
            if c.check:
                blind = True
                if not blind_check(ctx, car, target, f"{c.colour} +{c.mp}"):
                    wide = wide or runs_wide_here(ctx, car)
                    continue
            mp_cards += c.mp
        give_race_cards(ctx, car, sum(c.draw for c in played))
        if any(c.flag for c in played) and car.section not in s.yellow_flags:
            s.yellow_flags.append(car.section)
            ctx.ev(
                "yellow_flag", f"{car.name} shows a yellow flag.", car=car.id, section=car.section
            )
        weather = sum(c.weather for c in played)
        if weather:
            nspaces = len(ctx.tables.weather.spaces)
            s.weather = max(0, min(nspaces - 1, s.weather + weather))
            ctx.ev("weather", f"Weather: {ctx.tables.weather.spaces[s.weather].name}.")
            self._robots_weather(ctx)
        # Specials
        small = all(c.mp <= 2 for c in played)
        if car.strategy == "push" and chips >= 2 and by_cards == 0:
            give_track_cards(ctx, car, 1, " (Push special)")
        if car.strategy == "save_fuel" and small:
            if a.save_fuel_choice == "fuel":
                car.fuel_turn += 1
                ctx.ev("save_fuel", f"{car.name} saves fuel: chit one turn later.", car=car.id)
            else:
                give_track_cards(ctx, car, 1, " (Save Fuel special)")
        if car.strategy == "save_tyres" and asked > 0 and tyres == 0:
            give_track_cards(ctx, car, 1, " (Save Tyres special)")
        if car.strategy == "balance" and tyres >= 1 and tyres == drawn_damage:
            give_track_cards(ctx, car, 1, " (Balance special)")
        if car.strategy == "lucky" and any(  # a pair: the draw and another card played
            ctx.cards[d].mp in {c.mp for c in played if c.id != d} for d in p.drawn
        ):
            give_track_cards(ctx, car, 1, " (Lucky special)")
        if (
            car.strategy == "consistency"
            and len(played) == 2
            and played[0].colour == played[1].colour
        ):
            give_track_cards(ctx, car, 1, " (Consistency special)")
        # Phase D: movement
        if wide:
            for cid in cards:
                discard(ctx, cid)
            ctx.ev("runs_wide", f"{car.name} loses control and runs wide.", car=car.id)
            go_off_track(ctx, car, car.section, a.off_track_pay)
            no_move(ctx, car)
            if not car.running:
                s.pending = None
                return
            p.phase = "E"
            return
        mp = mp_cards
        if use_traj and traj is not None:
            mp += traj.bonus
        if a.blue_bonus:
            car.blue -= 1
            mp += 1
        if car.strategy == "hazard":
            mp += drawn_damage
        mp += weather_modifier(ctx, car)
        hurt = damage_penalty(car)
        if hurt:
            mp -= hurt
            ctx.ev("damaged", f"{car.name} is damaged: {hurt} MP less.", car=car.id, mp=-hurt)
        slip_ahead: list[int] = []
        if car.strategy == "slipstream" and not car.off_track:
            # in the wake of a car in the section ahead, on a straight or braking section
            slip_ahead = list(s.sections[(car.section + 1) % ctx.track.length])
            if slip_ahead and ctx.track.sections[car.section].kind != "curve":
                mp += 1
        chasing = not car.off_track and s.sections[car.section].index(car.id) > 0
        if car.strategy == "chase" and chasing:  # a car in front of it, in its own section
            mp += 1
        if car.off_track:
            mp -= car.off_penalty
            car.off_penalty = 0
        mp = max(0, mp)
        if safety_car(ctx):
            mp = min(mp, ctx.tables.flags.safety_car_max_mp)
        if car.strategy == "hazard" and mp >= 6 and (drawn_damage or blind):
            give_track_cards(ctx, car, 1, " (Hazard special)")
        for cid in cards:
            discard(ctx, cid)
        car.last_mp = mp
        steps = move(ctx, car, mp, unlap=a.unlap)
        ctx.ev(
            "move",
            f"{car.name} moves {steps} section(s) with {mp} MP.",
            car=car.id,
            mp=mp,
            steps=steps,
            turn=s.turn,
        )
        if car.strategy in ("chase", "slipstream"):
            passed = [c for c in p.ahead_at_start if s.cars[c].running]
            if (
                car.strategy == "chase"
                and steps > 0
                and any(
                    s.cars[c].section == car.section and not s.cars[c].off_track for c in passed
                )
            ):
                give_track_cards(ctx, car, 1, " (Chase special)")
            if (
                car.strategy == "slipstream"
                and car.running
                and self._passed_on_track(ctx, car, steps, slip_ahead)
            ):
                give_track_cards(ctx, car, 1, " (Slipstream special)")
        p.phase = "E"

    def _passed_on_track(self, ctx: Ctx, car: Car, steps: int, ahead: list[int]) -> bool:
        """Whether a car that moved `steps` sections now stands ahead, on the track (laps do not
        count), of one of the cars that were in the section right ahead of it."""
        if steps > 1:
            return bool(ahead)
        if steps == 1:  # same section: in front of it (passing a car that skipped its turn)
            lst = ctx.s.sections[car.section]
            return any(c in lst and lst.index(car.id) < lst.index(c) for c in ahead)
        return False

    def _end_turn(self, ctx: Ctx, a: Action) -> None:
        assert isinstance(a, EndTurn)
        s = ctx.s
        car = self._require_pending(ctx, a.seat, "E")
        sec = ctx.track.sections[car.section]
        check_off_track_pay(car, a.off_track_pay)
        if a.late_brake and (car.off_track or sec.late_brake is None):
            raise IllegalAction("There is no late braking point here.")
        if a.trajectory is not None and (
            car.off_track or a.trajectory not in self.free_trajectories(s, car.section)
        ):
            raise IllegalAction("That trajectory is not free in your section.")
        if a.late_brake and sec.late_brake is not None:
            target = sec.late_brake.target + bonus_to_checks(car)
            if blind_check(ctx, car, target, "Late braking"):
                s.sections[car.section].remove(car.id)
                s.sections[car.section].insert(0, car.id)
                ctx.ev("late_brake", f"{car.name} brakes late and passes.", car=car.id)
            else:
                corner = ctx.track.next_corner(car.section)
                if corner is not None and corner.off_track is not None:
                    go_off_track(ctx, car, corner.index, a.off_track_pay)
                else:
                    take_damage(ctx, car, 1)
        if (
            car.running
            and not car.off_track
            and a.trajectory is not None
            and a.trajectory in self.free_trajectories(s, car.section)
        ):
            car.trajectory = a.trajectory
        car.mark = "ended"
        s.pending = None
        blue_flag_yield(ctx, car)

    # duels --------------------------------------------------------------------------------

    def _duel_asking_order(self, duel: Duel) -> list[int]:
        """Who is asked, in order: from the back until a challenger, then those ahead of it."""
        return list(reversed(duel.order))

    def _duel_next(self, s: RF90State) -> int | None:
        """The car whose answer the duel waits for (None when nobody)."""
        d = s.duel
        if d is None:
            return None
        if d.stage == "declare":
            for cid in self._duel_asking_order(d):
                if cid not in d.asked:
                    return cid
            return None
        for cid in [d.challenger, *d.joined]:
            if cid is not None and cid not in d.cards:
                return cid
        return None

    @staticmethod
    def _duel_pickers(duel: Duel) -> list[int]:
        """The cars in the duel that have not put their cards down yet."""
        return [c for c in [duel.challenger, *duel.joined] if c is not None and c not in duel.cards]

    def _duel_auto(self, ctx: Ctx) -> bool:
        """Answer for robots; resolve when complete. True when a player must answer."""
        s = ctx.s
        while s.duel is not None:
            d = s.duel
            cid = self._duel_next(s)
            if cid is None:
                if d.stage == "declare":
                    if d.challenger is None:
                        s.duel = None
                        return False
                    d.stage = "cards"
                    continue
                self._resolve_duel(ctx)
                return False
            car = s.cars[cid]
            if (
                d.stage == "declare"
                and d.challenger is not None
                and ctx.tables.lapping.lapped_car_yields
                and must_yield(car, s.cars[d.challenger])
            ):
                self._duel_answer(ctx, cid, join=False)
                ctx.ev(
                    "blue_flag_yield",
                    f"{car.name} is lapped and may not fight "
                    f"{s.cars[d.challenger].name}: it refuses the duel.",
                    car=cid,
                    passed_by=[d.challenger],
                )
                continue
            if d.stage == "cards":
                # Robots draw theirs at once (in the same order as one by one: a person's
                # pick takes nothing from the deck); then the people pick, in any order.
                for robot in [c for c in self._duel_pickers(d) if s.cars[c].is_robot]:
                    top = draw_race(ctx)
                    d.cards[robot] = [top] if top is not None else []
                if self._duel_pickers(d):
                    return True
                continue
            if not car.is_robot:
                return True
            self._duel_answer(ctx, cid, join=d.challenger is not None)
        return False

    def _duel_answer(self, ctx: Ctx, cid: int, join: bool) -> None:
        d = ctx.s.duel
        assert d is not None
        d.asked.append(cid)
        if d.challenger is None:
            if join:
                d.challenger = cid
                ctx.ev("duel", f"{ctx.car(cid).name} challenges.", car=cid)
        elif join:
            d.joined.append(cid)
        else:
            d.refused.append(cid)

    def _duel_declare(self, ctx: Ctx, a: Action) -> None:
        assert isinstance(a, DuelDeclare)
        s = ctx.s
        d = s.duel
        if d is None or d.stage != "declare":
            raise IllegalAction("No duel is being declared.")
        cid = self._duel_next(s)
        if cid is None or s.cars[cid].seat != a.seat:
            raise NotYourTurn()
        self._duel_answer(ctx, cid, a.join)

    def _duel_cards(self, ctx: Ctx, a: Action) -> None:
        assert isinstance(a, DuelCards)
        s = ctx.s
        d = s.duel
        if d is None or d.stage != "cards":
            raise IllegalAction("No duel is waiting for cards.")
        picking = [c for c in self._duel_pickers(d) if s.cars[c].seat == a.seat]
        if not picking:
            raise NotYourTurn()
        cid = picking[0]
        car = s.cars[cid]
        if len(set(a.cards)) != len(a.cards) or any(c not in car.hand for c in a.cards):
            raise IllegalAction("Play up to two cards from your hand, face down.")
        for c in a.cards:
            car.hand.remove(c)
        d.cards[cid] = list(a.cards)

    def _resolve_duel(self, ctx: Ctx) -> None:
        s = ctx.s
        d = s.duel
        assert d is not None and d.challenger is not None
        sec = ctx.track.sections[d.section]
        assert sec.corner is not None
        mods = sec.corner.duel_modifiers
        lst = s.sections[d.section]
        totals: dict[int, int] = {}
        ch = s.cars[d.challenger]
        if not ch.is_robot and any(ctx.cards[c].colour == "orange" for c in d.cards.get(ch.id, [])):
            # an orange card forces the robots behind the challenger to contest (designer's FAQ)
            ci = d.order.index(d.challenger)
            forced = [c for c in d.order[ci + 1 :] if s.cars[c].is_robot and c not in d.cards]
            for cid in forced:
                top = draw_race(ctx)
                d.cards[cid] = [top] if top is not None else []
                d.joined.append(cid)
            if forced:
                names = ", ".join(s.cars[c].name for c in forced)
                ctx.ev("duel_forced", f"{names} forced to contest.", cars=forced)
        participants = [c for c in [d.challenger, *d.joined] if d.cards.get(c)]
        for cid in participants:
            pos = lst.index(cid)
            total = sum(ctx.cards[c].mp for c in d.cards[cid])
            if pos > 0:
                total += mods[min(pos, len(mods) - 1)]
            if s.cars[cid].strategy == "banging_wheels":
                total += 3
            totals[cid] = total
        # in the duel's order, not the order the cards were put down (picks are at once)
        seated = [c for c in [d.challenger, *d.joined] if c in d.cards]
        for cid in [*seated, *(c for c in d.cards if c not in seated)]:
            for c in d.cards[cid]:
                discard(ctx, c)
        ci = d.order.index(d.challenger)
        behind = [c for c in d.order[ci + 1 :] if c not in participants]
        refusers = [c for c in d.order[:ci] if c not in participants]
        if d.challenger not in participants:
            refusers = [*refusers, d.challenger]
            refusers.sort(key=d.order.index)
        ranked = sorted(participants, key=lambda c: (-totals[c], d.order.index(c)))
        new_order = ranked + refusers + behind
        slots = sorted(lst.index(c) for c in d.order)
        for slot, cid in zip(slots, new_order, strict=True):
            lst[slot] = cid
        text = ", ".join(f"{s.cars[c].name} {totals[c]}" for c in ranked)
        ctx.ev("duel_result", f"Duel at {sec.corner.name}: {text}.", totals=totals, order=new_order)
        for cid in ranked:
            car = s.cars[cid]
            if car.strategy == "banging_wheels" and new_order.index(cid) < d.order.index(cid):
                give_track_cards(ctx, car, 1, " (Banging Wheels special)")
        s.duel = None

    # results and views --------------------------------------------------------------------

    def race_classification(self, state: RF90State) -> list[Car]:
        ctx = Ctx(state)
        running = [state.cars[c] for c in race_order(ctx)]
        out = sorted(
            (c for c in state.cars if not c.running),
            key=lambda c: (-(c.out_turn or 0), c.id),
        )
        return running + out

    def classification(self, state: RF90State) -> list[Placing]:
        out = []
        for place, car in enumerate(self.race_classification(state), start=1):
            if car.seat is not None:
                status = "finished" if car.running else car.status
                out.append(Placing(seat=car.seat, place=place, status=status))
        return out

    def public_view(self, state: RF90State) -> dict[str, Any]:
        data = state.model_dump(mode="json", exclude={"rng"})
        hide_quals = state.phase in ("setup", "qualifying")
        for car in data["cars"]:
            car["hand"] = len(car["hand"])
            if hide_quals:
                car["qual_card"] = None
                car["qual_fuel"] = None
        data["race_draw"] = len(state.race_draw)
        data["track_draw"] = len(state.track_draw)
        # counts only: a substitute car's discarded hand is not shown (HTP, Substitute Car)
        data["race_discard"] = len(state.race_discard)
        data["track_discard"] = len(state.track_discard)
        if data["pending"] is not None:
            data["pending"]["drawn"] = len(data["pending"]["drawn"])
        if data["duel"] is not None:
            data["duel"]["cards"] = {k: len(v) for k, v in data["duel"]["cards"].items()}
        data["leader"] = leader(Ctx(state)) if state.phase in ("race", "finished") else None
        return data

    def seat_view(self, state: RF90State, seat: int) -> dict[str, Any]:
        data = self.public_view(state)
        car = self.seat_car(state, seat)
        mine = data["cars"][car.id]
        mine["hand"] = list(car.hand)
        mine["qual_card"] = car.qual_card
        mine["qual_fuel"] = car.qual_fuel
        if state.pending is not None and state.pending.car == car.id:
            data["pending"]["drawn"] = list(state.pending.drawn)
        if state.duel is not None and car.id in state.duel.cards:
            data["duel"]["cards"][str(car.id)] = list(state.duel.cards[car.id])
        return data

    # robots for player seats ---------------------------------------------------------------

    def legal_actions(self, state: RF90State, seat: int) -> list[Action]:
        from rules.rf90.robot import legal_actions

        return legal_actions(self, state, seat)

    def robot_action(self, state: RF90State, seat: int) -> Action:
        from rules.rf90.robot import robot_action

        return robot_action(self, state, seat)

    def simulation_config(
        self, players: int | None = None, track: str | None = None, **_: Any
    ) -> dict[str, Any]:
        n = 4 if players is None else players
        if not 0 <= n <= 6:
            raise ValueError("RF90 simulations take 0 to 6 players")
        return {"track": track or "barcelona", "players": [{} for _ in range(n)]}

    def simulate(self, seed: int, **options: Any) -> dict[str, Any]:
        from rules.rf90.simulate import simulate

        return simulate(self, seed, **options)
