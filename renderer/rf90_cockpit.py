"""A player's private Race! Formula 90 cockpit, `render_cockpit(state, seat)`: the seat's hand
drawn as cards, and its car's tyres, damage, fuel, strategy, skill and target check, 800 px
wide, on a dark background (it sits in Discord's dark theme without a white glare, and reads
on the light theme too).

Everything comes from `GAME.seat_view(state, seat)`: the seat's own cards, never another
seat's (the view holds only their counts, and the cockpit draws none of them). A card shows
its colour (band and name), its MP, its check factor and its symbols in words (tyres to pay,
dmg: damage discs, +1 card, check, rain / sun, pair, flag); a card drawn this game turn is marked
"new", a card laid face down in a duel "in duel". Damage discs are red (temporary) or brown
(permanent), with a legend and counts; colour is never the only cue.

Every text is at least 24 px, 12 px once the image is scaled to 400 px wide
(`cockpit_texts`). Text is the costly part of drawing a cockpit: `warm_cockpit(track)` draws
every card of a track once, so that their texts are in the text cache before a player waits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Any

from PIL import Image, ImageDraw

from renderer.common import (
    HEADER_BG,
    OUTLINE_DARK,
    RGB,
    car_colour,
    counted,
    draw_text,
    palette_reference,
    text_width,
    to_png,
    wrap_text,
)
from renderer.rf90_base import (
    BLUE_DISC,
    BRAKE_RED,
    BROWN_DISC,
    CARD_RGB,
    DARK_BG,
    DARK_FG,
    DARK_HEAD,
    DARK_MUTED,
    DARK_PANEL,
    TYRE_RGB,
    WEATHER_RGB,
    DrawnText,
    TextLog,
    _track,
    car_colour_name,
    draw_discs,
)
from rules.rf90 import GAME, catalog
from rules.rf90.engine import bonus_to_checks, damage_capacity, fuel_chit, hand_limit
from rules.rf90.state import Car, RF90State

COCKPIT_W = 800
PHONE_W = 400
PHONE_MIN_PX = 12
MIN_PX = math.ceil(PHONE_MIN_PX * COCKPIT_W / PHONE_W)  # 24 px at the full width
TEXT_PX = 24
HEAD_PX = 28
MP_PX = 56
PAD = 20

BG, PANEL, FG, MUTED, BROWN = DARK_BG, DARK_PANEL, DARK_FG, DARK_MUTED, BROWN_DISC
CARD_FACE: RGB = (250, 250, 252)
CARD_INK: RGB = (24, 26, 31)
NEW_RGB: RGB = (255, 214, 0)

CARDS_PER_ROW = 6
CARD_GAP = 12
CARD_W = (COCKPIT_W - 2 * PAD - (CARDS_PER_ROW - 1) * CARD_GAP) // CARDS_PER_ROW  # 116
CARD_H = 224
BAND_H = 38
TAG_H = 34  # the "new" / "in duel" tag under a card
HEADER_H = 68
ROW_H = 46
LINE_H = 32
LABEL_W = 176  # the label column of the car's rows


# --- what the cockpit shows ----------------------------------------------------------------


@dataclass(frozen=True)
class HandCard:
    card: int
    tag: str  # "", "new" (drawn this turn) or "in duel" (laid face down)


def _mine(state: RF90State, seat: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The seat's private view and its own car in it."""
    if not any(c.seat == seat for c in state.cars):
        raise ValueError(f"there is no seat {seat}")
    view = GAME.seat_view(state, seat)
    for car in view["cars"]:
        if car["seat"] == seat:
            return view, car
    raise ValueError(f"there is no seat {seat}")


def hand_cards(state: RF90State, seat: int) -> list[HandCard]:
    """The cards the cockpit draws: the seat's hand (those drawn this turn tagged "new"), then
    the cards it laid face down in a duel in progress. From the seat's view only."""
    view, car = _mine(state, seat)
    pending = view.get("pending")
    drawn = pending["drawn"] if pending and pending["car"] == car["id"] else []
    drawn = drawn if isinstance(drawn, list) else []
    out = [HandCard(c, "new" if c in drawn else "") for c in car["hand"]]
    duel = view.get("duel")
    if duel is not None:
        laid = duel["cards"].get(str(car["id"]), duel["cards"].get(car["id"]))
        if isinstance(laid, list):
            out += [HandCard(c, "in duel") for c in laid]
    return out


def _symbols(card: catalog.Card) -> list[str]:
    bits: list[str] = [card.colour] if card.deck == "track" else []  # its band says "Track"
    if card.tyres:
        bits.append(counted(card.tyres, "tyre"))
    if card.damage:
        bits.append(f"{card.damage} dmg")
    if card.check:
        bits.append("check")
    if card.draw:
        bits.append(f"+{card.draw} card")
    if card.weather:
        bits.append("rain" if card.weather > 0 else "sun")
    if card.pair:
        bits.append("pair")
    if card.flag:
        bits.append("flag")
    return bits


def _symbol_lines(card: catalog.Card) -> list[str]:
    """The symbols in words, on at most three lines of the card."""
    room = CARD_W - 14
    lines: list[str] = []
    for bit in _symbols(card):
        if lines and text_width(f"{lines[-1]} {bit}", TEXT_PX, True) <= room:
            lines[-1] = f"{lines[-1]} {bit}"
        else:
            lines.append(bit)
    return lines


# --- drawing -------------------------------------------------------------------------------


def _card_face(track: str, card_id: int, tag: str) -> tuple[Image.Image, tuple[DrawnText, ...]]:
    """A card: its colour band and name, MP, check factor and symbols (and its tag)."""
    card = catalog.cards(track)[card_id]
    h = CARD_H + (TAG_H if tag else 0)
    img = Image.new("RGB", (CARD_W, h), BG)
    draw = ImageDraw.Draw(img)
    log = TextLog()
    colour = CARD_RGB[card.colour]
    edge = NEW_RGB if tag == "new" else (120, 126, 138)
    draw.rounded_rectangle((0, 0, CARD_W - 1, CARD_H - 1), radius=10, fill=CARD_FACE,
                           outline=edge, width=4 if tag == "new" else 2)  # fmt: skip
    draw.rounded_rectangle((3, 3, CARD_W - 4, BAND_H), radius=8, fill=colour)
    draw.rectangle((3, BAND_H - 8, CARD_W - 4, BAND_H), fill=colour)
    ink = (255, 255, 255) if card.colour in ("red", "green") else CARD_INK
    name = card.colour.capitalize() if card.deck == "race" else "Track"
    log.text(draw, (CARD_W / 2, BAND_H / 2 + 2), name, TEXT_PX, ink, bold=True, anchor="mm",
             max_width=CARD_W - 10)  # fmt: skip
    log.text(draw, (CARD_W / 2, BAND_H + 34), f"+{card.mp}", MP_PX, CARD_INK, bold=True,
             anchor="mm")  # fmt: skip
    log.text(draw, (CARD_W / 2, BAND_H + 78), f"CF {card.check_factor}", TEXT_PX,
             (70, 76, 88), bold=True, anchor="mm")  # fmt: skip
    draw.line((10, BAND_H + 96, CARD_W - 10, BAND_H + 96), fill=(214, 219, 226), width=2)
    for k, line in enumerate(_symbol_lines(card)[:3]):
        log.text(draw, (CARD_W / 2, BAND_H + 111 + k * 28), line, TEXT_PX, CARD_INK, bold=True,
                 anchor="mm", max_width=CARD_W - 10)  # fmt: skip
    if tag:
        fill = NEW_RGB if tag == "new" else (96, 104, 120)
        draw.rounded_rectangle((6, CARD_H + 4, CARD_W - 7, h - 2), radius=8, fill=fill)
        log.text(draw, (CARD_W / 2, CARD_H + 4 + (TAG_H - 6) / 2), tag, TEXT_PX,
                 CARD_INK if tag == "new" else FG, bold=True, anchor="mm")  # fmt: skip
    return img, tuple(log)


LEGEND = (
    "CF: check factor · tyres: chips to pay · dmg: damage discs · +1 card: draw one · "
    "check: the card counts if a check passes · rain / sun: the weather moves · pair: pairs "
    "with any card · flag: a yellow flag"
)


@cache
def _legend_lines() -> tuple[str, ...]:
    return tuple(wrap_text(LEGEND, TEXT_PX, COCKPIT_W - 2 * PAD, 4))


def _strategy(sid: str | None) -> tuple[str, str]:
    for s in catalog.tables().strategies:
        if s.id == sid:
            return s.name, s.bonus
    return (sid or "-"), ""


def _skill(sid: str | None) -> tuple[str, str]:
    for s in catalog.tables().skills:
        if s.id == sid:
            return s.name, s.text
    return (sid or "-"), ""


def _rows(state: RF90State, car: Car) -> list[tuple[str, str, list[str]]]:
    """The car's rows below the hand: (label, value, lines of explanation)."""
    tr = _track(state)
    tyre = (car.tyre or "-").capitalize()
    rows: list[tuple[str, str, list[str]]] = [
        ("Tyres", f"{tyre} · {counted(car.chips, 'chip')}", [])
    ]
    rows.append(("Blue discs", f"{car.blue} (+1 MP each, one a game turn)" if car.blue else "none",
                 []))  # fmt: skip
    cap = damage_capacity(car)
    rows.append(("Damage", f"{car.damage}/{cap}", [
        "red: temporary, a pit stop repairs it",
        f"brown: permanent, -{catalog.tables().damage_effects.check_per_brown} to every check",
    ]))  # fmt: skip
    if car.fuel_turn:
        _, over = fuel_chit(state, car)  # over the top of the indicator: after the finish
        left = car.fuel_turn - state.turn
        if over:
            rows.append(("Fuel", "fuel to the finish", []))
        else:
            rows.append(("Fuel", f"refuel by game turn {car.fuel_turn}",
                         [f"{counted(left, 'game turn')} from now"]
                         if state.phase == "race" and left >= 0 else []))  # fmt: skip
    else:
        rows.append(("Fuel", "-", []))
    name, bonus = _strategy(car.strategy)
    rows.append(("Strategy", name, [bonus] if bonus else []))
    name, text = _skill(car.skill)
    rows.append(("Skill", name, [text] if text else []))
    if car.qual_card is not None:
        base = catalog.cards(tr.id)[car.qual_card].check_factor
        bonus_checks = bonus_to_checks(car)
        why = f"qualifying card {base}"
        if bonus_checks:
            why += f", {bonus_checks:+d} (skill, strategy, brown discs)"
        rows.append(("Target check", str(base + bonus_checks), [why]))
    return rows


def _row_height(lines: list[str]) -> int:
    return ROW_H + LINE_H * len(lines)


def _wrapped(lines: list[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        out += wrap_text(line, TEXT_PX, COCKPIT_W - 2 * PAD - LABEL_W - 16, 3)
    return out


def _compose(state: RF90State, seat: int) -> tuple[Image.Image, TextLog]:
    view, mine = _mine(state, seat)
    car = Car.model_validate(mine)  # the seat's own car, its hand included
    tr = _track(state)
    hand = hand_cards(state, seat)
    rows = [(label, value, _wrapped(lines)) for label, value, lines in _rows(state, car)]
    n_rows = max(1, math.ceil(len(hand) / CARDS_PER_ROW))
    tagged = [any(h.tag for h in hand[r * CARDS_PER_ROW : (r + 1) * CARDS_PER_ROW])
              for r in range(n_rows)]  # fmt: skip
    hand_h = sum(CARD_H + (TAG_H if t else 0) + CARD_GAP for t in tagged) if hand else 56
    legend = _legend_lines()
    height = (HEADER_H + 16 + 40 + hand_h + LINE_H * len(legend) + 20
              + sum(_row_height(r[2]) for r in rows) + PAD)  # fmt: skip
    img = Image.new("RGB", (COCKPIT_W, height), BG)
    draw = ImageDraw.Draw(img)
    log = TextLog()
    # header: the car, its place and the turn
    draw.rectangle((0, 0, COCKPIT_W, HEADER_H), fill=DARK_HEAD)
    draw.rectangle((0, HEADER_H - 4, COCKPIT_W, HEADER_H), fill=car_colour(car_colour_name(car))
                   .fill)  # fmt: skip
    log.car(draw, state, state.cars[car.id], (PAD + 24, HEADER_H // 2 - 2), 48)
    if state.phase in ("race", "finished"):
        order = [c.id for c in GAME.race_classification(state)]
        where = f"P{order.index(car.id) + 1} · game turn {state.turn}/{tr.race_turns}"
        if state.phase == "finished":
            where = f"P{order.index(car.id) + 1} · finished"
    else:
        where = {"setup": "set-up", "qualifying": "qualifying", "start": "start"}[state.phase]
    if not car.running:
        where = car.status
    ww = text_width(where, TEXT_PX, True)
    log.text(draw, (COCKPIT_W - PAD, HEADER_H / 2 - 2), where, TEXT_PX, FG, bold=True,
             anchor="rm")  # fmt: skip
    log.text(draw, (PAD + 60, HEADER_H / 2 - 2), car.name, HEAD_PX, FG, bold=True, anchor="lm",
             max_width=COCKPIT_W - 2 * PAD - 80 - ww)  # fmt: skip
    # the hand
    y = HEADER_H + 16
    held = sum(1 for h in hand if h.tag != "in duel")
    head = f"Your hand · {counted(held, 'card')} (limit {hand_limit(car)})"
    log.text(draw, (PAD, y + 18), head, TEXT_PX, FG, bold=True, anchor="lm")
    spaces = catalog.tables().weather.spaces
    weather = spaces[min(max(state.weather, 0), len(spaces) - 1)]
    wtext = f"{weather.name} ({weather.state})"
    wbox = (COCKPIT_W - PAD - text_width(wtext, TEXT_PX, True) - 20, y + 2, COCKPIT_W - PAD,
            y + 36)  # fmt: skip
    draw.rounded_rectangle(wbox, radius=6, fill=WEATHER_RGB[weather.name])
    log.text(draw, ((wbox[0] + wbox[2]) / 2, y + 19), wtext, TEXT_PX,
             (255, 255, 255) if weather.name == "Rain" else CARD_INK, bold=True,
             anchor="mm")  # fmt: skip
    y += 48
    if not hand:
        log.text(draw, (PAD, y + 20), "No cards in hand", TEXT_PX, MUTED, anchor="lm")
        y += 56
    for r in range(n_rows):
        for k, h in enumerate(hand[r * CARDS_PER_ROW : (r + 1) * CARDS_PER_ROW]):
            face, texts = _card_face(tr.id, h.card, h.tag)
            img.paste(face, (PAD + k * (CARD_W + CARD_GAP), y))
            log.extend(texts)
        y += CARD_H + (TAG_H if tagged[r] else 0) + CARD_GAP
    for line in legend:
        log.text(draw, (PAD, y + LINE_H / 2), line, TEXT_PX, MUTED, anchor="lm")
        y += LINE_H
    y += 20
    # the car
    for i, (label, value, lines) in enumerate(rows):
        rh = _row_height(lines)
        draw.rectangle((0, y, COCKPIT_W, y + rh - 2), fill=PANEL if i % 2 == 0 else BG)
        cy = y + ROW_H / 2
        log.text(draw, (PAD, cy), label, TEXT_PX, MUTED, bold=True, anchor="lm")
        x = PAD + LABEL_W
        if label == "Tyres" and car.tyre:
            tw = text_width(value.split(" · ")[0], TEXT_PX, True) + 20
            draw.rounded_rectangle((x - 4, cy - 16, x - 4 + tw, cy + 16), radius=8,
                                   fill=TYRE_RGB[car.tyre])  # fmt: skip
            ink = CARD_INK if car.tyre == "hard" else (255, 255, 255)
            log.text(draw, (x - 4 + tw / 2, cy), value.split(" · ")[0], TEXT_PX, ink, bold=True,
                     anchor="mm")  # fmt: skip
            log.text(draw, (x + tw + 8, cy), value.split(" · ")[1], TEXT_PX, FG, bold=True,
                     anchor="lm")  # fmt: skip
        elif label == "Damage":
            fills: list[RGB | None] = [BRAKE_RED] * car.damage_red
            fills += [BROWN] * car.damage_brown
            fills += [None] * max(0, damage_capacity(car) - car.damage)
            nx = draw_discs(draw, x, cy, fills)
            text = f"{value}: {car.damage_red} red, {car.damage_brown} brown"
            log.text(draw, (nx + 8, cy), text, TEXT_PX, FG, bold=True, anchor="lm")
        elif label == "Blue discs" and car.blue:
            nx = draw_discs(draw, x, cy, [BLUE_DISC] * car.blue)
            log.text(draw, (nx + 8, cy), value, TEXT_PX, FG, bold=True, anchor="lm")
        else:
            log.text(draw, (x, cy), value, TEXT_PX, FG, bold=True, anchor="lm",
                     max_width=COCKPIT_W - PAD - x)  # fmt: skip
        for k, line in enumerate(lines):
            ly = y + ROW_H + k * LINE_H + LINE_H / 2 - 6
            if label == "Damage":  # the legend of the discs: a disc of each colour, then words
                draw_discs(draw, x, ly, [BRAKE_RED if k == 0 else BROWN])
                log.text(draw, (x + 40, ly), line, TEXT_PX, MUTED, anchor="lm")
            else:
                log.text(draw, (x, ly), line, TEXT_PX, MUTED, anchor="lm")
        y += rh
    return img, log


@cache
def _reference() -> Image.Image:
    """The PNG palette of every cockpit, made once from a fixed sample (every kind of card
    with each tag, the texts on both backgrounds, tyres, weather, discs) plus every car
    colour: an image is then only mapped to it, and the same state always gives the same
    bytes."""
    faces: dict[tuple[str, str, int, tuple[str, ...]], tuple[str, int]] = {}
    for track in catalog.TRACKS:
        for cid, c in catalog.cards(track).items():
            faces.setdefault((c.deck, c.colour, c.mp, tuple(_symbols(c))), (track, cid))
    tiles = [_card_face(t, cid, tag)[0] for t, cid in faces.values() for tag in ("", "new",
             "in duel")]  # fmt: skip
    per_row = COCKPIT_W // CARD_W
    rows = math.ceil(len(tiles) / per_row)
    sample = Image.new("RGB", (COCKPIT_W, rows * (CARD_H + TAG_H) + 4 * ROW_H), BG)
    for k, tile in enumerate(tiles):
        sample.paste(tile, ((k % per_row) * CARD_W, (k // per_row) * (CARD_H + TAG_H)))
    draw = ImageDraw.Draw(sample)
    y = rows * (CARD_H + TAG_H)
    for k, (bg, ink) in enumerate(((BG, FG), (BG, MUTED), (PANEL, FG), (PANEL, MUTED))):
        draw.rectangle((0, y + k * ROW_H, COCKPIT_W, y + (k + 1) * ROW_H), fill=bg)
        draw_text(draw, (PAD, y + k * ROW_H + ROW_H / 2), "Damage 3/4 refuel by game turn 12",
                  TEXT_PX, ink, bold=k % 2 == 0, anchor="lm")  # fmt: skip
        x = 420
        for fill in (*TYRE_RGB.values(), *WEATHER_RGB.values()):
            draw.rounded_rectangle((x, y + k * ROW_H + 8, x + 40, y + (k + 1) * ROW_H - 8),
                                   radius=8, fill=fill)  # fmt: skip
            x += 40
        draw_discs(draw, 420 + 9 * 40 - 300, y + k * ROW_H + ROW_H / 2,
                   [BRAKE_RED, BROWN, BLUE_DISC, None])  # fmt: skip
    extra: list[RGB] = [BG, PANEL, FG, MUTED, CARD_FACE, CARD_INK, NEW_RGB, BROWN, BLUE_DISC,
                        BRAKE_RED, HEADER_BG, (255, 255, 255), (0, 0, 0), OUTLINE_DARK,
                        *CARD_RGB.values(), *TYRE_RGB.values(), *WEATHER_RGB.values()]  # fmt: skip
    return palette_reference(sample, 200, extra, dark_rings=True)


def render_cockpit(state: RF90State, seat: int) -> bytes:
    """The private cockpit of `seat`: its hand as cards, its car's tyres, damage, fuel,
    strategy, skill and target check; 800 px wide."""
    img, _ = _compose(state, seat)
    return to_png(img, reference=_reference())


def cockpit_texts(state: RF90State, seat: int) -> list[DrawnText]:
    """Every text `render_cockpit(state, seat)` draws, with its size in px."""
    return list(_compose(state, seat)[1])


@cache
def warm_cockpit(track: str) -> None:
    """Draw cockpits holding every card of a track, every strategy and every skill once (the
    texts are cached as they are drawn), and make the PNG palette: ~0.5 s, once."""
    _reference()
    state = GAME.new_game(1, GAME.simulation_config(players=1, track=track))
    seat_car = GAME.seat_car(state, 0).id
    deck = sorted(catalog.cards(track))
    tables = catalog.tables()
    for k, start in enumerate(range(0, len(deck), 2 * CARDS_PER_ROW)):
        s = state.model_copy(deep=True)
        car = s.cars[seat_car]
        car.hand = deck[start : start + 2 * CARDS_PER_ROW]
        car.strategy = tables.strategies[k % len(tables.strategies)].id
        car.skill = tables.skills[k % len(tables.skills)].id
        render_cockpit(s, 0)
