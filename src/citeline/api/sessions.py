"""Conversation sessions persisted by a LangGraph checkpointer.

`SessionStore` is the small interface the service uses; `CheckpointSessionStore` implements it on
any LangGraph `BaseCheckpointSaver` (the SQLite saver by default, a Postgres saver can be passed
instead). Each session is one checkpointer thread whose state holds its owner, timestamps and the
message list (an append-only channel). The thread id is a hash of (owner, session id), so two
users may pick the same session id and never see each other's threads; the owner is checked
again on every read.
"""

from __future__ import annotations

import hashlib
import importlib
import operator
import re
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Protocol, TypedDict

SESSION_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
DEFAULT_CONTEXT_WINDOW = 20


@dataclass
class SessionMessage:
    role: str
    content: str
    message_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    timestamp: float = field(default_factory=time.time)
    citations: list[dict[str, Any]] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class SessionState:
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
    def create(self, owner: str, session_id: str | None = None, *, context_window: int = DEFAULT_CONTEXT_WINDOW,
               metadata: dict[str, Any] | None = None,
               initial_context: dict[str, Any] | None = None) -> SessionState | None:
        """A new session; None when `session_id` is already taken by this owner."""

    def get(self, owner: str, session_id: str) -> SessionState | None:
        """None for a missing session and for another owner's alike."""

    def append(self, owner: str, session_id: str, messages: list[SessionMessage]) -> SessionState | None: ...

    def delete(self, owner: str, session_id: str) -> bool: ...

    def close(self) -> None: ...


class _Thread(TypedDict, total=False):
    owner: str
    session_id: str
    created_at: float
    last_activity: float
    context_window: int
    metadata: dict[str, Any]
    initial_context: dict[str, Any]
    messages: Annotated[list[dict[str, Any]], operator.add]


def _thread_id(owner: str, session_id: str) -> str:
    return hashlib.sha256(f"{owner}\x00{session_id}".encode()).hexdigest()


class CheckpointSessionStore:
    """Sessions on a LangGraph checkpointer (`SqliteSaver`, or e.g. `PostgresSaver`)."""

    def __init__(self, checkpointer: Any, *, on_close: Any = None) -> None:
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
        self._lock = threading.Lock()  # one writer at a time: appends read then write a thread
        self._on_close = on_close

    @classmethod
    def sqlite(cls, path: Path) -> CheckpointSessionStore:
        from langgraph.checkpoint.sqlite import SqliteSaver

        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), check_same_thread=False, timeout=60.0)
        conn.execute("PRAGMA journal_mode=WAL")
        saver = SqliteSaver(conn)
        saver.setup()
        return cls(saver, on_close=conn.close)

    @staticmethod
    def _config(owner: str, session_id: str) -> dict[str, Any]:
        return {"configurable": {"thread_id": _thread_id(owner, session_id)}}

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
        session_id = session_id or uuid.uuid4().hex
        now = time.time()
        with self._lock:
            if self._read(owner, session_id) is not None:
                return None
            self._graph.invoke(
                {"owner": owner, "session_id": session_id, "created_at": now, "last_activity": now,
                 "context_window": context_window, "metadata": metadata or {},
                 "initial_context": initial_context or {}, "messages": []},
                self._config(owner, session_id),
            )
            return self._read(owner, session_id)

    def get(self, owner: str, session_id: str) -> SessionState | None:
        return self._read(owner, session_id)

    def append(self, owner: str, session_id: str, messages: list[SessionMessage]) -> SessionState | None:
        with self._lock:
            if self._read(owner, session_id) is None:
                return None
            self._graph.invoke(
                {"last_activity": time.time(), "messages": [vars(m) for m in messages]},
                self._config(owner, session_id),
            )
            return self._read(owner, session_id)

    def delete(self, owner: str, session_id: str) -> bool:
        with self._lock:
            if self._read(owner, session_id) is None:
                return False
            self.checkpointer.delete_thread(_thread_id(owner, session_id))
            return True

    def close(self) -> None:
        if self._on_close is not None:
            self._on_close()
