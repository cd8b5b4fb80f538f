"""The runs log: every run on record (inputs, each model and tool exchange, the result), so any
answer can be explained later (`citeline logs`) and replayed without a model (`citeline replay`).

The agent defines where a run meets the outside world (`citeline.agent.exchanges`); this package
writes those exchanges down (`LogRecorder` into a `RunLog`) and serves them back (`replay`).
"""

from __future__ import annotations

from citeline.config import Settings
from citeline.runs.log import RecordedRun, RunFilter, RunLog, RunSummary
from citeline.runs.recorder import LogRecorder
from citeline.runs.scrub import Scrubber


def open_log(settings: Settings) -> RunLog | None:
    """The runs log under the settings' home, or None when the `runs_log` setting is off."""
    if not settings.runs.log:
        return None
    return RunLog(settings.index.home / "runs", retention_days=settings.runs.retention_days,
                  max_bytes=settings.runs.max_mb << 20)


def recorder(runs: RunLog, settings: Settings, *, via: str, session_id: str | None = None) -> LogRecorder:
    """A recorder for one run; the settings' API key is among the secrets it never writes."""
    return LogRecorder(runs, via=via, session_id=session_id, scrub=Scrubber([settings.answerer.openai_api_key]))


__all__ = ["LogRecorder", "RecordedRun", "RunFilter", "RunLog", "RunSummary", "Scrubber", "open_log", "recorder"]
