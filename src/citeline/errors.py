"""The exception tree every part of citeline raises, and `handle_error`, which turns any exception
into what a user may be shown (a message, whether retrying can help, no internals)."""

from __future__ import annotations

from dataclasses import dataclass


class CitelineError(Exception):
    """Base of every error citeline raises on purpose. `hint` tells the user the fix."""

    error_type = "api_error"
    recoverable = False

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message}: {self.hint}" if self.hint else self.message


class ConfigurationError(CitelineError):
    """Invalid or missing configuration; nothing was attempted."""

    error_type = "validation_error"


class RetrievalError(CitelineError):
    """The store or embedder failed."""

    error_type = "retrieval_error"
    recoverable = True


class GenerationError(CitelineError):
    """A model provider failed or produced nothing usable."""

    error_type = "reasoning_error"
    recoverable = True


class ContextOverflowError(CitelineError):
    """The prompt cannot fit the token budget even after trimming."""

    error_type = "reasoning_error"


class IngestError(CitelineError):
    """One file could not be ingested; the message says why."""

    error_type = "validation_error"


class NoTextOfItsOwn(IngestError):
    """A file holding no text of its own: it is empty, or only includes other files (includes are
    not followed). Found under a folder it is skipped with this reason, as a page a site generator
    fills in is part of any documentation tree; named on its own, it fails."""


class StorageError(CitelineError):
    """The index could not be written: the disk is full or failing, or the store hit its size cap.

    The failed write was rolled back whole (nothing half-written); the message names the cause
    and the hint the fix."""

    error_type = "retrieval_error"
    recoverable = True


AgentError = CitelineError  # the name code written for `create_agent`/`process_query` catches


@dataclass(frozen=True)
class ErrorResponse:
    """A user-facing rendering of an exception: what `handle_error` returns, so every interface
    reports a failure the same way."""

    error_type: str
    message: str
    user_message: str
    recoverable: bool


def handle_error(error: BaseException) -> ErrorResponse:
    """Convert any exception into a message fit for a user: no stack traces, no internals."""
    if isinstance(error, CitelineError):
        return ErrorResponse(
            error_type=error.error_type,
            message=repr(error),
            user_message=str(error),
            recoverable=error.recoverable,
        )
    return ErrorResponse(
        error_type="api_error",
        message=repr(error),
        user_message="an internal error occurred; see the log for details",
        recoverable=False,
    )
