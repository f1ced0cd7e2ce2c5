"""`paddock bench`'s mixed load (issue 11's goal): Waddington, RF90 and Pit Formula games on
one bot, each driven by simulated users pausing 1-4 s before each interaction; every
interaction timed from dispatch to its answer and to its move done, answers after Discord's
3 s deadline counted. The bot runs as `paddock run` runs it, in a process of its own, over
the loopback fake Discord of this one (its HTTP server and gateway), so that the RSS and the
CPU time sampled are the bot's alone. Run by `paddock_tools.bench` ("mixed")."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from paddock_tools import bots, f1_driver, rf90_driver
from paddock_tools.bench import (
    _progress,
    _progress_count,
    bench_database,
    median,
    percentiles,
    rss_mb,
)
from paddock_tools.bench_watch import DEADLINE_S, WAIT_S, Place, Sent, Timing, Watch, has_button
from paddock_tools.fakediscord import payloads as pl
from paddock_tools.fakediscord.base import ErrorCapture
from paddock_tools.fakediscord.process import BotProcess, RemoteFakeDiscord

MIXED_GAMES = {"waddington": 150, "rf90": 25, "pitformula": 25}
MIXED_GAMES_QUICK = {"waddington": 14, "rf90": 3, "pitformula": 3}
MIXED_SECONDS, MIXED_SECONDS_QUICK = 60.0, 15.0
THINK_S = (1.0, 4.0)  # a simulated user's pause before each interaction


class _NotStarted(Exception):
    """A game the simulated users could not start: what failed."""


class _Users:
    """The simulated users of the mixed load: each game's loop, seeded, until `until`."""

    def __init__(self, watch: Watch, driver: Any, reader: Any, until: float, seed: int) -> None:
        self.watch, self.driver, self.until, self.seed = watch, driver, until, seed
        self.reader = reader  # a store of the users' own: their reads queue not on the bot's
        self.done_ms: dict[str, list[float]] = {}
        self.stuck = 0  # moves answered whose next prompt never came (and not a finish)
        self.refused = 0  # a turn's move refused (a stale prompt, the wrong user)
        self.finished = 0  # games over during the run
        self.renewed = 0  # games started during the run in the place of those over
        self.not_renewed: dict[str, int] = {}  # ... whose start failed, by what failed
        self.asked: list[tuple[str, Sent]] = []  # the games' starting interactions
        self._races = itertools.count()

    async def rf90_loaded(self, gid: int) -> Any:
        from bot.presenter import Loaded
        from rules.base import get_game

        record = await self.reader.load_game(gid)
        game = get_game("rf90")
        seats = {s.seat: s for s in await self.reader.seats(gid)}
        return Loaded(record, game, game.load_state(record.state_json), seats)

    def running(self) -> bool:
        return time.perf_counter() < self.until

    async def think(self, rng: random.Random) -> bool:
        await asyncio.sleep(rng.uniform(*THINK_S))
        return self.running()

    async def answer(self, sent: Sent) -> bool:
        """Wait for the interaction's first answer; False when it never came."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(sent.answered.wait(), WAIT_S)
        return sent.answer_at is not None

    async def seen(self, sent: Sent) -> bool:
        """Wait for what the interaction shows its user; False when it never came."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(sent.shown.wait(), WAIT_S)
        return sent.shown_at is not None and sent.message is not None

    def done(self, sent: Sent, at: float | None) -> None:
        if at is not None:
            sent.done_at = at
            self.done_ms.setdefault(sent.kind, []).append((at - sent.at) * 1000)

    async def prompted(self, place: Place, after: float, sent: Sent | None = None) -> float | None:
        """When the game's next prompt came (after `after`), or None (also when the move
        `sent` was refused meanwhile)."""
        give_up = time.perf_counter() + WAIT_S
        while place.prompt_at <= after and not (sent and sent.refused):
            place.prompted.clear()
            left = give_up - time.perf_counter()
            if left <= 0:
                return None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(place.prompted.wait(), min(left, 1.0))
        return place.prompt_at

    async def game(self, kind: str, gid: int, where: int, index: int) -> None:
        """A game's users until it is over, then (the load kept at its count of games) a
        new game of its kind in its place, and so on until the run ends."""
        for generation in itertools.count():
            seed = index + 1000 * generation  # each game its own users' pauses and picks
            place = self.watch.places[where]
            if kind == "waddington":
                await self.f1(gid, place, seed)
            elif kind == "rf90":
                await self.rf90(gid, place, seed)
            else:
                crews = (self.pit(gid, place, where, seat, 2 * seed + seat) for seat in (0, 1))
                await asyncio.gather(*crews)
            if not self.running():
                return
            try:
                started = await self.start(kind, where if kind == "pitformula" else None)
            except _NotStarted as exc:
                reason = f"{kind}: {exc}"
                self.not_renewed[reason] = self.not_renewed.get(reason, 0) + 1
                return
            if kind != "pitformula":
                self.watch.places.pop(where, None)  # the old thread's
            gid, where = started
            self.renewed += 1

    async def _ask(
        self, kind: str, payload: dict[str, Any], what: str, go: asyncio.Event | None = None
    ) -> Sent:
        """A lobby's interaction, timed as any other, once answered and its result shown
        (a deferred answer's comes after it); sent once `go` is set, if given."""
        if go is not None:
            await go.wait()
        sent = await self.watch.dispatch(payload, kind)
        self.asked.append((what, sent))
        if not await self.answer(sent):
            raise _NotStarted(f"{what} not answered")
        self.done(sent, sent.answer_at)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(sent.shown.wait(), WAIT_S)
        if sent.shown_at is None:
            raise _NotStarted(f"{what}: nothing shown")
        if sent.refused:
            text = (sent.shown_message or {}).get("content")
            raise _NotStarted(f"{what} refused: {text}")
        return sent

    async def _posted(self, place: Place, what: str) -> Place:
        """The place (its channel not known yet, awaited since) once the bot has posted there
        a message with a button of its prefix and suffix."""
        if not await self.prompted(place, 0.0) or place.prompt is None:
            with contextlib.suppress(ValueError):
                self.watch.awaited.remove(place)
            raise _NotStarted(f"no {what} posted")
        return place

    async def start(
        self, kind: str, channel: int | None = None, go: asyncio.Event | None = None
    ) -> tuple[int, int]:
        """A new game of `kind` started by its users' interactions (a Pit Formula game in
        `channel`, a race in a new thread): its id and its thread or channel, once the bot
        has posted its first prompt (else `_NotStarted`). The bench's set-up and the games
        started in the place of those over go through here alike; `go`: the game's first
        command waits for it (a burst: all sent at one instant), its lobby's clicks follow
        as soon as each is shown."""

        fd, world = self.driver, self.driver.world
        if kind == "pitformula":
            assert channel is not None
            options = {"players": f"<@{pl.BOB.id}>", "races": 12}
            payload = fd.slash_payload("pit", "start", user=pl.ALICE, channel_id=channel, **options)
            await self._ask(kind, payload, "/pit start", go)
            record = await self.reader.find_game("pitformula", channel_id=channel)
            if record is None:
                raise _NotStarted("no game after /pit start")
            place = self.watch.places[channel] = Place(f"pd:pit:{record.id}:cards")
            if await self.prompted(place, 0.0) is None:
                raise _NotStarted("no race message posted")
            return record.id, channel
        area = "f1" if kind == "waddington" else kind
        # Each race its own time limit (an hour or more: none runs out in the bench), as a
        # league night's races differ by their round: the same command from the same user in
        # one channel within a few seconds is a retry, answered with the race it made.
        options = {"turn_minutes": 60 + next(self._races) % 600}
        options.update({"laps": 3, "robots": 0} if kind == "waddington" else {"track": "barcelona"})
        payload = fd.slash_payload(area, "new", user=pl.ALICE, **options)
        sent = await self._ask(kind, payload, f"/{area} new", go)
        # "🏁 **<title>** - race #<id>: lobby open in the thread below."
        found = re.search(r" #(\d+)\b", str((sent.shown_message or {}).get("content")))
        if found is None:
            raise _NotStarted(f"/{area} new: no race named in its answer")
        gid = int(found.group(1))
        lobby = await self.watch.lobby(gid)
        if lobby is None:
            raise _NotStarted("no lobby posted")
        thread = int(lobby["channel_id"])
        self.watch.places.pop(thread, None)  # the thread's prompts are awaited next
        place = Place(f"pd:f1:{gid}:act:" if kind == "waddington" else f"pd:rf90:{gid}:cockpit")
        self.watch.awaited.append(place)
        prompt = asyncio.create_task(self._posted(place, "first prompt"))
        try:
            for action, user in (("join", pl.BOB), ("start", pl.ALICE)):
                custom_id = f"pd:{area}:{gid}:{action}"
                payload = pl.component_payload(world, custom_id, message=lobby, user=user)
                await self._ask(kind, payload, action)
            await prompt
        finally:
            prompt.cancel()
            with contextlib.suppress(ValueError):  # not awaited any more (found, or given up)
                self.watch.awaited.remove(place)
        return gid, thread

    async def f1(self, gid: int, place: Place, index: int) -> None:
        """A /f1 race's two drivers: the driver pinged clicks one of the prompt's buttons
        (seeded), then waits for the next prompt ("done": state stored, board and prompt
        posted)."""

        rng = random.Random(self.seed * 1000 + index)
        store = self.reader
        while await self.think(rng):
            prompt = place.prompt
            assert prompt is not None
            offered = [
                c for c in f1_driver.buttons(prompt) if c["custom_id"].startswith(place.prefix)
            ]
            pinged = re.findall(r"<@!?(\d+)>", str(prompt.get("content")))
            if not offered or not pinged:
                record = await store.load_game(gid)
                if record.status != "running":
                    self.finished += 1
                    return
                await asyncio.sleep(0.5)
                continue
            custom_id = rng.choice(offered)["custom_id"]
            user = f1_driver.USERS[int(pinged[-1])]
            payload = pl.component_payload(self.driver.world, custom_id, message=prompt, user=user)
            sent = await self.watch.dispatch(payload, "waddington")
            if not await self.answer(sent):
                continue
            at = await self.prompted(place, sent.at, sent)
            if sent.refused:  # a refusal, in words: nothing was played
                self.refused += 1
                continue
            self.done(sent, at)
            if at is None:
                record = await store.load_game(gid)
                if record.status != "running":
                    self.finished += 1
                    return
                self.stuck += 1

    async def rf90(self, gid: int, place: Place, index: int) -> None:
        """An /rf90 race's drivers: the one waited for opens the cockpit and answers its
        questions down to what the seat policy would choose, a pause before each click;
        "done" is the cockpit's answer, and for the decision's last click the next prompt."""
        from bot.choices import PAGE, encode, path_to
        from bot.cogs.rf90 import facets

        rng = random.Random(self.seed * 1000 + index)
        while await self.think(rng):
            now = await self.rf90_loaded(gid)
            if now.game.is_terminal(now.state):
                self.finished += 1
                return
            waiting = [
                s for s in rf90_driver.PRESENTER.waiting_seats(now.state) if now.seats[s].user_id
            ]
            if not waiting or place.prompt is None or not place.shows(place.prefix):
                continue
            seat = waiting[0]
            user = rf90_driver.USERS[now.seats[seat].user_id or 0]
            payload = pl.component_payload(
                self.driver.world, place.prefix, message=place.prompt, user=user
            )
            sent = await self.watch.dispatch(payload, "rf90")
            if not await self.answer(sent) or not await self.seen(sent) or sent.refused:
                continue
            self.done(sent, sent.shown_at)  # the cockpit drawn, not its "thinking" answer
            cockpit = sent.message
            assert cockpit is not None  # seen: its message came
            options = now.game.legal_actions(now.state, seat)
            wanted = now.game.robot_action(now.state, seat)
            path_target = options.index(wanted) if wanted in options else 0
            path = path_to(options, facets(now.state), path_target)
            token = rf90_driver.PRESENTER.act_token(now, seat)
            clicks = [f"pd:rf90:{gid}:pick:{encode(token, [])}"] if not path else []
            for k in range(1, len(path) + 1):
                for page in range(1, path[k - 1] // PAGE + 1):
                    clicks.append(f"pd:rf90:{gid}:pick:{encode(token, path[: k - 1], page)}")
                clicks.append(f"pd:rf90:{gid}:pick:{encode(token, path[:k])}")
            for number, custom_id in enumerate(clicks, 1):
                if not await self.think(rng):
                    return
                payload = pl.component_payload(
                    self.driver.world, custom_id, message=cockpit, user=user
                )
                sent = await self.watch.dispatch(payload, "rf90")
                if not await self.answer(sent):
                    break
                if number < len(clicks):
                    self.done(sent, sent.answer_at)
                    continue
                if rf90_driver.PRESENTER.confirmation(now, seat, options[path_target]):
                    # a pit stop asks Confirm first: its question, then the driver's Confirm
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(sent.shown.wait(), WAIT_S)
                    if sent.refused:
                        break
                    question = sent.shown_message or {}
                    confirm = [
                        c["custom_id"]
                        for c in f1_driver.buttons(question)
                        if c["custom_id"].startswith(f"pd:rf90:{gid}:confirm:")
                    ]
                    if not confirm or not await self.think(rng):
                        break
                    payload = pl.component_payload(
                        self.driver.world, confirm[0], message=question, user=user
                    )
                    sent = await self.watch.dispatch(payload, "rf90")
                    if not await self.answer(sent):
                        break
                at = await self.prompted(place, sent.at, sent)
                if sent.refused:
                    self.refused += 1
                    break
                self.done(sent, at)
                if at is None:
                    if now.game.is_terminal((await self.rf90_loaded(gid)).state):
                        self.finished += 1
                        return
                    self.stuck += 1

    async def pit(self, gid: int, place: Place, channel: int, seat: int, index: int) -> None:
        """A Pit Formula crew: the repair (or reveal, flag, clear, retire) its robot would
        make, as /pit commands and the race message's buttons; "done" is the answer, which
        comes once the action is stored."""
        from rules.base import get_game
        from rules.pitformula import Clear, Fix, Retire, Reveal, TakeFlag

        game = get_game("pitformula")
        store = self.reader
        rng = random.Random(self.seed * 1000 + index)
        user = {0: pl.ALICE, 1: pl.BOB}[seat]
        while await self.think(rng):
            record = await store.load_game(gid)
            if record.status != "running":
                self.finished += seat == 0
                return
            state = game.load_state(record.state_json)
            if state.phase != "repair" or seat not in game.to_act(state):
                continue
            action = game.robot_action(state, seat)
            slash: tuple[tuple[str, ...], dict[str, Any]] | None = None
            if isinstance(action, Fix):
                slash = (("pit", "fix"), {"part": action.card, "tokens": " ".join(action.tokens)})
            elif isinstance(action, TakeFlag):
                slash = (("pit", "flag"), {})
            elif isinstance(action, Clear):
                slash = (("pit", "clear"), {"part": action.card})
            elif isinstance(action, Retire):
                slash = (("pit", "retire"), {})
            if slash is not None:
                path, options = slash
                payload = self.driver.slash_payload(*path, user=user, channel_id=channel, **options)
                sent = await self.watch.dispatch(payload, "pitformula")
                if await self.answer(sent):
                    self.done(sent, sent.answer_at)
                continue
            if not isinstance(action, Reveal):
                continue
            if place.prompt is None or not place.shows(place.prefix):
                continue  # between races: the next race message is on its way
            payload = pl.component_payload(
                self.driver.world, f"pd:pit:{gid}:cards", message=place.prompt, user=user
            )
            sent = await self.watch.dispatch(payload, "pitformula")
            if not await self.answer(sent):
                continue
            self.done(sent, sent.answer_at)
            # the cards: the answer itself, or a "thinking…" answer edited into them
            if not await self.seen(sent) or sent.refused or sent.shown_message is None:
                continue
            cards = sent.shown_message
            for card in action.cards:
                if not await self.think(rng):
                    return
                custom_id = f"pd:pit:{gid}:reveal:{card}"
                if not has_button(cards, custom_id):
                    break  # a new race's cards (the robot chose from the race before)
                payload = pl.component_payload(
                    self.driver.world, custom_id, message=cards, user=user
                )
                sent = await self.watch.dispatch(payload, "pitformula")
                if await self.answer(sent):
                    self.done(sent, sent.answer_at)


async def _loop_lag(stop: asyncio.Event, lags: list[float]) -> None:
    while not stop.is_set():
        start = time.perf_counter()
        await asyncio.sleep(0.02)
        lags.append((time.perf_counter() - start - 0.02) * 1000)


def _cpu_s(pid: int) -> float:
    """CPU time (user + system, every thread) process `pid` has used, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def image_workers(pid: int, site_pid: int | None) -> list[int]:
    """The bot's (process `pid`) children but its league site: the processes drawing its
    images (bot/drawing.py) and multiprocessing's helper."""
    children: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            children |= {int(c) for c in (task / "children").read_text().split()}
    children.discard(site_pid or 0)
    return sorted(children)


def _workers_cpu_s(workers: list[int]) -> float:
    total = 0.0
    for worker in workers:
        with contextlib.suppress(OSError):
            total += _cpu_s(worker)
    return total


def _workers_rss_mb(workers: list[int]) -> float:
    total = 0.0
    for worker in workers:
        with contextlib.suppress(OSError, RuntimeError):
            total += rss_mb(worker)
    return round(total, 1)


async def bench_mixed(
    quick: bool,
    games: dict[str, int] | None = None,
    seconds: float | None = None,
    burst: bool = False,
    site: float | None = None,
    site_apart: bool = False,
    site_blocks: float | None = None,
) -> dict[str, Any]:
    """Issue 11's load: Waddington, RF90 and Pit Formula games on one bot (150 + 25 + 25;
    `quick`: 14 + 3 + 3), every game's simulated users acting after a pause of 1-4 s
    (seeded) for a fixed time (60 s; `quick`: 15 s). For every interaction: from its
    dispatch to its first answer (a defer counts) and to the move done (the next prompt
    posted, for a move that hands the turn on; the answer itself otherwise); answers later
    than Discord's 3 s deadline (or never) counted; the bot process's RSS every second.
    `burst` (issue 30): the games are opened all at once, not one by one, and "burst" tells
    how their opening interactions were answered (`_burst_report`).
    `site` (issue 26): the database first filled with the league site's leagues and races
    (paddock_tools/bench_site.py), the bot serving the site as `paddock run` does with
    PADDOCK_WEB_PORT (`paddock web` as the bot's child process: its CPU is reported, not the
    bot's), and visitors asking for its pages at `site` requests a second during the load
    (0: the site on, and no visitor), from a process of their own (bench_visitors.py: never
    on the event loop that timestamps the bot's answers); "site" tells what they got. `site_apart`:
    the site served instead by `paddock web` in a process of its own beside the bot, on the
    same database (bench_site.web_process); "site" then tells that process's CPU too, its
    process id and how it exited. `site_blocks` (seconds): the visitors come and go in turns
    of that length through the load (away first), and "site" tells the bot's answers in
    each turn and in all the turns with and without them (`_blocks_report`): a pairing
    within one bot process, where two processes' runs differ by more than the site does."""
    from store import open_store

    counts = games or (MIXED_GAMES_QUICK if quick else MIXED_GAMES)
    seconds = seconds or (MIXED_SECONDS_QUICK if quick else MIXED_SECONDS)
    world = bots.world()
    pit_channels = [pl.RACES_CHANNEL_ID + 1000 + i for i in range(counts.get("pitformula", 0))]
    for i, cid in enumerate(pit_channels):
        world.add_channel(pl.text_channel_payload(cid, f"pit-{i}"))
    rss: list[float] = []
    with tempfile.TemporaryDirectory() as tmp, ErrorCapture() as errors:
        async with (
            bench_database(tmp, "mixed") as url,
            open_store(url) as reader,
            RemoteFakeDiscord(world, timeout=60, quiet=0.05) as fd,
        ):
            db: Path | str = (
                Path(url.removeprefix("sqlite:///")) if url.startswith("sqlite:///") else url
            )
            env: dict[str, str] = {}
            if site is not None:
                from paddock_tools import bench_site

                size = bench_site.mixed_site_size(quick)
                _progress(f"mixed: filling the site's {size[0]} leagues, {size[1]} races")
                filled = await bench_site.fill(url, *size, tmp)
                site_port = bench_site.free_port()
                if not site_apart:
                    env["PADDOCK_WEB_PORT"] = str(site_port)
            web: bench_site.WebProcess | None = None
            async with contextlib.AsyncExitStack() as apart:
                if site is not None and site_apart:
                    _progress("mixed: the site served by `paddock web` in a process of its own")
                    web = await apart.enter_async_context(
                        bench_site.web_process(db, site_port, Path(tmp) / "web.log")
                    )
                _progress("mixed: starting the bot in a process of its own (images warmed first)")
                bot = await apart.enter_async_context(
                    BotProcess(fd, db, env=env, warm=True, ready_timeout=180)
                )
                assert bot.proc is not None
                pid = bot.proc.pid
                child: int | None = None  # the site's process `paddock run` started
                if site is not None and not site_apart:
                    proc = bot.proc
                    await bench_site.wait_listening(
                        site_port, lambda: proc.returncode is None, "the bot's site child"
                    )
                    child = bench_site.site_child_of(pid)
                    if child is None:
                        raise RuntimeError("mixed: the bot serves its site from no child")
                site_pid = web.pid if web is not None else child
                watch = Watch(fd)
                stop = asyncio.Event()
                observer = asyncio.create_task(watch.run(stop))
                users = _Users(watch, fd, reader, until=float("inf"), seed=11)
                total = sum(counts.values())
                # (kind, game id, its thread or channel)
                loops: list[tuple[str, int, int]] = []

                async def start(
                    kind: str, channel: int | None = None, go: asyncio.Event | None = None
                ) -> tuple[str, int, int]:
                    try:
                        started = (kind, *await users.start(kind, channel, go))
                    except _NotStarted as exc:
                        raise RuntimeError(f"mixed: a {kind} game did not start: {exc}") from exc
                    loops.append(started)
                    _progress_count("mixed: games started", len(loops), total)
                    return started

                burst_at = time.perf_counter()
                if burst:
                    # Every game's first command at one instant (a race night opening), each
                    # lobby's Join and Start as soon as its user sees the one before answered.
                    go = asyncio.Event()
                    starting = [
                        asyncio.create_task(start(kind, None, go))
                        for kind in ("waddington", "rf90")
                        for _ in range(counts.get(kind, 0))
                    ]
                    starting += [
                        asyncio.create_task(start("pitformula", c, go)) for c in pit_channels
                    ]
                    await asyncio.sleep(0.2)  # every command built, waiting for `go`
                    _progress(f"mixed: {total} games' first commands at one instant")
                    burst_at = time.perf_counter()
                    go.set()
                    loops[:] = await asyncio.gather(*starting)  # in a seeded order, not as done
                else:
                    for kind in ("waddington", "rf90"):
                        for _ in range(counts.get(kind, 0)):
                            await start(kind)
                    # Pit Formula's countdowns to Go! run side by side
                    await asyncio.gather(*(start("pitformula", cid) for cid in pit_channels))
                setup_done = time.perf_counter()
                users.done_ms.clear()  # the set-up's interactions are not the load's
                rss.append(rss_mb(pid))
                _progress(f"mixed: {total} games, simulated users acting for {seconds:.0f} s")
                lags: list[float] = []
                lagger = asyncio.create_task(_loop_lag(stop, lags))
                users.until = time.perf_counter() + seconds
                cpu, fake_cpu = _cpu_s(pid), time.process_time()
                workers = image_workers(pid, site_pid)
                workers_cpu, workers_rss = _workers_cpu_s(workers), [_workers_rss_mb(workers)]
                web_cpu = _cpu_s(site_pid) if site_pid is not None else 0.0
                tasks = [
                    asyncio.create_task(users.game(kind, gid, where, index))
                    for index, (kind, gid, where) in enumerate(loops)
                ]
                visits = None
                turns: list[tuple[float, bool]] = []  # (start, visitors come) per turn
                if site:
                    from paddock_tools import bench_visitors

                    site_url = f"http://127.0.0.1:{site_port}"
                    began = users.until - seconds
                    if site_blocks:
                        turns = bench_visitors.turns(began, site_blocks, users.until)
                    load = bench_visitors.visit(
                        site_url, filled, site, users.until, site_blocks, began
                    )
                    visits = asyncio.create_task(load)
                while users.running():
                    await asyncio.sleep(1.0)
                    rss.append(rss_mb(pid))
                    workers_rss.append(_workers_rss_mb(workers))
                load_end = users.until
                cpu, fake_cpu = _cpu_s(pid) - cpu, time.process_time() - fake_cpu
                workers_cpu = _workers_cpu_s(workers) - workers_cpu
                if site_pid is not None:
                    web_cpu = _cpu_s(site_pid) - web_cpu
                # each user's interaction under way is answered (or given up on), then stops
                await asyncio.wait(tasks, timeout=WAIT_S + 5)
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                failed = [t.exception() for t in tasks if not t.cancelled() and t.exception()]
                await asyncio.sleep(0.5)  # the last moves' posts
                stop.set()
                await observer
                await lagger
                site_report = await visits if visits is not None else None
                rss.append(rss_mb(pid))
                messages_kept = len(fd.backend.messages)
                bot_errors = bot.errors_since(0)
        error_lines = sorted({f"{r.name}: {r.getMessage()}"[:200] for r in errors.records})
        error_lines += [str(e).splitlines()[0][:200] for e in bot_errors]
    for line in error_lines[:5]:
        print(f"bench: mixed: ERROR logged: {line}", file=sys.stderr, flush=True)
    sent_all = [s for s in watch.all_timings() if s.at >= setup_done]
    for sent in [s for s in sent_all if s.answer_at is None][:5]:
        late = time.perf_counter() - sent.at
        print(f"bench: mixed: never answered ({late:.0f} s on): {sent.what}", file=sys.stderr)
    for exc in failed[:3]:
        print(f"bench: mixed: a simulated user failed: {exc!r}", file=sys.stderr, flush=True)
    for sent in [s for s in sent_all if s.answer_at and s.answer_at - s.at > DEADLINE_S][:5]:
        late = sent.answer_at - sent.at if sent.answer_at else 0.0
        print(f"bench: mixed: answered after {late:.1f} s: {sent.what}", file=sys.stderr)
    answers: list[float] = []
    by_minute: dict[int, list[float]] = {}  # by the minute of the load it was sent in
    for s in sent_all:
        if s.answer_at is not None:
            answers.append((s.answer_at - s.at) * 1000)
            by_minute.setdefault(int((s.at - setup_done) // 60), []).append(answers[-1])
    unanswered = sum(s.answer_at is None for s in sent_all)
    done = [ms for samples in users.done_ms.values() for ms in samples]
    by_game: dict[str, Any] = {}
    for kind in counts:
        mine = [s for s in sent_all if s.kind == kind]
        answered = [(s.answer_at - s.at) * 1000 for s in mine if s.answer_at is not None]
        by_game[kind] = {
            "interactions": len(mine),
            "unanswered": sum(s.answer_at is None for s in mine),
            "answer_p99_ms": _p99(answered),
            "done_p99_ms": _p99(users.done_ms.get(kind, [])),
        }
    opened = {"burst": _burst_report(users.asked, burst_at, setup_done)} if burst else {}
    if site is not None:
        opened["site"] = {
            "rps_asked": site,
            # own_process: `paddock web` started beside the bot; bot_child: started by the
            # bot itself (`paddock run` with PADDOCK_WEB_PORT), as its child
            "served_by": "own_process" if site_apart else "bot_child",
            **(site_report or {"requests": 0}),
        }
        if site_pid is not None:  # the site's process: its CPU over the load
            opened["site"] |= {
                "cpu_cores": round(web_cpu / seconds, 2),
                # what a page costs: the process's CPU over the pages it served
                "cpu_ms_per_request": (
                    round(web_cpu * 1000 / site_report["requests"], 1)
                    if site_report and site_report.get("requests")
                    else None
                ),
                "pid": site_pid,
            }
        if web is not None:
            opened["site"]["exit_code"] = web.exit_code
        if turns:
            opened["site"]["turns"] = _blocks_report(sent_all, turns, load_end)
    return {
        **opened,
        "games": dict(counts),
        "seconds": seconds,
        "interactions": len(sent_all),
        "answer_p99_ms": _p99(answers),
        "answer_max_ms": round(max(answers), 3) if answers else None,
        "answer_p99_ms_by_minute": [_p99(by_minute[m]) for m in sorted(by_minute)],
        "done_p99_ms": _p99(done),
        "late_answers": sum(ms > DEADLINE_S * 1000 for ms in answers) + unanswered,
        "unanswered": unanswered,
        "rss_mb": {  # the bot process's
            "start": rss[0],
            "end": rss[-1],
            "max": max(rss),
            "slope_mb_per_min_second_half": _slope_per_min(rss[len(rss) // 2 :]),
            "by_minute": rss[::60],
        },
        # CPU time over the load's time: the bot process's; this one's (the fake Discord
        # and the simulated users)
        "cpu_cores": round(cpu / seconds, 2),
        # the processes drawing the bot's images (PADDOCK_IMAGE_PROCESSES: bot/drawing.py),
        # none when it draws in threads: their CPU over the load, their RSS summed
        "image_workers": {
            "processes": len(workers),
            "cpu_cores": round(workers_cpu / seconds, 2),
            "rss_mb_max": max(workers_rss),
        },
        "fake_cpu_cores": round(fake_cpu / seconds, 2),
        # how late this process's event loop ran a 20 ms sleep: the fake's own delays,
        # which the answer times include
        "fake_loop_lag_p99_ms": _p99(lags),
        "by_game": by_game,
        "errors_logged": len(errors.records) + len(bot_errors),
        "http_errors": watch.http_errors,
        "stuck_moves": users.stuck,
        "refused_moves": users.refused,
        "finished_games": users.finished,
        # each game over was replaced by a new one of its kind, so the load stays full
        "games_renewed": users.renewed,
        "games_not_renewed": users.not_renewed,
        "user_failures": len(failed),
        "fake_messages_kept": messages_kept,
    }


TURN_SETTLE_S = 1.0  # a turn's first second left out: the pages of the turn before ending
TURN_QUANTILES = {"p50": 0.50, "p90": 0.90, "p99": 0.99}


def _quantiles(samples_ms: list[float]) -> dict[str, float | None]:
    if not samples_ms:
        return dict.fromkeys(TURN_QUANTILES)
    found: dict[str, float | None] = dict(percentiles(samples_ms, TURN_QUANTILES))
    return found


def _blocks_report(
    sent: list[Timing], turns: list[tuple[float, bool]], end: float
) -> dict[str, Any]:
    """The bot's answers in each turn of the site's visitors (those sent in its first
    TURN_SETTLE_S left out) and in all turns with and without them: {"turn_s", "turns":
    [{"visitors", "answers", "p50", "p90", "p99"}], "pooled": {"without": {...}, "with":
    {...}}, "difference_ms": {quantile: with - without, pooled}, "pairs": {quantile: each
    turn with visitors less the one before it, without, sorted}, "median_pair_ms", "higher"
    (pairs where the turn with visitors was slower, of how many), and "same_kind_ms": the
    differences between consecutive turns of the same kind (each without less the one
    before it without, each with less the one before it with): what the machine's own
    noise makes of a pair, to set the pairs against}. Only whole turns before `end` count."""
    rows: list[dict[str, Any]] = []
    pooled: dict[bool, list[float]] = {False: [], True: []}
    length = turns[1][0] - turns[0][0] if len(turns) > 1 else 0.0
    for (start, there), (stop, _) in itertools.pairwise(turns):
        if stop > end + 0.5:  # the load ended within this turn
            break
        ms = [
            (s.answer_at - s.at) * 1000
            for s in sent
            if s.answer_at is not None and start + TURN_SETTLE_S <= s.at < stop
        ]
        rows.append({"visitors": there, "answers": len(ms), **_quantiles(ms)})
        pooled[there] += ms

    def differences(pairs: list[tuple[dict[str, Any], dict[str, Any]]], q: str) -> list[float]:
        return sorted(
            round(b[q] - a[q], 3) for a, b in pairs if a[q] is not None and b[q] is not None
        )

    pairs = [(a, b) for a, b in itertools.pairwise(rows) if b["visitors"] and not a["visitors"]]
    same = [
        (a, b)
        for kind in (False, True)
        for a, b in itertools.pairwise([r for r in rows if r["visitors"] is kind])
    ]
    without, with_ = _quantiles(pooled[False]), _quantiles(pooled[True])
    by_pair = {q: differences(pairs, q) for q in TURN_QUANTILES}
    return {
        "turn_s": round(length, 1),
        "turns": rows,
        "pooled": {"without": without, "with": with_},
        "difference_ms": {
            q: round(w - wo, 3) if w is not None and wo is not None else None
            for q, w, wo in ((q, with_[q], without[q]) for q in TURN_QUANTILES)
        },
        "pairs": by_pair,
        "median_pair_ms": {q: median(d) for q, d in by_pair.items()},
        "higher": {q: f"{sum(x > 0 for x in d)} of {len(d)}" for q, d in by_pair.items()},
        "same_kind_ms": {q: differences(same, q) for q in TURN_QUANTILES},
    }


def _burst_report(asked: list[tuple[str, Sent]], at: float, ready: float) -> dict[str, Any]:
    """How the opening burst's interactions (sent from `at`; games replaced later, once all
    were `ready`, are not counted) were answered: from each one's dispatch to its answer (a
    defer counts: what Discord's 3 s is about) and to its result shown (the lobby, the
    game's line), in all and by command."""

    def figures(sents: list[Sent]) -> dict[str, Any]:
        answers = [(s.answer_at - s.at) * 1000 for s in sents if s.answer_at is not None]
        shown = [(s.shown_at - s.at) * 1000 for s in sents if s.shown_at is not None]
        unanswered = len(sents) - len(answers)
        return {
            "interactions": len(sents),
            "answer_p50_ms": percentiles(answers)["p50"] if answers else None,
            "answer_p99_ms": _p99(answers),
            "answer_max_ms": round(max(answers), 3) if answers else None,
            "over_1s": sum(ms > 1000 for ms in answers) + unanswered,
            "late_answers": sum(ms > DEADLINE_S * 1000 for ms in answers) + unanswered,
            "unanswered": unanswered,
            "shown_p99_ms": _p99(shown),
            "shown_max_ms": round(max(shown), 3) if shown else None,
        }

    mine = [(what, s) for what, s in asked if at <= s.at <= ready]
    return {
        **figures([s for _, s in mine]),
        # from the first command to every game's first prompt posted
        "seconds_to_all_started": round(ready - at, 3),
        "by_command": {
            what: figures([s for w, s in mine if w == what])
            for what in sorted({w for w, _ in mine})
        },
    }


def _slope_per_min(samples: list[float]) -> float | None:
    """Least-squares slope of RSS samples taken once a second, in MB per minute: "flat"
    measured past the first half of the run (caches and allocator arenas warm up first)."""
    n = len(samples)
    if n < 3:
        return None
    mean_x, mean_y = (n - 1) / 2, sum(samples) / n
    num = sum((x - mean_x) * (y - mean_y) for x, y in enumerate(samples))
    den = sum((x - mean_x) ** 2 for x in range(n))
    return round(num / den * 60, 2)


def _p99(samples_ms: list[float]) -> float | None:
    return percentiles(samples_ms)["p99"] if samples_ms else None
