"""`citeline chat`: the conversational REPL, follow-up questions answered in context.

Answers stream as they are composed and are replaced by the validated answer with its numbered
sources. Ctrl+C cancels the running answer; Ctrl+D, `quit` or a second Ctrl+C at an empty prompt
exits with code 0.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.live import Live
from rich.markdown import Markdown
from rich.markup import escape
from rich.text import Text

from citeline.agent.events import Event
from citeline.agent.result import AgentResult
from citeline.app import Citeline
from citeline.cli.interrupt import sigint_sets
from citeline.cli.render import print_result

HELP = """[bold]Commands[/bold]
  [cyan]sources N[/cyan]        show the full passage behind citation N of the last answer
  [cyan]trace[/cyan]            show what the agent did for the last answer
  [cyan]clear[/cyan] / reset    forget the conversation (settings are kept)
  [cyan]help[/cyan] / ?         this help
  [cyan]quit[/cyan] / exit / bye / q   leave (Ctrl+D works too)
Anything else is a question. Ctrl+C cancels an answer in progress."""

QUIT = {"quit", "exit", "bye", "q"}


class ChatSession:
    """One `citeline chat` conversation: the history that makes follow-up questions work, the last
    answer (for `sources N` and `trace`), and the commands."""

    def __init__(self, app: Citeline, *, model: str | None, owner: str | None, console: Console) -> None:
        self.app = app
        self.model = model
        self.owner = owner or app.settings.index.owner
        self.console = console
        self.history: list[dict[str, str]] = []
        self.last: AgentResult | None = None

    # --- commands ------------------------------------------------------------------------
    def banner(self) -> None:
        """Say what is indexed and which model answers, so an empty index is noticed before the first
        question."""
        documents, chunks = self.app.store.counts(self.owner)
        model = self.model or self.app.settings.answerer.model
        self.console.print(f"[bold]citeline[/bold] — {documents} documents, {chunks} chunks indexed · model "
                           f"[cyan]{model}[/cyan]", highlight=False)
        if documents == 0:
            self.console.print("[yellow]no documents indexed: run `citeline ingest PATH` first[/yellow]")
        self.console.print("Ask a question, or type [cyan]help[/cyan].\n")

    def handle(self, line: str) -> bool:
        """Run one input line; False means leave the REPL."""
        text = line.strip()
        command, _, argument = text.partition(" ")
        lowered = command.lower()
        if not text:
            return True
        if lowered in QUIT:
            return False
        if lowered in {"help", "?"}:
            self.console.print(HELP)
        elif lowered in {"clear", "reset"}:
            self.history.clear()
            self.last = None
            self.console.print("conversation cleared")
        elif lowered == "sources" and (argument.strip().isdigit() or not argument.strip()):
            self.show_source(argument.strip())
        elif lowered == "trace" and not argument:
            self.show_trace()
        else:
            self.answer(text)
        return True

    def show_source(self, argument: str) -> None:
        """Print the passage behind citation `[N]` of the last answer, with its quote."""
        if self.last is None or not self.last.citations:
            self.console.print("no citations yet: ask a question first")
            return
        numbers = [c.id for c in self.last.citations]
        if not argument:
            self.console.print(f"usage: sources N (one of {', '.join(map(str, numbers))})")
            return
        citation = next((c for c in self.last.citations if c.id == int(argument)), None)
        if citation is None:
            self.console.print(f"no citation [{argument}]: choose one of {', '.join(map(str, numbers))}")
            return
        passage = self.app.store.get_passage(self.owner, citation.document_id, citation.chunk_id)
        where = " › ".join(x for x in (citation.section, f"page {citation.page}" if citation.page else None) if x)
        header = f"[{citation.id}] {citation.document_name}" + (f" — {where}" if where else "")
        self.console.print(header, style="bold", markup=False, highlight=False)
        self.console.print(citation.source, style="dim", markup=False, highlight=False)
        self.console.print(passage.text if passage else "(this passage is no longer in the index)", markup=False,
                           highlight=False)

    def show_trace(self) -> None:
        """Print what the last run did, step by step, and how it ended."""
        if self.last is None:
            self.console.print("no answer yet: ask a question first")
            return
        for entry in self.last.trace:
            summary = {k: v for k, v in entry.data.items() if k not in {"output", "constraints"}}
            self.console.print(f"[cyan]{entry.type:<10}[/cyan] {entry.elapsed_ms:8.1f} ms  {escape(str(summary))}",
                               highlight=False)
        self.console.print(f"exit: [bold]{self.last.exit_reason.value}[/bold]")

    # --- answering -----------------------------------------------------------------------
    def answer(self, question: str) -> None:
        """Answer one question, streaming the draft and then the validated answer with its sources;
        Ctrl+C cancels just this answer."""
        cancel = threading.Event()
        outcome: dict[str, Any] = {}
        buffer: list[str] = []

        def on_event(event: Event) -> None:
            if event.type == "token":
                buffer.append(str(event.data.get("text", "")))

        def work() -> None:
            try:
                outcome["result"] = self.app.ask(question, model=self.model, owner=self.owner,
                                                 history=list(self.history), on_event=on_event,
                                                 cancelled=cancel.is_set, origin={"via": "cli"})
            except Exception as exc:  # shown to the user, never a traceback
                outcome["error"] = exc

        worker = threading.Thread(target=work, daemon=True)
        with sigint_sets(cancel):
            worker.start()
            _wait_with_live_preview(worker, buffer, self.console, cancel)
        if cancel.is_set():
            self.console.print("[yellow]cancelled[/yellow]")
            return
        if "error" in outcome:
            self.console.print(f"[red]error:[/red] {escape(str(outcome['error']))}")
            return
        result: AgentResult = outcome["result"]
        self.last = result
        print_result(result, self.console)
        self.history += [{"role": "user", "content": question}, {"role": "assistant", "content": result.answer}]


def _wait_with_live_preview(worker: threading.Thread, buffer: list[str], console: Console,
                            cancel: threading.Event) -> None:
    """Show streamed text while the answer is being made; Ctrl+C (which sets `cancel`) stops it."""
    with Live(Text("answering… (Ctrl+C cancels)", style="dim"), console=console, transient=True,
              auto_refresh=False) as live:
        live.refresh()
        shown = 0
        while worker.is_alive() and not cancel.is_set():
            worker.join(timeout=0.08)
            if len(buffer) != shown:  # redraw only when new text arrived
                shown = len(buffer)
                live.update(Markdown("".join(buffer)), refresh=True)
    if cancel.is_set():
        worker.join(timeout=5)  # the run notices the cancel and ends CANCELLED


def _reader(history_file: Path) -> Callable[[str], str]:
    """prompt_toolkit with persistent input history on a terminal; plain input() otherwise."""
    if sys.stdin.isatty():
        try:
            from prompt_toolkit import PromptSession
            from prompt_toolkit.history import FileHistory

            history_file.parent.mkdir(parents=True, exist_ok=True)
            session: PromptSession[str] = PromptSession(history=FileHistory(str(history_file)))
            return lambda prompt: session.prompt(prompt)
        except ImportError:
            pass
    import readline  # noqa: F401  (line editing for input())

    return input


def run_chat(app: Citeline, *, model: str | None, owner: str | None) -> int:
    """The REPL: read questions and commands until Ctrl+D, `quit` or a second Ctrl+C at an empty
    prompt; returns the exit code."""
    console = Console()
    chat = ChatSession(app, model=model, owner=owner, console=console)
    chat.banner()
    read = _reader(app.settings.index.home / "chat_history")
    interrupted_once = False
    while True:
        try:
            line = read("citeline> ")
        except EOFError:
            console.print("bye")
            return 0
        except KeyboardInterrupt:
            if interrupted_once:
                console.print("bye")
                return 0
            interrupted_once = True
            console.print("(press Ctrl+C again or type quit to leave)")
            continue
        interrupted_once = False
        if not chat.handle(line):
            console.print("bye")
            return 0
