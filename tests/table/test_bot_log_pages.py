"""`/<game> log count:50` (issue 29 point 4): every action asked for is reachable. A log longer
than a message is cut into pages turned with ◀ / ▶ (stateless buttons on the asker's private
answer, which name the actions asked for, so a page shows the same actions after the race
moved on or the bot restarted); it opens on the newest page."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from paddock_tools.bots import make_bot, world
from paddock_tools.f1_driver import play_one_click
from paddock_tools.fakediscord import ALICE, BOB, InProcessDriver
from paddock_tools.fakediscord import payloads as pl
from tests.bot_helpers import dump
from tests.helpers import thread_of

SEQ = re.compile(r"^`(\d+)` ", re.MULTILINE)
INVALID = "This button is no longer valid."


def page_buttons(message: dict[str, Any]) -> dict[str, dict[str, Any]]:
    from paddock_tools.fakediscord.backend import _walk_components

    return {
        c["label"]: c
        for c in _walk_components(message.get("components") or [])
        if c.get("custom_id")
    }


async def test_a_long_log_pages_through_every_action_asked_for(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "log.db"), world(), timeout=60) as d:
        store = d.bot.store
        await d.slash("f1", "new", laps=3, turn_minutes=60, user=ALICE)
        (gid,) = [g.id for g in await store.list_games()]
        thread = thread_of(d, (await store.load_game(gid)).thread_id)
        await d.click(f"pd:f1:{gid}:join", user=BOB)
        await d.click(f"pd:f1:{gid}:start", user=ALICE)
        while (await store.load_game(gid)).seq < 60:
            await play_one_click(d, gid)
        seq = (await store.load_game(gid)).seq

        asked = await d.slash("f1", "log", count=50, user=BOB, channel_id=thread)
        log = asked.last
        assert log.ephemeral and len(log.content or "") <= 2000
        message = d.backend.messages[int(log.message["id"])]
        shown = {int(n) for n in SEQ.findall(log.content or "")}
        assert seq in shown  # it opens on the newest actions
        pages = [log.content or ""]
        buttons = page_buttons(message)
        assert set(buttons) >= {"◀", "▶"} and buttons["▶"].get("disabled")
        while not buttons["◀"].get("disabled"):
            turned = await d.click(
                buttons["◀"]["custom_id"], user=BOB, message_id=int(message["id"])
            )
            (answer,) = turned.answers
            assert answer.response_type == 7  # the same private message, edited
            message = d.backend.messages[int(message["id"])]
            pages.append(str(message["content"]))
            assert len(pages[-1]) <= 2000
            shown |= {int(n) for n in SEQ.findall(pages[-1])}
            buttons = page_buttons(message)
            assert len(pages) < 20
        assert len(pages) > 1
        assert shown == set(range(seq - 49, seq + 1)), sorted(shown)  # all 50, no more

        # The race moves on: the first page's buttons still show the actions asked for.
        await play_one_click(d, gid)
        forward = await d.click(buttons["▶"]["custom_id"], user=BOB, message_id=int(message["id"]))
        assert not forward.errors
        again = {
            int(n) for n in SEQ.findall(str(d.backend.messages[int(message["id"])]["content"]))
        }
        assert again and max(again) <= seq and min(again) >= seq - 49

        # A page button is only for the private answer it came on: on a public message of
        # the race (a forged click: Discord sends the message's own components), it is
        # refused and changes nothing.
        prompt = d.backend.messages[(await store.load_game(gid)).prompt_message_id]
        text = prompt["content"]
        button = {"type": 2, "style": 2, "label": "▶", "custom_id": buttons["▶"]["custom_id"]}
        carrier = {**prompt, "components": [{"type": 1, "components": [button]}]}
        payload = pl.component_payload(d.world, button["custom_id"], message=carrier, user=ALICE)
        before = await dump(store)
        forged = await d.dispatch(payload)
        assert forged.ephemeral and forged.content == INVALID
        assert prompt["content"] == text
        assert await dump(store) == before

        # A short log fits one message: no buttons.
        short = await d.slash("f1", "log", count=2, user=BOB, channel_id=thread)
        assert short.last.ephemeral and not short.last.custom_ids
