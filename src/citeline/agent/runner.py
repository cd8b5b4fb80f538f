"""Run one question through the graph and turn the final state into an AgentResult."""

from __future__ import annotations

import hashlib
import itertools
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from citeline.agent.events import Event, EventSink
from citeline.agent.exits import EXIT_SPECS, ExitReason
from citeline.agent.graph import AgentGraph, finalize_run
from citeline.agent.result import AgentResult, Timings
from citeline.agent.state import Message, RunState
from citeline.llm.extractive import ExtractiveAnswerer

if TYPE_CHECKING:
    from citeline.app import Citeline

_graphs: dict[int, AgentGraph] = {}
_graphs_lock = threading.Lock()


def _graph_for(app: Citeline, model: str | None) -> AgentGraph:
    policy = app.policy(model)
    key = id(policy)
    with _graphs_lock:
        graph = _graphs.get(key)
        if graph is None or graph.policy is not policy:
            composer = ExtractiveAnswerer(app.settings, app.embedder)
            graph = AgentGraph(policy, app.retriever, composer.compose)
            if not (getattr(policy, "name", "") or "").startswith("scripted"):
                _graphs[key] = graph
    return graph


def run_agent(
    app: Citeline,
    question: str,
    *,
    owner: str,
    model: str | None,
    history: Sequence[Mapping[str, str]],
    on_event: EventSink | None,
    cancelled: Callable[[], bool] | None,
    query_id: str,
) -> AgentResult:
    counter = itertools.count(1)

    def emit(kind: str, payload: dict[str, Any]) -> None:
        if on_event is not None:
            on_event(Event(type=kind, seq=next(counter), query_id=query_id, data=payload))  # type: ignore[arg-type]

    run = RunState(
        query_id=query_id, question=question, owner=owner, settings=app.settings,
        history=[Message(m.get("role", "user"), m.get("content", "")) for m in history],
        emit=emit, cancelled=cancelled,
    )
    emit("run_start", {"question": question, "model": model or app.settings.model})
    model_name = model or app.settings.model
    # Guard checks first, so an empty or oversized question never opens the index or loads a model.
    if not question.strip() or len(question) > app.settings.max_question_chars:
        run.exit_reason = ExitReason.EMPTY_INPUT if not question.strip() else ExitReason.INPUT_TOO_LONG
        run.record("validation", ok=False, errors=[run.exit_reason.value])
        finalize_run(run)
        result = to_result(run, model_name)
    else:
        graph = _graph_for(app, model)
        key = _answer_key(app, graph, run)
        cached = app.cache.get("answer", key)
        if cached is not None:
            result = AgentResult.model_validate_json(cached)
            result = result.model_copy(update={
                "query_id": query_id, "cached": True,
                "timings": Timings(total_ms=round(run.elapsed_ms, 3)),
            })
            emit("cached_response", {"answer": result.answer,
                                     "citations": [c.model_dump(mode="json") for c in result.citations]})
        else:
            run = graph.invoke(run)
            result = to_result(run, graph.policy.name)
            if result.exit_reason in CACHEABLE:
                app.cache.put("answer", key, result.model_dump_json())
    emit("final", {"result": result.model_dump(mode="json")})
    return result


# Only outcomes that depend on nothing but the question, the corpus and the settings are cached;
# a rate limit or a timeout must be retried for real.
CACHEABLE = {ExitReason.COMPLETED, ExitReason.INSUFFICIENT_CONTEXT}
_ANSWER_SETTINGS = ("top_k", "candidate_pool", "rrf_k", "max_turns", "max_tool_calls", "max_reprompts",
                    "support_threshold", "answer_threshold", "citation_chars", "chunk_tokens", "embedder")


def _answer_key(app: Citeline, graph: AgentGraph, run: RunState) -> str:
    """SHA-256 of everything that determines the answer, including the corpus version."""
    payload = {
        "policy": getattr(graph.policy, "fingerprint", graph.policy.name),
        "question": run.question,
        "history": [(m.role, m.content) for m in run.history],
        "owner": run.owner,
        "corpus": app.store.corpus_version(),
        "settings": {name: getattr(app.settings, name) for name in _ANSWER_SETTINGS},
        "v": 1,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def to_result(run: RunState, model: str) -> AgentResult:
    reason = run.exit_reason or ExitReason.LLM_ERROR
    return AgentResult(
        query_id=run.query_id, question=run.question, answer=run.answer, exit_reason=reason,
        retryable=EXIT_SPECS[reason].retryable, citations=run.citations, insufficiencies=run.insufficiencies,
        trace=run.trace, steps=run.steps, strategy=run.strategy, usage=run.usage,
        timings=Timings(retrieval_ms=round(run.retrieval_ms, 3), generation_ms=round(run.generation_ms, 3),
                        total_ms=round(run.elapsed_ms, 3)),
        model=model, cached=run.model_cached,
    )
