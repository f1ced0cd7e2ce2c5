"""The league site in a real browser: the system's Chromium (Debian's `chromium`), driven
by Playwright, against the site served as `paddock web` serves it (a read-only store, the
AppRunner on 127.0.0.1). Each page at a phone's width (400 px) and a desktop's (1280 px):
its content visible, no horizontal overflow, every image loaded, every link answering, no
Content-Security-Policy violation; a screenshot of each in test-artifacts/web/ (ignored by
git) to look at. Without Chromium these tests fail, saying how to install it."""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ROOT
from tests.web.web_helpers import EVIL, Filled
from web.security import RateLimit
from web.server import RunningSite, start_site

CHROMIUM = Path(os.environ.get("PADDOCK_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = ROOT / "test-artifacts" / "web"
WIDTHS = (400, 1280)


@pytest.fixture
async def served(data: Filled) -> AsyncIterator[RunningSite]:
    # The link checks ask for every link of every page: the rate limit has its own tests.
    limit = RateLimit(burst=100_000, rate=100_000)
    site = await start_site(data.path, host="127.0.0.1", port=0, rate_limit=limit)
    try:
        yield site
    finally:
        await site.close()


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    if not CHROMIUM.exists():
        pytest.fail(
            f"no Chromium at {CHROMIUM}: the browser tests need it. Install it with "
            "`sudo apt-get install -y chromium chromium-driver` (.ci/run does), or point "
            "PADDOCK_CHROMIUM at one."
        )
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        launched = await p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        try:
            yield launched
        finally:
            await launched.close()


def pages(data: Filled) -> dict[str, tuple[str, list[str]]]:
    """name -> (path, texts that must be visible on it)."""
    home = f"/l/{data.league.web_token}"
    return {
        "league": (home, ["Sunday Cup", "Standings", "Calendar", "Silverstone", "Bo", EVIL]),
        "league-season-1": (f"{home}?season=1", ["Tie-breaks applied", "on countback", "Monza"]),
        "driver": (f"{home}/driver/{data.member_ids[0]}", ["Ana", "Sunday Cup", "Ratings"]),
        "driver-evil": (f"{home}/driver/{data.member_ids[2]}", [EVIL, "Career on this server"]),
        "race": (f"{home}/race/{data.game_id}", ["Classification", "Final board", "Race log"]),
        "index": (f"/s/{data.index_token}", ["Public leagues", "Sunday Cup", "season 2"]),
        "not-found": ("/l/no-such-league-here", ["Not found"]),
    }


async def _check_page(
    browser: Any, base: str, name: str, path: str, texts: list[str], width: int
) -> None:
    context = await browser.new_context(
        viewport={"width": width, "height": 900}, timezone_id="Europe/Madrid"
    )
    try:
        page = await context.new_page()
        violations: list[str] = []
        page.on(
            "console",
            lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None,
        )
        response = await page.goto(base + path, wait_until="load")
        assert response is not None
        assert response.status == (404 if name == "not-found" else 200)
        for text in texts:
            assert await page.get_by_text(text, exact=False).first.is_visible(), (name, text)
        overflow = await page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert overflow[0] <= overflow[1], (name, width, overflow)
        images = await page.evaluate(
            "Array.from(document.images).map(i => [i.src, i.complete && i.naturalWidth > 0])"
        )
        assert all(ok for _, ok in images), (name, images)
        links = await page.evaluate(
            "Array.from(document.querySelectorAll('a[href], link[href], script[src]'))"
            ".map(e => e.href || e.src)"
        )
        assert links, name
        for link in sorted(set(links)):
            answer = await page.request.get(link)
            assert answer.status < 400, (name, link, answer.status)
        assert not violations, (name, violations)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        await page.screenshot(path=str(ARTIFACTS / f"{name}-{width}.png"), full_page=True)
    finally:
        await context.close()


@pytest.mark.parametrize("width", WIDTHS)
async def test_every_page_reads_well_in_a_browser(
    browser: Any, served: RunningSite, data: Filled, width: int
) -> None:
    base = f"http://{served.address}"
    for name, (path, texts) in pages(data).items():
        await _check_page(browser, base, name, path, texts, width)


async def test_times_are_the_visitors_own_with_javascript_and_utc_without(
    browser: Any, served: RunningSite, data: Filled
) -> None:
    url = f"http://{served.address}/l/{data.league.web_token}"
    first = 'time[datetime="2030-01-01T00:00:00Z"]'
    shown = {}
    for script in (True, False):
        context = await browser.new_context(
            java_script_enabled=script, timezone_id="Europe/Madrid", locale="en-GB"
        )
        try:
            page = await context.new_page()
            await page.goto(url, wait_until="load")
            shown[script] = await page.locator(first).inner_text()
            assert await page.get_by_text("Standings").first.is_visible()
        finally:
            await context.close()
    assert shown[False] == "Tue 01 Jan 2030, 00:00 UTC"  # readable without the script
    assert "01:00" in shown[True] and "UTC" not in shown[True]  # Madrid: UTC+1 in January


async def test_the_served_site_logs_requests_without_the_token(
    served: RunningSite, data: Filled, caplog: pytest.LogCaptureFixture
) -> None:
    import aiohttp

    caplog.set_level(logging.INFO, logger="aiohttp.access")
    url = f"http://{served.address}/l/{data.league.web_token}"
    async with aiohttp.ClientSession() as session, session.get(url) as r:
        assert r.status == 200
    lines = [r.getMessage() for r in caplog.records if r.name == "aiohttp.access"]
    assert lines and all(" GET /l/… 200 " in line for line in lines)  # the site's own format
    assert all(str(data.league.web_token) not in line for line in lines)


RACE_PAGES = {  # game -> (page name, address under the race, texts shown)
    "rf90": [
        ("rf90-race", "", ["Classification", "Replay", "The grid, then each activation"]),
        ("rf90-step", "/step/2", ["Previous", "Next", "Back to the race"]),
    ],
    "pitformula": [("pit-race", "", ["Scoring", "Race 1", "Final standings", "Race log"])],
}


@pytest.mark.parametrize("kind", sorted(RACE_PAGES))
async def test_a_race_page_of_each_game_reads_well_in_a_browser(
    browser: Any, tmp_path: Path, kind: str
) -> None:
    from tests.web.web_helpers import league_race

    raced = await league_race(tmp_path, kind, seed=11)
    limit = RateLimit(burst=100_000, rate=100_000)
    site = await start_site(raced.path, host="127.0.0.1", port=0, rate_limit=limit)
    try:
        race = f"/l/{raced.league.web_token}/race/{raced.game_id}"
        for name, tail, texts in RACE_PAGES[kind]:
            for width in WIDTHS:
                await _check_page(
                    browser, f"http://{site.address}", name, race + tail, texts, width
                )
    finally:
        await site.close()
