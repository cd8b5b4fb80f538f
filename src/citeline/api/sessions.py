"""Conversation sessions persisted by a LangGraph checkpointer.

`SessionStore` is the small interface the service uses; `CheckpointSessionStore` implements it on
any LangGraph `BaseCheckpointSaver`: `SqliteSaver` in a file under the worker's home, or
`PostgresSaver` in the shared database, so that any number of `citeline serve` workers behind a
load balancer see the same sessions (`open_sessions` picks one from the settings). Each session is
one checkpointer thread whose state holds its owner, timestamps and the message list (an
append-only channel). The thread id is a hash of (owner, session id), so two users may pick the
same session id and never see each other's threads; the owner is checked again on every read.
"""

from __future__ import annotations

import hashlib
import importlib
import re
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Protocol, TypedDict

from citeline.errors import ConfigurationError, StorageError
from citeline.index.private import private_file

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

SESSION_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
DEFAULT_CONTEXT_WINDOW = 20
# Advisory-lock class ids (the first of PostgreSQL's two 32-bit keys): "CSES" for one session's
# read-then-write, "CSET" for the checkpointer's schema setup. The two-key space never overlaps
# the one-bigint key of citeline's store migrations.
_SESSION_LOCK_CLASS = 0x43_53_45_53
_SETUP_LOCK_CLASS = 0x43_53_45_54

ThreadLock = Callable[[str], AbstractContextManager[object]]
# Checkpoint-metadata keys written with a session's first checkpoint (see `_tagged_config`).
OWNER_TAG_KEY = "citeline_owner_tag"
SESSION_ID_KEY = "citeline_session_id"


@dataclass
class SessionMessage:
    """One message of a conversation as stored: who said it, when, and (for answers) its citations and
    exit reason."""

    role: str
    content: str
    message_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    timestamp: float = field(default_factory=time.time)
    citations: list[dict[str, Any]] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class SessionState:
    """One conversation of one owner: its messages, how many of them feed the next answer, and its
    metadata."""

    session_id: str
    owner: str
    created_at: float
    last_activity: float
    messages: list[SessionMessage]
    context_window: int = DEFAULT_CONTEXT_WINDOW
    active: bool = True
    metadata: dict[str, Any] = field(default_factory=dict)
    initial_context: dict[str, Any] = field(default_factory=dict)

    def history(self) -> list[dict[str, str]]:
        """The last `context_window` user/assistant messages with content, oldest first, for `ask`."""
        usable = [m for m in self.messages if m.role in {"user", "assistant"} and m.content.strip()]
        return [{"role": m.role, "content": m.content} for m in usable[-self.context_window :]]


class SessionStore(Protocol):
    """Where conversations are kept, always per owner; one interface so SQLite and PostgreSQL
    deployments behave alike."""

    def create(self, owner: str, session_id: str | None = None, *, context_window: int = DEFAULT_CONTEXT_WINDOW,
               metadata: dict[str, Any] | None = None,
               initial_context: dict[str, Any] | None = None) -> SessionState | None:
        """A new session; None when `session_id` is already taken by this owner."""

    def get(self, owner: str, session_id: str) -> SessionState | None:
        """None for a missing session and for another owner's alike."""

    def append(self, owner: str, session_id: str, messages: list[SessionMessage], *,
               keep: int | None = None) -> SessionState | None:
        """Add messages; with `keep`, only the newest `keep` messages stay (oldest trimmed)."""

    def delete(self, owner: str, session_id: str) -> bool:
        """Delete the owner's session; False when there is none (another owner's included)."""

    def list(self, owner: str) -> list[SessionState]:
        """The owner's sessions, most recently active first (never another owner's)."""

    def rename(self, owner: str, session_id: str, title: str) -> SessionState | None:
        """Set the session's title (`metadata["title"]`); None for a missing or foreign session."""

    def close(self) -> None:
        """Release the store's connections."""


class _Thread(TypedDict, total=False):
    owner: str
    session_id: str
    created_at: float
    last_activity: float
    context_window: int
    metadata: dict[str, Any]
    initial_context: dict[str, Any]
    messages: Annotated[list[dict[str, Any]], _append_messages]


def _append_messages(stored: list[dict[str, Any]], update: Any) -> list[dict[str, Any]]:
    """The messages channel's reducer: a list appends; `{"append": [...], "keep": N}` appends and
    keeps the newest N, so a session's size is bounded however long it runs."""
    if isinstance(update, dict):
        merged = [*stored, *update.get("append", [])]
        keep = update.get("keep")
        return merged[-keep:] if isinstance(keep, int) and keep > 0 else merged
    return [*stored, *update]


def _thread_id(owner: str, session_id: str) -> str:
    return hashlib.sha256(f"{owner}\x00{session_id}".encode()).hexdigest()


def _owner_tag(owner: str) -> str:
    """The checkpoint-metadata tag that lists an owner's sessions (a digest: ids stay out of it)."""
    return hashlib.sha256(f"sessions\x00{owner}".encode()).hexdigest()[:32]


def _lock_key(thread_id: str) -> int:
    """A signed 32-bit advisory-lock key from a thread id (a collision only serialises two sessions)."""
    return int.from_bytes(bytes.fromhex(thread_id[:8]), "big", signed=True)


class CheckpointSessionStore:
    """Sessions on a LangGraph checkpointer (`SqliteSaver` or `PostgresSaver`).

    `thread_lock(thread_id)` guards each read-then-write (create checks the id is free, append
    checks the session exists): a process-wide lock by default, enough for one process; the
    Postgres store passes a PostgreSQL advisory lock so workers on other machines queue too.
    """

    def __init__(self, checkpointer: Any, *, on_close: Callable[[], object] | None = None,
                 thread_lock: ThreadLock | None = None) -> None:
        # Imported as a module object (Any to mypy): mypy's inference of StateGraph's overloads
        # leaks between modules and breaks agent/graph.py's checks when both are typed here.
        lg: Any = importlib.import_module("langgraph.graph")
        END, START = lg.END, lg.START
        builder = lg.StateGraph(_Thread)
        builder.add_node("record", lambda state: {})
        builder.add_edge(START, "record")
        builder.add_edge("record", END)
        self.checkpointer = checkpointer
        self._graph: Any = builder.compile(checkpointer=checkpointer)
        self._lock = threading.Lock()
        self._thread_lock: ThreadLock = thread_lock or self._local_lock
        self._on_close = on_close

    @contextmanager
    def _local_lock(self, _thread_id: str) -> Iterator[None]:
        with self._lock:
            yield

    @classmethod
    def sqlite(cls, path: Path) -> CheckpointSessionStore:
        """Sessions in a private SQLite file (WAL, so several readers and one writer share it)."""
        from langgraph.checkpoint.sqlite import SqliteSaver

        path.parent.mkdir(parents=True, exist_ok=True)
        private_file(path)
        conn = sqlite3.connect(str(path), check_same_thread=False, timeout=60.0)
        conn.execute("PRAGMA journal_mode=WAL")
        saver = SqliteSaver(conn)
        saver.setup()
        return cls(saver, on_close=conn.close)

    @classmethod
    def postgres(cls, conninfo: str, *, pool_size: int = 4) -> CheckpointSessionStore:
        """Sessions in a PostgreSQL database (LangGraph's `PostgresSaver` on a psycopg pool).

        The pool holds at most `pool_size` connections: the saver uses one at a time (it
        serialises its own calls) and each create/append in flight holds one more for its
        advisory lock.
        """
        try:
            from langgraph.checkpoint.postgres import PostgresSaver
            from psycopg.rows import dict_row
            from psycopg_pool import ConnectionPool
        except ImportError as exc:
            raise ConfigurationError(
                f"sessions on PostgreSQL need `{exc.name}`", hint="install citeline[postgres]"
            ) from exc
        if pool_size < 2:
            raise ConfigurationError("the sessions pool needs at least 2 connections",
                                     hint="set CITELINE_API_SESSIONS_POOL_SIZE to 2 or more")
        # The settings PostgresSaver documents for its connections: autocommit (its setup runs
        # CREATE INDEX CONCURRENTLY), dict rows, and no prepared statements (poolers like PgBouncer).
        pool: ConnectionPool[Any] = ConnectionPool(
            conninfo, min_size=1, max_size=pool_size, name="citeline-sessions", open=False,
            kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
            check=ConnectionPool.check_connection,
        )
        try:
            pool.open(wait=True, timeout=30.0)
            saver = PostgresSaver(pool)
            # setup() is not safe to run from two workers booting at once (both would record the
            # same migration): one at a time, under an advisory lock held on its own connection.
            # A session-level lock taken by polling, never a blocking wait: CREATE INDEX
            # CONCURRENTLY in setup() waits for every statement running with an older snapshot,
            # so another worker blocked in pg_advisory_lock() would deadlock with it.
            with pool.connection() as conn:
                while not conn.execute("SELECT pg_try_advisory_lock(%s, 0) AS ok",
                                       (_SETUP_LOCK_CLASS,)).fetchone()["ok"]:
                    time.sleep(0.1)
                try:
                    saver.setup()
                finally:
                    conn.execute("SELECT pg_advisory_unlock(%s, 0)", (_SETUP_LOCK_CLASS,))
        except Exception as exc:
            pool.close()
            from citeline.index.pg_migrations import redact

            raise ConfigurationError(
                f"cannot open the sessions database at {redact(conninfo)}: {exc.__class__.__name__}: "
                f"{str(exc).strip()[:300]}",
                hint="check CITELINE_STORE (or CITELINE_API_SESSIONS) and that the server is reachable",
            ) from exc
        return cls(saver, on_close=pool.close, thread_lock=_advisory_lock(pool, pool_size - 1))

    @staticmethod
    def _config(owner: str, session_id: str) -> dict[str, Any]:
        return {"configurable": {"thread_id": _thread_id(owner, session_id)}}

    @classmethod
    def _tagged_config(cls, owner: str, session_id: str) -> dict[str, Any]:
        """The config of a session's first write: its checkpoints carry the owner's tag and the
        session id in their metadata, which is how `list` finds them without reading every thread."""
        return {**cls._config(owner, session_id),
                "metadata": {OWNER_TAG_KEY: _owner_tag(owner), SESSION_ID_KEY: session_id}}

    def _read(self, owner: str, session_id: str) -> SessionState | None:
        values = self._graph.get_state(self._config(owner, session_id)).values
        if not values or values.get("owner") != owner or values.get("session_id") != session_id:
            return None
        return SessionState(
            session_id=session_id, owner=owner, created_at=float(values["created_at"]),
            last_activity=float(values.get("last_activity", values["created_at"])),
            messages=[SessionMessage(**m) for m in values.get("messages", [])],
            context_window=int(values.get("context_window", DEFAULT_CONTEXT_WINDOW)),
            metadata=dict(values.get("metadata", {})), initial_context=dict(values.get("initial_context", {})),
        )

    def create(self, owner: str, session_id: str | None = None, *, context_window: int = DEFAULT_CONTEXT_WINDOW,
               metadata: dict[str, Any] | None = None,
               initial_context: dict[str, Any] | None = None) -> SessionState | None:
        """A new session; None when `session_id` is already taken by this owner."""
        session_id = session_id or uuid.uuid4().hex
        now = time.time()
        with self._thread_lock(_thread_id(owner, session_id)):
            if self._read(owner, session_id) is not None:
                return None
            with _storage_errors():
                self._graph.invoke(
                    {"owner": owner, "session_id": session_id, "created_at": now, "last_activity": now,
                     "context_window": context_window, "metadata": metadata or {},
                     "initial_context": initial_context or {}, "messages": []},
                    self._tagged_config(owner, session_id),
                )
                self._prune(_thread_id(owner, session_id))
            return self._read(owner, session_id)

    def get(self, owner: str, session_id: str) -> SessionState | None:
        """The owner's session, or None for a missing session and another owner's alike."""
        return self._read(owner, session_id)

    def append(self, owner: str, session_id: str, messages: list[SessionMessage], *,
               keep: int | None = None) -> SessionState | None:
        """Add messages; with `keep`, only the newest `keep` messages stay (oldest trimmed). Older
        checkpoints of the session are pruned, so storage holds one copy of it, not one per turn."""
        thread_id = _thread_id(owner, session_id)
        with self._thread_lock(thread_id):
            if self._read(owner, session_id) is None:
                return None
            with _storage_errors():
                self._graph.invoke(
                    {"last_activity": time.time(),
                     "messages": {"append": [vars(m) for m in messages], "keep": keep}},
                    # every write is tagged: pruning keeps only the newest checkpoint, which is
                    # the one `list` must find
                    self._tagged_config(owner, session_id),
                )
                self._prune(thread_id)
            return self._read(owner, session_id)

    def _prune(self, thread_id: str) -> None:
        """Keep only the newest checkpoint of a thread (the state a read loads)."""
        try:
            self.checkpointer.prune([thread_id], strategy="keep_latest")
        except NotImplementedError:  # SqliteSaver has no prune: the same, in its own tables
            with self.checkpointer.cursor() as cur:
                cur.execute(
                    "DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id <> (SELECT MAX(checkpoint_id)"
                    " FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '')", (thread_id, thread_id))
                cur.execute(
                    "DELETE FROM writes WHERE thread_id = ? AND checkpoint_id NOT IN"
                    " (SELECT checkpoint_id FROM checkpoints WHERE thread_id = ?)", (thread_id, thread_id))

    def delete(self, owner: str, session_id: str) -> bool:
        """Delete the owner's session and all its checkpoints; False when there is none."""
        with self._thread_lock(_thread_id(owner, session_id)):
            if self._read(owner, session_id) is None:
                return False
            self.checkpointer.delete_thread(_thread_id(owner, session_id))
            return True

    def list(self, owner: str) -> list[SessionState]:
        """The owner's sessions, most recently active first."""
        # Sessions created before they were tagged are not listed (they still open by id).
        session_ids: dict[str, None] = {}
        for checkpoint in self.checkpointer.list(None, filter={OWNER_TAG_KEY: _owner_tag(owner)}):
            session_id = checkpoint.metadata.get(SESSION_ID_KEY)
            if isinstance(session_id, str) and SESSION_ID.match(session_id):
                session_ids[session_id] = None
        states = [state for sid in session_ids if (state := self._read(owner, sid)) is not None]
        return sorted(states, key=lambda state: state.last_activity, reverse=True)

    def rename(self, owner: str, session_id: str, title: str) -> SessionState | None:
        """Give the owner's session a title (kept in its metadata); None when there is no such
        session."""
        with self._thread_lock(_thread_id(owner, session_id)):
            state = self._read(owner, session_id)
            if state is None:
                return None
            # `metadata` is a last-value channel: write the whole dict back with the new title.
            self._graph.invoke({"metadata": {**state.metadata, "title": title}}, self._tagged_config(owner, session_id))
            return self._read(owner, session_id)

    def close(self) -> None:
        """Close the connection the store opened, if it opened one."""
        if self._on_close is not None:
            self._on_close()


@contextmanager
def _storage_errors() -> Iterator[None]:
    """A session write the disk refused becomes the clear StorageError (the write is rolled back)."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        message = str(exc).lower()
        if "disk is full" in message or "disk i/o error" in message:
            raise StorageError(f"cannot write the sessions database: {exc}; nothing was half-written",
                               hint="free disk space and try again") from None
        raise


def _advisory_lock(pool: ConnectionPool[Any], holders: int) -> ThreadLock:
    """Per-thread locks shared by every process on the database: a transaction-level advisory
    lock on a pooled connection, released by the commit (or by the server if the worker dies).

    At most `holders` (the pool size less one) are held at once: a holder needs the saver's
    connection to finish, so holders taking the whole pool would wait on each other forever.
    """
    slots = threading.BoundedSemaphore(holders)

    @contextmanager
    def lock(thread_id: str) -> Iterator[None]:
        with slots, pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (_SESSION_LOCK_CLASS, _lock_key(thread_id)))
            yield

    return lock


def sessions_target(sessions: str, store_url: str, home: Path) -> str:
    """Where sessions live: `sessions` when set, else the PostgreSQL store's database, else a
    SQLite file in `home`. Returned as `sqlite:PATH` or a libpq `postgresql://` URL."""
    if sessions:
        target = sessions
    elif store_url.startswith(("postgresql://", "postgres://")):
        from citeline.index.postgres import PostgresOptions

        return PostgresOptions.from_url(store_url).conninfo  # without citeline's own URL options
    else:
        return f"sqlite:{home / 'sessions.sqlite3'}"
    if target.startswith(("postgresql://", "postgres://")):
        return target
    if target.startswith("sqlite:") and len(target) > len("sqlite:"):
        return target
    raise ConfigurationError(
        f"unsupported sessions URL `{target[:80]}`",
        hint="set CITELINE_API_SESSIONS to `sqlite:PATH`, `postgresql://...`, or leave it empty to follow "
        "CITELINE_STORE",
    )


def open_sessions(sessions: str, store_url: str, home: Path, *, pool_size: int = 4) -> CheckpointSessionStore:
    """The session store the settings ask for (see `sessions_target`)."""
    target = sessions_target(sessions, store_url, home)
    if target.startswith("sqlite:"):
        return CheckpointSessionStore.sqlite(Path(target.removeprefix("sqlite:")).expanduser())
    return CheckpointSessionStore.postgres(target, pool_size=pool_size)
