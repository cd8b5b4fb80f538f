"""One versioned event schema for Python, CLI and SSE, so a client written against one of them
reads the others unchanged."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, Field

EVENT_SCHEMA_VERSION = 1
EventType = Literal["run_start", "plan", "tool_start", "tool_end", "token", "cached_response", "validation",
                    "reprompt", "final"]


class Event(BaseModel):
    """One thing that happened during a run, as every interface streams it: `seq` orders the events of
    a run, `v` lets clients detect a schema change."""

    type: EventType
    seq: int = Field(description="1, 2, 3 ... within one run; `final` has the highest.")
    query_id: str
    data: dict[str, Any] = Field(default_factory=dict)
    v: int = EVENT_SCHEMA_VERSION


EventSink = Callable[[Event], None]
