"""The league site from Discord (issue 26): `/league-admin web` turns a league's pages on and
off and gives it a new address, answering only to the admin with the link (and saying when
this bot does not serve the site); `/league standings` and `/league info` carry the link; the
bot serves the site with PADDOCK_WEB_PORT, read-only, beside its races."""

from __future__ import annotations

import re
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from paddock_tools.bots import ERIN, make_bot, world
from paddock_tools.fakediscord import ALICE, BOB, GUILD_ID, InProcessDriver
from tests.bot_helpers import dump
from tests.league.league_helpers import confirmed

BASE = "https://league.example"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[InProcessDriver, int]]:
    port = free_port()
    bot = make_bot(tmp_path / "bot.db", web_port=port, web_base_url=BASE + "/")
    async with InProcessDriver(bot, world()) as d:
        await d.slash("league", "create", name="Cup", game="waddington", user=ALICE)
        await d.slash("league", "join", league="Cup", user=BOB)
        yield d, port
    assert bot.site is None  # closed with the bot


async def get(port: int, path: str) -> tuple[int, str]:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{port}{path}") as response,
    ):
        return response.status, await response.text()


def path_in(text: str) -> str:
    found = re.search(re.escape(BASE) + r"(/l/[A-Za-z0-9_-]+)", text)
    assert found is not None, text
    return found.group(1)


async def test_an_admin_makes_the_league_public_and_the_bot_serves_it(
    served: tuple[InProcessDriver, int],
) -> None:
    d, port = served
    assert (await get(port, "/l/nothing-here-yet"))[0] == 404
    on = await d.slash("league-admin", "web", league="Cup", state="on", user=ALICE)
    assert on.ephemeral  # the address is the admin's to share
    assert "is public" in on.content and "does not serve" not in on.content
    path = path_in(on.content)
    status, html = await get(port, path)
    assert status == 200 and "<h1>Cup</h1>" in html and BOB.name in html
    assert str(BOB.id) not in html

    # /league standings and /league info carry the link
    standings = await d.slash("league", "standings", league="Cup", user=ERIN)
    assert standings.last.embed.url == BASE + path
    assert f"[On the web]({BASE}{path})" in standings.last.embed.description
    info = await d.slash("league", "info", league="Cup", user=ERIN)
    assert info.last.embed.url == BASE + path
    assert BASE + path in [f.value for f in info.last.embed.fields]

    # a new address revokes the old one; off hides the new one; on brings it back
    new = await d.slash("league-admin", "web", league="Cup", state="regenerate", user=ALICE)
    assert "no longer works" in new.content
    new_path = path_in(new.content)
    assert new_path != path
    assert (await get(port, path))[0] == 404
    assert (await get(port, new_path))[0] == 200
    off = await d.slash("league-admin", "web", league="Cup", state="off", user=ALICE)
    assert "is off" in off.content
    assert (await get(port, new_path))[0] == 404
    standings = await d.slash("league", "standings", league="Cup", user=ERIN)
    assert standings.last.embed.url is None and "On the web" not in str(
        standings.last.embed.description
    )
    await d.slash("league-admin", "web", league="Cup", state="on", user=ALICE)
    assert (await get(port, new_path))[0] == 200


async def test_a_new_season_keeps_the_address_and_links_its_earlier_seasons(
    served: tuple[InProcessDriver, int],
) -> None:
    d, port = served
    path = path_in(
        (await d.slash("league-admin", "web", league="Cup", state="on", user=ALICE)).content
    )
    await confirmed(d, "league-admin", "close-season", league="Cup")
    await d.slash("league", "create", name="Cup", game="waddington", user=ALICE)
    status, html = await get(port, path)
    assert status == 200 and "season 2" in html and f'href="{path}?season=1"' in html
    assert (await get(port, path + "?season=1"))[0] == 200
    older = await d.slash("league", "standings", league="Cup", season=1, user=ERIN)
    assert older.last.embed.url == f"{BASE}{path}?season=1"


async def test_only_an_admin_may_and_nothing_changes_otherwise(
    served: tuple[InProcessDriver, int],
) -> None:
    d, _ = served
    before = await dump(d.bot.store)
    refused = await d.slash("league-admin", "web", league="Cup", state="on", user=BOB)
    assert refused.ephemeral and "Only league admins" in refused.content
    assert await dump(d.bot.store) == before


async def test_without_a_site_the_answer_says_the_bot_does_not_serve_it(tmp_path: Path) -> None:
    async with InProcessDriver(make_bot(tmp_path / "bot.db"), world()) as d:
        await d.slash("league", "create", name="Cup", game="waddington", user=ALICE)
        on = await d.slash("league-admin", "web", league="Cup", state="on", user=ALICE)
        assert "This bot does not serve the site" in on.content
        league = await d.bot.store.get_league(GUILD_ID, "Cup")
        assert f"`/l/{league.web_token}`" in on.content and league.web_on
        standings = await d.slash("league", "standings", league="Cup", user=ERIN)
        assert standings.last.embed.url is None  # no address known: no link
    async with InProcessDriver(make_bot(tmp_path / "bot.db", web_base_url=BASE), world()) as d:
        on = await d.slash("league-admin", "web", league="Cup", state="on", user=ALICE)
        assert f"{BASE}/l/{league.web_token}" in on.content
        assert "where the operator runs `paddock web`" in on.content
