"""Text aimed at an AI rather than at a reader, recognised once, at ingest.

Documentation explains things to people. A passage that talks to "the assistant", tells whoever
reads it to ignore, reveal, include or print something, or pipes a download into a shell is a
planted instruction (indirect prompt injection) whatever its wording, imperative or not. Such
blocks are flagged here so that every later stage can keep them out of answers; hidden text
(HTML and rst comments, `display:none`) is reported by the loaders that drop it.

The patterns are about *who is addressed and what is asked*, never about one corpus's words.
"""

from __future__ import annotations

import re

_AI = r"(?:ai|a\.i\.|assistants?|chat\s?bots?|llms?|language\s+models?|agents?|copilots?|gpts?|bots?)"

_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    # "For AI assistants: ...", "Note to language models", "[AI agent directive]", "attention LLMs".
    ("addresses an AI", re.compile(
        rf"\b(?:for|to|attention|dear|hey|note\s+(?:to|for)|notice\s+(?:to|for)|message\s+(?:to|for)|if\s+you\s+are\s+an?)\s+"
        rf"(?:the\s+|any\s+|all\s+)?(?:automated\s+|ai\s+)?{_AI}\b"
        rf"|\[\s*(?:ai|assistant|llm|agent|system)\b[^\]\n]{{0,60}}\]"
        rf"|\b{_AI}\s+(?:must|should|shall|are\s+(?:required|instructed|asked|expected)|need\s+to|reading\s+this)\b"
        rf"|\b(?:when|if)\s+(?:an?\s+)?{_AI}\s+(?:answers?|summari[sz]es?|reads?|responds?|generates?|quotes?)\b"
        rf"|\b(?:answers?|responses?|replies|summaries|outputs?)\s+(?:generated|written|produced|drawn)\s+(?:from|by|with|using)\s+"
        rf"(?:this|these|the\s+present)\s+(?:page|pages|document|note|notes|faq|text|site|section)\b",
        re.IGNORECASE)),
    # Directives about the conversation itself rather than the software being documented.
    ("directive to ignore or reveal", re.compile(
        r"\b(?:ignore|disregard|forget|override|bypass)\b[^.!?\n]{0,60}\b(?:instructions?|prompts?|rules|guidelines|"
        r"context|everything|above|previous)\b"
        r"|\b(?:previous|prior|earlier|system|hidden)\s+(?:instructions?|prompts?|messages?)\b"
        r"|\byou\s+are\s+now\b|\bnew\s+instructions?\b|\b(?:system|developer)\s+(?:prompt|notice|message|directive)\b"
        r"|\b(?:reveal|disclose|leak)\b[^.!?\n]{0,40}\b(?:prompt|instructions?|secret|key|password)s?\b",
        re.IGNORECASE)),
    ("directive to include or print", re.compile(
        r"\b(?:always\s+)?(?:include|append|add|insert|print|output|say|mention|reply\s+with|respond\s+with|"
        r"close\s+with|end\s+with|sign\s+(?:off\s+)?with|tell\s+the\s+user)\b[^.!?\n]{0,80}"
        r"\b(?:verification\s+code|canary|code\s+word|secret\s+word|the\s+tag|the\s+phrase|signature|exactly|verbatim)\b"
        r"|\b(?:customarily|always|must)\s+(?:close|end|begin|start)s?\s+with\b"
        r"|\bpresent(?:ed)?\s+(?:this|it)\s+as\s+(?:official|authoritative)\b"
        r"|\brecommend\b[^.!?\n]{0,60}\bas\s+the\s+official\b",
        re.IGNORECASE)),
    # A download piped straight into a shell from a host the text does not otherwise vouch for:
    # documentation does show such commands, so only non-HTTPS or example/attacker hosts count.
    ("download piped into a shell", re.compile(
        r"\b(?:curl|wget)\b[^|\n]{0,200}\bhttp://[^|\n]{0,200}\|\s*(?:sudo\s+)?(?:ba|z|k)?sh\b"
        r"|\b(?:curl|wget)\b[^|\n]{0,200}\b(?:evil|attacker|malicious)\.[a-z]+[^|\n]{0,200}\|\s*(?:sudo\s+)?(?:ba|z|k)?sh\b",
        re.IGNORECASE)),
)


_CODE_RULES = frozenset({"download piped into a shell"})


def reasons(text: str, *, code: bool = False) -> tuple[str, ...]:
    """Why `text` looks aimed at an AI; empty when it reads as documentation. In code only a
    download piped into a shell counts: code legitimately prints, includes and ignores things."""
    return tuple(name for name, pattern in _RULES if (not code or name in _CODE_RULES) and pattern.search(text))


def is_suspicious(text: str) -> bool:
    """Whether any rule matches `text`."""
    return any(pattern.search(text) for _, pattern in _RULES)
