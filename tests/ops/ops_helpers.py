"""Reading the ops endpoints (bot/ops.py) in a test: GET through aiohttp's test client on
`ops_app(bot)`, the metrics parsed by prometheus_client's own parser; a TCP proxy to take a
database server away."""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

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


class TcpProxy:
    """127.0.0.1:port -> a server, to take the server away from a client mid-test: `pause`
    (bytes held: a server that stopped answering), `close` (every connection dropped, new
    ones refused)."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.port = 0
        self.paused = asyncio.Event()
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def url(self, url: str) -> str:
        """`url` with its host and port replaced by this proxy's."""
        parts = urlsplit(url)
        netloc = (f"{parts.username}@" if parts.username else "") + f"127.0.0.1:{self.port}"
        return urlunsplit(parts._replace(netloc=netloc))

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self.target)
        self._writers |= {writer, up_writer}
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, asyncio.CancelledError):
            while data := await reader.read(65536):
                while self.paused.is_set():
                    await asyncio.sleep(0.01)
                writer.write(data)
                await writer.drain()
        writer.close()

    @staticmethod
    def owns(task: asyncio.Task[Any]) -> bool:
        """A task of a proxy's (the fake Discord's idle wait leaves them be)."""
        return getattr(task.get_coro(), "__qualname__", "").startswith("TcpProxy.")

    def pause(self) -> None:
        self.paused.set()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for writer in self._writers:
            writer.close()
        self._writers.clear()
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None
