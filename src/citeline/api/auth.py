"""Who is calling: the bearer API key checked against the users table, with failed attempts
rate-limited per client address. Shared by the HTTP service and `citeline mcp --http`, so both
doors of the same data ask for the same keys."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from citeline.api.errors import ApiError, error_payload, send_error
from citeline.api.limits import FailedAuthLimiter, RateLimiter, retry_after
from citeline.api.users import User, UserRegistry
from citeline.config import ServiceSettings
from citeline.index.store import Store

OWNER_STATE_KEY = "citeline_owner"
_CHALLENGE = {"WWW-Authenticate": "Bearer"}


def client_address(scope: Scope) -> str:
    """The peer's address (behind a proxy, what the ASGI server was told to trust)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


async def authenticate(users: UserRegistry, failures: FailedAuthLimiter, address: str,
                       authorization: str | None) -> User:
    """The user whose key is in the `Authorization` header; ApiError 401 (missing or unknown
    key, counted against the address) or 429 (the address failed too often lately)."""
    wait = failures.blocked_for(address)
    if wait > 0:
        raise ApiError(429, f"too many failed authentications from your address (at most {failures.limit} "
                       f"per {failures.window_s:g} s); retry after the Retry-After delay with a valid key",
                       headers={"Retry-After": retry_after(wait)})
    scheme, _, key = (authorization or "").strip().partition(" ")
    if scheme.lower() != "bearer" or not key.strip():
        failures.record_failure(address)
        raise ApiError(401, "missing API key: send `Authorization: Bearer <key>`", headers=_CHALLENGE)
    found = await run_in_threadpool(users.authenticate, key.strip())
    if found is None:
        failures.record_failure(address)
        raise ApiError(401, "unknown API key", headers=_CHALLENGE)
    return found


class KeyGuard:
    """ASGI middleware for apps other than the FastAPI service (the MCP HTTP transport): every
    HTTP request needs a valid key; the user's id is put in the request state for the handlers
    (`owner`). Per-user request rate limits apply as in the service."""

    def __init__(self, users: UserRegistry, api: ServiceSettings) -> None:
        self.users = users
        self.failures = FailedAuthLimiter(api.auth_failures_per_minute)
        self.rate = RateLimiter(api.rate_per_s, api.rate_burst)

    @classmethod
    def for_store(cls, store: Store, api: ServiceSettings) -> KeyGuard:
        """A guard over the users kept in `store`, with the failure and rate limits of `api`."""
        return cls(UserRegistry(store), api)

    def wrap(self, app: ASGIApp) -> ASGIApp:
        """`app` behind the guard: unauthenticated or over-rate HTTP requests get the standard error
        body and never reach it."""
        async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
            """Authenticate and rate-limit one HTTP request, then pass it on with the user's id as
            `owner`."""
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            try:
                user = await authenticate(self.users, self.failures, client_address(scope),
                                          HTTPConnection(scope).headers.get("authorization"))
                wait = self.rate.acquire(user.id)
                if wait > 0:
                    raise ApiError(429, "rate limit exceeded; retry after the Retry-After delay",
                                   headers={"Retry-After": retry_after(wait)})
            except ApiError as exc:
                await _send_error(send, exc)
                return
            scope.setdefault("state", {})[OWNER_STATE_KEY] = user.id
            await app(scope, receive, send)

        return guarded

    @staticmethod
    def owner(request: Any) -> str | None:
        """The authenticated user id of a request that went through `wrap`, else None."""
        state = getattr(request, "scope", {}).get("state") or {}
        owner = state.get(OWNER_STATE_KEY)
        return str(owner) if owner else None


async def _send_error(send: Send, exc: ApiError) -> None:
    await send_error(send, exc.status, error_payload("", exc.message, type=exc.type, step=exc.step),
                     [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in exc.headers.items()])
