"""How library objects become the API's response models: passages, documents, uploads, sessions,
models and chat completions (whole, or as the chunks of a stream). Sources and names are shown
as the caller may see them (`Service.present_source`, `Service.present_name`)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

from citeline.agent.result import AgentResult
from citeline.api import models as m
from citeline.api.completions import complete
from citeline.api.service import Service, iso
from citeline.api.service.answering import AvailableModels
from citeline.api.service.uploads import UploadOutcome
from citeline.api.sessions import SessionState
from citeline.index.store import DocumentRecord, Passage
from citeline.retrieval.search import SearchOutcome

TITLE_CHARS = 80


def passage_model(svc: Service, owner: str, p: Passage) -> m.PassageModel:
    """A passage with its place in the document; its source as `owner` may see it."""
    return m.PassageModel(
        passageId=p.chunk_id, text=p.text, documentId=p.document_id, documentName=p.document_name,
        score=p.score, page=p.page, chunkIndex=p.chunk_index,
        metadata={**p.metadata, "source": svc.present_source(owner, p.source), "section": p.section,
                  "start": p.start, "end": p.end},
    )


def search_response(svc: Service, owner: str, outcome: SearchOutcome) -> m.SearchResponse:
    """A search's passages, time (ms, 3 decimals) and query embedding."""
    return m.SearchResponse(
        retrievedPassages=[passage_model(svc, owner, p) for p in outcome.passages],
        retrievalTime=round(outcome.elapsed_ms, 3), queryEmbedding=outcome.query_vector,
    )


def document_info(svc: Service, record: DocumentRecord) -> m.DocumentInfo:
    """A document as the API shows it: upload names without their internal prefix."""
    return m.DocumentInfo(
        id=record.id, name=svc.present_name(record.title), source=svc.present_source(record.owner, record.source),
        status=record.status, chunk_count=record.chunk_count, size_bytes=record.size_bytes,
        created_at=record.created_at, updated_at=record.updated_at, metadata=record.metadata,
    )


def document_list(svc: Service, records: list[DocumentRecord]) -> m.DocumentList:
    """The caller's documents."""
    return m.DocumentList(documents=[document_info(svc, r) for r in records])


def upload_result(svc: Service, outcome: UploadOutcome) -> m.UploadResult:
    """What an upload indexed and which files failed, with the ingest counts."""
    return m.UploadResult(
        documents=[document_info(svc, record) for record in outcome.documents],
        failed=[m.UploadFailure(filename=f.filename, error=f.error) for f in outcome.failed],
        ingested=outcome.ingested, updated=outcome.updated, unchanged=outcome.unchanged, chunks=outcome.chunks,
    )


def session_model(state: SessionState) -> m.SessionModel:
    """A session with its whole message history."""
    return m.SessionModel(
        sessionId=state.session_id, createdAt=iso(state.created_at), lastActivity=iso(state.last_activity),
        messageHistory=[
            m.MessageModel(messageId=msg.message_id, role=msg.role,  # type: ignore[arg-type]
                           content=msg.content, timestamp=iso(msg.timestamp), citations=msg.citations,
                           metadata=msg.metadata)
            for msg in state.messages
        ],
        contextWindowSize=state.context_window, active=state.active, metadata=state.metadata,
        initialContext=state.initial_context,
    )


def session_title(state: SessionState) -> str:
    """The title a session is listed under: a rename's title, else its first question."""
    title = state.metadata.get("title")
    if isinstance(title, str) and title.strip():
        return title.strip()
    first = next((msg.content for msg in state.messages if msg.role == "user" and msg.content.strip()), "")
    first = " ".join(first.split())
    if not first:
        return "New conversation"
    return first if len(first) <= TITLE_CHARS else first[: TITLE_CHARS - 1] + "…"


def session_summary(state: SessionState) -> m.SessionSummary:
    """A session as one line of the list."""
    return m.SessionSummary(sessionId=state.session_id, title=session_title(state), createdAt=iso(state.created_at),
                            lastActivity=iso(state.last_activity), messageCount=len(state.messages))


def session_list(states: list[SessionState]) -> m.SessionList:
    """The caller's sessions, in the order given."""
    return m.SessionList(sessions=[session_summary(state) for state in states])


def model_list(models: AvailableModels) -> m.ModelList:
    """The OpenAI-compatible model list."""
    return m.ModelList(data=[m.ModelCard(id=i, created=models.created, owned_by="citeline") for i in models.ids])


def completion(result: AgentResult, model: str, body: m.ChatRequest) -> m.ChatCompletion:
    """A whole OpenAI chat completion for one result (content with its sources, `max_tokens`
    applied, usage, finish reason)."""
    done = complete(result, body)
    return m.ChatCompletion(
        id=f"chatcmpl-{result.query_id}", created=int(time.time()), model=model,
        choices=[m.ChatChoice(index=0, message=m.ChatResponseMessage(content=done.content),
                              finish_reason=done.finish_reason)],
        usage=done.usage, citations=result.citations, exit_reason=result.exit_reason.value,
        query_id=result.query_id, declined=done.declined, agent_usage=m.ChatUsage(**result.usage.model_dump()),
        error=result.error,
    )


def chunk_base(query_id: str, model: str) -> dict[str, Any]:
    """The fields every `chat.completion.chunk` of one stream shares."""
    return {"id": f"chatcmpl-{query_id}", "object": "chat.completion.chunk", "created": int(time.time()),
            "model": model}


def chat_chunk(base: dict[str, Any], delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
    """One `chat.completion.chunk` as JSON: a content delta, or the last one with the extensions."""
    return json.dumps({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra})


def completion_chunks(base: dict[str, Any], result: AgentResult, body: m.ChatRequest) -> Iterator[str]:
    """The chunks after the opening one: the content word by word, the finishing chunk with
    citations, exit reason, usage and error, then `[DONE]`."""
    done = complete(result, body)
    for piece in re.findall(r"\S+\s*|\s+", done.content):
        yield chat_chunk(base, {"content": piece})
    yield chat_chunk(base, {}, done.finish_reason, citations=[c.model_dump(mode="json") for c in result.citations],
                     exit_reason=result.exit_reason.value, query_id=result.query_id,
                     usage=done.usage.model_dump(), declined=done.declined,
                     agent_usage=result.usage.model_dump(),
                     error=result.error.model_dump() if result.error else None)
    yield "[DONE]"
