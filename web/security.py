"""What every response of the site carries and what keeps it safe: the security headers, a
rate limit per client address, and league tokens kept out of the logs."""

from __future__ import annotations

import ipaddress
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

# A league's address, /l/<token>..., and a server's index, /s/<token>: the token is
# replaced in every log line.
_TOKEN_PATH = re.compile(r"/([ls])/[^/?#\s\"']+")
REDACTED = "/l/…"

# Set on a request by the handler that found a league whose admin let search engines in.
INDEXABLE: web.RequestKey[bool] = web.RequestKey("indexable", bool)


def redact(text: str) -> str:
    return _TOKEN_PATH.sub(r"/\1/…", text)


def indexable(request: web.Request, status: int) -> bool:
    """Whether this answer may be indexed: a page of a league with search on, not an error
    (an error under its address is the one 404 every wrong address gets)."""
    return bool(request.get(INDEXABLE)) and status < 400


async def add_headers(request: web.Request, response: web.StreamResponse) -> None:
    """on_response_prepare: every response, pages, images, errors and files alike."""
    response.headers.update(HEADERS)
    if indexable(request, response.status):
        del response.headers["X-Robots-Tag"]


IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def _address(text: str) -> IPAddress | None:
    try:
        found = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    # An IPv4 client seen through an IPv6 socket (::ffff:a.b.c.d) is that IPv4 client.
    if isinstance(found, ipaddress.IPv6Address) and found.ipv4_mapped is not None:
        return found.ipv4_mapped
    return found


def client_address(
    peer: str | None, forwarded_for: list[str], trusted: frozenset[IPAddress]
) -> str:
    """The address a request's rate limit keys on. The direct peer, unless it is one of
    our `trusted` proxies: then the last address of X-Forwarded-For that is not itself a
    trusted proxy (each proxy appends the address it saw, so whatever a client wrote
    stands to the left of it and is never read). An entry there that is not an address
    (a proxy that does not append) keys on the peer: a client cannot pick its bucket."""
    peer = peer or ""
    seen = _address(peer)
    if seen is None or seen not in trusted:
        return peer
    hops = [hop for header in forwarded_for for hop in header.split(",")]
    for hop in reversed(hops):
        address = _address(hop)
        if address is None:
            return peer
        if address not in trusted:
            return str(address)
    return peer


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
