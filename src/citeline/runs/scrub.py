"""Keeping secrets out of the runs log: API keys, bearer tokens and passwords never reach a record."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import Any

REDACTED = "***"
# Keys whose values are secrets wherever they appear (settings, request headers, options).
_SECRET_KEY = re.compile(
    r"^(?:.*api[_-]?key|authorization|proxy-authorization|x-api-key|password|passwd|secret|client[_-]?secret|"
    r"access[_-]?token|refresh[_-]?token|bearer|cookie|set-cookie)$",
    re.IGNORECASE,
)
_PATTERNS = (
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}"), r"\1 " + REDACTED),
    # citeline's own API keys (`cl_` + 43 characters) and OpenAI-style `sk-` keys.
    (re.compile(r"\bcl_[A-Za-z0-9_-]{40,}|\bsk-[A-Za-z0-9_-]{32,}"), REDACTED),
    # Passwords in URLs: postgresql://user:secret@host/db
    (re.compile(r"(\b[a-z][a-z0-9+.-]*://[^/\s:@]+):[^@\s/]+@", re.IGNORECASE), r"\1:" + REDACTED + "@"),
)
_ENV_SECRETS = ("OPENAI_API_KEY", "CITELINE_OPENAI_API_KEY")


class Scrubber:
    """Removes secrets from JSON values: by key name, by known value and by shape."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        known = [*secrets, *(os.environ.get(name) for name in _ENV_SECRETS)]
        # Longest first, so a secret containing another is removed whole.
        self.secrets = sorted({s for s in known if s and len(s) >= 6}, key=len, reverse=True)

    def text(self, value: str) -> str:
        """`value` with every secret in it replaced by `***`."""
        for secret in self.secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        for pattern, replacement in _PATTERNS:
            value = pattern.sub(replacement, value)
        return value

    def __call__(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {key: (REDACTED if value_ is not None and isinstance(key, str) and _SECRET_KEY.match(key)
                          else self(value_))
                    for key, value_ in value.items()}
        if isinstance(value, list | tuple):
            return [self(item) for item in value]
        return value
