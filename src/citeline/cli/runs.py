"""`citeline logs` (list, show, export recorded runs) and `citeline replay RUN_ID`.

Runs are listed for the `owner` setting unless `--owner` names another or `--all-owners` is given
(the runs log holds every user's questions; the HTTP service shows a user only their own).
Output is plain text, never wrapped, so it can be piped and grepped.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from citeline.cli.output import fail, print_json

if TYPE_CHECKING:
    from citeline.app import Citeline
    from citeline.runs import RecordedRun, RunFilter, RunLog

EXIT_OK, EXIT_DIFFERENT, EXIT_USAGE = 0, 1, 2

logs_app = typer.Typer(
    help="Recorded runs: list them (the default), show one as a trace, or export them as JSON Lines. "
    "Runs are recorded in HOME/runs/ unless CITELINE_RUNS_LOG=false.",
    no_args_is_help=False, invoke_without_command=True,
)

OwnerOpt = Annotated[str | None, typer.Option("--owner", help="Runs of this owner (default: the `owner` setting).")]
AllOwnersOpt = Annotated[bool, typer.Option("--all-owners", help="Runs of every owner.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]


def _open() -> tuple[Citeline, RunLog]:
    from citeline.app import Citeline
    from citeline.config import Settings
    from citeline.errors import CitelineError

    try:
        citeline = Citeline(Settings())
    except (CitelineError, ValueError) as exc:
        fail(f"invalid configuration: {exc}")
    runs = citeline.runs
    if runs is None:
        fail("the runs log is off: set CITELINE_RUNS_LOG=true to record runs")
    return citeline, runs


def _owner(citeline: Citeline, owner: str | None, all_owners: bool) -> str | None:
    return None if all_owners else owner or citeline.settings.index.owner


def _filter(citeline: Citeline, owner: str | None, all_owners: bool, session: str | None, exit_reason: str | None,
            status: str | None, via: str | None, since: str | None, until: str | None) -> RunFilter:
    from citeline.runs import RunFilter
    from citeline.runs.log import parse_when

    try:
        return RunFilter(owner=_owner(citeline, owner, all_owners), session_id=session, exit_reason=exit_reason,
                         status=status, via=via, since=parse_when(since) if since else None,
                         until=parse_when(until, end_of_day=True) if until else None)
    except ValueError as exc:
        fail(str(exc))


def _one_line(text: str, limit: int = 80) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@logs_app.callback()
def logs(
    ctx: typer.Context,
    owner: OwnerOpt = None,
    all_owners: AllOwnersOpt = False,
    session: Annotated[str | None, typer.Option("--session", help="Runs of this session id.")] = None,
    exit_reason: Annotated[str | None, typer.Option("--exit", help="Runs that ended so, e.g. COMPLETED.")] = None,
    status: Annotated[str | None, typer.Option("--status", help="complete, incomplete or failed.")] = None,
    via: Annotated[str | None, typer.Option("--via", help="cli, http, sse, openai, mcp, library or replay.")] = None,
    since: Annotated[str | None, typer.Option("--since", help="From this day or time (YYYY-MM-DD, UTC).")] = None,
    until: Annotated[str | None, typer.Option("--until", help="Up to this day or time (YYYY-MM-DD, UTC).")] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="At most this many runs, newest first.")] = 20,
    as_json: JsonOpt = False,
) -> None:
    """List recorded runs, newest first (`citeline logs show RUN_ID` shows one)."""
    if ctx.invoked_subcommand is not None:
        ctx.obj = {"owner": owner, "all_owners": all_owners}
        return
    citeline, runs = _open()
    where = _filter(citeline, owner, all_owners, session, exit_reason, status, via, since, until)
    found = runs.summaries(where, limit=limit)
    if as_json:
        print_json([run.to_dict() for run in found])
        return
    if not found:
        typer.echo("no recorded runs" + ("" if all_owners else f" of owner `{where.owner}` (--all-owners: every owner)"))
        return
    for run in found:
        outcome = run.exit_reason or run.status.upper()
        took = f"{run.total_ms:.0f} ms" if run.total_ms is not None else "-"
        typer.echo(f"{run.run_id[:12]}  {run.started_at[:19].replace('T', ' ')}Z  {run.via:<7} {run.owner:<12} "
                   f"{outcome:<22} {took:>8}  {run.steps:>3} steps  {_one_line(run.question)}")
    if runs.torn_lines:
        typer.echo(f"({runs.torn_lines} unreadable line(s) skipped: cut off by a crash while being written)", err=True)


def _find(runs: RunLog, run_id: str, owner: str | None) -> RecordedRun:
    try:
        run = runs.find(run_id)
    except LookupError as exc:
        fail(str(exc))
    if run is None or (owner is not None and run.owner != owner):
        # Another owner's run is reported exactly like a missing one.
        fail(f"no recorded run {run_id}" + ("" if owner is None else f" of owner `{owner}`")
              + ": see `citeline logs` (or --all-owners)")
    return run


@logs_app.command("show")
def show(
    ctx: typer.Context,
    run_id: Annotated[str, typer.Argument(metavar="RUN_ID", help="A run id (or its start), or a query id.")],
    owner: OwnerOpt = None,
    all_owners: AllOwnersOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Show one run as a readable trace: each model decision, tool call and search, then the result."""
    parent = ctx.obj or {}
    citeline, runs = _open()
    run = _find(runs, run_id, _owner(citeline, owner or parent.get("owner"),
                                     all_owners or bool(parent.get("all_owners"))))
    if as_json:
        print_json({"run_id": run.run_id, "records": run.records})
        return
    from citeline.cli.run_trace import render_run

    sys.stdout.write(render_run(run))


@logs_app.command("export")
def export(
    ctx: typer.Context,
    out: Annotated[Path | None, typer.Option("--out", metavar="FILE", help="Write here instead of stdout.")] = None,
    owner: OwnerOpt = None,
    all_owners: AllOwnersOpt = False,
    since: Annotated[str | None, typer.Option("--since", help="From this day or time (YYYY-MM-DD, UTC).")] = None,
    until: Annotated[str | None, typer.Option("--until", help="Up to this day or time (YYYY-MM-DD, UTC).")] = None,
) -> None:
    """Export every record of the matching runs as JSON Lines (one record per line)."""
    parent = ctx.obj or {}
    citeline, runs = _open()
    where = _filter(citeline, owner or parent.get("owner"), all_owners or bool(parent.get("all_owners")), None,
                    None, None, None, since, until)
    lines = (json.dumps(record, ensure_ascii=False, default=str) + "\n" for record in runs.export(where))
    if out is None:
        sys.stdout.writelines(lines)
        return
    count = 0
    with out.open("w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(line)
            count += 1
    typer.echo(f"wrote {count} records to {out}", err=True)


def replay(
    run_id: Annotated[str, typer.Argument(metavar="RUN_ID", help="A run id (or its start), or a query id.")],
    live: Annotated[bool, typer.Option("--live", help="Ask again with today's index and model, and show what "
                                                      "changed.")] = False,
    owner: OwnerOpt = None,
    all_owners: AllOwnersOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Re-execute a recorded run from its record alone (no model, no index, no network) and say
    whether the result is identical; --live asks again and shows the differences."""
    citeline, runs = _open()
    run = _find(runs, run_id, _owner(citeline, owner, all_owners))
    if live:
        _replay_live(citeline, run, as_json=as_json)
        return
    from citeline.runs.replay import replay as replay_run

    try:
        report = replay_run(run, runs)
    except ValueError as exc:
        fail(str(exc))
    if as_json:
        print_json(report.to_dict())
    else:
        steps = f"{report.steps_replayed} of {report.steps_recorded} recorded steps"
        if report.note:
            typer.echo(report.note)
        if report.divergence:
            typer.echo(f"run {run.run_id}: diverged at {report.divergence}", err=True)
        elif report.incomplete:
            typer.echo(f"run {run.run_id}: incomplete record; replayed {steps} without divergence")
        elif report.identical:
            typer.echo(f"run {run.run_id}: replayed {steps} offline; the result is identical "
                       f"({report.compared_bytes} bytes compared)")
        else:
            typer.echo(f"run {run.run_id}: replayed {steps}; the result differs:", err=True)
        for line in report.differences:
            typer.echo(f"  {line}", err=True)
    raise typer.Exit(EXIT_OK if report.identical else EXIT_DIFFERENT)


def _replay_live(citeline: Citeline, run: RecordedRun, *, as_json: bool) -> None:
    from citeline.errors import CitelineError
    from citeline.runs.replay import differences

    start = run.start or {}
    try:
        result = citeline.ask(str(start.get("question", "")), owner=str(start.get("owner") or "") or None,
                              model=start.get("model"), history=list(start.get("history") or []),
                              origin={"via": "replay"})
    except CitelineError as exc:
        fail(str(exc))
    current = result.model_dump(mode="json")
    changed = differences(run.result or {}, current)
    if as_json:
        print_json({"run_id": run.run_id, "identical": not changed, "differences": changed, "result": current})
    elif changed:
        typer.echo(f"run {run.run_id} asked again with today's index and model ({result.model}): it differs")
        for line in changed:
            typer.echo(f"  {line}")
    else:
        typer.echo(f"run {run.run_id} asked again with today's index and model ({result.model}): same exit "
                   "reason, answer and citations")
    raise typer.Exit(EXIT_OK if not changed else EXIT_DIFFERENT)
