"""`/v1/runs`: the runs log over HTTP. A user sees their own runs only; an admin user
(`citeline users add NAME --admin`) sees everyone's. Another user's run is the same 404 as a
missing one."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from citeline.api.dependencies import CurrentUser, ServiceDep
from citeline.api.errors import ApiError
from citeline.api.openapi import NOT_FOUND
from citeline.api.service import runs_log

router = APIRouter(prefix="/v1/runs", tags=["runs"])


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
    runs: list[RunSummaryModel]


class RunRecords(BaseModel):
    """Every record of one run (start, context, exchanges, end), as in the runs log."""

    run_id: str
    records: list[dict[str, Any]]


def run_filters(
    request: Request,
    owner: Annotated[str, Query(description="Admins: runs of this owner id.")] = "",
    session_id: Annotated[str, Query(description="Runs of this session.")] = "",
    exit_reason: Annotated[str, Query(description="e.g. COMPLETED")] = "",
    status: Annotated[str, Query(description="complete | incomplete | failed")] = "",
    via: Annotated[str, Query(description="cli | http | sse | openai | mcp | library | replay")] = "",
    since: Annotated[str, Query(description="YYYY-MM-DD or ISO 8601 time, UTC")] = "",
    until: Annotated[str, Query(description="YYYY-MM-DD or ISO 8601 time, UTC")] = "",
) -> dict[str, Any]:
    """The filter parameters (empty = any); 422 for an unknown or repeated one."""
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


RunFilters = Annotated[dict[str, Any], Depends(run_filters)]


@router.get("", response_model=RunList)
async def list_runs(user: CurrentUser, chosen: RunFilters, svc: ServiceDep,
                    limit: Annotated[int, Query(ge=1, le=1000)] = 50) -> RunList:
    """Your recorded runs, newest first (an admin's: everyone's, or `owner`'s)."""
    runs = runs_log.runs_log(svc)
    found = await run_in_threadpool(runs_log.list_runs, runs, runs_log.run_filter(user, **chosen), limit=limit)
    return RunList(runs=[RunSummaryModel(**run.to_dict()) for run in found])


@router.get("/export", responses={200: {"content": {"application/x-ndjson": {}},
                                        "description": "Every record of the matching runs, one per line."}})
async def export_runs(user: CurrentUser, chosen: RunFilters, svc: ServiceDep) -> StreamingResponse:
    """Your runs' records as JSON Lines (an admin's: everyone's, or `owner`'s)."""
    runs = runs_log.runs_log(svc)
    records = await run_in_threadpool(runs_log.export_records, svc, runs, user, runs_log.run_filter(user, **chosen))

    def lines() -> Iterator[str]:
        for record in records:
            yield json.dumps(record, ensure_ascii=False, default=str) + "\n"

    return StreamingResponse(lines(), media_type="application/x-ndjson")


@router.get("/{run_id}", response_model=RunRecords, responses=NOT_FOUND)
async def get_run(run_id: str, user: CurrentUser, svc: ServiceDep) -> RunRecords:
    """Every record of one of your runs: the question, each model and tool exchange, the result."""
    runs = runs_log.runs_log(svc)
    found_id, records = await run_in_threadpool(runs_log.run_records, svc, runs, user, run_id)
    return RunRecords(run_id=found_id, records=records)
