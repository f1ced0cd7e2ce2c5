"""The Waddington's Formula 1 engine: new_game, apply, legal actions, views, classification.

Section references (§) are to rules-sources/waddingtons-formula1-1962.txt; see
docs/rules/waddington.md for the rules as Paddock plays them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import TypeAdapter

from rules.base import Action, Event, Game, Placing
from rules.errors import IllegalAction, NotYourTurn
from rules.rng import Rng
from rules.waddington.catalog import PIT_LANE, VERGE_LANE, Card, catalog
from rules.waddington.movement import (
    Destination,
    band_passes,
    find_destinations,
)
from rules.waddington.spec import SPEC
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
    WaddingtonState,
)

MAX_SEATS = 6
MAX_SEATS_EXTENDED = 8


def _ev(kind: str, text: str, **data: Any) -> Event:
    return Event(kind=kind, text=text, data=data)


def parse_settings(config: dict[str, Any]) -> tuple[Settings, list[tuple[str, bool]]]:
    """Validate a race config; returns the settings and (name, robot) for each seat."""
    race = catalog().race
    known = {"players", "count", "laps", "soft_tactic_after_dice", "soft_spin_tyres"}
    known |= {"more_than_six", "public_card_window"}
    unknown = set(config) - known
    if unknown:
        raise IllegalAction(f"Unknown race setting: {', '.join(sorted(unknown))}.")
    laps = config.get("laps", race.default_laps)
    if not isinstance(laps, int) or not race.min_laps <= laps <= race.max_laps:
        raise IllegalAction(f"Laps must be between {race.min_laps} and {race.max_laps}.")
    settings = Settings(
        laps=laps,
        soft_tactic_after_dice=bool(config.get("soft_tactic_after_dice", False)),
        soft_spin_tyres=bool(config.get("soft_spin_tyres", False)),
        more_than_six=bool(config.get("more_than_six", False)),
        public_card_window=bool(config.get("public_card_window", False)),
    )
    players = config.get("players")
    seats: list[tuple[str, bool]] = []
    if players is None:
        count = config.get("count", 2)
        if not isinstance(count, int):
            raise IllegalAction("The number of cars must be a whole number.")
        seats = [(f"Driver {i + 1}", False) for i in range(count)]
    else:
        for i, p in enumerate(players):
            if isinstance(p, str):
                seats.append((p, False))
            elif isinstance(p, dict):
                seats.append((str(p.get("name", f"Driver {i + 1}")), bool(p.get("robot", False))))
            else:
                raise IllegalAction("Each player is a name or {name, robot}.")
    limit = MAX_SEATS_EXTENDED if settings.more_than_six else MAX_SEATS
    if not 1 <= len(seats) <= limit:
        raise IllegalAction(f"A race takes 1 to {limit} cars.")
    return settings, seats


def lap_indicator(state: WaddingtonState, car: Car) -> int:
    """Laps still to run (§D rules 16-17)."""
    return max(0, state.settings.laps - car.dist // catalog().length)


def speed_options(state: WaddingtonState, car: Car) -> list[int]:
    """Speeds the car may set now (§C rule 15, §G rule 21, §J rules 38-40, §M pit cards)."""
    race = catalog().race
    step = race.speed_step
    cur = car.speed
    if car.lane == VERGE_LANE and cur == 0:
        return [race.restart_speed]  # §I rule 37: proceed at the starting speed of 60 mph
    hi = min(race.max_speed, cur + race.max_acceleration)
    if car.lane == PIT_LANE and car.burst:
        hi = max(hi, 120)
    if car.lane in (PIT_LANE, VERGE_LANE):
        hi = min(hi, race.baulked_restart_max)  # §K rule 44: move off at up to 120 mph
    out = []
    for sp in range(step, hi + 1, step):
        if sp < cur and _reduction_refusal(car, cur - sp) is not None:
            continue
        out.append(sp)
    return out


def _certain(c: Crossing) -> bool:
    """§I rules 30 and 32: a band crossed 60 mph or more over its safety speed, or over it
    with the tyre wear gauge at 8, spins the car whatever the dice would say. Judged as the
    car crossed the band: at that speed, on those tyres."""
    return c.speed - c.safety >= 60 or c.worn


def _spin_certain(t: TurnState, car: Car) -> bool:
    """The car spins off this move whatever the dice say (a band already passed, §I rules 30
    and 32, or a baulk it cannot brake for, rules 31 and 35), so §L rule 45 allows no
    Tactic card."""
    return t.verge_spin or any(_certain(c) for c in t.pending)


def _reduction_refusal(car: Car, reduction: int) -> str | None:
    """Why a voluntary reduction is not possible, or None when it is."""
    race = catalog().race
    if car.special_brakes or reduction <= race.speed_step:
        return None
    if car.tyre >= race.max_tyre_wear and reduction > 40:
        return "Your tyres are worn out (tyre wear 8): you can slow by 40 mph at most."
    cost = race.reduction_cost(reduction)
    if car.brake + cost.brake > race.max_brake_wear:
        return (
            f"Your brakes can't take that: with brake wear {car.brake} you can't slow by "
            f"{reduction} mph (it costs brake wear {cost.brake})."
        )
    return None


def _fork(state: WaddingtonState) -> WaddingtonState:
    """A copy that apply may mutate: like model_copy(deep=True), but only the parts apply
    ever changes are copied (the rest - settings, order, start throws, crossings - is never
    mutated in place), which keeps robot simulations fast."""
    s = state.model_copy()
    s.rng = state.rng.model_copy()
    s.cars = [c.model_copy(update={"hand": list(c.hand)}) for c in state.cars]
    if state.turn is not None:
        s.turn = state.turn.model_copy(
            update={"pending": list(state.turn.pending), "throw": list(state.turn.throw)}
        )
    s.pit_deck = list(state.pit_deck)
    s.tactic_used = list(state.tactic_used)
    s.tactic_undealt = list(state.tactic_undealt)
    return s


class Waddington(Game[WaddingtonState]):
    spec = SPEC
    name = SPEC.name
    title = SPEC.title
    state_type: ClassVar[type[WaddingtonState]] = WaddingtonState
    action_adapter: ClassVar[TypeAdapter[Any]] = ACTION_ADAPTER
    # Paddock rule (docs/rules/waddington.md, "Taking a move back"): not after the dice, a
    # Pit card or a Tactic card shown (Game.undo_refusal)
    undo_random: ClassVar[str] = "the dice have been rolled"
    undo_drawn: ClassVar[str] = "a Pit card has been drawn"
    undo_reveals: ClassVar[Mapping[str, str]] = {
        "pit": "your Pit card has been drawn",
        "tactic": "your Tactic card has been shown",
    }

    # --- set-up -------------------------------------------------------------------------

    def new_game(self, seed: int, config: dict[str, Any]) -> WaddingtonState:
        cat = catalog()
        settings, seats = parse_settings(config)
        rng = Rng.from_seed(seed)
        n = len(seats)
        # §B rule 7: the highest throw takes car number 1; ties throw again.
        throws: list[list[int]] = []
        contenders = list(range(n))
        while True:
            rnd = [0] * n
            for s in contenders:
                rnd[s] = rng.die() + rng.die()
            throws.append(rnd)
            top = max(rnd)
            contenders = [s for s in contenders if rnd[s] == top]
            if len(contenders) == 1:
                break
        first = contenders[0]
        cars: list[Car] = []
        for seat, (name, robot) in enumerate(seats):
            number = (seat - first) % n + 1
            row, lane = cat.grid_of[number]
            cars.append(
                Car(
                    seat=seat,
                    name=name,
                    robot=robot,
                    number=number,
                    colour=cat.colour_of[number],
                    row=row,
                    lane=lane,
                    dist=row,
                )
            )
        order = sorted(range(n), key=lambda s: cars[s].number)
        # §B rule 11: five Tactic cards each (fewer when more than six cars share 30 cards).
        deck = rng.shuffled(cat.tactic_ids)
        hand = min(cat.race.hand_size, len(deck) // n)
        for _ in range(hand):
            for seat in order:
                cars[seat].hand.append(deck.pop(0))
        pit_deck = rng.shuffled(cat.pit_ids)  # §B rule 10
        first_seat = order[0]
        return WaddingtonState(
            rng=rng,
            circuit=cat.circuit.name,
            settings=settings,
            cars=cars,
            order=order,
            start_throws=throws,
            turn=TurnState(seat=first_seat, start_speed=0, start_dist=cars[first_seat].dist),
            pit_deck=pit_deck,
            tactic_undealt=deck,
        )

    def simulation_config(
        self, players: int | None = None, laps: int | None = None, **settings: Any
    ) -> dict[str, Any]:
        """A robot-only race: `players` robots (default 4) over `laps` laps (default 3).

        A new race, so with the card window on public facts (`public_card_window`), as every
        race Paddock starts: the demo's league rounds and `paddock bench` use this config
        too, and without it the window would tell the table a car holds a playable card."""
        count = 4 if players is None else players
        return {
            "players": [{"name": f"Robot {i + 1}", "robot": True} for i in range(count)],
            "laps": 3 if laps is None else laps,
            "public_card_window": True,
            **settings,
        }

    def simulate(self, seed: int, **options: Any) -> dict[str, Any]:
        from rules.waddington.simulate import simulate

        return simulate(seed, **options)

    # --- queries ------------------------------------------------------------------------

    def to_act(self, state: WaddingtonState) -> list[int]:
        if state.over or state.turn is None:
            return []
        return [state.turn.seat]

    def is_terminal(self, state: WaddingtonState) -> bool:
        return state.over

    def legal_actions(self, state: WaddingtonState, seat: int) -> list[Action]:
        t = state.turn
        if state.over or t is None or t.seat != seat:
            return []
        car = state.cars[seat]
        out: list[Action] = []
        if t.phase == "speed":
            out += [SetSpeed(seat=seat, speed=sp) for sp in speed_options(state, car)]
            if not t.card_played:
                for cid in car.hand:
                    card = catalog().cards[cid]
                    if card.timing == "before_move" and self._pre_card_ok(car, card) is None:
                        out.append(PlayTactic(seat=seat, card=cid))
        elif t.phase == "move":
            for d in self.destinations(state, seat):
                out.append(Move(seat=seat, to=d.to))
                if self._can_raise(state, car, d):
                    out.append(Move(seat=seat, to=d.to, raise_to_match=True))
        elif t.phase == "after_move":
            if state.settings.public_card_window:
                # carrying on first: its place in the list does not count the cards
                out.append(Proceed(seat=seat))
                out += self._window_options(state, car)
            else:
                out += self._window_options(state, car)
                out.append(Proceed(seat=seat))
        elif t.phase == "spin_choice":
            out += [
                SoftSpin(seat=seat, take_tyre_wear=True),
                SoftSpin(seat=seat, take_tyre_wear=False),
            ]
        out.append(Retire(seat=seat))
        return out

    def destinations(
        self, state: WaddingtonState, seat: int, speed: int | None = None
    ) -> list[Destination]:
        """End squares for the seat's move at its set speed (or at `speed`, to preview one),
        each with its path and the red bands crossed. Order: lanes inside to outside, the
        pit last; the Discord layer letters them A, B, C..."""
        car = state.cars[seat]
        sp = car.speed if speed is None else speed
        mine = state.turn is not None and state.turn.seat == seat
        superb = mine and state.turn.superb  # type: ignore[union-attr]
        # §L rule 45: a turn with a Tactic card never ends in the pits.
        allow_pit = not (mine and state.turn.card_played)  # type: ignore[union-attr]
        return find_destinations(state.cars, seat, sp // 20, sp, superb=superb, allow_pit=allow_pit)

    def card_throws_dice(self, state: WaddingtonState, action: Action) -> bool:
        """Whether this Tactic card goes on to throw the dice: a card played after the move,
        before the dice (its timing `after_move` in cards.json) closes the card window, and
        the dice are thrown at once for each band crossed over its safety speed (§H rule 27,
        §L rule 46), its own extra squares' bands included. Found by playing it on a copy
        (apply is pure); only whether any die is thrown is told, never what it shows."""
        if not isinstance(action, PlayTactic) or state.turn is None:
            return False
        if catalog().cards[action.card].timing != "after_move":
            return False  # played before the move: its bands come later, with the move
        try:
            _, events = self.apply(state, action)
        except IllegalAction:
            return False
        return any("dice" in event.data for event in events)

    def classification(self, state: WaddingtonState) -> list[Placing]:
        """§N rule 56: the car furthest over the line wins; retired cars come after running
        ones (Paddock rule: later retirement first). Ties keep the moving order."""
        pos = {seat: i for i, seat in enumerate(state.order)}
        running = [c for c in state.cars if c.status == "running"]
        retired = [c for c in state.cars if c.status == "retired"]
        running.sort(key=lambda c: (-c.dist, pos[c.seat]))
        retired.sort(key=lambda c: (-(c.retired_round or 0), -c.dist, pos[c.seat]))
        return [
            Placing(seat=c.seat, place=i + 1, status=c.status)
            for i, c in enumerate(running + retired)
        ]

    def public_view(self, state: WaddingtonState) -> dict[str, Any]:
        data = state.model_dump(mode="json", exclude={"rng", "pit_deck", "tactic_undealt"})
        for car, raw in zip(state.cars, data["cars"], strict=True):
            raw.pop("hand")
            raw["hand_count"] = len(car.hand)
            raw["laps_to_go"] = lap_indicator(state, car)
        data["tactic_used"] = len(state.tactic_used)
        data["pit_deck_count"] = len(state.pit_deck)
        data["tactic_undealt_count"] = len(state.tactic_undealt)
        data["title"] = self.title
        return data

    def seat_view(self, state: WaddingtonState, seat: int) -> dict[str, Any]:
        data = self.public_view(state)
        cards = catalog().cards
        data["seat"] = seat
        data["hand"] = [cards[cid].model_dump(mode="json") for cid in state.cars[seat].hand]
        return data

    def robot_action(self, state: WaddingtonState, seat: int) -> Action:
        from rules.waddington.robot import choose

        return choose(self, state, seat)

    # --- apply --------------------------------------------------------------------------

    def apply(self, state: WaddingtonState, action: Action) -> tuple[WaddingtonState, list[Event]]:
        return self._apply(state, action, fork=True)

    def apply_owned(
        self, state: WaddingtonState, action: Action
    ) -> tuple[WaddingtonState, list[Event]]:
        """`apply` without `_fork` (near half of a replayed action's time: the league
        site's race page replays a whole log); `_apply` reads `state` only before the fork,
        so the result is `apply`'s."""
        return self._apply(state, action, fork=False)

    def _apply(
        self, state: WaddingtonState, action: Action, fork: bool
    ) -> tuple[WaddingtonState, list[Event]]:
        if state.over or state.turn is None:
            raise IllegalAction("The race is over.")
        t0 = state.turn
        if action.seat != t0.seat:
            car = state.cars[t0.seat]
            raise NotYourTurn(f"It's not your turn: {car.colour} ({car.name}) is to move.")
        s = _fork(state) if fork else state
        t = s.turn
        assert t is not None
        car = s.cars[t.seat]
        events: list[Event] = []
        if isinstance(action, Retire):
            self._retire(s, car, events)
        elif isinstance(action, SetSpeed):
            self._need_phase(t, "speed", "set your speed")
            self._set_speed(s, car, action.speed, events)
        elif isinstance(action, PlayTactic):
            self._play_tactic(s, car, action, events)
        elif isinstance(action, Move):
            self._need_phase(t, "move", "move")
            self._move(s, car, action, events)
        elif isinstance(action, Proceed):
            self._need_phase(t, "after_move", "throw the dice or end your move")
            t.window_done = True
            self._continue(s, events)
        elif isinstance(action, SoftSpin):
            self._need_phase(t, "spin_choice", "choose between a spin and tyre wear")
            self._soft_spin(s, car, action.take_tyre_wear, events)
        else:
            raise IllegalAction("That is not a Waddington's Formula 1 action.")
        s.actions += 1
        return s, events

    @staticmethod
    def _need_phase(t: TurnState, phase: str, what: str) -> None:
        if t.phase != phase:
            hints = {
                "speed": "set your speed first",
                "move": "choose where to move first",
                "after_move": "play a Tactic card or carry on",
                "spin_choice": "choose: spin, or take 2 tyre wear",
            }
            raise IllegalAction(f"You can't {what} now: {hints[t.phase]}.")

    # speed ------------------------------------------------------------------------------

    def _set_speed(self, s: WaddingtonState, car: Car, speed: int, ev: list[Event]) -> None:
        race = catalog().race
        t = s.turn
        assert t is not None
        if speed % race.speed_step:
            raise IllegalAction("Speeds go in steps of 20 mph.")
        if speed < race.speed_step:
            raise IllegalAction("Cars must not stand still on the track: set at least 20 mph.")
        if speed > race.max_speed:
            raise IllegalAction("The speedometer stops at 160 mph.")
        cur = car.speed
        if speed not in speed_options(s, car):
            if speed > cur:
                top = max(speed_options(s, car))
                raise IllegalAction(
                    f"You can't accelerate by more than 60 mph in one turn: from {cur} mph "
                    f"you may set up to {top} mph."
                )
            raise IllegalAction(_reduction_refusal(car, cur - speed) or "You can't set that.")
        if speed < cur:
            self._brake(car, cur - speed, ev, forced=False)
        if car.lane == PIT_LANE:
            car.burst = False
        car.speed = speed
        t.phase = "move"
        ev.append(
            _ev("speed", f"{car.colour} sets {speed} mph.", seat=car.seat, speed=speed, was=cur)
        )

    def _brake(self, car: Car, reduction: int, ev: list[Event], forced: bool) -> bool:
        """Record the wear of a speed reduction (§J rules 38-39). Returns False when the car
        cannot brake that hard (forced reductions only: the caller spins the car)."""
        race = catalog().race
        cost = race.reduction_cost(reduction)
        if car.special_brakes and (cost.brake or cost.tyre):
            car.special_brakes = False
            ev.append(
                _ev(
                    "brake",
                    f"{car.colour} brakes by {reduction} mph on Special Brakes: no wear.",
                    seat=car.seat,
                    reduction=reduction,
                    brake=0,
                    tyre=0,
                )
            )
            return True
        if forced and _reduction_refusal(car, reduction) is not None:
            return False
        car.brake = min(race.max_brake_wear, car.brake + cost.brake)
        car.tyre = min(race.max_tyre_wear, car.tyre + cost.tyre)
        if cost.brake or cost.tyre:
            ev.append(
                _ev(
                    "brake",
                    f"{car.colour} brakes by {reduction} mph: brake wear {cost.brake}, "
                    f"tyre wear {cost.tyre}.",
                    seat=car.seat,
                    reduction=reduction,
                    brake=cost.brake,
                    tyre=cost.tyre,
                )
            )
        return True

    # tactic cards ---------------------------------------------------------------------

    @staticmethod
    def _pre_card_ok(car: Car, card: Card) -> str | None:
        if card.type == "accelerate_120" and car.speed >= 120:
            return "Accelerate Immediately to 120 mph needs a speed below 120 mph."
        return None

    def _window_opens(self, s: WaddingtonState, car: Car) -> bool:
        """Whether the turn stops for the after-move Tactic card window (§L rules 45-47).

        With `public_card_window` (Paddock rule) it opens on what everyone can see: the car
        holds a Tactic card (how many is public), has played none this turn, did not spin,
        is not in the pits and is not certain to spin. Whether a card in the hand can be
        played now never shows in the turn's steps, for robots too (their hands are hidden
        as well, and the number of actions is public). Without it (races started before the
        rule), it opens only when a card is playable."""
        t = s.turn
        assert t is not None
        if not s.settings.public_card_window:
            return bool(self._window_options(s, car))
        if not car.hand or t.card_played or t.spun or t.pit:
            return False
        return not _spin_certain(t, car)

    def _window_options(self, s: WaddingtonState, car: Car) -> list[Action]:
        """Tactic cards the car may play after its move (§L rules 45-47)."""
        t = s.turn
        assert t is not None
        if t.card_played or t.spun or t.pit:
            return []
        if _spin_certain(t, car):
            return []
        cards = catalog().cards
        out: list[Action] = []
        for cid in car.hand:
            card = cards[cid]
            if card.timing != "after_move":
                continue
            if card.type == "extra_move":
                for d in find_destinations(
                    s.cars, car.seat, card.squares, car.speed, allow_pit=False
                ):
                    if d.steps > 0:
                        out.append(PlayTactic(seat=car.seat, card=cid, to=d.to))
            elif (card.type == "tyre_care" and car.tyre > 0) or (
                card.type == "brake_adjust" and car.brake > 0
            ):
                out.append(PlayTactic(seat=car.seat, card=cid))
        return out

    def _play_tactic(
        self, s: WaddingtonState, car: Car, action: PlayTactic, ev: list[Event]
    ) -> None:
        t = s.turn
        assert t is not None
        cards = catalog().cards
        if action.card not in car.hand:
            raise IllegalAction("That Tactic card is not in your hand.")
        card = cards[action.card]
        if t.card_played:
            raise IllegalAction("Only one Tactic card may be played per turn.")
        if card.timing == "before_move":
            if t.phase != "speed":
                raise IllegalAction(f"{card.title} must be played before you move.")
            why = self._pre_card_ok(car, card)
            if why:
                raise IllegalAction(why)
            if action.to is not None:
                raise IllegalAction(f"{card.title} takes no square.")
            self._discard(s, car, card, ev)
            if card.type == "superb_driving":
                t.superb = True
            else:  # accelerate_120
                if car.lane == PIT_LANE:
                    car.burst = False
                car.speed = 120
                t.phase = "move"
            return
        # after the move
        if t.phase != "after_move":
            if t.phase in ("speed", "move"):
                raise IllegalAction(f"{card.title} is played after your move, before the dice.")
            raise IllegalAction(f"You can't play {card.title} now.")
        if _spin_certain(t, car):
            raise IllegalAction("Your car spins off this move: no Tactic card now (rule 45).")
        if card.type != "extra_move" and action.to is not None:
            raise IllegalAction(f"{card.title} takes no square.")
        if card.type == "extra_move":
            dests = {
                d.to: d
                for d in find_destinations(
                    s.cars, car.seat, card.squares, car.speed, allow_pit=False
                )
                if d.steps > 0
            }
            if action.to is None or action.to not in dests:
                raise IllegalAction(f"Choose a square {card.squares} ahead for {card.title}.")
            d = dests[action.to]
            self._discard(s, car, card, ev)
            self._travel(s, car, d, ev, extra=True)
        elif card.type == "tyre_care":
            if car.tyre == 0:
                raise IllegalAction("Your tyres show no wear.")
            self._discard(s, car, card, ev)
            car.tyre = max(0, car.tyre - card.amount)
        elif card.type == "brake_adjust":
            if car.brake == 0:
                raise IllegalAction("Your brakes show no wear.")
            self._discard(s, car, card, ev)
            car.brake = max(0, car.brake - card.amount)
        t.window_done = True
        self._continue(s, ev)

    def _discard(self, s: WaddingtonState, car: Car, card: Card, ev: list[Event]) -> None:
        t = s.turn
        assert t is not None
        car.hand.remove(card.id)
        s.tactic_used.append(card.id)
        t.card_played = True
        ev.append(
            _ev(
                "tactic",
                f"{car.colour} plays {card.title}.",
                seat=car.seat,
                card=card.id,
                type=card.type,
            )
        )

    # moving -----------------------------------------------------------------------------

    def _can_raise(self, s: WaddingtonState, car: Car, d: Destination) -> bool:
        """§K rule 43: a car baulked by a faster one may raise its speed to match, by at most
        60 mph over its speed at the start of the turn (not when stuck in a pit or spin-off
        point, rule 44)."""
        t = s.turn
        assert t is not None
        if not d.baulked or d.baulk_speed is None or d.baulk_speed <= car.speed:
            return False
        if d.steps == 0 and car.lane in (PIT_LANE, VERGE_LANE):
            return False
        return d.baulk_speed - t.start_speed <= 60 and d.baulk_speed <= catalog().race.max_speed

    def _move(self, s: WaddingtonState, car: Car, action: Move, ev: list[Event]) -> None:
        t = s.turn
        assert t is not None
        dests = {d.to: d for d in self.destinations(s, car.seat)}
        to = action.to
        if to not in dests:
            names = ", ".join(f"row {r} lane {ln}" for r, ln in dests)
            raise IllegalAction(
                f"You can't end your move there at {car.speed} mph. Choose one of: {names}."
            )
        d = dests[to]
        if action.raise_to_match and not self._can_raise(s, car, d):
            raise IllegalAction("You can only raise your speed when baulked by a faster car.")
        start_lane = car.lane
        self._travel(s, car, d, ev, extra=False)
        # §H rule 27, §I rules 30 and 32: every band of the path was crossed before the car
        # reached the square where it is baulked, so it is judged at the speed set for the
        # move and with the tyres it had then - not after matching a baulking car (§K rules
        # 42-43).
        t.pending = self._crossings(s, car, d.path, car.speed, t.start_dist, t.superb)
        t.pit = d.pit
        if any(_certain(c) for c in t.pending):
            # it spins at the band and never reaches the baulking car (Paddock rule)
            self._continue(s, ev)
            return
        if d.baulked:
            blocker = s.cars[d.baulked_by] if d.baulked_by is not None else None
            stuck_off = d.steps == 0 and start_lane in (PIT_LANE, VERGE_LANE)
            who = blocker.colour if blocker else "the track"
            if stuck_off:  # §K rule 44
                ev.append(
                    _ev(
                        "baulk",
                        f"{car.colour} is baulked by {who} and cannot leave yet; "
                        f"speedometer at {car.speed} mph.",
                        seat=car.seat,
                        by=d.baulked_by,
                        speed=car.speed,
                    )
                )
            elif blocker is not None and d.baulk_speed is not None:
                b = d.baulk_speed
                if b < car.speed:  # §K rule 42
                    reduction = car.speed - b
                    if not self._brake(car, reduction, ev, forced=True):
                        ev.append(
                            _ev(
                                "baulk",
                                f"{car.colour} is baulked by {who} and must slow from "
                                f"{car.speed} to {b} mph but cannot brake that hard.",
                                seat=car.seat,
                                by=blocker.seat,
                                speed=b,
                            )
                        )
                        # §I rules 31 and 35; the bands it crossed first are still rolled,
                        # then it spins where it stands (Paddock rule: the penalty of a band
                        # is incurred where the band is crossed)
                        t.verge_spin = True
                        self._continue(s, ev)
                        return
                    ev.append(
                        _ev(
                            "baulk",
                            f"{car.colour} is baulked by {who} and slows from {car.speed} "
                            f"to {b} mph.",
                            seat=car.seat,
                            by=blocker.seat,
                            speed=b,
                        )
                    )
                    car.speed = b
                elif b > car.speed and action.raise_to_match:  # §K rule 43
                    ev.append(
                        _ev(
                            "baulk",
                            f"{car.colour} is baulked by {who} and raises its speed from "
                            f"{car.speed} to {b} mph.",
                            seat=car.seat,
                            by=blocker.seat,
                            speed=b,
                        )
                    )
                    car.speed = b
                else:
                    ev.append(
                        _ev(
                            "baulk",
                            f"{car.colour} is baulked by {who} at {car.speed} mph.",
                            seat=car.seat,
                            by=blocker.seat,
                            speed=car.speed,
                        )
                    )
        self._continue(s, ev)

    @staticmethod
    def _crossings(
        s: WaddingtonState, car: Car, path: list, speed: int, base_dist: int, superb: bool
    ) -> list[Crossing]:
        """Bands of `path` over the safety speed, crossed at `speed` with the car's present
        tyre wear; `base_dist` is the car's distance before the path's first square."""
        out: list[Crossing] = []
        cat = catalog()
        worn = car.tyre >= cat.race.max_tyre_wear
        passes = band_passes(cat, path, speed, superb)
        if not passes:
            return out
        idx = {sq: i for i, sq in enumerate(path)}
        for p in passes:
            if p.excess <= 0:
                continue
            out.append(
                Crossing(
                    row=p.row,
                    lane=p.lane,
                    corner=p.corner,
                    safety=p.safety,
                    speed=speed,
                    dist=base_dist + idx[(p.row, p.lane)] + 1,
                    worn=worn,
                )
            )
        return out

    def _travel(
        self, s: WaddingtonState, car: Car, d: Destination, ev: list[Event], extra: bool
    ) -> None:
        t = s.turn
        assert t is not None
        base = car.dist
        if d.steps:
            car.row, car.lane = d.to
            car.dist += d.steps
            car.spun_at = None
        if extra:
            t.pending += self._crossings(s, car, d.path, car.speed, base, False)
        what = "its pit" if d.pit else f"row {d.to[0]} lane {d.to[1]}"
        verb = "moves on" if extra else "moves"
        ev.append(
            _ev(
                "move",
                f"{car.colour} {verb} {d.steps} square{'s' if d.steps != 1 else ''} to {what}.",
                seat=car.seat,
                path=[list(sq) for sq in d.path],
                steps=d.steps,
                extra=extra,
                pit=d.pit,
                speed=car.speed,
            )
        )

    # dice and spins ---------------------------------------------------------------------

    def _continue(self, s: WaddingtonState, ev: list[Event]) -> None:
        """Carry the turn on after a move, a card or a choice (§H rule 27, §L rule 46)."""
        t = s.turn
        assert t is not None
        car = s.cars[t.seat]
        soft = s.settings.soft_tactic_after_dice
        if not t.spun:
            if not soft and not t.window_done and not t.pit:
                if self._window_opens(s, car):
                    t.phase = "after_move"
                    return
                t.window_done = True
            if self._resolve(s, car, ev):
                return
        if t.verge_spin and not t.spun:
            self._spin_verge(s, car, ev)
        if t.pit and not t.spun:
            self._pit_stop(s, car, ev)
        elif soft and not t.spun and not t.window_done and self._window_opens(s, car):
            t.phase = "after_move"
            return
        self._end_turn(s, ev)

    def _resolve(self, s: WaddingtonState, car: Car, ev: list[Event]) -> bool:
        """Throw the dice for every band crossed over the safety speed, one by one
        (§H rules 27-29, §I rules 30-33). Returns True when paused for the soft choice."""
        cat = catalog()
        t = s.turn
        assert t is not None
        while t.pending and not t.spun:
            c = t.pending.pop(0)
            excess = c.speed - c.safety
            head = f"{car.colour} took {c.corner} at {c.speed} (+{excess})"
            base = dict(
                seat=car.seat,
                corner=c.corner,
                row=c.row,
                lane=c.lane,
                speed=c.speed,
                safety=c.safety,
                excess=excess,
            )
            if excess >= 60:  # §I rule 30
                ev.append(_ev("band", f"{head}: 60 mph or more over, spins off.", **base))
                self._spin_corner(s, car, c, ev)
                break
            if c.worn:  # §I rule 32
                ev.append(_ev("band", f"{head} on worn-out tyres (8): spins off.", **base))
                self._spin_corner(s, car, c, ev)
                break
            d1, d2 = s.rng.die(), s.rng.die()
            throw = d1 + d2
            pen = cat.chart.penalty(throw, excess)
            column = "+20" if excess <= 20 else "+40"
            ev.append(
                _ev(
                    "band",
                    f"{head}: threw {throw} ({d1}+{d2}), {pen.describe()}.",
                    dice=[d1, d2],
                    throw=throw,
                    column=column,
                    penalty=pen.model_dump(),
                    **base,
                )
            )
            if pen.spin:
                if s.settings.soft_spin_tyres and throw in (3, 11):
                    t.choice = c
                    t.throw = [d1, d2]
                    t.phase = "spin_choice"
                    return True
                self._spin_corner(s, car, c, ev)
                break
            car.tyre = min(cat.race.max_tyre_wear, car.tyre + pen.tyre)
            car.brake = min(cat.race.max_brake_wear, car.brake + pen.brake)
            self._wear_later_bands(t, car)
        return False

    @staticmethod
    def _wear_later_bands(t: TurnState, car: Car) -> None:
        """A band's penalty is paid where the band is crossed (§H rules 28-29): when it takes
        the tyre wear gauge to 8, the bands crossed after it were crossed on worn-out tyres."""
        if car.tyre >= catalog().race.max_tyre_wear:
            t.pending = [c.model_copy(update={"worn": True}) for c in t.pending]

    def _soft_spin(self, s: WaddingtonState, car: Car, take: bool, ev: list[Event]) -> None:
        t = s.turn
        assert t is not None and t.choice is not None
        c = t.choice
        t.choice = None
        t.throw = []
        if take:
            car.tyre = min(catalog().race.max_tyre_wear, car.tyre + 2)
            self._wear_later_bands(t, car)
            ev.append(
                _ev(
                    "soft_spin",
                    f"{car.colour} takes 2 tyre wear instead of spinning.",
                    seat=car.seat,
                )
            )
        else:
            self._spin_corner(s, car, c, ev)
        self._continue(s, ev)

    def _spin_corner(self, s: WaddingtonState, car: Car, c: Crossing, ev: list[Event]) -> None:
        """§I rules 34, 36-37: onto the corner's Spin Off Point, speedometer to zero."""
        corner = catalog().corner_by_name[c.corner]
        t = s.turn
        assert t is not None
        car.dist = c.dist - (c.row - corner.spin_off_row)
        car.row = corner.spin_off_row
        car.lane = VERGE_LANE
        car.speed = 0
        car.spun_at = corner.name
        t.spun = True
        t.pit = False
        t.pending = []
        ev.append(
            _ev(
                "spin",
                f"{car.colour} spins off at {corner.name}.",
                seat=car.seat,
                corner=corner.name,
                row=car.row,
            )
        )

    def _spin_verge(self, s: WaddingtonState, car: Car, ev: list[Event]) -> None:
        """§I rule 35: a baulked car that cannot brake hard enough spins to the outside of
        the track beside the square where it stands."""
        t = s.turn
        assert t is not None
        car.lane = VERGE_LANE
        car.speed = 0
        car.spun_at = "verge"
        t.spun = True
        t.pit = False
        t.pending = []
        ev.append(
            _ev(
                "spin",
                f"{car.colour} spins off onto the outside of the track.",
                seat=car.seat,
                corner=None,
                row=car.row,
            )
        )

    # pits -----------------------------------------------------------------------------

    def _pit_stop(self, s: WaddingtonState, car: Car, ev: list[Event]) -> None:
        """§M rules 48-54: gauges to zero except laps, draw a Pit card, return it under."""
        cards = catalog().cards
        car.speed = 0
        car.tyre = 0
        car.brake = 0
        car.burst = False
        car.special_brakes = False
        cid = s.pit_deck.pop(0)
        s.pit_deck.append(cid)
        card = cards[cid]
        if card.type == "lose_turn":
            car.lose_turns = card.turns
        elif card.type == "burst":
            car.burst = True
        elif card.type == "special_brakes":
            car.special_brakes = True
        ev.append(
            _ev(
                "pit",
                f"{car.colour} stops in the pits: tyres and brakes fresh. Pit card: {card.title}.",
                seat=car.seat,
                card=cid,
                type=card.type,
            )
        )

    # turn order ---------------------------------------------------------------------------

    def _retire(self, s: WaddingtonState, car: Car, ev: list[Event]) -> None:
        car.status = "retired"
        car.retired_round = s.round
        car.speed = 0
        ev.append(_ev("retire", f"{car.colour} retires from the race.", seat=car.seat))
        self._end_turn(s, ev)

    def _end_turn(self, s: WaddingtonState, ev: list[Event]) -> None:
        cat = catalog()
        t = s.turn
        assert t is not None
        car = s.cars[t.seat]
        car.turns += 1
        length = cat.length
        laps = s.settings.laps
        if car.status == "running":
            before, after = t.start_dist // length, car.dist // length
            for lap in range(before + 1, after + 1):
                if lap > laps:
                    break
                ev.append(
                    _ev(
                        "lap",
                        f"{car.colour} completes lap {lap} ({laps - lap} to go).",
                        seat=car.seat,
                        lap=lap,
                    )
                )
            if t.start_dist < laps * length <= car.dist:
                ev.append(_ev("finish", f"{car.colour} takes the chequered flag!", seat=car.seat))
                if s.first_finish_round is None:
                    s.first_finish_round = s.round
        s.turn = None
        self._next_turn(s, ev)

    def _next_turn(self, s: WaddingtonState, ev: list[Event]) -> None:
        """Next car in the fixed order (§F rule 19); the race ends when the round in which
        the first car finished is complete (§N rule 56) or when every car has retired."""
        while True:
            s.turn_index += 1
            if s.turn_index >= len(s.order):
                if s.first_finish_round is not None or all(c.status == "retired" for c in s.cars):
                    s.over = True
                    placing = self.classification(s)
                    text = ", ".join(f"{p.place}. {s.cars[p.seat].colour}" for p in placing)
                    ev.append(
                        _ev(
                            "race_over",
                            f"Race over after {s.round} rounds: {text}.",
                            classification=[p.model_dump() for p in placing],
                        )
                    )
                    return
                s.round += 1
                s.turn_index = 0
            seat = s.order[s.turn_index]
            car = s.cars[seat]
            if car.status != "running":
                continue
            if car.lose_turns > 0:
                car.lose_turns -= 1
                car.turns += 1
                ev.append(_ev("skip", f"{car.colour} waits in the pits (turn lost).", seat=seat))
                continue
            s.turn = TurnState(seat=seat, start_speed=car.speed, start_dist=car.dist)
            return
