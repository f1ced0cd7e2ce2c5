"""End to end: the real bot client against the loopback fake Discord (127.0.0.1 only)."""

from __future__ import annotations

import asyncio
import io
import time
from pathlib import Path

from PIL import Image

from paddock_tools.bots import make_bot, world
from paddock_tools.fakediscord import ALICE, BOB
from paddock_tools.fakediscord.server import FakeDiscord


async def test_league_create_and_standings_over_the_gateway(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "e2e.db", sync_commands=True, dev_guild_id=None)
    started = time.perf_counter()
    async with FakeDiscord(world()) as fd:
        assert fd.api_base.startswith("http://127.0.0.1:")
        async with fd.running(bot):
            synced = [c for c in fd.backend.calls if c.method == "PUT" and "commands" in c.path]
            assert synced and any(cmd["name"] == "league" for cmd in synced[-1].json)
            created = await fd.slash(
                "league", "create", name="Gateway Cup", game="waddington", user=ALICE
            )
            assert "League **Gateway Cup** created" in created.content
            await fd.slash("league", "join", league="Gateway Cup", colour="green", user=BOB)
            standings = await fd.slash("league", "standings", league="Gateway Cup", user=BOB)
            png = standings.files[0]
            assert png.is_png and Image.open(io.BytesIO(png.data)).width >= 900
            assert "bob" in standings.last.embed.description
        assert bot.is_closed()
    assert time.perf_counter() - started < 15
    # The bot's timer task and store are gone: nothing left running.
    leftovers = [t for t in asyncio.all_tasks() if t.get_name().startswith("paddock-")]
    assert not leftovers
