"""What every response of the site carries and what keeps it safe: the security headers, a
rate limit per client address, and league tokens kept out of the logs."""

from __future__ import annotations

import logging
import math
import re
import time
from collections.abc import Callable

from aiohttp import web
from aiohttp.abc import AbstractAccessLogger

# No inline script or style anywhere: the pages link one stylesheet and one small script.
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; script-src 'self'; style-src 'self'; "
        "frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    # A league's address is its secret: no page hands it to another site as a referrer.
    "Referrer-Policy": "no-referrer",
    "X-Robots-Tag": "noindex",
}

# A league's address, /l/<token>...: the token is replaced in every log line.
_TOKEN_PATH = re.compile(r"/l/[^/?#\s\"']+")
REDACTED = "/l/…"


def redact(text: str) -> str:
    return _TOKEN_PATH.sub(REDACTED, text)


async def add_headers(request: web.Request, response: web.StreamResponse) -> None:
    """on_response_prepare: every response, pages, images, errors and files alike."""
    response.headers.update(HEADERS)


class RateLimit:
    """A token bucket per client address: `burst` requests at once, refilled at `rate` a
    second. Memory stays bounded: past `max_clients`, the buckets that are full again (the
    clients that went quiet) are forgotten."""

    def __init__(
        self,
        burst: int = 30,
        rate: float = 3.0,
        *,
        max_clients: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.burst = burst
        self.rate = rate
        self.max_clients = max_clients
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # client -> (tokens, at)

    def take(self, client: str) -> float:
        """0 when the request may go on, else the seconds until it may."""
        at = self.clock()
        tokens, then = self._buckets.get(client, (float(self.burst), at))
        tokens = min(float(self.burst), tokens + (at - then) * self.rate)
        if tokens < 1.0:
            self._buckets[client] = (tokens, at)
            return (1.0 - tokens) / self.rate
        if client not in self._buckets and len(self._buckets) >= self.max_clients:
            self._forget(at)
        self._buckets[client] = (tokens - 1.0, at)
        return 0.0

    def _forget(self, at: float) -> None:
        full = [
            c for c, (t, then) in self._buckets.items() if t + (at - then) * self.rate >= self.burst
        ]
        for client in full or list(self._buckets)[: self.max_clients // 10]:
            del self._buckets[client]

    @staticmethod
    def retry_after(wait: float) -> str:
        return str(max(1, math.ceil(wait)))


class RedactedAccessLogger(AbstractAccessLogger):
    """aiohttp's access log, one line a request, with league tokens replaced by `…`."""

    def log(self, request: web.BaseRequest, response: web.StreamResponse, time: float) -> None:
        self.logger.info(
            "%s %s %s %s %.1f ms",
            request.remote,
            request.method,
            redact(request.path_qs),
            response.status,
            time * 1000,
        )


class RedactTokens(logging.Filter):
    """For aiohttp's own loggers and the site's: a token in a message or a traceback (a
    bad request's first line, an error's text) is replaced by `…`."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if _TOKEN_PATH.search(message):
            record.msg, record.args = redact(message), ()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


LOGGERS = ("aiohttp.access", "aiohttp.server", "aiohttp.web", "aiohttp.internal", "paddock.web")


def redact_logs() -> None:
    """Put the filter on the loggers that may see a request's path (once each)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())
