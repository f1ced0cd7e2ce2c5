"""A whole Race! Formula 90 race through discord.py's real command tree: two drivers and the
robots the rules give, every decision taken in the private cockpit, nothing of a hand in
public, the qualifying picks hidden until all are in."""

from __future__ import annotations

from pathlib import Path

import pytest

from paddock_tools.bots import make_bot, world
from paddock_tools.fakediscord import ALICE, BOB, CAROL, InProcessDriver
from paddock_tools.rf90_driver import PRESENTER, custom_ids, decide, loaded, prompt_of
from rules.rf90 import catalog
from store.verify import verify_store
from tests.rf90.rf90_helpers import assert_every_line_once


@pytest.mark.image_processes  # as `paddock run` draws: every picture sent to a worker
@pytest.mark.parametrize("track", ["barcelona", "silverstone"])
async def test_a_whole_race_decided_in_the_cockpit(tmp_path: Path, track: str) -> None:
    async with InProcessDriver(make_bot(tmp_path / "rf.db"), world(), timeout=20) as d:
        await d.bot.images_warm
        full = catalog.track(track).race_turns
        too_long = await d.slash("rf90", "new", track=track, turns=full + 1, user=ALICE)
        assert too_long[-1].ephemeral and f"at most {full} game turns" in too_long[-1].content
        assert await d.bot.store.list_games() == []  # refused: nothing opened
        # A shortened race (Paddock rule): the override the tests use, offered to players too.
        opened = await d.slash("rf90", "new", track=track, turn_minutes=60, turns=5, user=ALICE)
        assert any("lobby open" in (c.content or "") for c in opened)
        assert any("5 game turns" in str(e) for c in opened for e in c.embeds)
        (gid,) = [g.id for g in await d.bot.store.list_games()]
        await d.click(f"pd:rf90:{gid}:join", user=BOB)
        await d.click(f"pd:rf90:{gid}:start", user=ALICE)

        # A stranger's click on the cockpit is refused, ephemeral, and changes nothing.
        now = await loaded(d, gid)
        stranger = await d.click(
            f"pd:rf90:{gid}:cockpit", user=CAROL, message_id=int(prompt_of(d, gid)["id"])
        )
        assert stranger.ephemeral and "not your turn" in stranger.content
        assert (await loaded(d, gid)).record.seq == now.record.seq

        cards = catalog.cards(track)
        revealed = False
        decisions = 0
        while True:
            now = await loaded(d, gid)
            if now.game.is_terminal(now.state):
                break
            waiting = PRESENTER.waiting_seats(now.state)
            assert waiting, f"nobody to act in phase {now.state.phase}"
            if now.state.phase == "qualifying" and len(waiting) == 1:
                # One driver has picked: nothing public tells which card or fuel.
                picked = next(c for c in now.state.cars if c.qual_card is not None)
                public = " ".join(
                    str(m.get("content"))
                    for m in d.backend.messages.values()
                    if not (m.get("flags", 0) & 64)
                )
                assert cards[picked.qual_card].label not in public
                assert "Grid:" not in public
                revealed = True
            await decide(d, gid, waiting[0])
            decisions += 1
            assert decisions < 2000
        assert revealed

        record = (await loaded(d, gid)).record
        assert record.status == "finished" and record.published_seq == record.seq
        assert (await loaded(d, gid)).state.turn == 5  # the race ended after its 5 game turns
        public = [m for m in d.backend.messages.values() if not (m.get("flags", 0) & 64)]
        texts = [str(m.get("content")) for m in public]
        assert any(t.startswith("Grid:") for t in texts)
        assert "Classification" in texts[-1]
        # Public buttons: only the lobby's and the cockpit's, the same for every driver.
        ids = {i.split(":")[3] for m in public for i in custom_ids(m)}
        assert ids <= {"join", "leave", "start", "cancel", "cockpit"}
        files = [f.filename for c in d.backend.calls for f in c.files]
        assert f"race{gid}-track.png" in files and f"race{gid}-dashboards.png" in files
        assert f"race{gid}-closeup.png" in files and "cockpit.png" in files
        assert files.count(f"race{gid}-result.png") == 1
        assert (await verify_store(d.bot.store)).ok
        # One message with the track and the dashboards for every section activation.
        game = now.game
        state = game.new_game(record.seed, record.config)
        activations = 0
        told: list[str] = []
        sections: list[int] = []
        for done in await d.bot.store.actions(gid):
            state, events, frames = game.apply_frames(state, game.parse_action(done.action_json))
            activations += len(frames)
            sections += [label for label, _, _ in frames]
            told += [e.text for e in events if e.text]
        # The thread tells what happened once and in the order it happened (a prompt
        # that showed a move's first steps gives them back to the move's message): every
        # driver's line, none after the pictures of a later activation. Lines with no
        # picture of their own open the next prompt: no message of a lone line.
        lines = [
            line for m in public for line in str(m.get("content")).splitlines() if line in told
        ]
        rest = iter(told)
        assert all(line in rest for line in lines)  # a subsequence: in the same order
        assert not [
            m["content"]
            for m in public
            if not m.get("attachments") and str(m.get("content")).startswith("Section ")
        ]
        drivers = [t for t in told if t.startswith(("alice", "bob"))]
        assert drivers and all(t in lines for t in drivers)
        posts = [
            m
            for m in public
            if any(a["filename"] == f"race{gid}-track.png" for a in m.get("attachments") or [])
        ]
        # ... and one more: the grid, with the qualifying reveal.
        assert activations > 5 and len(posts) == activations + 1
        assert str(posts[0]["content"]).startswith("Grid:")
        assert all(
            [a["filename"] for a in m["attachments"]]
            == [f"race{gid}-track.png", f"race{gid}-dashboards.png"]
            for m in posts
        )
        # Each activation's pictures say which section it is, whatever an earlier prompt
        # said; every event line of the log is in the thread, once.
        for post, section in zip(posts[1:], sections, strict=True):
            assert f"Section {section}" in str(post["content"]), (section, post["content"])
        await assert_every_line_once(d.backend, d.bot.store, gid)


async def test_drivers_pick_their_colours_in_the_lobby(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "colours.db"), world()) as d:
        await d.slash("rf90", "new", track="silverstone", user=ALICE)
        (gid,) = [g.id for g in await d.bot.store.list_games()]
        await d.click(f"pd:rf90:{gid}:join", user=BOB)
        stranger = await d.click(f"pd:rf90:{gid}:colour:red", user=CAROL)
        assert stranger.ephemeral and "Join this race first" in stranger.content
        await d.click(f"pd:rf90:{gid}:colour:blue", user=ALICE)
        taken = await d.click(f"pd:rf90:{gid}:colour:blue", user=BOB)
        assert taken.ephemeral and "drives the blue car" in taken.content
        shown = await d.click(f"pd:rf90:{gid}:colour:white", user=BOB)
        assert "bob (white)" in str(shown.last.embed.fields)
        await d.click(f"pd:rf90:{gid}:start", user=ALICE)
        now = await loaded(d, gid)
        by_name = {c.name: c.colour for c in now.state.cars if c.seat is not None}
        assert by_name == {"alice": "blue", "bob": "white"}


async def test_log_tells_the_last_actions_in_words(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "log.db"), world(), timeout=20) as d:
        await d.slash("rf90", "new", track="barcelona", user=ALICE)
        (gid,) = [g.id for g in await d.bot.store.list_games()]
        await d.click(f"pd:rf90:{gid}:start", user=ALICE)
        while (await loaded(d, gid)).state.phase != "race":
            await decide(d, gid, PRESENTER.waiting_seats((await loaded(d, gid)).state)[0])
        await decide(d, gid, PRESENTER.waiting_seats((await loaded(d, gid)).state)[0])
        thread = (await d.bot.store.load_game(gid)).thread_id
        log = await d.slash("rf90", "log", count=3, user=BOB, channel_id=thread)
        lines = log.last.content.splitlines()
        assert log.last.ephemeral and len(lines) == 3
        seq = (await loaded(d, gid)).record.seq
        assert lines[-1].startswith(f"`{seq}` ")
        assert any("alice:" in line for line in lines)
        # Nothing private: the cards still in alice's hand are named nowhere in it.
        now = await loaded(d, gid)
        cards = catalog.cards("barcelona")
        hand = next(c for c in now.state.cars if c.seat == 0).hand
        assert hand and not any(cards[c].label in log.last.content for c in hand)


async def test_status_reposts_the_track_as_it_stands_then_the_prompt(tmp_path: Path) -> None:
    """RF90 has no board between activations: `/rf90 status` posts the track and dashboards
    now (the grid before the start), then the prompt at the bottom with live buttons."""
    async with InProcessDriver(make_bot(tmp_path / "status.db"), world(), timeout=20) as d:
        await d.slash("rf90", "new", track="silverstone", turns=3, user=ALICE)
        (gid,) = [g.id for g in await d.bot.store.list_games()]
        await d.click(f"pd:rf90:{gid}:start", user=ALICE)
        thread = (await d.bot.store.load_game(gid)).thread_id
        for phase in ("start", "race"):
            while (await loaded(d, gid)).state.phase != phase:
                await decide(d, gid, PRESENTER.waiting_seats((await loaded(d, gid)).state)[0])
            mark = d.backend.mark()
            asked = await d.slash("rf90", "status", user=BOB, channel_id=thread)
            assert asked[0].ephemeral and asked[0].content == "The race as it stands:"
            public = [c for c in d.backend.calls[mark:] if c.files and not c.ephemeral]
            assert [f.filename for f in public[0].files] == [
                f"race{gid}-track.png",
                f"race{gid}-dashboards.png",
            ], phase
            assert "The race as it stands: Silverstone · game turn" in public[0].body["content"]
            record = (await loaded(d, gid)).record
            prompt = d.backend.messages[record.prompt_message_id]
            assert int(prompt["id"]) > int(public[0].response["id"])  # the prompt below it
            assert custom_ids(prompt)


async def test_pictures_of_driver_activations_only_and_the_replay(tmp_path: Path) -> None:
    """With `pictures: drivers` only the activations in which a driver decided get a
    message with pictures (robots-only ones are told in words in the next message); the
    replay posts one animation frame per activation, the grid and the end."""
    from io import BytesIO

    from PIL import Image

    from rules.rf90.replay import activation_states

    async with InProcessDriver(make_bot(tmp_path / "pics.db"), world(), timeout=60) as d:
        await d.slash("rf90", "new", track="barcelona", pictures="drivers", user=ALICE)
        (gid,) = [g.id for g in await d.bot.store.list_games()]
        lobby = d.backend.calls[-1]
        assert "only activations in which a driver decides" in str(lobby.json)
        await d.click(f"pd:rf90:{gid}:start", user=ALICE)
        while (now := await loaded(d, gid)).state.turn < 3 and now.state.phase != "finished":
            await decide(d, gid, PRESENTER.waiting_seats(now.state)[0])
        thread = now.record.thread_id
        posted = [
            m
            for m in d.backend.messages.values()
            if int(m["channel_id"]) == thread
            and any(a["filename"].endswith("-track.png") for a in m.get("attachments") or [])
        ]
        # Offline, the same race: in which activations alice (seat 0) took a decision.
        game = now.game
        state = game.new_game(now.record.seed, now.record.config)
        with_alice = robots_only = 0
        robot_lines: list[str] = []
        acted: set[int] = set()
        for done in await d.bot.store.actions(gid):
            action = game.parse_action(done.action_json)
            state, events, frames = game.apply_frames(state, action)
            acted.add(action.seat)
            start = 0
            for _section, _at, upto in frames:
                chunk = events[start:upto]
                start = upto
                if 0 in acted:
                    with_alice += 1
                else:
                    robots_only += 1
                    robot_lines += [e.text for e in chunk if e.text]
                acted = set()
        assert robots_only > 0 and with_alice > 0  # the setting had something to leave out
        assert len(posted) == with_alice + 1  # + the grid at the qualifying reveal
        told = "\n".join(m.get("content") or "" for m in d.backend.messages.values())
        assert robot_lines and all(line in told for line in robot_lines)  # still in words

        shown = await d.slash("rf90", "replay", user=BOB, channel_id=thread)
        (webp,) = [f for c in shown for f in c.files]
        assert webp.filename.endswith("-replay.webp") and len(webp.data) < 10 * 1024 * 1024
        actions = [a.action_json for a in await d.bot.store.actions(gid)]
        expected = activation_states(game, now.record.seed, now.record.config, actions)
        with Image.open(BytesIO(webp.data)) as animation:
            assert animation.format == "WEBP" and animation.n_frames == len(expected)
        assert len(expected) == with_alice + robots_only + 2  # the grid and the end
