"""How an AgentResult becomes an OpenAI chat completion: content with its sources, `max_tokens`,
usage and the finish reason.

- `usage` counts what crosses the endpoint, in cl100k_base tokens: `prompt_tokens` the request's
  messages, `completion_tokens` the returned content (so never 0 for an answer, and never above
  `max_tokens`). What citeline's own model used is the `agent_usage` extension.
- `finish_reason` is `stop` for a verified answer, `length` when `max_tokens` cut the content,
  and `content_filter` when citeline declined (no verified answer: the documents do not support
  one, or a limit or failure ended the run); `declined: true` and `exit_reason` say the same.
"""

from __future__ import annotations

from dataclasses import dataclass

from citeline.agent.context import count_tokens
from citeline.agent.result import AgentResult
from citeline.api import models as m
from citeline.text import truncate_tokens


def sources_section(result: AgentResult) -> str:
    """The answer followed by a "Sources" section: each cited passage once, quoting each claim's sentence."""
    if not result.citations:
        return result.answer
    lines = []
    for c, quotes in result.sources():
        where = ", ".join(x for x in (c.section, f"p. {c.page}" if c.page else None) if x)
        shown = " ".join(f'"{q if len(q) <= 200 else q[:197] + "..."}"' for q in quotes)
        lines.append(f"[{c.id}] {c.document_name}{f' ({where})' if where else ''}" + (f": {shown}" if shown else ""))
    return f"{result.answer}\n\nSources:\n" + "\n".join(lines)


@dataclass(frozen=True)
class Completion:
    """The content to return and what to report about it."""

    content: str
    finish_reason: str
    usage: m.ChatUsage
    declined: bool


def complete(result: AgentResult, body: m.ChatRequest) -> Completion:
    """Apply `max_tokens`, count usage and choose the finish reason for one result."""
    content = sources_section(result)
    limits = [n for n in (body.max_tokens, body.max_completion_tokens) if n is not None]
    cut = False
    if limits:
        content, cut = truncate_tokens(content, min(limits))
    declined = not result.answered
    prompt = sum(count_tokens(message.text()) for message in body.messages)
    completion = count_tokens(content)
    reason = "content_filter" if declined else "length" if cut else "stop"
    return Completion(content, reason, m.ChatUsage(prompt_tokens=prompt, completion_tokens=completion,
                                                   total_tokens=prompt + completion), declined)
