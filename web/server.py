"""Serving the site: an aiohttp AppRunner on its own read-only store, in a process of its
own: `paddock web`, which `paddock run` with PADDOCK_WEB_PORT also starts as its child
(bot/site_child.py; `serve(parent=...)`: the child ends with the bot, even a killed one)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import signal
import sys
from collections.abc import Callable
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


PARENT_POLL_S = 0.5  # how often a child site looks whether its parent is still there


def die_with_parent(parent: int) -> None:
    """Linux: SIGTERM this process when the thread that started it ends (its parent killed,
    even by SIGKILL: `prctl(PR_SET_PDEATHSIG)`). Elsewhere, or should it fail, the watch in
    `serve` (its parent id polled) does the same a little later. A parent gone already:
    SIGTERM at once."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGTERM), 0, 0, 0)  # 1: PR_SET_PDEATHSIG
    if os.getppid() != parent:  # gone before the prctl: nobody would signal us
        os.kill(os.getpid(), signal.SIGTERM)


async def _watch_parent(parent: int, stop: asyncio.Event) -> None:
    while not stop.is_set():
        if os.getppid() != parent:  # re-parented: the bot that started us is gone
            log.warning("the process that started the league site (%d) is gone: stopping", parent)
            stop.set()
            return
        await asyncio.sleep(PARENT_POLL_S)


async def serve(
    source: Any,
    *,
    host: str,
    port: int,
    base_url: str | None = None,
    trusted_proxies: frozenset[IPAddress] = frozenset(),
    parent: int | None = None,
    listening: Callable[[str], None] | None = None,
) -> None:
    """`paddock web`: the site until SIGINT or SIGTERM, or (`parent`: a child of `paddock
    run`) until that process is gone; `listening` is told host:port once it listens."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    watch = asyncio.create_task(_watch_parent(parent, stop)) if parent is not None else None
    try:
        running = await start_site(
            source, host=host, port=port, base_url=base_url, trusted_proxies=trusted_proxies
        )
        try:
            if listening is not None:
                listening(running.address)
            await settle()  # (a stop meanwhile is kept: the wait below returns at once)
            await stop.wait()
        finally:
            await running.close()
    finally:
        if watch is not None:
            watch.cancel()
