"""`/v1/sessions`: conversations whose turns are recorded and whose history the agent uses."""

from __future__ import annotations

from fastapi import APIRouter, Response
from starlette.concurrency import run_in_threadpool

from citeline.api import models as m
from citeline.api import presenters
from citeline.api.dependencies import CurrentUser, ServiceDep
from citeline.api.errors import ErrorBody
from citeline.api.openapi import COMMON_ERRORS, NOT_FOUND, STORE_ERRORS
from citeline.api.service import sessions

router = APIRouter(prefix="/v1", responses=COMMON_ERRORS, tags=["sessions"])


@router.post("/sessions", response_model=m.SessionModel, status_code=201,
             responses={409: {"model": ErrorBody, "description": "You already have a session with this id."}})
async def create_session(user: CurrentUser, svc: ServiceDep, body: m.SessionCreate | None = None) -> m.SessionModel:
    """Start a session; its id is generated unless given."""
    body = body or m.SessionCreate()
    state = await run_in_threadpool(
        sessions.create_session, svc, user.id, body.sessionId, context_window=body.contextWindowSize,
        metadata=body.metadata, initial_context=body.initialContext,
    )
    return presenters.session_model(state)


@router.get("/sessions/{session_id}", response_model=m.SessionModel, responses=NOT_FOUND)
async def get_session(session_id: str, user: CurrentUser, svc: ServiceDep) -> m.SessionModel:
    """One of your sessions, with its messages."""
    state = await run_in_threadpool(svc.session_of, user.id, session_id)
    return presenters.session_model(state)


@router.delete("/sessions/{session_id}", status_code=204, responses=NOT_FOUND)
async def delete_session(session_id: str, user: CurrentUser, svc: ServiceDep) -> Response:
    """Delete one of your sessions."""
    await run_in_threadpool(sessions.delete_session, svc, user.id, session_id)
    return Response(status_code=204)


@router.get("/sessions", response_model=m.SessionList, responses=STORE_ERRORS)
async def list_sessions(user: CurrentUser, svc: ServiceDep) -> m.SessionList:
    """Your sessions, most recently active first."""
    states = await run_in_threadpool(sessions.list_sessions, svc, user.id)
    return presenters.session_list(states)


@router.patch("/sessions/{session_id}", response_model=m.SessionSummary, responses=STORE_ERRORS)
async def rename_session(session_id: str, body: m.SessionUpdate, user: CurrentUser,
                         svc: ServiceDep) -> m.SessionSummary:
    """Rename a session (its `title`)."""
    state = await run_in_threadpool(sessions.rename_session, svc, user.id, session_id, body.title)
    return presenters.session_summary(state)
