"""Every exit reason, each driven by a scripted action file — in process and from
the CLI (`citeline ask --model scripted:FILE --json`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import write_corpus, write_script

from citeline.agent.exits import EXIT_SPECS, ExitReason
from citeline.app import Citeline
from citeline.config import Settings
from citeline.errors import RetrievalError
from citeline.index.sqlite import SQLiteStore
from citeline.testing import ManualClock

Q = "What is the default timeout?"
SEARCH = {"type": "tool_call", "tool": "search_docs", "input": {"query": "default timeout"}}
OPEN = {"type": "tool_call", "tool": "open_citation", "input": {"rank": 1}}
GOOD = {"type": "final", "answer": "Requests time out after 5 seconds of network inactivity by default [1]."}
BAD = {"type": "final", "answer": "Requests time out after 5 seconds of network inactivity by default [1]. "
                                  "The pool recycles sockets every 90 minutes [1]."}
DECLINE = {"type": "final", "answer": "I don't have enough information in the current documentation to answer that."}
UNKNOWN = {"type": "tool_call", "tool": "rm_rf", "input": {}}
GARBAGE = {"type": "text", "content": "Sure! Let me think about that"}


def _err(kind: str) -> dict[str, Any]:
    return {"type": "error", "kind": kind, "retry_after": 0}


# (expected exit, settings overrides, question, script turns)
CASES: list[tuple[ExitReason, dict[str, Any], str, list[dict[str, Any]]]] = [
    (ExitReason.COMPLETED, {}, Q, [SEARCH, OPEN, GOOD]),
    (ExitReason.INSUFFICIENT_CONTEXT, {}, "How do I configure Kerberos?", [SEARCH, DECLINE]),
    (ExitReason.EMPTY_INPUT, {}, "  ", [GOOD]),
    (ExitReason.INPUT_TOO_LONG, {}, "why " * 1250, [GOOD]),
    (ExitReason.MAX_TURNS_REACHED, {"max_turns": 2}, Q, [SEARCH, SEARCH, SEARCH, GOOD]),
    (ExitReason.MAX_TOOL_CALLS_REACHED, {"max_tool_calls": 2}, Q, [SEARCH, OPEN, SEARCH, GOOD]),
    (ExitReason.MAX_CONTEXT_REACHED, {"system_tokens": 20, "evidence_tokens": 20, "history_tokens": 20,
                                      "response_tokens": 100}, Q, [SEARCH, GOOD]),
    (ExitReason.VALIDATION_FAILED, {}, Q, [SEARCH, OPEN, BAD, BAD, BAD, BAD]),
    (ExitReason.INVALID_TOOL_CALL, {}, Q, [UNKNOWN, UNKNOWN]),
    (ExitReason.RATE_LIMITED, {}, Q, [_err("rate_limit")] * 3),
    (ExitReason.LLM_ERROR, {}, Q, [_err("bad_request"), GOOD]),
    (ExitReason.LLM_GENERATION_FAILURE, {}, Q, [SEARCH, OPEN, GARBAGE, GARBAGE, GARBAGE]),
    # The provider asks for a 5 s pause and the run has 1 s: it ends at once instead of waiting
    # (a model that is merely slow is `test_a_slow_model_runs_out_of_time`, on a manual clock).
    (ExitReason.TIMEOUT, {"timeout_s": 1.0}, Q, [{"type": "error", "kind": "server", "retry_after": 5}, SEARCH,
                                                 GOOD]),
]


@pytest.mark.parametrize(("expected", "overrides", "question", "turns"), CASES, ids=[c[0].value for c in CASES])
def test_exit_reason_in_process(app: Citeline, tmp_path: Path, expected: ExitReason, overrides: dict[str, Any],
                                question: str, turns: list[dict[str, Any]]) -> None:
    script = write_script(tmp_path / "turns.jsonl", *turns)
    runner = Citeline(app.settings, **overrides) if overrides else app
    clock = ManualClock()
    result = runner.ask(question, model=f"scripted:{script}", clock=clock)
    assert result.exit_reason == expected, result.trace
    if expected == ExitReason.TIMEOUT:
        assert clock.slept == 0, "a pause longer than the budget is not waited out"
    assert result.retryable == EXIT_SPECS[expected].retryable
    assert result.trace[-1].type == "final" and sum(t.type == "final" for t in result.trace) == 1
    for citation in result.citations:  # whatever the exit, no unverified citation reaches the user
        passage = runner.store.get_passage("local", citation.document_id, citation.chunk_id)
        assert passage is not None and citation.quote in passage.text
    canned = EXIT_SPECS[expected].message
    if expected in {ExitReason.MAX_TURNS_REACHED, ExitReason.MAX_CONTEXT_REACHED, ExitReason.INVALID_TOOL_CALL,
                    ExitReason.RATE_LIMITED}:
        assert result.answer == canned
    if expected == ExitReason.MAX_TOOL_CALLS_REACHED:
        assert result.citations, "an answer is still synthesised from the evidence gathered"
    if expected == ExitReason.VALIDATION_FAILED:
        assert "90 minutes" not in result.answer and "5 seconds" in result.answer
        assert [t.type for t in result.trace].count("reprompt") == 3
    if expected == ExitReason.LLM_ERROR:  # 400 is not retried: exactly one provider error
        assert sum(1 for t in result.trace if t.data.get("kind") == "provider_bad_request") == 1
    if expected == ExitReason.RATE_LIMITED:  # the first try and two retries
        assert sum(1 for t in result.trace if t.data.get("kind") == "provider_rate_limit") == 3
    if expected == ExitReason.LLM_GENERATION_FAILURE:
        assert result.citations and "5 seconds" in result.answer  # grounded fallback answer


def test_a_slow_model_runs_out_of_time(app: Citeline, tmp_path: Path) -> None:
    # 1.2 s of "generation" against a 1 s budget, on a manual clock: the time passes, nobody waits.
    script = write_script(tmp_path / "t.jsonl", {"type": "sleep", "seconds": 1.2}, SEARCH, GOOD)
    clock = ManualClock(now=1000.0)
    result = Citeline(app.settings, timeout_s=1.0).ask(Q, model=f"scripted:{script}", clock=clock)
    assert result.exit_reason == ExitReason.TIMEOUT, result.trace
    assert 1.2 <= clock.now - 1000.0 < 1.3 and result.timings.total_ms >= 1200


def test_provider_back_off_waits_on_the_run_clock(app: Citeline, tmp_path: Path) -> None:
    # Two 429s asking for 2 s each, then an answer: the run waits 4 s (plus jitter) of run time.
    limited = {"type": "error", "kind": "rate_limit", "retry_after": 2}
    script = write_script(tmp_path / "t.jsonl", limited, limited, SEARCH, OPEN, GOOD)
    clock = ManualClock()
    result = app.ask(Q, model=f"scripted:{script}", clock=clock)
    assert result.exit_reason == ExitReason.COMPLETED, result.trace
    assert 4.0 <= clock.slept <= 4.2


def test_retrieval_error(home: Path, corpus: Path, tmp_path: Path) -> None:
    class BrokenStore(SQLiteStore):
        def search(self, request: Any) -> Any:
            raise RetrievalError("disk I/O error")

    app = Citeline(Settings(home=home))
    app.ingest([corpus])
    app._store = BrokenStore(home / "index.sqlite3")
    script = write_script(tmp_path / "t.jsonl", SEARCH, GOOD)
    result = app.ask(Q, model=f"scripted:{script}")
    assert result.exit_reason == ExitReason.RETRIEVAL_ERROR
    assert sum(1 for t in result.trace if t.type == "error") == 1
    assert "disk" not in result.answer  # generic message, no internals


def test_cancelled(app: Citeline, tmp_path: Path) -> None:
    script = write_script(tmp_path / "t.jsonl", SEARCH, OPEN, GOOD)
    result = app.ask(Q, model=f"scripted:{script}", cancelled=lambda: True)
    assert result.exit_reason == ExitReason.CANCELLED and result.answer == ""


def test_a_node_that_raises_still_ends_in_one_exit(app: Citeline, tmp_path: Path) -> None:
    script = write_script(tmp_path / "t.jsonl", {"type": "tool_call", "tool": "search_docs",
                                                 "input": {"query": "x", "top_k": "many"}}, SEARCH, GOOD)
    result = app.ask(Q, model=f"scripted:{script}")
    assert result.exit_reason in set(ExitReason)
    assert sum(t.type == "final" for t in result.trace) == 1


@pytest.fixture(scope="module")
def cli_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("cli-home")
    docs = write_corpus(home.parent / "cli-docs")
    env = {**os.environ, "CITELINE_HOME": str(home)}
    subprocess.run([sys.executable, "-m", "citeline.cli.main", "ingest", str(docs)], env=env, check=True,
                   capture_output=True, timeout=300)
    return home


@pytest.mark.parametrize(("expected", "overrides", "question", "turns"), CASES, ids=[c[0].value for c in CASES])
def test_exit_reason_from_cli(cli_home: Path, tmp_path: Path, expected: ExitReason, overrides: dict[str, Any],
                              question: str, turns: list[dict[str, Any]]) -> None:
    script = write_script(tmp_path / "turns.jsonl", *turns)
    env = {**os.environ, "CITELINE_HOME": str(cli_home),
           **{f"CITELINE_{key.upper()}": str(value) for key, value in overrides.items()}}
    out = subprocess.run([sys.executable, "-m", "citeline.cli.main", "ask", question, "--model",
                          f"scripted:{script}", "--json"], env=env, capture_output=True, text=True, timeout=300)
    result = json.loads(out.stdout)
    assert result["exit_reason"] == expected.value, out.stderr
    assert out.returncode == (0 if expected == ExitReason.COMPLETED else 1)


def _cli_env(home: Path) -> dict[str, str]:
    return {**os.environ, "CITELINE_HOME": str(home)}


def test_cancelled_from_cli_with_ctrl_c(cli_home: Path, tmp_path: Path) -> None:
    import signal

    script = write_script(tmp_path / "slow.jsonl", {"type": "sleep", "seconds": 60}, SEARCH, GOOD)
    proc = subprocess.Popen([sys.executable, "-m", "citeline.cli.main", "ask", Q, "--model", f"scripted:{script}",
                             "--json", "--stream"], env=_cli_env(cli_home), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    first = json.loads(proc.stdout.readline())  # the run has started ...
    assert first["type"] == "run_start"
    # ... and has planned: its next step is the scripted 60 s "generation", which Ctrl+C interrupts.
    while json.loads(proc.stdout.readline() or '{"type": "eof"}')["type"] not in {"plan", "eof"}:
        pass
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    final = json.loads(stdout.splitlines()[-1])
    assert final["type"] == "final", stderr
    assert final["data"]["result"]["exit_reason"] == "CANCELLED"
    assert proc.returncode == 1


def test_retrieval_error_from_cli(tmp_path: Path) -> None:
    import sqlite3

    home = tmp_path / "home"
    docs = write_corpus(tmp_path / "docs")
    subprocess.run([sys.executable, "-m", "citeline.cli.main", "ingest", str(docs)], env=_cli_env(home),
                   check=True, capture_output=True, timeout=300)
    with sqlite3.connect(home / "index.sqlite3") as conn:  # a damaged index: the vectors' column is gone
        conn.execute("ALTER TABLE chunks RENAME COLUMN embedding TO damaged")
    script = write_script(tmp_path / "t.jsonl", SEARCH, GOOD)
    out = subprocess.run([sys.executable, "-m", "citeline.cli.main", "ask", Q, "--model", f"scripted:{script}",
                          "--json"], env=_cli_env(home), capture_output=True, text=True, timeout=300)
    result = json.loads(out.stdout)
    assert result["exit_reason"] == "RETRIEVAL_ERROR" and out.returncode == 1
    assert "damaged" not in out.stdout and "embedding" not in out.stdout  # no SQL details reach the user
