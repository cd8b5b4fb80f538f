"""Events, caching, determinism, multi-turn and the conversation functions (`process_query`)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import write_corpus, write_script

from citeline.agent import runner
from citeline.agent.events import Event
from citeline.agent.exits import ExitReason
from citeline.agent.result import AgentResult
from citeline.app import Citeline
from citeline.config import Settings
from citeline.conversation import clear_conversation, create_agent, process_query
from citeline.retrieval.cache import MemoryCache
from citeline.retrieval.lead import LEAD_MODEL_FILE

Q = "What is the default timeout?"


def test_events_are_ordered_and_final_is_last(app: Citeline) -> None:
    events: list[Event] = []
    result = app.ask(Q, on_event=events.append)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert events[0].type == "run_start" and events[-1].type == "final"
    assert {"plan", "tool_start", "tool_end", "validation", "token"} <= {e.type for e in events}
    assert all(e.query_id == result.query_id for e in events)
    assert events[-1].data["result"]["answer"] == result.answer


def test_second_identical_run_is_served_from_cache_without_tokens(app: Citeline) -> None:
    first = app.ask(Q)
    events: list[Event] = []
    second = app.ask(Q, on_event=events.append)
    assert not first.cached and second.cached
    assert [e.type for e in events] == ["run_start", "cached_response", "final"]
    assert second.answer == first.answer and second.citations == first.citations


def test_cache_is_invalidated_by_any_corpus_change(app: Citeline, corpus: Path) -> None:
    app.ask(Q)
    (corpus / "timeouts.md").write_text("# Timeouts\n\nThe default timeout is now 9 seconds for every request.\n")
    app.ingest([corpus])
    after = app.ask(Q)
    assert not after.cached and "9 seconds" in after.answer


def test_an_upgrade_or_a_refitted_model_is_not_served_answers_cached_before_it(
        home: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def ask(**overrides: object) -> bool:
        citeline = Citeline(Settings(home=home).with_overrides(**overrides))
        try:
            citeline.ingest([corpus])
            return citeline.ask(Q).cached
        finally:
            citeline.close()

    shipped = json.loads(LEAD_MODEL_FILE.read_text(encoding="utf-8"))
    same, refitted = home.parent / "same.json", home.parent / "refitted.json"
    same.write_text(json.dumps(shipped), encoding="utf-8")
    refitted.write_text(json.dumps({**shipped, "weights": [-w for w in shipped["weights"]]}), encoding="utf-8")
    assert not ask() and ask()  # the persistent cache serves a second process
    assert ask(lead_model=same)  # the same model from another file: the same answers
    assert not ask(lead_model=refitted)
    monkeypatch.setattr(runner, "version", lambda: "999.0")
    assert not ask()  # another citeline version


def test_astream_matches_ask_and_cancels_on_close(home: Path, corpus: Path) -> None:
    app = Citeline(Settings(home=home), cache=MemoryCache())
    app.ingest([corpus])

    async def collect() -> list[Event]:
        return [event async for event in app.astream(Q)]

    events = asyncio.run(collect())
    assert events[-1].type == "final"
    streamed = events[-1].data["result"]
    fresh = Citeline(Settings(home=home), cache=MemoryCache()).ask(Q)
    assert streamed["answer"] == fresh.answer and streamed["exit_reason"] == fresh.exit_reason

    async def close_early() -> None:
        stream = app.astream("How do I disable timeouts?")
        first = await stream.__anext__()
        assert first.type == "run_start"
        await stream.aclose()

    asyncio.run(close_early())


def test_same_question_same_path_across_processes(tmp_path: Path) -> None:
    docs = write_corpus(tmp_path / "docs")
    outputs = []
    for index in range(2):  # separate homes: nothing is shared, not even a cache
        env = {**os.environ, "CITELINE_HOME": str(tmp_path / f"home{index}")}
        cli = [sys.executable, "-m", "citeline.cli.main"]
        subprocess.run([*cli, "ingest", str(docs)], env=env, check=True, capture_output=True, timeout=300)
        out = subprocess.run([*cli, "ask", Q, "--json"], env=env, capture_output=True, text=True, timeout=300)
        result = json.loads(out.stdout)
        path = [(t["type"], t["data"].get("tool"), json.dumps(t["data"].get("input"), sort_keys=True))
                for t in result["trace"]]
        outputs.append((result["answer"], result["exit_reason"], path,
                        [(c["chunk_id"], c["quote"]) for c in result["citations"]]))
    assert outputs[0] == outputs[1]


def test_same_question_same_path_in_one_process(home: Path, corpus: Path) -> None:
    runs = []
    for _ in range(2):
        app = Citeline(Settings(home=home), cache=MemoryCache())
        app.ingest([corpus])
        result = app.ask(Q)
        runs.append((result.answer, result.exit_reason, [t.data.get("input") for t in result.trace]))
    assert runs[0] == runs[1]


def test_follow_up_is_rewritten_with_the_previous_topic(app: Citeline) -> None:
    history = [{"role": "user", "content": "How do proxy credentials work?"},
               {"role": "assistant", "content": "Put them in the proxy URL [1]."}]
    result = app.ask("and what about its environment variables?", history=history)
    plan = next(t for t in result.trace if t.type == "plan")
    assert "proxy" in plan.data["standalone_query"]
    assert result.exit_reason == ExitReason.COMPLETED
    assert "HTTP_PROXY" in result.answer and result.citations


def test_a_follow_up_opening_with_thanks_is_rewritten_as_without_them(app: Citeline) -> None:
    history = [{"role": "user", "content": "How do proxy credentials work?"},
               {"role": "assistant", "content": "Put them in the proxy URL [1]."}]
    plain = app.ask("and what about its environment variables?", history=history)
    thanked = app.ask("Thank you for that! and what about its environment variables?", history=history)

    def standalone(result: AgentResult) -> str:
        return str(next(t for t in result.trace if t.type == "plan").data["standalone_query"])

    assert standalone(thanked) == standalone(plain) and "proxy" in standalone(thanked)
    assert thanked.answer == plain.answer


def test_seed_002_api(home: Path, corpus: Path) -> None:
    state = create_agent(Settings(home=home))
    state.app.ingest([corpus])
    answer, citations = asyncio.run(process_query(state, Q))
    assert "5 seconds" in answer and citations
    assert len(state.conversation.messages) == 2 and state.total_tokens_used > 0
    clear_conversation(state)
    assert state.conversation.messages == [] and state.conversation.total_tokens == 0
    assert state.config.index.home == home


def test_cli_stream_json_ends_with_final_then_cached(tmp_path: Path) -> None:
    env = {**os.environ, "CITELINE_HOME": str(tmp_path / "home")}
    cli = [sys.executable, "-m", "citeline.cli.main"]
    subprocess.run([*cli, "ingest", str(write_corpus(tmp_path / "docs"))], env=env, check=True,
                   capture_output=True, timeout=300)
    runs = []
    for _ in range(2):
        out = subprocess.run([*cli, "ask", Q, "--stream", "--json"], env=env, capture_output=True, text=True,
                             timeout=300)
        runs.append([json.loads(line) for line in out.stdout.splitlines()])
    first, second = runs
    assert first[0]["type"] == "run_start" and first[-1]["type"] == "final"
    assert "token" in {e["type"] for e in first}
    assert [e["type"] for e in second] == ["run_start", "cached_response", "final"]
    assert second[-1]["data"]["result"]["cached"] is True


def test_scripted_runs_are_replayed_per_run(app: Citeline, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.jsonl",
                          {"type": "tool_call", "tool": "search_docs", "input": {"query": "timeout"}},
                          {"type": "final", "answer": "Requests time out after 5 seconds of network inactivity "
                                                      "by default [1]."})
    first = app.ask(Q, model=f"scripted:{script}")
    second = app.ask("What is the default timeout for requests?", model=f"scripted:{script}")
    assert first.exit_reason == second.exit_reason == ExitReason.COMPLETED


def test_astream_events_v2(home: Path, corpus: Path) -> None:
    app = Citeline(Settings(home=home), cache=MemoryCache())
    app.ingest([corpus])

    async def collect() -> list[dict[str, object]]:
        return [event async for event in app.astream_events(Q)]

    events = asyncio.run(collect())
    kinds = [e["event"] for e in events]
    assert {"on_chat_model_stream", "on_tool_start", "on_tool_end"} <= set(kinds)
    assert kinds[-1] == "on_chain_end" and events[-1]["name"] == "citeline"
    assert kinds.index("on_tool_start") < kinds.index("on_tool_end")
    final = events[-1]["data"]["output"]  # type: ignore[index]
    assert final.exit_reason == ExitReason.COMPLETED and final.answer == app.ask(Q).answer
    tool_inputs = [e["data"]["input"] for e in events if e["event"] == "on_tool_start"]  # type: ignore[index]
    assert {"query": Q, "top_k": 8} in tool_inputs
    cached = asyncio.run(collect())
    cached_kinds = [e["event"] for e in cached]
    assert "on_custom_event" in cached_kinds and "on_chat_model_stream" not in cached_kinds
    assert next(e for e in cached if e["event"] == "on_custom_event")["name"] == "cached_response"
