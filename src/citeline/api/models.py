"""Request and response bodies of the HTTP API (every one is a pydantic model, so OpenAPI has them)."""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool

from citeline.agent.result import Citation, ModelError

MAX_TEXT = 100_000  # schema bound; the configured question limit is checked by the handlers


def _clean(value: str) -> str:
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode (no lone surrogates)") from None
    return value


def _json_safe(value: dict[str, Any]) -> dict[str, Any]:
    """Free-form metadata must be storable anywhere: 64-bit ints, finite floats, bounded nesting."""

    def walk(item: Any, depth: int) -> None:
        if depth > 16:
            raise ValueError("nested too deeply (at most 16 levels)")
        if isinstance(item, bool) or item is None:
            return
        if isinstance(item, int) and not -(2**63) <= item < 2**63:
            raise ValueError("integers must fit in 64 bits")
        if isinstance(item, float) and not math.isfinite(item):
            raise ValueError("numbers must be finite")
        if isinstance(item, str):
            _clean(item)
        elif isinstance(item, dict):
            for key, child in item.items():
                _clean(str(key))
                walk(child, depth + 1)
        elif isinstance(item, list):
            for child in item:
                walk(child, depth + 1)

    walk(value, 0)
    return value


Text = Annotated[str, AfterValidator(_clean)]
JsonObject = Annotated[dict[str, Any], AfterValidator(_json_safe)]
Identifier = Annotated[str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:-]+$")]
SessionId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
ModelSpec = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(_clean)]
FilterValue = (
    StrictBool
    | Annotated[int, Field(ge=-(2**63), le=2**63 - 1)]
    | Annotated[float, Field(allow_inf_nan=False)]
    | Annotated[str, Field(max_length=1000), AfterValidator(_clean)]
)
FilterKey = Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]{1,64}$")]


# --- agent -------------------------------------------------------------------------------
class RunRequest(BaseModel):
    """A question for `/v1/agent/run` and `/v1/agent/stream`, optionally in a session and with a
    chosen model."""

    model_config = ConfigDict(extra="forbid", strict=True)

    question: Annotated[Text, Field(min_length=1, max_length=MAX_TEXT)] = Field(
        description="The question; at most the server's `max_question_chars` (default 1000)."
    )
    session_id: SessionId | None = Field(
        default=None, description="Continue this session: its history is used and the turn is recorded."
    )
    model: ModelSpec | None = Field(default=None, description="An id from `GET /v1/models`; default: the server's.")
    return_trace: bool = Field(default=False, description="Include the agent trace in the result.")


# --- search (camelCase, the published retrieval API) --------------------------------------
class SearchBody(BaseModel):
    """A search of the caller's passages for `/v1/search`, optionally limited to some documents or
    metadata values."""

    model_config = ConfigDict(extra="forbid", strict=True)

    query: Annotated[Text, Field(min_length=1, max_length=2000)]
    documentIds: Annotated[list[Identifier], Field(max_length=500)] | None = Field(
        default=None, description="Restrict the search to these documents."
    )
    topK: int = Field(default=5, ge=1, le=100, description="Passages to return.")
    filters: Annotated[dict[FilterKey, FilterValue], Field(max_length=20)] | None = Field(
        default=None, description="Document metadata that must match exactly, e.g. {\"format\": \"md\"}."
    )


class PassageModel(BaseModel):
    """One passage found by a search: its text, score, document and position."""

    passageId: str
    text: str
    documentId: str
    documentName: str
    score: float
    metadata: dict[str, Any]
    page: int | None
    chunkIndex: int


class SearchResponse(BaseModel):
    """The passages a search found, best first, with the time it took and the query's embedding."""

    retrievedPassages: list[PassageModel]
    retrievalTime: float = Field(description="Milliseconds.")
    queryEmbedding: list[float]


# --- documents ----------------------------------------------------------------------------
class DocumentInfo(BaseModel):
    """One indexed document of the caller, as listed, uploaded or fetched."""

    id: str
    name: str = Field(description="The document's title.")
    source: str = Field(description="The uploaded file name (or the path it was indexed from).")
    status: str
    chunk_count: int
    size_bytes: int
    created_at: float
    updated_at: float
    metadata: dict[str, Any]


class DocumentList(BaseModel):
    """The caller's documents."""

    documents: list[DocumentInfo]


class UploadFailure(BaseModel):
    """A file of an upload that could not be indexed, and why (nothing of it was stored)."""

    filename: str
    error: str


class UploadResult(BaseModel):
    """What an upload did: the documents indexed, the files that failed, and the counts."""

    documents: list[DocumentInfo] = Field(description="The documents indexed (new, updated or unchanged).")
    failed: list[UploadFailure]
    ingested: int
    updated: int
    unchanged: int
    chunks: int


# --- sessions (camelCase, like search) ------------------------------------------------------
class SessionCreate(BaseModel):
    """A new conversation: an id (generated if absent), metadata, and how many recent messages feed
    each answer."""

    model_config = ConfigDict(extra="forbid", strict=True)

    sessionId: SessionId | None = Field(default=None, description="Generated when not given.")
    initialContext: JsonObject = Field(default_factory=dict)
    metadata: JsonObject = Field(default_factory=dict)
    contextWindowSize: int = Field(default=20, ge=1, le=200,
                                   description="Recent messages passed as history to the agent.")


class MessageModel(BaseModel):
    """One message of a session, with the citations and exit reason of an assistant turn."""

    messageId: str
    role: Literal["user", "assistant", "system"]
    content: str
    timestamp: str = Field(description="ISO 8601, UTC.")
    citations: list[dict[str, Any]]
    metadata: dict[str, Any]


class SessionModel(BaseModel):
    """A conversation: its messages and settings, for clients that resume it."""

    sessionId: str
    createdAt: str
    lastActivity: str
    messageHistory: list[MessageModel]
    contextWindowSize: int
    active: bool
    metadata: dict[str, Any]
    initialContext: dict[str, Any]


class SessionSummary(BaseModel):
    """One line of `GET /v1/sessions`: enough to list and pick a session without its messages."""

    sessionId: str
    title: str = Field(description="The title given by a rename, else the first question.")
    createdAt: str
    lastActivity: str
    messageCount: int


class SessionList(BaseModel):
    """The caller's sessions, most recently active first."""

    sessions: list[SessionSummary]


class SessionUpdate(BaseModel):
    """`PATCH /v1/sessions/{id}`: what can be changed about a session."""

    model_config = ConfigDict(extra="forbid", strict=True)

    title: Annotated[Text, Field(min_length=1, max_length=200)] = Field(description="The session's new title.")


# --- OpenAI-compatible --------------------------------------------------------------------
class ContentPart(BaseModel):
    """One part of an OpenAI-style message content list; only `text` parts are read."""

    model_config = ConfigDict(extra="allow", strict=True)

    type: str
    text: Text | None = None


class ChatMessage(BaseModel):
    """One message of an OpenAI-style chat request."""

    model_config = ConfigDict(extra="allow", strict=True)

    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: Annotated[Text, Field(max_length=MAX_TEXT)] | Annotated[list[ContentPart], Field(max_length=100)] | None = None

    def text(self) -> str:
        """The message's text, whether sent as a string or as content parts."""
        if self.content is None:
            return ""
        if isinstance(self.content, str):
            return self.content
        return "".join(part.text or "" for part in self.content if part.type == "text")


class ChatRequest(BaseModel):
    """An OpenAI-compatible chat request: the last user message is the question, earlier ones the
    history."""

    model_config = ConfigDict(extra="allow", strict=True)  # temperature, top_p ... are accepted and ignored

    model: ModelSpec = Field(description="`citeline` (the server default) or an id from `GET /v1/models`.")
    messages: Annotated[list[ChatMessage], Field(min_length=1, max_length=500)]
    stream: bool = False
    max_tokens: int | None = Field(default=None, ge=1, description="At most this many tokens of content "
                                   "(cl100k_base); a longer answer is cut and ends with finish_reason `length`.")
    max_completion_tokens: int | None = Field(default=None, ge=1, description="The newer name of `max_tokens`.")


class ChatResponseMessage(BaseModel):
    """The assistant's message in a chat completion."""

    role: Literal["assistant"] = "assistant"
    content: str


class ChatChoice(BaseModel):
    """The single choice of a chat completion."""

    index: int
    message: ChatResponseMessage
    finish_reason: str


class ChatUsage(BaseModel):
    """Tokens of a chat completion, as OpenAI clients expect them."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletion(BaseModel):
    """An OpenAI-compatible chat completion, extended with the verified citations and the exit reason."""

    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[ChatChoice]
    usage: ChatUsage
    citations: list[Citation] = Field(description="Extension: the verified citations of the answer.")
    exit_reason: str = Field(description="Extension: the agent's exit reason.")
    query_id: str = Field(description="Extension: the run's query id.")
    declined: bool = Field(default=False, description="Extension: true when citeline gave no verified answer "
                           "(finish_reason is then `content_filter`).")
    agent_usage: ChatUsage | None = Field(default=None, description="Extension: tokens citeline's own model "
                                          "used to answer (0 for the extractive answerer).")
    error: ModelError | None = Field(default=None, description="Extension: the model's failure, if the run "
                                     "ended on one.")


class ModelCard(BaseModel):
    """One answerer the server offers, as OpenAI clients list models."""

    id: str
    object: Literal["model"] = "model"
    created: int
    owned_by: str


class ModelList(BaseModel):
    """The answerers the server offers (`GET /v1/models`)."""

    object: Literal["list"] = "list"
    data: list[ModelCard]


# --- health -------------------------------------------------------------------------------
class Health(BaseModel):
    """Liveness or readiness, with the result of each check so an operator sees what is failing."""

    status: str
    checks: dict[str, str] = Field(default_factory=dict)
