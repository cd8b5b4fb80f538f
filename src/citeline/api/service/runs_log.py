"""The runs log as the API shows it: a user sees their own runs only, an admin everyone's; another
user's run is the same 404 as a missing one; records never show server paths or the store URL."""

from __future__ import annotations

from typing import Any

from citeline.api.errors import ApiError, not_found
from citeline.api.service.core import Service
from citeline.api.users import User
from citeline.runs import RunFilter, RunLog, RunSummary
from citeline.runs.log import parse_when

# Where the server keeps its files and how it reaches its store and sessions are the operator's
# business. Runs recorded before the settings were nested have these fields at the top level.
_PRIVATE_SETTINGS = {"index": ("home", "store", "plugins"), "service": ("sessions",)}
_PRIVATE_FLAT_SETTINGS = ("home", "store", "plugins")


def _public_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """A run's recorded settings without the operator's private fields (nested or flat layout)."""
    shown: dict[str, Any] = {}
    for key, value in settings.items():
        if key in _PRIVATE_FLAT_SETTINGS:
            continue
        private = _PRIVATE_SETTINGS.get(key, ())
        shown[key] = {k: v for k, v in value.items() if k not in private} if isinstance(value, dict) else value
    return shown


def runs_log(svc: Service) -> RunLog:
    """The service's runs log, or 404 saying it is switched off."""
    runs = svc.citeline.runs
    if runs is None:
        raise ApiError(404, "the runs log is off on this server (CITELINE_RUNS_LOG=false)")
    return runs


def run_filter(user: User, owner: str | None, session_id: str | None, exit_reason: str | None, status: str | None,
               via: str | None, since: str | None, until: str | None) -> RunFilter | None:
    """The filter, or None when it can match nothing this user may see (422 for a bad time)."""
    if not user.admin and owner is not None and owner != user.id:
        return None  # another user's runs: an empty list, exactly as for an unknown owner
    try:
        return RunFilter(owner=owner if user.admin else user.id, session_id=session_id,
                         exit_reason=exit_reason, status=status, via=via,
                         since=parse_when(since) if since else None,
                         until=parse_when(until, end_of_day=True) if until else None)
    except ValueError as exc:
        raise ApiError(422, str(exc), type="validation_error", step="validation") from None


def presented_record(svc: Service, owner: str, record: dict[str, Any]) -> dict[str, Any]:
    """A record as a user sees it: document sources as file names, no server paths or store URL."""
    shown = dict(svc.present_data(owner, record))
    shown.pop("pid", None)
    if isinstance(shown.get("settings"), dict):
        shown["settings"] = _public_settings(shown["settings"])
    return shown


def list_runs(runs: RunLog, condition: RunFilter | None, *, limit: int) -> list[RunSummary]:
    """The matching runs, newest first (none when `condition` is None). Blocking: a worker thread."""
    return [] if condition is None else runs.summaries(condition, limit=limit)


def export_records(svc: Service, runs: RunLog, user: User, condition: RunFilter | None) -> list[dict[str, Any]]:
    """Every record of the matching runs as `user` may see them (none when `condition` is None).
    Blocking: a worker thread."""
    records = [] if condition is None else list(runs.export(condition))
    return [presented_record(svc, user.id, record) for record in records]


def run_records(svc: Service, runs: RunLog, user: User, run_id: str) -> tuple[str, list[dict[str, Any]]]:
    """One run's id and its records as `user` may see them, or 404 (also for another user's run
    unless `user` is an admin). Blocking: a worker thread."""
    try:
        run = runs.find(run_id)
    except LookupError:
        run = None
    exact = run is not None and run_id in {run.run_id, str((run.start or {}).get("query_id"))}
    if run is None or not exact or (run.owner != user.id and not user.admin):
        raise not_found("run")
    return run.run_id, [presented_record(svc, run.owner, r) for r in run.records]
