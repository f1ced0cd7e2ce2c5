"""The league site's pages through aiohttp's test client: what each shows (standings with
their tie-breaks, seasons, calendar, results, a driver's career, a finished race), the
headers every response carries, and what it never shows (user ids, a private league, a
script in a name)."""

from __future__ import annotations

import html as markup
import re

import pytest
from aiohttp.test_utils import TestClient

from store import Store, open_store
from tests.helpers import PNG_MAGIC
from tests.web.conftest import BASE
from tests.web.web_helpers import EVIL, GUILD, Filled

HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; script-src 'self'; "
    "style-src 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Robots-Tag": "noindex",
}


def pages_of(data: Filled) -> list[str]:
    home = f"/l/{data.league.web_token}"
    return [
        home,
        f"{home}?season=1",
        f"{home}/driver/{data.member_ids[0]}",
        f"{home}/driver/{data.member_ids[2]}",
        f"{home}/race/{data.game_id}",
    ]


async def text_of(client: TestClient, path: str, status: int = 200) -> str:
    response = await client.get(path)
    body = await response.text()
    assert response.status == status, (path, body[:300])
    return body


def cells(html: str) -> list[list[str]]:
    """The standings table's rows, as the text of their cells."""
    table = html.split('<table class="standings">', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>", 1)[1], re.S)
    return [
        [
            markup.unescape(re.sub(r"<[^>]+>", "", c)).strip()
            for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)
        ]
        for r in rows
    ]


async def test_the_league_home_shows_standings_calendar_and_results(
    client: TestClient, data: Filled
) -> None:
    html = await text_of(client, f"/l/{data.league.web_token}")
    assert "<h1>Sunday Cup</h1>" in html
    # season 2: the race of round 1 gave Bo and Ana their places; the third has none
    rows = cells(html)
    assert [r[1] for r in rows][:2] == ["Bo", "Ana"] or [r[1] for r in rows][:2] == ["Ana", "Bo"]
    assert [r[2] for r in rows] == ["10", "8", "0"]
    # the calendar: every round, its start as a <time> in UTC, the result with points
    for venue in ("Silverstone", "Suzuka", "Interlagos"):
        assert venue in html
    assert '<time datetime="2030-01-01T00:00:00Z">Tue 01 Jan 2030, 00:00 UTC</time>' in html
    assert 'id="round-1"' in html and f"/race/{data.game_id}" in html
    # the season selector: season 1 linked, season 2 the current one
    assert f'<a href="/l/{data.league.web_token}?season=1">1</a>' in html
    assert '<strong aria-current="page">2</strong>' in html


async def test_an_earlier_season_shows_its_standings_and_its_tie_breaks(
    client: TestClient, data: Filled
) -> None:
    html = await text_of(client, f"/l/{data.league.web_token}?season=1")
    rows = cells(html)
    names = [r[1] for r in rows]
    assert names == ["Ana", "Bo", EVIL]  # three on 16 points, in tie-break order
    assert [r[2] for r in rows] == ["16", "16", "16"]
    assert [r[0] for r in rows] == ["1", "2", "3"]
    assert "(closed)" in html
    assert "Ana ahead of Bo (16 pts each) by the earlier result: 1st to 3rd in round 1" in html
    assert (
        "Bo ahead of &lt;script&gt;alert(1)&lt;/script&gt; (16 pts each) on countback: 1 win to 0"
        in html
    )
    assert "Spa" in html and "Monza" in html
    assert 'href="/l/' + str(data.league.web_token) + '">2</a>' in html  # back to the latest


async def test_the_standings_image_and_the_open_graph_tags(
    client: TestClient, data: Filled
) -> None:
    home = f"/l/{data.league.web_token}"
    html = await text_of(client, home)
    image = re.search(r'<meta property="og:image" content="([^"]+)">', html)
    assert image is not None and image.group(1) == f"{BASE}{home}/standings.png"
    assert f'<meta property="og:url" content="{BASE}{home}">' in html
    assert '<meta property="og:title" content="Sunday Cup - season 2 - standings">' in html
    description = "Waddington&#39;s Formula 1 - points 10-8-6 - 1/3 rounds"
    assert f'<meta property="og:description" content="{description}">' in html
    for path in (f"{home}/standings.png", f"{home}/standings.png?season=1"):
        response = await client.get(path)
        assert response.status == 200 and response.content_type == "image/png"
        assert (await response.read()).startswith(PNG_MAGIC)
    older = await text_of(client, f"{home}?season=1")
    assert f'content="{BASE}{home}/standings.png?season=1"' in older


async def test_a_drivers_career_lists_only_public_leagues(client: TestClient, data: Filled) -> None:
    html = await text_of(client, f"/l/{data.league.web_token}/driver/{data.member_ids[0]}")
    assert "<h1>Ana</h1>" in html
    assert html.count("Sunday Cup") >= 2  # both seasons
    assert "Secret Series" not in html and "Hidden Ring" not in html  # its site is off
    assert "2 seasons" in html
    # a member of season 1 is found too (member ids of every season of the league)
    first = await text_of(client, f"/l/{data.league.web_token}/driver/{data.member_ids[0] - 3}")
    assert "<h1>Ana</h1>" in first


async def test_a_drivers_page_reads_as_much_for_many_seasons_as_for_two(
    client: TestClient, site_store: Store, data: Filled, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its reads do not grow with the driver's seasons (each season's sheet is not a query
    of its own); and a member of another league on the server is not found here."""
    reads = type(site_store._reads)  # type: ignore[attr-defined]
    counted = reads.fetch
    queries: list[str] = []

    async def fetch(self: object, sql: str, *args: object) -> list[object]:
        queries.append(sql)
        return await counted(self, sql, *args)  # type: ignore[no-any-return]

    monkeypatch.setattr(reads, "fetch", fetch)
    page = f"/l/{data.league.web_token}/driver/{data.member_ids[0]}"
    await text_of(client, page)  # the server's ratings worked out (then kept)
    queries.clear()
    await text_of(client, page)
    before = len(queries)
    async with open_store(data.path) as writer:
        for n in range(4):
            league = await writer.create_league(GUILD, f"Extra {n}", "waddington", "w", [10], None)
            await writer.join_league(league, data.user_ids[0], "Ana", None)
            await writer.set_web(league, "on")
        private = (await writer.members(data.private.id))[0]
    queries.clear()
    html = await text_of(client, page)
    assert "Extra 3" in html and "6 seasons" in html
    assert len(queries) == before
    await text_of(client, f"/l/{data.league.web_token}/driver/{private.id}", 404)


async def test_a_finished_race_shows_its_classification_log_and_board(
    client: TestClient, data: Filled
) -> None:
    home = f"/l/{data.league.web_token}"
    html = await text_of(client, f"{home}/race/{data.game_id}")
    assert "<h1>Round 1: Silverstone</h1>" in html
    classification = html.split("<h2>Classification</h2>", 1)[1].split("</table>", 1)[0]
    assert "Ana" in classification and "Bo" in classification
    log = html.split('<ol class="log">', 1)[1].split("</ol>", 1)[0]
    assert log.count("<li") > 5 and "robot" not in log.split("</strong>")[0]
    assert f'src="{home}/race/{data.game_id}/board.png"' in html
    board = await client.get(f"{home}/race/{data.game_id}/board.png")
    assert board.status == 200 and (await board.read()).startswith(PNG_MAGIC)


async def test_every_response_carries_the_security_headers(
    client: TestClient, data: Filled
) -> None:
    home = f"/l/{data.league.web_token}"
    for path in [
        *pages_of(data),
        f"{home}/standings.png",
        "/static/site.css",
        "/static/local-time.js",
        "/static/colours.css",
        "/l/nope-nope-nope",
        f"{home}?season=x",
        "/robots.txt",
    ]:
        response = await client.get(path)
        for name, value in HEADERS.items():
            assert response.headers.get(name) == value, (path, name)
        if response.content_type == "text/html":
            assert '<meta name="robots" content="noindex">' in await response.text()
            assert "<script>" not in await response.text()  # no inline script, ever
            assert " style=" not in await response.text()  # no inline style either


async def test_no_page_shows_a_user_id_or_a_raw_name(client: TestClient, data: Filled) -> None:
    for path in pages_of(data):
        html = await text_of(client, path)
        for user in data.user_ids:
            assert str(user) not in html, path
        assert EVIL not in html, path
    home = await text_of(client, f"/l/{data.league.web_token}")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in home


async def test_the_site_store_cannot_write(site_store: Store, data: Filled) -> None:
    from store import StoreUnavailable

    before = data.path.read_bytes()
    try:
        await site_store.set_web(data.league, "regenerate")
    except StoreUnavailable as exc:
        assert "read-only" in str(exc)
    else:
        raise AssertionError("a read-only store wrote")
    assert (await site_store.league_by_web_token(str(data.league.web_token))) is not None
    assert data.path.read_bytes() == before
