"""Test your integration without a model: answerers backed by a plain Python function.

    from citeline import Citeline
    from citeline.testing import FinalAnswer, FunctionAnswerer, ToolCall

    def decide(run):
        if not run.searches:
            return ToolCall("search_docs", {"query": run.question})
        return FinalAnswer(f"{run.evidence()[0].text.split('.')[0]}. [1]")

    result = app.ask("What is the default timeout?", answerer=FunctionAnswerer(decide))

The function sees the whole run (question, searches, opened passages, validation errors from
the previous attempt) and returns the next action. Its answers go through the same validator as
any model's: citations are checked, unsupported sentences removed, and the run ends with exactly
one exit reason.

`ManualClock` tests time limits without waiting: pass it as `app.ask(..., clock=clock)` and the
run's time budget, back-off and waits read and advance it instead of the system clock.
"""

from __future__ import annotations

from collections.abc import Callable

from citeline.agent.actions import Action, FinalAnswer, ToolCall, Unusable
from citeline.agent.answerer import Answerer
from citeline.agent.state import RunState

__all__ = ["Action", "FinalAnswer", "FunctionAnswerer", "ManualClock", "RunState", "ToolCall", "Unusable"]


class FunctionAnswerer(Answerer):
    """An answerer whose every decision is `decide(run)`."""

    def __init__(self, decide: Callable[[RunState], Action], *, name: str = "function") -> None:
        self._decide = decide
        self.name = name

    @property
    def fingerprint(self) -> str:
        """A cache key unique to this function object, so cached answers never cross functions."""
        # A function's behaviour cannot be hashed: answers are never served from cache across
        # two different functions with the same name.
        return f"{self.name}@{id(self._decide):x}"

    def decide(self, run: RunState) -> Action:
        """The next action: whatever the function returns for the run as it stands."""
        return self._decide(run)


class ManualClock:
    """A clock that only moves when told to: `sleep` and `advance` add to `now` at once."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now
        self.slept = 0.0  # total seconds the run asked to wait

    def monotonic(self) -> float:
        """The current manual time."""
        return self.now

    def sleep(self, seconds: float) -> None:
        """Move time forward by `seconds` without waiting (and count it in `slept`)."""
        self.slept += max(0.0, seconds)
        self.advance(seconds)

    def advance(self, seconds: float) -> None:
        """Move time forward by `seconds`, as if they had passed."""
        self.now += max(0.0, seconds)
