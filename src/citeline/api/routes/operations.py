"""`/healthz`, `/readyz` and `/metrics`: what operators and load balancers ask (no API key)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse
from starlette.concurrency import run_in_threadpool

from citeline.api import models as m
from citeline.api.dependencies import ServiceDep
from citeline.api.errors import ErrorBody
from citeline.api.service import health

router = APIRouter(tags=["operations"])


@router.get("/healthz", response_model=m.Health)
async def healthz() -> m.Health:
    """The process is up."""
    return m.Health(status="ok")


@router.get("/readyz", response_model=m.Health,
            responses={503: {"model": ErrorBody, "description": "Not ready; `details.checks` says why."}})
async def readyz(svc: ServiceDep) -> m.Health:
    """The store answers and the embedder and the default model load."""
    checks = await run_in_threadpool(health.readiness, svc)
    return m.Health(status="ready", checks=checks)


@router.get("/metrics", response_class=PlainTextResponse,
            responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}}}})
async def metrics(svc: ServiceDep) -> PlainTextResponse:
    """Prometheus metrics: requests, durations, exit reasons, tokens, cache hits."""
    return PlainTextResponse(svc.metrics.render(), media_type="text/plain; version=0.0.4; charset=utf-8")
