"""The robot policy for player seats (timeouts, simulations).

Robot cars (Slow, Fast, SuperFast) are moved by the engine itself; this module decides for a
player's car when its player is absent (and in simulations), with deterministic choices that
play as a strong player would (docs/rules/rf90.md, "Seat policy").
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from rules.base import Action
from rules.rf90 import catalog as cat

# The legal-action lists live in rules/rf90/legality.py; importable from here too, as before.
from rules.rf90.legality import (  # noqa: F401
    card_plays,
    legal_actions,
    phase_a_actions,
    phase_b_options,
    pit_tyres,
    setup_choices,
    trajectory_for,
    tyres_due,
)
from rules.rf90.state import (
    ROBOT_SEAT,
    Car,
    ChooseSetup,
    ChooseStart,
    DuelCards,
    DuelDeclare,
    EndTurn,
    Mulligan,
    PitStop,
    PlayCards,
    Qualify,
    RF90State,
    RobotTurn,
    StartTurn,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from rules.rf90.engine import RF90


# --- the seat policy ----------------------------------------------------------------------------
#
# The seat policy plays a player's car when its player is absent (timeouts, autopilot) and in
# simulations. It always picks one of `legal_actions` (so it can never make an illegal move) and
# sees only what the player sees: its hand, the board, the public dashboards, never the decks.
# Its card choice weighs each offered play by the MP it is expected to bring this turn against
# what it spends (cards, tyre chips, damage) and earns (Track cards, drawn cards): docs/rules/
# rf90.md, "Seat policy" (Paddock rule).


@dataclass(frozen=True)
class Weights:
    """The seat policy's weights (Paddock design, tuned by simulation: docs/rules/rf90.md,
    "Balance"). Values are in MP (sections) of this race."""

    decay: float = 0.9  # the hand's i-th best card counts decay ** i of its expected MP ...
    future: float = 0.85  # ... and MP later is worth this share of MP now
    chip: float = 0.25  # a tyre chip, while the chips left cover the stint
    scarce_chip: float = 0.9  # a tyre chip when they do not
    chips_per_turn: float = 0.5  # the chips a stint is expected to need per turn
    damage: float = 0.8  # a damage disc, besides the damage effect it may bring
    last_space: float = 2.5  # using the last free damage space (the next disc retires the car)
    brown_share: float = 0.2  # the share of brown (permanent) discs in the bag
    extreme_margin: float = 0.0  # try an Extreme Trajectory when its expected gain exceeds this
    landing: float = 1.0  # the share of a free trajectory's worth where the move ends
    grid: float = 0.5  # the worth of a qualification point (a better grid place), in sections
    weather_stays: float = 0.7  # the chance the weather stays as it is, for a tyre stop
    pit_margin: float = 1.0  # stop early when it gains more than this


W = Weights()


def _weather_tyre(state: RF90State, car: Car) -> str:
    """The tyres for the weather now: wet in rain, intermediate when uncertain (the only tyres
    with no penalty there); when dry, soft while a set is left (their three +1 MP discs are worth
    more than the hard tyres' Track card and chips), else hard."""
    space = cat.tables().weather.spaces[state.weather]
    if space.state == "dry":
        return "soft" if "soft" in pit_tyres(car) else "hard"
    return {"uncertain": "intermediate", "rain": "wet"}[space.state]


def check_chance(state: RF90State, car: Car) -> float:
    """The chance that a blind check of this car passes: the check card's factor (1-99) is
    below the target; Lucky checks a second card after a failure."""
    from rules.rf90.engine import Ctx, target_check

    return _chance(target_check(Ctx(state), car), car)


def _chance(target: int, car: Car) -> float:
    p = min(1.0, max(0.0, (target - 1) / 99))
    return 1 - (1 - p) ** 2 if car.strategy == "lucky" else p


def _card_mp(card: cat.Card, chance: float) -> float:
    return card.mp * (chance if card.check else 1.0)


@cache
def _mean_mp(track: str | None, chance: float) -> float:
    """The mean expected MP of a Race card (track None) or of a Track card of this track."""
    deck = cat.race_deck() if track is None else cat.track_deck(track)
    return sum(_card_mp(c, chance) for c in deck.values()) / max(1, len(deck))


def _fuel_stop_extra(turn: int, race_turns: int) -> int | None:
    """The fewest extra sections (0-2) for a stop on `turn` to last to the end, None if none
    does (another stop will be needed)."""
    fuel = cat.tables().fuel
    for x in range(fuel.max_extra_sections + 1):
        if turn + fuel.per_stop + fuel.per_extra_section * x > race_turns:
            return x
    return None


def _stops_cost(track: cat.Track, turn: int) -> int:
    """The sections lost in the fuel stops from a stop due on `turn` to the end of the race
    (each with the fewest extra sections that last to the end, or none and another stop)."""
    if turn > track.race_turns:
        return 0
    extra = _fuel_stop_extra(turn, track.race_turns)
    if extra is not None:
        return track.pit_sections + extra
    return track.pit_sections + _stops_cost(track, turn + cat.tables().fuel.per_stop)


class _Turn:
    """What the policy knows when it chooses in a player's individual turn."""

    def __init__(self, game: RF90, state: RF90State, seat: int) -> None:
        from rules.rf90.engine import (
            Ctx,
            damage_capacity,
            damage_penalty,
            runs_wide_here,
            safety_car,
        )

        ctx = Ctx(state)
        self.state = state
        self.car = car = game.seat_car(state, seat)
        self.cards = cat.cards(state.track)
        self.track = cat.track(state.track, state.race_turns)
        self.tables = cat.tables()
        self.chance = check_chance(state, car)
        self.capacity = damage_capacity(car)
        self.room = self.capacity - car.damage
        race_turns = self.track.race_turns
        self.turns_left = race_turns - state.turn  # turns after this one
        stop = min(car.fuel_turn, race_turns + 1)
        self.stint_left = max(0, stop - state.turn - 1)  # turns after this one before the stop
        self.weights = [W.future * W.decay**i for i in range(self.turns_left)]
        self.safety = safety_car(ctx)
        self.wide_here = runs_wide_here(ctx, car)
        p = state.pending
        self.traj = self.track.trajectory(p.trajectory) if p is not None and p.trajectory else None
        self.extreme_ok = p is not None and p.extreme_ok
        self.race_card = _mean_mp(None, self.chance)
        self.track_card = _mean_mp(state.track, self.chance)
        self.reach = self._reach()
        self.safety_mp = self.tables.flags.safety_car_max_mp
        self.save_tyres = car.strategy == "save_tyres"
        self.hazard = car.strategy == "hazard"
        self.spaces_left = self.tables.damage_effects.spaces_left
        self.max_weather = len(self.tables.weather.spaces) - 1
        # per card: mp, check, tyres, damage, draw, weather, colour; and, for the hand's worth,
        # its expected MP and whether it can partner any card (a +1 or a pair symbol)
        self.info = {
            c: (k.mp, k.check, k.tyres, k.damage, k.draw, k.weather, k.colour)
            for c in car.hand
            for k in [self.cards[c]]
        }
        self.mp = {
            c: (_card_mp(k, self.chance), k.mp == 1 or k.pair)
            for c in car.hand
            for k in [self.cards[c]]
        }
        low = sorted(self.mp.values())
        # what the lowest card of the hand is worth (an off-track card symbol takes one)
        self.lowest = self.hand_value(low) - self.hand_value(low[1:]) if low else 0.0
        self.new_race = (self.race_card, False)  # a card drawn, counted as a main card
        self.new_track = (self.track_card, False)
        self.weather_now = self.weather_mod(state.weather)
        # MP every play gets: the weather, the damage effect already there, re-entering
        self.base_extra = self.weather_now - damage_penalty(car)
        if car.off_track:
            self.base_extra -= car.off_penalty + 1
        # the trajectory the car stands on, when a play may claim it
        t = self.traj
        usable = t is not None and (t.kind != "extreme" or self.extreme_ok)
        self.claimable = set(t.colours) if usable and t is not None else None
        self.sharp_cost = t.cost if (t is not None and t.kind == "sharp") else None
        self.wide_value = self.off_track_value() if self.wide_here else 0.0
        # the best free trajectory where a move of k sections ends, for the next turn
        taken = {c.trajectory for c in state.cars if c.trajectory and c.running}
        self.landing = [0.0] * (self.reach + 1)
        if self.turns_left > 0:  # (not counting on a move that fails to reach a spot)
            for k in range(1, self.reach + 1):
                sec = self.track.sections[(car.section + k) % self.track.length]
                spots = [t.id for t in sec.trajectories if t.id not in taken]
                self.landing[k] = W.landing * max(map(self.trajectory, spots), default=0.0)

    def _reach(self) -> int:
        """How many sections the car could move now: up to the first full section, or into
        the first section under a yellow flag."""
        s, n = self.state, self.track.length
        sec = self.car.section
        steps = 0
        for _ in range(12):
            nxt = (sec + 1) % n
            if len(s.sections[nxt]) >= self.track.sections[nxt].capacity:
                break
            steps += 1
            sec = nxt
            if nxt in s.yellow_flags:
                break
        return steps

    def hand_value(self, cards: list[tuple[float, bool]]) -> float:
        """What a hand is worth for the rest of the race, its cards given as (expected MP,
        partner): each turn left plays a main card and a partner (a +1 or a pair-symbol card)
        with it; the best cards count most, the cards no turn left can play count nothing."""
        ranked = sorted(cards, reverse=True)
        n = self.turns_left
        main = ranked[:n]
        partners = [m for m, partner in ranked[n:] if partner][:n]
        w = self.weights
        return sum(w[i] * m for i, (m, _) in enumerate(main)) + sum(
            w[i] * m for i, m in enumerate(partners)
        )

    def chip_value(self, chips_left: int) -> float:
        """A tyre chip spent now: cheap while the chips left cover the rest of the stint
        (worthless once nothing is left to need them), dear when they do not."""
        need = W.chips_per_turn * self.stint_left
        if chips_left < need:
            return W.scarce_chip
        return W.chip * min(1.0, need / max(1, chips_left))

    def damage_cost(self, discs: int) -> float:
        """Damage discs drawn now: their cost, the damage effect for the rest of the stint (red
        discs leave at the stop, brown ones stay), and the risk of retiring."""
        if discs <= 0:
            return 0.0
        eff = self.tables.damage_effects
        cost = W.damage * discs
        left = self.room - discs
        if left <= eff.spaces_left < self.room:
            rest = self.turns_left - self.stint_left
            cost += eff.mp_penalty * (self.stint_left + W.brown_share * rest)
        if left == 0 and self.turns_left > 0:
            cost += W.last_space
        return cost

    def weather_mod(self, weather: int) -> int:
        space = self.tables.weather.spaces[weather]
        car = self.car
        if car.tyre is None:
            return 0
        mod = self.tables.weather.modifiers[space.state][car.tyre]
        if car.skill == "rain_expert" and space.state == "uncertain" and car.tyre != "intermediate":
            return max(0, mod)
        return mod

    def off_track_value(self, corner: int | None = None) -> float:
        """The car leaves the track at this corner (default: its own section, a failed green
        check): no move, the off-track costs, the re-entry MP lost next turn; off the track on
        its fuel turn, it is out of fuel."""
        sec = self.track.sections[self.car.section if corner is None else corner]
        off = sec.off_track
        if off is None:
            return 0.0
        ahead = (off.reentry - self.car.section) % self.track.length
        value: float = ahead - 1 - off.penalty
        value -= off.cost.tyres * self.chip_value(self.car.chips - off.cost.tyres)
        value -= self.damage_cost(off.cost.damage) + off.cost.cards * self.lowest
        if self.car.fuel_turn <= self.state.turn + 1:
            value -= 50.0
        return value

    def play(self, o: dict) -> float:
        """The expected worth of a phase B play (PlayCards fields): the sections it moves the
        car now, less the cards, chips and damage it spends, plus the cards it draws."""
        car, traj, info = self.car, self.traj, self.info
        played = [info[c] for c in o["cards"]]
        claimable = self.claimable
        use = bool(o["use_trajectory"]) and claimable is not None
        if use and claimable is not None:
            use = any(c[6] in claimable for c in played)
        cost = self.sharp_cost if use else None
        asked = sum(c[2] for c in played) + (cost.tyres if cost else 0)
        due = asked - (1 if self.save_tyres and asked else 0)
        balance = 1 if o["balance_damage"] else 0
        due -= balance
        by_cards = min(len(o["tyre_cards"]), due)
        chips = min(car.chips, due - by_cards)
        short = due - by_cards - chips
        discs = sum(c[3] for c in played) + (cost.damage if cost else 0) + short + balance
        if discs > self.room:
            return -1000.0 - discs  # the car would retire
        spent = set(o["cards"]) | set(o["tyre_cards"][:by_cards])
        if cost is not None and cost.cards:
            discard = o["sharp_discard"]
            if discard is None:
                pool = [c for c in car.hand if c not in spent]
                discard = min(pool, key=lambda c: (info[c][0], c))
            spent.add(discard)
        # this turn's move
        shift = sum(c[5] for c in played)
        weather = min(self.max_weather, max(0, self.state.weather + shift))
        extra = self.base_extra + (1 if o["blue_bonus"] else 0)
        if use and traj is not None:
            extra += traj.bonus
        if shift:
            extra += self.weather_mod(weather) - self.weather_now
        if self.hazard:
            extra += discs
        if discs and self.room - discs <= self.spaces_left < self.room:
            extra -= self.tables.damage_effects.mp_penalty
        sure = sum(c[0] for c in played if not c[1])
        greens = [c[0] for c in played if c[1]]
        if not greens:
            moved = self.moved(sure + extra)
        elif len(greens) == 1:
            p = self.chance
            fail = self.wide_value if self.wide_here else self.moved(sure + extra)
            moved = p * self.moved(sure + greens[0] + extra) + (1 - p) * fail
        else:
            p = self.chance
            both = self.moved(sure + greens[0] + greens[1] + extra)
            if self.wide_here:
                fail = (1 - p * p) * self.wide_value
            else:
                fail = p * (1 - p) * (
                    self.moved(sure + greens[0] + extra) + self.moved(sure + greens[1] + extra)
                ) + (1 - p) ** 2 * self.moved(sure + extra)
            moved = p * p * both + fail
        # what the play spends and earns
        score = moved
        if chips:
            score -= chips * self.chip_value(car.chips - chips)
        if discs:
            score -= self.damage_cost(discs)
        kept = [m for c, m in self.mp.items() if c not in spent]
        kept += [self.new_race] * sum(c[4] for c in played)
        if self.save_tyres and asked > 0 and due == 0:  # the special: a Track card
            kept.append(self.new_track)
        score += self.hand_value(kept)
        if shift:  # the weather for the rest of the stint
            score += 0.5 * min(self.stint_left, 4) * (self.weather_mod(weather) - self.weather_now)
        return score

    def steps(self, mp: int) -> int:
        """The sections a move of `mp` MP covers now (safety car, full sections ahead)."""
        if mp <= 0:
            return 0
        if self.safety:
            mp = min(mp, self.safety_mp)
        return min(mp, self.reach)

    def moved(self, mp: int) -> float:
        """A move of `mp` MP: its sections, and the trajectory it may end on."""
        steps = self.steps(mp)
        return steps + self.landing[steps]

    def trajectory(self, tid: str | None) -> float:
        """A spot to stand on for the next turn: its bonus if a card in hand can claim it."""
        if tid is None:
            return 0.0
        from rules.rf90.engine import bonus_to_checks

        t = self.track.trajectory(tid)
        # the chance to claim it with a card in hand (a green one must pass its check)
        match = max(
            (
                self.chance if self.cards[c].check else 1.0
                for c in self.car.hand
                if self.cards[c].colour in t.colours
            ),
            default=0.3,  # a card of its colour may still be drawn
        )
        value = t.bonus * match
        if t.kind == "extreme":  # only worth it when the attempt is sure enough (_phase_a)
            assert t.target is not None
            ok = _chance(t.target + bonus_to_checks(self.car), self.car)
            return value * ok if ok >= 0.75 else 0.1 * t.bonus
        if t.kind == "sharp":
            value -= 0.3 * (t.cost.tyres + t.cost.damage + t.cost.cards)
        return value


def _best(actions: list[Any], score: Callable[[Any], float]) -> Any:
    """The first action of highest score (the order of `legal_actions` breaks ties)."""
    best, best_score = actions[0], float("-inf")
    for a in actions:
        s = score(a)
        if s > best_score + 1e-9:
            best, best_score = a, s
    return best


def robot_action(game: RF90, state: RF90State, seat: int) -> Action:
    """The seat policy's choice: always one of `legal_actions(game, state, seat)`."""
    if seat not in game.to_act(state):
        raise ValueError(f"seat {seat} is not to act")
    if seat == ROBOT_SEAT:
        assert state.robot_next is not None
        return RobotTurn(seat=seat, car=state.robot_next)
    car = game.seat_car(state, seat)
    p = state.pending
    if state.phase == "race" and state.duel is None and p is not None:
        if p.phase == "A":  # the prompt's actions but the optional pit stops
            options = phase_a_actions(state, seat, car, p.trajectory, with_pits=False)
            return _phase_a(game, state, seat, options)
        turn = _Turn(game, state, seat)
        if p.phase == "B":
            best = _best(phase_b_options(game, state, seat, car), turn.play)
            return PlayCards(seat=seat, **best)
        return _best(legal_actions(game, state, seat), lambda a: _phase_e(turn, a))
    legal = legal_actions(game, state, seat)
    if state.phase == "setup" and not car.setup_chosen:
        return _setup(legal)
    if state.phase == "setup":
        return _mulligan(state, car, legal)
    if state.phase == "qualifying":
        return _qualify(state, car, legal)
    if state.phase == "start":
        return _start(state, legal)
    return _duel(state, car, legal)


def _setup(legal: list[Action]) -> Action:
    """The standard dashboard 2/2/2 and no skill (Paddock rule: what a league race without set-up
    rules gives every car)."""
    return next(a for a in legal if a == ChooseSetup(seat=a.seat))


def _hand_score(state: RF90State, hand: list[int]) -> float:
    cards = cat.cards(state.track)
    return (
        sum(cards[c].mp for c in hand) + max((cards[c].check_factor for c in hand), default=0) / 25
    )


def _mulligan(state: RF90State, car: Car, legal: list[Action]) -> Action:
    """Swap a hand worse than an average one: its MP, and the best target check it offers."""
    race = cat.race_deck()
    mean = sum(c.mp for c in race.values()) / len(race)
    swap = _hand_score(state, car.hand) < mean * len(car.hand) + 2.0
    return next(a for a in legal if isinstance(a, Mulligan) and a.swap == swap)


def _qualify(state: RF90State, car: Car, legal: list[Action]) -> Action:
    """The qualification card becomes the target check for green cards and lapping: give up a
    low card with a high check factor. The fuel token: the one stop that loses fewest sections,
    the grid place weighing a little (half a section a qualification point)."""
    cards = cat.cards(state.track)
    track = cat.track(state.track, state.race_turns)
    fuel_bonus = cat.tables().fuel.turns

    def score(a: Action) -> float:
        assert isinstance(a, Qualify)
        c = cards[a.card]
        lost = _stops_cost(track, a.fuel)
        target = c.check_factor / 99 * 8.0  # the green cards' and lapping checks over a race
        grid = W.grid * (c.mp + fuel_bonus[a.fuel])
        return target + grid - lost - 0.7 * c.mp

    return _best(legal, score)


def _start(state: RF90State, legal: list[Action]) -> Action:
    """Tyres for the weather, and Save Tyres: paying no tyre on most turns draws Track cards."""
    car = next(c for c in state.cars if c.seat == legal[0].seat)
    tyre = _weather_tyre(state, car)
    return next(
        a
        for a in legal
        if isinstance(a, ChooseStart) and a.tyres == tyre and a.strategy == "save_tyres"
    )


def _duel(state: RF90State, car: Car, legal: list[Action]) -> Action:
    """Duels cost cards: fight only on the last turn, when cards are worth nothing more and the
    place in the section is the place at the finish; then with the two highest cards."""
    d = state.duel
    assert d is not None
    last = state.turn >= cat.track(state.track, state.race_turns).race_turns
    if d.stage == "declare":
        ahead = d.order[: d.order.index(car.id)] if car.id in d.order else []
        fight = last and bool(ahead or d.challenger is not None)
        return next(a for a in legal if isinstance(a, DuelDeclare) and a.join == fight)
    cards = cat.cards(state.track)
    if not last:
        return next(a for a in legal if isinstance(a, DuelCards) and not a.cards)
    return _best(legal, lambda a: sum(cards[c].mp for c in a.cards))


def _phase_a(game: RF90, state: RF90State, seat: int, legal: list[Action]) -> Action:
    car = game.seat_car(state, seat)
    track = cat.track(state.track, state.race_turns)
    starts = [a for a in legal if isinstance(a, StartTurn)]
    pits = [a for a in starts if a.pit is not None]
    if car.fuel_turn <= state.turn:
        return _pit(state, car, pits, track)
    if not car.off_track and _early_stop_gain(state, car) > W.pit_margin:
        full = phase_a_actions(state, seat, car, state.pending.trajectory)  # type: ignore[union-attr]
        return _pit(state, car, [a for a in full if isinstance(a, StartTurn) and a.pit], track)
    plain = StartTurn(seat=seat)
    p = state.pending
    assert p is not None
    traj = track.trajectory(p.trajectory) if p.trajectory else None
    if traj is not None and traj.kind == "extreme" and StartTurn(seat=seat, extreme=True) in legal:
        turn = _Turn(game, state, seat)
        from rules.rf90.engine import bonus_to_checks

        assert traj.target is not None
        ok = _chance(traj.target + bonus_to_checks(car), car)
        can_claim = any(turn.cards[c].colour in traj.colours for c in car.hand)
        corner = track.next_corner(car.section)
        if corner is not None and corner.off_track is not None:
            # off the track: no move this turn (about a turn's MP), the costs, the re-entry
            fail = -4.0 + turn.off_track_value(corner.index)
        else:
            fail = -turn.damage_cost(1)
        gain = ok * (traj.bonus if can_claim else 0) + (1 - ok) * fail
        if gain > W.extreme_margin:
            return StartTurn(seat=seat, extreme=True)
    return plain


def _early_stop_gain(state: RF90State, car: Car) -> float:
    """What stopping now rather than on the fuel turn is worth: tyres for the weather (the
    weather taken to stay as it is, discounted), the red discs' damage effect gone, against the
    sections the earlier stop costs."""
    from rules.rf90.engine import Ctx, damage_capacity, damage_penalty, weather_modifier

    track = cat.track(state.track, state.race_turns)
    turn, last = state.turn, track.race_turns
    due = min(car.fuel_turn, last + 1)  # the planned stop (none after the last turn)
    wait = due - turn  # turns played before it, this one included
    if wait <= 1:
        return 0.0
    now = weather_modifier(Ctx(state), car)
    fitted = car.model_copy(update={"tyre": _weather_tyre(state, car)})
    better = weather_modifier(Ctx(state), fitted) - now
    gain = W.weather_stays * better * wait
    repaired = car.model_copy(update={"damage_red": 0})
    gain += (damage_penalty(car) - damage_penalty(repaired)) * wait
    if damage_capacity(car) - car.damage <= 1 < damage_capacity(car) - car.damage_brown:
        gain += W.last_space  # the next disc would retire the car, and the stop repairs it
    return gain - (_stops_cost(track, turn) - _stops_cost(track, due))


def _pit(state: RF90State, car: Car, pits: list[StartTurn], track: cat.Track) -> Action:
    """The fuel stop: tyres for the weather, the fewest extra sections that last to the end
    (none when another stop will be needed anyway), the strategy kept."""
    extra = _fuel_stop_extra(state.turn, track.race_turns)
    want = PitStop(extra_sections=extra or 0, tyres=_weather_tyre(state, car))  # type: ignore[arg-type]
    for a in pits:
        if a.pit == want:
            return a
    return pits[0]


def _phase_e(turn: _Turn, a: Action) -> float:
    assert isinstance(a, EndTurn)
    if a.late_brake:
        return -1.0  # never (docs/rules/rf90.md, "Not implemented yet")
    return turn.trajectory(a.trajectory)
