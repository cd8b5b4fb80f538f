"""A stateful conversation over `Citeline` as three functions, for code written against the
function-style agent API (`create_agent`, `process_query`, `clear_conversation`).

    state = create_agent()
    answer, citations = await process_query(state, "What is the default timeout?")
    answer, citations = await process_query(state, "and how do I disable it?")   # follow-up
    clear_conversation(state)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from citeline.agent.context import count_tokens
from citeline.agent.exits import ExitReason
from citeline.agent.result import AgentResult, Citation
from citeline.app import Citeline
from citeline.config import Settings
from citeline.errors import ContextOverflowError, GenerationError, RetrievalError

AgentConfig = Settings  # the configuration object's name in that function-style API


@dataclass
class Conversation:
    """The turns so far (each with its time and citations) and the tokens they used."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    total_tokens: int = 0


@dataclass
class AgentState:
    """Everything a function-style conversation carries between calls: settings, the library instance, the
    turns and the last result."""

    config: Settings
    app: Citeline
    conversation: Conversation = field(default_factory=Conversation)
    total_tokens_used: int = 0
    last_retrieval: list[Citation] = field(default_factory=list)
    last_result: AgentResult | None = None
    session_start: float = field(default_factory=time.time)


def create_agent(config: Settings | None = None) -> AgentState:
    """A ready agent. Invalid settings raise (pydantic `ValueError` / `ConfigurationError`)."""
    settings = config or Settings()
    return AgentState(config=settings, app=Citeline(settings))


_RAISES: dict[ExitReason, type[Exception]] = {
    ExitReason.RETRIEVAL_ERROR: RetrievalError,
    ExitReason.MAX_CONTEXT_REACHED: ContextOverflowError,
    ExitReason.LLM_ERROR: GenerationError,
    ExitReason.RATE_LIMITED: GenerationError,
}


async def process_query(state: AgentState, query: str) -> tuple[str, list[Citation]]:
    """Answer `query` in the context of the conversation so far; returns (answer, citations).

    Raises RetrievalError, GenerationError or ContextOverflowError when the run ends in the
    corresponding failure; declines and limits are answers, not exceptions.
    """
    history = [{"role": m["role"], "content": m["content"]} for m in state.conversation.messages]
    result = await state.app.aask(query, history=history)
    state.last_result = result
    error = _RAISES.get(result.exit_reason)
    if error is not None:
        raise error(f"{result.exit_reason.value}: {result.answer}")
    now = time.time()
    state.conversation.messages.append({"role": "user", "content": query, "timestamp": now})
    state.conversation.messages.append({"role": "assistant", "content": result.answer, "timestamp": now,
                                        "citations": [c.model_dump(mode="json") for c in result.citations]})
    tokens = result.usage.total_tokens or count_tokens(query) + count_tokens(result.answer)
    state.conversation.total_tokens += tokens
    state.total_tokens_used += tokens
    state.last_retrieval = result.citations
    return result.answer, result.citations


def clear_conversation(state: AgentState) -> None:
    """Forget the conversation; keep the configuration and the session start."""
    state.conversation.messages = []
    state.conversation.total_tokens = 0
