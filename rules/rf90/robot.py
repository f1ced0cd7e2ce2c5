"""The robot policy for player seats (timeouts, simulations) and the legal-action lists.

Robot cars (Slow, Fast, SuperFast) are moved by the engine itself; this module decides for a
player's car when its player is absent, with simple, deterministic choices.
"""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING

from rules.base import Action
from rules.rf90 import catalog as cat
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
    PitStop,
    PlayCards,
    Qualify,
    RF90State,
    RobotTurn,
    StartTurn,
)

if TYPE_CHECKING:
    from rules.rf90.engine import RF90


def _weather_tyre(state: RF90State) -> str:
    space = cat.tables().weather.spaces[state.weather]
    return {"dry": "hard", "uncertain": "intermediate", "rain": "wet"}[space.state]


def card_plays(game: RF90, state: RF90State, seat: int) -> list[list[int]]:
    """Every legal set of movement cards (one card, or a legal pair) for this seat now."""
    from rules.rf90.engine import can_pair

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
            ChooseStart(seat=seat, tyres=t, strategy=s)  # type: ignore[arg-type]
            for t in tyres
            for s in cat.strategy_ids()
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
        return _phase_a_actions(state, seat, car, p.trajectory)
    if p.phase == "B":
        return _phase_b_actions(game, state, seat, car)
    sec = cat.track(state.track).sections[car.section]
    trajs: list[str | None] = [None]
    if not car.off_track:
        trajs += game.free_trajectories(state, car.section)
    brakes = [False, True] if (sec.late_brake and not car.off_track) else [False]
    return [EndTurn(seat=seat, late_brake=b, trajectory=t) for b in brakes for t in trajs]


def trajectory_for(state: RF90State, played: list[cat.Card]) -> cat.Trajectory | None:
    """The trajectory whose bonus these cards would claim: the spot the car started its turn
    on, with a card of its colour, and an Extreme one only after a passed attempt."""
    p = state.pending
    if p is None or p.trajectory is None:
        return None
    traj = cat.track(state.track).trajectory(p.trajectory)
    if not any(c.colour in traj.colours for c in played):
        return None
    if traj.kind == "extreme" and not p.extreme_ok:
        return None
    return traj


def tyres_due(car: Car, played: list[cat.Card], cost: cat.Cost) -> int:
    """Tyres due in phase C for these cards and a Sharp Trajectory's cost (Save Tyres: 1 less)."""
    tyres = sum(c.tyres for c in played) + cost.tyres
    return tyres - 1 if car.strategy == "save_tyres" and tyres else tyres


def _phase_b_actions(game: RF90, state: RF90State, seat: int, car: Car) -> list[Action]:
    """Phase B: every legal play, with each decision that changes the outcome: taking or
    declining a Sharp Trajectory, Balance's damage disc, paying missing tyre chips with cards
    (the lowest) rather than damage, a blue disc, not unlapping, Save Fuel's fuel or Track card.
    Card selections (which cards pay, the Sharp discard) are the lowest cards; apply() accepts
    any other valid selection."""
    from rules.rf90.engine import Ctx, fuel_room

    cards = cat.cards(state.track)
    higher_lap = any(o.running and o.lap > car.lap for o in state.cars)
    tank_room = car.strategy == "save_fuel" and fuel_room(Ctx(state), car)
    out: list[Action] = []
    for play in card_plays(game, state, seat):
        played = [cards[c] for c in play]
        rest = sorted((c for c in car.hand if c not in play), key=lambda c: (cards[c].mp, c))
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
                payments = [[]] + ([pool[:short]] if short and pool else [])
                for tyre_cards in payments:
                    for blue in [False, True] if car.blue > 0 else [False]:
                        for unlap in [True, False] if higher_lap else [True]:
                            for choice in ["track_card", "fuel"] if fuel_ok else ["track_card"]:
                                out.append(
                                    PlayCards(
                                        seat=seat,
                                        cards=play,
                                        tyre_cards=tyre_cards,
                                        use_trajectory=use,
                                        sharp_discard=sharp_discard,
                                        balance_damage=balance,
                                        blue_bonus=blue,
                                        unlap=unlap,
                                        save_fuel_choice=choice,  # type: ignore[arg-type]
                                    )
                                )
    return out


def pit_tyres(car: Car) -> list[str]:
    """The tyres a car may fit now: soft while a soft set is left (HTP, Tyres), hard,
    intermediate, wet."""
    soft = cat.tables().tyres.get("soft")
    left = car.soft_sets < (soft.max_sets or 99)
    return (["soft"] if left else []) + ["hard", "intermediate", "wet"]


def _phase_a_actions(state: RF90State, seat: int, car: Car, trajectory: str | None) -> list[Action]:
    """Phase A: play on, skip the turn (keeping or changing the strategy), pit (every extra
    fuel, tyre type and strategy; the strategy may change only in a pit stop or a skipped turn,
    or any time with Versatility), the Extreme Trajectory, Wise Driving, Save Fuel's discard."""
    others = [sid for sid in cat.strategy_ids() if sid != car.strategy]
    pits: list[Action] = [
        StartTurn(seat=seat, pit=PitStop(extra_sections=x, tyres=t, strategy=sid))  # type: ignore[arg-type]
        for x in range(3)
        for t in pit_tyres(car)
        for sid in [None, *others]
    ]
    if car.fuel_turn <= state.turn:
        return pits
    if car.off_track:  # a car off the track cannot pit
        pits = []
    out: list[Action] = [StartTurn(seat=seat), StartTurn(seat=seat, skip=True)]
    out += [StartTurn(seat=seat, skip=True, new_strategy=sid) for sid in others]
    if car.skill == "versatility":
        out += [StartTurn(seat=seat, new_strategy=sid) for sid in others]
    out += pits
    traj = cat.track(state.track).trajectory(trajectory) if trajectory else None
    extreme = traj is not None and traj.kind == "extreme"
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
    from rules.rf90.engine import setup_problem

    out: list[Action] = []
    for skill in [None, *cat.skill_ids()]:
        for t in range(1, 4):
            for w in range(1, 4):
                for c in range(1, 4):
                    if setup_problem(skill, t, w, c) is None:
                        out.append(ChooseSetup(seat=seat, skill=skill, tyres=t, wear=w, cards=c))
    return out


def robot_action(game: RF90, state: RF90State, seat: int) -> Action:
    if seat not in game.to_act(state):
        raise ValueError(f"seat {seat} is not to act")
    if seat == ROBOT_SEAT:
        assert state.robot_next is not None
        return RobotTurn(seat=seat, car=state.robot_next)
    car = game.seat_car(state, seat)
    cards = cat.cards(state.track)
    track = cat.track(state.track)
    if state.phase == "setup" and not car.setup_chosen:
        return ChooseSetup(seat=seat)  # the standard dashboard 2/2/2, no skill
    if state.phase == "setup":
        fast = sum(1 for c in car.hand if cards[c].mp >= 3)
        return Mulligan(seat=seat, swap=fast < 2)
    if state.phase == "qualifying":
        best = max(car.hand, key=lambda c: (cards[c].mp, -cards[c].check_factor, -c))
        return Qualify(seat=seat, card=best, fuel=12)
    if state.phase == "start":
        return ChooseStart(seat=seat, tyres=_weather_tyre(state), strategy="save_tyres")  # type: ignore[arg-type]
    if state.duel is not None:
        if state.duel.stage == "declare":
            strong = any(cards[c].mp >= 3 for c in car.hand)
            return DuelDeclare(seat=seat, join=state.duel.challenger is not None and strong)
        best = max(car.hand, key=lambda c: (cards[c].mp, -c)) if car.hand else None
        return DuelCards(seat=seat, cards=[best] if best is not None else [])
    p = state.pending
    assert p is not None
    if p.phase == "A":
        left = track.race_turns - state.turn
        if car.fuel_turn <= state.turn:
            extra = 0 if left <= 10 else min(2, -(-(left - 10) // 3))
            return StartTurn(
                seat=seat, pit=PitStop(extra_sections=extra, tyres=_weather_tyre(state))
            )  # type: ignore[arg-type]
        traj = track.trajectory(p.trajectory) if p.trajectory else None
        # no Extreme Trajectory the turn before its fuel turn: a car off the track then cannot
        # pit and runs out of fuel
        if traj is not None and traj.kind == "extreme" and car.fuel_turn > state.turn + 1:
            return StartTurn(seat=seat, extreme=True)
        return StartTurn(seat=seat)
    if p.phase == "B":
        return _best_play(game, state, seat)
    trajs = [] if car.off_track else game.free_trajectories(state, car.section)
    best_t = max(trajs, key=lambda t: (track.trajectory(t).bonus, t)) if trajs else None
    return EndTurn(seat=seat, trajectory=best_t)


def check_chance(state: RF90State, car: Car) -> float:
    """The chance that a blind check of this car passes: the check card's factor (1-99) is
    below the target; Lucky checks a second card after a failure."""
    from rules.rf90.engine import Ctx, target_check

    p = min(1.0, max(0.0, (target_check(Ctx(state), car) - 1) / 99))
    return 1 - (1 - p) ** 2 if car.strategy == "lucky" else p


def _best_play(game: RF90, state: RF90State, seat: int) -> PlayCards:
    from rules.rf90.engine import Ctx, damage_capacity, runs_wide_here

    car = game.seat_car(state, seat)
    cards = cat.cards(state.track)
    room = damage_capacity(car) - car.damage
    eff = cat.tables().damage_effects
    chance = check_chance(state, car)
    # a failed green check in a curve with an off-track trajectory sends the car off the track
    # (Paddock rule): the move is lost and the costs paid; weigh it as a few MP more
    wide = runs_wide_here(Ctx(state), car)
    best: tuple[float, PlayCards] | None = None
    for play in card_plays(game, state, seat):
        played = [cards[c] for c in play]
        rest = sorted((c for c in car.hand if c not in play), key=lambda c: (cards[c].mp, c))
        claimed = trajectory_for(state, played)
        use = claimed is not None
        sharp = claimed is not None and claimed.kind == "sharp"
        cost = claimed.cost if (sharp and claimed is not None) else cat.Cost()
        tyres = tyres_due(car, played, cost)
        need_cards = max(0, tyres - car.chips)
        if cost.cards and len(rest) <= need_cards:  # no card left for the Sharp discard
            sharp = use = False
            cost = cat.Cost()
            tyres = tyres_due(car, played, cost)
            need_cards = max(0, tyres - car.chips)
        tyre_cards = rest[:need_cards]
        short = need_cards - len(tyre_cards)
        damage = sum(c.damage for c in played) + cost.damage + short
        if damage >= room:
            continue
        # a green card's MP count only when its blind check passes
        mp = sum(c.mp * (chance if c.check else 1.0) for c in played)
        mp += claimed.bonus if use and claimed else 0
        if wide and any(c.check for c in played):
            mp -= (1 - chance) * (3 + sum(c.mp for c in played))
            if car.fuel_turn <= state.turn + 1:  # off the track on its fuel turn: out of fuel
                mp -= (1 - chance) * 30
        if room - damage <= eff.spaces_left:  # the damage effect applies in this move's phase D
            mp -= eff.mp_penalty
        score = mp - 0.6 * tyres - 1.2 * damage - 0.3 * len(play) + 0.05 * (room - damage)
        pool = [c for c in rest if c not in tyre_cards]
        action = PlayCards(
            seat=seat,
            cards=play,
            tyre_cards=tyre_cards,
            use_trajectory=use,
            sharp_discard=(pool[0] if cost.cards and pool else None),
            blue_bonus=car.blue > 0,
        )
        if best is None or score > best[0]:
            best = (score, action)
    if best is None:
        safest = min(car.hand, key=lambda c: (cards[c].damage, cards[c].tyres, -cards[c].mp, c))
        return PlayCards(seat=seat, cards=[safest], use_trajectory=False, blue_bonus=car.blue > 0)
    return best[1]
