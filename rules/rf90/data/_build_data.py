"""Regenerate the RF90 data files (run by hand: python -m rules.rf90.data._build_data).

Everything the sources do not give (deck composition, check factors, section capacities, duel
modifier tables, trajectory bonuses and targets, geometry) is a Paddock design, tagged as such
in the JSON. The geometry is schematic: the sections are laid on a rounded loop on a 1600x1000
canvas, section 0 starting at the finish line, running clockwise.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

HERE = Path(__file__).parent
PAD = "Paddock rule"
EXP = "rf90-expansion2-barcelona-silverstone.txt"
HTP = "rf90-how-to-play-2nd-edition.txt"
LB_SIL = (
    "Paddock rule: target 50 (the sources give no target); "
    + EXP
    + ", Silverstone designer notes, place the late brake points"
)
OFF_CARD = (
    "Card symbol: "
    + EXP
    + ", Off-track Discard Card symbol; the tyres and damage beyond it: Paddock rule"
)


def _cfs(n: int, start: int, step: int) -> list[int]:
    """n check factors spread over 1..99 (deterministic, distinct while n <= 99)."""
    return [((start + i * step) % 99) + 1 for i in range(n)]


RACE_KINDS = [
    # colour, mp, tyres, damage, draw, check, weather, count
    ("red", 4, 2, 1, 0, False, 0, 14),
    ("red", 3, 1, 1, 0, False, 0, 20),
    ("orange", 3, 2, 0, 0, False, 0, 10),
    ("orange", 2, 1, 0, 0, False, 0, 20),
    ("orange", 1, 1, 0, 1, False, 0, 16),
    ("yellow", 2, 1, 0, 0, False, 0, 18),
    ("yellow", 2, 1, 0, 0, False, 1, 4),
    ("yellow", 2, 1, 0, 0, False, -1, 4),
    ("yellow", 1, 0, 0, 0, False, 0, 20),
    ("yellow", 1, 0, 0, 0, False, 1, 6),
    ("yellow", 1, 0, 0, 0, False, -1, 6),
    ("green", 4, 1, 0, 0, True, 0, 8),
    ("green", 3, 0, 0, 0, True, 0, 14),
    ("green", 2, 0, 0, 1, True, 0, 12),
    ("green", 1, 0, 0, 1, True, 0, 12),
]


# Yellow-flag symbols: the last n cards of a kind carry one (Paddock rule)
YELLOW_FLAGS = {("red", 4): 2, ("red", 3): 2}


def race_deck() -> dict:
    kinds = []
    start = 0
    for colour, mp, tyres, damage, draw, check, weather, count in RACE_KINDS:
        kinds.append(
            {
                "colour": colour,
                "mp": mp,
                "tyres": tyres,
                "damage": damage,
                "draw": draw,
                "check": check,
                "weather": weather,
                "check_factors": _cfs(count, start, 37),
                "yellow_flags": YELLOW_FLAGS.get((colour, mp), 0) if weather == 0 else 0,
            }
        )
        start += 11
    total = sum(k[-1] for k in RACE_KINDS)
    assert total == 184, total
    return {
        "source": (
            "184 cards and four colours, green cards need a check: public-facts.md. "
            "Composition, symbols and check "
            "factors: Paddock rule (red +3 = 1 tyre + 1 damage and orange +1 = 1 tyre + 1 draw, "
            "so that the Sharp Trajectory example of " + EXP + " holds). Yellow-flag "
            "symbols (public-facts.md: players play yellow flags through their cards): the last "
            "yellow_flags cards of a kind carry one; which cards: Paddock rule"
        ),
        "kinds": kinds,
    }


def track_deck(seed: int) -> dict:
    kinds = [
        ("red", 4, False, 6),
        ("red", 3, True, 4),
        ("orange", 3, False, 6),
        ("orange", 2, True, 4),
        ("yellow", 2, False, 6),
        ("yellow", 3, True, 2),
        ("green", 4, False, 4),
        ("green", 2, True, 4),
    ]
    out = []
    start = seed
    for colour, mp, pair, count in kinds:
        out.append(
            {
                "colour": colour,
                "mp": mp,
                "pair": pair,
                "check": colour == "green",
                "check_factors": _cfs(count, start, 23),
            }
        )
        start += 7
    return {
        "source": (
            "Track cards exist per circuit and carry a pair symbol (" + EXP + ", PUSH); "
            "green cards need a check (public-facts.md); "
            "the 36-card composition is a Paddock rule (Monza 34, Hungaroring 42: public-facts.md)"
        ),
        "kinds": out,
    }


# --- tracks ----------------------------------------------------------------------------------
# section rows: (kind, corner number or None, corner name, duel modifiers, notes)


def _geometry(n: int, caps: list[int]) -> list[dict]:
    """Sections around a rounded rectangle; polygons and slot centres on a 1600x1000 canvas."""
    cx, cy, a, b = 800.0, 500.0, 640.0, 360.0

    def point(t: float, r: float) -> list[float]:
        # superellipse-ish loop (exponent 4 gives straight-ish sides), clockwise from the top
        ang = 2 * math.pi * t - math.pi / 2
        c, s = math.cos(ang), math.sin(ang)
        px = cx + (a + r) * math.copysign(abs(c) ** 0.5, c)
        py = cy + (b + r) * math.copysign(abs(s) ** 0.5, s)
        return [round(px, 1), round(py, 1)]

    out = []
    for i in range(n):
        t0, t1 = i / n, (i + 1) / n
        poly = [point(t0, -55), point(t1, -55), point(t1, 55), point(t0, 55)]
        cap = caps[i]
        cols = 2 if cap > 3 else 1
        rows = math.ceil(cap / cols)
        slots = []
        for k in range(cap):
            row, col = divmod(k, cols)
            t = t1 - (row + 0.5) / rows * (t1 - t0)  # slot 0 at the front of the section
            r = 0.0 if cols == 1 else (-25.0 if col == 0 else 25.0)
            slots.append(point(t, r))
        out.append(
            {"polygon": poly, "slots": slots, "label": point((t0 + t1) / 2, 85), "t": [t0, t1]}
        )
    return out


def _spot_xy(geo: dict, k: int) -> list[float]:
    (x0, y0), (x1, y1) = geo["polygon"][1], geo["polygon"][2]
    f = 0.25 + 0.25 * k
    return [round(x0 + (x1 - x0) * f, 1), round(y0 + (y1 - y0) * f, 1)]


def build_track(spec: dict) -> dict:
    rows = spec["sections"]
    caps = [r.get("capacity", 4) for r in rows]
    geo = _geometry(len(rows), caps)
    sections = []
    for i, r in enumerate(rows):
        g = geo[i]
        sec = {
            "index": i,
            "kind": r["kind"],
            "capacity": caps[i],
            "name": r.get("name", ""),
            "corner": r.get("corner"),
            "trajectories": [],
            "late_brake": r.get("late_brake"),
            "off_track": r.get("off_track"),
            "grid": r.get("grid", False),
            "polygon": g["polygon"],
            "slots": g["slots"],
            "label": g["label"],
            "source": r.get("source", PAD),
        }
        for k, tr in enumerate(r.get("trajectories", [])):
            tr = dict(tr)
            tr.setdefault("cost", {"tyres": 0, "damage": 0, "cards": 0})
            tr.setdefault("target", None)
            tr.setdefault("source", PAD)
            tr["id"] = f"{spec['id'][0].upper()}{i}{'abc'[k]}"
            tr["xy"] = _spot_xy(g, k)
            sec["trajectories"].append(tr)
        sections.append(sec)
    out = {k: v for k, v in spec.items() if k != "sections"}
    out["canvas"] = [1600, 1000]
    out["sections"] = sections
    return out


def _corner(n: int, name: str, mods: list[int], source: str = PAD) -> dict:
    return {"number": n, "name": name, "duel_modifiers": mods, "source": source}


def _traj(kind: str, colours: list[str], bonus: int, **kw) -> dict:
    return {"kind": kind, "colours": colours, "bonus": bonus, **kw}


def _off(tyres: int, damage: int, cards: int, reentry: int, penalty: int = 1, src=PAD) -> dict:
    return {
        "cost": {"tyres": tyres, "damage": damage, "cards": cards},
        "reentry": reentry,
        "penalty": penalty,
        "source": src,
    }


BARCELONA_SHARP = (
    EXP + ", Barcelona Special rules (Sharp Trajectories at Barcelona); "
    "place, colours, bonus and cost: Paddock rule"
)

BARCELONA = {
    "id": "barcelona",
    "name": "Circuit de Catalunya (Barcelona)",
    "source": EXP + ", BARCELONA; layout of the sections: Paddock rule (board not in sources)",
    "race_turns": 27,
    "race_turns_source": EXP + ", PUSH example (a race at Barcelona lasts 27 turns)",
    "laps": 65,
    "stages": [1, 10, 19],
    "pit_sections": 7,
    "pit_source": EXP + ", BARCELONA, Pit stop",
    "sections": [
        {"kind": "straight", "name": "Pit straight", "trajectories": [_traj("normal", ["red"], 1)]},
        {"kind": "straight", "name": "Pit straight"},
        {
            "kind": "braking",
            "name": "Braking for Elf",
            "late_brake": {"target": 45, "source": PAD + " (turn 1 is the main overtaking point)"},
            "trajectories": [_traj("normal", ["orange"], 1)],
        },
        {
            "kind": "curve",
            "capacity": 3,
            "corner": _corner(1, "Elf", [0, -1, -1]),
            "off_track": _off(1, 1, 0, 3),
        },
        {
            "kind": "curve",
            "capacity": 3,
            "corner": _corner(2, "Renault", [0, -1, -2]),
            "trajectories": [_traj("normal", ["yellow"], 1)],
        },
        {
            "kind": "straight",
            "name": "Short straight",
            "trajectories": [
                _traj(
                    "sharp",
                    ["yellow", "red"],
                    2,
                    cost={"tyres": 1, "damage": 0, "cards": 0},
                    source=BARCELONA_SHARP,
                )
            ],
        },
        {"kind": "curve", "capacity": 3, "corner": _corner(3, "Repsol", [0, -1, -2])},
        {
            "kind": "curve",
            "capacity": 3,
            "corner": _corner(4, "Seat", [0, 0, -1]),
            "trajectories": [_traj("normal", ["green"], 1)],
        },
        {"kind": "straight", "name": "Uphill", "trajectories": [_traj("normal", ["orange"], 1)]},
        {
            "kind": "braking",
            "name": "Braking for the chicane",
            "trajectories": [_traj("extreme", ["red"], 2, target=50)],
        },
        {
            "kind": "curve",
            "capacity": 3,
            "corner": _corner(5, "Chicane (turn 5)", [0, -1, -2]),
            "off_track": _off(1, 1, 1, 11, src=OFF_CARD),
        },
        {
            "kind": "straight",
            "name": "Towards Campsa",
            "trajectories": [
                _traj(
                    "sharp",
                    ["red", "orange"],
                    2,
                    cost={"tyres": 0, "damage": 1, "cards": 0},
                    source=BARCELONA_SHARP,
                )
            ],
        },
        {
            "kind": "curve",
            "capacity": 3,
            "corner": _corner(6, "Campsa", [0, -2, -2]),
            "off_track": _off(2, 0, 0, 13),
            "trajectories": [_traj("normal", ["red"], 1)],
        },
        {"kind": "straight", "name": "Back straight"},
        {
            "kind": "straight",
            "name": "Back straight",
            "trajectories": [_traj("normal", ["red"], 1)],
        },
        {"kind": "straight", "name": "Back straight"},
        {
            "kind": "braking",
            "name": "Braking for La Caixa",
            "late_brake": {"target": 40, "source": PAD},
            "trajectories": [
                _traj(
                    "sharp",
                    ["orange", "green"],
                    2,
                    cost={"tyres": 1, "damage": 0, "cards": 0},
                    source=EXP + ", Sharp Trajectories example (before turn 7): bonus +2 and "
                    "cost 1 tyre from the example; orange matches, red and yellow do not; "
                    "the second colour (green): Paddock rule",
                )
            ],
        },
        {
            "kind": "curve",
            "capacity": 3,
            "corner": _corner(7, "La Caixa", [0, -1, -1]),
            "off_track": _off(1, 1, 0, 17),
        },
        {
            "kind": "curve",
            "capacity": 3,
            "corner": _corner(8, "Turn 8 (kink and long right)", [0, -2, -2]),
            "trajectories": [_traj("normal", ["yellow"], 1)],
        },
        {"kind": "straight", "name": "Towards New Holland"},
        {
            "kind": "curve",
            "capacity": 3,
            "corner": _corner(9, "New Holland", [0, -1, -2]),
            "off_track": _off(1, 0, 1, 21, src=OFF_CARD),
            "trajectories": [_traj("normal", ["orange"], 1)],
        },
        {"kind": "straight", "name": "Grid", "grid": True},
        {"kind": "straight", "name": "Grid", "grid": True},
        {"kind": "straight", "name": "Grid", "grid": True},
    ],
}

SILVERSTONE = {
    "id": "silverstone",
    "name": "Silverstone",
    "source": EXP + ", SILVERSTONE; layout of the sections: Paddock rule (board not in sources)",
    "race_turns": 25,
    "race_turns_source": PAD + " (the sources give no race length for Silverstone)",
    "laps": 59,
    "stages": [1, 10, 19],
    "pit_sections": 8,
    "pit_source": EXP + ", SILVERSTONE, Pit stop",
    "sections": [
        {"kind": "straight", "name": "Pit straight"},
        {
            "kind": "curve",
            "capacity": 3,
            "corner": _corner(1, "Copse", [0, -1, -2]),
            "off_track": _off(2, 1, 0, 2),
        },
        {
            "kind": "straight",
            "name": "Towards Maggots",
            "trajectories": [
                _traj(
                    "sharp",
                    ["red", "orange"],
                    2,
                    cost={"tyres": 1, "damage": 0, "cards": 0},
                    source=EXP + ", Silverstone designer notes (three Sharp Trajectories before "
                    "turn 3); bonus and cost: Paddock rule",
                )
            ],
        },
        {
            "kind": "curve",
            "capacity": 3,
            "corner": _corner(2, "Maggots-Becketts-Chapel", [0, -1, -2]),
            "trajectories": [
                _traj(
                    "sharp",
                    ["yellow"],
                    2,
                    cost={"tyres": 0, "damage": 1, "cards": 0},
                    source=EXP + ", Silverstone designer notes; bonus and cost: Paddock rule",
                )
            ],
        },
        {
            "kind": "straight",
            "name": "Hangar straight",
            "trajectories": [
                _traj(
                    "sharp",
                    ["orange", "green"],
                    2,
                    cost={"tyres": 1, "damage": 0, "cards": 1},
                    source=EXP + ", Silverstone designer notes; bonus and cost: Paddock rule",
                )
            ],
        },
        {"kind": "straight", "name": "Hangar straight"},
        {
            "kind": "curve",
            "capacity": 3,
            "corner": _corner(3, "Stowe", [0, -1, -1]),
            "off_track": _off(2, 1, 0, 7),
        },
        {"kind": "straight", "name": "Vale straight"},
        {
            "kind": "braking",
            "name": "Braking for Vale",
            "late_brake": {"target": 50, "source": LB_SIL},
        },
        {
            "kind": "curve",
            "capacity": 3,
            "corner": _corner(
                4,
                "Vale/Club",
                [0, 1, 1],
                source=EXP + ", designer notes (the only positive modifier); values: Paddock rule",
            ),
            "off_track": _off(1, 1, 0, 10),
        },
        {
            "kind": "straight",
            "name": "Club straight",
            "trajectories": [_traj("normal", ["red"], 1)],
        },
        {
            "kind": "braking",
            "name": "Braking for Abbey",
            "late_brake": {"target": 50, "source": LB_SIL},
        },
        {
            "kind": "curve",
            "capacity": 3,
            "corner": _corner(5, "Abbey", [0, -1, -1]),
            "off_track": _off(2, 1, 0, 13),
        },
        {"kind": "straight", "name": "Bridge"},
        {
            "kind": "braking",
            "name": "Braking for Priory",
            "trajectories": [_traj("extreme", ["red"], 2, target=45)],
        },
        {
            "kind": "curve",
            "capacity": 3,
            "corner": _corner(
                6,
                "Priory-Brooklands",
                [0, -3, -4],
                source=EXP + ", designer notes (huge negative modifier); values: Paddock rule",
            ),
            "off_track": _off(2, 1, 0, 16),
        },
        {
            "kind": "braking",
            "name": "Braking for Luffield",
            "trajectories": [
                _traj(
                    "extreme",
                    ["orange", "yellow"],
                    2,
                    target=65,
                    source=EXP + ", SILVERSTONE, Extreme Trajectories (dual colour, target 65); "
                    "bonus: Paddock rule",
                )
            ],
        },
        {
            "kind": "curve",
            "capacity": 3,
            "corner": _corner(
                7,
                "Luffield",
                [0, -3, -4],
                source=EXP + ", designer notes (huge negative modifier); values: Paddock rule",
            ),
            "off_track": _off(2, 1, 0, 18),
        },
        # no trajectory bonus after the Abbey: "a nasty slow funnel" (EXP, designer notes)
        {"kind": "straight", "name": "Woodcote"},
        {
            "kind": "straight",
            "name": "Grid",
            "grid": True,
            "capacity": 6,
            "source": EXP + ", Silverstone Starting grid (six cars per grid section)",
        },
        {
            "kind": "straight",
            "name": "Grid",
            "grid": True,
            "capacity": 6,
            "source": EXP + ", Silverstone Starting grid (six cars per grid section)",
        },
    ],
}


def main() -> None:
    def dump(name: str, obj: object) -> None:
        (HERE / name).write_text(json.dumps(obj, indent=1) + "\n", encoding="utf-8")

    dump("race_deck.json", race_deck())
    dump("track_barcelona.json", build_track(BARCELONA) | {"track_deck": track_deck(3)})
    dump("track_silverstone.json", build_track(SILVERSTONE) | {"track_deck": track_deck(17)})


if __name__ == "__main__":
    main()
