import pytest

from rules.championship import (
    PointsTable,
    RoundResult,
    default_points_table,
    get_points_table,
    parse_custom_points,
    points_tables,
    standings,
)
from rules.errors import PaddockError


def R(rnd: int, member: str, place: int | None, status: str = "finished") -> RoundResult:
    return RoundResult(round=rnd, member=member, place=place, status=status)


def test_default_table_is_waddingtons_section_o() -> None:
    table = default_points_table()
    assert table.name == "waddington"
    assert [table.points_for(p) for p in range(1, 8)] == [10, 8, 6, 4, 2, 1, 0]
    assert table.points_for(None) == 0


def test_other_tables_are_data() -> None:
    assert get_points_table("f1-1991").points == [10, 6, 4, 3, 2, 1]
    assert get_points_table("modern").points == [25, 18, 15, 12, 10, 8, 6, 4, 2, 1]
    assert set(points_tables()) >= {"waddington", "f1-1991", "modern"}
    with pytest.raises(PaddockError, match="no points table"):
        get_points_table("nope")


def test_points_then_countback_then_earlier_result() -> None:
    # All on 16 points. b (2nd, 2nd) has no win, so countback puts a and c ahead; a and c
    # (one win, one third each) are split by round 1, where a was 1st and c 3rd.
    results = [R(1, "a", 1), R(1, "b", 2), R(1, "c", 3), R(2, "c", 1), R(2, "b", 2), R(2, "a", 3)]
    rows = standings(["a", "b", "c"], results, default_points_table())
    assert [(r.member, r.points, r.position, r.tied) for r in rows] == [
        ("a", 16, 1, False),
        ("c", 16, 2, False),
        ("b", 16, 3, False),
    ]


def test_countback_orders_by_wins_then_seconds() -> None:
    results = [
        R(1, "a", 1),
        R(1, "b", 2),
        R(1, "c", 4),
        R(2, "a", 6),
        R(2, "b", 3),
        R(2, "c", 1),
    ]
    # points: a 10+1=11, b 8+6=14, c 4+10=14 -> b and c level on 14; c has a win.
    rows = standings(["a", "b", "c"], results, default_points_table())
    assert [(r.member, r.points, r.position, r.tied) for r in rows] == [
        ("c", 14, 1, False),
        ("b", 14, 2, False),
        ("a", 11, 3, False),
    ]


def test_earlier_result_breaks_a_countback_tie() -> None:
    # a: 1st then 3rd; b: 3rd then 1st. Same points, same countback; a was better earlier.
    results = [R(1, "a", 1), R(1, "b", 3), R(2, "a", 3), R(2, "b", 1)]
    rows = standings(["b", "a"], results, default_points_table())
    assert [r.member for r in rows] == ["a", "b"]
    assert [r.position for r in rows] == [1, 2]


def test_identical_records_are_shown_as_ties() -> None:
    results = [R(1, "a", 1), R(1, "b", 1), R(2, "c", 2)]  # a and b shared a win (manual entry)
    rows = standings(["a", "b", "c", "d"], results, default_points_table())
    by = {r.member: r for r in rows}
    assert by["a"].position == by["b"].position == 1 and by["a"].tied and by["b"].tied
    assert by["c"].position == 3 and not by["c"].tied
    assert by["d"].position == 4 and by["d"].points == 0


def test_retired_driver_scores_by_the_place_given() -> None:
    results = [R(1, "a", 1), R(1, "b", 2, "retired")]
    rows = standings(["a", "b"], results, default_points_table())
    assert rows[1].member == "b" and rows[1].points == 8


def test_custom_table_changes_the_order() -> None:
    # With 10-6-4-3-2-1, two seconds (12) beat a win and a sixth (11); with 25-18 they don't.
    results = [R(1, "a", 1), R(1, "b", 2), R(2, "b", 2), R(2, "a", 6)]
    f1991 = standings(["a", "b"], results, get_points_table("f1-1991"))
    modern = standings(["a", "b"], results, get_points_table("modern"))
    assert [r.member for r in f1991] == ["b", "a"]
    assert [r.member for r in modern] == ["b", "a"]  # 36 vs 33
    table = PointsTable(name="custom", title="x", points=[1], source="test")
    only_win = standings(["a", "b"], results, table)
    assert [(r.member, r.points) for r in only_win] == [("a", 1), ("b", 0)]


def test_parse_custom_points() -> None:
    assert parse_custom_points("12-9-7, 5 3 1") == [12, 9, 7, 5, 3, 1]
    for bad in ["", "a-b", "1-2", "-", "5--x"]:
        with pytest.raises(PaddockError):
            parse_custom_points(bad)


def test_points_table_refuses_increasing_points() -> None:
    with pytest.raises(ValueError):
        PointsTable(name="x", title="x", points=[1, 2], source="x")
