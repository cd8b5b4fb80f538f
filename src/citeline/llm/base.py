"""The answerer ("policy") interface: given the run so far, decide the next action.

The graph does not care who decides. Built-in answerers register themselves with
`register_policy` exactly as a third-party one would, keyed by the prefix of a model spec
(`extractive`, `scripted:PATH`, `openai:MODEL`, ...).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from citeline.errors import ConfigurationError

if TYPE_CHECKING:
    from citeline.agent.state import RunState
    from citeline.config import Settings
    from citeline.retrieval import Retriever

TOOL_NAMES = ("search_docs", "open_citation")


@dataclass(frozen=True)
class ToolCall:
    tool: str
    input: dict[str, Any]


@dataclass(frozen=True)
class FinalAnswer:
    answer: str
    insufficiencies: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Unusable:
    """Model output that is not an action: empty, not JSON, wrong shape."""

    raw: str
    reason: str


Action = ToolCall | FinalAnswer | Unusable

ProviderErrorKind = Literal["rate_limit", "server", "timeout", "bad_request", "context_length", "auth"]


class ProviderError(Exception):
    """A model provider failed. The loop decides about retries from `kind`."""

    def __init__(self, kind: ProviderErrorKind, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        return self.kind in {"rate_limit", "server", "timeout"}


@runtime_checkable
class Policy(Protocol):
    """Decides the next action. `name` is reported as `AgentResult.model`."""

    name: str

    def decide(self, run: RunState) -> Action: ...


PolicyFactory = Callable[[str, "Settings", "Retriever"], Policy]
_POLICIES: dict[str, PolicyFactory] = {}


def register_policy(prefix: str, factory: PolicyFactory) -> None:
    """`factory(argument, settings, retriever)` builds the policy for spec `prefix[:argument]`."""
    _POLICIES[prefix] = factory


def create_policy(spec: str, settings: Settings, retriever: Retriever) -> Policy:
    prefix, _, argument = spec.partition(":")
    if prefix not in _POLICIES:
        # Built-ins live in their own modules and register on import.
        from citeline.llm import extractive, local, openai_provider, scripted  # noqa: F401
    factory = _POLICIES.get(prefix)
    if factory is None:
        raise ConfigurationError(
            f"unknown model `{spec}`",
            hint=f"use one of: {', '.join(sorted(p + (':...' if p != 'extractive' else '') for p in _POLICIES))}",
        )
    return factory(argument, settings, retriever)


def parse_action(raw: str) -> Action:
    """Parse the strict JSON action format of seed 004 (also used by text-only model output)."""
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
