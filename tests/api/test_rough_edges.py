"""The service's rough edges, in process through the real app: the OpenAI-compatible endpoint
honours `max_tokens`, reports real usage and marks a decline; a failing model's own error
reaches the JSON and SSE results; a removed user's key stops working on every worker."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from citeline.agent.context import count_tokens
from citeline.api import create_app
from citeline.api.service import Service
from citeline.api.users import KEY_CACHE_S, UserRegistry
from citeline.app import Citeline
from citeline.config import ServiceSettings, Settings
from tests.answerers.helpers import FakeOpenAI, Reply
from tests.api.conftest import HASH_EMBEDDER, bearer
from tests.api.test_service import upload

QUESTION = "How do I disable timeouts?"


@pytest.fixture
def alice(client: TestClient, service: Service) -> str:
    _, key = service.users.add("alice")
    upload(client, key)
    return key


def _chat(client: TestClient, key: str, question: str, **extra: Any) -> Any:
    return client.post("/v1/chat/completions", headers=bearer(key),
                       json={"model": "citeline", "messages": [{"role": "user", "content": question}], **extra})


def test_chat_completion_reports_real_usage(client: TestClient, alice: str) -> None:
    body = _chat(client, alice, QUESTION).json()
    content = body["choices"][0]["message"]["content"]
    assert body["choices"][0]["finish_reason"] == "stop" and body["declined"] is False
    assert body["usage"] == {"prompt_tokens": count_tokens(QUESTION), "completion_tokens": count_tokens(content),
                             "total_tokens": count_tokens(QUESTION) + count_tokens(content)}
    assert body["usage"]["completion_tokens"] > 10
    assert body["agent_usage"] == {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}  # no model


def test_chat_completion_honours_max_tokens(client: TestClient, alice: str) -> None:
    full = _chat(client, alice, QUESTION).json()["choices"][0]["message"]["content"]
    cut = _chat(client, alice, QUESTION, max_tokens=6).json()
    assert cut["choices"][0]["finish_reason"] == "length" and cut["usage"]["completion_tokens"] == 6
    content = cut["choices"][0]["message"]["content"]
    assert full.startswith(content) and count_tokens(content) == 6
    newer = _chat(client, alice, QUESTION, max_completion_tokens=3).json()
    assert newer["usage"]["completion_tokens"] == 3
    assert _chat(client, alice, QUESTION, max_tokens=0).status_code == 422
    with client.stream("POST", "/v1/chat/completions", headers=bearer(alice),
                       json={"model": "citeline", "messages": [{"role": "user", "content": QUESTION}],
                             "stream": True, "max_tokens": 6}) as stream:
        chunks = [json.loads(line[6:]) for line in stream.iter_lines()
                  if line.startswith("data: ") and line != "data: [DONE]"]
    streamed = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks)
    assert streamed == content
    assert chunks[-1]["choices"][0]["finish_reason"] == "length" and chunks[-1]["usage"]["completion_tokens"] == 6


def test_a_decline_is_marked(client: TestClient, alice: str) -> None:
    body = _chat(client, alice, "How do I configure Kerberos with NTLM?").json()
    assert body["exit_reason"] == "INSUFFICIENT_CONTEXT"
    assert body["choices"][0]["finish_reason"] == "content_filter" and body["declined"] is True
    assert body["usage"]["completion_tokens"] == count_tokens(body["choices"][0]["message"]["content"]) > 0


@pytest.fixture
def failing_model(home: Path) -> Iterator[tuple[TestClient, str]]:
    server = FakeOpenAI()
    server.script = [Reply(status=401, body={"error": {"message": "Incorrect API key provided"}})]
    citeline = Citeline(Settings(home=home, embedder=HASH_EMBEDDER, openai_base_url=server.url,
                                 openai_api_key="sk-test-wrong-key"))
    service = Service(citeline, ServiceSettings(rate_per_s=1000.0, rate_burst=1000, models="openai:fake-model"))
    with TestClient(create_app(service=service)) as client:
        _, key = service.users.add("alice")
        upload(client, key)
        yield client, key
    server.close()
    citeline.close()


def test_a_failing_models_error_reaches_json_and_sse(failing_model: tuple[TestClient, str]) -> None:
    client, key = failing_model
    body = {"question": "What is the default timeout?", "model": "openai:fake-model"}
    result = client.post("/v1/agent/run", json=body, headers=bearer(key)).json()
    assert result["exit_reason"] == "LLM_ERROR" and "internal error" not in result["answer"].lower()
    error = result["error"]
    assert error["kind"] == "auth" and error["status"] == 401 and "rejected the API key" in error["message"]
    assert "OPENAI_API_KEY" in error["hint"] and "sk-test-wrong-key" not in json.dumps(result)
    with client.stream("POST", "/v1/agent/stream", json=body, headers=bearer(key)) as stream:
        finals = [json.loads(line[6:]) for line in stream.iter_lines()
                  if line.startswith("data: ") and '"type":"final"' in line]
    assert finals[-1]["data"]["result"]["error"] == error


def test_a_removed_users_key_stops_working_on_every_worker(home: Path) -> None:
    citeline = Citeline(Settings(home=home, embedder=HASH_EMBEDDER))
    now = [100.0]
    this_worker = UserRegistry(citeline.store)
    other_worker = UserRegistry(citeline.store, clock=lambda: now[0])
    user, key = this_worker.add("alice")
    assert other_worker.authenticate(key) == user  # checked, and trusted for a few seconds
    assert this_worker.remove("alice") == user
    assert this_worker.authenticate(key) is None
    assert [u.name for u in this_worker.list()] == []
    now[0] += KEY_CACHE_S
    assert other_worker.authenticate(key) is None
    citeline.close()
