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
        # one track image per section activation of game turn 5, robots' turns included
        shown = sorted(n for n in races if n.startswith(f"rf90-{track}-turn5-activation"))
        tracks = [n for n in shown if n.endswith("-track.png")]
        assert [int(n.split("-section")[1].split("-")[0]) for n in tracks] == _activations(
            7, track, turn=5
        )
        assert len(shown) == 2 * len(tracks)  # and the dashboards with each
    assert (out / "demo.db").exists()


def _activations(seed: int, track: str, turn: int) -> list[int]:
    """The sections activated in one game turn of the demo's RF90 race, replayed here."""
    from rules.rf90 import GAME

    state = GAME.new_game(seed, GAME.simulation_config(players=2, track=track))
    sections: list[int] = []
    while not GAME.is_terminal(state) and state.turn <= turn:
        state, events = GAME.apply(state, GAME.robot_action(state, GAME.to_act(state)[0]))
        sections += [
            e.data["section"] for e in events if e.kind == "activate" and e.data["turn"] == turn
        ]
    return sections
