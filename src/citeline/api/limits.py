"""Per-user rate limits, per-user concurrent-run slots and the request body cap."""

from __future__ import annotations

import json
import math
import re
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from citeline.api.errors import error_payload, send_error
from citeline.text import printable

Clock = Callable[[], float]


class RateLimiter:
    """A token bucket per user: `burst` requests at once, refilled at `rate` per second."""

    def __init__(self, rate: float, burst: int, *, clock: Clock = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def acquire(self, user: str) -> float:
        """0 when allowed; else the seconds to wait before the next request is allowed."""
        now = self.clock()
        with self._lock:
            tokens, last = self._buckets.get(user, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - last) * self.rate)
            if tokens >= 1.0:
                self._buckets[user] = (tokens - 1.0, now)
                return 0.0
            self._buckets[user] = (tokens, now)
            return (1.0 - tokens) / self.rate


class FailedAuthLimiter:
    """At most `limit` failed authentications per client address in any `window_s` seconds.

    An address over the limit is refused (429) before its key is even looked at, until its oldest
    counted failure leaves the window: guessing keys, or flooding the log with failures, costs
    the attacker time, not the server. Addresses are forgotten once their failures expire, and
    at most `max_addresses` are tracked (the oldest dropped first) so the table stays bounded.
    """

    def __init__(self, limit: int, window_s: float = 60.0, *, clock: Clock = time.monotonic,
                 max_addresses: int = 100_000) -> None:
        self.limit = limit
        self.window_s = window_s
        self.clock = clock
        self.max_addresses = max_addresses
        self._failures: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def _recent(self, address: str, now: float) -> deque[float] | None:
        failures = self._failures.get(address)
        if failures is None:
            return None
        while failures and failures[0] <= now - self.window_s:
            failures.popleft()
        if not failures:
            del self._failures[address]
            return None
        return failures

    def blocked_for(self, address: str) -> float:
        """0 when `address` may try to authenticate; else the seconds until it may again."""
        now = self.clock()
        with self._lock:
            failures = self._recent(address, now)
            if failures is None or len(failures) < self.limit:
                return 0.0
            return max(failures[0] + self.window_s - now, 0.001)

    def record_failure(self, address: str) -> None:
        """Count a failed authentication from `address` (dropping the oldest address when the table is
        full)."""
        now = self.clock()
        with self._lock:
            failures = self._recent(address, now)
            if failures is None:
                failures = self._failures[address] = deque()
                while len(self._failures) > self.max_addresses:
                    self._failures.popitem(last=False)
            self._failures.move_to_end(address)
            failures.append(now)


class Slots:
    """At most `limit` holders at once, all users together (non-blocking: try, then release)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._held = 0
        self._lock = threading.Lock()

    def try_acquire(self) -> bool:
        """Take a slot if one is free; False (never waiting) when all are held, so the caller answers
        429 at once."""
        with self._lock:
            if self._held >= self.limit:
                return False
            self._held += 1
            return True

    def release(self) -> None:
        """Give a slot back."""
        with self._lock:
            self._held = max(0, self._held - 1)


def retry_after(seconds: float) -> str:
    """A `Retry-After` header value: whole seconds, at least 1 (a client told 0 would retry at once)."""
    return str(max(1, math.ceil(seconds)))


class RunSlots:
    """At most `limit` agent runs in flight per user. Released by whoever ends the run."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()

    def try_acquire(self, user: str) -> bool:
        """Count a new run of `user` if they have a slot free; False when they are at their limit."""
        with self._lock:
            if self._counts.get(user, 0) >= self.limit:
                return False
            self._counts[user] = self._counts.get(user, 0) + 1
            return True

    def release(self, user: str) -> None:
        """End one run of `user`, freeing its slot."""
        with self._lock:
            left = self._counts.get(user, 0) - 1
            if left > 0:
                self._counts[user] = left
            else:
                self._counts.pop(user, None)

    def in_flight(self, user: str | None = None) -> int:
        """Runs in flight for `user`, or for everyone when `user` is None (the readiness and metrics
        figures)."""
        with self._lock:
            return sum(self._counts.values()) if user is None else self._counts.get(user, 0)


class BodyTooLarge(StarletteHTTPException):
    """Raised while the body is read; an HTTPException so FastAPI's body parsing lets it through."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"request body is larger than the {limit}-byte limit")


class BodyLimitMiddleware:
    """413 for bodies over `limit` bytes: at once from Content-Length, else while reading."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def _reject(self, scope: Scope, send: Send) -> None:
        query_id = str(scope.get("state", {}).get("query_id", ""))
        await send_error(send, 413, error_payload(
            query_id, f"request body is larger than the {self.limit}-byte limit", type="validation_error",
            step="validation", details={"limit_bytes": self.limit},
        ), [(b"x-query-id", query_id.encode()), (b"connection", b"close")])

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = 0
                if declared > self.limit:
                    await self._reject(scope, send)
                    return
        seen = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise BodyTooLarge(self.limit)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except BodyTooLarge:
            if not started:
                await self._reject(scope, send)


# A JSON `\\uD800`-`\\uDFFF` escape: the only way a lone surrogate gets into a JSON body (raw
# surrogate bytes are not UTF-8, and FastAPI already answers 400 to those).
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _lone_surrogate_at(value: Any, path: str = "") -> str | None:
    """The JSON path of the first string (or key) holding a lone surrogate, else None."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return path or "(the body)"
        return None
    if isinstance(value, dict):
        for key, child in value.items():
            found = _lone_surrogate_at(key, f"{path}.{key!s}".lstrip(".")) if isinstance(key, str) else None
            found = found or _lone_surrogate_at(child, f"{path}.{printable(str(key))}".lstrip("."))
            if found:
                return found
    if isinstance(value, list):
        for index, child in enumerate(value):
            found = _lone_surrogate_at(child, f"{path}[{index}]")
            if found:
                return found
    return None


class UnicodeGuardMiddleware:
    """400 with a plain message for a JSON body carrying a lone surrogate (`"\\ud800"`): such a
    string cannot be stored, searched or written back as UTF-8, whichever field it is in."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        content_type = dict(scope.get("headers", [])).get(b"content-type", b"") if scope["type"] == "http" else b""
        if b"json" not in content_type.lower():
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        where = None
        if _SURROGATE_ESCAPE.search(body):
            try:
                where = _lone_surrogate_at(json.loads(body))
            except ValueError:
                where = None  # not JSON: FastAPI answers that one
        if where is not None:
            query_id = str(scope.get("state", {}).get("query_id", ""))
            await send_error(send, 400, error_payload(
                query_id, f"invalid Unicode in `{where}`: a lone surrogate (such as \\ud800) is not text; "
                "send valid UTF-8", type="validation_error", step="validation", details={"field": where},
            ))
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
