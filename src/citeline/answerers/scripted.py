"""The `scripted` answerer: replays a JSONL file of model turns, one line per decision.

Lines use the strict JSON action format a model's output is parsed with (`parse_action`), so a
script exercises exactly the path a real model's turns take, plus test-only kinds:
`{"type": "text", "content": "..."}` (raw, possibly unparsable output) and
`{"type": "error", "kind": "rate_limit" | "server" | "timeout" | "bad_request", "message": ..., "status": N}`.
`{"type": "sleep", "seconds": N}` pauses on the run's clock (to exercise time limits) and then
reads the next line.
When the file runs out, the "model" returns empty output.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Any

from citeline.agent.actions import Action, ProviderError, Unusable, parse_action
from citeline.agent.answerer import Answerer, register_answerer
from citeline.agent.state import RunState
from citeline.config import Settings
from citeline.errors import ConfigurationError
from citeline.jsonl import read_objects
from citeline.retrieval import Retriever

_ERROR_KINDS = {"rate_limit", "server", "timeout", "bad_request", "context_length", "auth"}


class ScriptedAnswerer(Answerer):
    """Replays pre-written turns, one per decision: deterministic runs for tests and examples."""

    # A script is replayed from its first turn in every run.
    shareable = False

    def __init__(self, turns: list[dict[str, Any]], name: str = "scripted") -> None:
        self.name = name
        self._turns = turns
        self._position = 0
        self._lock = threading.Lock()
        # Same script, same question, same corpus -> same result: safe to cache by content.
        self._fingerprint = "scripted:" + hashlib.sha256(json.dumps(turns, sort_keys=True).encode()).hexdigest()

    @property
    def fingerprint(self) -> str:
        """The script's content, so two different scripts never share a cached answer."""
        return self._fingerprint

    @classmethod
    def from_file(cls, path: Path) -> ScriptedAnswerer:
        """The answerer for a JSONL script file, named after it."""
        turns = read_objects(path)
        return cls(turns, name=f"scripted:{path.name}")

    def reset(self) -> None:
        """Start the script again from its first turn."""
        with self._lock:
            self._position = 0

    def _next(self, run: RunState) -> dict[str, Any] | None:
        with self._lock:
            if self._position >= len(self._turns):
                run.model_exchange({"script": self.name, "line": self._position + 1}, {"end_of_script": True})
                return None
            turn = self._turns[self._position]
            self._position += 1
        # The script is this answerer's model: the line it read is the model's response.
        run.model_exchange({"script": self.name, "line": self._position}, turn)
        return turn

    def decide(self, run: RunState) -> Action:
        """The action on the script's next line (after any sleeps and scripted provider errors)."""
        while True:
            turn = self._next(run)
            if turn is None:
                return Unusable("", "the script has no more turns")
            kind = turn.get("type")
            if kind == "sleep":
                # A slow "model" still notices cancellation, as a real streaming provider does.
                # It waits on the run's clock: with a manual clock the time passes without waiting.
                deadline = run.clock.monotonic() + float(turn.get("seconds", 0))
                while (remaining := deadline - run.clock.monotonic()) > 0:
                    if run.cancelled is not None and run.cancelled():
                        return Unusable("", "cancelled while generating")
                    run.clock.sleep(min(0.05, remaining))
                continue
            if kind == "error":
                error_kind = turn.get("kind", "server")
                if error_kind not in _ERROR_KINDS:
                    error_kind = "server"
                raise ProviderError(error_kind, turn.get("message", f"scripted {error_kind} error"),
                                    retry_after=turn.get("retry_after"), status=turn.get("status"))
            if kind == "text":
                content = str(turn.get("content", ""))
                run.event("token", text=content)
                return parse_action(content)
            if kind == "final":
                run.event("token", text=str(turn.get("answer", "")))
            return parse_action(json.dumps(turn))


def _factory(argument: str, settings: Settings, retriever: Retriever) -> ScriptedAnswerer:
    if not argument:
        raise ConfigurationError("`scripted` needs a file", hint="use --model scripted:PATH/TO/actions.jsonl")
    return ScriptedAnswerer.from_file(Path(argument).expanduser())


register_answerer("scripted", _factory)
