"""The real Paddock bot in its own process, pointed at a loopback :class:`FakeDiscord`.

Started by :class:`paddock_tools.fakediscord.process.BotProcess`, so that a test can SIGKILL the bot
and start another on the same database::

    python -m paddock_tools.fakediscord.child --api-base URL --gateway URL --db PATH-OR-URL [--warm]

Prints ``READY`` on stdout once ``on_ready`` fired; logs to stderr as ``LEVEL:name:message``
(the parent turns ERROR lines into :attr:`Calls.errors`); with ``--warm``, only once the
image caches are built (`paddock bench` measures a bot warmed up).  The environment is left
alone, so ``PADDOCK_*`` variables set by the test reach the bot's settings, and the bot is built as
``paddock run`` builds it (``create_bot``): PADDOCK_SHARD_COUNT / PADDOCK_SHARD_IDS make it a
sharded bot over those shards.  ``--db`` is a SQLite file or a ``postgresql://`` URL.
SIGTERM closes the bot politely (store included); SIGKILL is the point of the exercise.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from pathlib import Path

import yarl
from discord.gateway import DiscordWebSocket
from discord.http import Route

from bot import timers
from paddock_tools.bots import make_bot

READY_LINE = "READY"
LOG_FORMAT = "%(levelname)s:%(name)s:%(message)s"
ON_READY_TASK = "discord.py: on_ready"  # how discord.py names its event handler tasks


async def run(
    api_base: str, gateway: str, db: Path | str, timer_reread: float | None, warm: bool = False
) -> None:
    Route.BASE = api_base
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)
    if timer_reread is not None:  # how often a shared (PostgreSQL) timer table is re-read
        timers.SHARED_SLEEP = timer_reread
    bot = make_bot(db)
    # discord.py waits this long after the last GUILD_CREATE before on_ready (2 s by default)
    bot._connection.guild_ready_timeout = 0.05
    announced = False

    async def announce() -> None:
        nonlocal announced
        if announced:
            return
        announced = True
        # let the bot's own on_ready handlers (recovery after a restart) finish first
        me = asyncio.current_task()
        others = {t for t in asyncio.all_tasks() if t is not me and t.get_name() == ON_READY_TASK}
        if others:
            await asyncio.wait(others)
        if warm and bot.images_warm is not None:  # a bench measures the bot warmed up
            await bot.images_warm
        print(READY_LINE, flush=True)

    bot.add_listener(announce, "on_ready")
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, lambda: loop.create_task(bot.close()))
    async with bot:  # closes the bot (timers, store) however start() ends
        await bot.start("fake-token", reconnect=False)
    # The bot and its store are closed; don't let asyncio.run() and interpreter exit wait
    # seconds for the image-warming thread, which holds nothing worth finishing.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m paddock_tools.fakediscord.child")
    parser.add_argument("--api-base", required=True, help="e.g. http://127.0.0.1:PORT/api/v10")
    parser.add_argument("--gateway", required=True, help="e.g. ws://127.0.0.1:PORT/gateway/")
    parser.add_argument("--db", required=True, help="a SQLite file or a postgresql:// URL")
    parser.add_argument("--timer-reread", type=float, default=None, help="seconds")
    parser.add_argument("--warm", action="store_true", help="READY once the images are warm")
    args = parser.parse_args(argv)
    db: Path | str = args.db if "://" in args.db else Path(args.db)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format=LOG_FORMAT)
    asyncio.run(run(args.api_base, args.gateway, db, args.timer_reread, args.warm))


if __name__ == "__main__":
    main()
