"""What the OpenAPI schema says about responses that several routes share: the error statuses and
the items of the server-sent event streams."""

from __future__ import annotations

from typing import Any

from citeline.api.errors import ErrorBody

# The errors any `/v1` route can answer with.
COMMON_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "The body could not be parsed (e.g. not UTF-8)."},
    401: {"model": ErrorBody, "description": "Missing or unknown API key."},
    413: {"model": ErrorBody, "description": "Request body too large."},
    422: {"model": ErrorBody, "description": "Invalid request."},
    429: {"model": ErrorBody, "description": "Rate limit or concurrent-run limit; see Retry-After."},
    500: {"model": ErrorBody, "description": "Internal error (details only in the server log)."},
    503: {"model": ErrorBody, "description": "Store or model unavailable."},
}
NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"model": ErrorBody, "description": "Not found (or not yours)."}}
# The errors of routes that only read or tidy what a user has: they start no run and load no model.
STORE_ERRORS: dict[int | str, dict[str, Any]] = {
    **COMMON_ERRORS,
    **NOT_FOUND,
    429: {"model": ErrorBody, "description": "Rate limit; see Retry-After."},
    503: {"model": ErrorBody, "description": "Store unavailable."},
}

# OpenAPI 3.2 `itemSchema`: what each server-sent event of a stream looks like.
SSE_AGENT_EVENT: dict[str, Any] = {
    "type": "object", "required": ["event", "data"],
    "properties": {
        "event": {"type": "string", "enum": ["run_start", "plan", "tool_start", "tool_end", "token",
                                             "cached_response", "validation", "reprompt", "final"]},
        "data": {"type": "string", "contentMediaType": "application/json",
                 "description": "The Event as JSON: {type, seq, query_id, data, v}."},
        "id": {"type": "string", "description": "The event's seq."},
    },
}
SSE_CHAT_CHUNK: dict[str, Any] = {
    "type": "object", "required": ["data"],
    "properties": {"data": {"type": "string", "description": "A chat.completion.chunk as JSON, or `[DONE]`."}},
}
