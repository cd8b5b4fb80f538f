"""`citeline mcp`: an MCP server (official `mcp` SDK) with three read-only tools.

`search_docs` returns passages whose `document_id`/`chunk_id` `open_citation` accepts, and `ask`
runs the whole agent. Logs go to stderr: over stdio, stdout belongs to the protocol.
"""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING, Any

from citeline.app import Citeline
from citeline.version import version

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

log = logging.getLogger("citeline.mcp")


def build_server(app: Citeline, owner: str | None = None) -> MCPServer[Any]:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import ToolAnnotations

    who = owner or app.settings.owner
    server: MCPServer[Any] = MCPServer(
        "citeline", version=version(),
        instructions="Answers questions from the user's indexed documents with verified citations. "
        "Use search_docs to find passages, open_citation to read one in full, ask for a cited answer.",
    )
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                                open_world_hint=False)

    @server.tool(annotations=read_only)
    def search_docs(query: str, top_k: int = 5) -> dict[str, Any]:
        """Hybrid search over the indexed documents; returns passages with their ids."""
        outcome = app.search(query, top_k=max(1, min(top_k, 50)), owner=who)
        return {
            "query": query,
            "passages": [
                {"document_id": p.document_id, "chunk_id": p.chunk_id, "document_name": p.document_name,
                 "source": p.source, "section": p.section, "page": p.page, "score": p.score, "text": p.text}
                for p in outcome.passages
            ],
        }

    @server.tool(annotations=read_only)
    def open_citation(document_id: str, chunk_id: str) -> dict[str, Any]:
        """The full text of one passage, by the ids search_docs returned."""
        passage = app.store.get_passage(who, document_id, chunk_id)
        if passage is None:
            # ToolError: an expected failure the client sees as an error result, not a server crash.
            raise ToolError(f"no passage {chunk_id} in document {document_id}: use ids from search_docs")
        return {"document_id": passage.document_id, "chunk_id": passage.chunk_id,
                "document_name": passage.document_name, "source": passage.source, "section": passage.section,
                "page": passage.page, "text": passage.text}

    @server.tool(annotations=read_only)
    def ask(question: str) -> dict[str, Any]:
        """A cited answer from the documents, with its exit reason (COMPLETED, INSUFFICIENT_CONTEXT, ...)."""
        result = app.ask(question, owner=who, origin={"via": "mcp"})
        log.info("ask %s -> %s", result.query_id, result.exit_reason.value)
        return {"answer": result.answer, "exit_reason": result.exit_reason.value,
                "citations": [c.model_dump(mode="json") for c in result.citations],
                "insufficiencies": [i.model_dump(mode="json") for i in result.insufficiencies]}

    return server


def serve(app: Citeline, *, http: str | None = None, owner: str | None = None) -> None:
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    server = build_server(app, owner)
    if http is None:
        server.run("stdio")
        return
    host, _, port = http.rpartition(":")
    server.run("streamable-http", host=host or "127.0.0.1", port=int(port))
