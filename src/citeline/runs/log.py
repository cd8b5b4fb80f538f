"""The runs log: every run appended as JSON Lines under `<home>/runs/`, one file per UTC day.

Why JSON Lines files rather than a table in the index database: a record is one `write()` of
one line with `O_APPEND`, so appending never rewrites anything and a process killed mid-run
leaves every line it wrote (at worst a torn last line, which readers skip). The log needs no
schema migration, no lock held between writes and no connection to the store, so it records
runs of any store engine alike; retention and the size bound are whole files deleted, and the
files can be read with `grep` or `jq`. With a PostgreSQL store the log stays file-based: each
machine's `citeline serve` records its own runs under its own home.

Files are `YYYY-MM-DD.N.jsonl` (day and part; a new part starts when one reaches 1/16 of the size
bound). Writers in several processes take an exclusive `flock` on `runs/.lock` for each write,
so lines of concurrent runs never interleave. Records, each with `record`, `run_id` and `at`:

- `start`: the question, owner, session, surface (`via`), model, settings and their fingerprint;
  fsynced before the run does any work;
- `context`: the corpus version, the answerer and its system prompt, the cache key (and the query
  id of the run whose answer was served, on a cache hit);
- `exchange`: step `n` of the run, its `kind` (decision, plan, synthesis, tool, retrieval, clock),
  the `request` and the `response` or `error`, with `ms`;
- `end`: `status` complete (with the AgentResult) or failed (with the error). Written, not
  fsynced (that doubled the cost of recording, ~20 ms a run here): it survives the process
  dying, and after a power loss the run shows as incomplete rather than as ended.

A run with a `start` and no `end` was cut off (its process died) or is still running:
`incomplete`.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

_PART = re.compile(r"^(\d{4}-\d{2}-\d{2})\.(\d+)\.jsonl$")
_EXCHANGE_PREFIX = '{"record":"exchange","run_id":"'
Clock = Callable[[], float]


def iso(ts: float) -> str:
    """A UTC timestamp as ISO 8601 with milliseconds and `Z`."""
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_when(text: str, *, end_of_day: bool = False) -> datetime:
    """`YYYY-MM-DD` or an ISO 8601 time (UTC unless it says otherwise), for `--since`/`--until`."""
    value = text.strip()
    try:
        if len(value) == 10:
            day = date.fromisoformat(value)
            moment = datetime(day.year, day.month, day.day, tzinfo=UTC)
            return moment + timedelta(days=1) - timedelta(microseconds=1) if end_of_day else moment
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"`{text}` is not a date: use YYYY-MM-DD or an ISO time like 2025-01-31T14:00") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@dataclass
class RunSummary:
    """One line of `citeline logs`: who asked what, through which surface, and how it ended."""

    run_id: str
    query_id: str = ""
    started_at: str = ""
    ended_at: str | None = None
    status: str = "incomplete"  # complete | failed | incomplete (no end record: cut off or running)
    via: str = ""
    owner: str = ""
    session_id: str | None = None
    model: str = ""
    question: str = ""
    exit_reason: str | None = None
    total_ms: float | None = None
    usage: dict[str, int] = field(default_factory=dict)
    cached: bool = False
    steps: int = 0
    settings_fingerprint: str = ""
    corpus_version: int | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The summary as plain values (`citeline logs --json`, `/v1/runs`)."""
        return asdict(self)


@dataclass
class RunFilter:
    """Which runs to list: all conditions must hold (None = any)."""

    owner: str | None = None
    session_id: str | None = None
    exit_reason: str | None = None
    status: str | None = None
    via: str | None = None
    since: datetime | None = None
    until: datetime | None = None

    def matches(self, run: RunSummary) -> bool:
        """Whether the run meets every condition given."""
        if self.owner is not None and run.owner != self.owner:
            return False
        if self.session_id is not None and run.session_id != self.session_id:
            return False
        if self.exit_reason is not None and (run.exit_reason or "").upper() != self.exit_reason.upper():
            return False
        if self.status is not None and run.status != self.status:
            return False
        if self.via is not None and run.via != self.via:
            return False
        started = parse_when(run.started_at) if run.started_at else None
        if self.since is not None and (started is None or started < self.since):
            return False
        return not (self.until is not None and (started is None or started > self.until))


@dataclass
class RecordedRun:
    """Every record of one run, in the order written."""

    run_id: str
    start: dict[str, Any] | None = None
    context: dict[str, Any] | None = None
    exchanges: list[dict[str, Any]] = field(default_factory=list)
    end: dict[str, Any] | None = None

    @property
    def records(self) -> list[dict[str, Any]]:
        """The run's records in the order written, missing ones (a run cut off) left out."""
        return [r for r in (self.start, self.context, *self.exchanges, self.end) if r is not None]

    @property
    def owner(self) -> str:
        """Who asked (empty when the start record is missing); runs are shown only to their owner."""
        return str((self.start or {}).get("owner", ""))

    @property
    def complete(self) -> bool:
        """Whether the run ended normally (not cut off or failed), so it can be replayed."""
        return self.end is not None and self.end.get("status") == "complete"

    @property
    def result(self) -> dict[str, Any] | None:
        """The recorded AgentResult as JSON data, or None for a run that did not complete."""
        result = (self.end or {}).get("result")
        return result if isinstance(result, dict) else None


class RunLog:
    """Appends records to the day's file and reads runs back (tolerating a torn last line)."""

    def __init__(self, directory: Path, *, retention_days: int = 30, max_bytes: int = 256 << 20,
                 clock: Clock = time.time) -> None:
        self.directory = directory
        self.retention_days = retention_days
        self.max_bytes = max_bytes
        self.part_bytes = max(64 << 10, max_bytes // 16)
        self.clock = clock
        self.torn_lines = 0  # lines skipped by the last read: cut off by a crash mid-write
        self._lock = threading.Lock()
        self._part: Path | None = None
        self._pruned_on: str | None = None

    # --- writing -------------------------------------------------------------------------
    def append(self, *records: Mapping[str, Any], sync: bool = False) -> None:
        """Append records as lines, in one write under the log's lock; `sync` waits for the disk."""
        data = "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":"), default=str) + "\n"
                       for r in records).encode("utf-8")
        with self._lock, self._locked():
            path = self._current_part()
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                size = os.fstat(fd).st_size
                if size and os.pread(fd, 1, size - 1) != b"\n":
                    data = b"\n" + data  # a line torn by a crash ends here; ours start on a new line
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                if sync:
                    os.fsync(fd)
            finally:
                os.close(fd)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.directory / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def _current_part(self) -> Path:
        today = datetime.fromtimestamp(self.clock(), UTC).date().isoformat()
        part = self._part
        if part is not None and part.name.startswith(today):
            with contextlib.suppress(FileNotFoundError):
                if part.stat().st_size < self.part_bytes:
                    return part
        numbers = [int(m.group(2)) for p in self.directory.iterdir()
                   if (m := _PART.match(p.name)) and m.group(1) == today]
        number = max(numbers, default=1)
        candidate = self.directory / f"{today}.{number}.jsonl"
        if candidate.exists() and candidate.stat().st_size >= self.part_bytes:
            candidate = self.directory / f"{today}.{number + 1}.jsonl"
        if candidate != part or self._pruned_on != today:
            self._prune(keep=candidate, today=today)
        self._part = candidate
        return candidate

    def _prune(self, *, keep: Path, today: str) -> None:
        """Drop parts older than the retention, then the oldest parts while over the size bound."""
        self._pruned_on = today
        oldest_kept = (date.fromisoformat(today) - timedelta(days=self.retention_days)).isoformat()
        parts = self.parts()
        sizes: dict[Path, int] = {}
        for path in parts:
            with contextlib.suppress(FileNotFoundError):
                if path.name[:10] < oldest_kept:
                    path.unlink()
                else:
                    sizes[path] = path.stat().st_size
        total = sum(sizes.values())
        for path, size in sizes.items():  # oldest first
            if total <= self.max_bytes:
                break
            if path == keep:
                continue
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            total -= size

    # --- reading -------------------------------------------------------------------------
    def parts(self) -> list[Path]:
        """The log's files, oldest first."""
        if not self.directory.is_dir():
            return []
        found = [(m.group(1), int(m.group(2)), p) for p in self.directory.iterdir() if (m := _PART.match(p.name))]
        return [p for _, _, p in sorted(found)]

    def _lines(self, since: datetime | None = None) -> Iterator[str]:
        first_day = since.date().isoformat() if since is not None else ""
        for path in self.parts():
            if path.name[:10] < first_day:
                continue
            try:
                with path.open("rb") as handle:
                    for raw in handle:
                        yield raw.decode("utf-8", errors="replace")
            except FileNotFoundError:  # pruned by a writer meanwhile
                continue

    def _parse(self, line: str) -> dict[str, Any] | None:
        if not line.endswith("\n"):  # the last line of a process killed mid-write
            self.torn_lines += line.strip() != ""
            return None
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            self.torn_lines += 1
            return None
        return record if isinstance(record, dict) and "run_id" in record else None

    def summaries(self, where: RunFilter | None = None, *, limit: int | None = None) -> list[RunSummary]:
        """Runs matching `where`, newest first (at most `limit`). Reads only the start, context
        and end records in full; exchanges are counted."""
        self.torn_lines = 0
        runs: dict[str, RunSummary] = {}
        steps: dict[str, int] = {}
        for line in self._lines(where.since if where else None):
            if line.startswith(_EXCHANGE_PREFIX):
                run_id = line[len(_EXCHANGE_PREFIX):].split('"', 1)[0]
                steps[run_id] = steps.get(run_id, 0) + 1
                continue
            record = self._parse(line)
            if record is None:
                continue
            _summarise(runs, record)
        found = [run for run in runs.values() if run.started_at]
        for run in found:
            run.steps = steps.get(run.run_id, 0)
        if where is not None:
            found = [run for run in found if where.matches(run)]
        found.sort(key=lambda r: r.started_at, reverse=True)
        return found[:limit] if limit is not None else found

    def find(self, run_id: str) -> RecordedRun | None:
        """Every record of the run with this id, or this query id, or a unique prefix of a run id."""
        self.torn_lines = 0
        key = run_id.strip()
        if not key:
            return None
        runs: dict[str, RecordedRun] = {}
        by_query: dict[str, str] = {}
        for line in self._lines():
            if line.startswith(_EXCHANGE_PREFIX):
                rid = line[len(_EXCHANGE_PREFIX):].split('"', 1)[0]
                if not (rid.startswith(key) or by_query.get(key) == rid):
                    continue  # another run's exchange: not parsed
            record = self._parse(line)
            if record is None:
                continue
            rid = str(record["run_id"])
            if record.get("record") == "start" and record.get("query_id"):
                by_query[str(record["query_id"])] = rid
            if rid.startswith(key) or by_query.get(key) == rid:
                _collect(runs.setdefault(rid, RecordedRun(rid)), record)
        if key in by_query:
            return runs.get(by_query[key])
        matches = [r for rid, r in runs.items() if rid.startswith(key)]
        if len(matches) > 1:
            raise LookupError(f"`{run_id}` is the start of {len(matches)} run ids: give more characters")
        return matches[0] if matches else None

    def by_query_id(self, query_id: str) -> RecordedRun | None:
        """The complete, uncached run that answered with this query id (the source of a cache hit)."""
        candidates = [s for s in self.summaries() if s.query_id == query_id and s.status == "complete"
                      and not s.cached]
        return self.find(candidates[0].run_id) if candidates else None

    def export(self, where: RunFilter | None = None) -> Iterator[dict[str, Any]]:
        """Every record of the runs matching `where`, run by run, oldest first (JSON Lines export)."""
        wanted = {s.run_id for s in self.summaries(where)}
        grouped: dict[str, RecordedRun] = {}
        for line in self._lines(where.since if where else None):
            if line.startswith(_EXCHANGE_PREFIX) and line[len(_EXCHANGE_PREFIX):].split('"', 1)[0] not in wanted:
                continue
            record = self._parse(line)
            if record is not None and record["run_id"] in wanted:
                _collect(grouped.setdefault(str(record["run_id"]), RecordedRun(str(record["run_id"]))), record)
        for run in grouped.values():
            yield from run.records


def _collect(run: RecordedRun, record: dict[str, Any]) -> None:
    kind = record.get("record")
    if kind == "start":
        run.start = record
    elif kind == "context":
        run.context = record
    elif kind == "exchange":
        run.exchanges.append(record)
    elif kind == "end":
        run.end = record


def _summarise(runs: dict[str, RunSummary], record: dict[str, Any]) -> None:
    run_id = str(record["run_id"])
    summary = runs.setdefault(run_id, RunSummary(run_id))
    kind = record.get("record")
    if kind == "start":
        summary.query_id = str(record.get("query_id", ""))
        summary.started_at = str(record.get("at", ""))
        summary.via = str(record.get("via", ""))
        summary.owner = str(record.get("owner", ""))
        summary.session_id = record.get("session_id")
        summary.model = str(record.get("model", ""))
        summary.question = str(record.get("question", ""))
        summary.settings_fingerprint = str(record.get("settings_fingerprint", ""))
    elif kind == "context":
        summary.corpus_version = record.get("corpus_version")
        summary.cached = bool(record.get("cached_from"))
    elif kind == "end":
        summary.ended_at = str(record.get("at", ""))
        summary.status = str(record.get("status", "complete"))
        summary.exit_reason = record.get("exit_reason")
        summary.total_ms = record.get("total_ms")
        summary.usage = dict(record.get("usage") or {})
        summary.error = record.get("error")
