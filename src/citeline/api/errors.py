"""The one error body every endpoint returns, and the exception handlers that produce it, so a
client handles every failure with one parser.

Every error leaves the service as `{"error": {type, message, details, timestamp, query_id, step}}`
with no stack trace, file path or SQL in it; the full exception goes to the log under the same
`query_id`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Literal

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match
from starlette.types import Send

from citeline.errors import CitelineError, IngestError, StorageError

log = logging.getLogger("citeline.api")

ErrorType = Literal["retrieval_error", "reasoning_error", "api_error", "validation_error"]


class ErrorDetail(BaseModel):
    """What went wrong, in words safe to show a user, and where: the step that failed and the
    `query_id` that finds the full exception in the server log."""

    type: ErrorType
    message: str = Field(description="Human-readable; safe to show to users.")
    details: dict[str, Any] = Field(default_factory=dict)
    timestamp: str = Field(description="ISO 8601, UTC.")
    query_id: str = Field(description="Also in the `X-Query-Id` header and in the server log.")
    step: str = Field(description="validation | retrieval | reasoning | response | request")


class ErrorBody(BaseModel):
    """The error body of every endpoint: `{"error": {...}}`."""

    error: ErrorDetail


class ApiError(Exception):
    """Raised by handlers; rendered as the standard error body (`ErrorBody`)."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        type: ErrorType = "api_error",
        step: str = "request",
        details: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type: ErrorType = type
        self.step = step
        self.details = details or {}
        self.headers = headers or {}


def not_found(what: str) -> ApiError:
    """The one 404 for missing and foreign ids alike (the id is not echoed back)."""
    return ApiError(404, f"{what} not found", step="request")


def now_iso() -> str:
    """The current UTC time as ISO 8601 with milliseconds and `Z`, the error body's timestamp format."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def query_id_of(request: Request) -> str:
    """The query id the request was given on arrival (empty if it failed before that)."""
    return str(getattr(request.state, "query_id", "") or "")


def error_payload(
    query_id: str, message: str, *, type: ErrorType = "api_error", step: str = "request",
    details: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The standard error body as JSON-ready data (for SSE streams and middleware, which cannot return
    a response object)."""
    return ErrorBody(
        error=ErrorDetail(type=type, message=message, details=details or {}, timestamp=now_iso(),
                          query_id=query_id, step=step)
    ).model_dump(mode="json")


async def send_error(send: Send, status: int, payload: dict[str, Any],
                     headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
    """Answer an ASGI request with a JSON error body (`error_payload`) from middleware, which
    has no response object to return."""
    body = json.dumps(payload).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *headers]})
    await send({"type": "http.response.body", "body": body})


def error_response(
    request: Request, status: int, message: str, *, type: ErrorType = "api_error", step: str = "request",
    details: dict[str, Any] | None = None, headers: dict[str, str] | None = None,
) -> JSONResponse:
    """The standard error body as a response, with the query id also in the `X-Query-Id` header."""
    query_id = query_id_of(request)
    return JSONResponse(
        error_payload(query_id, message, type=type, step=step, details=details),
        status_code=status, headers={**(headers or {}), "X-Query-Id": query_id},
    )


_STATUS_MESSAGES = {
    400: "the request body could not be parsed", 401: "authentication required", 403: "forbidden", 404: "not found",
    405: "method not allowed", 406: "not acceptable", 409: "conflict", 413: "request body too large",
    415: "unsupported media type", 422: "invalid request", 429: "too many requests",
}


_GENERIC = {
    "retrieval_error": "the document store is unavailable; try again",
    "reasoning_error": "the model provider failed; try again",
    "validation_error": "the server configuration rejected this request",
}


def _validation_details(exc: RequestValidationError) -> dict[str, Any]:
    problems = []
    for item in exc.errors()[:20]:
        problems.append({"loc": [str(part) for part in item.get("loc", ())], "msg": str(item.get("msg", "")),
                         "type": str(item.get("type", ""))})
    return {"errors": problems}


def _allowed_methods(request: Request) -> list[str]:
    methods: set[str] = set()
    for route in request.app.routes:
        match, _ = route.matches({**request.scope, "method": "GET"})
        if match != Match.NONE:
            methods |= set(getattr(route, "methods", None) or ())
    if "GET" in methods:
        methods.add("HEAD")
    return sorted(methods)


def install_handlers(app: FastAPI) -> None:
    """Make every exception leave `app` as the standard error body: no stack trace, path or SQL in it,
    the full exception in the log."""
    async def on_api_error(request: Request, exc: Exception) -> JSONResponse:
        """A deliberate error of a handler: its own status, message and headers."""
        assert isinstance(exc, ApiError)
        return error_response(request, exc.status, exc.message, type=exc.type, step=exc.step,
                              details=exc.details, headers=exc.headers)

    async def on_validation(request: Request, exc: Exception) -> JSONResponse:
        """A request that does not match its schema: 422, naming the first field at fault."""
        assert isinstance(exc, RequestValidationError)
        details = _validation_details(exc)
        first = details["errors"][0] if details["errors"] else {"loc": [], "msg": "invalid request"}
        loc = list(first["loc"])
        where = ".".join(loc[1:] if loc and loc[0] in {"body", "query", "path", "header", "cookie"} else loc)
        message = f"invalid request: {where + ': ' if where else ''}{first['msg']}"
        return error_response(request, 422, message, type="validation_error", step="validation", details=details)

    async def on_http(request: Request, exc: Exception) -> JSONResponse:
        """Starlette's own errors (404, 405, 413, ...) in the standard body."""
        assert isinstance(exc, StarletteHTTPException)
        message = _STATUS_MESSAGES.get(exc.status_code, "request failed")
        if exc.status_code >= 500:
            message = "internal error"
        elif exc.status_code == 413 and isinstance(exc.detail, str):
            message = exc.detail
        error_type: ErrorType = "validation_error" if exc.status_code in {400, 413, 415, 422} else "api_error"
        step = "validation" if error_type == "validation_error" else "request"
        headers = dict(exc.headers or {})
        if exc.status_code == 405:  # Starlette names only the first route's methods; list them all
            headers["Allow"] = ", ".join(_allowed_methods(request))
        return error_response(request, exc.status_code, message, type=error_type, step=step, headers=headers)

    async def on_citeline(request: Request, exc: Exception) -> JSONResponse:
        """A library error: a status by kind (507 for full storage) and a message without server
        internals."""
        assert isinstance(exc, CitelineError)
        log.warning("request failed: %r", exc)
        if isinstance(exc, StorageError):  # disk full: say so, without the server's paths
            return error_response(request, 507, "the server's storage is full or failing: nothing was changed; "
                                  "try again later", type="retrieval_error", step="retrieval")
        status = 503 if exc.error_type == "retrieval_error" else 422 if exc.error_type == "validation_error" else 502
        step = {"retrieval_error": "retrieval", "reasoning_error": "reasoning"}.get(exc.error_type, "request")
        # Library messages may name files on the server: only ingest errors (file names) pass through.
        message = exc.message if isinstance(exc, IngestError) else _GENERIC.get(exc.error_type, "request failed")
        return error_response(request, status, message, type=exc.error_type, step=step)  # type: ignore[arg-type]

    async def on_unexpected(request: Request, exc: Exception) -> JSONResponse:
        """A bug: 500 with a generic message; the traceback goes to the log under the query id."""
        log.exception("unhandled error")
        return error_response(request, 500, "internal error; the server log has the details under this query_id")

    app.add_exception_handler(ApiError, on_api_error)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
    app.add_exception_handler(CitelineError, on_citeline)
    app.add_exception_handler(Exception, on_unexpected)
