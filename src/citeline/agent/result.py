"""AgentResult: one schema for the Python object, `--json` output and the HTTP body."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from citeline.agent.exits import ExitReason

TraceType = Literal["plan", "tool_call", "validation", "reprompt", "final", "error"]
StepName = Literal["validation", "retrieval", "reasoning", "response"]


class Citation(BaseModel):
    """One `[n]` of the answer, resolved: the passage it cites, the verbatim quote that supports the
    sentence carrying it, and where that sentence is, so a client can show and check the source."""

    id: int = Field(description="The n of `[n]` in the answer.")
    document_id: str
    document_name: str
    source: str = Field(description="Where the document came from (file path or upload name).")
    chunk_id: str
    chunk_index: int
    page: int | None = None
    section: str | None = None
    quote: str = Field(description="Verbatim text of the cited chunk that supports the fragment.")
    response_fragment: str = Field(description="The claim of the answer this citation supports: the sentence "
                                   "carrying it, with the uncited sentences of its line before it.")
    position_in_response: int = Field(description="Character offset of the `[n]` marker in the answer.")
    score: float = Field(description="Retrieval score of the passage (0-1).")
    confidence: float = Field(description="How well the passage supports the fragment (0-1).")


class Insufficiency(BaseModel):
    """Something the documents did not cover: which part of the question, what is missing, and the
    searches that were tried, so the user knows what to add or ask."""

    section: str
    missing: str
    queries_tried: list[str] = Field(default_factory=list)


class TraceEntry(BaseModel):
    """One step of what the run did (plan, tool call, validation, reprompt, error, final) and when,
    for explaining an answer afterwards."""

    type: TraceType
    data: dict[str, Any] = Field(default_factory=dict)
    elapsed_ms: float = 0.0


class Step(BaseModel):
    """Time and outcome of one phase of the run (validation, retrieval, reasoning, response), for
    monitoring where time goes."""

    step: StepName
    duration_ms: float
    success: bool
    error: str | None = None


class Strategy(BaseModel):
    """How deeply the run means to search and verify for this question, and why; reported so a reader
    sees why a run did what it did."""

    name: str
    retrieval_depth: Literal["shallow", "medium", "deep"]
    reasoning_complexity: Literal["simple", "moderate", "complex"]
    citation_style: Literal["minimal", "detailed"]
    response_length: Literal["short", "medium", "detailed"]
    verification_level: Literal["basic", "thorough", "extensive"]
    confidence: float
    reasoning: str


class Usage(BaseModel):
    """Model tokens spent by the run (zero for answerers that use no model), for cost accounting."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0

    def add(self, prompt: int, completion: int) -> None:
        """Count the tokens of one model call."""
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        self.total_tokens = self.prompt_tokens + self.completion_tokens


class Timings(BaseModel):
    """Where the run's time went: retrieval, generation and the whole run, in milliseconds."""

    retrieval_ms: float = 0.0
    generation_ms: float = 0.0
    total_ms: float = 0.0


class ModelError(BaseModel):
    """Why the model could not be used, when a run ended on a provider failure: what the provider
    said (with the HTTP status, if any) and how to fix it. Never carries the API key."""

    kind: str = Field(description="auth | bad_request | rate_limit | server | timeout | context_length")
    message: str
    status: int | None = None
    hint: str = Field(default="", description="How to fix it.")


class AgentResult(BaseModel):
    """The outcome of one question: the answer, its verified citations, exactly one exit reason and
    the trace. The same object is returned in Python, printed by `--json` and sent as the HTTP
    body."""

    query_id: str
    question: str
    answer: str
    exit_reason: ExitReason
    retryable: bool | None
    citations: list[Citation] = Field(default_factory=list)
    insufficiencies: list[Insufficiency] = Field(default_factory=list)
    trace: list[TraceEntry] = Field(default_factory=list)
    steps: list[Step] = Field(default_factory=list)
    strategy: Strategy | None = None
    usage: Usage = Field(default_factory=Usage)
    timings: Timings = Field(default_factory=Timings)
    model: str
    cached: bool = False
    error: ModelError | None = Field(default=None, description="The model's failure, when the run ended on one.")

    @property
    def answered(self) -> bool:
        """Whether the user got an answer backed by citations (not a decline, a limit without evidence
        or a failure)."""
        return self.exit_reason in {ExitReason.COMPLETED, ExitReason.MAX_TOOL_CALLS_REACHED} and bool(
            self.citations
        )

    def sources(self) -> list[tuple[Citation, list[str]]]:
        """Each cited passage once, in order of first citation, with the distinct quotes of the claims
        citing it (what a "Sources" list shows: one entry per `[n]`, one quote per claim; none for a
        passage cited only by a code block)."""
        grouped: dict[int, tuple[Citation, list[str]]] = {}
        for citation in self.citations:
            quotes = grouped.setdefault(citation.id, (citation, []))[1]
            # A code block stands whole in the answer, its `[n]` right after the closing fence:
            # its text is not repeated as a quote.
            code = self.answer[: citation.position_in_response].rstrip().endswith("```")
            if not code and citation.quote not in quotes:
                quotes.append(citation.quote)
        return list(grouped.values())
