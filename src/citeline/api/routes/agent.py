"""`/v1/agent/run` and `/v1/agent/stream`: answer a question, whole or as server-sent events."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing

from fastapi import APIRouter, Request
from sse_starlette import EventSourceResponse, ServerSentEvent

from citeline.agent.result import AgentResult
from citeline.api import models as m
from citeline.api.dependencies import CurrentUser, QueryId, ServiceDep
from citeline.api.openapi import COMMON_ERRORS, NOT_FOUND, SSE_AGENT_EVENT
from citeline.api.service import answering

router = APIRouter(prefix="/v1", responses=COMMON_ERRORS, tags=["agent"])


@router.post("/agent/run", response_model=AgentResult, responses=NOT_FOUND)
async def agent_run(body: m.RunRequest, request: Request, user: CurrentUser, svc: ServiceDep,
                    query_id: QueryId) -> AgentResult:
    """Answer a question; the body is the AgentResult: the answer, its verified citations and the exit reason."""
    return await answering.answer(svc, user, body.question, model=body.model, session_id=body.session_id,
                                  query_id=query_id, trace=body.return_trace, disconnected=request.is_disconnected)


@router.post(
    "/agent/stream",
    responses={**NOT_FOUND, 200: {
        "description": "Server-sent events `run_start` ... `final` (`event:` is the type, `data:` the "
        "Event JSON); `final` is always last and carries the AgentResult. A `: ping` comment is sent "
        "every 15 s. Closing the connection cancels the run.",
        "content": {"text/event-stream": {"itemSchema": SSE_AGENT_EVENT}},
    }},
)
async def agent_stream(body: m.RunRequest, user: CurrentUser, svc: ServiceDep,
                       query_id: QueryId) -> EventSourceResponse:
    """Stream the run's events; validation errors are plain 4xx responses before the stream opens."""
    events = await answering.stream_run(svc, user, body.question, model=body.model, session_id=body.session_id,
                                        query_id=query_id, trace=body.return_trace)

    async def sse() -> AsyncIterator[ServerSentEvent]:
        async with aclosing(events):  # closing the stream (the client went away) cancels the run
            async for event in events:
                yield ServerSentEvent(data=event.model_dump_json(), event=event.type, id=str(event.seq))

    return EventSourceResponse(sse(), ping=svc.api.heartbeat_s, send_timeout=30)
