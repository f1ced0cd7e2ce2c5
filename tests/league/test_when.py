"""Round start times as admins type them (bot/when.py)."""

from datetime import UTC, datetime

import pytest

from bot.errors import PaddockError
from bot.when import local_text, parse_start, suggestions, timestamp

NOW = datetime(2026, 12, 5, 12, 0, tzinfo=UTC).timestamp()


def test_a_start_with_its_zone_is_that_instant() -> None:
    at, zone = parse_start("2026-12-12 20:00 Europe/Madrid", default_zone="UTC", now=NOW)
    # Madrid is UTC+1 in December.
    assert at == datetime(2026, 12, 12, 19, 0, tzinfo=UTC).timestamp()
    assert zone == "Europe/Madrid"
    assert timestamp(at) == f"<t:{int(at)}:F>"
    assert local_text(at, zone) == "2026-12-12 20:00 Europe/Madrid"


def test_the_zone_may_be_left_out_and_any_case_is_understood() -> None:
    at, zone = parse_start("2026-12-12 20:00", default_zone="america/new_york", now=NOW)
    assert zone == "America/New_York"
    assert at == datetime(2026, 12, 13, 1, 0, tzinfo=UTC).timestamp()
    at2, _ = parse_start("2026-12-12 20:00 europe/madrid", default_zone="UTC", now=NOW)
    assert at2 == datetime(2026, 12, 12, 19, 0, tzinfo=UTC).timestamp()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("2026-12-01 20:00 Europe/Madrid", "has passed"),
        ("2026-12-12 20:00 Mars/Olympus", "I don't know the time zone `Mars/Olympus`"),
        ("next saturday", "Write the start as date, time and time zone"),
        ("2026-02-30 20:00 UTC", "is not a date and time"),
        # Spain's clocks skip from 02:00 to 03:00 on 2027-03-28.
        ("2027-03-28 02:30 Europe/Madrid", "does not exist"),
    ],
)
def test_a_bad_start_is_refused_saying_what_to_write(text: str, says: str) -> None:
    with pytest.raises(PaddockError) as refused:
        parse_start(text, default_zone="UTC", now=NOW)
    assert says in str(refused.value)
    assert "\n" not in str(refused.value)


def test_autocomplete_offers_saturday_nights_then_zones() -> None:
    offered = suggestions("", default_zone="Europe/Madrid", now=NOW)
    # 2026-12-05 is a Saturday: the next ones follow.
    assert offered[:2] == ["2026-12-12 20:00 Europe/Madrid", "2026-12-19 20:00 Europe/Madrid"]
    zones = suggestions("2026-12-12 20:00 Europe/Mad", default_zone="UTC", now=NOW)
    assert zones[0] == "2026-12-12 20:00 Europe/Madrid"
    for offer in offered[:5]:
        parse_start(offer, default_zone="UTC", now=NOW)  # every offer is accepted as it is
