"""The four repairs (source: pit-formula-rulebook.txt, '2.1'-'2.4').

A repair is a list of token digits, `None` standing for a spare part (a wild token, source:
'2.6 Spare parts'). The digits shown by the tokens, in any order, must spell the answer
(Paddock rule: the order in which a player names the tokens does not matter).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

# How many tokens a repair of each part takes: (fewest, most). Tyres take "one or more" tokens;
# a tyre card's numbers are single digits, so its sum has at most two digits.
TOKEN_COUNT: dict[str, tuple[int, int]] = {
    "tyre": (1, 2),
    "wing": (2, 2),
    "gas": (2, 2),
    "engine": (2, 2),
}


def _digits(n: int) -> tuple[int, ...]:
    return tuple(int(c) for c in str(n))


def answers(part: str, a: int, b: int) -> list[tuple[int, ...]]:
    """Every digit list that repairs a card of this part showing a and b."""
    if part == "tyre":
        # sum or difference, one or more tyre tokens (source: '2.1 Tire repair')
        out = [_digits(a + b), _digits(abs(a - b))]
    elif part == "wing":
        # sum or difference of two-digit numbers, always 2 tokens (source: '2.2 Wing repair')
        out = [_digits(n) for n in (a + b, abs(a - b)) if 10 <= n <= 99]
    elif part == "gas":
        # the open interval on the cycle 0-9, always 2 tokens (source: '2.3 Gas repair'):
        # the numbers passed going round from one number to the other, the way with two.
        out = []
        for lo, hi in ((a, b), (b, a)):
            between: list[int] = []
            n = (lo + 1) % 10
            while n != hi % 10 and len(between) < 10:
                between.append(n)
                n = (n + 1) % 10
            if len(between) == 2:
                out.append(tuple(between))
    elif part == "engine":
        # the product, always 2 tokens (source: '2.4 Engine repair')
        p = a * b
        out = [_digits(p)] if 10 <= p <= 99 else []
    else:
        raise ValueError(f"unknown part {part!r}")
    unique: list[tuple[int, ...]] = []
    for ans in out:
        if ans not in unique:
            unique.append(ans)
    return unique


def matches(answer: Sequence[int], digits: Sequence[int | None]) -> bool:
    """Do these token digits (None = spare, wild) spell this answer, in any order?"""
    if len(answer) != len(digits):
        return False
    need = Counter(answer)
    need.subtract(d for d in digits if d is not None)
    return all(v >= 0 for v in need.values())


def is_correct(part: str, a: int, b: int, digits: Sequence[int | None]) -> bool:
    lo, hi = TOKEN_COUNT[part]
    if not lo <= len(digits) <= hi:
        return False
    return any(matches(ans, digits) for ans in answers(part, a, b))


def solvable_with(part: str, a: int, b: int, token_digits: Sequence[int]) -> bool:
    """Can a card be repaired from this multiset of token digits without spare parts?"""
    have = Counter(token_digits)
    for ans in answers(part, a, b):
        lo, hi = TOKEN_COUNT[part]
        if lo <= len(ans) <= hi and all(have[d] >= n for d, n in Counter(ans).items()):
            return True
    return False
