"""Replaying a recorded run without a model, an index or a network, and comparing results.

`replay` runs the recorded question through the same runner and graph as a live run, but the
run's `RunIO` is a `ReplayIO`: every served exchange (the answerer's decisions and plan, the
synthesis, each search and open, the clock) returns the recorded response, after checking that
the code asks exactly what was asked when the run was recorded; the tools are executed for real
over the recorded passages and their output checked. The first request that differs is the
divergence, reported with its step. The result is then compared, byte for byte, with the
recorded one in `comparable_json` form: the AgentResult without wall-clock durations.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from citeline.agent.actions import Action, FinalAnswer
from citeline.agent.answerer import Answerer
from citeline.agent.callpoints import canonical_json
from citeline.agent.exchanges import Codec, Json, RunRecorder
from citeline.agent.graph import AgentGraph
from citeline.agent.result import AgentResult
from citeline.agent.runner import RunResources, run_agent
from citeline.agent.state import RunState
from citeline.config import recorded_settings
from citeline.errors import RetrievalError
from citeline.index.store import Passage
from citeline.retrieval import SearchOutcome
from citeline.retrieval.cache import NullCache
from citeline.runs.log import RecordedRun, RunLog

T = TypeVar("T")
_SHOWN = 300


class Divergence(Exception):
    """The replayed run asked something the recorded run did not ask at this step."""


class RecordEnded(Exception):
    """The replay needs a step the record does not have (the run was cut off)."""


def _short(value: Any) -> str:
    text = canonical_json(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def _first_difference(expected: Any, got: Any, path: str = "") -> str:
    """Where two JSON values first differ, e.g. `searches[0].query: "a" != "b"`."""
    if isinstance(expected, dict) and isinstance(got, dict):
        for key in sorted(set(expected) | set(got)):
            if key not in got or key not in expected or canonical_json(expected[key]) != canonical_json(got[key]):
                return _first_difference(expected.get(key), got.get(key), f"{path}.{key}" if path else key)
    if isinstance(expected, list) and isinstance(got, list):
        for index, (left, right) in enumerate(zip(expected, got, strict=False)):
            if canonical_json(left) != canonical_json(right):
                return _first_difference(left, right, f"{path}[{index}]")
        if len(expected) != len(got):
            return f"{path or 'value'}: {len(expected)} items expected, got {len(got)}"
    return f"{path or 'value'}: expected {_short(expected)}, got {_short(got)}"


class ReplayIO(RunRecorder):
    """Serves a run's recorded exchanges in order and checks each request against the record."""

    def __init__(self, exchanges: list[Json]) -> None:
        self.exchanges = exchanges
        self.cursor = 0
        self.divergence: str | None = None
        self.ended = False

    def _next(self, kind: str, request: Json) -> Json:
        if self.divergence is not None:
            raise Divergence(self.divergence)
        if self.cursor >= len(self.exchanges):
            self.ended = True
            raise RecordEnded(f"the record ends after step {self.cursor}")
        recorded = self.exchanges[self.cursor]
        step = recorded.get("n", self.cursor + 1)
        if recorded.get("kind") != kind:
            self.divergence = (f"step {step}: expected a {recorded.get('kind')} request "
                               f"{_short(recorded.get('request'))}, got a {kind} request {_short(request)}")
            raise Divergence(self.divergence)
        if canonical_json(recorded.get("request")) != canonical_json(request):
            self.divergence = (f"step {step}: the {kind} request differs from the recorded one — "
                               + _first_difference(recorded.get("request"), request))
            raise Divergence(self.divergence)
        self.cursor += 1
        return recorded

    def exchange(self, kind: str, request: Json, perform: Callable[[], T], codec: Codec[T], *,
                 served: bool = True) -> T:
        """The recorded response of the next exchange, after checking the request matches the record;
        exchanges the run performs itself (over served inputs) are performed and compared."""
        if served:
            recorded = self._next(kind, request)
            if "error" in recorded:
                raise codec.decode_error(recorded["error"])
            return codec.decode(recorded["response"])
        # Not served: performed over served inputs (which come first in the record), then checked.
        error: Exception | None = None
        try:
            value: T | None = perform()
            outcome: Json = {"response": codec.encode(value)}  # type: ignore[arg-type]
        except (Divergence, RecordEnded):
            raise
        except Exception as exc:
            value, error = None, exc
            outcome = {"error": codec.encode_error(exc)}
        recorded = self._next(kind, request)
        expected = {key: recorded[key] for key in ("response", "error") if key in recorded}
        if canonical_json(expected) != canonical_json(outcome):
            self.divergence = (f"step {recorded.get('n', self.cursor)}: the {kind} gave a different result than "
                               "when recorded — " + _first_difference(expected, outcome))
            raise Divergence(self.divergence)
        if error is not None:
            raise error
        return value  # type: ignore[return-value]


class RecordedAnswerer(Answerer):
    """Stands in for the recorded run's answerer: its name and prompt, never a decision (those
    are served from the record)."""

    shareable = False

    def __init__(self, name: str, fingerprint: str, system_prompt: str) -> None:
        self.name = name
        self._fingerprint = fingerprint
        self._system_prompt = system_prompt

    @property
    def fingerprint(self) -> str:
        """The recorded answerer's fingerprint, so the replay keys caches as the run did."""
        return self._fingerprint

    @property
    def system_prompt(self) -> str:
        """The recorded system prompt, so budget checks see what the run saw."""
        return self._system_prompt

    def decide(self, run: RunState) -> Action:
        """Never called in a faithful replay: every decision is served from the record, so a call is a
        divergence."""
        raise Divergence("the replay asked the answerer for a decision the record does not serve")


class _NoIndex:
    """The tools' passage source during a replay: every read is served from the record."""

    def search(self, owner: str, query: str, *, top_k: int | None = None) -> SearchOutcome:
        raise RetrievalError("a replay does not read the index")

    def open(self, owner: str, document_id: str | None, chunk_id: str) -> Passage | None:
        raise RetrievalError("a replay does not read the index")


def _no_synthesis(run: RunState) -> FinalAnswer:
    raise Divergence("the replay asked for a synthesis the record does not serve")


# --- comparing results -----------------------------------------------------------------------
def comparable(result: Mapping[str, Any], *, ignore_identity: bool = False) -> dict[str, Any]:
    """The result without what differs between two executions of the same run: wall-clock
    timings and durations (and, for a cache hit compared with its source, query id and `cached`)."""
    data = dict(result)
    data["timings"] = {}
    data["trace"] = [{**entry, "elapsed_ms": 0} for entry in data.get("trace", [])]
    data["steps"] = [{**step, "duration_ms": 0} for step in data.get("steps", [])]
    if ignore_identity:
        data["query_id"], data["cached"] = "", False
    return data


def comparable_json(result: Mapping[str, Any], *, ignore_identity: bool = False) -> bytes:
    """The bytes two results must share to be identical."""
    return canonical_json(comparable(result, ignore_identity=ignore_identity)).encode("utf-8")


def differences(recorded: Mapping[str, Any], current: Mapping[str, Any]) -> list[str]:
    """What a user sees differ between two results: exit reason, answer, citations."""
    found: list[str] = []
    if recorded.get("exit_reason") != current.get("exit_reason"):
        found.append(f"exit reason: {recorded.get('exit_reason')} -> {current.get('exit_reason')}")
    if recorded.get("answer") != current.get("answer"):
        found.append(f"answer:\n  - {recorded.get('answer')!r}\n  + {current.get('answer')!r}")

    def cited(result: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        return [(c.get("id"), c.get("document_name"), c.get("chunk_id"), c.get("quote"))
                for c in result.get("citations", [])]

    before, after = cited(recorded), cited(current)
    for item in before:
        if item not in after:
            found.append(f"citation removed: [{item[0]}] {item[1]} {item[2]}: {str(item[3])[:120]!r}")
    for item in after:
        if item not in before:
            found.append(f"citation added: [{item[0]}] {item[1]} {item[2]}: {str(item[3])[:120]!r}")
    return found


@dataclass
class ReplayReport:
    """The outcome of `citeline replay`: identical or not, and where and how it differs."""

    run_id: str
    identical: bool
    steps_recorded: int
    steps_replayed: int
    divergence: str | None = None
    incomplete: bool = False
    replayed_run_id: str | None = None  # the run actually replayed (the source of a cache hit)
    note: str | None = None
    differences: list[str] = field(default_factory=list)
    result: dict[str, Any] | None = None
    compared_bytes: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The report as plain values (`citeline replay --json`)."""
        return {key: value for key, value in self.__dict__.items()}


def _execute(run: RecordedRun) -> tuple[AgentResult, ReplayIO]:
    start = run.start or {}
    context = run.context or {}
    settings = recorded_settings(dict(start.get("settings") or {}))
    io = ReplayIO(run.exchanges)
    answerer = RecordedAnswerer(str(context.get("answerer") or start.get("model") or ""),
                                str(context.get("answerer_fingerprint") or ""),
                                str(context.get("system_prompt") or ""))
    graph = AgentGraph(answerer, _NoIndex(), _no_synthesis)
    resources = RunResources(graph=graph, cache=NullCache(), corpus_version=int(context.get("corpus_version") or 0))
    result = run_agent(settings, lambda: resources, str(start.get("question", "")), owner=str(start.get("owner", "")),
                       model=start.get("model"), history=list(start.get("history") or []), on_event=None,
                       cancelled=None, query_id=str(start.get("query_id", "")), recorder=io)
    return result, io


def replay(run: RecordedRun, runs: RunLog | None = None) -> ReplayReport:
    """Re-execute `run` from its record alone and compare the result with the recorded one."""
    if run.start is None:
        raise ValueError(f"run {run.run_id} has no start record (the log part holding it was pruned)")
    cached_from = (run.context or {}).get("cached_from")
    if cached_from:
        source = runs.by_query_id(str(cached_from)) if runs is not None else None
        if source is None:
            return ReplayReport(run.run_id, identical=False, steps_recorded=0, steps_replayed=0,
                                note=f"answered from the answer cache of query {cached_from}, whose run is no "
                                "longer in the runs log: nothing to replay")
        report = replay(source, runs)
        report.run_id, report.replayed_run_id = run.run_id, source.run_id
        report.note = f"answered from the answer cache; replayed run {source.run_id}, which produced the answer"
        if report.result is not None and run.result is not None:
            expected = comparable_json(run.result, ignore_identity=True)
            report.identical = report.identical and comparable_json(report.result, ignore_identity=True) == expected
            report.compared_bytes = len(expected)
        return report
    result, io = _execute(run)
    replayed = result.model_dump(mode="json")
    report = ReplayReport(run.run_id, identical=False, steps_recorded=len(run.exchanges),
                          steps_replayed=io.cursor, divergence=io.divergence, result=replayed)
    if io.divergence is None and (io.ended or run.end is None):
        report.incomplete = True
        report.note = (f"the run was cut off before it ended: its {len(run.exchanges)} recorded steps replay "
                       "without divergence, and there is no result to compare")
        return report
    if io.divergence is None and io.cursor < len(run.exchanges):
        report.divergence = (f"step {io.cursor + 1}: the replay ended, but the record has "
                             f"{len(run.exchanges) - io.cursor} more step(s), starting with a "
                             f"{run.exchanges[io.cursor].get('kind')} request")
    recorded = run.result
    if recorded is None:
        report.note = f"the recorded run failed: {(run.end or {}).get('error')}"
        return report
    expected = comparable_json(recorded)
    report.compared_bytes = len(expected)
    report.identical = report.divergence is None and comparable_json(replayed) == expected
    if not report.identical:
        report.differences = differences(recorded, replayed)
    return report
