"""What one running service holds (library instance, users, sessions, limits, metrics) and the
execution of agent runs off the event loop, with cancellation and per-user slots."""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import re
import threading
import time
import unicodedata
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citeline.agent.events import Event
from citeline.agent.result import AgentResult
from citeline.api.errors import ApiError, not_found
from citeline.api.limits import Clock, FailedAuthLimiter, RateLimiter, RunSlots, Slots, retry_after
from citeline.api.metrics import Metrics
from citeline.api.sessions import SessionMessage, SessionState, SessionStore, open_sessions
from citeline.api.users import User, UserRegistry
from citeline.app import Citeline
from citeline.config import ServiceSettings
from citeline.errors import CitelineError
from citeline.text import EscapeControlsFilter, printable

log = logging.getLogger("citeline.api")
query_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("citeline_query_id", default="-")

DEFAULT_MODEL_ID = "citeline"
UPLOAD_SCHEME = "upload:"
_UNSAFE = re.compile(r"[^\w. -]+")
_NAME_KEYS = frozenset({"document_name", "documentName", "title"})


class QueryIdFilter(logging.Filter):
    """Puts the current request's query id on every log record (`%(query_id)s`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Stamp the record with the query id of the request being served ("-" outside one)."""
        record.query_id = query_id_var.get()
        return True


log.addFilter(QueryIdFilter())  # every record of the service carries the request's query id
log.addFilter(EscapeControlsFilter())


def sanitize_filename(name: str, fallback: str = "upload") -> str:
    """A safe single path component: no directories, no absolute paths, no NUL or control bytes."""
    name = unicodedata.normalize("NFKC", name or "").replace("\x00", "")
    name = name.replace("\\", "/").rsplit("/", 1)[-1]  # drop any directory part, either separator
    name = _UNSAFE.sub("_", name).strip(" .")
    stem, dot, suffix = name.rpartition(".")
    if len(name) > 120:
        name = (stem[: 110 - len(suffix)] + dot + suffix) if dot and len(suffix) <= 10 else name[:120]
    if not name or name in {".", ".."}:
        return fallback
    return name


def iso(ts: float) -> str:
    """A Unix time as ISO 8601 UTC with milliseconds and `Z`, the format of every timestamp the API
    returns."""
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class RunPlan:
    """Everything needed to start one run for a request: who asks, what, with which model and history,
    and from which surface."""

    owner: str
    question: str
    model: str | None
    query_id: str
    history: list[dict[str, str]] = field(default_factory=list)
    session_id: str | None = None
    via: str = "http"  # the surface, for the runs log: http, sse or openai


@dataclass(eq=False)
class RunHandle:
    """A run in flight: what was asked, the future its result arrives on, and the event that cancels
    it."""

    plan: RunPlan
    future: asyncio.Future[AgentResult]
    stop: threading.Event


class Service:
    """What the HTTP handlers share: the library instance, users, sessions, limits and run slots.

    `api` defaults to the `service` group of the library's settings tree."""

    def __init__(self, citeline: Citeline, api: ServiceSettings | None = None, *,
                 sessions: SessionStore | None = None, clock: Clock = time.monotonic) -> None:
        self.citeline = citeline
        self.api = api = api or citeline.settings.service
        self.home = citeline.settings.index.home.expanduser().resolve()
        self.users = UserRegistry(citeline.store)
        # Sessions follow the store (shared PostgreSQL -> shared sessions) unless set explicitly.
        self.sessions: SessionStore = sessions or open_sessions(
            api.sessions, citeline.settings.index.store_url, self.home, pool_size=api.sessions_pool_size)
        self.metrics = Metrics()
        self.limiter = RateLimiter(api.rate_per_s, api.rate_burst, clock=clock)
        self.auth_failures = FailedAuthLimiter(api.auth_failures_per_minute, clock=clock)
        self.slots = RunSlots(api.max_concurrent_runs)
        self.upload_slots = Slots(api.max_concurrent_uploads)
        self.executor = ThreadPoolExecutor(max_workers=api.worker_threads, thread_name_prefix="citeline-run")
        self._active: set[RunHandle] = set()
        self._active_lock = threading.Lock()

    # --- users -----------------------------------------------------------------------------
    def local_user(self) -> User:
        """The user a server started without authentication acts as (the configured owner)."""
        return User(id=self.citeline.settings.index.owner, name=self.citeline.settings.index.owner)

    def check_rate(self, user: User) -> None:
        """Raise 429 with `Retry-After` when `user` is over the request rate; otherwise count the
        request."""
        wait = self.limiter.acquire(user.id)
        if wait > 0:
            raise ApiError(429, f"rate limit exceeded: at most {self.api.rate_per_s:g} requests per second "
                           f"(bursts of {self.api.rate_burst}); retry after the Retry-After delay",
                           headers={"Retry-After": retry_after(wait)})

    def check_session_metadata(self, **fields: Any) -> None:
        """413 when a session's free-form field is over `max_session_metadata_bytes` as JSON."""
        limit = self.api.max_session_metadata_bytes
        for name, value in fields.items():
            size = len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
            if size > limit:
                raise ApiError(413, f"session `{name}` is {size:,} bytes as JSON; the limit is {limit:,} bytes: "
                               "keep large context in documents (POST /v1/documents) instead",
                               type="validation_error", step="validation",
                               details={"field": name, "size_bytes": size, "limit_bytes": limit})

    def check_writable(self) -> None:
        """Raise unless the index can be written now (the readiness probe)."""
        self.citeline.store.check_writable()

    # --- files -----------------------------------------------------------------------------
    def uploads_dir(self, owner: str) -> Path:
        """Where an upload is staged while it is indexed (removed afterwards: see `upload_source`)."""
        return self.home / "uploads" / sanitize_filename(owner, fallback="owner")

    @staticmethod
    def upload_source(name: str) -> str:
        """The `source` of an uploaded document: its file name, never a path on this worker's disk,
        so a re-upload through any worker behind the load balancer replaces the same document."""
        return UPLOAD_SCHEME + name

    def legacy_upload_source(self, owner: str, name: str) -> str:
        """The `source` uploads had before they were named by `upload_source` (a path in `home`)."""
        return str(self.uploads_dir(owner) / name)

    @staticmethod
    def present_name(name: str) -> str:
        """A document name as users see it: never with the internal `upload:` prefix (documents
        indexed before uploads were parsed under their bare file name carry it in their title)."""
        return name.removeprefix(UPLOAD_SCHEME)

    def present_source(self, owner: str, source: str) -> str:
        """Upload paths become the file name; the server's directory layout never leaves it."""
        if source.startswith(UPLOAD_SCHEME):
            return source.removeprefix(UPLOAD_SCHEME)
        try:
            return str(Path(source).relative_to(self.uploads_dir(owner)))
        except ValueError:
            return source if not self.api.auth else Path(source).name

    def present_data(self, owner: str, data: Any) -> Any:
        """Event payloads with every `source` presented (they may carry passages and citations)."""
        if isinstance(data, dict):
            return {key: self.present_source(owner, value) if key == "source" and isinstance(value, str)
                    else self.present_name(value) if key in _NAME_KEYS and isinstance(value, str)
                    else self.present_data(owner, value) for key, value in data.items()}
        if isinstance(data, list):
            return [self.present_data(owner, item) for item in data]
        return data

    def present_result(self, result: AgentResult, owner: str, *, trace: bool = True) -> AgentResult:
        """A result as a client sees it: citation sources and names without server paths or internal
        prefixes, the trace left out unless asked for."""
        citations = [c.model_copy(update={"source": self.present_source(owner, c.source),
                                          "document_name": self.present_name(c.document_name)})
                     for c in result.citations]
        update: dict[str, Any] = {"citations": citations}
        if not trace:
            update["trace"] = []
        return result.model_copy(update=update)

    # --- models ----------------------------------------------------------------------------
    def model_ids(self) -> list[str]:
        """The model ids this server offers: its default answerer first, then the configured extras."""
        extra = [m.strip() for m in self.api.models.split(",") if m.strip()]
        return [DEFAULT_MODEL_ID, *dict.fromkeys(m for m in extra if m != DEFAULT_MODEL_ID)]

    def resolve_model(self, requested: str | None) -> str | None:
        """None = the server default. Only listed models may be chosen (a spec can name files)."""
        if requested is None or requested in {DEFAULT_MODEL_ID, self.citeline.settings.answerer.model}:
            return None
        if requested not in self.model_ids():
            raise ApiError(422, f"unknown model `{printable(requested[:80])}`: GET /v1/models lists the models",
                           type="validation_error", step="validation", details={"models": self.model_ids()})
        return requested

    def check_model(self, spec: str | None) -> None:
        """Raise 503 when the named answerer cannot be built here (the reason goes to the log, not the
        client)."""
        try:
            self.citeline.answerer(spec)
        except CitelineError as exc:
            log.warning("model %s unavailable: %r", spec or "(default)", exc)
            raise ApiError(503, "the model is not available on this server", type="reasoning_error",
                           step="reasoning") from None

    # --- runs ------------------------------------------------------------------------------
    def check_question(self, question: str) -> None:
        """Raise 422 for an empty question or one over the length limit, before any run starts."""
        limit = self.citeline.settings.agent.max_question_chars
        if not question.strip():
            raise ApiError(422, "the question is empty", type="validation_error", step="validation")
        if len(question) > limit:
            raise ApiError(422, f"the question is {len(question)} characters long; the limit is {limit}",
                           type="validation_error", step="validation",
                           details={"limit": limit, "length": len(question)})

    def session_of(self, owner: str, session_id: str) -> SessionState:
        """The owner's session with this id; 404 when it does not exist or is someone else's."""
        state = self.sessions.get(owner, session_id)
        if state is None:
            raise not_found("session")
        return state

    def plan_run(self, user: User, question: str, *, model: str | None, session_id: str | None,
                 query_id: str, history: list[dict[str, str]] | None = None) -> RunPlan:
        """Every check that can fail before a run starts (so a stream never opens on a bad request).
        Blocking (may load a model): call from a worker thread."""
        self.check_question(question)
        spec = self.resolve_model(model)
        plan = RunPlan(owner=user.id, question=question, model=spec, query_id=query_id,
                       history=list(history or []), session_id=session_id)
        if session_id is not None:
            plan.history = self.session_of(user.id, session_id).history()
        self.check_model(spec)
        return plan

    def start(self, plan: RunPlan, on_event: Callable[[Event], None] | None = None) -> RunHandle:
        """Take a run slot (429 when the user has too many runs in flight) and start the run."""
        if not self.slots.try_acquire(plan.owner):
            raise ApiError(429, f"too many runs in flight: at most {self.api.max_concurrent_runs} per user",
                           headers={"Retry-After": "1"})
        stop = threading.Event()
        loop = asyncio.get_running_loop()
        context = contextvars.copy_context()
        try:
            future = loop.run_in_executor(self.executor, context.run, self._execute, plan, on_event, stop)
        except BaseException:
            self.slots.release(plan.owner)
            raise
        handle = RunHandle(plan, future, stop)
        with self._active_lock:
            self._active.add(handle)
        future.add_done_callback(lambda _: self._forget(handle))
        return handle

    def _forget(self, handle: RunHandle) -> None:
        with self._active_lock:
            self._active.discard(handle)

    def active_runs(self) -> int:
        """Runs executing now (counted so a test or operator can see the service is idle)."""
        with self._active_lock:
            return len(self._active)

    def _execute(self, plan: RunPlan, on_event: Callable[[Event], None] | None,
                 stop: threading.Event) -> AgentResult:
        self.metrics.runs_in_flight.inc()
        try:
            result = self.citeline.ask(
                plan.question, owner=plan.owner, model=plan.model, history=plan.history,
                on_event=on_event, cancelled=stop.is_set, query_id=plan.query_id,
                origin={"via": plan.via, "session_id": plan.session_id},
            )
            self.metrics.record_run(result)
            log.info("run ended %s in %.0f ms (owner %s)", result.exit_reason.value, result.timings.total_ms,
                     plan.owner)
            if plan.session_id is not None:
                self._record_turn(plan, result)
            return result
        finally:
            self.metrics.runs_in_flight.dec()
            self.slots.release(plan.owner)

    def _record_turn(self, plan: RunPlan, result: AgentResult) -> None:
        presented = self.present_result(result, plan.owner)
        now = time.time()
        meta = {"query_id": plan.query_id, "exit_reason": result.exit_reason.value}
        try:
            self.sessions.append(plan.owner, plan.session_id or "", keep=self.api.max_session_messages, messages=[
                SessionMessage(role="user", content=plan.question, timestamp=now, metadata=dict(meta)),
                SessionMessage(role="assistant", content=result.answer, timestamp=time.time(),
                               citations=[c.model_dump(mode="json") for c in presented.citations],
                               metadata={**meta, "cached": result.cached, "model": result.model}),
            ])
        except Exception:  # the answer still reaches the caller; the log says why history is short
            log.exception("could not record the turn in session")

    async def run_to_end(self, handle: RunHandle, disconnected: Callable[[], Any] | None = None) -> AgentResult:
        """Await a run; when `disconnected()` turns true (polled), cancel it."""
        try:
            while True:
                done, _ = await asyncio.wait({handle.future}, timeout=0.25)
                if done:
                    return handle.future.result()
                if disconnected is not None and await disconnected():
                    handle.stop.set()
        except BaseException:
            handle.stop.set()
            raise

    def cancel_runs(self) -> None:
        """Ask every run in flight to stop (each ends with exit reason CANCELLED)."""
        with self._active_lock:
            for handle in self._active:
                handle.stop.set()

    def shutdown(self) -> None:
        """Cancel the runs in flight, stop the worker threads and close the sessions store."""
        self.cancel_runs()
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.sessions.close()
