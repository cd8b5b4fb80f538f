"""The settings tree: every way a setting can be given (flat or nested; keyword, environment,
TOML), their precedence, and the names that must keep working from before the tree was nested."""

import os
from pathlib import Path

import pytest

from citeline.agent.runner import settings_fingerprint
from citeline.config import (
    AgentSettings,
    IndexSettings,
    RetrievalSettings,
    ServiceSettings,
    Settings,
    recorded_settings,
    setting_paths,
)

# The flat settings and `ApiSettings` fields before the tree was nested: each name must still be
# accepted (`CITELINE_<NAME>`, a top-level TOML key, a keyword argument).
OLD_FLAT_NAMES = {
    "home", "store", "owner", "chunk_tokens", "chunk_overlap", "max_file_bytes", "embed_batch_size", "embedder",
    "embed_threads", "parse_in_worker", "parse_timeout_s", "parse_memory_mb", "max_pages",
    "max_decompressed_bytes", "max_line_chars", "max_blocks_per_file", "max_chunks_per_file", "plugins",
    "top_k", "candidate_pool", "rrf_k", "model", "max_turns", "max_tool_calls", "max_reprompts",
    "max_question_chars", "system_tokens", "evidence_tokens", "history_tokens", "response_tokens",
    "citation_chars", "timeout_s", "support_threshold", "answer_threshold", "answerability",
    "openai_base_url", "openai_api_key", "llm_threads", "llm_context", "local_search", "local_answer",
    "runs_log", "runs_retention_days", "runs_max_mb",
}
OLD_API_NAMES = {
    "auth", "max_body_bytes", "max_upload_files", "rate_per_s", "rate_burst", "max_concurrent_runs",
    "auth_failures_per_minute", "max_concurrent_uploads", "storage_quota_bytes", "max_session_metadata_bytes",
    "max_session_messages", "heartbeat_s", "models", "worker_threads", "sessions", "sessions_pool_size",
}


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No CITELINE_* variable of the test run, and no citeline.toml of the checkout, leaks in."""
    for name in list(os.environ):
        if name.upper().startswith("CITELINE_") or name.upper() == "OPENAI_API_KEY":
            monkeypatch.delenv(name)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("CITELINE_HOME", str(tmp_path / "home"))
    return work


# --- environment -------------------------------------------------------------------------


def test_flat_env_names_set_nested_fields(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CITELINE_HOME", str(tmp_path))
    monkeypatch.setenv("CITELINE_MAX_TURNS", "3")
    monkeypatch.setenv("CITELINE_TIMEOUT_S", "2.5")
    monkeypatch.setenv("CITELINE_CHUNK_TOKENS", "100")
    monkeypatch.setenv("CITELINE_MODEL", "scripted:x.jsonl")
    monkeypatch.setenv("CITELINE_STORE", "sqlite:/elsewhere.sqlite3")
    monkeypatch.setenv("CITELINE_RUNS_MAX_MB", "7")
    monkeypatch.setenv("CITELINE_RUNS_LOG", "false")
    monkeypatch.setenv("CITELINE_API_RATE_PER_S", "2.5")
    monkeypatch.setenv("CITELINE_API_AUTH", "false")
    settings = Settings()
    assert settings.index.home == tmp_path
    assert settings.agent.max_turns == 3
    assert settings.agent.timeout_s == 2.5
    assert settings.index.chunk_tokens == 100
    assert settings.answerer.model == "scripted:x.jsonl"
    assert settings.index.store_url == "sqlite:/elsewhere.sqlite3"
    assert settings.runs.max_mb == 7 and settings.runs.log is False
    assert settings.service.rate_per_s == 2.5 and settings.service.auth is False


def test_nested_env_names(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("CITELINE_HOME")
    monkeypatch.setenv("CITELINE_INDEX__HOME", str(tmp_path / "nested"))
    monkeypatch.setenv("CITELINE_INDEX__CHUNK_TOKENS", "100")
    monkeypatch.setenv("citeline_retrieval__top_k", "9")  # case-insensitive, as before
    monkeypatch.setenv("CITELINE_SERVICE__MAX_CONCURRENT_RUNS", "2")
    monkeypatch.setenv("CITELINE_RUNS__RETENTION_DAYS", "3")
    settings = Settings()
    assert settings.index.home == tmp_path / "nested"
    assert settings.index.store_url == f"sqlite:{tmp_path / 'nested' / 'index.sqlite3'}"
    assert settings.index.chunk_tokens == 100
    assert settings.retrieval.top_k == 9
    assert settings.service.max_concurrent_runs == 2
    assert settings.runs.retention_days == 3


def test_flat_and_nested_env_for_one_setting_must_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITELINE_TOP_K", "4")
    monkeypatch.setenv("CITELINE_RETRIEVAL__TOP_K", "4")
    assert Settings().retrieval.top_k == 4
    monkeypatch.setenv("CITELINE_RETRIEVAL__TOP_K", "8")
    with pytest.raises(ValueError, match=r"CITELINE_TOP_K='4' and CITELINE_RETRIEVAL__TOP_K='8'.*unset one"):
        Settings()


def test_openai_key_alias(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert Settings().answerer.openai_api_key == "sk-test"
    # citeline's own name wins over the generic one, which many shells set for other tools.
    monkeypatch.setenv("CITELINE_OPENAI_API_KEY", "sk-citeline")
    assert Settings().answerer.openai_api_key == "sk-citeline"


def test_invalid_value_is_rejected_with_its_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITELINE_MAX_TURNS", "0")
    with pytest.raises(ValueError, match=r"agent\.max_turns"):
        Settings()


# --- TOML files --------------------------------------------------------------------------


def test_flat_toml_keys_in_home_and_env_wins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "citeline.toml").write_text('top_k = 7\nmax_tool_calls = 2\nmodel = "scripted:x.jsonl"\n')
    monkeypatch.setenv("CITELINE_HOME", str(tmp_path))
    monkeypatch.setenv("CITELINE_MAX_TOOL_CALLS", "4")
    settings = Settings()
    assert settings.retrieval.top_k == 7
    assert settings.answerer.model == "scripted:x.jsonl"
    assert settings.agent.max_tool_calls == 4


def test_nested_toml_tables_and_env_wins(monkeypatch: pytest.MonkeyPatch, clean_environment: Path) -> None:
    (clean_environment / "citeline.toml").write_text(
        "[index]\nchunk_tokens = 100\nchunk_overlap = 10\n[service]\nauth = false\n[runs]\nmax_mb = 9\n"
    )
    monkeypatch.setenv("CITELINE_CHUNK_OVERLAP", "20")  # a flat variable over a nested key
    settings = Settings()
    assert settings.index.chunk_tokens == 100
    assert settings.index.chunk_overlap == 20
    assert settings.service.auth is False
    assert settings.runs.max_mb == 9


def test_nested_env_beats_flat_toml_key(monkeypatch: pytest.MonkeyPatch, clean_environment: Path) -> None:
    (clean_environment / "citeline.toml").write_text("top_k = 7\napi_rate_burst = 5\n")
    monkeypatch.setenv("CITELINE_RETRIEVAL__TOP_K", "3")
    settings = Settings()
    assert settings.retrieval.top_k == 3
    assert settings.service.rate_burst == 5


def test_working_directory_toml_beats_home_toml(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, clean_environment: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "citeline.toml").write_text("[retrieval]\ntop_k = 7\nrrf_k = 10\n")
    (clean_environment / "citeline.toml").write_text("top_k = 8\n")
    settings = Settings()
    assert settings.retrieval.top_k == 8
    assert settings.retrieval.rrf_k == 10


def test_home_toml_found_through_the_nested_home_variable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("CITELINE_HOME")
    monkeypatch.setenv("CITELINE_INDEX__HOME", str(tmp_path))
    (tmp_path / "citeline.toml").write_text("[agent]\nmax_reprompts = 1\n")
    assert Settings().agent.max_reprompts == 1


def test_one_setting_twice_in_one_toml_file_is_an_error(clean_environment: Path) -> None:
    path = clean_environment / "citeline.toml"
    path.write_text("chunk_tokens = 100\n[index]\nchunk_tokens = 300\n")
    with pytest.raises(ValueError, match=r"citeline.toml.*`chunk_tokens` and `index.chunk_tokens`.*keep only"):
        Settings()


# --- keyword arguments -------------------------------------------------------------------


def test_flat_keyword_arguments(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, model="extractive", top_k=3, runs_log=False, api_auth=False)
    assert settings.index.home == tmp_path
    assert settings.answerer.model == "extractive"
    assert settings.retrieval.top_k == 3
    assert settings.runs.log is False
    assert settings.service.auth is False


def test_nested_keyword_arguments(tmp_path: Path) -> None:
    settings = Settings(index=IndexSettings(home=tmp_path, chunk_tokens=100), retrieval={"top_k": 3})
    assert settings.index.home == tmp_path
    assert settings.index.chunk_tokens == 100
    assert settings.retrieval.top_k == 3


def test_keyword_arguments_beat_env_field_by_field(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITELINE_TOP_K", "9")
    monkeypatch.setenv("CITELINE_CANDIDATE_POOL", "70")
    settings = Settings(retrieval=RetrievalSettings(top_k=2))
    # A group passed as a model overrides what it sets, not the whole group.
    assert settings.retrieval.top_k == 2
    assert settings.retrieval.candidate_pool == 70
    assert Settings(top_k=3).retrieval.top_k == 3


def test_flat_and_nested_keyword_arguments_must_agree() -> None:
    assert Settings(top_k=3, retrieval={"top_k": 3}).retrieval.top_k == 3
    with pytest.raises(ValueError, match=r"`top_k` and `retrieval\.top_k`"):
        Settings(top_k=3, retrieval=RetrievalSettings(top_k=4))


def test_with_overrides_takes_flat_names_and_groups(tmp_path: Path) -> None:
    base = Settings(home=tmp_path, max_turns=4)
    changed = base.with_overrides(top_k=2, model=None, agent={"max_reprompts": 0}, api_rate_burst=3)
    assert changed.retrieval.top_k == 2
    assert changed.answerer.model == base.answerer.model
    assert changed.agent == AgentSettings(max_turns=4, max_reprompts=0)
    assert changed.service.rate_burst == 3
    assert changed.index.home == tmp_path
    assert base.retrieval.top_k == 5


def test_settings_recorded_before_nesting_still_load(tmp_path: Path) -> None:
    """Runs logs written by the flat settings are replayed with `Settings(**recorded)`."""
    tree = Settings(home=tmp_path, top_k=3, model="scripted:x", runs_max_mb=5, api_models="a,b")
    flat = {path.flat: getattr(getattr(tree, path.group), path.field) for path in setting_paths()}
    assert Settings(**flat) == tree
    assert Settings(**tree.model_dump()) == tree


# --- the tree itself ---------------------------------------------------------------------


def test_every_old_name_is_still_a_flat_name() -> None:
    flat = [path.flat for path in setting_paths()]
    assert len(flat) == len(set(flat)), "two settings share a flat name"
    assert set(flat) >= OLD_FLAT_NAMES
    assert {f"api_{name}" for name in OLD_API_NAMES} <= set(flat)
    assert {path.field for path in setting_paths() if path.group == "service"} == OLD_API_NAMES


def test_every_field_is_described() -> None:
    undocumented = [name for name, field in Settings.model_fields.items() if not field.description]
    undocumented += [path.dotted for path in setting_paths() if not path.info.description]
    assert undocumented == []


def test_service_group_defaults_do_not_read_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """A `ServiceSettings()` made in code is what the code says; only the tree reads variables."""
    monkeypatch.setenv("CITELINE_API_RATE_BURST", "3")
    assert ServiceSettings().rate_burst == 60
    assert Settings().service.rate_burst == 3


def test_fingerprint_is_unchanged_by_nesting(tmp_path: Path) -> None:
    """Values computed by the flat settings before the tree: runs logged earlier stay comparable."""
    assert settings_fingerprint(Settings(home=tmp_path), "extractive") == "be7f72ad749dd983"
    changed = Settings(home=tmp_path, top_k=7, chunk_tokens=100, answerability="coverage", timeout_s=9.5)
    assert settings_fingerprint(changed, "openai:m") == "5046fd83bf07789b"
    # Settings that do not change answers (the service, the runs log, where the index lives) leave it.
    unrelated = Settings(home=tmp_path / "other", api_rate_burst=1, runs_log=False)
    assert settings_fingerprint(unrelated, "extractive") == "be7f72ad749dd983"


def test_a_name_that_is_no_setting_is_an_error_naming_the_closest(clean_environment: Path) -> None:
    with pytest.raises(ValueError, match=r"unknown setting in the keyword arguments: `top_kk` \(did you mean `top_k`\?\)"):
        Settings(top_kk=3)
    with pytest.raises(ValueError, match=r"`retrieval\.top_kk` \(did you mean `retrieval\.top_k`\?\)"):
        Settings(retrieval={"top_kk": 3})
    # A typo in a file is caught too: otherwise the default would silently stay in force.
    (clean_environment / "citeline.toml").write_text("[index]\nchunk_token = 100\n")
    with pytest.raises(ValueError, match=r"citeline\.toml.*`index\.chunk_token` \(did you mean `index\.chunk_tokens`\?\)"):
        Settings()


def test_a_recorded_run_with_a_retired_setting_still_loads(tmp_path: Path) -> None:
    recorded = {"home": str(tmp_path), "top_k": 3, "retired_knob": 1, "agent": {"max_turns": 4, "gone": True}}
    settings = recorded_settings(recorded)
    assert settings.retrieval.top_k == 3 and settings.agent.max_turns == 4
