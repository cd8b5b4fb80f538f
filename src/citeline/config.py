"""The one settings tree, nested by concern: `index`, `retrieval`, `agent`, `answerer`, `runs`, `service`.

Precedence (highest first): explicit keyword arguments, environment variables, `./citeline.toml`,
`$CITELINE_HOME/citeline.toml`, field defaults. Every field is described so `citeline doctor`
and the README (`python -m citeline.settings_table`) can print the whole tree.

Each setting has a nested name and, because settings were one flat list before they were
grouped, a flat name that keeps working everywhere a setting is given:

| form | nested | flat |
|---|---|---|
| environment | `CITELINE_INDEX__CHUNK_TOKENS` | `CITELINE_CHUNK_TOKENS` |
| `citeline.toml` | `[index]` then `chunk_tokens = 100` | `chunk_tokens = 100` |
| keyword argument | `Settings(index=IndexSettings(chunk_tokens=100))` or `index={"chunk_tokens": 100}` | `Settings(chunk_tokens=100)` |

The flat name is the group's flat prefix plus the field name: no prefix for most groups, `runs_`
for the runs log and `api_` for the service (`CITELINE_RUNS_MAX_MB`, `CITELINE_API_RATE_PER_S`).
Giving one setting under both names in one source (both variables, or both keys in one file, or
both arguments) with different values is an error, because neither can be said to win. A name
that is no setting at all (`top_kk = 3`) is an error too, naming the closest setting: a typo
would otherwise leave the default in force without a word. Code reads settings only by their
nested path (`settings.index.chunk_tokens`).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

APP_NAME = "citeline"
ENV_PREFIX = "CITELINE_"
NESTED_DELIMITER = "__"


def default_home() -> Path:
    """Where data lives when neither `CITELINE_HOME` nor a setting says otherwise."""
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


# Below this many chunks an owner's dense search scans exactly: the scan is fast and exact there
# (measured: a 10k-chunk scan is ~1 ms alone but 4-5x that inside a hybrid query, whose full-text
# pass evicts the matrix from the CPU caches; the graph reads a few hundred vectors).
DEFAULT_ANN_MIN_CHUNKS = 10_000

class SettingsGroup(BaseModel):
    """One concern of the settings tree. `flat_prefix` turns a field name into its flat name."""

    model_config = ConfigDict(extra="ignore", validate_default=True)

    flat_prefix: ClassVar[str] = ""
    # Variables outside the `CITELINE_` namespace that also set a field, weaker than citeline's own.
    foreign_env: ClassVar[Mapping[str, tuple[str, ...]]] = {}


class IndexSettings(SettingsGroup):
    """Where the index lives and how files become chunks and vectors in it."""

    # --- where things live ---------------------------------------------------------------
    home: Path = Field(
        default_factory=default_home,
        description="Data directory (index, caches, sessions, runs log).",
        json_schema_extra={"shown_default": "platform data dir (`~/.local/share/citeline` on Linux)"},
    )
    store: str = Field(
        default="",
        description="Store URL: empty for the embedded SQLite file under `home`, `sqlite:PATH`, or "
        "`postgresql://user:pass@host/db` (needs `pip install citeline[postgres]` and pgvector >= 0.8 on "
        "the server; URL options pool_min_size, pool_max_size, ef_search). With PostgreSQL, API "
        "sessions live in the same database.",
    )
    owner: str = Field(default="local", description="Owner id used by the CLI and library by default.")
    plugins: str = Field(
        default="",
        description="Comma-separated Python modules imported as plugins besides the `citeline.plugins` "
        "entry points, for plugins not installed as packages: they can register loaders "
        "(`register_loader`), embedders (`register_embedder`), answerers (`register_answerer`) or store "
        "engines (`register_engine`).",
    )

    # --- chunking and embedding ----------------------------------------------------------
    chunk_tokens: int = Field(default=200, ge=32, le=2000, description="Target chunk size in word tokens.")
    chunk_overlap: int = Field(default=40, ge=0, le=500, description="Overlap between chunks in word tokens.")
    embedder: str = Field(
        default="minilm-onnx",
        description="Embedder: `minilm-onnx` (bundled, English), `e5-multilingual` (needs "
        "`pip install citeline[multilingual]`), `openai:MODEL` (any OpenAI-compatible /v1/embeddings server; "
        "the embed_* settings below) or a plugin's name. Changing it on an existing index needs `citeline reindex`.",
    )
    # Why 8: ONNX Runtime's arena keeps the activations of the largest batch (batch x 256 tokens).
    # Measured on 96 chunks: batch 32 peaked at 1549 MiB RSS in 14.4 s, batch 8 at 542 MiB in 12.5 s.
    embed_batch_size: int = Field(default=8, ge=1, le=1024, description="Texts per embedding batch.")
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

    # --- ingestion limits ----------------------------------------------------------------
    max_file_bytes: int = Field(default=50 * 1024 * 1024, description="Files larger than this are refused.")
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

    @field_validator("home", mode="after")
    @classmethod
    def _expand_home(cls, value: Path) -> Path:
        return value.expanduser()

    @property
    def store_url(self) -> str:
        """The store to open: `store`, or the SQLite file in `home` when `store` is empty."""
        return self.store or f"sqlite:{self.home / 'index.sqlite3'}"


class RetrievalSettings(SettingsGroup):
    """How many passages a search returns and how the rankers are fused."""

    top_k: int = Field(default=5, ge=1, le=100, description="Passages returned per search.")
    candidate_pool: int = Field(default=50, ge=5, le=1000, description="Candidates per ranker before fusion.")
    rrf_k: int = Field(default=60, ge=1, description="Reciprocal rank fusion constant.")
    # --- approximate search (index/ann.py) ---
    ann_min_chunks: int = Field(
        default=DEFAULT_ANN_MIN_CHUNKS, ge=0,
        description="Dense search uses an approximate HNSW index once an owner has this many chunks "
        "(SQLite: a graph kept beside the database file, rebuilt when the corpus changes; PostgreSQL: "
        "pgvector's HNSW index) and scans every vector exactly below it. 0 = always exact.",
    )


class AgentSettings(SettingsGroup):
    """The bounds of one run of the agent loop, its token budgets and its validation gate."""

    max_turns: int = Field(default=10, ge=1, description="Model/tool cycles before MAX_TURNS_REACHED.")
    max_tool_calls: int = Field(default=5, ge=1, description="Tool calls before MAX_TOOL_CALLS_REACHED.")
    max_reprompts: int = Field(default=3, ge=0, description="Validation reprompts before VALIDATION_FAILED.")
    max_question_chars: int = Field(default=1000, ge=1, description="Longer questions end INPUT_TOO_LONG.")
    timeout_s: float = Field(default=120.0, gt=0, description="Wall-clock budget of one run, seconds.")
    system_tokens: int = Field(default=500, description="Token budget of the system prompt.")
    evidence_tokens: int = Field(default=4000, description="Token budget of retrieved evidence.")
    history_tokens: int = Field(default=2500, description="Token budget of conversation history.")
    response_tokens: int = Field(default=1200, description="Tokens reserved for the model's response.")
    citation_chars: int = Field(default=2000, description="Characters of one passage shown to the model.")
    support_threshold: float = Field(
        default=0.6, ge=0, le=1, description="Minimum lexical support of a cited sentence by its passage."
    )


class AnswererSettings(SettingsGroup):
    """Who writes the answer (code or a model, and where that model runs) and when to decline."""

    foreign_env: ClassVar[Mapping[str, tuple[str, ...]]] = {"openai_api_key": ("OPENAI_API_KEY",)}

    model: str = Field(
        default="extractive",
        description="Answerer: `extractive`, `scripted:PATH`, `local` (bundled SmolLM2 via llama.cpp, "
        "`citeline[local]`), `gguf:PATH`, `openai:MODEL`.",
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
    lead: Literal["model", "rules"] = Field(
        default="model",
        description="How the extractive answerer chooses the sentence an answer leads with: `model` (the "
        "shipped model over per-sentence signals, fitted leave-one-corpus-out) or `rules` (relevance and the "
        "hand-written value rules only; also the fallback when no model ships).",
    )
    lead_model: Path | None = Field(
        default=None,
        description="A lead model file to use instead of the shipped one (written by "
        "`python -m citeline.evaluation.fit`; leave-one-corpus-out fitting answers each set with a model "
        "fitted on the others).",
    )
    record_signals: bool = Field(
        default=False,
        description="Record every candidate sentence's lead signals and text in the answer's decision "
        "record (large; for fitting the lead model with `python -m citeline.evaluation.fit`).",
    )
    openai_base_url: str | None = Field(default=None, description="Base URL of an OpenAI-compatible API.")
    openai_api_key: str | None = Field(
        default=None, description="API key for the `openai` provider (OPENAI_API_KEY also works)."
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


class RunsSettings(SettingsGroup):
    """The runs log under `home/runs/` that `citeline logs` and `citeline replay` read."""

    flat_prefix: ClassVar[str] = "runs_"

    log: bool = Field(
        default=True,
        description="Record every run (question, each model and tool exchange, the result) in `home/runs/` "
        "for `citeline logs` and `citeline replay`. API keys are never written.",
    )
    retention_days: int = Field(default=30, ge=1, description="Days the runs log keeps a run.")
    max_mb: int = Field(default=256, ge=1, description="Size bound of the runs log in MB; the oldest runs go first.")


class ServiceSettings(SettingsGroup):
    """Limits and switches of `citeline serve` (the team service)."""

    flat_prefix: ClassVar[str] = "api_"

    auth: bool = Field(default=True, description="Require bearer API keys; off = one local user (`owner`).")
    max_body_bytes: int = Field(default=25 * 1024 * 1024, ge=1024, description="Largest request body accepted.")
    max_upload_files: int = Field(default=20, ge=1, description="Files per upload request.")
    # Counted in each worker's memory: behind N workers a user gets up to N times these (see
    # docs/scaling.md, "What stays per worker").
    rate_per_s: float = Field(default=10.0, gt=0,
                              description="Sustained requests per second per user, counted per worker process.")
    rate_burst: int = Field(default=60, ge=1,
                            description="Requests a user may burst above the sustained rate (per worker).")
    max_concurrent_runs: int = Field(default=4, ge=1, description="Agent runs in flight per user (per worker).")
    auth_failures_per_minute: int = Field(
        default=10, ge=1,
        description="Failed authentications (missing or unknown API key) one client address may make per "
        "minute; more get 429 with Retry-After until the oldest failure is a minute old (per worker).",
    )
    max_concurrent_uploads: int = Field(
        default=2, ge=1,
        description="Uploads being indexed at once by one worker, all users together (each parses in a "
        "capped worker process); an upload also takes one of its user's `max_concurrent_runs` slots. "
        "More get 429 with Retry-After.",
    )
    storage_quota_bytes: int = Field(
        default=1024 * 1024 * 1024, ge=0,
        description="Bytes of uploaded files one user may keep indexed (sizes as uploaded; a replaced "
        "file counts once). An upload over it gets 413. 0 = no quota.",
    )
    max_session_metadata_bytes: int = Field(
        default=16 * 1024, ge=256,
        description="Largest `metadata` and `initialContext` of a session, each, as JSON; larger gets 413.",
    )
    max_session_messages: int = Field(
        default=200, ge=2,
        description="Messages kept per session: older ones are trimmed, oldest first, as new turns are "
        "recorded (the agent only ever reads the newest `contextWindowSize` of them).",
    )
    heartbeat_s: float = Field(default=15.0, gt=0, description="SSE heartbeat comment interval, seconds.")
    models: str = Field(
        default="extractive",
        description="Comma-separated answerer specs clients may pick besides the server default.",
    )
    worker_threads: int = Field(default=64, ge=4, description="Threads that run agent work off the event loop.")
    sessions: str = Field(
        default="",
        description="Where conversation sessions live. Empty follows the store: with a `postgresql://` "
        "CITELINE_STORE they go to that database (LangGraph's PostgresSaver), so every worker behind a "
        "load balancer sees them; otherwise to `sessions.sqlite3` under the worker's home. Or set "
        "`sqlite:PATH` or `postgresql://...` explicitly.",
    )
    sessions_pool_size: int = Field(
        default=4, ge=2,
        description="Most PostgreSQL connections one worker opens for sessions (besides the store's "
        "pool_max_size): one for the checkpointer, the rest for per-session locks of concurrent turns.",
    )


@dataclass(frozen=True)
class SettingPath:
    """Where one setting sits in the tree and every name it can be given by."""

    group: str
    field: str
    info: FieldInfo
    flat_prefix: str
    foreign_env: tuple[str, ...]

    @property
    def dotted(self) -> str:
        """`group.field`, the TOML key and the attribute path (`settings.index.chunk_tokens`)."""
        return f"{self.group}.{self.field}"

    @property
    def flat(self) -> str:
        """The name from before the tree was nested, still accepted as input."""
        return self.flat_prefix + self.field

    @property
    def nested_env(self) -> str:
        """`CITELINE_GROUP__FIELD`."""
        return f"{ENV_PREFIX}{self.group.upper()}{NESTED_DELIMITER}{self.field.upper()}"

    @property
    def flat_env(self) -> str:
        """`CITELINE_<FLAT NAME>`."""
        return ENV_PREFIX + self.flat.upper()


class Settings(BaseSettings):
    """All of citeline's configuration, one group per concern; see the module docstring for names."""

    model_config = SettingsConfigDict(extra="ignore", validate_default=True)

    index: IndexSettings = Field(
        default_factory=IndexSettings,
        description="Where the index lives and how files are loaded, chunked and embedded into it.",
    )
    retrieval: RetrievalSettings = Field(
        default_factory=RetrievalSettings, description="How passages are searched and ranked."
    )
    agent: AgentSettings = Field(
        default_factory=AgentSettings, description="Bounds, token budgets and the validation gate of a run."
    )
    answerer: AnswererSettings = Field(
        default_factory=AnswererSettings, description="Which answerer writes answers, its provider, and when to decline."
    )
    runs: RunsSettings = Field(default_factory=RunsSettings, description="The runs log.")
    service: ServiceSettings = Field(
        default_factory=ServiceSettings, description="Limits and switches of the HTTP service (`citeline serve`)."
    )

    def __init__(self, **values: Any) -> None:
        """Settings from keyword arguments over the environment and the TOML files.

        Declared so type checkers accept flat names (`Settings(home=..., top_k=3)`) beside groups
        (`Settings(index=IndexSettings(home=...))`); both are validated the same way."""
        super().__init__(**values)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Keyword arguments, then `CITELINE_*` variables, then the TOML files; flat names folded into groups."""
        toml_sources = [
            _FoldedSource(TomlConfigSettingsSource(settings_cls, toml_file=path), f"`{path}`")
            for path in _toml_candidates()
        ]
        return (_FoldedSource(init_settings, "the keyword arguments"), _EnvSource(settings_cls), *toml_sources)

    def with_overrides(self, **changes: Any) -> Settings:
        """A copy with some fields replaced (validated), e.g. from CLI flags; `None` leaves a field as is.

        Keys are flat names (`top_k=3`) or groups (`retrieval={"top_k": 3}`)."""
        values = self.model_dump()
        given = {key: value for key, value in changes.items() if value is not None}
        for group, fields in fold_flat_names(given, "the overrides").items():
            values[group] = {**values[group], **fields} if isinstance(fields, dict) else fields
        return Settings(**values)


def setting_paths() -> Iterator[SettingPath]:
    """Every setting of the tree, group by group in declaration order."""
    for group, info in Settings.model_fields.items():
        group_cls = info.annotation
        assert isinstance(group_cls, type) and issubclass(group_cls, SettingsGroup)
        for name, field in group_cls.model_fields.items():
            yield SettingPath(group, name, field, group_cls.flat_prefix, tuple(group_cls.foreign_env.get(name, ())))


def _flat_index() -> dict[str, SettingPath]:
    return {path.flat: path for path in setting_paths()}


def fold_flat_names(values: Mapping[str, Any], where: str) -> dict[str, Any]:
    """`values` with every flat name moved into its group, as `{group: {field: value}}`.

    A group given as a model counts only its explicitly set fields, so a lower source still fills
    the rest. Raises ValueError naming both spellings when one setting is given twice with
    different values, and naming the closest setting when a key is no setting at all."""
    flat = _flat_index()
    _reject_unknown(values, where, flat)
    folded: dict[str, Any] = {}
    for group in Settings.model_fields:
        given = values.get(group)
        if isinstance(given, BaseModel):
            folded[group] = given.model_dump(exclude_unset=True)
        elif isinstance(given, Mapping):
            folded[group] = dict(given)
        elif given is not None:
            folded[group] = given  # not a table: left for validation to reject with its own message
    for key, value in values.items():
        path = flat.get(key)
        fields = folded.setdefault(path.group, {}) if path is not None else None
        if path is None or not isinstance(fields, dict):
            continue
        if path.field in fields and fields[path.field] != value:
            raise ValueError(
                f"{where} set `{path.flat}` and `{path.dotted}` to different values "
                f"({value!r} and {fields[path.field]!r}): they are one setting, keep only `{path.dotted}`"
            )
        fields[path.field] = value
    return folded


def _reject_unknown(values: Mapping[str, Any], where: str, flat: Mapping[str, SettingPath]) -> None:
    """Raise ValueError for keys that name no setting (top level or inside a group's table)."""
    groups = Settings.model_fields
    unknown = [key for key in values if key not in groups and key not in flat]
    for group, given in values.items():
        if group in groups and isinstance(given, Mapping):
            fields = groups[group].annotation.model_fields  # type: ignore[union-attr]
            unknown.extend(f"{group}.{name}" for name in given if name not in fields)
    if not unknown:
        return
    names = [*flat, *(path.dotted for path in flat.values())]
    described = []
    for key in unknown:
        close = difflib.get_close_matches(key, names, n=1)
        described.append(f"`{key}`" + (f" (did you mean `{close[0]}`?)" if close else ""))
    raise ValueError(f"unknown setting{'s' if len(unknown) > 1 else ''} in {where}: {', '.join(described)}; "
                     "`citeline doctor` lists every setting")


def recorded_settings(recorded: Mapping[str, Any]) -> Settings:
    """Settings as a runs log recorded them. A log outlives the version that wrote it, so names
    this version no longer has are left out here (and only here) instead of being an error."""
    flat = _flat_index()
    groups = Settings.model_fields
    kept: dict[str, Any] = {}
    for key, value in recorded.items():
        if value is None:
            continue
        if key in groups and isinstance(value, Mapping):
            fields = groups[key].annotation.model_fields  # type: ignore[union-attr]
            kept[key] = {name: item for name, item in value.items() if name in fields}
        elif key in groups or key in flat:
            kept[key] = value
    return Settings(**kept)


class _FoldedSource(PydanticBaseSettingsSource):
    """Another source's values with flat names folded into their groups."""

    def __init__(self, inner: PydanticBaseSettingsSource, where: str) -> None:
        super().__init__(inner.settings_cls)
        self.inner = inner
        self.where = where

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        """Unused: `__call__` reads the whole inner source at once."""
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        return fold_flat_names(self.inner(), self.where)


class _EnvSource(PydanticBaseSettingsSource):
    """`CITELINE_GROUP__FIELD`, `CITELINE_<FLAT NAME>` and foreign names such as `OPENAI_API_KEY`.

    Names are matched case-insensitively, as pydantic-settings does by default."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        """Unused: `__call__` reads every variable at once."""
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        environ = {name.upper(): value for name, value in os.environ.items()}
        values: dict[str, Any] = {}
        for path in setting_paths():
            nested, flat = environ.get(path.nested_env), environ.get(path.flat_env)
            if nested is not None and flat is not None and nested != flat:
                raise ValueError(
                    f"{path.flat_env}={flat!r} and {path.nested_env}={nested!r} are one setting: unset one of them"
                )
            found = nested if nested is not None else flat
            for name in path.foreign_env:
                if found is None:
                    found = environ.get(name)
            if found is not None:
                values.setdefault(path.group, {})[path.field] = found
        return values


def _toml_candidates() -> list[Path]:
    home = os.environ.get(f"{ENV_PREFIX}INDEX{NESTED_DELIMITER}HOME") or os.environ.get(f"{ENV_PREFIX}HOME")
    candidates = [Path.cwd() / "citeline.toml"]
    candidates.append((Path(home).expanduser() if home else default_home()) / "citeline.toml")
    return [path for path in candidates if path.is_file()]
