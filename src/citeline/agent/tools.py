"""The two tools the agent can call: `search_docs` and `open_citation`, with argument checking
and retries that never count against the tool budget."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from citeline.agent.actions import ToolCall
from citeline.agent.state import RunState, SearchRecord
from citeline.errors import RetrievalError
from citeline.index.store import Passage
from citeline.retrieval import SearchOutcome

T = TypeVar("T")
TOOL_RETRIES = 3
MAX_QUERY_CHARS = 1000

TOOL_SCHEMAS: list[dict[str, Any]] = [
    {
        "name": "search_docs",
        "description": "Search the user's documents. Returns the most relevant passages with their ids.",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to search for."},
                "top_k": {"type": "integer", "minimum": 1, "maximum": 20},
            },
            "required": ["query"],
        },
    },
    {
        "name": "open_citation",
        "description": "Read the full text of one passage from a search result, so it can be cited.",
        "parameters": {
            "type": "object",
            "properties": {
                "document_id": {"type": "string"},
                "chunk_id": {"type": "string"},
                "rank": {"type": "integer", "minimum": 1, "description": "n-th result of the latest search"},
            },
        },
    },
]


class PassageSource(Protocol):
    """What the tools read passages from: the retriever, or a replay of what it returned."""

    def search(self, owner: str, query: str, *, top_k: int | None = None) -> SearchOutcome:
        """The best passages of `owner`'s documents for `query`."""

    def open(self, owner: str, document_id: str | None, chunk_id: str) -> Passage | None:
        """One passage by its ids, or None when the owner has no such passage."""


class InvalidToolCall(Exception):
    """The model asked for a tool that does not exist or gave arguments that cannot work."""


def with_retries(action: Callable[[], T], *, attempts: int = TOOL_RETRIES, base_delay: float = 0.05,
                 sleep: Callable[[float], None] = time.sleep) -> T:
    """Retry transient retrieval failures with exponential backoff and full jitter (waiting with
    `sleep`: the run's clock, so a test's manual clock skips the waits)."""
    for attempt in range(attempts + 1):
        try:
            return action()
        except RetrievalError:
            if attempt == attempts:
                raise
            sleep(random.uniform(0, base_delay * (2**attempt)))
    raise AssertionError("unreachable")


def _arg_str(arguments: dict[str, Any], *names: str) -> str | None:
    for name in names:
        value = arguments.get(name)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def run_tool(run: RunState, call: ToolCall, retriever: PassageSource) -> dict[str, Any]:
    """Execute one call, record its evidence in `run`, and return a summary for the trace."""
    if call.tool == "search_docs":
        query = _arg_str(call.input, "query", "q")
        if query is None:
            raise InvalidToolCall("search_docs needs a non-empty string `query`")
        if len(query) > MAX_QUERY_CHARS:
            raise InvalidToolCall(f"search_docs `query` is longer than {MAX_QUERY_CHARS} characters")
        top_k = call.input.get("top_k", run.settings.retrieval.top_k)
        if not isinstance(top_k, int) or not 1 <= top_k <= 20:
            raise InvalidToolCall("search_docs `top_k` must be an integer from 1 to 20")
        outcome = with_retries(lambda: retriever.search(run.owner, query, top_k=top_k), sleep=run.clock.sleep)
        run.retrieval_ms += outcome.elapsed_ms
        # A document with a passage flagged at ingest as addressing an AI is never evidence, for any
        # answerer: its other sections may look useful ("start with 2 x cores + 1 workers"), but a
        # page that tries to instruct the assistant is not a source to trust.
        passages = [p for p in outcome.passages if not p.untrusted]
        withheld = len(outcome.passages) - len(passages)
        if withheld and len(outcome.passages) == top_k:
            # Search wider so the places a planted page took go to the next real passages: such a
            # page must not crowd the real documents out of the evidence either.
            wider = with_retries(lambda: retriever.search(run.owner, query, top_k=2 * top_k), sleep=run.clock.sleep)
            run.retrieval_ms += wider.elapsed_ms
            passages = [p for p in wider.passages if not p.untrusted][:top_k]
        run.searches.append(SearchRecord(query, passages, outcome.cached, outcome.background,
                                         tuple(p.source for p in outcome.passages if p.untrusted)))
        return {
            "query": query,
            "results": len(passages),
            "withheld": withheld,
            "cached": outcome.cached,
            "passages": [
                {"rank": i + 1, "document_id": p.document_id, "chunk_id": p.chunk_id,
                 "document_name": p.document_name, "source": p.source, "section": p.section,
                 "score": p.score}
                for i, p in enumerate(passages)
            ],
        }
    if call.tool == "open_citation":
        passage = _resolve_open(run, call.input, retriever)
        if passage.untrusted:
            raise InvalidToolCall("that passage's document carries text aimed at an AI and is not used as "
                                  "evidence; open another passage")
        if all(p.chunk_id != passage.chunk_id or p.document_id != passage.document_id for p in run.opened):
            run.opened.append(passage)
        number = next(i + 1 for i, p in enumerate(run.opened)
                      if (p.document_id, p.chunk_id) == (passage.document_id, passage.chunk_id))
        return {"citation": number, "document_id": passage.document_id, "chunk_id": passage.chunk_id,
                "document_name": passage.document_name, "chars": len(passage.text)}
    raise InvalidToolCall(f"unknown tool `{call.tool}`; the tools are search_docs and open_citation")


def _resolve_open(run: RunState, arguments: dict[str, Any], retriever: PassageSource) -> Passage:
    rank = arguments.get("rank")
    if rank is not None:
        latest = run.searches[-1].passages if run.searches else []
        if not isinstance(rank, int) or not 1 <= rank <= len(latest):
            raise InvalidToolCall(f"open_citation `rank` must be 1..{len(latest)} (results of the latest search)")
        chosen = latest[rank - 1]
        document_id, chunk_id = chosen.document_id, chosen.chunk_id
    else:
        chunk_id_arg = _arg_str(arguments, "chunk_id", "chunkId")
        if chunk_id_arg is None:
            raise InvalidToolCall("open_citation needs `chunk_id` (and `document_id`) or `rank`")
        chunk_id = chunk_id_arg
        document_id = _arg_str(arguments, "document_id", "docId") or ""
    passage = with_retries(lambda: retriever.open(run.owner, document_id or None, chunk_id),
                           sleep=run.clock.sleep)
    if passage is None:
        raise InvalidToolCall(f"no passage {chunk_id!r} in document {document_id!r}; use ids from search results")
    # A passage seen in a search keeps its retrieval score.
    for seen in run.retrieved():
        if (seen.document_id, seen.chunk_id) == (passage.document_id, passage.chunk_id):
            passage.score = seen.score
            passage.dense_score = seen.dense_score
    return passage
