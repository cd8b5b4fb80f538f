"""The outermost middleware of the service: a query id for every request, its metrics and log
line, and a plain 500 for anything that escaped the handlers."""

from __future__ import annotations

import logging
import re
import time
import uuid

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from citeline.api.errors import error_payload, send_error
from citeline.api.service import Service, query_id_var

log = logging.getLogger("citeline.api")
_QUERY_ID = re.compile(r"^[A-Za-z0-9_-]{8,64}$")


class RequestContextMiddleware:
    """Gives every request a query id (`X-Query-Id`, in logs), counts and times it."""

    def __init__(self, app: ASGIApp, service: Service) -> None:
        self.app = app
        self.service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        incoming = dict(scope.get("headers", [])).get(b"x-query-id", b"").decode("latin-1")
        query_id = incoming if _QUERY_ID.match(incoming) else uuid.uuid4().hex
        scope.setdefault("state", {})["query_id"] = query_id
        token = query_id_var.set(query_id)
        started = time.perf_counter()
        status, started_response = 500, False

        async def send_with_id(message: Message) -> None:
            nonlocal status, started_response
            if message["type"] == "http.response.start":
                status, started_response = int(message["status"]), True
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"x-query-id"]
                message["headers"] = [*headers, (b"x-query-id", query_id.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception:  # anything unhandled: logged in full, answered without internals
            log.exception("unhandled error")
            if not started_response:
                await send_error(send_with_id, 500, error_payload(
                    query_id, "internal error; the server log has the details under this query_id"))
        finally:
            route = scope.get("route")
            path = getattr(route, "path", "unmatched")
            elapsed = time.perf_counter() - started
            metrics = self.service.metrics
            metrics.requests.labels(scope.get("method", ""), path, str(status)).inc()
            metrics.duration.labels(scope.get("method", ""), path).observe(elapsed)
            log.info("%s %s %d %.1f ms user=%s", scope.get("method"), scope.get("path"), status, elapsed * 1000,
                     scope["state"].get("user", "-"))
            query_id_var.reset(token)
