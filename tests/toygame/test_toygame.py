"""Each game is declared once (issue 24): a game declared only in this package plays through
the real command tree, from `/league create` to the league's standings, found by the bot,
the leagues and the lobby in the registry as the real games are. Every step goes through
Discord's side (slash commands, the buttons the bot offered, the messages it posted)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from paddock_tools.fakediscord import ALICE, BOB, FakeUser, InProcessDriver
from paddock_tools.fakediscord.backend import _walk_components
from renderer.boards import warm_all
from rules.base import games
from tests.toygame.board import MARKERS, empty_board
from tests.toygame.rules import ToyGame
from tests.toygame.spec import SPEC

ROOT = Path(__file__).resolve().parents[2]
USERS = {ALICE.id: ALICE, BOB.id: BOB}
CLASSIFICATION = re.compile(r"^(\d+)\. (\w+) \((\w+)\): square \d+$", re.MULTILINE)


def custom_ids(message: dict[str, Any]) -> list[str]:
    return [
        c["custom_id"]
        for c in _walk_components(message.get("components") or [])
        if "custom_id" in c
    ]


def messages_with(d: InProcessDriver, prefix: str) -> list[dict[str, Any]]:
    """The bot's messages (as they are now) offering a button whose custom_id starts so."""
    return [
        m for m in d.backend.messages.values() if any(c.startswith(prefix) for c in custom_ids(m))
    ]


def classification(d: InProcessDriver) -> str | None:
    found = [m["content"] for m in d.backend.messages.values() if "Classification" in str(m)]
    return found[-1] if found else None


@pytest.mark.image_processes  # as `paddock run` draws: every picture sent to a worker
async def test_a_league_race_of_a_game_declared_in_its_test_package(
    toy_driver: InProcessDriver,
) -> None:
    d = toy_driver
    # /league create offers the registered games: the toy game among them.
    offered = await d.autocomplete("league", "create", focused="game", game="toy")
    assert {"name": SPEC.title, "value": SPEC.name} in offered
    created = await d.slash("league", "create", name="Toy Cup", game=SPEC.name, user=ALICE)
    assert not created.ephemeral, created.content
    assert f"({SPEC.title}, its first season, points 10-8-6-4-2-1)" in str(created.content)
    # Its members claim the toy spec's colours (and no other).
    refused = await d.slash("league", "join", league="Toy Cup", colour="yellow", user=BOB)
    assert refused.ephemeral
    assert "Pick a colour from: red, blue, green, white" in str(refused.content)
    await d.slash("league", "join", league="Toy Cup", colour="green", user=ALICE)
    await d.slash("league", "join", league="Toy Cup", colour="white", user=BOB)
    await d.slash(
        "league-admin", "round-set", league="Toy Cup", number=1, name="Dice Park", user=ALICE
    )

    # The host opens a league race of the toy game with its own command; the other joins.
    leagues = await d.autocomplete("toy", "new", focused="league", league="")
    assert [c["value"] for c in leagues] == ["Toy Cup"]
    opened = await d.slash("toy", "new", league="Toy Cup", round=1, user=ALICE)
    assert any("Toy Cup round 1: Dice Park" in (c.content or "") for c in opened), opened
    (lobby,) = messages_with(d, "pd:toy:")
    join = next(c for c in custom_ids(lobby) if c.endswith(":join"))
    gid = int(join.split(":")[2])
    joined = await d.click(join, user=BOB)
    assert not joined.ephemeral, joined.content
    lobby = d.backend.messages[int(lobby["id"])]
    drivers = lobby["embeds"][0]["fields"][0]
    # Each driver in their league colour, the host too.
    assert drivers["name"] == "Drivers (2/4)"
    assert f"<@{ALICE.id}> alice (green)" in drivers["value"]
    assert f"<@{BOB.id}> bob (white)" in drivers["value"]
    started = await d.click(f"pd:toy:{gid}:start", user=ALICE)
    assert not started.ephemeral, started.content

    # Play: whoever the live prompt pings presses one of the buttons it offers.
    prefix = f"pd:toy:{gid}:act:"
    clicks = 0
    while classification(d) is None:
        prompts = messages_with(d, prefix)
        assert len(prompts) == 1, "one live prompt, the earlier ones stripped of their buttons"
        (prompt,) = prompts
        (user_id,) = {int(u) for u in re.findall(r"<@(\d+)>", prompt["content"])}
        user: FakeUser = USERS[user_id]
        offered_ids = [c for c in custom_ids(prompt) if c.startswith(prefix)]
        assert len(offered_ids) == 2  # Roll, Roll +1
        choice = offered_ids[clicks % 2]
        played = await d.click(choice, user=user, message_id=int(prompt["id"]))
        assert not any(c.ephemeral for c in played), played.content
        clicks += 1
        assert clicks <= 42, "every roll moves a car on: 21 each at most"
    final = classification(d)
    assert final is not None
    order = CLASSIFICATION.findall(final)
    assert [place for place, _, _ in order] == ["1", "2"], final
    assert {(name, colour) for _, name, colour in order} == {("alice", "green"), ("bob", "white")}
    first, second = order[0][1], order[1][1]
    # Waddington's table (rule 57), the league's default: 10 for a win, 8 for second.
    assert f"League points (Toy Cup (season 1), recorded): {first} 10, {second} 8" in final
    pictures = [f for c in d.backend.calls for f in c.files]
    assert any(f.filename == f"race{gid}-board.png" and f.is_png for f in pictures)
    assert any(f.filename == f"race{gid}-result.png" and f.is_png for f in pictures)

    standings = await d.slash("league", "standings", league="Toy Cup", user=BOB)
    embed = standings.last.embed
    assert embed is not None and embed.description is not None
    rows = re.findall(r"^\s*(\d+)\. (\w+)\s+(\d+) pts", embed.description, re.MULTILINE)
    assert rows == [("1", first, "10"), ("2", second, "8")]
    assert embed.footer.text is not None and embed.footer.text.startswith(SPEC.title)
    assert "1/1 rounds" in embed.footer.text


def test_start_up_warms_what_the_spec_names(
    toy_game: ToyGame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot's start-up draws each registered game's board and runs its spec's `warm`
    (here only the toy game's, not the real games' seconds of it)."""
    monkeypatch.setattr("renderer.boards.specs", lambda: {SPEC.name: toy_game.spec})
    empty_board.cache_clear()
    warm_all()
    # the board of a simulated race (2 cars), then every size the spec's warm builds
    assert empty_board.cache_info().currsize == len(MARKERS) - 1
    empty_board.cache_clear()


def test_the_toy_game_is_known_only_while_a_test_registers_it() -> None:
    """Its fixture unregisters it: no other test's bot has `/toy`."""
    assert SPEC.name not in games()


def test_no_shared_code_names_the_toy_game() -> None:
    """What plugs the toy game in is the registry: no module of the bot, the rules, the
    renderer or the store names its package."""
    for layer in ("bot", "rules", "renderer", "store"):
        for path in (ROOT / layer).rglob("*.py"):
            assert "toygame" not in path.read_text(encoding="utf-8"), path
