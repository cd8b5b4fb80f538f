"""Per-user rate limits, per-user concurrent-run slots and the request body cap."""

from __future__ import annotations

import json
import math
import threading
import time

from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from citeline.api.errors import error_payload


class RateLimiter:
    """A token bucket per user: `burst` requests at once, refilled at `rate` per second."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def acquire(self, user: str) -> float:
        """0 when allowed; else the seconds to wait before the next request is allowed."""
        now = time.monotonic()
        with self._lock:
            tokens, last = self._buckets.get(user, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - last) * self.rate)
            if tokens >= 1.0:
                self._buckets[user] = (tokens - 1.0, now)
                return 0.0
            self._buckets[user] = (tokens, now)
            return (1.0 - tokens) / self.rate


def retry_after(seconds: float) -> str:
    return str(max(1, math.ceil(seconds)))


class RunSlots:
    """At most `limit` agent runs in flight per user. Released by whoever ends the run."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()

    def try_acquire(self, user: str) -> bool:
        with self._lock:
            if self._counts.get(user, 0) >= self.limit:
                return False
            self._counts[user] = self._counts.get(user, 0) + 1
            return True

    def release(self, user: str) -> None:
        with self._lock:
            left = self._counts.get(user, 0) - 1
            if left > 0:
                self._counts[user] = left
            else:
                self._counts.pop(user, None)

    def in_flight(self, user: str | None = None) -> int:
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
        body = json.dumps(error_payload(
            query_id, f"request body is larger than the {self.limit}-byte limit", type="validation_error",
            step="validation", details={"limit_bytes": self.limit},
        )).encode()
        await send({"type": "http.response.start", "status": 413, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
            (b"x-query-id", query_id.encode()), (b"connection", b"close"),
        ]})
        await send({"type": "http.response.body", "body": body})

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
