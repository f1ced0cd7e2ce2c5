"""`paddock demo`: the championship and the other games, written to the output folder."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from bot.demo import run_demo


async def test_demo_writes_standings_race_images_and_a_verified_database(
    tmp_path: Path, capsys
) -> None:
    out = tmp_path / "demo-out"
    assert await run_demo(out, seed=7, rounds=1) == 0
    printed = capsys.readouterr().out
    assert "Round 1" in printed and "every snapshot matches its log" in printed
    text = (out / "standings.txt").read_text()
    assert "Demo Championship" in text and "10 pts" in text  # the winner of the one round
    assert Image.open(out / "standings.png").width >= 900
    races = {p.name for p in (out / "races").iterdir()}
    assert "round1-waddington-final.png" in races
    assert "pitformula-pitformula-final.png" in races
    for track in ("barcelona", "silverstone"):
        assert f"rf90-{track}-rf90-final.png" in races
        assert any(n.startswith(f"rf90-{track}-turn5-") and n.endswith("-track.png") for n in races)
    assert (out / "demo.db").exists()
