"""`/v1/runs`: the runs log over HTTP. A user sees their own runs only; an admin user
(`citeline users add NAME --admin`) sees everyone's. Another user's run is the same 404 as a
missing one."""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine, Iterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

from citeline.api.errors import ApiError, ErrorBody, not_found
from citeline.api.service import Service
from citeline.api.users import User
from citeline.runs import RunFilter, RunLog
from citeline.runs.log import parse_when

UserDependency = Callable[..., Coroutine[Any, Any, User]]


class RunSummaryModel(BaseModel):
    """One recorded run: who asked what, through which surface, and how it ended."""

    run_id: str
    query_id: str
    started_at: str
    ended_at: str | None = None
    status: str = Field(description="complete | failed | incomplete (cut off, or still running)")
    via: str = Field(description="cli | http | sse | openai | mcp | library | replay")
    owner: str
    session_id: str | None = None
    model: str
    question: str
    exit_reason: str | None = None
    total_ms: float | None = None
    usage: dict[str, int] = Field(default_factory=dict)
    cached: bool = False
    steps: int = Field(description="Recorded exchanges: model decisions, tool calls, searches, ...")
    settings_fingerprint: str
    corpus_version: int | None = None
    error: str | None = None


class RunList(BaseModel):
    """The caller's recorded runs, newest first."""

    runs: list[RunSummaryModel]


class RunRecords(BaseModel):
    """Every record of one run (start, context, exchanges, end), as in the runs log."""

    run_id: str
    records: list[dict[str, Any]]


# Where the server keeps its files and how it reaches its store are the operator's business.
_PRIVATE_SETTINGS = ("home", "store", "plugins")


def _presented(svc: Service, owner: str, record: dict[str, Any]) -> dict[str, Any]:
    """A record as a user sees it: document sources as file names, no server paths or store URL."""
    shown = dict(svc.present_data(owner, record))
    shown.pop("pid", None)
    if isinstance(shown.get("settings"), dict):
        shown["settings"] = {k: v for k, v in shown["settings"].items() if k not in _PRIVATE_SETTINGS}
    return shown


_NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"model": ErrorBody, "description": "Not found (or not yours)."}}


def runs_router(current_user: UserDependency) -> APIRouter:
    """The `/v1/runs` routes, authenticated by the service's `current_user` dependency."""
    router = APIRouter(prefix="/v1/runs", tags=["runs"])
    # Dependencies as default values: the annotations here are strings (PEP 563), which FastAPI
    # resolves from the module's globals only.
    the_user = Depends(current_user)

    def runs_of(request: Request) -> tuple[Service, RunLog]:
        svc: Service = request.app.state.service
        runs = svc.citeline.runs
        if runs is None:
            raise ApiError(404, "the runs log is off on this server (CITELINE_RUNS_LOG=false)")
        return svc, runs

    def where(user: User, owner: str | None, session_id: str | None, exit_reason: str | None, status: str | None,
              via: str | None, since: str | None, until: str | None) -> RunFilter | None:
        """The filter, or None when it can match nothing this user may see."""
        if not user.admin and owner is not None and owner != user.id:
            return None  # another user's runs: an empty list, exactly as for an unknown owner
        try:
            return RunFilter(owner=owner if user.admin else user.id, session_id=session_id,
                             exit_reason=exit_reason, status=status, via=via,
                             since=parse_when(since) if since else None,
                             until=parse_when(until, end_of_day=True) if until else None)
        except ValueError as exc:
            raise ApiError(422, str(exc), type="validation_error", step="validation") from None

    def filters(
        request: Request,
        owner: Annotated[str, Query(description="Admins: runs of this owner id.")] = "",
        session_id: Annotated[str, Query(description="Runs of this session.")] = "",
        exit_reason: Annotated[str, Query(description="e.g. COMPLETED")] = "",
        status: Annotated[str, Query(description="complete | incomplete | failed")] = "",
        via: Annotated[str, Query(description="cli | http | sse | openai | mcp | library | replay")] = "",
        since: Annotated[str, Query(description="YYYY-MM-DD or ISO 8601 time, UTC")] = "",
        until: Annotated[str, Query(description="YYYY-MM-DD or ISO 8601 time, UTC")] = "",
    ) -> dict[str, Any]:
        known = {"owner", "session_id", "exit_reason", "status", "via", "since", "until"}
        known |= set() if request.url.path.endswith("/export") else {"limit"}
        unknown = sorted(set(request.query_params) - known)
        repeated = sorted({key for key in request.query_params if len(request.query_params.getlist(key)) > 1})
        if unknown or repeated:
            problem = f"unknown: {', '.join(unknown)}" if unknown else f"repeated: {', '.join(repeated)}"
            raise ApiError(422, f"query parameters are {', '.join(sorted(known))}, each at most once "
                           f"({problem[:200]})", type="validation_error", step="validation")
        given = {"owner": owner, "session_id": session_id, "exit_reason": exit_reason, "status": status,
                 "via": via, "since": since, "until": until}
        return {key: value or None for key, value in given.items()}  # empty = any

    the_filters = Depends(filters)

    @router.get("", response_model=RunList)
    async def list_runs(request: Request, user: User = the_user, chosen: dict[str, Any] = the_filters,
                        limit: Annotated[int, Query(ge=1, le=1000)] = 50) -> RunList:
        """Your recorded runs, newest first (an admin's: everyone's, or `owner`'s)."""
        _, runs = runs_of(request)
        condition = where(user, **chosen)
        found = [] if condition is None else await run_in_threadpool(runs.summaries, condition, limit=limit)
        return RunList(runs=[RunSummaryModel(**run.to_dict()) for run in found])

    @router.get("/export", responses={200: {"content": {"application/x-ndjson": {}},
                                            "description": "Every record of the matching runs, one per line."}})
    async def export_runs(request: Request, user: User = the_user,
                          chosen: dict[str, Any] = the_filters) -> StreamingResponse:
        """Your runs' records as JSON Lines (an admin's: everyone's, or `owner`'s)."""
        svc, runs = runs_of(request)
        condition = where(user, **chosen)
        records = [] if condition is None else await run_in_threadpool(lambda: list(runs.export(condition)))

        def lines() -> Iterator[str]:
            """The records as JSON lines, produced as the response streams."""
            for record in records:
                yield json.dumps(_presented(svc, user.id, record), ensure_ascii=False, default=str) + "\n"

        return StreamingResponse(lines(), media_type="application/x-ndjson")

    @router.get("/{run_id}", response_model=RunRecords, responses=_NOT_FOUND)
    async def get_run(run_id: str, request: Request, user: User = the_user) -> RunRecords:
        """Every record of one of your runs: the question, each model and tool exchange, the result."""
        svc, runs = runs_of(request)
        try:
            run = await run_in_threadpool(runs.find, run_id)
        except LookupError:
            run = None
        exact = run is not None and run_id in {run.run_id, str((run.start or {}).get("query_id"))}
        if run is None or not exact or (run.owner != user.id and not user.admin):
            raise not_found("run")
        return RunRecords(run_id=run.run_id, records=[_presented(svc, run.owner, r) for r in run.records])

    return router
