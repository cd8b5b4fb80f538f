"""Human output for the CLI (Rich). Kept apart so `--json` paths never import it."""

from __future__ import annotations

import json
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from citeline.agent.events import Event
from citeline.agent.result import AgentResult
from citeline.app import Citeline
from citeline.index.store import DocumentRecord, Passage

if TYPE_CHECKING:
    from citeline.index.ingest import IngestReport, SkippedFile


def _console(*, stderr: bool = False) -> Console:
    """A console for stdout or stderr that wraps lines only on a terminal: piped or redirected
    output keeps every line whole, whatever its length, so scripts can read it."""
    terminal = Console(stderr=stderr)
    return terminal if terminal.is_terminal else Console(stderr=stderr, soft_wrap=True, width=1_000_000)


console = _console()
errors = _console(stderr=True)


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
        """Seconds since ingest started (for the rate shown)."""
        return time.perf_counter() - self.started

    def start(self, total: int) -> None:
        """Set the bar's total once discovery has counted the files."""
        self.bar.update(self.task, total=total)

    def __call__(self, path: Path, chunks: int) -> None:
        self.files += 1
        self.chunks += chunks
        elapsed = max(self.elapsed, 1e-6)
        self.bar.update(self.task, advance=1, current=path.name[:40],
                        rate=f"{self.files / elapsed:.1f} files/s {self.chunks / elapsed:.1f} chunks/s")


@contextmanager
def ingest_progress() -> Iterator[IngestProgress]:
    """A progress bar on stderr for the duration of an ingest, gone when it ends (stdout stays clean
    for `--json`)."""
    progress = IngestProgress()
    with progress.bar:
        yield progress


def print_ingest_report(report: IngestReport, elapsed_s: float | None = None) -> None:
    """The ingest outcome for a person: counts on one line (scripts grep it), then each failure and
    why."""
    took = f" in {elapsed_s:.1f} s" if elapsed_s is not None else ""
    console.print(
        f"ingested {report.ingested}, updated {report.updated}, unchanged {report.unchanged}, "
        f"removed {report.removed}, failed {len(report.failed)} — {report.chunks} chunks written{took}"
        + (f", {report.sanitized_chars} invisible characters removed" if report.sanitized_chars else ""),
        highlight=False, soft_wrap=True,  # one line, whatever the terminal width: scripts grep it
    )
    if report.upgraded:
        console.print(f"re-read {report.upgraded} document(s) stored by an older version of citeline's readers",
                      highlight=False, soft_wrap=True)
    if report.flagged:
        console.print(
            f"{report.flagged} passage(s) address an AI or hide instructions; they are kept out of answers "
            "(see `citeline docs show DOCUMENT`)", highlight=False, soft_wrap=True)
    _print_skipped(report.skipped)
    if report.failed:
        errors.print(f"[red]{len(report.failed)} file(s) could not be ingested:[/red]")
    for failure in report.failed:
        errors.print(f"  [red]failed[/red] {escape(failure.path)}: {escape(failure.error)}", highlight=False,
                     soft_wrap=True)


# A documentation tree skips many files for one reason (its images, stylesheets, build scripts):
# past this many, the reason is said once with a count and the first files, `--json` lists each.
_PARTICULARS = re.compile(r" \([^()]*\)")
# What a reason names in backticks (a file type): files of a dozen types a folder holds a few of
# each (`.py`, `.toml`, `.cfg` …) are one reason, not a line each repeating the supported types.
_NAMED = re.compile(r" `[^`]*`")
_SKIPPED_LISTED = 3


def _print_skipped(skipped: list[SkippedFile]) -> None:
    """The files left out on purpose, grouped by reason; a reason's particulars in parentheses (the
    page a redirect goes to, the files a page includes) do not split a group."""
    if not skipped:
        return
    errors.print(f"skipped {len(skipped)} file(s):", highlight=False)
    by_reason: dict[str, list[SkippedFile]] = {}
    for entry in skipped:
        by_reason.setdefault(_NAMED.sub("", _PARTICULARS.sub("", entry.reason)), []).append(entry)
    for reason, entries in by_reason.items():
        if len(entries) <= _SKIPPED_LISTED:
            for entry in entries:
                errors.print(f"  skipped {escape(entry.path)}: {escape(entry.reason)}", highlight=False,
                             soft_wrap=True)
            continue
        named = Counter(name.strip() for entry in entries for name in _NAMED.findall(_PARTICULARS.sub("", entry.reason)))
        if len(named) == 1:
            reason = _PARTICULARS.sub("", entries[0].reason)
        elif named:
            reason += " (" + ", ".join(f"{name} ×{count}" if count > 1 else name
                                       for name, count in named.most_common()) + ")"
        examples = ", ".join(escape(entry.path) for entry in entries[:2])
        errors.print(f"  skipped {len(entries)} files: {escape(reason)} ({examples}, …; `--json` lists each)",
                     highlight=False, soft_wrap=True)


def print_document(record: DocumentRecord) -> None:
    """One document's record, and the passages flagged at ingest as aimed at an AI."""
    console.print(f"[bold]{escape(record.title)}[/bold]  {escape(record.source)}", highlight=False, soft_wrap=True)
    console.print(f"id {record.id} · {record.chunk_count} chunks · {record.size_bytes:,} bytes · {record.status}",
                  highlight=False)
    flags = record.metadata.get("flags") or []
    if not flags:
        console.print("no passages flagged")
        return
    console.print(f"[yellow]{len(flags)} passage(s) flagged and kept out of answers:[/yellow]")
    for flag in flags:
        where = "stored" if flag.get("stored", True) else "hidden, not stored"
        console.print(f"  - {escape(str(flag.get('reason')))} ({where}): {escape(str(flag.get('excerpt')))}",
                      highlight=False, soft_wrap=True)


def _sources(result: AgentResult) -> Iterator[tuple[int, str, str, list[str]]]:
    """Each source as it is shown: its [n], document, where in it (section, page) and its quotes on one line each."""
    for citation, quotes in result.sources():
        where = " › ".join(x for x in (citation.section, f"p. {citation.page}" if citation.page else None) if x)
        yield citation.id, citation.document_name, where, [" ".join(quote.split()) for quote in quotes]


def _print_plain(result: AgentResult, out: Console, *, with_answer: bool) -> None:
    lines = [result.answer, ""] if with_answer else []
    if result.citations:
        lines.append("Sources")
        for number, name, where, quotes in _sources(result):
            lines.append(f"  [{number}] {name}" + (f" — {where}" if where else ""))
            lines.extend(f"      “{quote}”" for quote in quotes)
        lines.append("")
    lines.append(f"{result.exit_reason.value} · {result.model} · {result.timings.total_ms:.0f} ms")
    out.file.write("\n".join(lines) + "\n")
    out.file.flush()


def print_result(result: AgentResult, out: Console | None = None, *, with_answer: bool = True) -> None:
    """The answer, its sources with their quotes, and how the run ended. Rendered Markdown on a
    terminal; plain text, never wrapped, when the output is piped or redirected."""
    out = out or console
    if not out.is_terminal:
        _print_plain(result, out, with_answer=with_answer)
        return
    if with_answer:
        # Imported only for a terminal: the Markdown parser is not needed for piped output.
        from rich.markdown import Markdown

        out.print(Markdown(result.answer) if result.answer else "")
    if result.citations:
        out.print()
        out.print("[bold]Sources[/bold]")
        for number, name, where, quotes in _sources(result):
            out.print(f"  \\[{number}] [cyan]{escape(name)}[/cyan]" + (f" — {escape(where)}" if where else ""),
                      highlight=False)
            for quote in quotes:
                quote = quote if len(quote) <= 240 else quote[:237] + "..."
                out.print(f"      “{quote}”", style="dim", markup=False, highlight=False)
    out.print(f"\n[dim]{result.exit_reason.value} · {result.model} · {result.timings.total_ms:.0f} ms[/dim]")


def print_passages(passages: Sequence[Passage], elapsed_ms: float) -> None:
    """Search results for a person: rank, document, section, score and a snippet of each passage."""
    if not passages:
        console.print("no matching passages")
        return
    for rank, passage in enumerate(passages, 1):
        # Document text is printed as written: Rich would read `[tool.uv]` or `#[derive(Debug)]` as a style.
        header = f"{rank}. [cyan]{escape(passage.document_name)}[/cyan]" + (
            f" › {escape(passage.section)}" if passage.section else "")
        console.print(f"{header}  [dim]score {passage.score:.3f} · {passage.document_id}/{passage.chunk_id}[/dim]",
                      highlight=False)
        snippet = " ".join(passage.text.split())
        console.print(f"   {snippet[:300]}{'...' if len(snippet) > 300 else ''}", markup=False, highlight=False)
    console.print(f"[dim]{len(passages)} passages in {elapsed_ms:.0f} ms[/dim]")


def print_documents(records: Sequence[DocumentRecord]) -> None:
    """The indexed documents as a table (or how to index some when there are none)."""
    if not records:
        console.print("no documents indexed: run `citeline ingest PATH`")
        return
    table = Table("id", "title", "chunks", "source")
    for record in records:
        table.add_row(record.id, escape(record.title), str(record.chunk_count), escape(record.source))
    console.print(table)


def stream_answer(citeline: Citeline, question: str, *, model: str | None, owner: str | None,
                  as_json: bool, cancelled: Callable[[], bool] | None = None) -> AgentResult:
    """Print events as they arrive: JSON lines, or the answer as it is written, then the sources.

    The answer is printed once: when the validator keeps the streamed draft as it is, only the
    sources follow it; when it sends the draft back or changes it, that is said on stderr and the
    verified answer follows under its own heading."""
    draft: list[str] = []

    def on_event(event: Event) -> None:
        if as_json:
            sys.stdout.write(event.model_dump_json() + "\n")
            sys.stdout.flush()
        elif event.type == "token":
            text = str(event.data.get("text", ""))
            draft.append(text)
            sys.stdout.write(text)
            sys.stdout.flush()
        elif event.type == "cached_response":
            text = str(event.data.get("answer", ""))
            draft.append(text)
            sys.stdout.write(text)
        elif event.type == "reprompt" and draft:
            sys.stdout.write("\n")
            errors.print("[dim](that draft did not pass citation checks; revising)[/dim]", highlight=False)
            draft.clear()
        elif event.type == "tool_start":
            errors.print(f"[dim]→ {event.data.get('tool')} {escape(json.dumps(event.data.get('input')))}[/dim]",
                         highlight=False)

    result = citeline.ask(question, model=model, owner=owner, on_event=on_event, cancelled=cancelled,
                          origin={"via": "cli"})
    if not as_json:
        streamed = " ".join("".join(draft).split())
        if draft and streamed == " ".join(result.answer.split()):
            sys.stdout.write("\n\n")
            print_result(result, with_answer=False)
        else:
            if draft:
                sys.stdout.write("\n\n")
                errors.print("[dim](the verified answer differs from the draft above)[/dim]", highlight=False)
            print_result(result)
    return result


# The columns of the eval table: (heading, metric key, how to show the value).
EVAL_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("n", "n", "d"), ("hit@k", "retrieval_hit_at_k", ".3f"), ("read", "answer_read", ".3f"),
    ("answer", "answer_accuracy", ".3f"),
    ("lead", "lead_accuracy", ".3f"), ("unanswerable declined", "unanswerable_declined", ".3f"),
    ("answerable declined", "answerable_declined", ".3f"), ("verified", "citation_verified_rate", ".3f"),
    ("canary leaks", "canary_leaks", "d"), ("markup", "markup_in_answers", ".3f"),
    ("run-together", "words_run_together", ".3f"), ("torn code", "torn_code_points", ".3f"),
    ("repeats", "repeated_points", ".3f"), ("words p50", "answer_words_p50", ".0f"),
)


def _eval_cells(report: dict[str, Any]) -> list[str]:
    cells = [format(report.get(key, 0), spec) for _, key, spec in EVAL_COLUMNS]
    latency = report.get("latency_ms", {})
    return [*cells, f"{latency.get('p50', 0):.0f}"]


def print_eval(reports: dict[str, dict[str, Any]]) -> None:
    """One row per QA set: a table on a terminal, Markdown when piped (no wrapping at 80 columns)."""
    if not console.is_terminal:
        sys.stdout.write(eval_table_markdown(reports))
        return
    table = Table("set", *(heading for heading, _, _ in EVAL_COLUMNS), "p50 ms")
    for name, report in reports.items():
        table.add_row(escape(name), *_eval_cells(report))
    console.print(table)


def eval_table_markdown(reports: dict[str, dict[str, Any]]) -> str:
    """The eval table as Markdown, one row per QA set."""
    headings = ["set", *(heading for heading, _, _ in EVAL_COLUMNS), "p50 ms"]
    lines = ["| " + " | ".join(headings) + " |", "|" + "---|" * len(headings)]
    lines += ["| " + " | ".join([name, *_eval_cells(report)]) + " |" for name, report in reports.items()]
    return "\n".join(lines) + "\n"
