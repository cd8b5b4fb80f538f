"""The JSON schema of the strict action format (what `parse_action` reads), narrowed to what is
valid *now*.

Grammar-constrained decoding (llama.cpp) turns this schema into a grammar, so a model can only
emit actions that parse and make sense in the current state: no `open_citation` before a
search, only ranks that exist, only `final` once the tool budget is spent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from citeline.agent.state import RunState

QUERY_CHARS = 120
ANSWER_CHARS = 500  # keeps a small model from rambling; long enough for a few cited sentences


def _tool_call(tool: str, argument: str, argument_schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "type": {"const": "tool_call"},
            "tool": {"const": tool},
            "input": {"type": "object", "properties": {argument: argument_schema}, "required": [argument]},
        },
        "required": ["type", "tool", "input"],
    }


def _search() -> dict[str, Any]:
    return _tool_call("search_docs", "query", {"type": "string", "minLength": 2, "maxLength": QUERY_CHARS})


def _open(ranks: list[int]) -> dict[str, Any]:
    return _tool_call("open_citation", "rank", {"enum": ranks})


def final_schema() -> dict[str, Any]:
    """The schema of a final answer alone (when the model may only answer)."""
    return {
        "type": "object",
        "properties": {
            "type": {"const": "final"},
            "answer": {"type": "string", "minLength": 1, "maxLength": ANSWER_CHARS},
        },
        "required": ["type", "answer"],
    }


def action_schema(run: RunState | None = None, *, max_searches: int | None = None) -> dict[str, Any]:
    """Every action, or (given a run) only the actions useful in its current state.

    `max_searches` caps searches for models that would otherwise repeat one search until the
    budget is gone (small local models do); opening is limited to results not opened yet.
    """
    if run is None:
        return {"oneOf": [_search(), _open(list(range(1, 21))), final_schema()]}
    if run.force_final or run.tool_budget_left == 0:
        return final_schema()
    choices = []
    if max_searches is None or len(run.searches) < max_searches:
        choices.append(_search())
    opened = {(p.document_id, p.chunk_id) for p in run.opened}
    latest = run.searches[-1].passages if run.searches else []
    ranks = [i for i, p in enumerate(latest, 1) if (p.document_id, p.chunk_id) not in opened]
    if ranks:
        choices.append(_open(ranks))
    if run.searches or not choices:  # answering before any search could only be ungrounded
        choices.append(final_schema())
    return choices[0] if len(choices) == 1 else {"oneOf": choices}


def quote_schema(candidates: int) -> dict[str, Any]:
    """The reply of `quotes` mode: one to three numbers of the offered sentences."""
    return {
        "type": "object",
        "properties": {
            "sentences": {"type": "array", "items": {"enum": list(range(1, candidates + 1))},
                          "minItems": 1, "maxItems": 3},
        },
        "required": ["sentences"],
    }
