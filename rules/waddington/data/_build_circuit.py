"""Regenerate circuit.json (run by hand: python -m rules.waddington.data._build_circuit).

The circuit is a clockwise loop of 72 rows x 3 lanes (0 = inside, 2 = outside). Geometry is in
"row units": one row = 1 unit along the centre line, lanes 1 unit apart. Every corner is two
45-degree turns of 3 rows joined by 2 straight rows, so the loop closes exactly when opposite
straights have equal length. The layout is a Paddock design (the 1962 board is not described
in the sources); corner names follow the original's spirit.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

LENGTH = 72
TURN_ROWS = {8, 9, 10, 13, 14, 15, 20, 21, 22, 25, 26, 27, 44, 45, 46, 49, 50, 51}
TURN_ROWS |= {56, 57, 58, 61, 62, 63}
STEP_DEG = 15.0  # 3 turn rows = 45 degrees

PAD = "Paddock rule (circuit designed by Paddock; the 1962 board is not in the sources)"


def _geometry() -> list[dict]:
    x, y, heading = 0.0, 0.0, 0.0  # heading in degrees, 0 = east, clockwise turns subtract
    rows = []
    for r in range(LENGTH):
        turn = r in TURN_ROWS
        if turn:
            heading -= STEP_DEG / 2
        rad = math.radians(heading)
        # inside (lane 0) is on the right of the direction of travel for a clockwise loop
        nx, ny = math.sin(rad), -math.cos(rad)  # unit vector to the right
        squares = [
            [round(x + nx * (1 - lane), 3), round(y + ny * (1 - lane), 3)] for lane in range(3)
        ]
        rows.append(
            {
                "row": r,
                "centre": [round(x, 3), round(y, 3)],
                "heading": round(heading % 360, 3),
                "squares": squares,
                "pit": [round(x + nx * 2.3, 3), round(y + ny * 2.3, 3)],
                "verge": [round(x - nx * 2.3, 3), round(y - ny * 2.3, 3)],
            }
        )
        if turn:
            heading -= STEP_DEG / 2
        rad = math.radians(heading)
        x += math.cos(rad)
        y += math.sin(rad)
    assert abs(x) < 1e-6 and abs(y) < 1e-6, (x, y)
    return rows


def build() -> dict:
    rows = _geometry()
    line_a = rows[0]["squares"][0]
    line_b = rows[0]["squares"][2]
    return {
        "name": "paddock-park",
        "title": "Paddock Park",
        "source": PAD,
        "length": LENGTH,
        "lanes": 3,
        "rows": rows,
        "corners": [
            {"name": "Copse Corner", "first_row": 8, "last_row": 15, "spin_off_row": 12},
            {"name": "Becketts", "first_row": 20, "last_row": 27, "spin_off_row": 21},
            {"name": "Stowe Curve", "first_row": 44, "last_row": 51, "spin_off_row": 47},
            {"name": "Abbey Curve", "first_row": 56, "last_row": 63, "spin_off_row": 58},
        ],
        "bands": [
            {
                "row": 12,
                "corner": "Copse Corner",
                "safety": [40, 60, 80],
                "source": "outer lane 80: §H rule 27; inner lanes: Paddock rule",
            },
            {"row": 21, "corner": "Becketts", "safety": [40, 40, 60]},
            {"row": 26, "corner": "Becketts", "safety": [40, 60, 80]},
            {
                "row": 47,
                "corner": "Stowe Curve",
                "safety": [80, 100, 120],
                "source": "widest curves allow 120: public-facts.md; the rest: Paddock rule",
            },
            {
                "row": 58,
                "corner": "Abbey Curve",
                "safety": [40, 60, 80],
                "source": "inside lane 40: public-facts.md; the rest: Paddock rule",
            },
            {
                "row": 61,
                "corner": "Abbey Curve",
                "safety": [40, 60, 80],
                "source": "inside lane 40: public-facts.md; the rest: Paddock rule",
            },
        ],
        "obstacles": [
            {"name": "Becketts island", "kind": "island", "squares": [[23, 0], [24, 0]]},
            {
                "name": "Prenton Pool",
                "kind": "pool",
                "squares": [[34, 0], [35, 0], [35, 1], [36, 0]],
            },
            {"name": "Abbey island", "kind": "island", "squares": [[59, 0], [60, 0]]},
        ],
        "pits": [{"number": n, "row": 63 + n} for n in range(1, 9)],
        "grid": [
            {"number": 1, "row": 7, "lane": 0},
            {"number": 2, "row": 6, "lane": 2},
            {"number": 3, "row": 5, "lane": 0},
            {"number": 4, "row": 4, "lane": 2},
            {"number": 5, "row": 3, "lane": 0},
            {"number": 6, "row": 2, "lane": 2},
            {"number": 7, "row": 1, "lane": 0},
            {"number": 8, "row": 0, "lane": 2},
        ],
        "chequered_line": {"after_row": LENGTH - 1, "ends": [line_a, line_b]},
    }


if __name__ == "__main__":
    out = Path(__file__).with_name("circuit.json")
    out.write_text(json.dumps(build(), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out}")
