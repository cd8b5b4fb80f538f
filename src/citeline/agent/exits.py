"""Every way a run can end, with whether retrying can help and what the user is told.

The graph and the result read this one table, so adding a reason is one entry here."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ExitReason(StrEnum):
    """How a run ended: exactly one per run, machine-readable, so clients branch on it instead of
    parsing the answer."""

    COMPLETED = "COMPLETED"
    INSUFFICIENT_CONTEXT = "INSUFFICIENT_CONTEXT"
    EMPTY_INPUT = "EMPTY_INPUT"
    INPUT_TOO_LONG = "INPUT_TOO_LONG"
    MAX_TURNS_REACHED = "MAX_TURNS_REACHED"
    MAX_TOOL_CALLS_REACHED = "MAX_TOOL_CALLS_REACHED"
    MAX_CONTEXT_REACHED = "MAX_CONTEXT_REACHED"
    VALIDATION_FAILED = "VALIDATION_FAILED"
    INVALID_TOOL_CALL = "INVALID_TOOL_CALL"
    RATE_LIMITED = "RATE_LIMITED"
    LLM_ERROR = "LLM_ERROR"
    LLM_GENERATION_FAILURE = "LLM_GENERATION_FAILURE"
    RETRIEVAL_ERROR = "RETRIEVAL_ERROR"
    TIMEOUT = "TIMEOUT"
    CANCELLED = "CANCELLED"


@dataclass(frozen=True)
class ExitSpec:
    """What an exit reason means for the caller: whether retrying can help, and the message shown
    instead of an answer."""

    retryable: bool | None  # None = "maybe"
    message: str | None  # canned user message; None = the answer (or nothing) is shown


DECLINE_MESSAGE = "I don't have enough information in the current documentation to answer that."

EXIT_SPECS: dict[ExitReason, ExitSpec] = {
    ExitReason.COMPLETED: ExitSpec(None, None),
    ExitReason.INSUFFICIENT_CONTEXT: ExitSpec(True, DECLINE_MESSAGE),
    ExitReason.EMPTY_INPUT: ExitSpec(True, None),
    ExitReason.INPUT_TOO_LONG: ExitSpec(
        True, "Your question is longer than the {limit}-character limit. Please shorten it and ask again."
    ),
    ExitReason.MAX_TURNS_REACHED: ExitSpec(
        True,
        "I could not finish answering within the allowed number of reasoning steps. "
        "Please rephrase your question or split it into smaller questions.",
    ),
    ExitReason.MAX_TOOL_CALLS_REACHED: ExitSpec(True, None),
    ExitReason.MAX_CONTEXT_REACHED: ExitSpec(
        False,
        "This conversation no longer fits in the model's context window, even after trimming older "
        "messages. Please start a new conversation.",
    ),
    ExitReason.VALIDATION_FAILED: ExitSpec(True, None),
    ExitReason.INVALID_TOOL_CALL: ExitSpec(
        True, "The model kept requesting tools that do not exist or with invalid arguments. Please try again."
    ),
    ExitReason.RATE_LIMITED: ExitSpec(
        True, "The model provider is rate limiting requests right now. Please wait a moment and try again."
    ),
    ExitReason.LLM_ERROR: ExitSpec(None, "An internal error occurred while generating the answer."),
    ExitReason.LLM_GENERATION_FAILURE: ExitSpec(True, None),
    ExitReason.RETRIEVAL_ERROR: ExitSpec(True, "Searching the documents failed. Please try again."),
    ExitReason.TIMEOUT: ExitSpec(True, "The answer took longer than the {limit:g}-second time limit."),
    ExitReason.CANCELLED: ExitSpec(True, None),
}
