"""The FastAPI application: the service, its middleware and error handlers, and the routers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from citeline.api.errors import install_handlers
from citeline.api.limits import BodyLimitMiddleware, UnicodeGuardMiddleware
from citeline.api.openapi import COMMON_ERRORS
from citeline.api.request_context import RequestContextMiddleware
from citeline.api.routes import agent, documents, openai_compatible, operations, runs, search, sessions, web
from citeline.api.service import Service
from citeline.app import Citeline
from citeline.config import ServiceSettings
from citeline.version import version


def create_app(citeline: Citeline | None = None, api: ServiceSettings | None = None, *,
               service: Service | None = None) -> FastAPI:
    """The service. `citeline` defaults to one built from the environment; `api` to its `service` settings."""
    owns_citeline = citeline is None and service is None
    owns_service = service is None
    if service is None:
        service = Service(citeline or Citeline(), api)
    svc = service

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        svc.cancel_runs()
        if owns_service:  # a service passed in belongs to the caller, who may serve it again
            svc.shutdown()
        if owns_citeline:
            svc.citeline.close()

    app = FastAPI(
        title="citeline", version=version(), lifespan=lifespan,
        description="Answers questions from your own documents and proves every citation. "
        "Authenticate with `Authorization: Bearer <key>` (`citeline users add NAME`). Every response "
        "carries `X-Query-Id`; errors are `{\"error\": {type, message, details, timestamp, query_id, step}}`.",
    )
    app.state.service = svc  # what `citeline.api.dependencies.get_service` hands to the routes
    install_handlers(app)
    app.add_middleware(UnicodeGuardMiddleware)
    app.add_middleware(BodyLimitMiddleware, limit=svc.api.max_body_bytes)
    app.add_middleware(RequestContextMiddleware, service=svc)

    for resource in (agent, search, documents, sessions, openai_compatible):
        app.include_router(resource.router)
    app.include_router(runs.router, responses=COMMON_ERRORS)
    app.include_router(web.router)
    app.include_router(operations.router)
    return app


__all__ = ["create_app"]
