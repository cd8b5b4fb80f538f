"""The caller's sessions: create (within the metadata limits), read, list, rename, delete. Another
user's session id behaves exactly like a missing one (404). Blocking (the session store): call
these from a worker thread."""

from __future__ import annotations

from typing import Any

from citeline.api.errors import ApiError, not_found
from citeline.api.service.core import Service
from citeline.api.sessions import SessionState


def create_session(svc: Service, owner: str, session_id: str | None, *, context_window: int,
                   metadata: dict[str, Any], initial_context: dict[str, Any]) -> SessionState:
    """A new session (413 when its free-form fields are over the limit; 409 when the owner already
    has one with this id)."""
    svc.check_session_metadata(metadata=metadata, initialContext=initial_context)
    state = svc.sessions.create(owner, session_id, context_window=context_window, metadata=metadata,
                                initial_context=initial_context)
    if state is None:
        raise ApiError(409, "you already have a session with this id")
    return state


def list_sessions(svc: Service, owner: str) -> list[SessionState]:
    """The owner's sessions, most recently active first."""
    return svc.sessions.list(owner)


def rename_session(svc: Service, owner: str, session_id: str, title: str) -> SessionState:
    """Give one of the owner's sessions a title (whitespace collapsed; 422 when blank), or 404."""
    title = " ".join(title.split())
    if not title:
        raise ApiError(422, "the title is blank: give at least one visible character",
                       type="validation_error", step="validation")
    state = svc.sessions.rename(owner, session_id, title)
    if state is None:
        raise not_found("session")
    return state


def delete_session(svc: Service, owner: str, session_id: str) -> None:
    """Delete one of the owner's sessions, or 404."""
    if not svc.sessions.delete(owner, session_id):
        raise not_found("session")
