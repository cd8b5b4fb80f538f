"""The FastAPI application: routes, authentication, request ids, metrics and SSE streaming."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, File, Query, Request, Response, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import PlainTextResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from citeline.agent.events import Event
from citeline.agent.result import AgentResult
from citeline.api import models as m
from citeline.api import uploads
from citeline.api.auth import authenticate, client_address
from citeline.api.catalog import catalog_router
from citeline.api.completions import complete
from citeline.api.errors import ApiError, ErrorBody, error_payload, install_handlers, not_found
from citeline.api.limits import BodyLimitMiddleware, UnicodeGuardMiddleware
from citeline.api.runs import runs_router
from citeline.api.service import DEFAULT_MODEL_ID, RunHandle, Service, iso, query_id_var
from citeline.api.sessions import SessionState
from citeline.api.users import User
from citeline.api.web import web_router
from citeline.app import Citeline
from citeline.config import ServiceSettings
from citeline.index.store import DocumentRecord, Passage
from citeline.version import version

log = logging.getLogger("citeline.api")
_QUERY_ID = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
_COMMON_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "The body could not be parsed (e.g. not UTF-8)."},
    401: {"model": ErrorBody, "description": "Missing or unknown API key."},
    413: {"model": ErrorBody, "description": "Request body too large."},
    422: {"model": ErrorBody, "description": "Invalid request."},
    429: {"model": ErrorBody, "description": "Rate limit or concurrent-run limit; see Retry-After."},
    500: {"model": ErrorBody, "description": "Internal error (details only in the server log)."},
    503: {"model": ErrorBody, "description": "Store or model unavailable."},
}
_NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"model": ErrorBody, "description": "Not found (or not yours)."}}


# OpenAPI 3.2 `itemSchema`: what each server-sent event of a stream looks like.
_SSE_AGENT_EVENT: dict[str, Any] = {
    "type": "object", "required": ["event", "data"],
    "properties": {
        "event": {"type": "string", "enum": ["run_start", "plan", "tool_start", "tool_end", "token",
                                             "cached_response", "validation", "reprompt", "final"]},
        "data": {"type": "string", "contentMediaType": "application/json",
                 "description": "The Event as JSON: {type, seq, query_id, data, v}."},
        "id": {"type": "string", "description": "The event's seq."},
    },
}
_SSE_CHAT_CHUNK: dict[str, Any] = {
    "type": "object", "required": ["data"],
    "properties": {"data": {"type": "string", "description": "A chat.completion.chunk as JSON, or `[DONE]`."}},
}


class RequestContextMiddleware:
    """Gives every request a query id (`X-Query-Id`, in logs), counts and times it."""

    def __init__(self, app: ASGIApp, service: Service) -> None:
        self.app = app
        self.service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        incoming = dict(scope.get("headers", [])).get(b"x-query-id", b"").decode("latin-1")
        query_id = incoming if _QUERY_ID.match(incoming) else uuid.uuid4().hex
        scope.setdefault("state", {})["query_id"] = query_id
        token = query_id_var.set(query_id)
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"x-query-id"]
                message["headers"] = [*headers, (b"x-query-id", query_id.encode())]
            await send(message)

        started_response = False

        async def send_tracked(message: Message) -> None:
            nonlocal started_response
            if message["type"] == "http.response.start":
                started_response = True
            await send_with_id(message)

        try:
            await self.app(scope, receive, send_tracked)
        except Exception:  # anything unhandled: logged in full, answered without internals
            log.exception("unhandled error")
            if not started_response:
                body = json.dumps(error_payload(
                    query_id, "internal error; the server log has the details under this query_id")).encode()
                await send_with_id({"type": "http.response.start", "status": 500, "headers": [
                    (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
                await send_with_id({"type": "http.response.body", "body": body})
        finally:
            route = scope.get("route")
            path = getattr(route, "path", "unmatched")
            elapsed = time.perf_counter() - started
            metrics = self.service.metrics
            metrics.requests.labels(scope.get("method", ""), path, str(status)).inc()
            metrics.duration.labels(scope.get("method", ""), path).observe(elapsed)
            log.info("%s %s %d %.1f ms user=%s", scope.get("method"), scope.get("path"), status, elapsed * 1000,
                     scope["state"].get("user", "-"))
            query_id_var.reset(token)


_bearer = HTTPBearer(auto_error=False, description="An API key from `citeline users add NAME`.")


async def current_user(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> User:
    """The caller: from the bearer key, or the local user under `--no-auth`; then the rate limit."""
    svc: Service = request.app.state.service
    if not svc.api.auth:
        user = svc.local_user()
    else:  # failed attempts are counted per client address (429 when there are too many)
        user = await authenticate(svc.users, svc.auth_failures, client_address(request.scope),
                                  request.headers.get("authorization"))
    request.state.user = user.id
    svc.check_rate(user)
    return user


CurrentUser = Annotated[User, Depends(current_user)]


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
        "carries `X-Query-Id`; errors use the seed-003 format `{\"error\": {...}}`.",
    )
    app.state.service = svc
    install_handlers(app)
    app.add_middleware(UnicodeGuardMiddleware)
    app.add_middleware(BodyLimitMiddleware, limit=svc.api.max_body_bytes)
    app.add_middleware(RequestContextMiddleware, service=svc)

    def qid(request: Request) -> str:
        return str(request.state.query_id)

    v1 = APIRouter(prefix="/v1", responses=_COMMON_ERRORS)

    # --- agent --------------------------------------------------------------------------
    async def start_run(request: Request, user: User, body: m.RunRequest,
                        on_event: Callable[[Event], None] | None = None) -> RunHandle:
        plan = await run_in_threadpool(svc.plan_run, user, body.question, model=body.model,
                                       session_id=body.session_id, query_id=qid(request))
        plan.via = "sse" if on_event is not None else "http"
        return svc.start(plan, on_event)

    @v1.post("/agent/run", response_model=AgentResult, tags=["agent"], responses=_NOT_FOUND)
    async def agent_run(body: m.RunRequest, request: Request, user: CurrentUser) -> AgentResult:
        """Answer a question; the body is the AgentResult (DESIGN.md §3)."""
        handle = await start_run(request, user, body)
        result = await svc.run_to_end(handle, request.is_disconnected)
        return svc.present_result(result, user.id, trace=body.return_trace)

    @v1.post(
        "/agent/stream", tags=["agent"],
        responses={**_NOT_FOUND, 200: {
            "description": "Server-sent events `run_start` ... `final` (`event:` is the type, `data:` the "
            "Event JSON); `final` is always last and carries the AgentResult. A `: ping` comment is sent "
            "every 15 s. Closing the connection cancels the run.",
            "content": {"text/event-stream": {"itemSchema": _SSE_AGENT_EVENT}},
        }},
    )
    async def agent_stream(body: m.RunRequest, request: Request, user: CurrentUser) -> EventSourceResponse:
        """Stream the run's events; validation errors are plain 4xx responses before the stream opens."""
        queue: asyncio.Queue[Event | None] = asyncio.Queue()
        loop = asyncio.get_running_loop()

        def sink(event: Event) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, event)

        handle = await start_run(request, user, body, sink)
        handle.future.add_done_callback(lambda _: queue.put_nowait(None))

        async def events() -> AsyncIterator[ServerSentEvent]:
            last_seq = 0
            try:
                while True:
                    event = await queue.get()
                    if event is None:  # the run crashed before `final`
                        if not handle.future.cancelled() and handle.future.exception() is not None:
                            log.error("run crashed", exc_info=handle.future.exception())
                        payload = error_payload(qid(request), "internal error; the server log has the details",
                                                step="reasoning")
                        crash = Event(type="final", seq=last_seq + 1, query_id=qid(request), data=payload)
                        yield ServerSentEvent(data=crash.model_dump_json(), event="final", id=str(crash.seq))
                        return
                    last_seq = event.seq
                    data = svc.present_data(user.id, event.data)
                    if event.type == "final" and not body.return_trace:
                        data["result"] = {**data["result"], "trace": []}
                    event = event.model_copy(update={"data": data})
                    yield ServerSentEvent(data=event.model_dump_json(), event=event.type, id=str(event.seq))
                    if event.type == "final":
                        return
            finally:
                handle.stop.set()  # a client that went away cancels the run (exit CANCELLED)

        return EventSourceResponse(events(), ping=svc.api.heartbeat_s, send_timeout=30)

    # --- search -------------------------------------------------------------------------
    def passage_model(owner: str, p: Passage) -> m.PassageModel:
        return m.PassageModel(
            passageId=p.chunk_id, text=p.text, documentId=p.document_id, documentName=p.document_name,
            score=p.score, page=p.page, chunkIndex=p.chunk_index,
            metadata={**p.metadata, "source": svc.present_source(owner, p.source), "section": p.section,
                      "start": p.start, "end": p.end},
        )

    @v1.post("/search", response_model=m.SearchResponse, tags=["retrieval"])
    async def search(body: m.SearchBody, user: CurrentUser) -> m.SearchResponse:
        """Hybrid search over the caller's documents (seed-003 retrieval contract)."""
        outcome = await run_in_threadpool(
            svc.citeline.search, body.query, top_k=body.topK, owner=user.id, document_ids=body.documentIds,
            filters=body.filters, with_vector=True,
        )
        if outcome.cached:
            svc.metrics.cache_hits.labels("retrieval").inc()
        return m.SearchResponse(
            retrievedPassages=[passage_model(user.id, p) for p in outcome.passages],
            retrievalTime=round(outcome.elapsed_ms, 3), queryEmbedding=outcome.query_vector,
        )

    # --- documents ----------------------------------------------------------------------
    def document_info(record: DocumentRecord) -> m.DocumentInfo:
        return uploads.document_info(svc, record)

    @v1.post("/documents", response_model=m.UploadResult, status_code=201, tags=["documents"], responses={
        409: {"model": ErrorBody, "description": "A file name you already have (send `?replace=true`)."},
        507: {"model": ErrorBody, "description": "The server's storage is full; nothing was stored."}})
    async def upload_documents(
        user: CurrentUser,
        files: Annotated[list[UploadFile], File(description="One or more files (.md, .txt, ...).")],
        replace: Annotated[bool, Query(description="Replace your documents of the same file names.")] = False,
    ) -> m.UploadResult:
        """Upload and index files. A file name you already have with other content is a 409 unless
        `?replace=true`; the same content again is reported unchanged."""
        return await uploads.upload(svc, user, files, replace=replace)

    @v1.get("/documents", response_model=m.DocumentList, tags=["documents"])
    async def list_documents(user: CurrentUser) -> m.DocumentList:
        records = await run_in_threadpool(svc.citeline.documents, user.id)
        return m.DocumentList(documents=[document_info(r) for r in records])

    @v1.get("/documents/{document_id}", response_model=m.DocumentInfo, tags=["documents"], responses=_NOT_FOUND)
    async def get_document(document_id: str, user: CurrentUser) -> m.DocumentInfo:
        record = await run_in_threadpool(svc.citeline.store.get_document, user.id, document_id)
        if record is None:
            raise not_found("document")
        return document_info(record)

    @v1.get("/documents/{document_id}/chunks/{chunk_id}", response_model=m.PassageModel, tags=["documents"],
            responses=_NOT_FOUND)
    async def get_chunk(document_id: str, chunk_id: str, user: CurrentUser) -> m.PassageModel:
        """Open a citation: the exact passage a citation points at."""
        passage = await run_in_threadpool(svc.citeline.store.get_passage, user.id, document_id, chunk_id)
        if passage is None:
            raise not_found("passage")
        return passage_model(user.id, passage)

    @v1.delete("/documents/{document_id}", status_code=204, tags=["documents"], responses=_NOT_FOUND)
    async def delete_document(document_id: str, user: CurrentUser) -> Response:
        record = await run_in_threadpool(svc.citeline.store.get_document, user.id, document_id)
        if record is None or not await run_in_threadpool(svc.citeline.delete_document, document_id, user.id):
            raise not_found("document")
        source = Path(record.source)
        if source.parent == svc.uploads_dir(user.id):  # an upload from before uploads were staged only
            await run_in_threadpool(source.unlink, missing_ok=True)
        return Response(status_code=204)

    # --- sessions -----------------------------------------------------------------------
    def session_model(state: SessionState) -> m.SessionModel:
        return m.SessionModel(
            sessionId=state.session_id, createdAt=iso(state.created_at), lastActivity=iso(state.last_activity),
            messageHistory=[
                m.MessageModel(messageId=msg.message_id, role=msg.role,  # type: ignore[arg-type]
                               content=msg.content, timestamp=iso(msg.timestamp), citations=msg.citations,
                               metadata=msg.metadata)
                for msg in state.messages
            ],
            contextWindowSize=state.context_window, active=state.active, metadata=state.metadata,
            initialContext=state.initial_context,
        )

    @v1.post("/sessions", response_model=m.SessionModel, status_code=201, tags=["sessions"],
             responses={409: {"model": ErrorBody, "description": "You already have a session with this id."}})
    async def create_session(user: CurrentUser, body: m.SessionCreate | None = None) -> m.SessionModel:
        body = body or m.SessionCreate()
        svc.check_session_metadata(metadata=body.metadata, initialContext=body.initialContext)
        state = await run_in_threadpool(
            svc.sessions.create, user.id, body.sessionId, context_window=body.contextWindowSize,
            metadata=body.metadata, initial_context=body.initialContext,
        )
        if state is None:
            raise ApiError(409, "you already have a session with this id")
        return session_model(state)

    @v1.get("/sessions/{session_id}", response_model=m.SessionModel, tags=["sessions"], responses=_NOT_FOUND)
    async def get_session(session_id: str, user: CurrentUser) -> m.SessionModel:
        state = await run_in_threadpool(svc.sessions.get, user.id, session_id)
        if state is None:
            raise not_found("session")
        return session_model(state)

    @v1.delete("/sessions/{session_id}", status_code=204, tags=["sessions"], responses=_NOT_FOUND)
    async def delete_session(session_id: str, user: CurrentUser) -> Response:
        if not await run_in_threadpool(svc.sessions.delete, user.id, session_id):
            raise not_found("session")
        return Response(status_code=204)

    # --- OpenAI-compatible ----------------------------------------------------------------
    @v1.get("/models", response_model=m.ModelList, tags=["openai"])
    async def list_models(user: CurrentUser) -> m.ModelList:
        created = int(svc.home.stat().st_mtime) if svc.home.exists() else 0
        return m.ModelList(data=[m.ModelCard(id=i, created=created, owned_by="citeline") for i in svc.model_ids()])

    def completion(result: AgentResult, model: str, body: m.ChatRequest) -> m.ChatCompletion:
        done = complete(result, body)
        return m.ChatCompletion(
            id=f"chatcmpl-{result.query_id}", created=int(time.time()), model=model,
            choices=[m.ChatChoice(index=0, message=m.ChatResponseMessage(content=done.content),
                                  finish_reason=done.finish_reason)],
            usage=done.usage, citations=result.citations, exit_reason=result.exit_reason.value,
            query_id=result.query_id, declined=done.declined, agent_usage=m.ChatUsage(**result.usage.model_dump()),
            error=result.error,
        )

    @v1.post(
        "/chat/completions", response_model=m.ChatCompletion, tags=["openai"],
        responses={200: {"description": "A chat.completion, or with `stream: true` server-sent "
                                        "chat.completion.chunk objects ending in `data: [DONE]`.",
                         "content": {"text/event-stream": {"itemSchema": _SSE_CHAT_CHUNK}}}},
    )
    async def chat_completions(body: m.ChatRequest, request: Request, user: CurrentUser) -> Any:
        """OpenAI-compatible: the last user message is the question, earlier messages the history.
        Citations are appended to the content as a "Sources" section and returned in `citations`."""
        last = body.messages[-1]
        if last.role != "user":
            raise ApiError(422, "the last message must have role `user` (it is the question)",
                           type="validation_error", step="validation")
        history = [{"role": msg.role, "content": msg.text()} for msg in body.messages[:-1]
                   if msg.role in {"user", "assistant"} and msg.text().strip()]
        plan = await run_in_threadpool(svc.plan_run, user, last.text(), model=body.model, session_id=None,
                                       query_id=qid(request), history=history)
        plan.via = "openai"
        model_name = body.model
        if not body.stream:
            handle = svc.start(plan)
            result = await svc.run_to_end(handle, request.is_disconnected)
            return completion(svc.present_result(result, user.id, trace=False), model_name, body)

        handle = svc.start(plan)

        async def chunks() -> AsyncIterator[str]:
            try:
                base = {"id": f"chatcmpl-{plan.query_id}", "object": "chat.completion.chunk",
                        "created": int(time.time()), "model": model_name}

                def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
                    return json.dumps({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                                       **extra})

                yield chunk({"role": "assistant", "content": ""})
                result = svc.present_result(await asyncio.shield(handle.future), user.id, trace=False)
                done = complete(result, body)
                for piece in re.findall(r"\S+\s*|\s+", done.content):
                    yield chunk({"content": piece})
                yield chunk({}, done.finish_reason, citations=[c.model_dump(mode="json") for c in result.citations],
                            exit_reason=result.exit_reason.value, query_id=result.query_id,
                            usage=done.usage.model_dump(), declined=done.declined,
                            agent_usage=result.usage.model_dump(),
                            error=result.error.model_dump() if result.error else None)
                yield "[DONE]"
            finally:
                handle.stop.set()

        return EventSourceResponse(chunks(), ping=svc.api.heartbeat_s, send_timeout=30)

    app.include_router(v1)
    app.include_router(catalog_router(current_user))
    app.include_router(runs_router(current_user), responses=_COMMON_ERRORS)
    app.include_router(web_router())

    # --- operations ---------------------------------------------------------------------
    @app.get("/healthz", response_model=m.Health, tags=["operations"])
    async def healthz() -> m.Health:
        """The process is up."""
        return m.Health(status="ok")

    @app.get("/readyz", response_model=m.Health, tags=["operations"],
             responses={503: {"model": ErrorBody, "description": "Not ready; `details.checks` says why."}})
    async def readyz() -> m.Health:
        """The store answers and the embedder and the default model load."""
        checks: dict[str, str] = {}

        def probe(name: str, check: Callable[[], object]) -> None:
            try:
                check()
                checks[name] = "ok"
            except Exception as exc:
                log.warning("readiness check %s failed: %r", name, exc)
                checks[name] = f"unavailable ({exc.__class__.__name__})"

        await run_in_threadpool(probe, "store", svc.citeline.store.corpus_version)
        await run_in_threadpool(probe, "index_writable", svc.check_writable)
        await run_in_threadpool(probe, "embedder", lambda: svc.citeline.embedder)
        await run_in_threadpool(probe, "model", lambda: svc.citeline.answerer(None))
        failed = {k: v for k, v in checks.items() if v != "ok"}
        if failed:
            raise ApiError(503, "not ready: " + ", ".join(f"{k} {v}" for k, v in failed.items()),
                           details={"checks": checks})
        return m.Health(status="ready", checks=checks)

    @app.get("/metrics", response_class=PlainTextResponse, tags=["operations"],
             responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}}}})
    async def metrics() -> PlainTextResponse:
        """Prometheus metrics: requests, durations, exit reasons, tokens, cache hits."""
        return PlainTextResponse(svc.metrics.render(), media_type="text/plain; version=0.0.4; charset=utf-8")

    return app


Disconnected = Callable[[], Awaitable[bool]]
__all__ = ["DEFAULT_MODEL_ID", "Disconnected", "create_app"]
