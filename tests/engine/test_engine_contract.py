"""The engine contract (docs/architecture.md, "rules/: one engine shape"): `apply` accepts
exactly what the engine says is legal, never mutates its input, and `IllegalAction` is the only
error a caller can get.

For RF90 and Pit Formula, over random reachable positions (robot games with random legal
choices mixed in, both RF90 tracks, every Pit Formula mode):

(a) every action `legal_actions` lists applies;
(b) random actions, malformed ones included (wrong seat, wrong phase, cards not in hand,
    unknown names, out-of-range numbers, the listed actions with fields changed), are accepted
    exactly when they are in `legal_actions` or in the documented free-form set, and are
    otherwise refused with `IllegalAction` (or `NotYourTurn`), the state left as it was.

The free-form sets are restated here from the documents (docs/rules/rf90.md, "What `apply`
accepts"; docs/rules/pitformula.md, "What a crew may send"), independently of the engines'
checks: RF90's other card selections, Pit Formula's repairs (`Fix`), several cards revealed at
once, and times (`at_ms`).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from rules.base import Action
from rules.errors import IllegalAction
from rules.pitformula import GAME as PF
from rules.pitformula import PitFormulaState
from rules.pitformula.catalog import PART_LETTER
from rules.pitformula.coords import CARD_SLOTS, SLOT_PART, coord_of
from rules.pitformula.repairs import TOKEN_COUNT
from rules.pitformula.state import ON_TABLE, Go, TimeUp
from rules.rf90 import GAME as RF
from rules.rf90 import (
    ROBOT_SEAT,
    ChooseSetup,
    ChooseStart,
    DuelCards,
    DuelDeclare,
    EndTurn,
    Mulligan,
    PitStop,
    PlayCards,
    Qualify,
    RobotTurn,
    StartTurn,
    catalog,
)
from rules.rf90.engine import Ctx, runs_wide_here
from rules.rf90.state import FUEL_TURNS, Car, OffTrackPay, RF90State
from tests.pitformula.pf_helpers import CONFIGS, pf_car, pf_legal

FUZZ = settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def _applies(game: Any, state: Any, action: Action) -> bool:
    """Apply to a state that must come out unchanged: True if accepted, False if refused with
    an IllegalAction (any other exception fails the test)."""
    before = state.model_dump_json()
    try:
        game.apply(state, action)
    except IllegalAction as exc:
        assert exc.message, action
        accepted = False
    else:
        accepted = True
    assert state.model_dump_json() == before, f"apply changed its input: {action!r}"
    return accepted


def _accepts(check: Any, state: Any, action: Action) -> bool:
    try:
        check(state, action)
    except IllegalAction:
        return False
    return True


def _parse(game: Any, data: dict[str, Any]) -> Action | None:
    """The action these fields parse to, or None when they do not parse (not an action)."""
    try:
        return game.parse_action(data)
    except ValidationError:
        return None


# --- RF90 ----------------------------------------------------------------------------------------


def _seat_car(state: RF90State, seat: int) -> Car | None:
    return next((c for c in state.cars if c.seat == seat and seat is not None), None)


def _off_track_ok(
    car: Car, pay: OffTrackPay | None, area: catalog.OffTrack | None, spent: list[int]
) -> bool:
    """docs/rules/rf90.md, "What `apply` accepts": an off-track payment only where a failure
    sends the car off the track, for that area's cost, with other cards of the hand."""
    if pay is None:
        return True
    if area is None:
        return False
    chosen = [*pay.tyre_cards, *([pay.discard] if pay.discard is not None else [])]
    return (
        len(set(chosen)) == len(chosen)
        and all(c in car.hand and c not in spent for c in chosen)
        and len(pay.tyre_cards) <= area.cost.tyres
        and (pay.discard is None or area.cost.cards > 0)
    )


def _next_corner_area(state: RF90State, car: Car) -> catalog.OffTrack | None:
    corner = catalog.track(state.track).next_corner(car.section)
    return corner.off_track if corner is not None else None


def _tyres_asked(state: RF90State, car: Car, a: PlayCards) -> int:
    """The tyres a play asks: its cards', a claimed Sharp Trajectory's, less Save Tyres' one
    and Balance's damage disc."""
    deck = catalog.cards(state.track)
    played = [deck[c] for c in a.cards]
    p = state.pending
    assert p is not None
    traj = catalog.track(state.track).trajectory(p.trajectory) if p.trajectory else None
    claims = (
        traj is not None
        and any(c.colour in traj.colours for c in played)
        and (traj.kind != "extreme" or p.extreme_ok)
    )
    sharp = (
        traj.cost.tyres if (claims and traj and traj.kind == "sharp" and a.use_trajectory) else 0
    )
    tyres = sum(c.tyres for c in played) + sharp
    if car.strategy == "save_tyres" and tyres:
        tyres -= 1
    return tyres - a.balance_damage


def _rf90_variant(state: RF90State, a: Action, listed: Action) -> bool:
    """Whether `a` is `listed` with other card selections (the documented free-form set)."""
    car = _seat_car(state, a.seat)
    if car is None or type(a) is not type(listed):
        return False
    deck = catalog.cards(state.track)
    if isinstance(a, DuelCards):
        assert isinstance(listed, DuelCards)
        return sorted(a.cards) == sorted(listed.cards) and len(set(a.cards)) == len(a.cards)
    if isinstance(a, StartTurn):
        assert isinstance(listed, StartTurn)
        fields = ("skip", "pit", "extreme", "new_strategy", "save_fuel_discard")
        if any(getattr(a, f) != getattr(listed, f) for f in fields):
            return False
        if (a.wise_driving is None) != (listed.wise_driving is None):
            return False
        if a.wise_driving is not None:
            w = a.wise_driving
            if len(w) != len(listed.wise_driving or []) or len(set(w)) != len(w):
                return False
            if any(c not in car.hand or c > catalog.TRACK_CARD_BASE for c in w):
                return False
        area = _next_corner_area(state, car) if a.extreme else None
        return _off_track_ok(car, a.off_track_pay, area, [])
    if isinstance(a, EndTurn):
        assert isinstance(listed, EndTurn)
        if (a.late_brake, a.trajectory) != (listed.late_brake, listed.trajectory):
            return False
        area = _next_corner_area(state, car) if a.late_brake else None
        return _off_track_ok(car, a.off_track_pay, area, [])
    if isinstance(a, PlayCards):
        assert isinstance(listed, PlayCards)
        if sorted(a.cards) != sorted(listed.cards) or len(set(a.cards)) != len(a.cards):
            return False
        fields = ("use_trajectory", "balance_damage", "blue_bonus", "unlap", "save_fuel_choice")
        if any(getattr(a, f) != getattr(listed, f) for f in fields):
            return False
        rest = [c for c in car.hand if c not in a.cards]
        tc = a.tyre_cards
        if len(set(tc)) != len(tc) or any(c not in rest for c in tc):
            return False
        sharp: list[int] = []
        if listed.sharp_discard is None:
            if a.sharp_discard is not None:
                return False
        else:
            pool = [c for c in rest if c not in tc]
            if a.sharp_discard is None:
                if not pool:
                    return False
                sharp = [min(pool, key=lambda c: (deck[c].mp, c))]
            elif a.sharp_discard in pool:
                sharp = [a.sharp_discard]
            else:
                return False
        if len(tc) > _tyres_asked(state, car, a):
            return False
        played = [deck[c] for c in a.cards]
        area = catalog.track(state.track).sections[car.section].off_track
        wide = any(c.check for c in played) and runs_wide_here(Ctx(state), car)
        return _off_track_ok(car, a.off_track_pay, area if wide else None, [*a.cards, *tc, *sharp])
    return False


def rf90_legal(state: RF90State, a: Action) -> bool:
    """The contract's answer: listed, or a listed action with other card selections."""
    if state.phase == "finished":
        return False
    legal = RF.legal_actions(state, a.seat)
    return a in legal or any(_rf90_variant(state, a, listed) for listed in legal)


MODELS: dict[str, type[Action]] = {
    m.model_fields["kind"].default: m
    for m in (
        ChooseSetup,
        Mulligan,
        Qualify,
        ChooseStart,
        StartTurn,
        PlayCards,
        EndTurn,
        DuelDeclare,
        DuelCards,
        RobotTurn,
    )
}
KINDS = tuple(MODELS)


def rf90_random_actions(state: RF90State, rng: random.Random, n: int) -> list[Action]:
    """Random actions for this position: listed ones with fields changed, and actions of
    every kind with random fields (only those that parse)."""
    track = catalog.track(state.track)
    deck = sorted(catalog.cards(state.track))
    seats = [c.seat for c in state.cars if c.seat is not None]
    acting = RF.to_act(state)
    seat_pool = [*acting, *acting, *seats, ROBOT_SEAT, 9]
    trajectories = [t.id for s in track.sections for t in s.trajectories] + ["zzz"]
    strategies = [*catalog.strategy_ids(), "nitro"]
    tyres = ["soft", "hard", "intermediate", "wet"]
    listed = [a for s in acting for a in RF.legal_actions(state, s)]

    def hand(seat: int) -> list[int]:
        car = _seat_car(state, seat)
        return car.hand if car is not None else []

    def a_card(seat: int) -> int:
        h = hand(seat)
        roll = rng.random()
        if h and roll < 0.7:
            return rng.choice(h)
        if roll < 0.9:
            return rng.choice(deck)
        return rng.choice([0, -1, 99_999])

    def some_cards(seat: int, most: int) -> list[int]:
        return [a_card(seat) for _ in range(rng.randint(0, most))]

    def change(data: dict[str, Any]) -> None:
        seat = data["seat"]
        field = rng.choice(
            [
                "seat",
                "cards",
                "tyre_cards",
                "wise_driving",
                "save_fuel_discard",
                "sharp_discard",
                "off_track_pay",
                "flip",
                "new_strategy",
                "pit",
                "save_fuel_choice",
                "trajectory",
                "qualify",
                "start",
                "setup",
                "car",
                "order",
                "reselect",
                "reselect",
                "reselect",
            ]
        )
        if field == "seat":
            data["seat"] = rng.choice(seat_pool)
        elif field == "cards":
            data["cards"] = some_cards(seat, 3)
        elif field == "tyre_cards":
            data["tyre_cards"] = some_cards(seat, 3)
        elif field == "wise_driving":
            data["wise_driving"] = rng.choice([None, some_cards(seat, 4)])
        elif field in ("save_fuel_discard", "sharp_discard"):
            data[field] = rng.choice([None, a_card(seat)])
        elif field == "off_track_pay":
            pay = {"tyre_cards": some_cards(seat, 2), "discard": rng.choice([None, a_card(seat)])}
            data["off_track_pay"] = rng.choice([None, pay])
        elif field == "flip":
            flags = (
                "skip",
                "extreme",
                "use_trajectory",
                "blue_bonus",
                "balance_damage",
                "unlap",
                "late_brake",
                "swap",
                "join",
            )
            name = rng.choice(flags)
            data[name] = not data.get(name, False)
        elif field == "new_strategy":
            data["new_strategy"] = rng.choice([None, *strategies])
        elif field == "pit":
            data["pit"] = rng.choice(
                [
                    None,
                    {
                        "extra_sections": rng.randint(0, 2),
                        "tyres": rng.choice(tyres),
                        "strategy": rng.choice([None, *strategies]),
                    },
                ]
            )
        elif field == "save_fuel_choice":
            data["save_fuel_choice"] = rng.choice(["track_card", "fuel"])
        elif field == "trajectory":
            data["trajectory"] = rng.choice([None, *trajectories])
        elif field == "qualify":
            data.update(card=a_card(seat), fuel=rng.choice(FUEL_TURNS))
        elif field == "start":
            data.update(tyres=rng.choice(tyres), strategy=rng.choice(strategies))
        elif field == "setup":
            data.update(
                skill=rng.choice([None, *catalog.skill_ids(), "nitro"]),
                tyres=rng.randint(0, 4),
                wear=rng.randint(0, 4),
                cards=rng.randint(0, 4),
            )
        elif field == "car":
            data["car"] = rng.randint(-1, len(state.cars))
        elif field == "order":
            for key in ("cards", "tyre_cards", "wise_driving"):
                if isinstance(data.get(key), list):
                    data[key] = list(reversed(data[key]))
        elif field == "reselect":  # other cards of the hand, mostly valid selections
            own = hand(seat)
            played = data["cards"] if isinstance(data.get("cards"), list) else []
            free = [c for c in own if c not in played]
            if isinstance(data.get("tyre_cards"), list):
                k = min(len(free), len(data["tyre_cards"]) + rng.randint(-1, 1))
                data["tyre_cards"] = rng.sample(free, max(0, k))
            if data.get("sharp_discard") is not None:
                data["sharp_discard"] = rng.choice([None, *free]) if free else None
            if isinstance(data.get("wise_driving"), list):
                races = [c for c in own if c <= catalog.TRACK_CARD_BASE]
                k = min(len(races), len(data["wise_driving"]))
                data["wise_driving"] = rng.sample(races, k)
            if "off_track_pay" in data and free and rng.random() < 0.3:
                left = [c for c in free if c not in (data.get("tyre_cards") or [])]
                left = [c for c in left if c != data.get("sharp_discard")] or free
                picks = rng.sample(left, min(len(left), rng.randint(0, 3)))
                data["off_track_pay"] = (
                    {"tyre_cards": picks[1:], "discard": picks[0]} if picks else {}
                )

    out: list[Action] = []
    while len(out) < n:
        if listed and rng.random() < 0.7:
            data = rng.choice(listed).model_dump()
        else:
            seat = rng.choice(seat_pool)
            data = {"kind": rng.choice(KINDS), "seat": seat}
            data.update(
                cards=some_cards(seat, 2) or [a_card(seat)],
                card=a_card(seat),
                fuel=rng.choice(FUEL_TURNS),
                tyres=rng.choice(tyres),
                strategy=rng.choice(strategies),
                car=rng.randint(0, len(state.cars) - 1),
            )
        for _ in range(rng.randint(1, 3)):
            change(data)
        model = MODELS[data["kind"]]
        action = _parse(RF, {k: v for k, v in data.items() if k in model.model_fields})
        if action is not None:
            out.append(action)
    return out


def _rf90_position_checks(state: RF90State, rng: random.Random) -> None:
    # (a) listed actions apply (a sample of the long lists)
    for seat in RF.to_act(state):
        legal = RF.legal_actions(state, seat)
        assert legal, f"seat {seat} is to act with no legal action"
        sample = legal if len(legal) <= 6 else [legal[0], legal[-1], *rng.sample(legal, 4)]
        for a in sample:
            assert _accepts(RF.check_action, state, a), a
            assert _applies(RF, state, a), a
    # (b) random actions: the engine's check agrees with the contract; some are applied
    for i, a in enumerate(rf90_random_actions(state, rng, 24)):
        legal = rf90_legal(state, a)
        assert _accepts(RF.check_action, state, a) == legal, (legal, a)
        if i % 4 == 0:
            assert _applies(RF, state, a) == legal, (legal, a)


def _rf90_play(seed: int, track: str, players: int, actions: int, every: int) -> int:
    """Play a race with robots and random legal choices mixed in; check some positions."""
    rng = random.Random(seed)
    state = RF.new_game(seed, RF.simulation_config(players=players, track=track))
    checked = 0
    for step in range(actions):
        if RF.is_terminal(state):
            break
        if step % every == 0 or state.phase != "race":  # (few decisions before the race)
            _rf90_position_checks(state, rng)
            checked += 1
        seat = rng.choice(RF.to_act(state))
        # random set-ups and strategies bring skills and strategies the seat policy never picks
        if rng.random() < (0.7 if state.phase in ("setup", "start") else 0.15):
            action = rng.choice(RF.legal_actions(state, seat))
        else:
            action = RF.robot_action(state, seat)
        state, _ = RF.apply(state, action)
    if RF.is_terminal(state):
        for a in rf90_random_actions(state, rng, 5):
            assert not rf90_legal(state, a)
            assert not _applies(RF, state, a)
    return checked


@FUZZ
@given(seed=st.integers(0, 2**31), track=st.sampled_from(["barcelona", "silverstone"]))
def test_rf90_apply_accepts_exactly_the_legal_actions(seed: int, track: str) -> None:
    players = random.Random(seed).choice([1, 2, 3, 4])
    assert _rf90_play(seed, track, players, actions=400, every=7) > 0


def test_rf90_robot_only_races_accept_exactly_the_robot_turn() -> None:
    for track in ("barcelona", "silverstone"):
        assert _rf90_play(5, track, players=0, actions=60, every=5) > 0


def _reselections(state: RF90State, rng: random.Random, n: int) -> list[Action]:
    """The listed actions of the seat to act with other card selections, valid or not: other
    cards, orders, counts, a Sharp discard, an off-track payment."""
    seat = RF.to_act(state)[0]
    car = _seat_car(state, seat)
    assert car is not None
    deck = sorted(catalog.cards(state.track))
    listed = RF.legal_actions(state, seat)
    selecting = [
        a
        for a in listed
        if getattr(a, "wise_driving", None)
        or getattr(a, "extreme", False)
        or getattr(a, "late_brake", False)
        or isinstance(a, PlayCards | DuelCards)
    ]
    out: list[Action] = []
    while len(out) < n:
        data = rng.choice(selecting if selecting and rng.random() < 0.7 else listed).model_dump()
        played = data["cards"] if isinstance(data.get("cards"), list) else []
        pool = [c for c in car.hand if c not in played]
        if rng.random() < 0.2:
            pool += rng.sample(deck, 2)  # cards that are not in the hand
        if rng.random() < 0.2:
            pool += played  # cards played
        if isinstance(data.get("cards"), list) and rng.random() < 0.5:
            data["cards"] = list(reversed(data["cards"]))
        if "tyre_cards" in data and rng.random() < 0.6:
            data["tyre_cards"] = rng.sample(pool, min(len(pool), rng.randint(0, 3)))
        if "sharp_discard" in data and rng.random() < 0.5:
            data["sharp_discard"] = rng.choice([None, *pool]) if pool else None
        if data.get("wise_driving") is not None and rng.random() < 0.7:
            data["wise_driving"] = rng.sample(pool, min(len(pool), rng.randint(0, 4)))
        if "off_track_pay" in data and rng.random() < 0.4:
            picks = rng.sample(pool, min(len(pool), rng.randint(0, 3)))
            discard = picks.pop() if picks and rng.random() < 0.6 else None
            data["off_track_pay"] = {"tyre_cards": picks, "discard": discard}
        action = _parse(RF, data)
        if action is not None:
            out.append(action)
    return out


def _built_positions() -> list[RF90State]:
    """Positions where the free-form selections matter: an Extreme Trajectory before a corner
    with a card symbol (Wise Driving, Save Fuel), a green card in the chicane (runs wide there),
    a Sharp Trajectory that costs a tyre and a card, a late braking point before a corner."""
    from rules.rf90.scenario import begin, build, cards

    hand = cards([("red", 4), ("red", 3), ("green", 3), ("orange", 2), ("yellow", 1), ("green", 1)])
    base = {"name": "Blue", "seat": 0, "hand": hand, "chips": 1}
    extreme = build(
        "barcelona",
        [
            {
                **base,
                "section": 9,
                "trajectory": "B9a",
                "skill": "wise_driving",
                "strategy": "save_fuel",
            }
        ],
    )
    chicane = build("barcelona", [{**base, "section": 10, "strategy": "balance"}])
    sharp = build(
        "silverstone",
        [
            {**base, "section": 4, "trajectory": "S4a", "strategy": "save_tyres"},
            {"name": "Lapper", "robot": "fast", "section": 20, "lap": 1, "mark": "ended"},
        ],
    )
    braking = begin(build("barcelona", [{**base, "section": 2, "hand": hand[:3]}]), 0)
    assert braking.pending is not None
    braking.pending.phase = "E"  # the car ended its move at the late braking point
    out = [begin(extreme, 0), braking]
    for state in (chicane, sharp):
        state = begin(state, 0)
        state, _ = RF.apply(state, StartTurn(seat=0))  # phase B
        out.append(state)
    return out


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31))
def test_rf90_other_card_selections_are_accepted_exactly_as_documented(seed: int) -> None:
    rng = random.Random(seed)
    seen = {True: 0, False: 0}
    for state in _built_positions():
        for i, a in enumerate(_reselections(state, rng, 60)):
            legal = rf90_legal(state, a)
            seen[legal] += 1
            assert _accepts(RF.check_action, state, a) == legal, (legal, a)
            if i % 6 == 0:
                assert _applies(RF, state, a) == legal, (legal, a)
    assert seen[True] > 10 and seen[False] > 10


# (c) the case: StartTurn with a pit stop and the Extreme Trajectory together


def _seed_1_barcelona(actions: int) -> RF90State:
    state = RF.new_game(1, RF.simulation_config(players=4, track="barcelona"))
    for _ in range(actions):
        state, _ = RF.apply(state, RF.robot_action(state, RF.to_act(state)[0]))
    return state


def test_rf90_seed_1_barcelona_after_61_actions_pit_and_extreme_is_illegal() -> None:
    state = _seed_1_barcelona(61)
    action = StartTurn(seat=2, pit=PitStop(tyres="soft"), extreme=True)
    assert not rf90_legal(state, action)
    assert not _applies(RF, state, action)


def test_rf90_pit_and_extreme_together_are_refused_where_they_used_to_crash() -> None:
    # Seed 1, Barcelona: the first time a player's car starts its turn on an Extreme
    # Trajectory with a soft set left (the pit stop moved it off the trajectory, then the
    # attempt asserted it was still on one: AssertionError instead of IllegalAction).
    state = RF.new_game(1, RF.simulation_config(players=4, track="barcelona"))
    found = None
    while not RF.is_terminal(state):
        p = state.pending
        if p is not None and p.phase == "A" and state.duel is None and p.trajectory:
            kind = catalog.track(state.track).trajectory(p.trajectory).kind
            car = state.cars[p.car]
            if kind == "extreme" and car.soft_sets == 0 and not car.off_track:
                found = state
                break
        state, _ = RF.apply(state, RF.robot_action(state, RF.to_act(state)[0]))
    assert found is not None
    seat = RF.to_act(found)[0]
    both = StartTurn(seat=seat, pit=PitStop(tyres="soft"), extreme=True)
    with pytest.raises(IllegalAction, match="pit without the Extreme Trajectory"):
        RF.apply(found, both)
    assert not _applies(RF, found, both)
    # each on its own is offered and applies
    for alone in (
        StartTurn(seat=seat, pit=PitStop(tyres="soft")),
        StartTurn(seat=seat, extreme=True),
    ):
        assert alone in RF.legal_actions(found, seat)
        assert _applies(RF, found, alone)


# --- Pit Formula ---------------------------------------------------------------------------------


def pf_random_actions(state: PitFormulaState, rng: random.Random, n: int) -> list[Action]:
    seats = list(range(state.settings.players))
    acting = PF.to_act(state)
    seat_pool = [*acting, *acting, *seats, -1, 7]
    names = [*CARD_SLOTS, *CARD_SLOTS, "T1", "tyre2", "wing", "x"]
    clock, deadline = state.race.clock_ms, state.race.deadline_ms
    times = [None, None, 0, clock, clock + 1, 10**7]
    if deadline is not None:
        times += [deadline - 1, deadline, deadline + 1]

    def token() -> str:
        roll = rng.random()
        if roll < 0.75:
            return coord_of(rng.randrange(70))
        return rng.choice(["spare", "spare", "sp", "B3", "zz", "o9"])

    def solved() -> list[str]:
        """Tokens that do fit some face-up empty card of a car (free-form fixes that apply)."""
        car_i = pf_car(state, rng.choice(seat_pool))
        if car_i is None:
            return [token()]
        open_ = [cs for cs in state.cars[car_i].cards if cs.revealed and not cs.tokens]
        if not open_:
            return [token()]
        part = SLOT_PART[rng.choice(open_).slot]
        free = [
            coord_of(s)
            for s, f in enumerate(state.faces)
            if state.where[s] == ON_TABLE and f[0] == PART_LETTER[part]
        ]
        k = rng.randint(*TOKEN_COUNT[part])
        return [rng.choice([*free, "spare"]) if free else "spare" for _ in range(k)]

    out: list[Action] = []
    while len(out) < n:
        kind = rng.choice(
            ["go", "reveal", "fix", "fix", "fix", "clear", "flag", "retire", "time_up"]
        )
        data: dict[str, Any] = {"kind": kind, "seat": rng.choice(seat_pool)}
        if kind != "go":
            data["at_ms"] = rng.choice(times)
        if kind == "reveal":
            data["cards"] = [rng.choice(names) for _ in range(rng.randint(1, 3))]
        elif kind == "fix":
            data["card"] = rng.choice(names)
            tokens = solved() if rng.random() < 0.5 else []
            data["tokens"] = tokens or [token() for _ in range(rng.randint(1, 3))]
        elif kind == "clear":
            data["card"] = rng.choice(names)
        action = _parse(PF, data)
        if action is not None:
            out.append(action)
    listed = [a for s in acting for a in PF.legal_actions(state, s)]
    for a in rng.sample(listed, min(4, len(listed))):
        if a.kind != "go":
            a = a.model_copy(update={"at_ms": rng.choice(times)})
        out.append(a)
    return out


def _pf_play(seed: int, config: dict[str, Any]) -> int:
    rng = random.Random(seed)
    state = PF.new_game(seed, config)
    checked = 0
    for step in range(400):
        if PF.is_terminal(state):
            break
        seats = PF.to_act(state)
        if step % 4 == 0:
            checked += 1
            for seat in seats:  # (a)
                for a in PF.legal_actions(state, seat):
                    assert _applies(PF, state, a), a
            for a in pf_random_actions(state, rng, 12):  # (b)
                legal = pf_legal(state, a)
                assert _accepts(PF.check_action, state, a) == legal, (legal, a)
                assert _applies(PF, state, a) == legal, (legal, a)
        seat = rng.choice(seats)
        action = PF.robot_action(state, seat)
        assert pf_legal(state, action), action  # the simulated crews keep the contract
        state, _ = PF.apply(state, action)
    return checked


@FUZZ
@given(seed=st.integers(0, 2**31), config=st.sampled_from(CONFIGS))
def test_pitformula_apply_accepts_exactly_the_legal_actions(seed: int, config: dict) -> None:
    assert _pf_play(seed, config) > 0


def test_pitformula_time_up_waits_for_the_stopwatch() -> None:
    # TimeUp without a time used to end the race at once, whatever the clock said
    state = PF.new_game(3, {"mode": "solo", "players": 1})
    state, _ = PF.apply(state, Go(seat=0))
    assert state.race.deadline_ms is not None and state.race.clock_ms < state.race.deadline_ms
    assert TimeUp(seat=0) not in PF.legal_actions(state, 0)
    with pytest.raises(IllegalAction, match="has not run out"):
        PF.apply(state, TimeUp(seat=0))
    ended, _ = PF.apply(state, TimeUp(seat=0, at_ms=state.race.deadline_ms))
    assert ended.results and ended.results[-1].ended_by == "time_up"
