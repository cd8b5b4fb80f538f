"""Human output for the CLI (Rich). Kept apart so `--json` paths never import it."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markdown import Markdown
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from citeline.agent.events import Event
from citeline.agent.result import AgentResult
from citeline.app import Citeline
from citeline.index.store import DocumentRecord, Passage
from citeline.ingest import IngestReport, ProgressCallback

console = Console()
errors = Console(stderr=True)


@contextmanager
def ingest_progress() -> Iterator[ProgressCallback]:
    started = time.perf_counter()
    totals = {"files": 0, "chunks": 0}
    progress = Progress(
        TextColumn("[bold]ingesting"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(), console=errors, transient=True,
    )
    task = progress.add_task("ingest", total=None, rate="")

    def advance(path: Path, chunks: int) -> None:
        totals["files"] += 1
        totals["chunks"] += chunks
        elapsed = max(time.perf_counter() - started, 1e-6)
        progress.update(task, advance=1, rate=f"{totals['files'] / elapsed:.1f} files/s "
                        f"{totals['chunks'] / elapsed:.1f} chunks/s")

    with progress:
        yield advance


def print_ingest_report(report: IngestReport) -> None:
    console.print(
        f"ingested {report.ingested}, updated {report.updated}, unchanged {report.unchanged}, "
        f"removed {report.removed}, failed {len(report.failed)} — {report.chunks} chunks written"
        + (f", {report.sanitized_chars} invisible characters removed" if report.sanitized_chars else "")
    )
    for failure in report.failed:
        errors.print(f"[red]failed[/red] {failure.path}: {failure.error}", highlight=False)


def print_result(result: AgentResult, out: Console | None = None) -> None:
    out = out or console
    out.print(Markdown(result.answer) if result.answer else "")
    if result.citations:
        out.print()
        out.print("[bold]Sources[/bold]")
        for citation in result.citations:
            where = " › ".join(x for x in (citation.section, f"p. {citation.page}" if citation.page else None) if x)
            out.print(f"  \\[{citation.id}] [cyan]{escape(citation.document_name)}[/cyan]"
                      + (f" — {escape(where)}" if where else ""), highlight=False)
            quote = " ".join(citation.quote.split())
            quote = quote if len(quote) <= 240 else quote[:237] + "..."
            out.print(f"      “{quote}”", style="dim", markup=False, highlight=False)
    out.print(f"\n[dim]{result.exit_reason.value} · {result.model} · {result.timings.total_ms:.0f} ms[/dim]")


def print_passages(passages: Sequence[Passage], elapsed_ms: float) -> None:
    if not passages:
        console.print("no matching passages")
        return
    for rank, passage in enumerate(passages, 1):
        header = f"{rank}. [cyan]{passage.document_name}[/cyan]" + (f" › {passage.section}" if passage.section else "")
        console.print(f"{header}  [dim]score {passage.score:.3f} · {passage.document_id}/{passage.chunk_id}[/dim]",
                      highlight=False)
        snippet = " ".join(passage.text.split())
        console.print(f"   {snippet[:300]}{'...' if len(snippet) > 300 else ''}", highlight=False)
    console.print(f"[dim]{len(passages)} passages in {elapsed_ms:.0f} ms[/dim]")


def print_documents(records: Sequence[DocumentRecord]) -> None:
    if not records:
        console.print("no documents indexed: run `citeline ingest PATH`")
        return
    table = Table("id", "title", "chunks", "source")
    for record in records:
        table.add_row(record.id, record.title, str(record.chunk_count), record.source)
    console.print(table)


def stream_answer(citeline: Citeline, question: str, *, model: str | None, owner: str | None,
                  as_json: bool) -> AgentResult:
    """Print events as they arrive: JSON lines, or tokens then the sources."""
    final: dict[str, Any] = {}

    def on_event(event: Event) -> None:
        if as_json:
            sys.stdout.write(event.model_dump_json() + "\n")
            sys.stdout.flush()
        elif event.type == "token":
            sys.stdout.write(str(event.data.get("text", "")))
            sys.stdout.flush()
        elif event.type == "cached_response":
            sys.stdout.write(str(event.data.get("answer", "")))
        elif event.type == "tool_start":
            errors.print(f"[dim]→ {event.data.get('tool')} {json.dumps(event.data.get('input'))}[/dim]",
                         highlight=False)
        if event.type == "final":
            final.update(event.data["result"])

    result = citeline.ask(question, model=model, owner=owner, on_event=on_event)
    if not as_json:
        sys.stdout.write("\n")
        print_result(result)
    return result


def print_eval(report: dict[str, Any]) -> None:
    table = Table("metric", "value")
    for key, value in report.items():
        if key in {"exit_reasons", "latency_ms"}:
            value = json.dumps(value)
        table.add_row(key, f"{value:.3f}" if isinstance(value, float) else str(value))
    console.print(table)
