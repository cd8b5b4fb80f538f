from pathlib import Path

import pytest

from citeline.config import Settings


def test_env_vars_override_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CITELINE_HOME", str(tmp_path))
    monkeypatch.setenv("CITELINE_MAX_TURNS", "3")
    monkeypatch.setenv("CITELINE_TIMEOUT_S", "2.5")
    settings = Settings()
    assert settings.index.home == tmp_path
    assert settings.agent.max_turns == 3
    assert settings.agent.timeout_s == 2.5
    assert settings.index.store_url == f"sqlite:{tmp_path / 'index.sqlite3'}"


def test_toml_file_in_home_is_read_and_env_wins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "citeline.toml").write_text('top_k = 7\nmax_tool_calls = 2\nmodel = "scripted:x.jsonl"\n')
    monkeypatch.setenv("CITELINE_HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path.parent)
    monkeypatch.setenv("CITELINE_MAX_TOOL_CALLS", "4")
    settings = Settings()
    assert settings.retrieval.top_k == 7
    assert settings.answerer.model == "scripted:x.jsonl"
    assert settings.agent.max_tool_calls == 4


def test_openai_key_alias(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert Settings().openai_api_key == "sk-test"


def test_invalid_value_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITELINE_MAX_TURNS", "0")
    with pytest.raises(ValueError, match="max_turns"):
        Settings()


def test_every_field_is_described() -> None:
    undocumented = [name for name, field in Settings.model_fields.items() if not field.description]
    assert undocumented == []
