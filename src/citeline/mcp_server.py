"""`citeline mcp`: an MCP server (official `mcp` SDK) with three read-only tools.

`search_docs` returns passages whose `document_id`/`chunk_id` `open_citation` accepts, and `ask`
runs the whole agent. Logs go to stderr: over stdio, stdout belongs to the protocol.

Over stdio the server acts for one owner (the local user, or `--owner`). Over HTTP anyone who
can reach the port can call it, so a guard (the service's API keys) stands in front of the
transport: every request needs a key, and each tool acts for the key's user only, exactly as
`citeline serve` does. The HTTP transport is stateless (no MCP session to hijack: every request
carries its own key).
"""

from __future__ import annotations

import logging
import sys
from typing import Any, Protocol

# Imported at module level (this module is only imported by `citeline mcp`): the SDK finds the
# tools' `Context` parameter by resolving their annotations in this module's namespace.
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from starlette.types import ASGIApp

from citeline.app import Citeline
from citeline.text import EscapeControlsFilter
from citeline.version import version

log = logging.getLogger("citeline.mcp")
UPLOAD_PREFIX = "upload:"  # how the service names uploaded documents internally; never shown


class HttpGuard(Protocol):
    """What stands in front of the HTTP transport: authentication, and the owner it found."""

    def wrap(self, app: ASGIApp) -> ASGIApp:
        """The app behind the guard (requests without valid credentials never reach it)."""

    def owner(self, request: Any) -> str | None:
        """The owner a request that passed the guard acts for."""


def _shown(name: str) -> str:
    return name.removeprefix(UPLOAD_PREFIX)


def build_server(app: Citeline, owner: str | None = None, *, guard: HttpGuard | None = None) -> MCPServer[Any]:
    """The MCP server. With `guard`, every tool acts for the owner the guard authenticated (and
    refuses a call that did not pass it); otherwise for `owner` (default: the `owner` setting)."""
    default_owner = owner or app.settings.index.owner
    server: MCPServer[Any] = MCPServer(
        "citeline", version=version(),
        instructions="Answers questions from the user's indexed documents with verified citations. "
        "Use search_docs to find passages, open_citation to read one in full, ask for a cited answer.",
    )
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                                open_world_hint=False)

    def who(ctx: Context[Any, Any]) -> str:
        if guard is None:
            return default_owner
        request = ctx.request_context.request if ctx is not None else None
        found = guard.owner(request) if request is not None else None
        if not found:  # never fall back to some default owner's documents
            raise ToolError("not authenticated: send `Authorization: Bearer <key>`")
        return found

    @server.tool(annotations=read_only)
    def search_docs(query: str, ctx: Context[Any, Any], top_k: int = 5) -> dict[str, Any]:
        """Hybrid search over the indexed documents; returns passages with their ids."""
        outcome = app.search(query, top_k=max(1, min(top_k, 50)), owner=who(ctx))
        # The client is an AI: a page flagged at ingest for text aimed at one is withheld, as from the agent.
        shown = [p for p in outcome.passages if not p.untrusted]
        return {
            "query": query,
            "passages": [
                {"document_id": p.document_id, "chunk_id": p.chunk_id, "document_name": _shown(p.document_name),
                 "source": _shown(p.source), "section": p.section, "page": p.page, "score": p.score,
                 "text": p.text}
                for p in shown
            ],
            "withheld": len(outcome.passages) - len(shown),
        }

    @server.tool(annotations=read_only)
    def open_citation(document_id: str, chunk_id: str, ctx: Context[Any, Any]) -> dict[str, Any]:
        """The full text of one passage, by the ids search_docs returned."""
        passage = app.store.get_passage(who(ctx), document_id, chunk_id)
        if passage is None:
            # ToolError: an expected failure the client sees as an error result, not a server crash.
            raise ToolError("no such passage: use the document_id and chunk_id search_docs returned")
        if passage.untrusted:
            raise ToolError("that passage's document carries text aimed at an AI and is withheld; open another")
        return {"document_id": passage.document_id, "chunk_id": passage.chunk_id,
                "document_name": _shown(passage.document_name), "source": _shown(passage.source),
                "section": passage.section, "page": passage.page, "text": passage.text}

    @server.tool(annotations=read_only)
    def ask(question: str, ctx: Context[Any, Any]) -> dict[str, Any]:
        """A cited answer from the documents, with its exit reason (COMPLETED, INSUFFICIENT_CONTEXT, ...)."""
        result = app.ask(question, owner=who(ctx), origin={"via": "mcp"})
        log.info("ask %s -> %s", result.query_id, result.exit_reason.value)
        citations = []
        for citation in result.citations:
            shown = citation.model_dump(mode="json")
            shown["document_name"], shown["source"] = _shown(citation.document_name), _shown(citation.source)
            citations.append(shown)
        return {"answer": result.answer, "exit_reason": result.exit_reason.value, "citations": citations,
                "insufficiencies": [i.model_dump(mode="json") for i in result.insufficiencies]}

    return server


def serve(app: Citeline, *, http: str | None = None, owner: str | None = None,
          guard: HttpGuard | None = None) -> None:
    """Run over stdio, or over streamable HTTP on `HOST:PORT` (behind `guard` when given)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(EscapeControlsFilter())
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", handlers=[handler])
    if http is None:
        build_server(app, owner).run("stdio")
        return
    import uvicorn

    server = build_server(app, owner, guard=guard)
    host, _, port = http.rpartition(":")
    host = host or "127.0.0.1"
    transport = server.streamable_http_app(stateless_http=True, host=host)
    uvicorn.run(guard.wrap(transport) if guard is not None else transport, host=host, port=int(port),
                log_level="info", access_log=False)
