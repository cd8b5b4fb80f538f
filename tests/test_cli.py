"""The CLI as a user runs it: real subprocesses, real homes."""

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import write_corpus

CLI = [sys.executable, "-m", "citeline.cli.main"]


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CITELINE_HOME": str(home)}
    return subprocess.run([*CLI, *args], capture_output=True, text=True, env=env, timeout=300)


def test_ingest_ask_search_docs_and_exit_codes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    docs = write_corpus(tmp_path / "docs")
    assert "no documents indexed" in _cli(home, "ask", "What is the default timeout?").stderr
    ingested = _cli(home, "ingest", str(docs), "--json")
    assert ingested.returncode == 0, ingested.stderr
    assert json.loads(ingested.stdout)["ingested"] == 3
    answer = _cli(home, "ask", "What is the default timeout?", "--json")
    result = json.loads(answer.stdout)
    assert answer.returncode == 0 and result["exit_reason"] == "COMPLETED" and result["citations"]
    declined = _cli(home, "ask", "How do I configure Kerberos with NTLM?", "--json")
    assert declined.returncode == 1 and json.loads(declined.stdout)["exit_reason"] == "INSUFFICIENT_CONTEXT"
    hostile = _cli(home, "search", 'multi-agent "quoted" NEAR( @x', "--json")
    assert hostile.returncode == 0, hostile.stderr
    assert set(json.loads(hostile.stdout)) == {"retrievedPassages", "retrievalTime", "queryEmbedding"}
    found = json.loads(_cli(home, "search", "proxy credentials", "--json", "--top-k", "2").stdout)
    assert len(found["retrievedPassages"]) == 2
    assert set(found["retrievedPassages"][0]) == {"passageId", "text", "documentId", "documentName", "score",
                                                  "metadata", "page", "chunkIndex"}
    listed = json.loads(_cli(home, "docs", "list", "--json").stdout)
    assert sorted(Path(d["source"]).name for d in listed) == ["notes.txt", "proxies.md", "timeouts.md"]


def test_empty_and_long_questions(tmp_path: Path) -> None:
    home = tmp_path / "home"
    empty = _cli(home, "ask", "", "--json")
    assert json.loads(empty.stdout)["exit_reason"] == "EMPTY_INPUT" and empty.returncode == 1
    assert 'the question is empty: pass it in quotes, e.g. citeline ask "' in empty.stderr  # what to do instead
    assert not list(home.glob("index.sqlite3*"))  # the index was never opened
    assert [p.name for p in home.iterdir()] == ["runs"]  # only the run went on record
    long = _cli(home, "ask", "x" * 5000, "--json")
    assert json.loads(long.stdout)["exit_reason"] == "INPUT_TOO_LONG"


def test_bad_configuration_is_a_usage_error(tmp_path: Path) -> None:
    env = {**os.environ, "CITELINE_HOME": str(tmp_path), "CITELINE_MAX_TURNS": "zero"}
    result = subprocess.run([*CLI, "docs", "list"], capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 2 and "max_turns" in result.stderr


def test_scripted_model_from_cli(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _cli(home, "ingest", str(write_corpus(tmp_path / "docs")))
    script = tmp_path / "s.jsonl"
    script.write_text('{"type": "error", "kind": "rate_limit", "retry_after": 0}\n' * 3)
    result = _cli(home, "ask", "What is the default timeout?", "--model", f"scripted:{script}", "--json")
    assert json.loads(result.stdout)["exit_reason"] == "RATE_LIMITED"


def test_eval_reports_metrics(tmp_path: Path) -> None:
    docs = write_corpus(tmp_path / "docs")
    qa = tmp_path / "qa.jsonl"
    qa.write_text("\n".join(json.dumps(item) for item in [
        {"id": "1", "question": "What is the default timeout?", "answerable": True, "answers": ["5 seconds"],
         "sources": ["timeouts.md"]},
        {"id": "2", "question": "How do I set up Kerberos with NTLM?", "answerable": False, "answers": [],
         "sources": []},
    ]) + "\n")
    result = _cli(tmp_path / "home", "eval", str(qa), "--corpus", str(docs), "--json")
    report = json.loads(result.stdout)
    assert report["n"] == 2
    assert report["retrieval_hit_at_k"] == 1.0 and report["answer_accuracy"] == 1.0
    assert report["unanswerable_declined"] == 1.0 and report["citation_verified_rate"] == 1.0
    assert set(report["latency_ms"]) == {"p50", "p95"}


def test_cli_import_does_not_load_torch() -> None:
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", "import citeline.cli.main"],
                         capture_output=True, text=True, timeout=60)
    imported = {line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines() if "|" in line}
    assert "citeline.cli.main" in imported
    assert "torch" not in imported and "sentence_transformers" not in imported


def test_search_prints_bracketed_text_as_written(tmp_path: Path) -> None:
    # TOML tables and Rust attributes are bracketed; printed through Rich's markup they vanished.
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "config.md").write_text("# Settings\n\n## The `[tool.demo]` table\n\n"
                                    "Put settings under the `[tool.demo]` table; derive with `#[derive(Debug)]`.\n")
    home = tmp_path / "home"
    assert _cli(home, "ingest", str(docs)).returncode == 0
    shown = _cli(home, "search", "tool.demo table settings")
    assert shown.returncode == 0, shown.stderr
    assert "› Settings > The `[tool.demo]` table" in shown.stdout
    assert "derive with `#[derive(Debug)]`" in shown.stdout
