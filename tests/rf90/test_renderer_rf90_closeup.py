"""RF90 phone images: the close-up of the section being activated and a seat's private cockpit.
Valid PNGs within budget, deterministic and fast once warm; every text at least 12 px when the
image is shown 400 px wide; the close-up centred on the active section with the cars in their
slots and its labels clear; the cockpit drawing exactly the seat's own hand."""

from __future__ import annotations

import math
import re
import time
from functools import cache

import pytest

from renderer.common import PALETTE
from renderer.rf90 import (
    CLOSEUP_H,
    CLOSEUP_W,
    COCKPIT_W,
    boxes_overlap,
    car_colour_name,
    car_label,
    closeup_layout,
    closeup_texts,
    cockpit_texts,
    render_closeup,
    render_cockpit,
)
from renderer.rf90_base import _poly_shape
from renderer.rf90_closeup_layout import C_MARKER, FOOT_Y, LEGEND, LEGEND_Y, _layout
from renderer.rf90_cockpit import hand_cards
from rules.base import get_game
from rules.rf90 import catalog
from rules.rf90.scenario import build, card, cards, off_track
from rules.rf90.state import Duel, RF90State
from tests.helpers import assert_phone_legible, count, open_png

BUDGET = 500_000


GAME = get_game("rf90")


@cache
def _mid(track: str, seed: int = 3, activations: int = 40) -> RF90State:
    """A simulated race with four players, stopped while a section is being activated, after
    `activations` activations."""
    state = GAME.new_game(seed, GAME.simulation_config(players=4, track=track))
    seen = 0
    last = None
    for _ in range(20_000):
        state, _ = GAME.apply(state, GAME.robot_action(state, GAME.to_act(state)[0]))
        if state.phase == "race" and state.activation is not None:
            if state.activation != last:
                seen += 1
                last = state.activation
            if seen >= activations:
                return state
    raise AssertionError("the race ended first")


def _crowded(track: str, centre: int) -> RF90State:
    """Full sections around `centre`, players and robots, marks, trajectories held, a row of
    off-track cars at each corner nearby, a yellow flag and the safety car."""
    tr = catalog.track(track)
    n = tr.length
    specs: list[dict] = []
    seat = 0
    for k in range(-3, 4):
        sec = tr.sections[(centre + k) % n]
        trajectories = [t.id for t in sec.trajectories]
        for j in range(sec.capacity):
            spec: dict = {"section": sec.index, "lap": 2, "qual_card": None}
            if seat < 6 and len(specs) % 2 == 0:
                spec.update(seat=seat, name=f"Driver with a long name {seat}")
                seat += 1
            else:
                spec["robot"] = ("superfast", "fast", "slow")[len(specs) % 3]
            if trajectories and j == 0:
                spec["trajectory"] = trajectories[0]
            spec["mark"] = ("ended", "skipped", None)[len(specs) % 3]
            specs.append(spec)
    for s in tr.sections:
        if s.off_track is not None and (s.index - centre) % n in (0, 1, 2, n - 1, n - 2):
            for _ in range(3):
                specs.append({"section": s.off_track.reentry, "off_track": True,
                              "robot": "slow", "qual_card": None})  # fmt: skip
    specs[0]["lap"] = 3  # a leader
    state = build(track, specs, turn=9)
    state.yellow_flags = [(centre - 1) % n]
    state.safety_car_until = 10
    state.activation = centre
    return state


def _packed(track: str, centre: int) -> RF90State:
    """The most cars a race has (six players and the seven robots of the rules tables, so
    robot labels run up to F3), packed into the sections around `centre`, three of them off
    the track at the nearest corner with a run-off area."""
    tr = catalog.track(track)
    n = tr.length
    robots = ["superfast", "superfast", "fast", "fast", "fast", "slow", "slow"]
    who: list[dict] = [{"seat": k, "name": f"Driver number {k + 1} with a long name"}
                       for k in range(6)] + [{"robot": r} for r in robots]  # fmt: skip
    corner = next(s for k in range(n) if (s := tr.sections[(centre + k) % n]).off_track)
    assert corner.off_track is not None
    specs = []
    for spec in who[:3]:
        specs.append({**spec, "section": corner.off_track.reentry, "off_track": True})
    places = [(centre + k) % n for k in (0, 1, -1, 2, -2)]
    free = [p for p in places for _ in range(tr.sections[p].capacity)]
    for spec, sec in zip(who[3:], free, strict=False):
        specs.append({**spec, "section": sec, "qual_card": None,
                      "mark": ("ended", "skipped", None)[len(specs) % 3]})  # fmt: skip
    state = build(track, specs, turn=9)
    state.activation = centre
    state.yellow_flags = [centre]
    return state


# --- close-up ------------------------------------------------------------------------------


@pytest.mark.parametrize("track", catalog.TRACKS)
def test_closeup_png_is_valid_within_budget_and_deterministic(track: str) -> None:
    state = _mid(track)
    png = render_closeup(state)
    assert open_png(png).size == (CLOSEUP_W, CLOSEUP_H) == (800, 624)
    assert len(png) < BUDGET
    assert render_closeup(state) == png
    assert render_closeup(state, state.activation) == png  # by default the active section


@pytest.mark.parametrize("track", catalog.TRACKS)
def test_closeup_texts_read_at_phone_width(track: str) -> None:
    n = catalog.track(track).length
    states = [_mid(track), _mid(track, 4, 60), *(_packed(track, c) for c in range(0, n, 3))]
    for state in states:
        texts = closeup_texts(state)
        assert_phone_legible(texts, CLOSEUP_W)
        drawn = {t.text for t in texts}
        lay = closeup_layout(state)
        for m in lay.markers:  # every car drawn shows its number (or robot letter) as text
            assert car_label(state, state.cars[m.car]) in drawn  # type: ignore[index]
        for lb in lay.labels:  # and every label's text is drawn
            for line in lb.text.split("\n"):
                assert not line or line in drawn, lb
    texts = [t.text for t in closeup_texts(_crowded(track, 3))]
    assert any(t.startswith("Game turn 9/") for t in texts)
    assert any("Safety car" in t and "Yellow flag at" in t for t in texts)


def test_closeup_legend_names_every_symbol_below_the_footer() -> None:
    """The track image's legend is too small on a phone: the close-up carries its own, at
    24 px, for the symbols it draws."""
    state = _mid("barcelona")
    words = {t.text for t in closeup_texts(state)}
    assert {text for _, text in LEGEND} <= words
    assert {"normal", "sharp", "extreme", "late brake", "run-off", "curve", "braking zone",
            "leader", "played", "skipped"} == {text for _, text in LEGEND}  # fmt: skip
    assert FOOT_Y < LEGEND_Y < CLOSEUP_H
    for lb in closeup_layout(state).labels:  # no label reaches the footer or the legend
        assert lb.box[3] <= FOOT_Y, lb


@pytest.mark.parametrize("track", catalog.TRACKS)
def test_closeup_is_centred_on_the_active_section(track: str) -> None:
    state = _mid(track)
    active = state.activation
    assert active is not None
    lay = closeup_layout(state)
    assert lay.section == active
    k = lay.sections.index(active)
    assert 0 < k < len(lay.sections) - 1  # neighbours on both sides
    xs = [p[0] for p in lay.quads[active]]
    assert CLOSEUP_W * 0.2 < sum(xs) / 4 < CLOSEUP_W * 0.8
    other = state.model_copy(deep=True)
    other.activation = (active + 5) % catalog.track(track).length
    assert closeup_layout(other).section == other.activation
    assert render_closeup(other) != render_closeup(state)
    assert render_closeup(state, other.activation) == render_closeup(other)


@pytest.mark.parametrize("track", catalog.TRACKS)
def test_every_section_has_a_closeup_with_neighbours_and_room_for_the_cars(track: str) -> None:
    tr = catalog.track(track)
    for i in range(tr.length):
        lay = _layout(track, i)
        k = lay.sections.index(i)
        assert 0 < k < len(lay.sections) - 1 and len(lay.sections) >= 3, (i, lay.sections)
        spots = [p for sec in lay.sections for p in lay.slots[sec]]
        for a_i, a in enumerate(spots):  # markers never overlap, across sections too
            for b in spots[a_i + 1 :]:
                assert math.dist(a, b) >= C_MARKER + 2, (i, a, b)
        for sec in lay.sections:
            assert len(lay.slots[sec]) == tr.sections[sec].capacity
            for p in lay.slots[sec]:
                assert _poly_shape(lay.quads[sec]).hits((p[0], p[1], p[0] + 0.1, p[1] + 0.1))


@pytest.mark.parametrize("track", catalog.TRACKS)
def test_closeup_labels_are_clear_of_cars_the_track_and_each_other(track: str) -> None:
    for state in (_mid(track), _crowded(track, 5), _crowded(track, 12)):
        lay = closeup_layout(state)
        ring = [_poly_shape(q) for q in lay.quads.values()]
        for lb in lay.labels:
            x0, y0, x1, y1 = lb.box
            assert 0 <= x0 < x1 <= CLOSEUP_W and 48 <= y0 < y1 <= FOOT_Y, lb
            assert not any(shape.hits(lb.box) for shape in ring), lb
            for m in lay.markers:
                assert not boxes_overlap(m.box, lb.box), (m, lb)
        for i, a in enumerate(lay.labels):
            for b in lay.labels[i + 1 :]:
                assert not boxes_overlap(a.box, b.box), (a, b)


def test_closeup_draws_each_car_in_its_slot_in_its_colour() -> None:
    state = _crowded("barcelona", 17)
    lay = closeup_layout(state)
    img = open_png(render_closeup(state))
    drawn = {m.car for m in lay.markers}
    for car in state.cars:
        in_window = car.section in lay.sections and not car.off_track
        if in_window:
            assert car.id in drawn
    for m in lay.markers:
        car = state.cars[m.car]  # type: ignore[index]
        if not car.off_track:
            slot = state.sections[car.section].index(car.id)
            x, y = lay.slots[car.section][slot]
            assert (m.box[0] + m.box[2]) / 2 == pytest.approx(x)
            assert (m.box[1] + m.box[3]) / 2 == pytest.approx(y)
        cx, cy = round((m.box[0] + m.box[2]) / 2), round((m.box[1] + m.box[3]) / 2)
        fill = PALETTE[car_colour_name(car)].fill
        assert count(img, (cx - 16, cy - 16, cx + 16, cy + 16), fill) > 80, car.name
    assert any(m.where == "off" for m in lay.markers)  # the run-off area holds its cars


def test_off_track_car_waits_in_the_run_off_area_of_the_closeup() -> None:
    base = build("barcelona", [{"name": "Red", "seat": 0, "section": 16},
                               {"name": "Blue", "seat": 1, "section": 15}], turn=5)  # fmt: skip
    state, _ = off_track(base, 0, 17)
    state.activation = 17
    lay = closeup_layout(state)
    (m,) = [m for m in lay.markers if m.car == 0]
    assert m.where == "off"
    x, y = (m.box[0] + m.box[2]) / 2, (m.box[1] + m.box[3]) / 2
    assert _poly_shape(lay.bands[17]).hits((x, y, x + 0.1, y + 0.1))


def test_closeup_refuses_an_unknown_section() -> None:
    with pytest.raises(ValueError):
        render_closeup(_mid("barcelona"), 99)


def test_closeup_without_an_activation_is_drawn_unlit() -> None:
    state = _mid("barcelona").model_copy(deep=True)
    state.activation = None
    png = render_closeup(state)
    assert open_png(png).size == (CLOSEUP_W, CLOSEUP_H)
    assert not any("activated" in t.text for t in closeup_texts(state))


# --- cockpit -------------------------------------------------------------------------------


def _hand_scene() -> RF90State:
    hand = cards([("red", 4), ("green", 2), ("yellow", 1), ("orange", 1)])
    other = cards([("green", 4), ("red", 3)])
    track_card = min(catalog.track_deck("barcelona"))
    state = build("barcelona", [
        {"name": "Anna", "seat": 0, "section": 5, "hand": [*hand, track_card], "damage_red": 2,
         "damage_brown": 1, "blue": 2, "tyre": "soft", "chips": 7, "strategy": "consistency",
         "skill": "reflexes", "fuel_turn": 14},
        {"name": "Bob", "seat": 1, "section": 4, "hand": other},
        {"name": "SF", "robot": "superfast", "section": 3},
    ], turn=8)  # fmt: skip
    return state


def test_cockpit_png_is_valid_within_budget_and_deterministic() -> None:
    for state, seat in ((_hand_scene(), 0), (_mid("barcelona"), 2), (_mid("silverstone"), 3)):
        png = render_cockpit(state, seat)
        img = open_png(png)
        assert img.width == COCKPIT_W == 800
        assert len(png) < BUDGET
        assert render_cockpit(state, seat) == png


def test_cockpit_texts_read_at_phone_width() -> None:
    for state, seat in ((_hand_scene(), 0), (_mid("barcelona"), 1), (_mid("silverstone"), 0)):
        assert_phone_legible(cockpit_texts(state, seat), COCKPIT_W)


def test_cockpit_draws_exactly_the_seats_hand() -> None:
    state = _hand_scene()
    deck = catalog.cards("barcelona")
    assert [h.card for h in hand_cards(state, 0)] == state.cars[0].hand
    texts = [t.text for t in cockpit_texts(state, 0)]
    factors = [t for t in texts if re.fullmatch(r"CF \d+", t)]
    assert factors == [f"CF {deck[c].check_factor}" for c in state.cars[0].hand]
    assert [t for t in texts if t.startswith("+") and t[1:].isdigit()] == [
        f"+{deck[c].mp}" for c in state.cars[0].hand
    ]
    assert "Track" in texts and "flag" not in texts
    assert "3/4: 2 red, 1 brown" in texts  # the damage discs, counted in words too
    # another hand gives another image
    other = state.model_copy(deep=True)
    other.cars[0].hand = cards([("orange", 3), ("yellow", 2)])
    assert render_cockpit(other, 0) != render_cockpit(state, 0)


def test_cockpit_never_consults_another_seats_cards() -> None:
    state = _hand_scene()
    png = render_cockpit(state, 0)
    other = state.model_copy(deep=True)
    mine = set(state.cars[0].hand)
    other.cars[1].hand = [card("yellow", 2, exclude=mine)]
    other.duel = Duel(section=4, order=[1], stage="cards", challenger=1,
                      cards={1: [card("red", 4, exclude=mine)]})  # fmt: skip
    assert render_cockpit(other, 0) == png
    # the same goes for a simulated race: every other seat's hand shuffled away
    race = _mid("barcelona")
    png = render_cockpit(race, 1)
    changed = race.model_copy(deep=True)
    for car in changed.cars:
        if car.seat not in (None, 1):
            car.hand = list(reversed(car.hand))[:-1]
    assert render_cockpit(changed, 1) == png
    with pytest.raises(ValueError):
        render_cockpit(race, 7)


def test_cockpit_tags_the_cards_drawn_this_turn_and_laid_in_a_duel() -> None:
    state = _hand_scene()
    from rules.rf90.scenario import begin

    state = begin(state, 0)
    assert state.pending is not None
    state.pending.phase = "B"
    state.pending.drawn = [state.cars[0].hand[-1]]
    tags = [h.tag for h in hand_cards(state, 0)]
    assert tags == ["", "", "", "", "new"]
    duel = _hand_scene()
    laid = duel.cars[0].hand.pop()
    duel.duel = Duel(section=5, order=[0], stage="cards", challenger=0, cards={0: [laid]})
    assert [h.tag for h in hand_cards(duel, 0)][-1] == "in duel"
    assert "in duel" in [t.text for t in cockpit_texts(duel, 0)]


# --- speed ---------------------------------------------------------------------------------


def _best_ms(render, runs: int = 5) -> float:  # type: ignore[no-untyped-def]
    best = math.inf
    for _ in range(runs):
        started = time.perf_counter()
        render()
        best = min(best, time.perf_counter() - started)
    return best * 1000


@pytest.mark.parametrize("track", catalog.TRACKS)
def test_closeup_and_cockpit_are_fast_once_warm(track: str) -> None:
    state = _mid(track)
    render_closeup(state)  # the warm-up call
    render_cockpit(state, 0)
    assert _best_ms(lambda: render_closeup(state)) < 40
    assert _best_ms(lambda: render_cockpit(state, 0)) < 40
