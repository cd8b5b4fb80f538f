"""Endpoints for finding and tidying what a user has: the list of their sessions, renaming a
session, and the original file of a document where the service still has it.

They live beside the core routes of `server.py` as one router; the authentication dependency is
passed in, so this module does not import the server.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Depends, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse

from citeline.api import models as m
from citeline.api.errors import ApiError, ErrorBody, not_found
from citeline.api.service import UPLOAD_SCHEME, Service, iso
from citeline.api.sessions import SessionState
from citeline.api.users import User
from citeline.documents.chunking import content_hash
from citeline.index.store import DocumentRecord

TITLE_CHARS = 80
# How an original file is sent: formats a browser shows safely inline, everything else as a
# download. HTML and Markdown go out as plain text, so a document's markup never runs as a page
# of this origin.
_INLINE_TYPES = {
    ".pdf": "application/pdf",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/plain; charset=utf-8",
    ".markdown": "text/plain; charset=utf-8",
    ".rst": "text/plain; charset=utf-8",
    ".html": "text/plain; charset=utf-8",
    ".htm": "text/plain; charset=utf-8",
}
_NO_ORIGINAL = ("the service does not keep this document's original file (uploads are indexed, "
                "then removed); the passage text is what was indexed")
_CHANGED = "the original file changed after it was indexed; ingest it again to open it"
_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "The body could not be parsed (e.g. not UTF-8)."},
    401: {"model": ErrorBody, "description": "Missing or unknown API key."},
    404: {"model": ErrorBody, "description": "Not found (or not yours)."},
    413: {"model": ErrorBody, "description": "Request body too large."},
    422: {"model": ErrorBody, "description": "Invalid request."},
    429: {"model": ErrorBody, "description": "Rate limit; see Retry-After."},
    500: {"model": ErrorBody, "description": "Internal error (details only in the server log)."},
    503: {"model": ErrorBody, "description": "Store unavailable."},
}


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


def original_path(record: DocumentRecord) -> Path | None:
    """The file a document was indexed from, if it is still on this machine unchanged; else None.

    Uploads have no path (their source is the upload name). A file that changed since it was
    indexed raises 404 with the fix, so a citation never opens text other than the one it checked.
    """
    if record.source.startswith(UPLOAD_SCHEME):
        return None
    path = Path(record.source)
    if not path.is_absolute() or not path.is_file():
        return None
    if content_hash(path.read_bytes()) != record.content_hash:
        raise ApiError(404, _CHANGED)
    return path


def catalog_router(current_user: Callable[..., Awaitable[User]]) -> APIRouter:
    """The router; `current_user` is the service's authentication dependency."""
    # A default, not an `Annotated` alias: this module's annotations are strings, resolved by
    # FastAPI in the module's namespace, where a local alias would not be found.
    caller = Depends(current_user)
    router = APIRouter(prefix="/v1", responses=_ERRORS)

    def service(request: Request) -> Service:
        svc: Service = request.app.state.service
        return svc

    @router.get("/sessions", response_model=m.SessionList, tags=["sessions"])
    async def list_sessions(request: Request, user: User = caller) -> m.SessionList:
        """Your sessions, most recently active first."""
        states = await run_in_threadpool(service(request).sessions.list, user.id)
        return m.SessionList(sessions=[session_summary(state) for state in states])

    @router.patch("/sessions/{session_id}", response_model=m.SessionSummary, tags=["sessions"])
    async def rename_session(session_id: str, body: m.SessionUpdate, request: Request,
                             user: User = caller) -> m.SessionSummary:
        """Rename a session (its `title`)."""
        title = " ".join(body.title.split())
        if not title:
            raise ApiError(422, "the title is blank: give at least one visible character",
                           type="validation_error", step="validation")
        state = await run_in_threadpool(service(request).sessions.rename, user.id, session_id, title)
        if state is None:
            raise not_found("session")
        return session_summary(state)

    @router.head("/documents/{document_id}/original", include_in_schema=False)  # "is it there?" for the page
    @router.get(
        "/documents/{document_id}/original", tags=["documents"], response_class=Response,
        responses={200: {"description": "The file the document was indexed from, unchanged.",
                         "content": {"application/octet-stream": {"schema": {"type": "string",
                                                                             "format": "binary"}}}}},
    )
    async def document_original(document_id: str, request: Request, user: User = caller) -> Response:
        """The original file of a document indexed from a file on the server (not of uploads)."""
        record = await run_in_threadpool(service(request).citeline.store.get_document, user.id, document_id)
        if record is None:
            raise not_found("document")
        path = await run_in_threadpool(original_path, record)
        if path is None:
            raise ApiError(404, _NO_ORIGINAL)
        media = _INLINE_TYPES.get(path.suffix.lower())
        headers = {"X-Content-Type-Options": "nosniff", "Content-Security-Policy": "sandbox",
                   "Cache-Control": "private, no-store"}
        return FileResponse(path, media_type=media or "application/octet-stream", filename=path.name,
                            content_disposition_type="inline" if media else "attachment", headers=headers)

    return router
