"""Stage events, blue-flag obligations, damage effects and teams (Paddock rules; see
docs/rules/rf90.md, "Stage events", "Lapping and flags", "Damage" and "Teams")."""

from __future__ import annotations

from rules.rf90 import GAME, catalog
from rules.rf90.scenario import advance, build, card

RACE = catalog.race_deck()


def _plain(cf: int) -> int:
    """The plain Race card (no flag, no weather symbol) with this check factor."""
    for cid, c in RACE.items():
        if c.check_factor == cf and not c.flag and not c.weather:
            return cid
    raise ValueError(cf)


def _end_of_turn(turn: int, weather: int, forecast: int):
    """Blue (player, leading) and a hard-tyred Fast robot have ended turn `turn`."""
    spec = [
        {"name": "Blue", "seat": 0, "section": 14, "mark": "ended"},
        {"name": "Fast", "robot": "fast", "section": 8, "mark": "ended"},
    ]
    state = build("barcelona", spec, turn=turn, weather=weather, deck_top=[forecast])
    return advance(GAME, state)


def test_stage_forecast_moves_the_weather_one_space_toward_the_card():
    # turn 9 ends, turn 10 starts stage 2: card 99 -> space (99-1)*7//99 = 6; pawn 4 -> 5 (Rain)
    state, events = _end_of_turn(9, 4, _plain(99))
    assert state.turn == 10
    stage = [e for e in events if e.kind == "stage"]
    assert [(e.data["stage"], e.data["forecast"]) for e in stage] == [(2, 6)]
    assert state.weather == 5
    assert [e.data["space"] for e in events if e.kind == "weather"] == [5]
    assert state.cars[1].robot_weather_pit == "wet"  # rain: the robot stops for wet tyres
    assert state.safety_car_until == 0


def test_stage_forecast_toward_the_sun_and_no_event_between_stages():
    state, events = _end_of_turn(18, 3, _plain(1))  # turn 19 = stage 3, card 1 -> space 0
    assert state.weather == 2
    state, events = _end_of_turn(18, 0, _plain(1))  # already there: no change
    assert state.weather == 0 and not [e for e in events if e.kind == "weather"]
    state, events = _end_of_turn(5, 4, _plain(99))  # turn 6 is no new stage
    assert state.weather == 4 and not [e for e in events if e.kind == "stage"]
    assert state.race_draw[-1] == _plain(99)  # the card was not drawn


def test_stage_forecast_with_a_yellow_flag_card_brings_the_safety_car():
    flag = next(cid for cid, c in RACE.items() if c.flag and c.check_factor == 49)
    state, events = _end_of_turn(9, 0, flag)  # card 49 -> space 3; pawn 0 -> 1 (Sun)
    assert state.weather == 1
    assert state.safety_car_until == 11  # this turn and the next
    assert [e.data["until"] for e in events if e.kind == "safety_car"] == [11]


# --- blue flags: the lapped car's obligations -----------------------------------------------


def test_lapped_player_lets_the_faster_car_by_at_the_end_of_its_turn():
    from rules.rf90 import StartTurn
    from rules.rf90.scenario import begin

    spec = [
        {"name": "Leader", "seat": 0, "section": 12, "lap": 3, "mark": "ended"},
        {"name": "Lapped", "seat": 1, "section": 5, "lap": 1},
        {"name": "Faster", "seat": 2, "section": 5, "lap": 2, "mark": "ended"},
    ]
    state = begin(build("barcelona", spec), 1)
    state, events = GAME.apply(state, StartTurn(seat=1, skip=True))
    assert [e.data["passed_by"] for e in events if e.kind == "blue_flag_yield"] == [[2]]
    assert state.sections[5] == [2, 1]


def _robot_blocked(front: str, behind: str | None = None):
    """A lapped robot in section 5 cannot move (section 6 is full); Blue (lap 2, a player or a
    robot of type `behind`) is behind it."""
    blue = {"name": "Blue", "section": 5, "lap": 2, "mark": "ended"}
    blue.update({"robot": behind} if behind else {"seat": 0})
    spec = [
        {"name": "Lapped", "robot": front, "section": 5, "lap": 1},
        blue,
    ] + [{"name": f"Wall {k}", "robot": "fast", "section": 6, "mark": "ended"} for k in range(3)]
    state, events = advance(GAME, build("barcelona", spec))
    end = next(i for i, e in enumerate(events) if e.kind == "turn_end")
    return state, events[:end]  # this game turn only (a robot-only race runs to its end)


def test_lapped_robot_lets_the_faster_car_by_and_teammates_are_ignored():
    state, events = _robot_blocked("slow")
    assert [e.data["passed_by"] for e in events if e.kind == "blue_flag_yield"] == [[1]]
    assert state.sections[5] == [1, 0]
    assert state.turn == 6 and state.pending is not None and state.pending.car == 1
    state, events = _robot_blocked("slow", behind="slow")  # a teammate: no blue flag
    assert not [e for e in events if e.kind == "blue_flag_yield"]
    state, events = _robot_blocked("slow", behind="superfast")
    assert [e.data["passed_by"] for e in events if e.kind == "blue_flag_yield"][0] == [1]


def test_lapped_car_refuses_a_duel_against_a_car_of_a_higher_lap():
    from rules.rf90 import DuelCards, DuelDeclare

    spec = [
        {"name": "Leader", "seat": 0, "section": 12, "lap": 3, "mark": "ended"},
        {"name": "Lapped", "seat": 1, "section": 3, "lap": 1},
        {"name": "Faster", "seat": 2, "section": 3, "lap": 2, "hand": [card("yellow", 1)]},
    ]
    state, _ = advance(GAME, build("barcelona", spec))
    assert state.duel is not None and GAME.to_act(state) == [2]
    state, events = GAME.apply(state, DuelDeclare(seat=2, join=True))
    assert [e.data["passed_by"] for e in events if e.kind == "blue_flag_yield"] == [[2]]
    assert state.duel.refused == [1] and GAME.to_act(state) == [2]  # Lapped was not asked
    state, events = GAME.apply(state, DuelCards(seat=2, cards=[card("yellow", 1)]))
    assert [e.data["order"] for e in events if e.kind == "duel_result"] == [[2, 1]]
    assert state.sections[3] == [2, 1]


# --- the robot policy and the damage effect -----------------------------------------------


def test_robot_policy_avoids_the_play_that_brings_the_damage_penalty():
    """Wear 2 = 4 spaces, 2 discs: a red +4 (1 damage) leaves 1 free space, so it would move
    1 MP less (4 + 1 - 1 = 4 MP at 2 tyres and a disc); orange +2 and yellow +1 give 3 MP for 1
    tyre and no disc, and the policy now prefers them (before: red +4 and yellow +1)."""
    from rules.rf90 import PlayCards, StartTurn
    from rules.rf90.scenario import begin

    red4 = card("red", 4, flag=False)
    orange2 = card("orange", 2)
    yellow1 = card("yellow", 1, weather=0)
    spec = [
        {"name": "Blue", "seat": 0, "section": 5, "hand": [red4, orange2], "damage_red": 2},
    ]
    state = begin(build("barcelona", spec, deck_top=[yellow1]), 0)
    state, _ = GAME.apply(state, StartTurn(seat=0))
    action = GAME.robot_action(state, 0)
    assert isinstance(action, PlayCards) and sorted(action.cards) == sorted([orange2, yellow1])
    state, events = GAME.apply(state, action)
    assert state.cars[0].section == 8 and state.cars[0].last_mp == 3
    assert state.cars[0].damage == 2 and state.cars[0].chips == 11
    assert not [e for e in events if e.kind == "damaged"]


# --- brown discs weigh on checks ----------------------------------------------------------


def _green_check(red: int, brown: int):
    from rules.rf90 import PlayCards, StartTurn, target_check
    from rules.rf90.engine import Ctx
    from rules.rf90.scenario import begin

    green3 = card("green", 3)
    draw_b = card("yellow", 1, weather=0)
    spec = [{"name": "Blue", "seat": 0, "section": 5, "hand": [green3]}]
    base = target_check(Ctx(build("barcelona", spec)), build("barcelona", spec).cars[0])
    spec[0].update(damage_red=red, damage_brown=brown)
    probe = build("barcelona", spec)
    used = {green3, draw_b, probe.cars[0].qual_card}
    check = next(  # a check factor 1-10 below the undamaged target: not below the damaged one
        cid
        for cid, c in RACE.items()
        if cid not in used and base - 10 <= c.check_factor < base and not c.flag and not c.weather
    )
    state = begin(build("barcelona", spec, deck_top=[draw_b, check]), 0)
    state, _ = GAME.apply(state, StartTurn(seat=0))
    target = target_check(Ctx(state), state.cars[0])
    state, events = GAME.apply(state, PlayCards(seat=0, cards=[green3]))
    return base, target, state, events


def test_brown_discs_lower_the_check_target_by_five_each():
    base, target, state, events = _green_check(red=2, brown=0)
    assert base == 56 and target == 56  # red discs do not weigh on checks
    assert [e.data["ok"] for e in events if e.kind == "check"] == [True]
    assert state.cars[0].last_mp == 3 and state.cars[0].section == 8
    base, target, state, events = _green_check(red=0, brown=2)
    assert target == 46  # 56 - 2 brown discs x 5
    assert [e.data["ok"] for e in events if e.kind == "check"] == [False]
    assert state.cars[0].last_mp == 0 and state.cars[0].section == 5


# --- teams of players -------------------------------------------------------------------------


def test_teams_from_the_configuration():
    import pytest

    state = GAME.new_game(3, {"players": [{"team": "Ferrari"}, {"team": "Ferrari"}, {}]})
    assert [c.team for c in state.cars[:3]] == ["Ferrari", "Ferrari", None]
    with pytest.raises(ValueError, match="more than 2"):
        GAME.new_game(3, {"players": [{"team": "A"}, {"team": "A"}, {"team": "A"}]})


def test_a_teammate_is_ignored_when_lapping():
    """Blue (lap 2, 2 MP) leaves section 5 past its lapped teammate: no blue flag, no lapping
    check, 2 sections; the teammate does not yield either."""
    from rules.rf90 import PlayCards, StartTurn
    from rules.rf90.scenario import begin

    yellow2 = card("yellow", 2, weather=0)
    draw_b = card("yellow", 1, weather=0)
    spec = [
        {"name": "Mate", "seat": 0, "section": 5, "lap": 1, "mark": "ended", "team": "T"},
        {"name": "Blue", "seat": 1, "section": 5, "lap": 2, "hand": [yellow2], "team": "T"},
    ]
    state = begin(build("barcelona", spec, deck_top=[draw_b]), 1)
    state, _ = GAME.apply(state, StartTurn(seat=1))
    state, events = GAME.apply(state, PlayCards(seat=1, cards=[yellow2]))
    assert not [e for e in events if e.kind in ("blue_flag", "check")]
    assert state.cars[1].section == 7 and state.cars[1].last_mp == 2
    spec[1]["team"] = None  # not teammates: blue flag and a lapping check
    state = begin(build("barcelona", spec, deck_top=[draw_b]), 1)
    state, _ = GAME.apply(state, StartTurn(seat=1))
    state, events = GAME.apply(state, PlayCards(seat=1, cards=[yellow2]))
    assert [e.data["lapped"] for e in events if e.kind == "blue_flag"] == [[0]]


def test_a_lapped_car_does_not_yield_to_its_teammate():
    from rules.rf90 import StartTurn
    from rules.rf90.scenario import begin

    spec = [
        {"name": "Leader", "seat": 0, "section": 12, "lap": 3, "mark": "ended"},
        {"name": "Lapped", "seat": 1, "section": 5, "lap": 1, "team": "T"},
        {"name": "Mate", "seat": 2, "section": 5, "lap": 2, "mark": "ended", "team": "T"},
    ]
    state = begin(build("barcelona", spec), 1)
    state, events = GAME.apply(state, StartTurn(seat=1, skip=True))
    assert not [e for e in events if e.kind == "blue_flag_yield"]
    assert state.sections[5] == [1, 2]
