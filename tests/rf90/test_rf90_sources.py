"""Source tags: what the sources do not give is tagged Paddock rule (docs/rules/rf90.md)."""

from __future__ import annotations

from rules.rf90 import catalog
from tests.helpers import ROOT

DOC = (ROOT / "docs" / "rules" / "rf90.md").read_text(encoding="utf-8")


def test_silverstone_late_brake_targets_are_tagged_paddock_rule():
    brakes = [s.late_brake for s in catalog.track("silverstone").sections if s.late_brake]
    assert [b.target for b in brakes] == [50, 50]
    assert all(b.source.startswith("Paddock rule") for b in brakes)


def test_barcelona_card_symbol_off_track_costs_are_tagged_paddock_rule():
    track = catalog.track("barcelona")
    offs = [s.off_track for s in track.sections if s.off_track and s.off_track.cost.cards]
    assert len(offs) == 2 and all("Paddock rule" in o.source for o in offs)


def test_the_doc_tags_its_own_designs():
    assert "first pass" not in DOC
    assert "ties keep the original order (Paddock rule" in DOC
    assert "repairs only red\n  discs (Paddock rule)" in DOC
    assert "Paddock adapts it" in DOC
