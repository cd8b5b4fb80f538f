"""Turning model output into actions, shared by the model-backed answerers."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from citeline.agent.actions import Action, FinalAnswer, ToolCall, Unusable, parse_action
from citeline.agent.exits import DECLINE_MESSAGE
from citeline.answerers.injection import scrub_answer

if TYPE_CHECKING:
    from citeline.agent.state import RunState


def from_text(raw: str, *, prose_is_answer: bool) -> Action:
    """A text reply: a JSON action if it is one, else (when allowed) the answer itself.

    Output that starts like JSON but does not parse stays Unusable so the loop asks again;
    prose from a model that answers in plain text is its final answer, which the validator
    then checks like any other.
    """
    action = parse_action(_strict_json(raw))
    if isinstance(action, Unusable) and prose_is_answer:
        text = raw.strip()
        if text and not text.startswith(("{", "```", "[")):
            return FinalAnswer(text)
    return action


def _strict_json(raw: str) -> str:
    """Re-encode JSON that only a lenient parser accepts (raw newlines inside strings, which
    grammar-constrained small models emit) so the strict action parser reads it."""
    try:
        data = json.loads(raw, strict=False)
    except (json.JSONDecodeError, ValueError):
        return raw
    return json.dumps(data) if isinstance(data, dict) else raw


def from_tool_call(name: str, arguments: str) -> Action:
    """The action a native tool call stands for; arguments that are not a JSON object make it unusable
    output, which the model is asked to redo."""
    try:
        data = json.loads(arguments or "{}", strict=False)
    except json.JSONDecodeError:
        return Unusable(arguments, f"arguments of {name} are not JSON")
    if not isinstance(data, dict):
        return Unusable(arguments, f"arguments of {name} must be a JSON object")
    return ToolCall(name, data)


def screened(action: Action, run: RunState) -> Action:
    """Final answers minus sentences that repeat text found only in injected instructions."""
    if not isinstance(action, FinalAnswer):
        return action
    cleaned, removed = scrub_answer(action.answer, run.retrieved(), run.standalone_query or run.question)
    if not removed:
        return action
    run.record("error", kind="injection_removed", removed=[s[:200] for s in removed])
    return FinalAnswer(cleaned or DECLINE_MESSAGE, action.insufficiencies)
