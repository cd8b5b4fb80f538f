"""The OpenAI-compatible endpoints: `/v1/models` and `/v1/chat/completions` (whole or streamed)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Request
from sse_starlette import EventSourceResponse

from citeline.api import models as m
from citeline.api import presenters
from citeline.api.dependencies import CurrentUser, QueryId, ServiceDep
from citeline.api.openapi import COMMON_ERRORS, SSE_CHAT_CHUNK
from citeline.api.service import answering

router = APIRouter(prefix="/v1", responses=COMMON_ERRORS, tags=["openai"])


@router.get("/models", response_model=m.ModelList)
async def list_models(user: CurrentUser, svc: ServiceDep) -> m.ModelList:
    """The models a request may name in `model`; `citeline` is the server's default."""
    return presenters.model_list(answering.available_models(svc))


@router.post(
    "/chat/completions", response_model=m.ChatCompletion,
    responses={200: {"description": "A chat.completion, or with `stream: true` server-sent "
                                    "chat.completion.chunk objects ending in `data: [DONE]`.",
                     "content": {"text/event-stream": {"itemSchema": SSE_CHAT_CHUNK}}}},
)
async def chat_completions(body: m.ChatRequest, request: Request, user: CurrentUser, svc: ServiceDep,
                           query_id: QueryId) -> Any:
    """OpenAI-compatible: the last user message is the question, earlier messages the history.
    Citations are appended to the content as a "Sources" section and returned in `citations`."""
    handle = await answering.start_chat(svc, user, body, query_id=query_id)
    model_name = body.model
    if not body.stream:
        result = await answering.chat_result(svc, user, handle, request.is_disconnected)
        return presenters.completion(result, model_name, body)

    async def chunks() -> AsyncIterator[str]:
        try:
            base = presenters.chunk_base(handle.plan.query_id, model_name)
            yield presenters.chat_chunk(base, {"role": "assistant", "content": ""})
            result = await answering.streamed_chat_result(svc, user, handle)
            for chunk in presenters.completion_chunks(base, result, body):
                yield chunk
        finally:
            handle.stop.set()

    return EventSourceResponse(chunks(), ping=svc.api.heartbeat_s, send_timeout=30)
