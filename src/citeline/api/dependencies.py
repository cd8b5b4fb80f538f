"""What route functions receive through `Depends`: the app's service, the authenticated caller and
the request's query id. Routers import these instead of closing over `create_app`'s locals."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from citeline.api.auth import authenticate, client_address
from citeline.api.service import Service
from citeline.api.users import User

_bearer = HTTPBearer(auto_error=False, description="An API key from `citeline users add NAME`.")


def get_service(request: Request) -> Service:
    """The service of the app serving the request (`create_app` puts it on `app.state`)."""
    svc: Service = request.app.state.service
    return svc


ServiceDep = Annotated[Service, Depends(get_service)]


async def current_user(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    svc: ServiceDep,
) -> User:
    """The caller: from the bearer key, or the local user under `--no-auth`; then the rate limit."""
    if not svc.api.auth:
        user = svc.local_user()
    else:  # failed attempts are counted per client address (429 when there are too many)
        user = await authenticate(svc.users, svc.auth_failures, client_address(request.scope),
                                  request.headers.get("authorization"))
    request.state.user = user.id
    svc.check_rate(user)
    return user


CurrentUser = Annotated[User, Depends(current_user)]


def query_id(request: Request) -> str:
    """The request's query id (from `X-Query-Id`, or made up by `RequestContextMiddleware`)."""
    return str(request.state.query_id)


QueryId = Annotated[str, Depends(query_id)]
