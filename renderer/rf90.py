"""Race! Formula 90 images: the track, the close-up, the cockpit, the car dashboards and the
classification. This module gathers the public names; the work is done in:

- `renderer.rf90_base`: theme, the track geometry on the track image, car colours and labels,
  the label search, trajectory symbols and badges (shared by every image);
- `renderer.rf90_track_layout` and `renderer.rf90_track`: `render_track(state,
  active_section=None)`, the circuit drawn from the track data (sections as outlined shapes,
  curves tinted apart from straights and braking zones, slots), every trajectory kind with its
  own shape or line style (normal = disc, sharp = diamond, extreme = triangle, late brake =
  dashed red/white brake line, off track = dashed run-off box), the cars as markers in their
  own colour (`Car.colour`) with a number (players: seat + 1, round) or a robot letter (X =
  SuperFast, F = Fast, S = Slow, square), the Leader token, "turn ended" / "turn skipped"
  badges, the active section highlighted; around the track the section numbers, the corner
  names with their duel modifiers and run-off costs, the late brake targets; in the infield the
  trajectory bonuses, costs and targets next to their symbols, the title, the weather track,
  the turn and the car list; below, the turn indicator strip (turns, stages, the current turn,
  every car's fuel chit and the robots' pit tokens) and the legend;
- `renderer.rf90_closeup_layout` and `renderer.rf90_closeup`: `render_closeup(state,
  section=None)`, the section being activated and its neighbours, 800 x 500, for a phone;
- `renderer.rf90_cockpit`: `render_cockpit(state, seat)`, one seat's private cockpit (its hand
  as cards, tyres, damage, fuel, strategy, skill), 800 px wide;
- `renderer.rf90_tables`: `render_dashboards(state)` (one panel per car: tyres and chips, blue
  discs, damage, fuel turn, strategy, skill, the number of cards in hand - never the cards) and
  `render_classification(state)` (the final order with status and pit stops).

Phone legibility: the track image is 1860 x 1568 px and its texts are 24-34 px (never under
`MIN_TEXT` = 22 px at full width), so that they still read when Discord shows the image about
840 px wide. Labels never sit under a car: `track_layout(state)` gives the box of every text
label and every car marker (with its badges) the image draws. The labels around the track are
placed once per track by a small search that keeps them off the track, off every car slot, off
the run-off spots where off-track cars wait, off the infield's texts and off each other; a
leader line joins a label pushed away from what it names and crosses no other label. The
close-up and the cockpit are meant for a phone showing them ~400 px wide: no text they draw is
under 12 px at that width (`closeup_texts`, `cockpit_texts` list every text with its size).

The static part of each image is drawn once (per track; per track and section for the
close-up) and cached, `warm_caches()` builds them all; an image then costs only the moving
parts and the PNG encoding.
`slot_xy`, `car_xy`, `off_track_xy`, `section_box`, `section_polygon`, `turn_cell_xy`,
`track_layout`, `closeup_layout` and `dashboard_rows` expose the layout and the drawn data for
callers and tests.

Only public information is drawn, from `GAME.public_view(state)` (where a hand is a count),
except in the cockpit, which draws one seat's `GAME.seat_view(state, seat)`.
"""

from __future__ import annotations

from renderer.rf90_base import (
    BADGE_PAD,
    BRAKE_RED,
    CARD_RGB,
    CORNER_BG,
    ENDED_BG,
    HEIGHT,
    HIGHLIGHT,
    LEADER_BG,
    MARKER,
    MIN_TEXT,
    OFF_BG,
    OFF_MARKER,
    OFF_ROW,
    SEAT_COLOURS,
    SKIPPED_BG,
    SLOT_GAP,
    TRAJ_BG,
    Box,
    H,
    Label,
    Layout,
    MarkerBox,
    Point,
    PxPoint,
    W,
    _inside,
    _poly_shape,
    boxes_overlap,
    car_colour_name,
    car_label,
    car_xy,
    draw_trajectory_symbol,
    off_track_xy,
    section_box,
    section_polygon,
    slot_xy,
)
from renderer.rf90_closeup import closeup_texts, render_closeup, warm_closeups
from renderer.rf90_closeup_layout import CLOSEUP_H, CLOSEUP_W, CloseupLayout, closeup_layout
from renderer.rf90_cockpit import COCKPIT_W, cockpit_texts, render_cockpit, warm_cockpit
from renderer.rf90_tables import (
    DashRow,
    classification_rows,
    dashboard_layout,
    dashboard_rows,
    render_classification,
    render_dashboards,
)
from renderer.rf90_track import render_track, warm_track
from renderer.rf90_track_layout import corner_title, cost_text, track_layout, turn_cell_xy

__all__ = [
    "BADGE_PAD",
    "BRAKE_RED",
    "CARD_RGB",
    "CLOSEUP_H",
    "CLOSEUP_W",
    "COCKPIT_W",
    "CORNER_BG",
    "ENDED_BG",
    "H",
    "HEIGHT",
    "HIGHLIGHT",
    "LEADER_BG",
    "MARKER",
    "MIN_TEXT",
    "OFF_BG",
    "OFF_MARKER",
    "OFF_ROW",
    "SEAT_COLOURS",
    "SKIPPED_BG",
    "SLOT_GAP",
    "TRAJ_BG",
    "W",
    "Box",
    "CloseupLayout",
    "DashRow",
    "Label",
    "Layout",
    "MarkerBox",
    "Point",
    "PxPoint",
    "_inside",
    "_poly_shape",
    "boxes_overlap",
    "car_colour_name",
    "car_label",
    "car_xy",
    "classification_rows",
    "closeup_layout",
    "closeup_texts",
    "cockpit_texts",
    "corner_title",
    "cost_text",
    "dashboard_layout",
    "dashboard_rows",
    "draw_trajectory_symbol",
    "off_track_xy",
    "render_classification",
    "render_closeup",
    "render_cockpit",
    "render_dashboards",
    "render_track",
    "section_box",
    "section_polygon",
    "slot_xy",
    "track_layout",
    "turn_cell_xy",
    "warm_caches",
]


def warm_caches() -> None:
    """Build every cached static layer of both tracks (the track image, the close-up of each
    section, the texts of every card) ahead of the first move, so no player waits for one: about 3 s
    of work, which the bot does in a thread at start-up (`renderer.boards.warm_all`)."""
    from rules.rf90 import catalog

    for track in catalog.TRACKS:
        warm_track(track)
        warm_closeups(track)
        warm_cockpit(track)
