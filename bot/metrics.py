"""The bot's metrics for operators, in Prometheus's terms (bot/ops.py serves them).

Each bot owns one `CollectorRegistry` (`Metrics.registry`), never the process's default one,
so tests and several bots in one process keep theirs apart. What is counted where it
happens costs a counter or a histogram's observation (no store read on any interaction):

- an interaction's arrival and its first answer: `PaddockBot.dispatch` hands each arriving
  interaction to `arrived`, which puts a `TimedResponse` in place of its
  `interaction.response`: the first defer, reply, edit or modal that Discord takes is
  counted (`paddock_interactions_answered_total{kind}`) and timed from the arrival
  (`paddock_answer_seconds{game}`), whichever of the bot's many answering calls made it;
- a timer fired late (bot/timers.py), a store error reported (bot/errors.py, the timer loop,
  an event handler's failure), an image drawn (bot/table/core.py `draw`).

What is read at scrape time (`refresh`): active games and due timers (two counts on indexes,
store/health.py) and each shard's gateway latency.
"""

from __future__ import annotations

import math
import sqlite3
import time
from typing import TYPE_CHECKING, Any

import discord
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from store.errors import MigrationError, StoreUnavailable
from store.health import within

if TYPE_CHECKING:
    from bot.client import PaddockBot

# Discord gives up on an interaction not answered within 3 s: the buckets around it.
ANSWER_BUCKETS = (0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1.0, 2.0, 3.0, 5.0, 10.0)
# Timers are read again every 5 s on a shared database (bot/timers.py SHARED_SLEEP).
LATE_BUCKETS = (0.1, 0.5, 1.0, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0, 3600.0)
# An image's budget is 60 ms (docs/architecture.md).
DRAW_BUCKETS = (0.005, 0.01, 0.02, 0.04, 0.06, 0.1, 0.2, 0.5, 1.0, 2.0)
SCRAPE_TIMEOUT = 2.0  # seconds for the store's counts at a scrape

KINDS = {
    discord.InteractionType.application_command: "commands",
    discord.InteractionType.component: "buttons",
    discord.InteractionType.autocomplete: "autocomplete",
    discord.InteractionType.modal_submit: "modals",
}
OTHER = "other"  # a command or button area this bot does not serve: labels stay few
ACTIVE = ("lobby", "running")

# The image threads are the process's (bot/threads.py), so the time they take to draw is
# too: one histogram, shown by each bot's registry, rather than one per bot that `draw`
# would have to be told of at each of its callers.
IMAGE_DRAW = Histogram(
    "paddock_image_draw_seconds",
    "Time to draw one image (PNG) in the image threads, by image",
    ["image"],
    buckets=DRAW_BUCKETS,
    registry=None,
)


def image_name(filename: str) -> str:
    """`race12-board.png` -> `board`: the image's kind, without the race it shows."""
    stem = filename.rsplit(".", 1)[0]
    if stem.startswith("race") and "-" in stem:
        stem = stem.split("-", 1)[1]
    return "".join(c for c in stem if not c.isdigit()) or OTHER


def observe_draw(filename: str, seconds: float) -> None:
    IMAGE_DRAW.labels(image_name(filename)).observe(seconds)


def store_error_kind(error: BaseException) -> str | None:
    """`unavailable` (the database down, locked, full...), `query` (the database refused
    the store's SQL: a bug, or a migration failed), or None for no store error."""
    if isinstance(error, StoreUnavailable):
        return "unavailable"
    if isinstance(error, MigrationError | sqlite3.Error):
        return "query"
    if type(error).__module__.split(".")[0] == "asyncpg":  # asyncpg is imported on demand
        return "query"
    return None


class Metrics:
    def __init__(self) -> None:
        self.registry = registry = CollectorRegistry()
        self.answered = Counter(
            "paddock_interactions_answered",
            "Interactions the bot answered (its first answer: a defer or a reply), by kind",
            ["kind"],
            registry=registry,
        )
        self.answer_seconds = Histogram(
            "paddock_answer_seconds",
            "From an interaction's arrival to the bot's first answer, by game area",
            ["game"],
            buckets=ANSWER_BUCKETS,
            registry=registry,
        )
        self.games_active = Gauge(
            "paddock_games_active",
            "Games in lobby or running, by game area and status (the whole database)",
            ["game", "status"],
            registry=registry,
        )
        self.timers_due = Gauge(
            "paddock_timers_due",
            "Timers due now and not yet claimed (the whole database, every shard's)",
            registry=registry,
        )
        self.timers_late = Histogram(
            "paddock_timers_late_seconds",
            "How long after its due time a timer fired",
            buckets=LATE_BUCKETS,
            registry=registry,
        )
        self.database_errors = Counter(
            "paddock_database_errors",
            "Store errors caught or reported: unavailable (down, locked, full) or query",
            ["kind"],
            registry=registry,
        )
        self.shard_latency = Gauge(
            "paddock_shard_latency_seconds",
            "Gateway latency (heartbeat to its ACK) by shard",
            ["shard"],
            registry=registry,
        )
        registry.register(IMAGE_DRAW)
        for kind in ("commands", "buttons"):  # shown at 0 from the start: rates work at once
            self.answered.labels(kind)
        for kind in ("unavailable", "query"):
            self.database_errors.labels(kind)

    # Counted where it happens ----------------------------------------------------------

    def arrived(self, interaction: discord.Interaction) -> None:
        """Time this interaction from now to its first answer. `response` is a cached slot
        of discord.py's Interaction (`_cs_response`): filled here, before any handler runs
        (they are tasks not started yet), it is the response every answer goes through."""
        interaction._cs_response = TimedResponse(interaction, self)  # type: ignore[attr-defined]

    def answered_in(self, interaction: discord.Interaction, seconds: float, *, ok: bool) -> None:
        if ok:
            self.answered.labels(KINDS.get(interaction.type, OTHER)).inc()
        self.answer_seconds.labels(area_of(interaction)).observe(seconds)

    def fired_late(self, seconds: float) -> None:
        self.timers_late.observe(max(seconds, 0.0))

    def database_error(self, error: BaseException) -> None:
        """Count `error` if it is a store's (the cause of a wrapped one too)."""
        error = getattr(error, "original", error)  # a command's error wraps the store's
        kind = store_error_kind(error)
        if kind is not None:
            self.database_errors.labels(kind).inc()

    # Read at scrape time ---------------------------------------------------------------

    async def refresh(self, bot: PaddockBot) -> None:
        """Read what is current into the gauges. A store that does not answer leaves the
        games out and its due timers NaN (not stale figures), and counts a database error."""
        self._latencies(bot)
        areas = {kind: p.area for kind, p in bot.table.core.presenters.items()}
        try:
            games, due = await within(self._counts(bot), SCRAPE_TIMEOUT)
        except Exception as exc:
            self.games_active.clear()
            self.timers_due.set(math.nan)
            if isinstance(exc, TimeoutError):
                exc = StoreUnavailable(bot.store.path, f"no answer in {SCRAPE_TIMEOUT:g} s")
            self.database_error(exc)
            return
        self.games_active.clear()
        for area in areas.values():  # every game shown, at 0 when none is on
            for status in ACTIVE:
                self.games_active.labels(area, status).set(0)
        for (kind, status), count in games.items():
            self.games_active.labels(areas.get(kind, kind), status).set(count)
        self.timers_due.set(due)

    @staticmethod
    async def _counts(bot: PaddockBot) -> tuple[dict[tuple[str, str], int], int]:
        return await bot.store.games_active(), await bot.store.timers_due(bot.timers.clock())

    def _latencies(self, bot: PaddockBot) -> None:
        latencies = getattr(bot, "latencies", None)  # AutoShardedBot's, per shard
        pairs = latencies if latencies is not None else [(bot.shard_id or 0, bot.latency)]
        self.shard_latency.clear()
        for shard, latency in pairs:
            if math.isfinite(latency):  # nan or inf: no heartbeat acknowledged yet
                self.shard_latency.labels(str(shard)).set(latency)


def area_of(interaction: discord.Interaction) -> str:
    """The game area an interaction belongs to: its command (`/league-admin` is the league's)
    or its button's custom_id area (bot/components.py), when this bot serves it."""
    bot: Any = interaction.client
    data: Any = interaction.data or {}
    if interaction.type in (
        discord.InteractionType.application_command,
        discord.InteractionType.autocomplete,
    ):
        name = str(data.get("name", ""))
        return name.split("-")[0] if bot.tree.get_command(name) is not None else OTHER
    parts = str(data.get("custom_id", "")).split(":", 2)
    if len(parts) > 1 and parts[0] == "pd" and parts[1] in bot.component_routes:
        return parts[1]
    return OTHER


class TimedResponse(discord.InteractionResponse[Any]):
    """An interaction's `response` noting its first answer. Each of discord.py's answering
    calls answers once (a second raises InteractionResponded before any request), so the
    first call that reaches Discord is timed; one Discord refused (the interaction expired)
    is timed too, as the answer came that late, but not counted as answered."""

    __slots__ = ("_metrics", "_arrived", "_timed")

    def __init__(self, parent: discord.Interaction, metrics: Metrics) -> None:
        super().__init__(parent)
        self._metrics = metrics
        self._arrived = time.perf_counter()
        self._timed = False

    def _answered(self, *, ok: bool) -> None:
        if not self._timed:
            self._timed = True
            seconds = time.perf_counter() - self._arrived
            self._metrics.answered_in(self._parent, seconds, ok=ok)

    async def _timing(self, answer: Any) -> Any:
        try:
            done = await answer
        except discord.HTTPException:
            self._answered(ok=False)
            raise
        self._answered(ok=True)
        return done

    async def defer(self, *args: Any, **kwargs: Any) -> Any:
        return await self._timing(super().defer(*args, **kwargs))

    async def send_message(self, *args: Any, **kwargs: Any) -> Any:
        return await self._timing(super().send_message(*args, **kwargs))

    async def edit_message(self, *args: Any, **kwargs: Any) -> Any:
        return await self._timing(super().edit_message(*args, **kwargs))

    async def send_modal(self, *args: Any, **kwargs: Any) -> Any:
        return await self._timing(super().send_modal(*args, **kwargs))

    async def autocomplete(self, *args: Any, **kwargs: Any) -> Any:
        return await self._timing(super().autocomplete(*args, **kwargs))
