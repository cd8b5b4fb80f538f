"""AgentResult: one schema for the Python object, `--json` output and the HTTP body."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from citeline.agent.exits import ExitReason

TraceType = Literal["plan", "tool_call", "validation", "reprompt", "final", "error"]
StepName = Literal["validation", "retrieval", "reasoning", "response"]


class Citation(BaseModel):
    id: int = Field(description="The n of `[n]` in the answer.")
    document_id: str
    document_name: str
    source: str = Field(description="Where the document came from (file path or upload name).")
    chunk_id: str
    chunk_index: int
    page: int | None = None
    section: str | None = None
    quote: str = Field(description="Verbatim text of the cited chunk that supports the fragment.")
    response_fragment: str = Field(description="The sentence of the answer that carries this citation.")
    position_in_response: int = Field(description="Character offset of the `[n]` marker in the answer.")
    score: float = Field(description="Retrieval score of the passage (0-1).")
    confidence: float = Field(description="How well the passage supports the fragment (0-1).")


class Insufficiency(BaseModel):
    section: str
    missing: str
    queries_tried: list[str] = Field(default_factory=list)


class TraceEntry(BaseModel):
    type: TraceType
    data: dict[str, Any] = Field(default_factory=dict)
    elapsed_ms: float = 0.0


class Step(BaseModel):
    step: StepName
    duration_ms: float
    success: bool
    error: str | None = None


class Strategy(BaseModel):
    name: str
    retrieval_depth: Literal["shallow", "medium", "deep"]
    reasoning_complexity: Literal["simple", "moderate", "complex"]
    citation_style: Literal["minimal", "detailed"]
    response_length: Literal["short", "medium", "detailed"]
    verification_level: Literal["basic", "thorough", "extensive"]
    confidence: float
    reasoning: str


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0

    def add(self, prompt: int, completion: int) -> None:
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        self.total_tokens = self.prompt_tokens + self.completion_tokens


class Timings(BaseModel):
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
        return self.exit_reason in {ExitReason.COMPLETED, ExitReason.MAX_TOOL_CALLS_REACHED} and bool(
            self.citations
        )
