"""How long a server asked to wait: both header forms, HTTP dates, caps and nonsense."""

from __future__ import annotations

import email.utils
import time

from citeline.retry import retry_after_seconds


def test_seconds_milliseconds_and_http_dates_are_read() -> None:
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    assert retry_after_seconds({"retry-after-ms": "250", "retry-after": "9"}) == 0.25  # the finer one wins
    later = email.utils.formatdate(time.time() + 60, usegmt=True)
    assert 55 <= (retry_after_seconds({"retry-after": later}) or 0) <= 61


def test_a_cap_a_past_date_and_nonsense() -> None:
    assert retry_after_seconds({"retry-after": "3600"}, cap=30) == 30
    assert retry_after_seconds({"retry-after": "Wed, 01 Jan 2020 00:00:00 GMT"}) == 0.0
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({}) is None and retry_after_seconds(None) is None
