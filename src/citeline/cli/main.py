"""The `citeline` command line.

Exit codes: 0 answered (or the command succeeded), 1 declined, a limit was hit or some files
failed, 2 usage or configuration error. Data goes to stdout (`--json` for scripts); errors go to
stderr and say how to fix them. Heavy modules are imported inside commands to keep start-up fast.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from citeline.cli.collector import collector_paused
from citeline.cli.interrupt import sigint_sets
from citeline.cli.lazy import LazyCommand, lazy_group
from citeline.cli.output import fail, print_json
from citeline.errors import CitelineError

if TYPE_CHECKING:
    from citeline.agent.result import AgentResult
    from citeline.app import Citeline

EXIT_OK, EXIT_NOT_ANSWERED, EXIT_USAGE = 0, 1, 2
EXIT_CODES_HELP = "Exit codes: 0 answered/succeeded, 1 declined, limit hit or files failed, 2 usage/configuration error."

# Commands that live in their own modules: imported only when they run (or `--help` lists them).
LAZY_COMMANDS = (
    LazyCommand("doctor", "citeline.cli.doctor", "doctor", epilog=EXIT_CODES_HELP),
    LazyCommand("reindex", "citeline.cli.reindex", "reindex", epilog=EXIT_CODES_HELP),
    LazyCommand("serve", "citeline.cli.serve", "serve", epilog=EXIT_CODES_HELP),
    LazyCommand("replay", "citeline.cli.runs", "replay", epilog=EXIT_CODES_HELP),
    LazyCommand("db", "citeline.cli.db", "db_app", group=True),
    LazyCommand("users", "citeline.cli.users", "users_app", group=True),
    LazyCommand("logs", "citeline.cli.runs", "logs_app", group=True),
)

app = typer.Typer(
    name="citeline",
    help="Answers questions from your own documents and proves every citation. " + EXIT_CODES_HELP,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=lazy_group(LAZY_COMMANDS),
)
docs_app = typer.Typer(help="List or remove indexed documents. " + EXIT_CODES_HELP, no_args_is_help=True)
app.add_typer(docs_app, name="docs")

JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
OwnerOpt = Annotated[str | None, typer.Option("--owner", help="Owner id (default: the `owner` setting).")]
ModelOpt = Annotated[
    str | None,
    typer.Option("--model", help="extractive | scripted:PATH | local | gguf:PATH | openai:MODEL"),
]


def _show_version(value: bool) -> None:
    if value:
        from citeline.version import version

        typer.echo(f"citeline {version()}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _main(
    show_version: Annotated[bool, typer.Option("--version", help="Print the version and exit.", is_eager=True,
                                               callback=_show_version)] = False,
) -> None:
    """Options of `citeline` itself, before the command."""


def _app(**overrides: Any) -> Citeline:
    from citeline.app import Citeline
    from citeline.config import Settings

    try:
        return Citeline(Settings(), **overrides)
    except CitelineError as exc:
        fail(str(exc))
    except ValueError as exc:  # pydantic validation of env vars / citeline.toml
        fail(f"invalid configuration: {exc}")


@app.command(epilog=EXIT_CODES_HELP)
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or directories (searched recursively).")],
    owner: OwnerOpt = None,
    include: Annotated[list[str], typer.Option("--include", help="Glob of files to take (repeatable).")] = [],  # noqa: B006
    exclude: Annotated[list[str], typer.Option("--exclude", help="Glob of files to skip (repeatable).")] = [],  # noqa: B006
    prune: Annotated[
        bool, typer.Option("--prune", help="Also remove indexed documents whose files under PATHS are gone.")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Index documents (Markdown, reStructuredText, AsciiDoc, text, HTML, PDF, DOCX, Jupyter notebooks).
    Unchanged files are skipped without re-embedding; a file that fails is reported and the others
    still go in."""
    from citeline.index.ingest import ingest_paths

    citeline = _app()
    settings = citeline.settings
    try:
        options: dict[str, Any] = {
            "store": citeline.store, "embedder": lambda: citeline.embedder, "settings": settings,
            "owner": owner or settings.index.owner, "include": include, "exclude": exclude, "prune": prune,
        }
        if as_json:
            report = ingest_paths(paths, **options)
        else:
            from citeline.cli.render import ingest_progress

            with ingest_progress() as progress:
                report = ingest_paths(paths, progress=progress, on_discovered=progress.start, **options)
    except CitelineError as exc:
        fail(str(exc))
    if as_json:
        print_json(report.to_dict())
    else:
        from citeline.cli.render import print_ingest_report

        print_ingest_report(report, elapsed_s=progress.elapsed)
    raise typer.Exit(EXIT_OK if report.ok else EXIT_NOT_ANSWERED)


def _cancellable(run: Callable[[Callable[[], bool]], AgentResult]) -> AgentResult:
    """Run an answer in a worker thread so Ctrl+C (SIGINT) cancels it: the run then ends with
    exit reason CANCELLED and its result is still printed."""
    cancel = threading.Event()
    done = threading.Event()
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["result"] = run(cancel.is_set)
        except BaseException as exc:  # re-raised in the main thread below
            outcome["error"] = exc
        finally:
            done.set()

    with sigint_sets(cancel):
        threading.Thread(target=work, daemon=True).start()
        while not done.wait(timeout=0.1):
            pass
    if "error" in outcome:
        raise outcome["error"]
    result: AgentResult = outcome["result"]
    return result


def _exit_code(result: AgentResult) -> int:
    # A limit hit is exit 1 even when a partial answer was synthesised: scripts can tell.
    return EXIT_OK if result.exit_reason == "COMPLETED" else EXIT_NOT_ANSWERED


@app.command(epilog=EXIT_CODES_HELP)
def ask(
    question: Annotated[str, typer.Argument(help="The question, in quotes; `-` reads it from stdin.")],
    model: ModelOpt = None,
    owner: OwnerOpt = None,
    as_json: JsonOpt = False,
    stream: Annotated[bool, typer.Option("--stream", help="Print the answer as it is written.")] = False,
) -> None:
    """Answer a question from the indexed documents, with verified citations."""
    if question == "-":
        question = sys.stdin.read().strip()
    with collector_paused():
        citeline = _app()
        if question.strip() and len(question) <= citeline.settings.agent.max_question_chars:
            try:
                documents, _ = citeline.store.counts(owner or citeline.settings.index.owner)
            except CitelineError as exc:
                fail(str(exc))
            if documents == 0:
                fail("no documents indexed: run `citeline ingest PATH`")
        # The agent (LangGraph and what it brings) is needed next: imported here, with the
        # collector paused, rather than at the start of the run.
        importlib.import_module("citeline.agent.runner")
    try:
        if stream:
            from citeline.cli.render import stream_answer

            result = _cancellable(lambda cancelled: stream_answer(
                citeline, question, model=model, owner=owner, as_json=as_json, cancelled=cancelled))
        else:
            result = _cancellable(lambda cancelled: citeline.ask(question, model=model, owner=owner,
                                                                 cancelled=cancelled, origin={"via": "cli"}))
    except CitelineError as exc:
        fail(str(exc))
    if result.exit_reason == "EMPTY_INPUT":  # the result carries no message by contract; a person needs one
        typer.echo('error: the question is empty: pass it in quotes, e.g. citeline ask "How do I set a timeout?"',
                   err=True)
    if result.error is not None:  # the model's own words and the fix, whatever stdout carries
        status = f" (HTTP {result.error.status})" if result.error.status else ""
        typer.echo(f"error: the model failed{status}: {result.error.message}", err=True)
        if result.error.hint:
            typer.echo(f"fix: {result.error.hint}", err=True)
    if as_json and not stream:
        print_json(result.model_dump(mode="json"))
    elif not as_json and not stream:
        from citeline.cli.render import print_result

        print_result(result)
    raise typer.Exit(_exit_code(result))


@app.command(epilog=EXIT_CODES_HELP)
def search(
    query: Annotated[str, typer.Argument(help="Search text; any characters are safe.")],
    top_k: Annotated[int, typer.Option("--top-k", min=1, max=100, help="Passages to return.")] = 5,
    owner: OwnerOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Hybrid (BM25 + dense) search over the indexed passages."""
    citeline = _app()
    try:
        outcome = citeline.search(query, top_k=top_k, owner=owner)
    except CitelineError as exc:
        fail(str(exc))
    if as_json:
        from citeline.retrieval import retrieval_payload

        print_json(retrieval_payload(outcome))
        return
    from citeline.cli.render import print_passages

    print_passages(outcome.passages, outcome.elapsed_ms)


@docs_app.command("list", epilog=EXIT_CODES_HELP)
def docs_list(owner: OwnerOpt = None, as_json: JsonOpt = False) -> None:
    """List indexed documents."""
    from dataclasses import asdict

    citeline = _app()
    records = citeline.documents(owner)
    if as_json:
        print_json([asdict(r) for r in records])
        return
    from citeline.cli.render import print_documents

    print_documents(records)


@docs_app.command("show", epilog=EXIT_CODES_HELP)
def docs_show(
    document: Annotated[str, typer.Argument(help="A document id or the path it was ingested from.")],
    owner: OwnerOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show one document: where it came from, its chunks, and passages flagged as aimed at an AI."""
    from dataclasses import asdict

    citeline = _app()
    record = next((r for r in citeline.documents(owner)
                   if document in (r.id, r.source) or Path(r.source).resolve() == Path(document).resolve()), None)
    if record is None:
        typer.echo(f"error: no document {document}: see `citeline docs list`", err=True)
        raise typer.Exit(EXIT_NOT_ANSWERED)
    if as_json:
        print_json(asdict(record))
        return
    from citeline.cli.render import print_document

    print_document(record)


@docs_app.command("rm", epilog=EXIT_CODES_HELP)
def docs_rm(
    targets: Annotated[list[str], typer.Argument(
        metavar="ID_OR_PATH...", help="Document ids (see `citeline docs list`), or the paths of ingested files "
        "or folders (every document ingested from under a folder).")],
    owner: OwnerOpt = None,
) -> None:
    """Remove documents from the index by id or by path (their chunks and vectors go with them)."""
    from citeline.cli.documents import remove_documents

    citeline = _app()
    try:
        removed, missing = remove_documents(citeline, targets, owner or citeline.settings.index.owner)
    except CitelineError as exc:
        fail(str(exc))
    for record in removed:
        typer.echo(f"removed {record.id} {record.source}")
    for target in missing:
        typer.echo(f"error: no document {target}: see `citeline docs list` (ids), or give the path of an "
                   "ingested file", err=True)
    raise typer.Exit(EXIT_NOT_ANSWERED if missing else EXIT_OK)


@app.command(epilog=EXIT_CODES_HELP)
def chat(model: ModelOpt = None, owner: OwnerOpt = None) -> None:
    """Chat with your documents: streamed, cited answers; follow-ups use the conversation."""
    from citeline.cli.chat import run_chat

    citeline = _app()
    try:
        code = run_chat(citeline, model=model, owner=owner)
    except CitelineError as exc:
        fail(str(exc))
    # Leave without interpreter teardown: a cancelled answer can leave a worker thread inside a
    # native library (ONNX Runtime), and tearing that down at exit aborts the process.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


@app.command(epilog=EXIT_CODES_HELP)
def mcp(
    http: Annotated[str | None, typer.Option("--http", help="Serve streamable HTTP on HOST:PORT instead of stdio.")]
    = None,
    owner: OwnerOpt = None,
    no_auth: Annotated[bool, typer.Option(
        "--no-auth", help="With --http: no API keys, every caller acts as --owner. Only for a trusted machine.")]
    = False,
) -> None:
    """Run an MCP server exposing search_docs, open_citation and ask (stdio by default). Over
    --http it requires the service's API keys (`citeline users add NAME`) and each caller sees
    only their own documents."""
    from citeline.mcp_server import serve

    citeline = _app()
    guard = None
    if http is not None and not no_auth:
        if owner is not None:
            fail("--owner applies to stdio or --no-auth: over HTTP each API key's user is the owner")
        from citeline.api.auth import KeyGuard

        guard = KeyGuard.for_store(citeline.store, citeline.settings.service)
        typer.echo("API keys required (`citeline users add NAME` makes one); --no-auth for a single local user",
                   err=True)
    serve(citeline, http=http, owner=owner, guard=guard)


@app.command("eval", epilog=EXIT_CODES_HELP)
def evaluate(
    qa_files: Annotated[list[Path] | None, typer.Argument(
        help="QA files (JSONL; format in docs/eval.md). Several run in one call, one row each.")] = None,
    corpus: Annotated[list[Path] | None, typer.Option(
        "--corpus", help="Ingest this folder for the QA file in the same position (repeat per file).")] = None,
    suite: Annotated[list[Path] | None, typer.Option(
        "--suite", help="Run every NAME-qa.jsonl in this folder with its corpus NAME-docs/ or NAME/ (repeatable).")] = None,
    model: ModelOpt = None,
    as_json: JsonOpt = False,
    details: Annotated[Path | None, typer.Option(
        "--details", help="Per-question results: a JSONL file for one set, a folder for several.")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Also write the table as Markdown here.")] = None,
) -> None:
    """Run QA sets and print retrieval, answer, form and refusal metrics, one row per set."""
    from citeline.evaluation import EvalSet, discover_suite, run_sets
    from citeline.retrieval.cache import NullCache

    files, corpora = list(qa_files or []), list(corpus or [])
    if corpora and len(corpora) != len(files):
        fail(f"{len(files)} QA file(s) but {len(corpora)} --corpus folder(s): give one --corpus per QA file, "
              "in the same order, or none")
    try:
        sets = [EvalSet.of(f, corpora[i] if corpora else None) for i, f in enumerate(files)]
        for folder in suite or []:
            sets += discover_suite(folder)
    except CitelineError as exc:
        fail(str(exc))
    if not sets:
        fail("nothing to evaluate: give QA files or --suite DIR (see docs/eval.md)")
    # The caches are off so that every question is really answered and latency means something.
    citeline = _app(cache=NullCache())
    try:
        reports = run_sets(citeline, sets, model=model, details=details)
    except CitelineError as exc:
        fail(str(exc))
    from citeline.cli.render import eval_table_markdown, print_eval

    if out is not None:
        out.write_text(eval_table_markdown(reports), encoding="utf-8")
    if as_json:
        print_json(next(iter(reports.values())) if len(reports) == 1 else reports)
    else:
        print_eval(reports)


def run() -> None:
    """The `citeline` console script: the command tree with tidied help; Ctrl+C outside a run exits
    130."""
    from citeline.cli.help import tidy_help

    command = typer.main.get_command(app)
    tidy_help(command)
    try:
        command(prog_name="citeline")
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    run()
