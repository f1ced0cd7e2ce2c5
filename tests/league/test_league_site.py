"""The league site from Discord (issue 26): `/league-admin web` turns a league's pages on and
off and gives it a new address, answering only to the admin with the link (and saying when
this bot does not serve the site); it lets search engines in per league (`search:`) and
switches the server's index of public leagues (`scope:index`); `/league standings` and
`/league info` carry the link; the bot serves the site with PADDOCK_WEB_PORT, read-only,
beside its races."""

from __future__ import annotations

import asyncio
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
        assert bot.site is not None  # `paddock web` as the bot's child (bot/site_child.py)
        await asyncio.wait_for(bot.site.listening.wait(), 60)
        child = bot.site.proc
        await d.slash("league", "create", name="Cup", game="waddington", user=ALICE)
        await d.slash("league", "join", league="Cup", user=BOB)
        yield d, port
    assert bot.site is None  # closed with the bot, and its process with it
    assert child is not None and child.returncode == 0


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


async def answer(port: int, path: str) -> tuple[int, dict[str, str], str]:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{port}{path}") as response,
    ):
        return response.status, dict(response.headers), await response.text()


def index_in(text: str) -> str:
    found = re.search(re.escape(BASE) + r"(/s/[A-Za-z0-9_-]+)", text)
    assert found is not None, text
    return found.group(1)


async def test_the_first_public_league_makes_the_servers_index_and_the_admin_gets_it(
    served: tuple[InProcessDriver, int],
) -> None:
    d, port = served
    await d.slash("league", "create", name="Quiet", game="rf90", user=ALICE)
    shown = await d.slash("league-admin", "web", scope="index", user=ALICE)
    assert shown.ephemeral and "no index of public leagues yet" in shown.content
    on = await d.slash("league-admin", "web", league="Cup", state="on", user=ALICE)
    index = index_in(on.content)
    assert "index of public leagues" in on.content
    status, _, html = await answer(port, index)
    assert status == 200 and path_in(on.content) in html and "Quiet" not in html
    # Asked for, with no state: where things stand, nothing changed.
    before = await dump(d.bot.store)
    asked = await d.slash("league-admin", "web", scope="index", user=ALICE)
    assert f"is on: <{BASE}{index}>" in asked.content
    league = await d.slash("league-admin", "web", league="Cup", user=ALICE)
    assert "is public" in league.content and index in league.content
    assert await dump(d.bot.store) == before

    # A new index address revokes the old; off hides it; on brings it back.
    new = await d.slash("league-admin", "web", scope="index", state="regenerate", user=ALICE)
    assert new.ephemeral and "no longer works" in new.content
    new_index = index_in(new.content)
    assert new_index != index
    assert (await get(port, index))[0] == 404 and (await get(port, new_index))[0] == 200
    off = await d.slash("league-admin", "web", scope="index", state="off", user=ALICE)
    assert "is off" in off.content and (await get(port, new_index))[0] == 404
    # ... and an admin's off sticks when another league goes public
    await d.slash("league-admin", "web", league="Quiet", state="on", user=ALICE)
    assert (await get(port, new_index))[0] == 404
    await d.slash("league-admin", "web", scope="index", state="on", user=ALICE)
    status, _, html = await answer(port, new_index)
    assert status == 200 and "Quiet" in html and "Cup" in html


async def test_search_on_drops_noindex_from_the_leagues_pages(
    served: tuple[InProcessDriver, int],
) -> None:
    d, port = served
    path = path_in(
        (await d.slash("league-admin", "web", league="Cup", state="on", user=ALICE)).content
    )
    _, headers, html = await answer(port, path)
    assert headers["X-Robots-Tag"] == "noindex" and 'content="noindex"' in html
    on = await d.slash("league-admin", "web", league="Cup", search="on", user=ALICE)
    assert on.ephemeral and "Search engines may list its pages" in on.content
    assert "robots.txt names its address" in on.content
    status, headers, html = await answer(port, path)
    assert status == 200 and "X-Robots-Tag" not in headers and 'content="noindex"' not in html
    assert f"Allow: {path}\n" in (await get(port, "/robots.txt"))[1]
    off = await d.slash("league-admin", "web", league="Cup", search="off", user=ALICE)
    assert "kept out again" in off.content
    _, headers, html = await answer(port, path)
    assert headers["X-Robots-Tag"] == "noindex" and 'content="noindex"' in html
    assert (await get(port, "/robots.txt"))[1] == "User-agent: *\nDisallow: /\n"


async def test_bad_web_options_get_one_line_and_change_nothing(
    served: tuple[InProcessDriver, int],
) -> None:
    d, _ = served
    before = await dump(d.bot.store)
    for options, says in (
        ({"state": "on"}, "Name the league (`league:`), or give `scope:index`"),
        ({"league": "Cup", "scope": "index", "state": "on"}, "leave out `league:`"),
        ({"scope": "index", "search": "on"}, "`search:` is a league's choice"),
        ({"league": "Nope", "state": "on"}, "There is no league called **Nope**"),
    ):
        refused = await d.slash("league-admin", "web", user=ALICE, **options)
        assert refused.ephemeral and says in refused.content, (options, refused.content)
        assert "\n" not in refused.content.strip()
    refused = await d.slash("league-admin", "web", scope="index", state="regenerate", user=BOB)
    assert "Only league admins" in refused.content
    assert await dump(d.bot.store) == before
