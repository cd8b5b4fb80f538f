"""`LogRecorder`: the agent's `RunRecorder` that writes a run to the runs log as it happens."""

from __future__ import annotations

import logging
import os
import time
import uuid
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from citeline.agent.exchanges import Codec, Json, RunRecorder
from citeline.runs.log import RunLog, iso
from citeline.runs.scrub import Scrubber

if TYPE_CHECKING:
    from citeline.agent.result import AgentResult

T = TypeVar("T")
log = logging.getLogger("citeline.runs")
RECORD_VERSION = 1


class LogRecorder(RunRecorder):
    """Writes one run: `start` (fsynced) before any work, each exchange as it completes, `end`
    (fsynced only when the run failed). A log that cannot be written never fails the run: the run goes unrecorded and
    the reason is logged once."""

    def __init__(self, runs: RunLog, *, via: str, session_id: str | None = None,
                 scrub: Scrubber | None = None, clock: Callable[[], float] = time.perf_counter) -> None:
        self.runs = runs
        self.via = via
        self.session_id = session_id
        self.scrub = scrub or Scrubber()
        self.clock = clock
        self.run_id = uuid.uuid4().hex
        self.steps = 0
        self.broken = False

    def _write(self, kind: str, fields: Mapping[str, Any], *, sync: bool = False) -> None:
        if self.broken:
            return
        record = {"record": kind, "run_id": self.run_id, "at": iso(self.runs.clock()), **fields}
        try:
            self.runs.append(self.scrub(record), sync=sync)
        except (OSError, ValueError, TypeError) as exc:
            self.broken = True
            log.warning("run %s is not recorded: cannot write the runs log in %s (%s); check the directory's "
                        "permissions and free space, or set CITELINE_RUNS_LOG=false", self.run_id,
                        self.runs.directory, exc)

    def begin(self, header: Mapping[str, Any]) -> None:
        """Record the start of the run (question, owner, settings), fsynced so a run cut off later is
        still on record."""
        self._write("start", {"v": RECORD_VERSION, "via": self.via, "session_id": self.session_id,
                              "pid": os.getpid(), **header}, sync=True)

    def context(self, info: Mapping[str, Any]) -> None:
        """Record what the run depends on once resources are ready: corpus version, answerer and its
        prompt, cache key."""
        self._write("context", info)

    def exchange(self, kind: str, request: Json, perform: Callable[[], T], codec: Codec[T], *,
                 served: bool = True) -> T:
        """Perform one exchange with the outside world and record its request, response (or error) and
        duration."""
        started = self.clock()
        try:
            value = perform()
        except BaseException as exc:
            self._exchange(kind, request, {"error": codec.encode_error(exc)}, started)
            raise
        self._exchange(kind, request, {"response": codec.encode(value)}, started)
        return value

    def _exchange(self, kind: str, request: Json, outcome: Json, started: float) -> None:
        self.steps += 1
        self._write("exchange", {"n": self.steps, "kind": kind, "request": request, **outcome,
                                 "ms": round((self.clock() - started) * 1000, 3)})

    def finish(self, result: AgentResult) -> None:
        """Record the run's result."""
        self._write("end", {"status": "complete", "exit_reason": result.exit_reason.value,
                            "total_ms": result.timings.total_ms, "usage": result.usage.model_dump(),
                            "cached": result.cached, "result": result.model_dump(mode="json")})

    def abort(self, error: BaseException) -> None:
        """Record that the run failed with an exception (fsynced: the process may be going down)."""
        self._write("end", {"status": "failed", "exit_reason": None,
                            "error": f"{error.__class__.__name__}: {str(error)[:500]}"}, sync=True)
