"""The repair arithmetic (every rulebook example), the data files and the coordinate parser."""

from __future__ import annotations

from collections import Counter

import pytest

from rules.base import get_game
from rules.errors import IllegalAction
from rules.pitformula import (
    GAME,
    answers,
    catalog,
    coord_of,
    is_correct,
    parse_command,
    parse_fix,
    parse_tokens,
    slot_of,
    table_layout,
)
from rules.pitformula.repairs import solvable_with
from tests.pitformula.pf_helpers import new

# --- the rulebook's repair examples (source: '2.1'-'2.4') ------------------------------------


@pytest.mark.parametrize(
    ("part", "card", "good", "bad"),
    [
        # 2.1 Tire repair
        ("tyre", (2, 5), [[3], [7]], [[4], [2, 5], [7, 3]]),
        ("tyre", (9, 4), [[5], [1, 3], [3, 1]], [[13 % 10], [4], [1, 4], [5, 1]]),
        # 2.2 Wing repair (always 2 tokens)
        ("wing", (69, 12), [[5, 7], [8, 1], [7, 5]], [[5, 8], [5], [8, 1, 0], [1, 2]]),
        ("wing", (19, 29), [[1, 0], [4, 8]], [[1], [4, 9], [1, 1]]),
        # 2.3 Gas repair: the open interval on 0-9
        ("gas", (3, 6), [[4, 5]], [[3, 6], [4], [4, 5, 6], [5, 6]]),
        ("gas", (8, 1), [[9, 0]], [[8, 1], [2, 3], [9], [0, 1]]),
        # 2.4 Engine repair: the product
        ("engine", (3, 9), [[2, 7]], [[2, 8], [1, 2], [7]]),
        ("engine", (10, 7), [[7, 0]], [[1, 7], [7], [1, 0]]),
    ],
)
def test_rulebook_repair_examples(part, card, good, bad):
    a, b = card
    for digits in good:
        assert is_correct(part, a, b, digits), (part, card, digits)
    for digits in bad:
        assert not is_correct(part, a, b, digits), (part, card, digits)


def test_rulebook_example_cards_are_in_the_decks():
    cards = {(c.part, tuple(c.numbers)) for c in catalog().part_cards.values()}
    for ex in [
        ("tyre", (2, 5)),
        ("tyre", (9, 4)),
        ("wing", (69, 12)),
        ("wing", (19, 29)),
        ("gas", (3, 6)),
        ("gas", (8, 1)),
        ("engine", (3, 9)),
        ("engine", (10, 7)),
    ]:
        assert ex in cards


def test_spare_part_is_wild_for_one_token():
    assert is_correct("engine", 3, 9, [2, None])
    assert is_correct("engine", 3, 9, [None, 7])
    assert is_correct("engine", 3, 9, [None, None])
    assert not is_correct("engine", 3, 9, [1, None])
    assert is_correct("tyre", 9, 4, [None])  # stands for the 5
    assert not is_correct("wing", 69, 12, [None])  # a wing still takes 2


def test_answers():
    assert answers("tyre", 9, 4) == [(1, 3), (5,)]
    assert answers("wing", 69, 12) == [(8, 1), (5, 7)]
    assert answers("gas", 8, 1) == [(9, 0)]
    assert answers("engine", 10, 7) == [(7, 0)]


# --- data --------------------------------------------------------------------------------------


def test_component_counts():
    cat = catalog()
    comp = cat.components
    assert {p: len(v) for p, v in comp.tokens.items()} == {
        "tyre": 40,
        "wing": 10,
        "gas": 10,
        "engine": 10,
    }
    assert sum(len(v) for v in comp.tokens.values()) == 70
    assert Counter(c.part for c in cat.part_cards.values()) == {
        "tyre": 40,
        "wing": 10,
        "gas": 10,
        "engine": 10,
    }
    assert len(cat.crash_deck("crash", False)) == 14
    assert len(cat.crash_deck("super", False)) == 7
    assert len(cat.trophies) == 12
    assert len(cat.rivals) == 3
    assert comp.spare_parts == 8
    assert cat.rivals["rookie"].stopwatch_s == 40  # 'Designer note #10'


def test_every_part_card_is_solvable_with_the_tokens():
    cat = catalog()
    for card in cat.part_cards.values():
        a, b = card.numbers
        assert answers(card.part, a, b), card.id
        assert solvable_with(card.part, a, b, cat.components.tokens[card.part]), card.id


def test_card_ids_are_unique_and_numbers_fit_the_part():
    cat = catalog()
    for card in cat.part_cards.values():
        a, b = card.numbers
        if card.part in ("tyre", "gas"):
            assert 0 <= a <= 9 and 0 <= b <= 9
        elif card.part == "wing":
            assert 10 <= a <= 99 and 10 <= b <= 99


NAMED = [
    "Sudden rain",
    "Smoke",
    "Safety car",
    "Lightning",
    "Gremlin",
    "Armageddon",
    "Loose Wheel",
    "Runaway Engine",
    "Sabotage",
    "Blue Hull",
    "Explosion",
]
BASIC_REMOVED = [
    "Lightning",
    "Gremlin",
    "Armageddon",
    "Loose Wheel",
    "Smoke",
    "Runaway Engine",
    "Sabotage",
    "Blue Hull",
    "Explosion",
]


def test_named_crash_cards_exist_and_basic_game_removes_exactly_the_engine_ones():
    cat = catalog()
    names = {c.name: c for c in cat.crash_cards.values()}
    for n in NAMED:
        assert n in names
    for n in BASIC_REMOVED:
        assert names[n].uses_engine(), n
    basic = {cat.crash_cards[i].name for d in ("crash", "super") for i in cat.crash_deck(d, True)}
    assert basic == set(names) - set(BASIC_REMOVED)
    assert cat.crash_deck("super", True), "the basic game still needs super crash cards"
    assert cat.crash_cards["armageddon"].deck == "super"  # 'Designer note #3'


def test_rulebook_crash_card_texts():
    cat = catalog().crash_cards
    rain, smoke, safety = cat["sudden-rain"], cat["smoke"], cat["safety-car"]
    assert (
        rain.kind == "all"
        and rain.all
        and rain.all.model_dump()
        == {
            "tyre": 4,
            "wing": 0,
            "gas": 0,
            "engine": 0,
        }
    )
    assert smoke.kind == "leader"
    assert smoke.special and smoke.special.model_dump() == {
        "tyre": 0,
        "wing": 0,
        "gas": 1,
        "engine": 1,
    }
    assert smoke.others and smoke.others.model_dump() == {
        "tyre": 2,
        "wing": 0,
        "gas": 1,
        "engine": 0,
    }
    assert safety.kind == "last"
    assert safety.special and safety.special.tyre == 4 and safety.special.total() == 4
    assert safety.others and safety.others.model_dump() == {
        "tyre": 0,
        "wing": 1,
        "gas": 1,
        "engine": 0,
    }


def test_trophy_values_are_ordered_and_one_gives_gold_one_point():
    trophies = catalog().trophies.values()
    for t in trophies:
        assert t.points[0] >= t.points[1] >= t.points[2] >= 0
    assert any(t.points[0] == 1 for t in trophies)  # the solo example


def test_registered_once_under_its_name():
    game = get_game("pitformula")
    assert game is GAME
    assert game.title == "Pit Formula"
    import rules.base

    rules.base._load_builtin_games()  # importing again does not register twice
    assert get_game("pitformula") is GAME


# --- coordinates and parser ---------------------------------------------------------------------


def test_coordinates_round_trip_and_layout():
    assert {coord_of(s) for s in range(70)} == {
        f"{c}{r}" for c in "abcdefghijklmn" for r in "12345"
    }
    for s in range(70):
        assert slot_of(coord_of(s)) == s
    assert slot_of("a1") == 0 and slot_of("n5") == 69 and slot_of("B3") == 29
    state = new()
    rows = table_layout(state)
    assert len(rows) == 5 and all(len(r) == 14 for r in rows)
    assert [c["block"] for c in rows[0]] == [1] * 7 + [2] * 7
    assert sum(c["present"] for r in rows for c in r) == 70
    faces = Counter(f"{c['part']}{c['digit']}" for r in rows for c in r)
    assert faces["tyre3"] == 4 and faces["engine3"] == 1


def test_parser():
    assert parse_fix("t2 b3 c4") == ("t2", ["b3", "c4"])
    assert parse_fix("E A1, a2") == ("e", ["a1", "a2"])
    assert parse_fix("wing k5 spare") == ("w", ["k5", "spare"])
    assert parse_tokens("spare") == ["spare"]
    assert parse_tokens("b3 sp *") == ["b3", "spare", "spare"]
    assert parse_command("t2 b3 c4") == {"kind": "fix", "card": "t2", "tokens": ["b3", "c4"]}
    assert parse_command("reveal t1 t2 g") == {"kind": "reveal", "cards": ["t1", "t2", "g"]}
    assert parse_command("clear w") == {"kind": "clear", "card": "w"}
    assert parse_command("flag") == {"kind": "flag"}
    assert parse_command("go") == {"kind": "go"}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("t2 z9", "column a-n"),
        ("t2 b6", "row 1-5"),
        ("t5 a1", "not one of your cards"),
        ("", "Type a card"),
        ("t2", "Name the tokens"),
        ("b3 c4", "Name the card first"),
        ("spare", "Name the card first"),
        ("reveal", "Name the cards"),
        ("clear", "Name one card"),
    ],
)
def test_parser_errors(text, words):
    with pytest.raises(IllegalAction) as exc:
        parse_command(text)
    assert words in exc.value.message
