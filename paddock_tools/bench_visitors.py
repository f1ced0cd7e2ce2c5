"""The league site's visitors during the mixed load (bench_site.site_load) in a process of
their own, as real visitors are never in the fake Discord's: their HTTP client would
otherwise share the event loop that timestamps the bot's answers, and a page read there
would delay the answer it timestamps. `visit` starts it; it runs `python -m
paddock_tools.bench_visitors`, its orders as JSON on stdin, its result as JSON on stdout.

Its turns (`every`: the visitors away, then there, in turns from `start`) and its end
(`until`) are times of `time.perf_counter`, which on Linux is CLOCK_MONOTONIC: the same
clock in every process of the machine, so the bench knows each turn's times without asking.
The process runs at the lowest CPU priority (VISITORS_NICE): real visitors' browsers are not
on the bot's machine, so what they cost here is the bench's, not the site's.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from dataclasses import asdict
from typing import Any

from paddock_tools.bench_site import Filled, FilledLeague, site_load

VISITORS_NICE = 19


def turns(start: float, every: float, until: float) -> list[tuple[float, bool]]:
    """Each turn's start and whether the visitors come in it (away first), up to and past
    `until` (the last turn's end is the next one's start)."""
    count = int((until - start) // every) + 2
    return [(start + i * every, i % 2 == 1) for i in range(count)]


async def visit(
    base_url: str, filled: Filled, rps: float, until: float, every: float | None, start: float
) -> dict[str, Any]:
    """The visitors in a process of their own until `until` (in turns of `every` seconds
    from `start`, if given): what they got (site_load's figures)."""
    orders = {
        "base_url": base_url,
        "leagues": [asdict(league) for league in filled.leagues],
        "rps": rps,
        "start": start,
        "every": every,
        "until": until,
    }
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "paddock_tools.bench_visitors",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await proc.communicate(json.dumps(orders).encode())
    if proc.returncode != 0:
        raise RuntimeError(f"the site's visitors' process exited with {proc.returncode}")
    result: dict[str, Any] = json.loads(out)
    return result


async def _run(orders: dict[str, Any]) -> dict[str, Any]:
    filled = Filled([FilledLeague(**league) for league in orders["leagues"]])
    stop = asyncio.Event()
    every: float | None = orders["every"]
    gate = asyncio.Event() if every else None

    async def clock() -> None:
        schedule = turns(orders["start"], every, orders["until"]) if every else []
        for at, there in schedule:
            if at >= orders["until"]:
                break
            await asyncio.sleep(max(0.0, at - time.perf_counter()))
            assert gate is not None
            gate.set() if there else gate.clear()
        await asyncio.sleep(max(0.0, orders["until"] - time.perf_counter()))
        stop.set()
        if gate is not None:
            gate.set()  # none left waiting for it

    keeping = asyncio.create_task(clock())
    result = await site_load(orders["base_url"], filled, orders["rps"], stop, gate)
    await keeping
    return result


if __name__ == "__main__":
    # Real visitors are on other machines: here their CPU is the bench's, given only what
    # the bot, the site and the fake Discord leave (as the fake's own is not: it times).
    os.nice(VISITORS_NICE)
    print(json.dumps(asyncio.run(_run(json.loads(sys.stdin.read())))), flush=True)
