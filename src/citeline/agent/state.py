"""The state of one run: everything the nodes, the policy and the finaliser read and write."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from citeline.agent.actions import Action, FinalAnswer
from citeline.agent.clock import SYSTEM_CLOCK, Clock
from citeline.agent.exchanges import RunIO
from citeline.agent.exits import ExitReason
from citeline.agent.planning import Constraints
from citeline.agent.result import Citation, Insufficiency, ModelError, Step, Strategy, TraceEntry, Usage
from citeline.config import Settings
from citeline.index.store import Passage

EventSink = Callable[[str, dict[str, Any]], None]


@dataclass
class Message:
    """One earlier turn of the conversation, as the run's history holds it."""

    role: str  # "user" | "assistant"
    content: str


@dataclass
class SearchRecord:
    """One search the run made: its query, the passages it returned, and whether they came from cache."""

    query: str
    passages: list[Passage]
    cached: bool = False
    background: float | None = None  # the query's mean similarity to the corpus's other passages, if known
    withheld: tuple[str, ...] = ()  # sources of the ranked passages kept out as untrusted (flagged at ingest)


@dataclass
class RunState:
    """Everything about one run that the nodes, the answerer and the finaliser read and write: the
    question, the evidence gathered, the counters the limits check, and the result taking shape."""

    query_id: str
    question: str
    owner: str
    settings: Settings
    history: list[Message] = field(default_factory=list)
    standalone_query: str = ""
    constraints: Constraints = field(default_factory=Constraints)
    plan: list[str] = field(default_factory=list)
    strategy: Strategy | None = None

    searches: list[SearchRecord] = field(default_factory=list)
    opened: list[Passage] = field(default_factory=list)
    turns: int = 0
    tool_calls: int = 0
    reprompts: int = 0
    invalid_calls: int = 0
    unusable_outputs: int = 0
    validation_errors: list[str] = field(default_factory=list)
    pending: Action | None = None
    draft: FinalAnswer | None = None
    force_final: bool = False
    limit_hit: ExitReason | None = None

    answer: str = ""
    exit_reason: ExitReason | None = None
    error: ModelError | None = None  # the provider failure the run ended on
    citations: list[Citation] = field(default_factory=list)
    insufficiencies: list[Insufficiency] = field(default_factory=list)
    trace: list[TraceEntry] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    retrieval_ms: float = 0.0
    generation_ms: float = 0.0
    # The time budget and every wait of the run go through this clock (tests pass a manual one).
    clock: Clock = SYSTEM_CLOCK
    started: float = field(init=False)
    model_cached: bool = False
    emit: EventSink | None = None
    token_hook: Callable[[str], None] | None = None  # set while a model turn is reported to LangChain
    cancelled: Callable[[], bool] | None = None
    # Where the run's exchanges with the outside world go: performed, recorded or replayed.
    io: RunIO = field(default_factory=RunIO)
    token_log: list[str] | None = None  # set while an answerer call is captured for the runs log
    model_log: list[dict[str, Any]] | None = None

    def __post_init__(self) -> None:
        self.started = self.clock.monotonic()

    # --- evidence ------------------------------------------------------------------------
    def evidence(self) -> list[Passage]:
        """The passages `[n]` refers to: opened passages in order of opening, or, when nothing
        was opened, the distinct search results in order of first appearance. The model's prompt
        numbers passages the same way, so its `[n]` and the validator's mean the same text."""
        if self.opened:
            return self.opened
        seen: set[tuple[str, str]] = set()
        ordered: list[Passage] = []
        for record in self.searches:
            for passage in record.passages:
                key = (passage.document_id, passage.chunk_id)
                if key not in seen:
                    seen.add(key)
                    ordered.append(passage)
        return ordered

    def retrieved(self) -> list[Passage]:
        """Every distinct passage seen in this run (searched or opened)."""
        seen: set[tuple[str, str]] = set()
        result: list[Passage] = []
        for passage in [p for r in self.searches for p in r.passages] + self.opened:
            key = (passage.document_id, passage.chunk_id)
            if key not in seen:
                seen.add(key)
                result.append(passage)
        return result

    @property
    def queries_tried(self) -> list[str]:
        """The queries searched so far, in order (reported when the documents do not answer)."""
        return [record.query for record in self.searches]

    @property
    def tool_budget_left(self) -> int:
        """Tool calls the run may still make before it must answer."""
        return max(0, self.settings.agent.max_tool_calls - self.tool_calls)

    @property
    def elapsed_ms(self) -> float:
        """Milliseconds since the run started, on the run's clock (what the time budget is checked
        against)."""
        return (self.clock.monotonic() - self.started) * 1000

    # --- observability -------------------------------------------------------------------
    def record(self, entry_type: str, /, **data: Any) -> None:
        """Append an entry to the run's trace, stamped with the elapsed time."""
        self.trace.append(TraceEntry(type=entry_type, data=data, elapsed_ms=round(self.elapsed_ms, 2)))  # type: ignore[arg-type]

    def event(self, event_type: str, /, **payload: Any) -> None:
        """Emit an event to whoever streams the run (and tokens to LangChain and the runs log while
        they listen)."""
        if self.emit is not None:
            self.emit(event_type, payload)
        if event_type == "token" and self.token_hook is not None:
            self.token_hook(str(payload.get("text", "")))
        if event_type == "token" and self.token_log is not None:
            self.token_log.append(str(payload.get("text", "")))

    def model_exchange(self, request: dict[str, Any], response: dict[str, Any]) -> None:
        """Answerers that talk to a model report each request and response here, so the runs log
        holds what was really sent and received (a replay does not need them: it replays decisions)."""
        if self.model_log is not None:
            self.model_log.append({"request": request, "response": response})
