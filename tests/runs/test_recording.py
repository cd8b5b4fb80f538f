"""The runs log in process: what a run leaves on record, replays from the record alone (with the
model server gone), divergence reports, torn lines, retention, secrets and the off switch."""

from __future__ import annotations

import json
from pathlib import Path

from citeline.agent.exits import ExitReason
from citeline.app import Citeline
from citeline.config import Settings
from citeline.retrieval.cache import MemoryCache
from citeline.runs import RunFilter, RunLog
from citeline.runs.replay import replay
from tests.answerers.helpers import API_KEY, FakeOpenAI, Reply
from tests.conftest import write_script

ANSWER = "Requests time out after 5 seconds of network inactivity by default [1]."


def _script(tmp_path: Path, query: str = "default timeout") -> Path:
    return write_script(tmp_path / f"{query.replace(' ', '_')}.jsonl",
                        {"type": "tool_call", "tool": "search_docs", "input": {"query": query}},
                        {"type": "final", "answer": ANSWER})


def _lines(home: Path) -> list[dict[str, object]]:
    return [json.loads(line) for part in sorted((home / "runs").glob("*.jsonl"))
            for line in part.read_text().splitlines()]


def test_a_run_is_recorded_with_its_model_and_tool_io_and_replays_identically(
        app: Citeline, home: Path, tmp_path: Path) -> None:
    script = _script(tmp_path)
    result = app.ask("What is the default timeout?", model=f"scripted:{script}", origin={"via": "library"})
    assert result.exit_reason == ExitReason.COMPLETED
    records = _lines(home)
    kinds = [r["record"] for r in records]
    assert kinds[0] == "start" and kinds[1] == "context" and kinds[-1] == "end"
    start, end = records[0], records[-1]
    assert start["question"] == "What is the default timeout?" and start["owner"] == "local"
    assert start["model"] == f"scripted:{script}" and len(str(start["settings_fingerprint"])) == 16
    assert records[1]["corpus_version"] == app.store.corpus_version()
    exchanges = [r for r in records if r["record"] == "exchange"]
    assert [e["n"] for e in exchanges] == list(range(1, len(exchanges) + 1))
    decisions = [e for e in exchanges if e["kind"] == "decision"]
    # The script is the model: each decision carries the line it read.
    assert decisions[0]["response"]["model"] == [{"request": {"script": f"scripted:{script.name}", "line": 1},  # type: ignore[index]
                                                  "response": {"type": "tool_call", "tool": "search_docs",
                                                               "input": {"query": "default timeout"}}}]
    searches = [e for e in exchanges if e["kind"] == "retrieval"]
    assert searches[0]["request"]["query"] == "default timeout"  # type: ignore[index]
    assert "5 seconds" in searches[0]["response"]["passages"][0]["text"]  # type: ignore[index]
    # What the answerer's gate reads from a search is on record too: the query's corpus background.
    assert 0.0 < searches[0]["response"]["background"] < 1.0  # type: ignore[index,operator]
    assert any(e["kind"] == "tool" and e["response"]["output"]["results"] for e in exchanges)  # type: ignore[index]
    assert end["status"] == "complete" and end["result"]["answer"] == result.answer  # type: ignore[index]

    runs = app.runs
    assert runs is not None
    (summary,) = runs.summaries()
    report = replay(runs.find(summary.run_id))  # type: ignore[arg-type]
    assert report.identical and report.divergence is None, report
    assert report.steps_replayed == report.steps_recorded == len(exchanges)


def test_an_openai_run_records_the_requests_and_replays_without_the_server(tmp_path: Path) -> None:
    server = FakeOpenAI()
    server.script = [Reply(tool=("search_docs", {"query": "default timeout"}), usage=(100, 5)),
                     Reply(text=ANSWER, usage=(300, 20))]
    app = Citeline(Settings(home=tmp_path / "home", openai_base_url=server.url, openai_api_key=API_KEY),
                   cache=MemoryCache())
    try:
        from tests.conftest import write_corpus

        app.ingest([write_corpus(tmp_path / "docs")])
        result = app.ask("What is the default timeout?", model="openai:fake-model")
    finally:
        server.close()
    assert result.exit_reason == ExitReason.COMPLETED and result.usage.total_tokens == 425
    text = "".join(p.read_text() for p in (tmp_path / "home" / "runs").glob("*.jsonl"))
    assert API_KEY not in text  # the key never reaches the log
    records = _lines(tmp_path / "home")
    decisions = [r for r in records if r.get("kind") == "decision"]
    sent = decisions[0]["response"]["model"][0]["request"]  # type: ignore[index]
    assert sent["model"] == "fake-model" and sent["messages"][-1]["role"] == "user"
    assert decisions[0]["response"]["usage"] == [100, 5]  # type: ignore[index]
    assert decisions[1]["response"]["model"][0]["response"]["text"].strip() == ANSWER  # type: ignore[index]
    runs = app.runs
    assert runs is not None
    # The server is gone: only the record can answer now.
    report = replay(runs.find(runs.summaries()[0].run_id))  # type: ignore[arg-type]
    assert report.identical, report
    assert report.result is not None and report.result["usage"]["total_tokens"] == 425
    app.close()


def test_a_changed_record_is_reported_with_the_step_where_it_diverges(
        app: Citeline, home: Path, tmp_path: Path) -> None:
    app.ask("What is the default timeout?", model=f"scripted:{_script(tmp_path)}")
    runs = app.runs
    assert runs is not None
    run = runs.find(runs.summaries()[0].run_id)
    assert run is not None
    # As if the index had answered differently: the next decision then sees other search results.
    search = next(e for e in run.exchanges if e["kind"] == "retrieval")
    search["response"]["passages"] = search["response"]["passages"][:1]
    report = replay(run)
    assert not report.identical
    decision = next(e for e in run.exchanges if e["kind"] == "tool")
    assert report.divergence is not None and report.divergence.startswith(f"step {decision['n']}:")
    assert "expected" in report.divergence and "got" in report.divergence


def test_a_torn_line_is_skipped_and_the_log_stays_appendable(app: Citeline, home: Path, tmp_path: Path) -> None:
    app.ask("What is the default timeout?", model=f"scripted:{_script(tmp_path)}")
    (part,) = (home / "runs").glob("*.jsonl")
    with part.open("a") as handle:
        handle.write('{"record":"end","run_id":"dead","status":"compl')  # a write cut by a crash
    app.ask("What is the default timeout?", model=f"scripted:{_script(tmp_path, 'timeout default')}")
    runs = app.runs
    assert runs is not None
    found = runs.summaries()
    assert [s.status for s in found] == ["complete", "complete"]
    assert runs.torn_lines == 1
    assert all(replay(runs.find(s.run_id)).identical for s in found)  # type: ignore[arg-type]


def test_retention_and_size_bound_drop_the_oldest_days(tmp_path: Path) -> None:
    now = [1_700_000_000.0]  # 2023-11-14
    log = RunLog(tmp_path / "runs", retention_days=2, max_bytes=300_000, clock=lambda: now[0])
    for day in range(5):
        now[0] = 1_700_000_000.0 + day * 86_400
        log.append({"record": "start", "run_id": f"r{day}", "at": f"2023-11-{14 + day}T00:00:00.000Z",
                    "owner": "o", "question": "x" * 70_000})
    names = [p.name for p in log.parts()]
    assert names == ["2023-11-16.1.jsonl", "2023-11-17.1.jsonl", "2023-11-18.1.jsonl"]
    assert [s.run_id for s in log.summaries()] == ["r4", "r3", "r2"]
    for _ in range(6):  # 6 x 70 kB on one day: parts roll at max_bytes/16 and the oldest go
        log.append({"record": "start", "run_id": "big", "at": "2023-11-18T01:00:00.000Z", "owner": "o",
                    "question": "y" * 70_000})
    assert sum(p.stat().st_size for p in log.parts()) <= 300_000 + 71_000
    assert log.parts()[-1].name.startswith("2023-11-18.")


def test_secrets_are_never_written(home: Path, corpus: Path, tmp_path: Path) -> None:
    secret_key = "sk-" + "A1b2C3d4" * 6
    app = Citeline(Settings(home=home, openai_api_key=secret_key,
                            store=f"sqlite:{home / 'index.sqlite3'}"))
    app.ingest([corpus])
    script = write_script(tmp_path / "s.jsonl",
                          {"type": "tool_call", "tool": "search_docs", "input": {"query": "timeout"}},
                          {"type": "error", "kind": "auth", "message": f"bad key {secret_key}", "status": 401})
    result = app.ask("What is the default timeout?", model=f"scripted:{script}")
    assert result.exit_reason == ExitReason.LLM_ERROR
    text = "".join(p.read_text() for p in (home / "runs").glob("*.jsonl"))
    assert secret_key not in text and '"openai_api_key":"***"' in text
    app.close()


def test_the_runs_log_can_be_switched_off(home: Path, corpus: Path) -> None:
    app = Citeline(Settings(home=home, runs_log=False))
    app.ingest([corpus])
    assert app.ask("What is the default timeout?").exit_reason == ExitReason.COMPLETED
    assert app.runs is None and not (home / "runs").exists()
    app.close()


def test_a_cached_answer_replays_the_run_that_produced_it(app: Citeline, tmp_path: Path) -> None:
    script = _script(tmp_path)
    first = app.ask("What is the default timeout?", model=f"scripted:{script}")
    second = app.ask("What is the default timeout?", model=f"scripted:{script}")
    assert second.cached and not first.cached
    runs = app.runs
    assert runs is not None
    cached = runs.summaries(RunFilter())[0]
    assert cached.cached and cached.steps == 0
    report = replay(runs.find(cached.run_id), runs)  # type: ignore[arg-type]
    assert report.identical and report.replayed_run_id == runs.summaries()[1].run_id


def test_another_owners_runs_are_filtered_out(app: Citeline, tmp_path: Path) -> None:
    app.ask("What is the default timeout?", owner="alice", model=f"scripted:{_script(tmp_path)}")
    app.ask("What is the default timeout?", owner="bob", model=f"scripted:{_script(tmp_path, 'timeout')}")
    runs = app.runs
    assert runs is not None
    assert [s.owner for s in runs.summaries(RunFilter(owner="alice"))] == ["alice"]
    assert sorted(s.owner for s in runs.summaries()) == ["alice", "bob"]
