"""Issue 26's remaining privacy points on the site: a server's index of its public leagues
(its own token, the one 404 otherwise), search engines let in per league (no noindex on its
pages, robots.txt naming it, everything else as it was), and the rate limit behind a
trusted reverse proxy (X-Forwarded-For read only from it)."""

from __future__ import annotations

import ipaddress
import logging
import re
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from store import SqliteStore, Store
from store.sites import new_token
from tests.web.conftest import BASE
from tests.web.web_helpers import GUILD, Filled
from web.app import make_app
from web.security import RateLimit
from web.server import runner_options

VARYING = {"Date", "Server"}
NOINDEX_META = '<meta name="robots" content="noindex">'


async def answer(client: TestClient, path: str) -> tuple[int, dict[str, str], bytes]:
    response = await client.get(path)
    headers = {k: v for k, v in response.headers.items() if k not in VARYING}
    return response.status, headers, await response.read()


async def write(path: Path, *steps: tuple[str, ...]) -> None:
    """Changes made as the bot makes them, on its own (writable) store."""
    store = SqliteStore(path)
    await store.open()
    try:
        for name, *args in steps:
            if name == "search":
                league = await store.get_league(GUILD, args[0])
                await store.set_web_search(league, args[1] == "on")
            elif name == "web":
                await store.set_web(await store.get_league(GUILD, args[0]), args[1])
            else:
                await store.set_site_index(GUILD, args[0])
    finally:
        await store.close()


# The index ---------------------------------------------------------------------------------


async def test_the_index_lists_the_servers_public_leagues_and_links_them(
    client: TestClient, data: Filled
) -> None:
    response = await client.get(f"/s/{data.index_token}")
    html = await response.text()
    assert response.status == 200
    assert "<h1>Public leagues</h1>" in html
    entries = re.findall(r'<li class="league-card"><a href="([^"]+)">([^<]+)</a>', html)
    assert entries == [(f"/l/{data.league.web_token}", "Sunday Cup")]  # not Secret Series
    assert "Waddington&#39;s Formula 1 · season 2" in html
    assert "Secret Series" not in html and str(data.private.web_token) not in html
    assert response.headers["X-Robots-Tag"] == "noindex" and NOINDEX_META in html
    assert (await client.get(entries[0][0])).status == 200  # its link answers


async def test_a_wrong_index_token_an_index_off_and_none_public_get_the_one_404(
    client: TestClient, data: Filled
) -> None:
    wrong_league = await answer(client, f"/l/{new_token()}")
    assert wrong_league[0] == 404
    assert await answer(client, f"/s/{new_token()}") == wrong_league
    assert await answer(client, "/s/x") == wrong_league  # not even a token's shape
    assert await answer(client, f"/s/{data.league.web_token}") == wrong_league  # a league's
    assert await answer(client, f"/l/{data.index_token}") == wrong_league  # and the reverse
    index = f"/s/{data.index_token}"
    await write(data.path, ("index", "off"))
    assert await answer(client, index) == wrong_league
    await write(data.path, ("index", "on"), ("web", "Sunday Cup", "off"))
    assert await answer(client, index) == wrong_league  # no public league left
    await write(data.path, ("web", "Secret Series", "on"))
    status, _, body = await answer(client, index)
    assert status == 200 and b"Secret Series" in body and b"Sunday Cup" not in body


async def test_a_regenerated_index_revokes_the_old_address(
    client: TestClient, data: Filled
) -> None:
    await write(data.path, ("index", "regenerate"))
    store = SqliteStore(data.path)
    await store.open()
    try:
        new = await store.site_index(GUILD)
    finally:
        await store.close()
    assert new.on and new.token != data.index_token
    assert (await client.get(f"/s/{data.index_token}")).status == 404
    assert (await client.get(f"/s/{new.token}")).status == 200


# Search engines ----------------------------------------------------------------------------


async def test_a_league_with_search_on_drops_noindex_on_its_own_pages_only(
    client: TestClient, data: Filled
) -> None:
    home = f"/l/{data.league.web_token}"
    league_pages = [
        home,
        f"{home}?season=1",
        f"{home}/standings.png",
        f"{home}/driver/{data.member_ids[0]}",
        f"{home}/race/{data.game_id}",
        f"{home}/race/{data.game_id}/board.png",
    ]
    for path in league_pages:  # by default: noindex, header and meta tag
        response = await client.get(path)
        assert response.status == 200 and response.headers["X-Robots-Tag"] == "noindex", path
        if response.content_type == "text/html":
            assert NOINDEX_META in await response.text(), path
    assert (await (await client.get("/robots.txt")).text()) == "User-agent: *\nDisallow: /\n"

    await write(data.path, ("search", "Sunday Cup", "on"))
    for path in league_pages:
        response = await client.get(path)
        assert response.status == 200, path
        assert "X-Robots-Tag" not in response.headers, path
        assert response.headers["X-Content-Type-Options"] == "nosniff"  # the rest as it was
        if response.content_type == "text/html":
            html = await response.text()
            assert NOINDEX_META not in html and 'name="robots"' not in html, path
    # everything else keeps noindex: the index, a 404 under its address, the others
    wrong = await answer(client, f"/l/{new_token()}")
    for path in (f"/s/{data.index_token}", "/static/site.css", "/robots.txt"):
        assert (await client.get(path)).headers["X-Robots-Tag"] == "noindex", path
    assert await answer(client, f"{home}/driver/999") == wrong  # still the one 404
    robots = await (await client.get("/robots.txt")).text()
    assert robots == (
        f"User-agent: *\nAllow: /l/{data.league.web_token}\nAllow: /static/\nDisallow: /\n"
    )
    assert str(data.private.web_token) not in robots

    # search on a private league lets nothing in; off again: noindex again
    await write(data.path, ("search", "Secret Series", "on"), ("search", "Sunday Cup", "off"))
    assert (await client.get(home)).headers["X-Robots-Tag"] == "noindex"
    assert NOINDEX_META in await (await client.get(home)).text()
    assert (await (await client.get("/robots.txt")).text()) == "User-agent: *\nDisallow: /\n"
    assert await answer(client, f"/l/{data.private.web_token}") == wrong


async def test_the_index_token_never_reaches_the_logs(
    client: TestClient, data: Filled, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    await client.get(f"/s/{data.index_token}")
    await client.get(f"/s/{data.index_token}?x=1")
    access = [r for r in caplog.records if r.name == "aiohttp.access"]
    assert len(access) == 2 and all("/s/…" in r.getMessage() for r in access)
    for record in caplog.records:
        assert data.index_token not in record.getMessage() + (record.exc_text or "")


# Behind a proxy ----------------------------------------------------------------------------


async def limited(site_store: Store, trusted: set[str]) -> TestClient:
    app = make_app(
        site_store,
        BASE,
        rate_limit=RateLimit(burst=2, rate=0.001),
        trusted_proxies=frozenset(ipaddress.ip_address(a) for a in trusted),
    )
    return TestClient(TestServer(app, **runner_options()))


async def statuses(client: TestClient, forwarded: list[str]) -> list[int]:
    out = []
    for value in forwarded:
        response = await client.get("/robots.txt", headers={"X-Forwarded-For": value})
        out.append(response.status)
    return out


async def test_x_forwarded_for_from_an_untrusted_peer_does_not_change_the_bucket(
    site_store: Store,
) -> None:
    # The test client's peer is 127.0.0.1: here not a trusted proxy (another one is).
    async with await limited(site_store, {"10.9.9.9"}) as client:
        spoofed = ["1.1.1.1", "2.2.2.2", "3.3.3.3", "10.9.9.9, 4.4.4.4"]
        assert await statuses(client, spoofed) == [200, 200, 429, 429]  # one bucket: the peer's
    async with await limited(site_store, set()) as client:  # the default: no proxy trusted
        assert await statuses(client, ["1.1.1.1", "2.2.2.2", "3.3.3.3"]) == [200, 200, 429]


async def test_x_forwarded_for_from_a_trusted_proxy_keys_on_the_client_it_saw(
    site_store: Store,
) -> None:
    async with await limited(site_store, {"127.0.0.1", "10.0.0.2"}) as client:
        # each client its own bucket (the proxy appended the address it saw, last)
        assert await statuses(client, ["1.1.1.1", "1.1.1.1", "1.1.1.1"]) == [200, 200, 429]
        assert await statuses(client, ["2.2.2.2", "2.2.2.2"]) == [200, 200]
        # what a client wrote itself stands left of its real address: never read
        assert await statuses(client, ["9.9.9.1, 1.1.1.1", "9.9.9.2,1.1.1.1"]) == [429, 429]
        # a chain of trusted proxies is walked past, to the client the first one saw
        assert await statuses(client, ["7.7.7.1, 3.3.3.3, 10.0.0.2"] * 3) == [200, 200, 429]
        # no header, or nothing but proxies or garbage: the peer's own bucket
        peer = ["", "10.0.0.2", "not-an-address"]
        assert await statuses(client, peer) == [200, 200, 429]


def test_the_setting_names_the_proxies_and_refuses_a_bad_address() -> None:
    from bot.settings import MissingSetting, load_settings

    settings = load_settings(web_trusted_proxies=" 10.0.0.2, ::1 ,")
    assert settings.trusted_proxies == {
        ipaddress.ip_address("10.0.0.2"),
        ipaddress.ip_address("::1"),
    }
    assert load_settings().trusted_proxies == frozenset()
    with pytest.raises(MissingSetting, match="PADDOCK_WEB_TRUSTED_PROXIES: 'proxy' is not an IP"):
        load_settings(web_trusted_proxies="10.0.0.2,proxy")
