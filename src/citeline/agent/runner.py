"""Run one question through the graph and turn the final state into an AgentResult."""

from __future__ import annotations

import itertools
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
    else:
        graph = _graph_for(app, model)
        model_name = graph.policy.name
        run = graph.invoke(run)
    result = to_result(run, model_name)
    emit("final", {"result": result.model_dump(mode="json")})
    return result


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
