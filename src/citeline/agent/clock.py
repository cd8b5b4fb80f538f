"""The clock a run reads its time budget from and waits on between retries.

A run never calls `time` directly: the wall-clock budget, provider back-off, tool retries and a
scripted "slow model" all go through `RunState.clock`. Production uses the system clock; a test
passes a manual clock (`citeline.testing.ManualClock`) whose `sleep` only moves time forward, so
time limits and back-off are tested without waiting for them.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """Monotonic time and waiting, as one object so a fake one keeps the two consistent."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes backwards (only differences mean anything)."""

    def sleep(self, seconds: float) -> None:
        """Wait `seconds` before returning."""


class SystemClock:
    """The real clock: `time.monotonic` and `time.sleep`."""

    def monotonic(self) -> float:
        """Seconds from `time.monotonic`."""
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        """Block the calling thread for `seconds`."""
        time.sleep(seconds)


SYSTEM_CLOCK = SystemClock()
