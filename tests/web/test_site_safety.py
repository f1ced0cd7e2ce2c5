"""What the league site does with what it should not show or cannot read: one 404 for a
wrong token, a private league and a missing one; 400, 404, 405 and 429 as small pages; a
URL fuzz with no traceback and no 5xx; tokens kept out of the logs."""

from __future__ import annotations

import logging
import random
import string

import pytest
from aiohttp.test_utils import TestClient, TestServer

from store import Store
from store.sites import new_token
from tests.web.conftest import BASE
from tests.web.web_helpers import Filled
from web.app import make_app
from web.security import RateLimit
from web.server import runner_options

VARYING = {"Date", "Server"}


async def answer(client: TestClient, path: str) -> tuple[int, dict[str, str], bytes]:
    response = await client.get(path)
    headers = {k: v for k, v in response.headers.items() if k not in VARYING}
    return response.status, headers, await response.read()


async def test_a_wrong_token_a_private_league_and_a_missing_one_look_the_same(
    client: TestClient, data: Filled
) -> None:
    assert data.private.web_token and not data.private.web_on
    wrong = await answer(client, f"/l/{new_token()}")
    private = await answer(client, f"/l/{data.private.web_token}")
    missing = await answer(client, "/l/AAAAAAAAAAAAAAAAAAAAAA")
    malformed = await answer(client, "/l/x")
    assert wrong[0] == 404
    assert wrong == private == missing == malformed
    assert b"Traceback" not in wrong[2] and b"Not found" in wrong[2]
    # ... and below it: its pages, images and races
    home = f"/l/{data.private.web_token}"
    for path in (f"{home}/standings.png", f"{home}/driver/7", f"{home}/race/{data.game_id}"):
        assert await answer(client, path) == wrong
    # the public league's pages of things it does not hold: the same 404
    public = f"/l/{data.league.web_token}"
    for path in (
        f"{public}/driver/7",  # a member of the private league only
        f"{public}/driver/999",
        f"{public}/race/999",
        f"{public}/race/{data.game_id}/nothing",
        f"{public}?season=9",
    ):
        assert await answer(client, path) == wrong, path


async def test_bad_input_gets_a_small_page_and_nothing_else(
    client: TestClient, data: Filled
) -> None:
    home = f"/l/{data.league.web_token}"
    for query in ("season=x", "season=0", "season=-1", "season=1.5", "season=1&season=2"):
        status, _, body = await answer(client, f"{home}?{query}")
        assert status == 400, query
        assert b"Bad request" in body and b"Traceback" not in body
    for path in (f"{home}/driver/0", f"{home}/driver/01", f"{home}/driver/-4", f"{home}/race/1e3"):
        assert (await answer(client, path))[0] == 404, path
    response = await client.post(home)
    assert response.status == 405 and "GET" in response.headers["Allow"]
    assert "Method not allowed" in await response.text()


async def test_a_client_over_its_rate_gets_429_with_retry_after(
    site_store: Store, data: Filled
) -> None:
    now = [0.0]
    app = make_app(site_store, BASE, rate_limit=RateLimit(burst=3, rate=0.5, clock=lambda: now[0]))
    async with TestClient(TestServer(app, **runner_options())) as client:
        home = f"/l/{data.league.web_token}"
        assert [(await client.get(home)).status for _ in range(3)] == [200, 200, 200]
        limited = await client.get(home)
        assert limited.status == 429
        assert limited.headers["Retry-After"] == "2"
        assert "Too many requests" in await limited.text()
        assert limited.headers["X-Content-Type-Options"] == "nosniff"
        now[0] += 2.0  # one request's worth refilled
        assert (await client.get(home)).status == 200
        assert (await client.get(home)).status == 429


def test_the_rate_limit_forgets_quiet_clients() -> None:
    now = [0.0]
    limit = RateLimit(burst=2, rate=1.0, max_clients=10, clock=lambda: now[0])
    for n in range(10):
        assert limit.take(f"10.0.0.{n}") == 0
    now[0] += 5
    assert limit.take("10.0.1.1") == 0  # the full buckets were forgotten to make room
    assert len(limit._buckets) <= 10


def _fuzz(token: str, game_id: int, seed: int = 26) -> list[str]:
    rng = random.Random(seed)
    alphabet = string.ascii_letters + string.digits + "-_.~%/?&=;:@!$'()*+,[]{}|\\^`\"<> #"
    pieces = [
        "",
        "l",
        f"l/{token}",
        f"l/{token}/driver",
        f"l/{token}/race",
        f"l/{token}/race/{game_id}",
        f"l/{token}/standings.png",
        "static",
        "static/site.css",
        "..",
        "%2e%2e",
        "%00",
        "%ff%fe",
        "😀",
        "9" * 40,
        "-1",
        "0x10",
    ]
    queries = [
        "",
        "season=1",
        "season=999999999999",
        "season=%00",
        "season=" + "9" * 200,
        "season[]=1",
        "season",
        "=&&=",
        "season=1&season=1",
        "a=" + "b" * 3000,
        "%zz",
    ]
    out = []
    for _ in range(300):
        path = "/" + "/".join(rng.choice(pieces) for _ in range(rng.randint(1, 4)))
        if rng.random() < 0.5:
            path += "/" + "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30)))
        # (the test client takes no `//host` address: one slash first)
        path = "/" + path.replace(" ", "%20").replace("#", "%23").lstrip("/")
        query = rng.choice(queries)
        out.append(path + (f"?{query}" if query else ""))
    return out


async def test_a_url_fuzz_gets_no_traceback_and_no_5xx(
    client: TestClient, data: Filled, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    statuses: dict[int, int] = {}
    for path in _fuzz(str(data.league.web_token), data.game_id):
        response = await client.get(path, allow_redirects=False)
        body = await response.read()
        statuses[response.status] = statuses.get(response.status, 0) + 1
        assert response.status < 500, (path, body[:200])
        assert b"Traceback" not in body, path
    assert statuses.get(404, 0) > 100 and statuses.get(200, 0) > 0  # it went somewhere
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_the_token_never_reaches_the_logs(
    client: TestClient, data: Filled, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    tokens = [str(data.league.web_token), str(data.private.web_token)]
    home = f"/l/{tokens[0]}"
    for path in (
        home,
        f"{home}?season=x",
        f"{home}/standings.png",
        f"{home}/driver/{data.member_ids[0]}",
        f"{home}/race/{data.game_id}",
        f"/l/{tokens[1]}",
    ):
        await client.get(path)
    await client.post(home)
    access = [r for r in caplog.records if r.name == "aiohttp.access"]
    assert len(access) == 7  # the access log did run, a line a request
    assert all("/l/…" in r.getMessage() for r in access)
    for record in caplog.records:
        text = record.getMessage() + (record.exc_text or "")
        for token in tokens:
            assert token not in text, record.name
