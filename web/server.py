"""Serving the site: an aiohttp AppRunner on its own read-only store, started beside the
bot (`paddock run` with PADDOCK_WEB_PORT) or alone (`paddock web`)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from store import Store, open_store
from web.app import SITE_KEY, make_app
from web.security import IPAddress, RateLimit, RedactedAccessLogger

log = logging.getLogger("paddock.web")


def runner_options() -> dict[str, Any]:
    """The AppRunner's options (the tests' TestServer takes the same): the access log with
    league tokens replaced."""
    return {"access_log_class": RedactedAccessLogger}


@dataclass
class RunningSite:
    runner: web.AppRunner
    store: Store
    address: str  # host:port it listens on

    async def close(self) -> None:
        try:
            await self.runner.cleanup()
        finally:
            await self.store.close()


def base_url_for(base_url: str | None, port: int) -> str:
    return (base_url or f"http://127.0.0.1:{port}").rstrip("/")


async def start_site(
    source: Any,
    *,
    host: str,
    port: int,
    base_url: str | None = None,
    rate_limit: RateLimit | None = None,
    trusted_proxies: frozenset[IPAddress] = frozenset(),
) -> RunningSite:
    """Open `source` (settings, a URL or a SQLite path) read-only and serve the site on
    host:port (port 0: any free port), behind `trusted_proxies` if any. Raises
    StoreUnavailable for a database that cannot be read or is behind on its migrations,
    OSError for an address that is taken."""
    store = open_store(source, read_only=True)
    await store.open(run_migrations=False)
    try:
        app = make_app(
            store,
            base_url_for(base_url, port),
            rate_limit=rate_limit,
            trusted_proxies=trusted_proxies,
        )
        runner = web.AppRunner(app, **runner_options())
        await runner.setup()
        try:
            site = web.TCPSite(runner, host, port)
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
    except BaseException:
        await store.close()
        raise
    bound = runner.addresses[0] if runner.addresses else (host, port)
    address = f"{bound[0]}:{bound[1]}"
    links = base_url_for(base_url, bound[1])
    runner.app[SITE_KEY].base_url = links  # port 0: the port it got
    log.info("league site on http://%s (links: %s)", address, links)
    return RunningSite(runner, store, address)


async def settle() -> None:
    """For a process that serves only the site (`paddock web`): draw each kind of image
    once (fonts, sprites, the games' modules loaded), then move everything alive out of the
    garbage collector's sight, as the bot does after its own warm-up (bot/memory.py). A full
    collection then walks only what the pages made since, not the ~95,000 objects of
    start-up: on the bench's pages it took 50-100 ms of CPU each time, the race pages'
    slowest tail; the site's CPU over 1,600 pages fell by a tenth."""
    from renderer.boards import warm_all

    await asyncio.to_thread(warm_all)
    gc.collect()
    gc.freeze()


async def serve(
    source: Any,
    *,
    host: str,
    port: int,
    base_url: str | None = None,
    trusted_proxies: frozenset[IPAddress] = frozenset(),
) -> None:
    """`paddock web`: the site until SIGINT or SIGTERM."""
    running = await start_site(
        source, host=host, port=port, base_url=base_url, trusted_proxies=trusted_proxies
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    try:
        await settle()  # (a stop meanwhile is kept: the wait below returns at once)
        await stop.wait()
    finally:
        await running.close()
