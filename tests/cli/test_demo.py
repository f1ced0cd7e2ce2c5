"""`paddock demo`: the championship and the other games, written to the output folder."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from paddock_tools.demo import run_demo


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


def test_demo_output_never_wipes_a_folder_it_did_not_write(tmp_path: Path) -> None:
    from paddock_tools.demo import MARK, clear_output

    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("mine")
    refusal = clear_output(work)
    assert refusal is not None and "not empty" in refusal
    assert (work / "notes.txt").read_text() == "mine" and not (work / MARK).exists()

    out = tmp_path / "demo-out"  # new: created and marked
    assert clear_output(out) is None and (out / MARK).exists() and (out / "races").is_dir()
    (out / "races" / "old.png").write_bytes(b"x")
    (out / "demo.db").write_bytes(b"x")
    (out / "keep.txt").write_text("a file the demo never writes")
    assert clear_output(out) is None  # a previous demo's folder: only the demo's files go
    assert not (out / "demo.db").exists() and list((out / "races").iterdir()) == []
    assert (out / "keep.txt").read_text() == "a file the demo never writes"
    file = tmp_path / "file"
    file.write_text("x")
    assert "is a file" in (clear_output(file) or "")
