"""How long a server asked a client to wait before trying again."""

from __future__ import annotations

import email.utils
import time
from typing import Any


def retry_after_seconds(headers: Any, cap: float | None = None) -> float | None:
    """Seconds from `retry-after-ms` or `Retry-After` (delta seconds or an HTTP date), at most
    `cap` when given; None when the server did not say (or said something unreadable)."""
    if headers is None:
        return None
    seconds: float | None = None
    milliseconds = headers.get("retry-after-ms")
    if milliseconds:
        try:
            seconds = float(milliseconds) / 1000
        except ValueError:
            seconds = None
    value = headers.get("retry-after")
    if seconds is None and value:
        try:
            seconds = float(value)
        except ValueError:
            try:
                seconds = email.utils.parsedate_to_datetime(value).timestamp() - time.time()
            except (TypeError, ValueError):
                return None
    if seconds is None:
        return None
    seconds = max(0.0, seconds)
    return min(seconds, cap) if cap is not None else seconds
