"""The league site over a filled database (tests/web/web_helpers.py), opened read-only as
the site opens it, behind aiohttp's test client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from store import Store, open_store
from tests.web.web_helpers import Filled, filled
from web.app import make_app
from web.security import RateLimit
from web.server import runner_options

BASE = "https://paddock.example"


@pytest.fixture
async def data(tmp_path: Path) -> Filled:
    return await filled(tmp_path)


@pytest.fixture
async def site_store(data: Filled) -> AsyncIterator[Store]:
    store = open_store(data.path, read_only=True)
    await store.open(run_migrations=False)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def client(site_store: Store) -> AsyncIterator[TestClient]:
    # A generous limit: these tests are about pages (the rate limit has its own).
    app = make_app(site_store, BASE, rate_limit=RateLimit(burst=100_000, rate=100_000))
    async with TestClient(TestServer(app, **runner_options())) as c:
        yield c
