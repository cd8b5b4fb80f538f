"""`citeline eval` through the real CLI: several sets in one call, each against its own corpus."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import write_corpus

CLI = [sys.executable, "-m", "citeline.cli.main"]

TIMEOUTS = {"timeouts.md": "# Timeouts\n\n## Default timeout\n\nRequests time out after 5 seconds of network "
                           "inactivity by default. Pass `timeout=None` to disable all timeouts.\n"}
HARBOR = {"retries.md": "# Retries\n\n## Failed jobs\n\nBy default a failed job is retried 3 times, so it runs "
                        "at most 4 times in total. Set `max_retries` to change it.\n"}


def _qa(path: Path, *items: dict[str, object]) -> Path:
    path.write_text("\n".join(json.dumps(i) for i in items) + "\n", encoding="utf-8")
    return path


def _run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CITELINE_HOME": str(home)}
    return subprocess.run([*CLI, "eval", *args], env=env, capture_output=True, text=True, timeout=600, check=False)


def test_two_sets_in_one_call_each_against_its_own_corpus(tmp_path: Path) -> None:
    a = write_corpus(tmp_path / "a-docs", TIMEOUTS)
    b = write_corpus(tmp_path / "b-docs", HARBOR)
    timeout_q = {"id": "t", "question": "What is the default timeout?", "answerable": True,
                 "answers": ["5 seconds"], "sources": ["timeouts.md"]}
    retry_q = {"id": "r", "question": "How many times is a failed job retried by default?", "answerable": True,
               "answers": ["retried 3 times"], "sources": ["retries.md"]}
    # Each set also asks the other's question as unanswerable: it is, against its own corpus only.
    qa_a = _qa(tmp_path / "a-qa.jsonl", timeout_q, retry_q | {"answerable": False, "answers": [], "sources": []})
    qa_b = _qa(tmp_path / "b-qa.jsonl", retry_q, timeout_q | {"answerable": False, "answers": [], "sources": []})
    details = tmp_path / "details"
    done = _run(tmp_path / "home", str(qa_a), str(qa_b), "--corpus", str(a), "--corpus", str(b), "--json",
                "--details", str(details))
    assert done.returncode == 0, done.stderr
    reports = json.loads(done.stdout)
    assert set(reports) == {"a", "b"}
    for report in reports.values():
        assert report["n"] == 2
        assert report["answer_accuracy"] == 1.0 and report["unanswerable_declined"] == 1.0
        assert report["lead_accuracy"] == 1.0 and report["markup_in_answers"] == 0.0
        assert report["answer_read"] == 1.0
        assert report["answer_words_p50"] > 0 and report["latency_ms"]["p50"] > 0
    rows = [json.loads(line) for line in (details / "a.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == ["t", "r"] and rows[0]["correct"] and rows[1]["exit_reason"] == "INSUFFICIENT_CONTEXT"
    assert rows[0]["read"] and not rows[1]["read"]


def test_an_answer_the_documents_never_state_is_found_but_not_read(tmp_path: Path) -> None:
    # The right page comes back (a hit), but the value the QA set expects is not on it: the
    # figures tell "not read" apart from "read but left out of the answer".
    corpus = write_corpus(tmp_path / "t-docs", TIMEOUTS)
    qa = _qa(tmp_path / "t-qa.jsonl",
             {"id": "t", "question": "What is the default timeout?", "answerable": True,
              "answers": ["5 seconds"], "sources": ["timeouts.md"]},
             {"id": "w", "question": "What is the default timeout?", "answerable": True,
              "answers": ["7 seconds"], "sources": ["timeouts.md"]})
    details = tmp_path / "t.jsonl"
    done = _run(tmp_path / "home", str(qa), "--corpus", str(corpus), "--json", "--details", str(details))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["retrieval_hit_at_k"] == 1.0
    assert report["answer_read"] == 0.5 and report["answer_accuracy"] == 0.5
    rows = {r["id"]: r for r in map(json.loads, details.read_text().splitlines())}
    assert rows["t"]["read"] and not rows["w"]["read"] and rows["w"]["retrieval_hit"]


def test_suite_folders_are_discovered_and_the_table_written(tmp_path: Path) -> None:
    suite, other = tmp_path / "suite", tmp_path / "other"
    write_corpus(suite / "harbor-docs", HARBOR)
    _qa(suite / "harbor-qa.jsonl", {"id": "r", "question": "How many times is a failed job retried by default?",
                                    "answerable": True, "answers": ["retried 3 times"], "sources": ["retries.md"]})
    write_corpus(other / "timeouts", TIMEOUTS)
    _qa(other / "timeouts-qa.jsonl", {"id": "t", "question": "What is the default timeout?", "answerable": True,
                                      "answers": ["5 seconds"], "sources": ["timeouts.md"]})
    table = tmp_path / "table.md"
    done = _run(tmp_path / "home", "--suite", str(suite), "--suite", str(other), "--out", str(table))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("| set |")  # piped output is the Markdown table, not a wrapped box
    lines = table.read_text().splitlines()
    assert lines[0].startswith("| set | n | hit@k | read | answer | lead |")
    assert lines[2].startswith("| harbor | 1 | 1.000 | 1.000 | 1.000")
    assert lines[3].startswith("| timeouts | 1 | 1.000")


def test_a_misspelt_key_fails_before_anything_is_indexed(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "docs", TIMEOUTS)
    qa = _qa(tmp_path / "qa.jsonl", {"question": "What is the default timeout?", "answerable": True,
                                     "answer": ["5 seconds"], "sources": ["timeouts.md"]})
    done = _run(tmp_path / "home", str(qa), "--corpus", str(corpus))
    assert done.returncode == 2
    assert "qa.jsonl:1" in done.stderr and "rename the key to `answers`" in done.stderr
    assert not (tmp_path / "home" / "eval").exists()


def test_corpus_count_must_match_the_qa_files(tmp_path: Path) -> None:
    qa = _qa(tmp_path / "qa.jsonl", {"question": "q?", "answerable": False})
    done = _run(tmp_path / "home", str(qa), str(qa), "--corpus", str(tmp_path))
    assert done.returncode == 2 and "one --corpus per QA file" in done.stderr


def test_a_passage_a_model_opened_by_its_search_rank_counts_as_read(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "t-docs", TIMEOUTS)
    qa = _qa(tmp_path / "t-qa.jsonl", {"id": "t", "question": "What is the default timeout?", "answerable": True,
                                       "answers": ["5 seconds"], "sources": ["timeouts.md"]})
    script = tmp_path / "model.jsonl"
    turns = [{"type": "tool_call", "tool": "search_docs", "input": {"query": "default timeout"}},
             {"type": "tool_call", "tool": "open_citation", "input": {"rank": 1}},
             {"type": "final", "answer": "Requests time out after 5 seconds of network inactivity by default [1]."}]
    script.write_text("\n".join(json.dumps(t) for t in turns) + "\n", encoding="utf-8")
    done = _run(tmp_path / "home", str(qa), "--corpus", str(corpus), "--model", f"scripted:{script}", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["answer_read"] == 1.0 and report["answer_accuracy"] == 1.0
