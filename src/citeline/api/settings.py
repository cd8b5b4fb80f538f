"""Settings of the team service (`CITELINE_API_*`), separate from the library's own tree."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class ApiSettings(BaseSettings):
    """Limits and switches of `citeline serve`. Field names map to `CITELINE_API_<NAME>`."""

    model_config = SettingsConfigDict(env_prefix="CITELINE_API_", extra="ignore", populate_by_name=True)

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
