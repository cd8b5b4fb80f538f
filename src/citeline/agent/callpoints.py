"""The graph's call points to the outside world, each as a `RunIO` exchange with its codec.

`decide`, `propose_plan`, `synthesise`, `check_stop` and `run_tool_call` are what the graph
calls instead of calling the answerer, the synthesiser, the clock and the tools directly. Each
one builds a JSON request from the run, lets `run.io` perform (or, on replay, serve) it, and
turns the JSON response back into the value the graph needs. Whatever an answerer changes on
the run while it decides (tokens streamed, usage, trace entries) is captured with its decision,
so a replay that does not call the answerer reapplies it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from citeline import errors as citeline_errors
from citeline.agent.actions import Action, FinalAnswer, ProviderError, ToolCall, Unusable
from citeline.agent.answerer import Answerer
from citeline.agent.exchanges import Codec, Json
from citeline.agent.exits import ExitReason
from citeline.agent.result import TraceEntry
from citeline.agent.state import RunState
from citeline.agent.tools import InvalidToolCall, PassageSource, run_tool
from citeline.errors import CitelineError
from citeline.index.store import Passage
from citeline.retrieval import SearchOutcome


# --- errors ----------------------------------------------------------------------------------
def encode_error(error: BaseException) -> Json:
    """An exception as JSON: its class name, message and what is needed to raise it again."""
    data: Json = {"type": error.__class__.__name__, "message": str(error)}
    if isinstance(error, ProviderError):
        data.update(kind=error.kind, retry_after=error.retry_after, status=error.status, hint=error.hint)
    elif isinstance(error, CitelineError):
        data.update(message=error.message, hint=error.hint)
    return data


def decode_error(data: Json) -> BaseException:
    """The exception `encode_error` wrote down, raised again with the same class name and message
    (so the trace of a replay names the same error as the recorded run's)."""
    name, message = str(data.get("type", "Exception")), str(data.get("message", ""))
    if name == "ProviderError":
        return ProviderError(data.get("kind", "server"), message, retry_after=data.get("retry_after"),
                             status=data.get("status"), hint=data.get("hint"))
    if name == "InvalidToolCall":
        return InvalidToolCall(message)
    known = getattr(citeline_errors, name, None)
    if isinstance(known, type) and issubclass(known, CitelineError):
        return known(message, hint=data.get("hint"))
    # An unexpected failure (a bug, a library error): same name and message, no behaviour.
    unexpected: type[Exception] = type(name, (Exception,), {})
    return unexpected(message)


def _codec(encode: Callable[[Any], Json], decode: Callable[[Json], Any]) -> Codec[Any]:
    return Codec(encode, decode, encode_error, decode_error)


# --- what an answerer changes on the run while it decides --------------------------------------
@dataclass
class Effects:
    """Tokens streamed, tokens used, trace entries added and model requests made during one
    answerer call. `applied` is False for effects read from a record, which a replay applies."""

    tokens: list[str] = field(default_factory=list)
    usage: tuple[int, int] = (0, 0)
    trace: list[Json] = field(default_factory=list)
    model: list[Json] = field(default_factory=list)
    applied: bool = True

    def apply(self, run: RunState) -> None:
        """Do to `run` what the answerer did when the run was recorded."""
        for text in self.tokens:
            run.event("token", text=text)
        run.usage.add(*self.usage)
        run.trace.extend(TraceEntry.model_validate(entry) for entry in self.trace)
        self.applied = True


@dataclass
class Decided:
    """A value an answerer returned, with the effects it had on the run."""

    value: Any
    effects: Effects


def _captured(run: RunState, call: Callable[[], Any]) -> Decided:
    tokens: list[str] = []
    model: list[Json] = []
    usage = (run.usage.prompt_tokens, run.usage.completion_tokens)
    trace_length = len(run.trace)
    run.token_log, run.model_log = tokens, model
    try:
        value = call()
    finally:
        run.token_log = run.model_log = None
    effects = Effects(
        tokens=tokens, model=model,
        usage=(run.usage.prompt_tokens - usage[0], run.usage.completion_tokens - usage[1]),
        trace=[entry.model_dump(mode="json") for entry in run.trace[trace_length:]],
    )
    return Decided(value, effects)


def _effects_json(effects: Effects) -> Json:
    return {"tokens": effects.tokens, "usage": list(effects.usage), "trace": effects.trace,
            "model": effects.model}


def _effects(data: Json) -> Effects:
    prompt, completion = data.get("usage") or (0, 0)
    return Effects(tokens=list(data.get("tokens", [])), usage=(int(prompt), int(completion)),
                   trace=list(data.get("trace", [])), model=list(data.get("model", [])), applied=False)


# --- actions ---------------------------------------------------------------------------------
_ACTION_TYPES: dict[str, type[ToolCall] | type[FinalAnswer] | type[Unusable]] = {
    "tool_call": ToolCall, "final": FinalAnswer, "unusable": Unusable}


def action_json(action: Action) -> Json:
    """An action as JSON: its type (`tool_call`, `final`, `unusable`) and every field it has."""
    kind = next(name for name, cls in _ACTION_TYPES.items() if isinstance(action, cls))
    return {"type": kind, **asdict(action)}


def action_from(data: Json) -> Action:
    """The action `action_json` wrote down."""
    cls = _ACTION_TYPES.get(str(data.get("type")), Unusable)
    fields = {key: value for key, value in data.items() if key != "type"}
    action: Action = cls(**fields)
    return action


_DECISION = _codec(
    lambda d: {"action": action_json(d.value), **_effects_json(d.effects)},
    lambda data: Decided(action_from(data["action"]), _effects(data)),
)
_PLAN = _codec(lambda d: {"plan": d.value, **_effects_json(d.effects)},
               lambda data: Decided(data.get("plan"), _effects(data)))
_STOP = _codec(lambda reason: {"stop": reason.value if reason else None},
               lambda data: ExitReason(data["stop"]) if data.get("stop") else None)
_TOOL = _codec(lambda output: {"output": output}, lambda data: dict(data["output"]))
_SEARCH = _codec(
    lambda outcome: {"passages": [p.to_json() for p in outcome.passages], "cached": outcome.cached,
                     "elapsed_ms": outcome.elapsed_ms, "background": outcome.background},
    lambda data: SearchOutcome(str(data.get("query", "")), [Passage.from_json(p) for p in data["passages"]],
                               float(data.get("elapsed_ms", 0.0)), cached=bool(data.get("cached")),
                               background=data.get("background")),
)
_OPEN = _codec(lambda passage: {"passage": passage.to_json() if passage is not None else None},
               lambda data: Passage.from_json(data["passage"]) if data.get("passage") else None)


def decision_request(run: RunState) -> Json:
    """Everything about the run an answerer reads to decide: a replay that arrives at a decision
    with a different request has diverged from the recorded run."""
    return {
        "turn": run.turns,
        "question": run.question,
        "standalone_query": run.standalone_query,
        "history": [[m.role, m.content] for m in run.history],
        "plan": list(run.plan),
        "searches": [{"query": s.query, "results": [p.chunk_id for p in s.passages]} for s in run.searches],
        "opened": [p.chunk_id for p in run.opened],
        "validation_errors": list(run.validation_errors),
        "tool_budget_left": run.tool_budget_left,
        "force_final": run.force_final,
    }


def _decided(run: RunState, decided: Decided) -> Any:
    if not decided.effects.applied:
        decided.effects.apply(run)
    return decided.value


# --- the call points -------------------------------------------------------------------------
def decide(run: RunState, answerer: Answerer) -> Action:
    """The answerer's next action."""
    decided = run.io.exchange("decision", decision_request(run),
                              lambda: _captured(run, lambda: answerer.decide(run)), _DECISION)
    action: Action = _decided(run, decided)
    return action


def synthesise(run: RunState, synthesize: Callable[[RunState], FinalAnswer]) -> FinalAnswer:
    """The grounded fallback answer composed from the evidence gathered so far."""
    decided = run.io.exchange("synthesis", decision_request(run),
                              lambda: _captured(run, lambda: synthesize(run)), _DECISION)
    answer = _decided(run, decided)
    if not isinstance(answer, FinalAnswer):
        raise TypeError("the recorded synthesis is not a final answer")
    return answer


def propose_plan(run: RunState, answerer: Answerer) -> str | None:
    """The answerer's plan for the run, or None."""
    request = {"question": run.question, "standalone_query": run.standalone_query,
               "history": [[m.role, m.content] for m in run.history]}
    decided = run.io.exchange("plan", request, lambda: _captured(run, lambda: answerer.propose_plan(run)), _PLAN)
    plan: str | None = _decided(run, decided)
    return plan


def check_stop(run: RunState, stop: Callable[[], ExitReason | None]) -> ExitReason | None:
    """Whether the caller cancelled or the time budget is spent (the clock is outside world too)."""
    reason: ExitReason | None = run.io.exchange("clock", {"turn": run.turns, "tool_calls": run.tool_calls},
                                                stop, _STOP)
    return reason


def run_tool_call(run: RunState, call: ToolCall, source: PassageSource) -> dict[str, Any]:
    """Execute a tool call; the index it reads is reached through `run.io` too."""
    return run.io.exchange("tool", {"tool": call.tool, "input": call.input},
                           lambda: run_tool(run, call, _ExchangedSource(run, source)), _TOOL, served=False)


class _ExchangedSource:
    """The index as the tools see it, each search and open an exchange of the run."""

    def __init__(self, run: RunState, inner: PassageSource) -> None:
        self.run = run
        self.inner = inner

    def search(self, owner: str, query: str, *, top_k: int | None = None) -> SearchOutcome:
        request = {"op": "search", "owner": owner, "query": query, "top_k": top_k}
        outcome: SearchOutcome = self.run.io.exchange(
            "retrieval", request, lambda: self.inner.search(owner, query, top_k=top_k), _SEARCH)
        outcome.query = query
        return outcome

    def open(self, owner: str, document_id: str | None, chunk_id: str) -> Passage | None:
        request = {"op": "open", "owner": owner, "document_id": document_id, "chunk_id": chunk_id}
        passage: Passage | None = self.run.io.exchange(
            "retrieval", request, lambda: self.inner.open(owner, document_id, chunk_id), _OPEN)
        return passage


def canonical_json(value: Any) -> str:
    """One spelling of a JSON value (sorted keys), for comparing requests and responses."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


__all__ = ["canonical_json", "check_stop", "decide", "decision_request", "propose_plan",
           "run_tool_call", "synthesise"]
