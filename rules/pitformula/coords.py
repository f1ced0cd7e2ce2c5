"""Token coordinates and the text parser (Paddock rules).

The 70 part tokens lie in two blocks of 7 x 5 (source: pit-formula-rulebook.txt, 'Setup' 5).
Block 1 has columns a-g, block 2 columns h-n; both have rows 1-5. A token is named by column and
row: `b3`, `k5`. Slot numbers run row by row: slot = (row - 1) * 14 + column index (a=0 ... n=13).

A car's part cards are named t1 t2 t3 t4 (tyres), w (wing), g (gas) and e (engine). A spare part
token is `spare` (or `sp`, `s`, `*`).
"""

from __future__ import annotations

import re

from rules.errors import IllegalAction
from rules.pitformula.catalog import Part

COLUMNS = "abcdefghijklmn"
ROWS = 5
BLOCK_COLUMNS = 7
TABLE_SLOTS = len(COLUMNS) * ROWS  # 70
SPARE = "spare"
CARD_SLOTS: tuple[str, ...] = ("t1", "t2", "t3", "t4", "w", "g", "e")
SLOT_PART: dict[str, Part] = {
    "t1": "tyre",
    "t2": "tyre",
    "t3": "tyre",
    "t4": "tyre",
    "w": "wing",
    "g": "gas",
    "e": "engine",
}

_CARD_ALIASES: dict[str, str] = {
    **{s: s for s in CARD_SLOTS},
    **{f"tyre{i}": f"t{i}" for i in range(1, 5)},
    **{f"tire{i}": f"t{i}" for i in range(1, 5)},
    "wing": "w",
    "gas": "g",
    "fuel": "g",
    "engine": "e",
}
_SPARE_WORDS = {"spare", "sp", "s", "*"}
_COORD = re.compile(r"^([a-n])([1-5])$")


def coord_of(slot: int) -> str:
    """`b3` for slot 29 etc."""
    if not 0 <= slot < TABLE_SLOTS:
        raise ValueError(f"no table slot {slot}")
    row, col = divmod(slot, len(COLUMNS))
    return f"{COLUMNS[col]}{row + 1}"


def slot_of(coord: str) -> int:
    """The slot number of a coordinate such as `b3`; IllegalAction when malformed."""
    m = _COORD.match(coord.strip().lower())
    if not m:
        raise IllegalAction(
            f"`{coord}` is not a token: use a column a-n and a row 1-5, like `b3` or `k5`."
        )
    return (int(m.group(2)) - 1) * len(COLUMNS) + COLUMNS.index(m.group(1))


def normalise_token(word: str) -> str:
    """`spare` or a coordinate in lower case; IllegalAction when malformed."""
    w = word.strip().lower()
    if w in _SPARE_WORDS:
        return SPARE
    return coord_of(slot_of(w))


def normalise_card(word: str) -> str:
    w = word.strip().lower()
    if w in _CARD_ALIASES:
        return _CARD_ALIASES[w]
    raise IllegalAction(
        f"`{word}` is not one of your cards: use t1, t2, t3, t4 (tyres), w (wing), "
        "g (gas) or e (engine)."
    )


def _words(text: str) -> list[str]:
    return [w for w in re.split(r"[\s,;]+", text.strip()) if w]


def parse_tokens(text: str) -> list[str]:
    """`"b3 c4 spare"` -> `["b3", "c4", "spare"]`."""
    words = _words(text)
    if not words:
        raise IllegalAction("Name at least one token, like `b3`, or `spare`.")
    return [normalise_token(w) for w in words]


def parse_fix(text: str) -> tuple[str, list[str]]:
    """`"t2 b3 c4"` -> `("t2", ["b3", "c4"])`: a card, then the tokens for it."""
    words = _words(text)
    if not words:
        raise IllegalAction("Type a card and its tokens, like `t2 b3 c4` or `e a1 a2`.")
    if words[0].lower() in _SPARE_WORDS or _COORD.match(words[0].lower()):
        raise IllegalAction("Name the card first, like `t2 b3 c4` or `e a1 spare`.")
    card = normalise_card(words[0])
    if len(words) == 1:
        raise IllegalAction(f"Name the tokens for {card}, like `{card} b3 c4`.")
    return card, [normalise_token(w) for w in words[1:]]


def parse_command(text: str) -> dict[str, object]:
    """Turn a typed line into an action's fields (without seat and at_ms).

    `t2 b3 c4` (fix), `reveal t1 t2` or `r t1 t2`, `clear t2`, `flag` or `f`, `retire`, `go`.
    """
    words = _words(text)
    if not words:
        raise IllegalAction("Type a card and its tokens, like `t2 b3 c4`, or `flag`.")
    head = words[0].lower()
    if head in ("reveal", "r", "turn", "show"):
        if len(words) == 1:
            raise IllegalAction("Name the cards to turn over, like `reveal t1 t2`.")
        return {"kind": "reveal", "cards": [normalise_card(w) for w in words[1:]]}
    if head in ("clear", "x", "undo"):
        if len(words) != 2:
            raise IllegalAction("Name one card to clear, like `clear t2`.")
        return {"kind": "clear", "card": normalise_card(words[1])}
    if head in ("flag", "f", "stop"):
        return {"kind": "flag"}
    if head in ("retire", "out"):
        return {"kind": "retire"}
    if head == "go":
        return {"kind": "go"}
    card, tokens = parse_fix(text)
    return {"kind": "fix", "card": card, "tokens": tokens}
