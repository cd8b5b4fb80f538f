"""What a new user meets first, through the real `citeline` command: the version, readable help,
`ask -`, one streamed answer, whole lines when piped, a failing model's own error and fix,
skipped files listed, users listed and removed, documents removed by path."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.answerers.helpers import FakeOpenAI, Reply
from tests.conftest import write_corpus, write_script

CLI = [sys.executable, "-m", "citeline.cli.main"]
ROOT = Path(__file__).resolve().parents[2]
QUESTION = "What is the default timeout?"
ANSWER = "Requests time out after 5 seconds of network inactivity by default [1]."


def _cli(home: Path, *args: str, stdin: str | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "CITELINE_HOME": str(home), "CITELINE_EMBED_THREADS": "1", **env}
    return subprocess.run([*CLI, *args], capture_output=True, text=True, env=environment, timeout=300,
                          input=stdin, check=False)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    root = tmp_path_factory.mktemp("edges")
    docs = write_corpus(root / "docs")
    assert _cli(root / "home", "ingest", str(docs)).returncode == 0
    yield root / "home", docs


def test_version_is_the_pyproject_version_everywhere(tmp_path: Path) -> None:
    expected = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    shown = _cli(tmp_path, "--version")
    assert shown.returncode == 0 and shown.stdout.strip() == f"citeline {expected}"
    import citeline
    from citeline.api import create_app
    from citeline.app import Citeline
    from citeline.config import Settings
    from citeline.mcp_server import build_server

    assert citeline.__version__ == expected
    app = Citeline(Settings(home=tmp_path))
    assert build_server(app).version == expected
    assert create_app(app).openapi()["info"]["version"] == expected


def test_help_is_readable(tmp_path: Path) -> None:
    for command in (["ask", "--help"], ["ingest", "--help"], ["logs", "--help"], ["docs", "rm", "--help"]):
        shown = _cli(tmp_path, *command, COLUMNS="120")
        assert shown.returncode == 0, shown.stderr
        assert not re.search(r"<(bool|str|int|list\[[^\]]*\]|Path)>|\{[a-z_]+\}", shown.stdout), shown.stdout
    ask = _cli(tmp_path, "ask", "--help", COLUMNS="120").stdout
    assert "Usage: citeline ask [OPTIONS] QUESTION" in ask
    assert re.search(r"--model\s+TEXT", ask) and re.search(r"--json\s+Print", ask)


def test_ask_reads_the_question_from_stdin(indexed: tuple[Path, Path]) -> None:
    home, _ = indexed
    asked = _cli(home, "ask", "-", "--json", stdin=QUESTION + "\n")
    result = json.loads(asked.stdout)
    assert asked.returncode == 0 and result["question"] == QUESTION and result["exit_reason"] == "COMPLETED"


def test_stream_prints_the_answer_once(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    home, _ = indexed
    script = write_script(tmp_path / "s.jsonl",
                          {"type": "tool_call", "tool": "search_docs", "input": {"query": "stream default timeout"}},
                          {"type": "final", "answer": ANSWER})
    streamed = _cli(home, "ask", QUESTION, "--stream", "--model", f"scripted:{script}")
    assert streamed.returncode == 0, streamed.stderr
    assert streamed.stdout.count(ANSWER) == 1, streamed.stdout  # (the quote under Sources is shorter)
    assert "Sources" in streamed.stdout and "COMPLETED" in streamed.stdout


def test_piped_output_is_not_wrapped(indexed: tuple[Path, Path]) -> None:
    home, _ = indexed
    answered = _cli(home, "ask", "How do I change the timeout?", COLUMNS="80")
    assert answered.returncode == 0, answered.stderr
    long_lines = [line for line in answered.stdout.splitlines() if len(line) > 80]
    # The answer's instruction is longer than 80 characters: it stays on one line.
    assert any("You can change the timeout with the `timeout` argument, for example `timeout=10.0`." in line
               for line in long_lines), answered.stdout


def test_a_failing_model_shows_its_error_and_the_fix(indexed: tuple[Path, Path]) -> None:
    home, _ = indexed
    server = FakeOpenAI()
    server.script = [Reply(status=401, body={"error": {"message": "Incorrect API key provided"}})]
    try:
        failed = _cli(home, "ask", QUESTION, "--model", "openai:fake-model", CITELINE_OPENAI_BASE_URL=server.url,
                      OPENAI_API_KEY="sk-test-wrong-key")
        as_json = _cli(home, "ask", QUESTION, "--model", "openai:fake-model", "--json",
                       CITELINE_OPENAI_BASE_URL=server.url, OPENAI_API_KEY="sk-test-wrong-key")
    finally:
        server.close()
    assert failed.returncode == 1
    assert "error: the model failed (HTTP 401)" in failed.stderr and "rejected the API key" in failed.stderr
    assert "fix: set a valid OPENAI_API_KEY" in failed.stderr
    assert "internal error" not in failed.stdout.lower()
    error = json.loads(as_json.stdout)["error"]
    assert error["status"] == 401 and error["kind"] == "auth" and "OPENAI_API_KEY" in error["hint"]


def test_ingest_lists_skipped_files_with_reasons(tmp_path: Path) -> None:
    docs = write_corpus(tmp_path / "docs")
    (docs / "data.csv").write_text("a,b\n")
    (docs / ".git").mkdir()
    (docs / ".git" / "config").write_text("[core]\n")
    ingested = _cli(tmp_path / "home", "ingest", str(docs))
    assert ingested.returncode == 0, ingested.stderr
    assert re.search(r"skipped \S*data\.csv: unsupported file type `\.csv`", ingested.stderr)
    assert re.search(r"skipped \S*\.git: hidden folder", ingested.stderr)
    report = json.loads(_cli(tmp_path / "home", "ingest", str(docs), "--json").stdout)
    assert sorted(Path(s["path"]).name for s in report["skipped"]) == [".git", "data.csv"]


def test_many_files_skipped_for_one_reason_are_said_once(tmp_path: Path) -> None:
    docs = write_corpus(tmp_path / "docs")
    (docs / "images").mkdir()
    for n in range(30):
        (docs / "images" / f"shot-{n:02}.png").write_bytes(b"\x89PNG")
    ingested = _cli(tmp_path / "home", "ingest", str(docs))
    assert ingested.returncode == 0, ingested.stderr
    assert ingested.stderr.count("unsupported file type `.png`") == 1
    assert re.search(r"skipped 30 files: unsupported file type `\.png` .*shot-00\.png, \S*shot-01\.png, …; "
                     r"`--json` lists each", ingested.stderr)
    report = json.loads(_cli(tmp_path / "home", "ingest", str(docs), "--json").stdout)
    assert len(report["skipped"]) == 30


def test_files_of_many_unsupported_types_are_said_once_with_their_types(tmp_path: Path) -> None:
    # A sdist's docs folder holds a few build files of each type: one line naming the types, not a line
    # per file each repeating every supported type.
    docs = write_corpus(tmp_path / "docs")
    for name in ("conf.py", "make.bat", "tox.ini", "setup.cfg", "extra.py"):
        (docs / name).write_text("x = 1\n", encoding="utf-8")
    ingested = _cli(tmp_path / "home", "ingest", str(docs))
    assert ingested.returncode == 0, ingested.stderr
    assert "(supported:" not in ingested.stderr
    assert re.search(r"skipped 5 files: unsupported file type \(`\.py` ×2, `\.(?:bat|ini|cfg)`, `\.(?:bat|ini|cfg)`, "
                     r"`\.(?:bat|ini|cfg)`\) \(\S*\.\w+, \S*\.\w+, …; `--json` lists each\)", ingested.stderr), ingested.stderr


def test_files_skipped_for_one_reason_group_whatever_their_particulars(tmp_path: Path) -> None:
    docs = write_corpus(tmp_path / "docs")
    for n in range(5):  # each redirect names its own target, in parentheses
        (docs / f"old-{n}.html").write_text(f'<html><head><meta http-equiv="refresh" content="0;URL=new-{n}.html">'
                                            f"</head><body><p>Redirecting to new-{n}.html...</p></body></html>")
    ingested = _cli(tmp_path / "home", "ingest", str(docs))
    assert ingested.returncode == 0, ingested.stderr
    assert re.search(r"skipped 5 files: only redirects to another page: ingest the page it redirects to "
                     r"\(\S*old-0\.html, \S*old-1\.html, …; `--json` lists each\)", ingested.stderr)
    report = json.loads(_cli(tmp_path / "home", "ingest", str(docs), "--json").stdout)
    assert sorted(s["reason"] for s in report["skipped"])[0] == ("only redirects to another page (new-0.html): "
                                                                 "ingest the page it redirects to")


def test_users_list_and_rm(tmp_path: Path) -> None:
    for name in ("alice", "bob"):
        assert _cli(tmp_path, "users", "add", name).returncode == 0
    listed = json.loads(_cli(tmp_path, "users", "list", "--json").stdout)
    assert [u["name"] for u in listed] == ["alice", "bob"] and all(u["id"].startswith("u_") for u in listed)
    removed = _cli(tmp_path, "users", "rm", "alice")
    assert removed.returncode == 0 and "removed user alice" in removed.stdout
    assert [u["name"] for u in json.loads(_cli(tmp_path, "users", "list", "--json").stdout)] == ["bob"]
    missing = _cli(tmp_path, "users", "rm", "alice")
    assert missing.returncode == 1 and "no user alice" in missing.stderr


def test_docs_rm_by_path(tmp_path: Path) -> None:
    home = tmp_path / "home"
    docs = write_corpus(tmp_path / "docs")
    assert _cli(home, "ingest", str(docs)).returncode == 0
    relative = os.path.relpath(docs / "timeouts.md")
    removed = _cli(home, "docs", "rm", relative)
    assert removed.returncode == 0 and "timeouts.md" in removed.stdout, removed.stderr
    left = json.loads(_cli(home, "docs", "list", "--json").stdout)
    assert sorted(Path(d["source"]).name for d in left) == ["notes.txt", "proxies.md"]
    folder = _cli(home, "docs", "rm", str(docs))
    assert folder.returncode == 0 and folder.stdout.count("removed") == 2
    assert json.loads(_cli(home, "docs", "list", "--json").stdout) == []
    nothing = _cli(home, "docs", "rm", str(docs / "nope.md"))
    assert nothing.returncode == 1 and "no document" in nothing.stderr
