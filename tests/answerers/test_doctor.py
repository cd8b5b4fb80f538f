"""`citeline doctor` against a real loopback server and real (or missing) indexes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from citeline.cli.main import app
from tests.answerers.helpers import API_KEY, FakeOpenAI, Reply

runner = CliRunner()


def _doctor(env: dict[str, str], *args: str) -> Any:
    return runner.invoke(app, ["doctor", *args], env=env)


@pytest.fixture
def env(indexed_home: Path, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.delenv("CITELINE_OPENAI_API_KEY", raising=False)
    return {
        "CITELINE_HOME": str(indexed_home),
        "CITELINE_OPENAI_BASE_URL": fake_openai.url,
        "OPENAI_API_KEY": API_KEY,
    }


def test_healthy_setup_exits_zero(env: dict[str, str], fake_openai: FakeOpenAI) -> None:
    fake_openai.script = [Reply(tool=("search_docs", {"query": "ping"}))]
    result = _doctor(env, "--model", "openai:fake-model", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["ok"] is True
    details = " ".join(c["detail"] for c in report["checks"])
    assert "3 documents" in details and "tool calling accepted" in details
    assert fake_openai.requests[0]["tools"]


def test_quote_selection_is_probed_without_tools(env: dict[str, str], fake_openai: FakeOpenAI) -> None:
    fake_openai.script = [Reply(text="1")]
    result = _doctor(env, "--model", "openai:fake-model#quotes", "--json")
    assert result.exit_code == 0, result.output
    details = " ".join(c["detail"] for c in json.loads(result.output)["checks"])
    assert "quote selection needs no tool calling" in details
    assert fake_openai.chat_requests == 1 and "tools" not in fake_openai.requests[0]


def test_unknown_model_and_missing_tools_are_reported(env: dict[str, str], fake_openai: FakeOpenAI) -> None:
    fake_openai.script = [Reply(status=400, body={"error": {"message": "tools are not supported"}})]
    result = _doctor(env, "--model", "openai:gpt-9")
    assert result.exit_code == 2
    assert "model `gpt-9` is not listed" in result.output and "use one of: fake-model" in result.output
    assert "JSON actions" in result.output  # no native tools is a fallback, not a failure


def test_missing_key_and_empty_index_say_how_to_fix(
    env: dict[str, str], fake_openai: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    env = {**env, "CITELINE_HOME": str(tmp_path)}
    env.pop("OPENAI_API_KEY")
    result = _doctor(env, "--model", "openai:fake-model")
    assert result.exit_code == 2
    assert "fix: run `citeline ingest PATH`" in result.output
    assert "OPENAI_API_KEY" in result.output
    assert fake_openai.chat_requests == 0


def test_unreachable_endpoint(env: dict[str, str], fake_openai: FakeOpenAI) -> None:
    url = fake_openai.url
    fake_openai.close()
    result = _doctor({**env, "CITELINE_OPENAI_BASE_URL": url}, "--model", "openai:fake-model")
    assert result.exit_code == 2
    assert "not usable" in result.output and "fix: start the server" in result.output
    assert API_KEY not in result.output


def test_local_model_file_is_checked(env: dict[str, str], tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    bogus = tmp_path / "model.gguf"
    bogus.write_bytes(b"not a model")
    result = _doctor(env, "--model", f"gguf:{bogus}")
    assert result.exit_code == 2 and "is not a GGUF file" in result.output
    result = _doctor(env, "--model", "local")
    assert result.exit_code == 0, result.output
    assert "SmolLM2" in result.output
