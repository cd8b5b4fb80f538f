"""Human output for the CLI (Rich). Kept apart so `--json` paths never import it."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator, Sequence
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
from citeline.ingest import IngestReport

console = Console()
errors = Console(stderr=True)


class IngestProgress:
    """A Rich progress bar fed by `ingest_paths`: files done of total, files/s, chunks/s.

    Callable as a `ProgressCallback`; `start(total)` is called once discovery knows the total.
    """

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.files = 0
        self.chunks = 0
        self.bar = Progress(
            TextColumn("[bold]ingesting"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TextColumn("[dim]{task.fields[current]}"),
            console=errors, transient=True,
        )
        self.task = self.bar.add_task("ingest", total=None, rate="", current="")

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def start(self, total: int) -> None:
        self.bar.update(self.task, total=total)

    def __call__(self, path: Path, chunks: int) -> None:
        self.files += 1
        self.chunks += chunks
        elapsed = max(self.elapsed, 1e-6)
        self.bar.update(self.task, advance=1, current=path.name[:40],
                        rate=f"{self.files / elapsed:.1f} files/s {self.chunks / elapsed:.1f} chunks/s")


@contextmanager
def ingest_progress() -> Iterator[IngestProgress]:
    progress = IngestProgress()
    with progress.bar:
        yield progress


def print_ingest_report(report: IngestReport, elapsed_s: float | None = None) -> None:
    took = f" in {elapsed_s:.1f} s" if elapsed_s is not None else ""
    console.print(
        f"ingested {report.ingested}, updated {report.updated}, unchanged {report.unchanged}, "
        f"removed {report.removed}, failed {len(report.failed)} — {report.chunks} chunks written{took}"
        + (f", {report.sanitized_chars} invisible characters removed" if report.sanitized_chars else ""),
        highlight=False, soft_wrap=True,  # one line, whatever the terminal width: scripts grep it
    )
    if report.failed:
        errors.print(f"[red]{len(report.failed)} file(s) could not be ingested:[/red]")
    for failure in report.failed:
        errors.print(f"  [red]failed[/red] {failure.path}: {failure.error}", highlight=False, soft_wrap=True)


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
                  as_json: bool, cancelled: Callable[[], bool] | None = None) -> AgentResult:
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

    result = citeline.ask(question, model=model, owner=owner, on_event=on_event, cancelled=cancelled)
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
