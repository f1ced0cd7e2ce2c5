"""Reading the ops endpoints (bot/ops.py) in a test: GET through aiohttp's test client on
`ops_app(bot)`, the metrics parsed by prometheus_client's own parser."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiohttp.test_utils import TestClient, TestServer
from prometheus_client.parser import text_string_to_metric_families

from bot.client import PaddockBot
from bot.ops import ops_app


@asynccontextmanager
async def ops_client(bot: PaddockBot) -> AsyncIterator[TestClient]:
    async with TestClient(TestServer(ops_app(bot), host="127.0.0.1")) as client:
        yield client


class Scrape:
    """One GET /metrics: each sample by its name and labels."""

    def __init__(self, text: str) -> None:
        self.samples: dict[tuple[str, frozenset[tuple[str, str]]], float] = {}
        for family in text_string_to_metric_families(text):
            for s in family.samples:
                self.samples[(s.name, frozenset(s.labels.items()))] = s.value

    def get(self, name: str, **labels: str) -> float:
        """The sample's value; 0 when it is absent (a label set not seen yet)."""
        return self.samples.get((name, frozenset(labels.items())), 0.0)

    def has(self, name: str, **labels: str) -> bool:
        return (name, frozenset(labels.items())) in self.samples

    def labels_of(self, name: str) -> list[dict[str, str]]:
        return [dict(labels) for (n, labels) in self.samples if n == name]

    def finite(self, name: str, **labels: str) -> bool:
        return self.has(name, **labels) and math.isfinite(self.get(name, **labels))


async def scrape(client: TestClient) -> Scrape:
    response = await client.get("/metrics")
    assert response.status == 200
    assert response.headers["Content-Type"].startswith("text/plain; version=")
    return Scrape(await response.text())
