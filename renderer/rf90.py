"""Race! Formula 90 images: the track, the close-up, the cockpit, the car dashboards and the
classification. This module gathers the public names; the work is done in:

- `renderer.rf90_base`: theme, the track geometry on the track image, car colours and labels,
  the label search, trajectory symbols, braking zone chevrons and badges, and the words every
  image uses for one meaning each (shared by every image);
- `renderer.rf90_track_layout` and `renderer.rf90_track`: `render_track(state,
  active_section=None)`, the circuit drawn from the track data (sections as outlined shapes,
  curves tinted apart from straights, braking zones tinted and chevroned, slots), every
  trajectory kind with its own shape or line style (normal = disc, sharp = diamond, extreme =
  triangle, late brake = dashed red/white brake line, off track = dashed run-off box), the cars
  as markers in their own colour (`Car.colour`) with a number (players: seat + 1, round) or a
  robot letter (X = SuperFast, F = Fast, S = Slow, square), the Leader token, "played" /
  "skipped this game turn" badges, the active section highlighted; above the track the header
  band (the game turn, the stage, the section activated, the weather, the car to play or the
  duel or the leader, the winner at the finish); around the track the section numbers, the
  corner names with their duel modifiers and run-off costs, the late brake targets; in the
  infield the trajectory bonuses, costs and check targets next to their symbols, the title,
  the car list and the weather track; below, the game turn indicator strip (game turns,
  stages, the current game turn, every car's fuel chit and the robots' pit tokens) and the
  legend;
- `renderer.rf90_closeup_layout` and `renderer.rf90_closeup`: `render_closeup(state,
  section=None)`, the section being activated and its neighbours, 800 x 540, for a phone;
- `renderer.rf90_cockpit`: `render_cockpit(state, seat)`, one seat's private cockpit (its hand
  as cards, tyres, damage, fuel, strategy, skill), 800 px wide;
- `renderer.rf90_tables`: `render_dashboards(state)` (where the race is, then one panel per car
  in race order: tyres and chips, blue discs, damage, fuel, strategy, skill, target check, the
  number of cards in hand - never the cards - and pit stops; robots and cars out of the race
  as compact rows; a legend of the discs) and `render_classification(state)` (the final order
  with status, laps and pit stops), 800 px wide.

Words: a game turn is "game turn" (never "turn" or "T"), a corner is called by its name
("Corner 8" when it has none), costs are "1 tyre", "1 dmg" (a damage disc), "1 card"; a car
has "played" or "skipped" this game turn.

Phone legibility: Discord shows an image about `PHONE_W` = 400 px wide on a phone, where a text
must be `PHONE_MIN_PX` = 12 px or more (`phone_px(width)`: 24 px on an 800 px image). The
close-up, the cockpit, the dashboards and the classification meet it for every text they draw
(`closeup_texts`, `cockpit_texts`, `dashboard_texts`, `classification_texts` list them). The
track image (1860 px wide) cannot as a whole: its header band does (56 px, `BAND_PX`); the
rest (texts 24-34 px, never under `MIN_TEXT` = 22 px) reads when the image is opened full size,
and the same facts are on the close-up (the section and its neighbours: corners, duel
modifiers, costs, trajectories, late brake targets) and the dashboards (the game turn, the
weather, who is to play, every car). Labels never sit under a car: `track_layout(state)` gives
the box of every text label and every car marker (with its badges) the image draws. The labels
around the track are placed once per track by a small search that keeps them off the track,
off every car slot, off the run-off spots where off-track cars wait, off the infield's texts
and off each other; a leader line joins a label pushed away from what it names and crosses no
other label.

The static part of each image is drawn once (per track; per track and section for the
close-up) and cached, `warm_caches()` builds them all; an image then costs only the moving
parts and the PNG encoding.
`slot_xy`, `car_xy`, `off_track_xy`, `section_box`, `section_polygon`, `turn_cell_xy`,
`track_layout`, `band`, `closeup_layout`, `dashboard_rows` and `dashboard_layout` expose the
layout and the drawn data for callers and tests.

Only public information is drawn, from `GAME.public_view(state)` (where a hand is a count),
except in the cockpit, which draws one seat's `GAME.seat_view(state, seat)`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from renderer.rf90_base import (
    BADGE_PAD,
    BAND_H,
    BAND_PX,
    BRAKE_RED,
    BRAKING,
    CARD_RGB,
    CHEVRON,
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
    PHONE_MIN_PX,
    PHONE_W,
    SEAT_COLOURS,
    SKIPPED_BG,
    SLOT_GAP,
    STRAIGHT,
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
    corner_name,
    corner_title,
    cost_text,
    draw_trajectory_symbol,
    game_turn_text,
    off_track_xy,
    phone_px,
    section_box,
    section_polygon,
    slot_xy,
    weather_text,
)
from renderer.rf90_closeup import closeup_texts, render_closeup, warm_closeups
from renderer.rf90_closeup_layout import CLOSEUP_H, CLOSEUP_W, CloseupLayout, closeup_layout
from renderer.rf90_cockpit import COCKPIT_W, cockpit_texts, render_cockpit, warm_cockpit
from renderer.rf90_tables import (
    DASH_W,
    DashRow,
    classification_rows,
    classification_texts,
    dashboard_layout,
    dashboard_rows,
    dashboard_texts,
    render_classification,
    render_dashboards,
)
from renderer.rf90_track import render_track, warm_track
from renderer.rf90_track_layout import (
    band,
    off_text,
    race_head,
    race_status,
    track_layout,
    traj_text,
    turn_cell_xy,
)
from rules.rf90.state import RF90State

__all__ = [
    "ACTIVATION_PICTURES",
    "BADGE_PAD",
    "BAND_H",
    "BAND_PX",
    "BRAKE_RED",
    "BRAKING",
    "CARD_RGB",
    "CHEVRON",
    "CLOSEUP_H",
    "CLOSEUP_W",
    "COCKPIT_W",
    "CORNER_BG",
    "DASH_W",
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
    "PHONE_MIN_PX",
    "PHONE_W",
    "SEAT_COLOURS",
    "SKIPPED_BG",
    "SLOT_GAP",
    "STRAIGHT",
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
    "band",
    "boxes_overlap",
    "car_colour_name",
    "car_label",
    "car_xy",
    "classification_rows",
    "classification_texts",
    "closeup_layout",
    "closeup_texts",
    "cockpit_texts",
    "corner_name",
    "corner_title",
    "cost_text",
    "dashboard_layout",
    "dashboard_rows",
    "dashboard_texts",
    "draw_trajectory_symbol",
    "game_turn_text",
    "off_text",
    "off_track_xy",
    "phone_px",
    "race_head",
    "race_status",
    "render_classification",
    "render_closeup",
    "render_cockpit",
    "render_dashboards",
    "render_track",
    "section_box",
    "section_polygon",
    "slot_xy",
    "track_layout",
    "traj_text",
    "turn_cell_xy",
    "warm_caches",
    "activation_pictures",
    "weather_text",
]

# The pictures of one section activation (or of the grid), in the order they are shown.
ACTIVATION_PICTURES = ("track", "dashboards")


def activation_pictures(state: RF90State, section: int | None) -> dict[str, Callable[[], bytes]]:
    """What the thread shows of one section activation as it ended (`section`; None: the
    grid, or the race as it stands): the track with that section lit, then the dashboards.
    Named here once for the bot's thread (its presenter's `frame_images`) and the league
    site's activation pages, so both show the same pictures; drawn when called."""
    return {
        "track": partial(render_track, state, active_section=section),
        "dashboards": partial(render_dashboards, state),
    }


def warm_caches() -> None:
    """Build every cached static layer of both tracks (the track image, the close-up of each
    section, the texts of every card) ahead of the first move, so no player waits for one: about 3 s
    of work, which the bot does in a thread at start-up (`renderer.boards.warm_all`)."""
    from rules.rf90 import catalog

    for track in catalog.TRACKS:
        warm_track(track)
        warm_closeups(track)
        warm_cockpit(track)
