"""Run one question through the graph and turn the final state into an AgentResult.

`run_agent` (sync) and `arun_agent` (async, LangChain callbacks attached) share every step but
the graph call, so both paths give the same result.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from langchain_core.callbacks.manager import adispatch_custom_event
from langchain_core.runnables import RunnableConfig

from citeline.agent.clock import SYSTEM_CLOCK, Clock
from citeline.agent.events import Event, EventSink
from citeline.agent.exchanges import RunIO, RunRecorder
from citeline.agent.exits import EXIT_SPECS, ExitReason
from citeline.agent.graph import AgentGraph, finalize_run
from citeline.agent.result import AgentResult, Timings
from citeline.agent.state import Message, RunState
from citeline.config import Settings
from citeline.retrieval.cache import Cache
from citeline.version import version


@dataclass(frozen=True)
class RunResources:
    """What a run needs beyond its question: the graph (answerer and retriever), the answer
    cache and the corpus version that cached answers are keyed on. Built only once the question
    has passed the guard, so an empty or oversized question never opens the index or loads a model."""

    graph: AgentGraph
    cache: Cache
    corpus_version: int


ResourceProvider = Callable[[], RunResources]

# Only outcomes that depend on nothing but the question, the corpus and the settings are cached;
# a rate limit or a timeout must be retried for real.
CACHEABLE = {ExitReason.COMPLETED, ExitReason.INSUFFICIENT_CONTEXT}
# Settings that change answers, by their path in the tree (`group.field`).
_ANSWER_SETTINGS = ("retrieval.top_k", "retrieval.candidate_pool", "retrieval.rrf_k", "agent.max_turns",
                    "agent.max_tool_calls", "agent.max_reprompts", "agent.support_threshold",
                    "answerer.answer_threshold", "answerer.answerability", "agent.citation_chars",
                    "index.chunk_tokens", "index.embedder")
# Settings that bound a run without changing a completed answer: in the fingerprint, not the cache key.
_RUN_SETTINGS = ("agent.max_question_chars", "agent.timeout_s", "agent.system_tokens",
                 "agent.evidence_tokens", "agent.history_tokens", "agent.response_tokens")


def _leaf_values(settings: Settings, paths: Sequence[str], *,
                 mode: Literal["json", "python"]) -> dict[str, Any]:
    """The values at `paths`, keyed by field name alone: field names are unique across the tree and
    were the keys before it was nested, so fingerprints and cache keys made earlier stay equal."""
    tree = settings.model_dump(mode=mode)
    values: dict[str, Any] = {}
    for path in paths:
        group, name = path.split(".")
        values[name] = tree[group][name]
    return values


@dataclass
class _Prepared:
    run: RunState
    emit: Callable[[str, dict[str, Any]], None]
    resources: RunResources | None  # None: the guard already decided (empty or oversized question)
    cache_key: str | None
    cached: AgentResult | None
    recorder: RunRecorder | None = None


def _prepare(settings: Settings, resources: ResourceProvider, question: str, *, owner: str, model: str | None,
             history: Sequence[Mapping[str, str]], on_event: EventSink | None,
             cancelled: Callable[[], bool] | None, query_id: str,
             recorder: RunRecorder | None = None, clock: Clock = SYSTEM_CLOCK) -> _Prepared:
    # Surrounding whitespace (a pasted question's newline) is not part of what is asked: kept, it made
    # every query derived from the question differ from the one the search tool records, so the same
    # search repeated until the budget was spent, and "q" and "q\n" were cached apart.
    question = question.strip()
    counter = itertools.count(1)

    def emit(kind: str, payload: dict[str, Any]) -> None:
        if on_event is not None:
            on_event(Event(type=kind, seq=next(counter), query_id=query_id, data=payload))  # type: ignore[arg-type]

    run = RunState(
        query_id=query_id, question=question, owner=owner, settings=settings,
        history=[Message(m.get("role", "user"), m.get("content", "")) for m in history],
        emit=emit, cancelled=cancelled, io=recorder or RunIO(), clock=clock,
    )
    if recorder is not None:  # before any work, so a run cut off later still shows it started
        recorder.begin({
            "query_id": query_id, "question": question, "owner": owner, "model": model or settings.answerer.model,
            "history": [{"role": m.role, "content": m.content} for m in run.history],
            "settings": settings.model_dump(mode="json"),
            "settings_fingerprint": settings_fingerprint(settings, model or settings.answerer.model),
        })
    emit("run_start", {"question": question, "model": model or settings.answerer.model})
    # Guard checks first, so an empty or oversized question never opens the index or loads a model.
    if not question or len(question) > settings.agent.max_question_chars:
        run.exit_reason = ExitReason.EMPTY_INPUT if not question else ExitReason.INPUT_TOO_LONG
        run.record("validation", ok=False, errors=[run.exit_reason.value])
        finalize_run(run)
        return _Prepared(run, emit, None, None, None, recorder)
    ready = resources()
    key = _answer_key(settings, ready, run)
    hit = ready.cache.get("answer", key)
    cached = None
    if hit is not None:
        stored = AgentResult.model_validate_json(hit)
        cached = stored.model_copy(
            update={"query_id": query_id, "cached": True, "timings": Timings(total_ms=round(run.elapsed_ms, 3))})
    if recorder is not None:
        answerer = ready.graph.answerer
        recorder.context({"corpus_version": ready.corpus_version, "answerer": answerer.name,
                          "answerer_fingerprint": answerer.fingerprint, "system_prompt": answerer.system_prompt,
                          "cache_key": key, "cached_from": stored.query_id if hit is not None else None})
    return _Prepared(run, emit, ready, key, cached, recorder)


def _finish(settings: Settings, prepared: _Prepared, model: str | None) -> AgentResult:
    if prepared.cached is not None:
        result = prepared.cached
    else:
        ready = prepared.resources
        name = ready.graph.answerer.name if ready is not None else (model or settings.answerer.model)
        result = to_result(prepared.run, name)
        if ready is not None and prepared.cache_key is not None and result.exit_reason in CACHEABLE:
            ready.cache.put("answer", prepared.cache_key, result.model_dump_json())
    if prepared.recorder is not None:
        prepared.recorder.finish(result)
    prepared.emit("final", {"result": result.model_dump(mode="json")})
    return result


def _cached_payload(result: AgentResult) -> dict[str, Any]:
    return {"answer": result.answer, "citations": [c.model_dump(mode="json") for c in result.citations]}


def run_agent(settings: Settings, resources: ResourceProvider, question: str, *, model: str | None,
              recorder: RunRecorder | None = None, **kwargs: Any) -> AgentResult:
    """Answer one question: the guard, then a cached answer or a run of the graph. A `recorder`
    writes the run down (see `citeline.agent.exchanges`)."""
    try:
        prepared = _prepare(settings, resources, question, model=model, recorder=recorder, **kwargs)
        if prepared.cached is not None:
            prepared.emit("cached_response", _cached_payload(prepared.cached))
        elif prepared.resources is not None:
            prepared.run = prepared.resources.graph.invoke(prepared.run)
        return _finish(settings, prepared, model)
    except BaseException as exc:
        if recorder is not None:
            recorder.abort(exc)
        raise


async def arun_agent(settings: Settings, resources: ResourceProvider, question: str, *, model: str | None,
                     config: RunnableConfig | None = None, recorder: RunRecorder | None = None,
                     **kwargs: Any) -> AgentResult:
    """The async path; with `config` callbacks, LangChain sees tool, model and custom events."""
    try:
        prepared = _prepare(settings, resources, question, model=model, recorder=recorder, **kwargs)
        if prepared.cached is not None:
            payload = _cached_payload(prepared.cached)
            prepared.emit("cached_response", payload)
            if config is not None:
                await adispatch_custom_event("cached_response", payload, config=config)
        elif prepared.resources is not None:
            prepared.run = await prepared.resources.graph.ainvoke(prepared.run, config)
        return _finish(settings, prepared, model)
    except BaseException as exc:
        if recorder is not None:
            recorder.abort(exc)
        raise


def settings_fingerprint(settings: Settings, model: str) -> str:
    """SHA-256 (first 16 hex digits) of the settings that change answers, and the model: two runs
    with the same fingerprint were answered under the same configuration."""
    payload = {**_leaf_values(settings, (*_ANSWER_SETTINGS, *_RUN_SETTINGS), mode="json"), "model": model}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def _answer_key(settings: Settings, resources: RunResources, run: RunState) -> str:
    """SHA-256 of everything that determines the answer, including the corpus version and
    citeline's own (an upgrade must not serve answers its predecessor cached)."""
    payload = {
        "citeline": version(),
        "answerer": resources.graph.answerer.fingerprint,
        "question": run.question,
        "history": [(m.role, m.content) for m in run.history],
        "owner": run.owner,
        "corpus": resources.corpus_version,
        "settings": _leaf_values(settings, _ANSWER_SETTINGS, mode="python"),
        "v": 1,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def to_result(run: RunState, model: str) -> AgentResult:
    """The AgentResult of a finished run, answered by `model`."""
    reason = run.exit_reason or ExitReason.LLM_ERROR
    return AgentResult(
        query_id=run.query_id, question=run.question, answer=run.answer, exit_reason=reason,
        retryable=EXIT_SPECS[reason].retryable, citations=run.citations, insufficiencies=run.insufficiencies,
        trace=run.trace, steps=run.steps, strategy=run.strategy, usage=run.usage,
        timings=Timings(retrieval_ms=round(run.retrieval_ms, 3), generation_ms=round(run.generation_ms, 3),
                        total_ms=round(run.elapsed_ms, 3)),
        model=model, cached=run.model_cached, error=run.error,
    )
