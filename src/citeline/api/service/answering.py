"""Answering a request: check and start an agent run, await it or follow its events, and the
OpenAI-compatible chat turn. Routes frame what these return (JSON, server-sent events)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass

from starlette.concurrency import run_in_threadpool

from citeline.agent.events import Event
from citeline.agent.result import AgentResult
from citeline.api import models as m
from citeline.api.errors import ApiError, error_payload
from citeline.api.service.core import RunHandle, Service
from citeline.api.users import User

log = logging.getLogger("citeline.api")

Disconnected = Callable[[], Awaitable[bool]]


async def start_run(svc: Service, user: User, question: str, *, model: str | None, session_id: str | None,
                    query_id: str, via: str, history: list[dict[str, str]] | None = None,
                    on_event: Callable[[Event], None] | None = None) -> RunHandle:
    """Check everything that can fail before a run (in a worker thread: it may load a model),
    then start it; `via` names the surface in the runs log (http, sse, openai)."""
    plan = await run_in_threadpool(svc.plan_run, user, question, model=model, session_id=session_id,
                                   query_id=query_id, history=history)
    plan.via = via
    return svc.start(plan, on_event)


async def answer(svc: Service, user: User, question: str, *, model: str | None, session_id: str | None,
                 query_id: str, trace: bool, disconnected: Disconnected) -> AgentResult:
    """Run the agent to its end (cancelled when `disconnected()` turns true) and return the result
    as the caller may see it."""
    handle = await start_run(svc, user, question, model=model, session_id=session_id, query_id=query_id,
                             via="http")
    result = await svc.run_to_end(handle, disconnected)
    return svc.present_result(result, user.id, trace=trace)


async def stream_run(svc: Service, user: User, question: str, *, model: str | None, session_id: str | None,
                     query_id: str, trace: bool) -> AsyncGenerator[Event, None]:
    """Start a run and return its events as they come, presented for the caller.

    Every check happens before this returns, so a bad request fails before a stream opens. The
    events end with `final`; if the run crashed, with a `final` carrying an error body. Closing
    the generator (a client that went away) cancels the run, which then ends `CANCELLED`.
    """
    queue: asyncio.Queue[Event | None] = asyncio.Queue()
    loop = asyncio.get_running_loop()

    def sink(event: Event) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, event)

    handle = await start_run(svc, user, question, model=model, session_id=session_id, query_id=query_id,
                             via="sse", on_event=sink)
    handle.future.add_done_callback(lambda _: queue.put_nowait(None))
    return _presented_events(svc, user, handle, queue, trace=trace, query_id=query_id)


async def _presented_events(svc: Service, user: User, handle: RunHandle, queue: asyncio.Queue[Event | None], *,
                            trace: bool, query_id: str) -> AsyncGenerator[Event, None]:
    last_seq = 0
    try:
        while True:
            event = await queue.get()
            if event is None:  # the run crashed before `final`
                if not handle.future.cancelled() and handle.future.exception() is not None:
                    log.error("run crashed", exc_info=handle.future.exception())
                payload = error_payload(query_id, "internal error; the server log has the details",
                                        step="reasoning")
                yield Event(type="final", seq=last_seq + 1, query_id=query_id, data=payload)
                return
            last_seq = event.seq
            data = svc.present_data(user.id, event.data)
            if event.type == "final" and not trace:
                data["result"] = {**data["result"], "trace": []}
            event = event.model_copy(update={"data": data})
            yield event
            if event.type == "final":
                return
    finally:
        handle.stop.set()  # a client that went away cancels the run (exit CANCELLED)


def chat_history(body: m.ChatRequest) -> tuple[str, list[dict[str, str]]]:
    """The question (the last message, which must be the user's) and the conversation before it."""
    last = body.messages[-1]
    if last.role != "user":
        raise ApiError(422, "the last message must have role `user` (it is the question)",
                       type="validation_error", step="validation")
    history = [{"role": msg.role, "content": msg.text()} for msg in body.messages[:-1]
               if msg.role in {"user", "assistant"} and msg.text().strip()]
    return last.text(), history


async def start_chat(svc: Service, user: User, body: m.ChatRequest, *, query_id: str) -> RunHandle:
    """Check and start the run of an OpenAI-compatible chat request."""
    question, history = chat_history(body)
    return await start_run(svc, user, question, model=body.model, session_id=None, query_id=query_id,
                           via="openai", history=history)


async def chat_result(svc: Service, user: User, handle: RunHandle, disconnected: Disconnected) -> AgentResult:
    """The result of a chat run awaited to its end, as the caller may see it (no trace)."""
    result = await svc.run_to_end(handle, disconnected)
    return svc.present_result(result, user.id, trace=False)


async def streamed_chat_result(svc: Service, user: User, handle: RunHandle) -> AgentResult:
    """The result of a streamed chat run (no trace). The wait is shielded: a stream being torn down
    stops the run through `handle.stop`, never by cancelling its future."""
    return svc.present_result(await asyncio.shield(handle.future), user.id, trace=False)


@dataclass(frozen=True)
class AvailableModels:
    """The model ids a client may choose and when the index was created (the cards' `created`)."""

    ids: list[str]
    created: int


def available_models(svc: Service) -> AvailableModels:
    """The models of `GET /v1/models`."""
    created = int(svc.home.stat().st_mtime) if svc.home.exists() else 0
    return AvailableModels(ids=svc.model_ids(), created=created)
