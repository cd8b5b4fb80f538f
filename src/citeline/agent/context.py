"""Token budgets of a model call, counted with tiktoken (the cl100k_base table ships with the
package, so counting never downloads).

The budget of a model call is system + evidence + history + response reserve. History is trimmed
oldest-first to fit its share; the system prompt is added after trimming and is never cut. A run
ends MAX_CONTEXT_REACHED only when the system prompt, the question and the minimum evidence (one
passage) cannot fit even with no history at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from citeline.config import Settings
from citeline.errors import ContextOverflowError
from citeline.text import cl100k_encoding

# The table lives beside the other text utilities so the index (remote embedders) can count too.
_encoding = cl100k_encoding


def count_tokens(text: str) -> int:
    """Tokens of `text` in the cl100k_base encoding: the unit every budget is measured in."""
    return len(_encoding().encode(text, disallowed_special=()))


def total_budget(settings: Settings) -> int:
    """Tokens one model call may use in all: system, evidence, history and the response reserve."""
    agent = settings.agent
    return agent.system_tokens + agent.evidence_tokens + agent.history_tokens + agent.response_tokens


def trim_history(messages: Sequence[Any], budget: int) -> list[Any]:
    """Keep the newest messages whose tokens fit `budget` (oldest dropped first)."""
    kept: list[Any] = []
    used = 0
    for message in reversed(messages):
        cost = count_tokens(getattr(message, "content", "")) + 4
        if used + cost > budget:
            break
        kept.append(message)
        used += cost
    return list(reversed(kept))


def check_fits(settings: Settings, *, system_prompt: str, question: str, min_evidence_chars: int) -> None:
    """Raise ContextOverflowError when even an empty history leaves no room for minimum evidence."""
    needed = (count_tokens(system_prompt) + count_tokens(question) + min_evidence_chars // 4
              + settings.agent.response_tokens)
    if needed > total_budget(settings):
        raise ContextOverflowError(
            f"the prompt needs about {needed} tokens but the budget is {total_budget(settings)}",
            hint="start a new conversation, ask a shorter question, or raise CITELINE_EVIDENCE_TOKENS",
        )
