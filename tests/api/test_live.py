"""Against a LIVE `citeline serve` subprocess on a free loopback port: the official `openai` client
(chat completions, non-stream and stream), an SSE client reading `/v1/agent/stream` to `final`, and
a client that disconnects mid-run (the server must end that run CANCELLED within 2 s)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.conftest import write_corpus, write_script
from tests.servers import free_port, stop, wait_until_serving

ANSWER = "Requests time out after 5 seconds of network inactivity by default [1]."


@dataclass
class Live:
    url: str
    key: str
    home: Path
    slow_model: str
    process: subprocess.Popen[bytes]

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "citeline.cli.main", *args], env=env, capture_output=True,
                          text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    root = tmp_path_factory.mktemp("live")
    home = root / "home"
    script = write_script(root / "answer.jsonl",
                          {"type": "tool_call", "tool": "search_docs", "input": {"query": "default timeout"}},
                          {"type": "final", "answer": ANSWER})
    slow_turns: list[dict[str, object]] = []
    for query in ("timeout", "proxy", "retries", "pooling", "release"):
        slow_turns += [{"type": "sleep", "seconds": 1.0},
                       {"type": "tool_call", "tool": "search_docs", "input": {"query": query}}]
    slow = write_script(root / "slow.jsonl", *slow_turns)
    env = {**os.environ, "CITELINE_HOME": str(home), "CITELINE_MODEL": f"scripted:{script}",
           "CITELINE_API_MODELS": f"extractive,scripted:{slow}", "CITELINE_EMBED_THREADS": "1"}
    added = _cli("users", "add", "alice", env=env)
    assert added.returncode == 0, added.stderr
    key = added.stdout.strip().splitlines()[-1]  # the key is the LAST line
    assert re.fullmatch(r"cl_[A-Za-z0-9_-]{40,}", key)
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "citeline.cli.main", "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(f"{url}/healthz", process, timeout_s=60)
        corpus = write_corpus(root / "docs")
        files = [("files", (p.name, p.read_bytes(), "text/plain")) for p in sorted(corpus.iterdir())]
        uploaded = httpx.post(f"{url}/v1/documents", files=files, headers={"Authorization": f"Bearer {key}"},
                              timeout=120)
        assert uploaded.status_code == 201, uploaded.text
        yield Live(url, key, home, f"scripted:{slow}", process)
    finally:
        stop([process])


def test_openai_client_chat_completion(live: Live) -> None:
    from openai import OpenAI

    client = OpenAI(base_url=f"{live.url}/v1", api_key=live.key, max_retries=0, timeout=60)
    assert "citeline" in [model.id for model in client.models.list()]
    completion = client.chat.completions.create(
        model="citeline",
        messages=[{"role": "system", "content": "be brief"},
                  {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello."},
                  {"role": "user", "content": "What is the default request timeout?"}],
    )
    content = completion.choices[0].message.content or ""
    assert content.startswith(ANSWER)
    assert "\n\nSources:\n[1] " in content
    extra = completion.model_extra or {}
    assert extra["exit_reason"] == "COMPLETED"
    citations = extra["citations"]
    assert citations and citations[0]["id"] == 1 and citations[0]["source"] == "timeouts.md"
    assert "5 seconds" in citations[0]["quote"]


def test_openai_client_chat_completion_stream(live: Live) -> None:
    from openai import OpenAI

    client = OpenAI(base_url=f"{live.url}/v1", api_key=live.key, max_retries=0, timeout=60)
    stream = client.chat.completions.create(
        model="citeline", stream=True,
        messages=[{"role": "user", "content": "How long until a request times out by default?"}],
    )
    pieces: list[str] = []
    finish = None
    last_extra: dict[str, object] = {}
    for chunk in stream:
        choice = chunk.choices[0]
        if choice.delta.content:
            pieces.append(choice.delta.content)
        if choice.finish_reason:
            finish = choice.finish_reason
            last_extra = chunk.model_extra or {}
    content = "".join(pieces)
    assert finish == "stop"
    assert content.startswith(ANSWER) and "Sources:" in content
    assert last_extra["exit_reason"] == "COMPLETED" and last_extra["citations"]


def _sse_events(lines: Iterator[str]) -> Iterator[tuple[str, dict[str, object]]]:
    kind, data = "message", ""
    for line in lines:
        if line == "":
            if data:
                yield kind, json.loads(data)
            kind, data = "message", ""
        elif line.startswith("event:"):
            kind = line[6:].strip()
        elif line.startswith("data:"):
            data += line[5:].strip()


def test_sse_stream_to_final(live: Live) -> None:
    events: list[tuple[str, dict[str, object]]] = []
    with httpx.stream("POST", f"{live.url}/v1/agent/stream", headers=live.headers, timeout=60,
                      json={"question": "What is the default timeout of a request?", "return_trace": True}) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        query_id = r.headers["x-query-id"]
        for kind, event in _sse_events(r.iter_lines()):
            events.append((kind, event))
            if kind == "final":
                break
    kinds = [kind for kind, _ in events]
    assert kinds[0] == "run_start" and kinds[-1] == "final" and kinds.count("final") == 1
    assert "tool_start" in kinds or "cached_response" in kinds
    assert [e["seq"] for _, e in events] == list(range(1, len(events) + 1))
    assert all(e["query_id"] == query_id and e["v"] == 1 for _, e in events)
    result = events[-1][1]["data"]["result"]  # type: ignore[index]
    assert result["exit_reason"] == "COMPLETED" and result["query_id"] == query_id and result["trace"]


def test_stream_errors_come_before_the_stream(live: Live) -> None:
    too_long = httpx.post(f"{live.url}/v1/agent/stream", headers=live.headers, json={"question": "x" * 1001})
    assert too_long.status_code == 422 and "limit is 1000" in too_long.json()["error"]["message"]
    missing = httpx.post(f"{live.url}/v1/agent/stream", headers=live.headers,
                         json={"question": "timeout?", "session_id": "nope"})
    assert missing.status_code == 404 and missing.json()["error"]["message"] == "session not found"
    model = httpx.post(f"{live.url}/v1/agent/stream", headers=live.headers,
                       json={"question": "timeout?", "model": "openai:gpt-x"})
    assert model.status_code == 422 and model.json()["error"]["type"] == "validation_error"
    anonymous = httpx.post(f"{live.url}/v1/agent/stream", json={"question": "timeout?"})
    assert anonymous.status_code == 401 and anonymous.headers["x-query-id"] == anonymous.json()["error"]["query_id"]


def _cancelled_runs(live: Live) -> float:
    text = httpx.get(f"{live.url}/metrics").text
    match = re.search(r'^citeline_agent_runs_total\{exit_reason="CANCELLED"\} ([0-9.]+)$', text, re.M)
    return float(match.group(1)) if match else 0.0


def test_client_disconnect_cancels_the_run(live: Live) -> None:
    session = httpx.post(f"{live.url}/v1/sessions", headers=live.headers, json={}).json()["sessionId"]
    before = _cancelled_runs(live)
    with httpx.stream("POST", f"{live.url}/v1/agent/stream", headers=live.headers, timeout=30,
                      json={"question": "Tell me everything", "model": live.slow_model,
                            "session_id": session}) as r:
        assert r.status_code == 200
        first = next(_sse_events(r.iter_lines()))
        assert first[0] == "run_start"
    closed = time.monotonic()  # leaving the block closed the connection mid-run (the script needs 5+ s)
    while _cancelled_runs(live) < before + 1:  # a bounded poll of the real server's metrics
        assert time.monotonic() - closed < 2.0, "the run was not cancelled within 2 s of the disconnect"
        time.sleep(0.05)
    # Observed server-side twice: the metric above and the session record of the turn.
    state = httpx.get(f"{live.url}/v1/sessions/{session}", headers=live.headers).json()
    assert [m["role"] for m in state["messageHistory"]] == ["user", "assistant"]
    assert state["messageHistory"][1]["metadata"]["exit_reason"] == "CANCELLED"
    text = httpx.get(f"{live.url}/metrics").text
    assert re.search(r"^citeline_agent_runs_in_flight 0\.0$", text, re.M), "a run is still executing"
