"""What RF90 allows a seat to do: the legal-action lists and the check `apply` makes.

`legal_actions(game, state, seat)` lists what a seat may decide now, in the form the bot turns
into questions and buttons (docs/rules/rf90.md, "Prompts" under "Robots").

`check_action(game, state, action)` is what `RF90.apply` accepts (docs/rules/rf90.md, "What
`apply` accepts"), and it raises `IllegalAction` (`NotYourTurn` for a seat not to act) with a
message saying what to do for anything else. It accepts exactly:

1. the actions `legal_actions(state, action.seat)` lists, and
2. the same actions with other card selections (Paddock rule: the lists offer the lowest
   cards, but which cards pay is the player's choice):
   - the cards of a list in any order (the cards played, duel cards, Wise Driving's
     discards, tyre cards, off-track tyre cards);
   - `PlayCards.tyre_cards`: any cards from the hand, each once, none of them played or the
     Sharp Trajectory's discard, at most one per tyre the play asks (after Save Tyres and
     Balance); chips pay the other tyres, damage discs what chips cannot (EXP: 1 card = 1 tyre;
     the lists offer no card, or the lowest cards for the tyres the chips do not cover);
   - `PlayCards.sharp_discard`, in a play that pays a Sharp Trajectory's card: any card from
     the hand neither played nor paying tyres, or None for the lowest such card;
   - `StartTurn.wise_driving`: as many other Race cards from the hand, each once;
   - `off_track_pay` (the lists leave it out: paid automatically), only on an action whose
     failure sends the car off the track — `StartTurn` with `extreme` and `EndTurn` with
     `late_brake` when the next section is a corner with an off-track area, `PlayCards` with a
     card that has a check where a failed check runs wide (`runs_wide_here`) — and for that
     area's cost: at most its tyres in `tyre_cards`, `discard` only if it has the card symbol;
     different cards from the hand, none of them played, paying tyres or discarded for a Sharp
     Trajectory by the same action.

`check_action` decides this from the action's fields, without building the list (`apply` is on
the hot path of simulations, and a phase A or B list has a hundred actions or more);
tests/engine/test_engine_contract.py checks on random positions that it agrees with the lists and
the selections above (a restatement of its own), so that the two cannot drift apart.
"""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING, Any

from rules.base import Action
from rules.errors import IllegalAction, NotYourTurn
from rules.rf90 import catalog as cat
from rules.rf90.mechanics import Ctx, can_pair, fuel_room, max_fuel, runs_wide_here
from rules.rf90.state import (
    FUEL_TURNS,
    ROBOT_SEAT,
    Car,
    ChooseSetup,
    ChooseStart,
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
    RobotTurn,
    StartTurn,
    TyreType,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from rules.rf90.engine import RF90


# --- small rules shared by the lists and the check -------------------------------------------


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


def pit_tyres(car: Car) -> list[TyreType]:
    """The tyres a car may fit now: soft while a soft set is left (HTP, Tyres), hard,
    intermediate, wet."""
    soft = cat.tables().tyres.get("soft")
    left = car.soft_sets < (soft.max_sets or 99)
    tyres: list[TyreType] = ["soft", "hard", "intermediate", "wet"]
    return tyres if left else tyres[1:]


def trajectory_for(state: RF90State, played: list[cat.Card]) -> cat.Trajectory | None:
    """The trajectory whose bonus these cards would claim: the spot the car started its turn
    on, with a card of its colour, and an Extreme one only after a passed attempt."""
    p = state.pending
    if p is None or p.trajectory is None:
        return None
    traj = cat.track(state.track, state.race_turns).trajectory(p.trajectory)
    if not any(c.colour in traj.colours for c in played):
        return None
    if traj.kind == "extreme" and not p.extreme_ok:
        return None
    return traj


def tyres_due(car: Car, played: list[cat.Card], cost: cat.Cost) -> int:
    """Tyres due in phase C for these cards and a Sharp Trajectory's cost (Save Tyres: 1 less)."""
    tyres = sum(c.tyres for c in played) + cost.tyres
    return tyres - 1 if car.strategy == "save_tyres" and tyres else tyres


def other_strategies(car: Car) -> list[str]:
    """The strategies a change may pick: every one but the car's own."""
    return [sid for sid in cat.strategy_ids() if sid != car.strategy]


def on_extreme(state: RF90State, trajectory: str | None) -> bool:
    """Whether the car starts its turn on an Extreme Trajectory (phase A may attempt it)."""
    return (
        trajectory is not None
        and cat.track(state.track, state.race_turns).trajectory(trajectory).kind == "extreme"
    )


# --- the lists ---------------------------------------------------------------------------------


def card_plays(game: RF90, state: RF90State, seat: int) -> list[list[int]]:
    """Every legal set of movement cards (one card, or a legal pair) for this seat now."""
    car = game.seat_car(state, seat)
    cards = cat.cards(state.track)
    hand = sorted(car.hand)
    plays = [[c] for c in hand]
    for a, b in combinations(hand, 2):
        ok, _push = can_pair(cards[a], cards[b], car.strategy == "push")
        if ok:
            plays.append([a, b])
    return plays


def legal_actions(game: RF90, state: RF90State, seat: int) -> list[Action]:
    if seat not in game.to_act(state):
        return []
    if seat == ROBOT_SEAT:
        assert state.robot_next is not None
        return [RobotTurn(seat=seat, car=state.robot_next)]
    car = game.seat_car(state, seat)
    out: list[Action] = []
    if state.phase == "setup" and not car.setup_chosen:
        return setup_choices(seat)
    if state.phase == "setup":
        return [Mulligan(seat=seat, swap=False), Mulligan(seat=seat, swap=True)]
    if state.phase == "qualifying":
        return [Qualify(seat=seat, card=c, fuel=f) for c in car.hand for f in FUEL_TURNS]
    if state.phase == "start":
        tyres = pit_tyres(car)
        return [
            ChooseStart(seat=seat, tyres=t, strategy=s) for t in tyres for s in cat.strategy_ids()
        ]
    if state.duel is not None:
        if state.duel.stage == "declare":
            return [DuelDeclare(seat=seat, join=True), DuelDeclare(seat=seat, join=False)]
        out.append(DuelCards(seat=seat, cards=[]))
        out += [DuelCards(seat=seat, cards=[c]) for c in car.hand]
        out += [DuelCards(seat=seat, cards=list(p)) for p in combinations(car.hand, 2)]
        return out
    p = state.pending
    assert p is not None
    if p.phase == "A":
        return phase_a_actions(state, seat, car, p.trajectory)
    if p.phase == "B":
        return [PlayCards(seat=seat, **o) for o in phase_b_options(game, state, seat, car)]
    sec = cat.track(state.track, state.race_turns).sections[car.section]
    trajs: list[str | None] = [None]
    if not car.off_track:
        trajs += game.free_trajectories(state, car.section)
    brakes = [False, True] if (sec.late_brake and not car.off_track) else [False]
    return [EndTurn(seat=seat, late_brake=b, trajectory=t) for b in brakes for t in trajs]


def phase_b_options(game: RF90, state: RF90State, seat: int, car: Car) -> list[dict]:
    """Phase B: every legal play, with each decision that changes the outcome: taking or
    declining a Sharp Trajectory, Balance's damage disc, paying missing tyre chips with cards
    (the lowest) rather than damage, a blue disc, not unlapping, Save Fuel's fuel or Track card.
    Card selections (which cards pay, the Sharp discard) are the lowest cards (`check_action`
    accepts any other valid selection). As PlayCards fields without the seat, in prompt order."""
    cards = cat.cards(state.track)
    higher_lap = any(o.running and o.lap > car.lap for o in state.cars)
    tank_room = car.strategy == "save_fuel" and fuel_room(Ctx(state), car)
    out: list[dict] = []
    low_first = sorted(car.hand, key=lambda c: (cards[c].mp, c))
    for play in card_plays(game, state, seat):
        played = [cards[c] for c in play]
        rest = [c for c in low_first if c not in play]
        traj = trajectory_for(state, played)
        sharp = traj is not None and traj.kind == "sharp"
        small = all(c.mp <= 2 for c in played)
        fuel_ok = tank_room and small
        for use in [True, False] if sharp else [True]:
            cost = traj.cost if (use and sharp and traj is not None) else cat.Cost()
            if cost.cards and not rest:
                continue  # no card to discard: only declining is possible
            sharp_discard = rest[0] if cost.cards else None
            pool = [c for c in rest if c != sharp_discard]
            due = tyres_due(car, played, cost)
            for balance in [False, True] if car.strategy == "balance" and due > 0 else [False]:
                short = max(0, due - balance - car.chips)
                payments: list[list[int]] = [[]] + ([pool[:short]] if short and pool else [])
                for tyre_cards in payments:
                    for blue in [False, True] if car.blue > 0 else [False]:
                        for unlap in [True, False] if higher_lap else [True]:
                            for choice in ["track_card", "fuel"] if fuel_ok else ["track_card"]:
                                out.append(
                                    {
                                        "cards": play,
                                        "tyre_cards": tyre_cards,
                                        "use_trajectory": use,
                                        "sharp_discard": sharp_discard,
                                        "balance_damage": balance,
                                        "blue_bonus": blue,
                                        "unlap": unlap,
                                        "save_fuel_choice": choice,
                                    }
                                )
    return out


def phase_a_actions(
    state: RF90State, seat: int, car: Car, trajectory: str | None, with_pits: bool = True
) -> list[Action]:
    """Phase A: play on, skip the turn (keeping or changing the strategy), pit (every extra
    fuel, tyre type and strategy; the strategy may change only in a pit stop or a skipped turn,
    or any time with Versatility), the Extreme Trajectory, Wise Driving, Save Fuel's discard.
    Only pit stops on the fuel turn; none for a car off the track (it cannot pit).
    `with_pits=False` leaves out the optional pit stops (the seat policy's shorter list)."""
    others = other_strategies(car)
    must_pit = car.fuel_turn <= state.turn
    pits: list[Action] = [
        StartTurn(seat=seat, pit=PitStop(extra_sections=x, tyres=t, strategy=sid))
        for x in range(3)
        for t in pit_tyres(car)
        for sid in [None, *others]
        if (with_pits or must_pit) and not car.off_track
    ]
    if must_pit:
        return pits
    out: list[Action] = [StartTurn(seat=seat), StartTurn(seat=seat, skip=True)]
    out += [StartTurn(seat=seat, skip=True, new_strategy=sid) for sid in others]
    if car.skill == "versatility":
        out += [StartTurn(seat=seat, new_strategy=sid) for sid in others]
    out += pits
    extreme = on_extreme(state, trajectory)
    if extreme:
        out.append(StartTurn(seat=seat, extreme=True))
    if car.skill == "wise_driving" and not car.wise_used:
        # discard the k lowest Race cards, k = 0 (draw up to the limit) to all of them
        cards = cat.cards(state.track)
        races = sorted(
            (c for c in car.hand if c <= cat.TRACK_CARD_BASE), key=lambda c: (cards[c].mp, c)
        )
        out += [StartTurn(seat=seat, wise_driving=races[:k]) for k in range(len(races) + 1)]
    if car.strategy == "save_fuel":  # Save Fuel bonus: discard a card over +2 to draw two
        cards = cat.cards(state.track)
        for c in sorted(car.hand):
            if cards[c].mp > 2:
                out.append(StartTurn(seat=seat, save_fuel_discard=c))
                if extreme:
                    out.append(StartTurn(seat=seat, extreme=True, save_fuel_discard=c))
    return out


def setup_choices(seat: int) -> list[Action]:
    """Every legal skill and set-up (HTP, Car Setup)."""
    t = cat.tables().setup
    points = range(min(t.tyres), t.max_per_category + 1)
    out: list[Action] = []
    for skill in [None, *cat.skill_ids()]:
        for ty in points:
            for w in points:
                for c in points:
                    if setup_problem(skill, ty, w, c) is None:
                        out.append(ChooseSetup(seat=seat, skill=skill, tyres=ty, wear=w, cards=c))
    return out


# --- the check -----------------------------------------------------------------------------------

# What each decision point waits for, and how to say so.
_WANTED = {
    "choose_setup": "Choose your skill and set-up first.",
    "mulligan": "Keep your starting hand or take the substitute car now.",
    "qualify": "Pick your qualifying card and fuel token now.",
    "choose_start": "Choose your starting tyres and strategy now.",
    "start_turn": "Now you must start your turn.",
    "play_cards": "Now you must play your cards.",
    "end_turn": "Now you must end your turn.",
    "duel_declare": "Say first whether you join the duel.",
    "duel_cards": "Put your duel cards down now (up to two, or none).",
    "robot_turn": "A robot car's turn is awaited.",
}


def expected_kind(game: RF90, state: RF90State, seat: int) -> str:
    """The kind of action a seat that `to_act` names must send now."""
    if state.phase == "setup":
        return "mulligan" if game.seat_car(state, seat).setup_chosen else "choose_setup"
    if state.phase == "qualifying":
        return "qualify"
    if state.phase == "start":
        return "choose_start"
    if seat == ROBOT_SEAT:
        return "robot_turn"
    if state.duel is not None:
        return "duel_declare" if state.duel.stage == "declare" else "duel_cards"
    assert state.pending is not None  # a player's seat acts in a duel or in its turn
    return {"A": "start_turn", "B": "play_cards", "E": "end_turn"}[state.pending.phase]


def check_action(game: RF90, state: RF90State, action: Action) -> None:
    """Raise IllegalAction unless `apply` accepts this action now (see the module docstring)."""
    if state.phase == "finished":
        raise IllegalAction("The race is over.")
    if action.seat not in game.to_act(state):
        raise NotYourTurn()
    want = expected_kind(game, state, action.seat)
    if action.kind != want:
        raise IllegalAction(_wrong_kind(want, action))
    check = _CHECKS[want]
    if not isinstance(action, check[0]):
        raise IllegalAction(f"Unknown action {action.kind!r}.")
    check[1](game, state, action)


def _wrong_kind(want: str, action: Action) -> str:
    if want == "choose_setup" and isinstance(action, Mulligan):
        return "Every player chooses a set-up before the substitute car."
    if want == "mulligan" and isinstance(action, ChooseSetup):
        return "You have already chosen your skill and set-up."
    return _WANTED[want]


def _check_setup(game: RF90, state: RF90State, a: ChooseSetup) -> None:
    problem = setup_problem(a.skill, a.tyres, a.wear, a.cards)
    if problem:
        raise IllegalAction(problem)


def _check_mulligan(game: RF90, state: RF90State, a: Mulligan) -> None:
    return None  # keep or swap: both are offered


def _check_qualify(game: RF90, state: RF90State, a: Qualify) -> None:
    car = game.seat_car(state, a.seat)
    if a.card not in car.hand:
        raise IllegalAction("That card is not in your hand.")
    if a.fuel not in FUEL_TURNS:
        raise IllegalAction("Choose a fuel token: turn 8, 10, 12, 14 or 16.")


def _check_tyres(car: Car, tyres: str) -> None:
    if tyres not in pit_tyres(car):
        raise IllegalAction("You have used both sets of soft tyres.")


def _check_start(game: RF90, state: RF90State, a: ChooseStart) -> None:
    car = game.seat_car(state, a.seat)
    if a.strategy not in cat.strategy_ids():
        raise IllegalAction(f"Unknown strategy {a.strategy!r}.")
    _check_tyres(car, a.tyres)


def _check_robot_turn(game: RF90, state: RF90State, a: RobotTurn) -> None:
    if state.robot_next is None or a.car != state.robot_next:
        raise IllegalAction(f"It is not car {a.car}'s turn.")


def _check_duel_declare(game: RF90, state: RF90State, a: DuelDeclare) -> None:
    return None  # join or refuse: both are offered to the car asked (`to_act`)


def _check_duel_cards(game: RF90, state: RF90State, a: DuelCards) -> None:
    car = game.seat_car(state, a.seat)
    if len(a.cards) > 2 or len(set(a.cards)) != len(a.cards) or not _in_hand(car, a.cards):
        raise IllegalAction("Play up to two cards from your hand, face down.")


def _in_hand(car: Car, cards: list[int]) -> bool:
    return all(c in car.hand for c in cards)


def _distinct(cards: list[int]) -> bool:
    return len(set(cards)) == len(cards)


def _pending(state: RF90State) -> tuple[Pending, Car]:
    p = state.pending
    assert p is not None  # expected_kind named a phase of the individual turn
    return p, state.cars[p.car]


def _strategy_change(car: Car, sid: str) -> None:
    if sid not in cat.strategy_ids():
        raise IllegalAction(f"Unknown strategy {sid!r}.")
    if sid == car.strategy:
        name = next(r.name for r in cat.tables().strategies if r.id == sid)
        raise IllegalAction(f"You already race with {name}: keep it, or choose another strategy.")


def _check_start_turn(game: RF90, state: RF90State, a: StartTurn) -> None:
    p, car = _pending(state)
    must_pit = car.fuel_turn <= state.turn
    if must_pit and a.pit is None:
        raise IllegalAction(f"Your refuelling chit is on turn {state.turn}: you must pit now.")
    extras = {
        "the Extreme Trajectory": a.extreme,
        "Wise Driving": a.wise_driving is not None,
        "Save Fuel's discard": a.save_fuel_discard is not None,
        "a strategy change": a.new_strategy is not None,
    }
    if a.pit is not None:
        if a.skip:
            raise IllegalAction("You cannot skip the turn and pit.")
        if car.off_track:
            raise IllegalAction("You cannot pit from off the track.")
        named = [name for name, used in extras.items() if used]
        if a.new_strategy is not None:
            raise IllegalAction("Choose the new strategy of a pit stop in the pit stop itself.")
        if named:
            raise IllegalAction(
                f"A pit stop is the whole of phase A: pit without {named[0]} "
                "(a stop takes the car off its trajectory and refills the hand)."
            )
        _check_tyres(car, a.pit.tyres)
        if a.pit.strategy is not None:
            _strategy_change(car, a.pit.strategy)
        _no_off_track_pay(a.off_track_pay)
        return
    if a.skip:
        for name in ("the Extreme Trajectory", "Wise Driving", "Save Fuel's discard"):
            if extras[name]:
                raise IllegalAction(f"A skipped turn is the whole of phase A: skip without {name}.")
        if a.new_strategy is not None:
            _strategy_change(car, a.new_strategy)
        _no_off_track_pay(a.off_track_pay)
        return
    if a.new_strategy is not None:
        if a.new_strategy not in cat.strategy_ids():
            raise IllegalAction(f"Unknown strategy {a.new_strategy!r}.")
        if car.skill != "versatility":
            raise IllegalAction("Change strategy by skipping the turn or in a pit stop.")
        _strategy_change(car, a.new_strategy)
        for name in ("the Extreme Trajectory", "Wise Driving", "Save Fuel's discard"):
            if extras[name]:
                raise IllegalAction(f"Change strategy on its own: without {name}.")
        _no_off_track_pay(a.off_track_pay)
        return
    if a.extreme and not on_extreme(state, p.trajectory):
        raise IllegalAction("You are not on an Extreme Trajectory.")
    if a.wise_driving is not None:
        if car.skill != "wise_driving" or car.wise_used:
            raise IllegalAction("Wise Driving is not available now.")
        if any(c not in car.hand or c > cat.TRACK_CARD_BASE for c in a.wise_driving):
            raise IllegalAction("Wise Driving discards Race cards from your hand only.")
        if not _distinct(a.wise_driving):
            raise IllegalAction("Name each card to discard with Wise Driving once.")
        if a.save_fuel_discard is not None:
            raise IllegalAction("Use Wise Driving or Save Fuel's discard, not both in one turn.")
        if a.extreme:
            raise IllegalAction("Use Wise Driving or try the Extreme Trajectory, not both.")
    if a.save_fuel_discard is not None:
        if car.strategy != "save_fuel":
            raise IllegalAction("Only Save Fuel lets you discard to draw two cards.")
        deck = cat.cards(state.track)
        if a.save_fuel_discard not in car.hand or deck[a.save_fuel_discard].mp <= 2:
            raise IllegalAction("Discard a card with more than 2 MP from your hand.")
    if a.extreme:
        corner = cat.track(state.track, state.race_turns).next_corner(car.section)
        area = corner.off_track if corner is not None else None
        _check_off_track_pay(car, a.off_track_pay, area.cost if area else None, [])
    else:
        _no_off_track_pay(a.off_track_pay)


def _no_off_track_pay(pay: OffTrackPay | None) -> None:
    if pay is not None:
        raise IllegalAction(
            "Nothing in this decision can send you off the track: leave out the off-track payment."
        )


def _check_off_track_pay(
    car: Car, pay: OffTrackPay | None, cost: cat.Cost | None, spent: list[int]
) -> None:
    """An off-track payment for an area with this cost (None: the failure cannot send the car
    off the track), with cards other than those the action already spends."""
    if pay is None:
        return
    if cost is None:
        raise IllegalAction(
            "A failure here does not send you off the track: leave out the off-track payment."
        )
    chosen = [*pay.tyre_cards, *([pay.discard] if pay.discard is not None else [])]
    if not _distinct(chosen) or not _in_hand(car, chosen) or set(chosen) & set(spent):
        raise IllegalAction(
            "Pay off-track costs with different cards from your hand, not with cards you "
            "play or spend otherwise."
        )
    if len(pay.tyre_cards) > cost.tyres:
        raise IllegalAction(
            f"Going off the track here costs {cost.tyres} tyre(s): name at most "
            f"{cost.tyres} card(s) for them."
        )
    if pay.discard is not None and not cost.cards:
        raise IllegalAction("Going off the track here asks no card: leave out the discard.")


def _check_play_cards(game: RF90, state: RF90State, a: PlayCards) -> None:
    p, car = _pending(state)
    deck = cat.cards(state.track)
    cards = a.cards
    if not 1 <= len(cards) <= 2 or not _distinct(cards) or not _in_hand(car, cards):
        raise IllegalAction("Play one or two cards from your hand.")
    played = [deck[c] for c in cards]
    if len(played) == 2 and not can_pair(played[0], played[1], car.strategy == "push")[0]:
        raise IllegalAction(
            "Those two cards cannot be played together (pair a +1 with any card, or two +2 cards)."
        )
    traj = trajectory_for(state, played)
    sharp = traj is not None and traj.kind == "sharp"
    if not a.use_trajectory and not sharp:
        raise IllegalAction(
            "Only a Sharp Trajectory's bonus may be declined (it has a cost): play with it."
        )
    cost = traj.cost if (traj is not None and sharp and a.use_trajectory) else cat.Cost()
    rest = [c for c in car.hand if c not in cards]
    if not _distinct(a.tyre_cards) or any(c not in rest for c in a.tyre_cards):
        raise IllegalAction("Pay tyres with cards from your hand that you are not playing.")
    spent = [*cards, *a.tyre_cards]
    if cost.cards:
        if a.sharp_discard is None:
            pool = [c for c in rest if c not in a.tyre_cards]
            if not pool:
                raise IllegalAction(
                    "This Sharp Trajectory needs a card to discard: play without it."
                )
            discard = min(pool, key=lambda c: (deck[c].mp, c))
        elif a.sharp_discard in rest and a.sharp_discard not in a.tyre_cards:
            discard = a.sharp_discard
        else:
            raise IllegalAction(
                "Discard for the Sharp Trajectory a card you neither play nor pay tyres with."
            )
        spent.append(discard)
    elif a.sharp_discard is not None:
        raise IllegalAction("This play pays no Sharp Trajectory card: leave out the discard.")
    due = tyres_due(car, played, cost)
    if a.balance_damage and (car.strategy != "balance" or due <= 0):
        raise IllegalAction("Only Balance pays a tyre with a damage disc, with tyres due.")
    to_pay = due - a.balance_damage
    if len(a.tyre_cards) > to_pay:
        raise IllegalAction(
            f"This play asks {to_pay} tyre(s): name at most {to_pay} card(s) to pay them."
        )
    if a.blue_bonus and car.blue <= 0:
        raise IllegalAction("You have no +1 MP blue disc.")
    if not a.unlap and not any(o.running and o.lap > car.lap for o in state.cars):
        raise IllegalAction("No car is on a higher lap: there is nobody to stay behind.")
    if a.save_fuel_choice == "fuel":
        if car.strategy != "save_fuel" or any(c.mp > 2 for c in played):
            raise IllegalAction("Only Save Fuel's special saves fuel, with cards of +2 or less.")
        ctx = Ctx(state)
        if not fuel_room(ctx, car):
            raise IllegalAction(
                f"Your tank holds at most {max_fuel(ctx)} turns of fuel: take the Track card."
            )
    if a.off_track_pay is not None:
        area = cat.track(state.track, state.race_turns).sections[car.section].off_track
        wide = any(c.check for c in played) and runs_wide_here(Ctx(state), car)
        _check_off_track_pay(car, a.off_track_pay, area.cost if (wide and area) else None, spent)


def _check_end_turn(game: RF90, state: RF90State, a: EndTurn) -> None:
    _p, car = _pending(state)
    track = cat.track(state.track, state.race_turns)
    if a.late_brake and (car.off_track or track.sections[car.section].late_brake is None):
        raise IllegalAction("There is no late braking point here.")
    if a.trajectory is not None and (
        car.off_track or a.trajectory not in game.free_trajectories(state, car.section)
    ):
        raise IllegalAction("That trajectory is not free in your section.")
    if a.late_brake:
        corner = track.next_corner(car.section)
        area = corner.off_track if corner is not None else None
        _check_off_track_pay(car, a.off_track_pay, area.cost if area else None, [])
    else:
        _no_off_track_pay(a.off_track_pay)


_CHECKS: dict[str, tuple[type[Action], Callable[[RF90, RF90State, Any], None]]] = {
    "choose_setup": (ChooseSetup, _check_setup),
    "mulligan": (Mulligan, _check_mulligan),
    "qualify": (Qualify, _check_qualify),
    "choose_start": (ChooseStart, _check_start),
    "start_turn": (StartTurn, _check_start_turn),
    "play_cards": (PlayCards, _check_play_cards),
    "end_turn": (EndTurn, _check_end_turn),
    "duel_declare": (DuelDeclare, _check_duel_declare),
    "duel_cards": (DuelCards, _check_duel_cards),
    "robot_turn": (RobotTurn, _check_robot_turn),
}
