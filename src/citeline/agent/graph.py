"""The bounded agent as a LangGraph StateGraph:

    guard -> plan -> act <-> tools
                      |
                      v
                   validate -> (reprompt) act | finalize

Every path ends in `finalize`, which sets exactly one exit reason. A node that raises does not
escape: `_guarded` turns the exception into an exit reason and routes to `finalize`.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, TypedDict, cast

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, LLMResult
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import get_callback_manager_for_config
from langgraph.graph import END, START, StateGraph

from citeline.agent import callpoints, context, grounding, planning
from citeline.agent.actions import FinalAnswer, ProviderError, ToolCall
from citeline.agent.answerer import Answerer
from citeline.agent.exits import DECLINE_MESSAGE, EXIT_SPECS, ExitReason
from citeline.agent.result import Insufficiency, ModelError, Step, Strategy
from citeline.agent.state import RunState
from citeline.agent.tools import InvalidToolCall, PassageSource
from citeline.errors import CitelineError, ContextOverflowError, RetrievalError
from citeline.retrieval.focus import as_asked
from citeline.text import printable

if TYPE_CHECKING:
    from langchain_core.tools import StructuredTool

MODEL_RETRIES = 2
MAX_UNUSABLE = 2  # unusable outputs tolerated (re-asked) before LLM_GENERATION_FAILURE
MODEL_FAILED_MESSAGE = "The model failed while generating the answer."
Synthesizer = Callable[[RunState], FinalAnswer]


class GraphState(TypedDict):
    """What flows between the graph's nodes: the run itself and the name of the next node."""

    run: RunState
    route: str


class AgentGraph:
    """Compiles the graph once; `invoke(run)` drives one run to its single exit."""

    def __init__(self, answerer: Answerer, retriever: PassageSource, synthesize: Synthesizer) -> None:
        self.answerer = answerer
        self.retriever = retriever
        self.synthesize = synthesize
        graph = StateGraph(GraphState)
        for name, node in (("guard", self._guard), ("plan", self._plan), ("act", self._act),
                           ("tools", self._tools), ("validate", self._validate)):
            graph.add_node(name, _guarded(node))  # type: ignore[call-overload, arg-type, unused-ignore]  # (state, config) node
        graph.add_node("finalize", self._finalize)
        graph.add_edge(START, "guard")
        for name in ("guard", "plan", "act", "tools", "validate"):
            graph.add_conditional_edges(name, _route)
        graph.add_edge("finalize", END)
        self.compiled = graph.compile()

    def invoke(self, run: RunState, config: RunnableConfig | None = None) -> RunState:
        """Drive one run through the graph to its single exit and return its final state."""
        final = self.compiled.invoke({"run": run, "route": "guard"}, self._config(run, config))
        return cast(RunState, final["run"])

    async def ainvoke(self, run: RunState, config: RunnableConfig | None = None) -> RunState:
        """`invoke` for async callers; with `config` callbacks, LangChain sees the run's events."""
        final = await self.compiled.ainvoke({"run": run, "route": "guard"}, self._config(run, config))
        return cast(RunState, final["run"])

    @staticmethod
    def _config(run: RunState, config: RunnableConfig | None) -> RunnableConfig:
        # Each node is one super-step; the bound is generous and only guards against a bug.
        agent = run.settings.agent
        limit = 6 + 4 * (agent.max_turns + agent.max_tool_calls + agent.max_reprompts)
        return {**(config or {}), "recursion_limit": limit}

    # --- nodes ---------------------------------------------------------------------------
    def _guard(self, run: RunState, config: RunnableConfig) -> str:
        if not run.question.strip():
            return _exit(run, ExitReason.EMPTY_INPUT)
        if len(run.question) > run.settings.agent.max_question_chars:
            return _exit(run, ExitReason.INPUT_TOO_LONG)
        return "plan"

    def _plan(self, run: RunState, config: RunnableConfig) -> str:
        started = time.perf_counter()
        context.check_fits(run.settings, system_prompt=self.answerer.system_prompt, question=run.question,
                           min_evidence_chars=min(run.settings.agent.citation_chars, 1000))
        run.history = context.trim_history(run.history, run.settings.agent.history_tokens)
        run.constraints = planning.analyze_constraints(run.question)
        run.standalone_query = planning.standalone_query(as_asked(run.question), run.history)
        fallback = planning.default_plan(run.standalone_query, run.constraints)
        proposal = callpoints.propose_plan(run, self.answerer)
        run.plan = planning.parse_plan(proposal, fallback) if proposal else fallback
        run.strategy = Strategy(**planning.choose_strategy(run.question, run.constraints))
        run.record("plan", steps=run.plan, constraints=run.constraints.as_dict(), strategy=run.strategy.name,
                   standalone_query=run.standalone_query)
        run.event("plan", steps=run.plan, strategy=run.strategy.model_dump())
        run.steps.append(Step(step="validation", duration_ms=_ms(started), success=True))
        return "act"

    def _act(self, run: RunState, config: RunnableConfig) -> str:
        if (stop := _interrupted(run)) is not None:
            return stop
        if run.turns >= run.settings.agent.max_turns:
            return _exit(run, ExitReason.MAX_TURNS_REACHED)
        run.turns += 1
        started = time.perf_counter()
        with _model_run(run, config, self.answerer.name) as report:
            action = self._decide(run)
            report(action)
        run.generation_ms += _ms(started)
        if isinstance(action, str):  # an exit decided while calling the model
            return action
        run.pending = action
        if isinstance(action, ToolCall):
            if run.force_final:  # the budget is spent: no more tools, synthesise from evidence
                return self._synthesise(run, "the model asked for another tool after its budget was spent")
            return "tools"
        if isinstance(action, FinalAnswer):
            run.draft = action
            return "validate"
        run.unusable_outputs += 1
        run.record("error", kind="unusable_output", reason=action.reason, raw=action.raw[:500])
        if run.unusable_outputs > MAX_UNUSABLE:
            run.limit_hit = ExitReason.LLM_GENERATION_FAILURE
            return self._synthesise(run, "the model produced no usable output")
        run.validation_errors = [f"Your last output was not a valid action ({action.reason}). Output exactly one "
                                 "JSON object."]
        return "act"

    def _decide(self, run: RunState) -> Any:
        """Ask the answerer, retrying transient provider failures (never counted as tool calls)."""
        for attempt in range(MODEL_RETRIES + 1):
            try:
                return callpoints.decide(run, self.answerer)
            except ProviderError as exc:
                run.record("error", kind=f"provider_{exc.kind}", message=str(exc)[:300], attempt=attempt + 1)
                if exc.kind != "cancelled" and (exc.kind == "context_length" or not exc.retryable
                                                or attempt == MODEL_RETRIES):
                    run.error = ModelError(kind=exc.kind, message=str(exc), status=exc.status, hint=exc.hint)
                if exc.kind == "context_length":
                    return _exit(run, ExitReason.MAX_CONTEXT_REACHED)
                if exc.kind == "cancelled":
                    return _exit(run, ExitReason.CANCELLED)
                if not exc.retryable or attempt == MODEL_RETRIES:
                    if exc.kind == "rate_limit":
                        return _exit(run, ExitReason.RATE_LIMITED)
                    if exc.kind == "timeout" and _remaining_s(run) <= 0:
                        return _exit(run, ExitReason.TIMEOUT)
                    return _exit(run, ExitReason.LLM_ERROR)
                delay = exc.retry_after if exc.retry_after is not None else 0.25 * (2**attempt)
                delay = min(delay, 30.0) + random.uniform(0, 0.1)
                if delay >= _remaining_s(run):
                    return _exit(run, ExitReason.TIMEOUT)
                run.clock.sleep(delay)
                if (stop := _interrupted(run)) is not None:
                    return stop
        raise AssertionError("unreachable")

    def _tools(self, run: RunState, config: RunnableConfig) -> str:
        call = run.pending
        assert isinstance(call, ToolCall)
        if run.tool_calls >= run.settings.agent.max_tool_calls:
            run.limit_hit = ExitReason.MAX_TOOL_CALLS_REACHED
            run.force_final = True
            run.record("error", kind="tool_budget_exhausted", requested=call.tool)
            run.validation_errors = ["TOOL BUDGET EXHAUSTED: answer now from the passages you have, citing [n]."]
            return "act"
        run.event("tool_start", tool=call.tool, input=call.input)
        started = time.perf_counter()
        try:
            summary = as_langchain_tool(call.tool, lambda: callpoints.run_tool_call(run, call, self.retriever)).invoke(
                call.input, config)
        except InvalidToolCall as exc:
            run.invalid_calls += 1
            run.record("tool_call", tool=call.tool, input=call.input, error=str(exc))
            run.event("tool_end", tool=call.tool, error=str(exc))
            if run.invalid_calls > 1:
                return _exit(run, ExitReason.INVALID_TOOL_CALL)
            run.validation_errors = [f"Invalid tool call: {exc}."]
            return "act"
        run.tool_calls += 1
        run.steps.append(Step(step="retrieval", duration_ms=_ms(started), success=True))
        run.record("tool_call", tool=call.tool, input=call.input, output=summary)
        run.event("tool_end", tool=call.tool, output=summary)
        run.validation_errors = []
        return "act"

    def _validate(self, run: RunState, config: RunnableConfig) -> str:
        draft = run.draft
        assert draft is not None
        started = time.perf_counter()
        evidence = run.evidence()
        check = grounding.validate(
            draft.answer, evidence, question=run.standalone_query or run.question, constraints=run.constraints,
            searches_done=len(run.searches), opened_count=len(run.opened), insufficiencies=draft.insufficiencies,
            threshold=run.settings.agent.support_threshold,
        )
        run.record("validation", ok=check.ok, errors=check.errors, stripped_refs=check.stripped_refs,
                   removed_sentences=check.removed_sentences, attempt=run.reprompts + 1,
                   **({"decision": draft.decision} if draft.decision is not None else {}))
        run.event("validation", ok=check.ok, errors=check.errors)
        run.steps.append(Step(step="reasoning", duration_ms=_ms(started), success=check.ok,
                              error="; ".join(check.codes) or None))
        _collect_insufficiencies(run, draft)
        if check.ok:
            if grounding.is_decline(check.cleaned_answer) and not grounding.CITE.search(check.cleaned_answer):
                return _exit(run, run.limit_hit or ExitReason.INSUFFICIENT_CONTEXT)
            run.answer = check.cleaned_answer
            return _exit(run, run.limit_hit or ExitReason.COMPLETED)
        if run.reprompts < run.settings.agent.max_reprompts and not run.force_final:
            run.reprompts += 1
            run.validation_errors = check.errors
            run.record("reprompt", codes=check.codes, remaining_tool_budget=run.tool_budget_left,
                       attempt=run.reprompts)
            run.event("reprompt", errors=check.errors, remaining_tool_budget=run.tool_budget_left)
            return "act"
        grounded = check.grounded_answer if grounding.CITE.search(check.grounded_answer) else ""
        run.answer = grounded or DECLINE_MESSAGE
        return _exit(run, run.limit_hit or ExitReason.VALIDATION_FAILED)

    def _synthesise(self, run: RunState, why: str) -> str:
        run.force_final = True
        run.record("error", kind="synthesis", reason=why)
        run.draft = callpoints.synthesise(run, self.synthesize)
        return "validate"

    def _finalize(self, state: GraphState) -> GraphState:
        run = state["run"]
        finalize_run(run)
        return {"run": run, "route": END}


# --- helpers ---------------------------------------------------------------------------------
def as_langchain_tool(name: str, execute: Callable[[], dict[str, Any]]) -> StructuredTool:
    """A LangChain tool around one execution, so LangChain callbacks (and `astream_events`)
    see on_tool_start / on_tool_end with the real input and output."""
    # Imported at the first tool call: LangChain's tool classes are not needed to start a run.
    from langchain_core.tools import StructuredTool

    def call(**_: Any) -> dict[str, Any]:
        return execute()

    return StructuredTool.from_function(
        func=call, name=name, description=f"citeline {name}", args_schema=_ANY_ARGS, infer_schema=False,
        handle_tool_error=False,
    )


_ANY_ARGS: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": True}


@contextmanager
def _model_run(run: RunState, config: RunnableConfig, name: str) -> Iterator[Callable[[Any], None]]:
    """Report one answerer decision as a chat-model run: its tokens become on_chat_model_stream."""
    manager = get_callback_manager_for_config(config)
    if not manager.handlers:
        yield lambda _action: None
        return
    prompt: list[BaseMessage] = [HumanMessage(content=run.standalone_query or run.question)]
    (model_run,) = manager.on_chat_model_start({"name": name}, [prompt], name=name)
    pieces: list[str] = []

    def on_token(text: str) -> None:
        pieces.append(text)
        model_run.on_llm_new_token(text, chunk=ChatGenerationChunk(message=AIMessageChunk(content=text)))

    def report(action: Any) -> None:
        content = "".join(pieces) or (action.answer if isinstance(action, FinalAnswer) else "")
        model_run.on_llm_end(LLMResult(generations=[[ChatGeneration(message=AIMessage(content=content))]]))

    run.token_hook = on_token
    try:
        yield report
    except BaseException as exc:
        model_run.on_llm_error(exc)
        raise
    finally:
        run.token_hook = None


def _route(state: GraphState) -> str:
    return state["route"]


def _guarded(node: Callable[[RunState, RunnableConfig], str]) -> Callable[[GraphState, RunnableConfig], GraphState]:
    def wrapper(state: GraphState, config: RunnableConfig) -> GraphState:
        run = state["run"]
        try:
            route = node(run, config)
        except RetrievalError as exc:
            run.record("error", kind="retrieval", message=str(exc))
            route = _exit(run, ExitReason.RETRIEVAL_ERROR)
        except ContextOverflowError as exc:
            run.record("error", kind="context", message=str(exc))
            route = _exit(run, ExitReason.MAX_CONTEXT_REACHED)
        except (CitelineError, Exception) as exc:  # single termination: nothing escapes a node
            run.record("error", kind="internal", message=f"{exc.__class__.__name__}: {str(exc)[:200]}")
            route = _exit(run, ExitReason.LLM_ERROR)
        return {"run": run, "route": route}

    wrapper.__name__ = node.__name__
    return wrapper


def _exit(run: RunState, reason: ExitReason) -> str:
    if run.exit_reason is None:
        run.exit_reason = reason
    return "finalize"


def _remaining_s(run: RunState) -> float:
    return run.settings.agent.timeout_s - run.elapsed_ms / 1000


def _interrupted(run: RunState) -> str | None:
    def stop() -> ExitReason | None:
        if run.cancelled is not None and run.cancelled():
            return ExitReason.CANCELLED
        return ExitReason.TIMEOUT if _remaining_s(run) <= 0 else None

    reason = callpoints.check_stop(run, stop)
    return _exit(run, reason) if reason is not None else None


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


def _collect_insufficiencies(run: RunState, draft: FinalAnswer) -> None:
    run.insufficiencies = []
    for item in draft.insufficiencies:
        missing = item.get("missing") or item.get("detail") or ""
        if not missing:
            continue
        queries = item.get("queries_tried") or item.get("queriesTried") or run.queries_tried
        run.insufficiencies.append(Insufficiency(section=str(item.get("section") or "answer"),
                                                 missing=printable(str(missing)),
                                                 queries_tried=[printable(str(q)) for q in queries]))


def _withheld_note(run: RunState) -> str:
    """Which flagged documents the searches ranked but kept out of the evidence, said in a decline:
    without it a user whose page answers the question (and also carries text aimed at an AI) is
    told only that the documents do not answer. Named by file, not by title: a title is the
    document's own text, which may be the very instruction that got it flagged."""
    files = list(dict.fromkeys(printable(PurePath(source).name or source)
                               for record in run.searches for source in record.withheld))
    if not files:
        return ""
    shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    which = "it holds" if len(files) == 1 else "each holds"
    return (f"Not used as evidence: {shown} ({which} text addressed to an AI assistant, flagged when "
            "ingested; remove that text and ingest again to use it).")


def finalize_run(run: RunState) -> None:
    """Set the user-facing answer, citations and insufficiencies for the run's exit reason."""
    reason = run.exit_reason or ExitReason.LLM_ERROR
    run.exit_reason = reason
    spec = EXIT_SPECS[reason]
    if reason in {ExitReason.COMPLETED, ExitReason.MAX_TOOL_CALLS_REACHED, ExitReason.VALIDATION_FAILED,
                  ExitReason.LLM_GENERATION_FAILURE} and run.answer and grounding.CITE.search(run.answer):
        run.citations = grounding.build_citations(run.answer, run.evidence())
    elif reason in {ExitReason.EMPTY_INPUT, ExitReason.CANCELLED}:
        run.answer = ""
    elif reason == ExitReason.INPUT_TOO_LONG:
        run.answer = (spec.message or "").format(limit=run.settings.agent.max_question_chars)
    elif reason == ExitReason.TIMEOUT:
        run.answer = (spec.message or "").format(limit=run.settings.agent.timeout_s)
    elif reason == ExitReason.LLM_ERROR and run.error is not None:
        run.answer = MODEL_FAILED_MESSAGE  # not an internal error: `error` says what the provider said
    elif spec.message is not None and reason != ExitReason.INSUFFICIENT_CONTEXT:
        run.answer = spec.message
    else:  # declined: the canned message plus the searches that were tried
        tried = [printable(query) for query in run.queries_tried]  # echoed: no terminal escapes
        found = "; ".join(dict.fromkeys(printable(i.missing) for i in run.insufficiencies
                                        if i.missing != run.question.strip()))
        withheld = _withheld_note(run)
        run.answer = (DECLINE_MESSAGE + (f"\n\nSearches tried: {'; '.join(tried)}." if tried else "")
                      + (f"\n\nWhat is missing: {found}." if found else "")
                      + (f"\n\n{withheld}" if withheld else ""))
        if reason == ExitReason.COMPLETED:
            run.exit_reason = reason = ExitReason.INSUFFICIENT_CONTEXT
        if not run.insufficiencies:
            run.insufficiencies = [Insufficiency(section="answer", missing=printable(run.question)[:300],
                                                 queries_tried=tried)]
        if withheld:
            run.insufficiencies.append(Insufficiency(section="withheld", missing=withheld, queries_tried=tried))
    if reason in {ExitReason.COMPLETED, ExitReason.MAX_TOOL_CALLS_REACHED} and not run.citations:
        # Never report success without verified evidence (grounding rule 4).
        run.exit_reason = ExitReason.INSUFFICIENT_CONTEXT
        finalize_run(run)
        return
    run.steps.append(Step(step="response", duration_ms=0.0, success=run.exit_reason == ExitReason.COMPLETED))
    run.record("final", exit_reason=run.exit_reason.value, citations=len(run.citations))
