"""What an answerer may do next: the agent's action types and the strict JSON action format.

The agent owns these types; answerers produce them. A model's text is turned into an action
by `parse_action`, which accepts exactly the format the prompts ask for:
`{"type": "tool_call", "tool": ..., "input": {...}}` or `{"type": "final", "answer": ..., "insufficiencies": [...]}`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

TOOL_NAMES = ("search_docs", "open_citation")


@dataclass(frozen=True)
class ToolCall:
    """A request to run one of the agent's tools with these arguments."""

    tool: str
    input: dict[str, Any]


@dataclass(frozen=True)
class FinalAnswer:
    """A draft answer for the validator, with the parts the answerer found no support for."""

    answer: str
    insufficiencies: list[dict[str, Any]] = field(default_factory=list)
    # What the answerer based its decision to answer or decline on (signals, probability), kept
    # in the run's trace so a decision can be explained and the deciding model refitted.
    decision: dict[str, Any] | None = None


@dataclass(frozen=True)
class Unusable:
    """Model output that is not an action: empty, not JSON, wrong shape."""

    raw: str
    reason: str


Action = ToolCall | FinalAnswer | Unusable

# "cancelled": the caller cancelled the run while the model was generating (the answerer stopped).
ProviderErrorKind = Literal["rate_limit", "server", "timeout", "bad_request", "context_length", "auth", "cancelled"]


# How to fix each kind of provider failure, told to the user with the error.
PROVIDER_FIXES: dict[str, str] = {
    "auth": "set a valid OPENAI_API_KEY for this endpoint",
    "bad_request": "check --model and CITELINE_OPENAI_BASE_URL",
    "rate_limit": "wait, or use a plan with a higher rate limit",
    "server": "start the server, or check CITELINE_OPENAI_BASE_URL",
    "timeout": "check that the server is up and not overloaded, or raise CITELINE_TIMEOUT_S",
    "context_length": "use a model with a larger context, or lower CITELINE_EVIDENCE_TOKENS",
}


class ProviderError(Exception):
    """A model provider failed. The agent decides about retries and the exit reason from `kind`;
    `status` is the HTTP status the provider answered with, if any, and `hint` the fix."""

    def __init__(self, kind: ProviderErrorKind, message: str, *, retry_after: float | None = None,
                 status: int | None = None, hint: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.retry_after = retry_after
        self.status = status
        self.hint = hint or PROVIDER_FIXES.get(kind, "")

    @property
    def retryable(self) -> bool:
        """Whether trying the same request again can succeed."""
        return self.kind in {"rate_limit", "server", "timeout"}


def parse_action(raw: str) -> Action:
    """Parse the strict JSON action format (also what text-only model output is read as)."""
    text = raw.strip()
    if text.startswith("```"):
        text = text.strip("`")
        text = text[text.find("{") :] if "{" in text else text
    if not text:
        return Unusable(raw, "empty output")
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        start, end = text.find("{"), text.rfind("}")
        try:
            data = json.loads(text[start : end + 1]) if 0 <= start < end else None
        except json.JSONDecodeError:
            data = None
    if not isinstance(data, dict):
        return Unusable(raw, "output is not a JSON object")
    kind = data.get("type")
    if kind == "tool_call":
        arguments = data.get("input", {})
        if not isinstance(data.get("tool"), str) or not isinstance(arguments, dict):
            return Unusable(raw, "tool_call needs a string `tool` and an object `input`")
        return ToolCall(data["tool"], arguments)
    if kind == "final":
        answer = data.get("answer")
        insufficiencies = data.get("insufficiencies") or []
        if not isinstance(answer, str) or not isinstance(insufficiencies, list):
            return Unusable(raw, "final needs a string `answer`")
        return FinalAnswer(answer, [i for i in insufficiencies if isinstance(i, dict)])
    return Unusable(raw, f"unknown action type {kind!r}")
