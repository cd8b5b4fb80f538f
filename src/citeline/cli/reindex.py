"""`citeline reindex`: re-embed the whole index with the configured embedder (after changing the
`embedder` setting), atomically: searches keep using the old vectors until the new ones are all
there. Safe to interrupt and to run again; it resumes."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from citeline.errors import CitelineError

EXIT_USAGE = 2


def reindex(
    force: Annotated[
        bool, typer.Option("--force", help="Re-embed even when the index already holds this embedder's vectors.")
    ] = False,
    batch_size: Annotated[
        int, typer.Option("--batch-size", min=0, help="Chunks embedded and saved per step (0 = the embedder's choice).")
    ] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
) -> None:
    """Re-embed every chunk with the configured embedder; the old vectors serve until the swap."""
    from citeline.app import Citeline
    from citeline.config import Settings
    from citeline.index.reindex import reindex as run_reindex

    try:
        citeline = Citeline(Settings())
        if as_json:
            report = run_reindex(citeline.store, citeline.embedder, force=force, batch_size=batch_size)
        else:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            from citeline.cli.render import errors

            with Progress(TextColumn("[bold]re-embedding"), BarColumn(), MofNCompleteColumn(),
                          TimeElapsedColumn(), console=errors, transient=True) as bar:
                task = bar.add_task("reindex", total=None)
                report = run_reindex(citeline.store, citeline.embedder, force=force, batch_size=batch_size,
                                     progress=lambda done, total: bar.update(task, completed=done, total=total))
    except CitelineError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    except ValueError as exc:  # pydantic validation of env vars / citeline.toml
        typer.echo(f"error: invalid configuration: {exc}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    if as_json:
        sys.stdout.write(json.dumps(report.to_dict()) + "\n")
    elif not report.swapped:
        typer.echo(f"the index already holds vectors of {report.embedder}: nothing to do "
                   "(--force re-embeds anyway)")
    else:
        resumed = f", {report.resumed} kept from an interrupted run" if report.resumed else ""
        typer.echo(f"re-embedded {report.embedded} of {report.chunks} chunks{resumed} with {report.embedder}; "
                   f"it now serves searches (was {report.previous or 'empty'})")
