"""The session store on both checkpointers (SQLite file, PostgreSQL database), and how the service
picks one: sessions follow a PostgreSQL store so that every API worker sees the same sessions."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from citeline.api.sessions import CheckpointSessionStore, SessionMessage, open_sessions, sessions_target
from citeline.errors import ConfigurationError


@pytest.fixture(params=["sqlite", "postgres"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:{tmp_path / 'sessions.sqlite3'}"
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture
def sessions(target: str, tmp_path: Path) -> Iterator[CheckpointSessionStore]:
    store = open_sessions(target, "", tmp_path)
    yield store
    store.close()


def test_create_append_get_delete_and_owner_isolation(sessions: CheckpointSessionStore) -> None:
    created = sessions.create("alice", "s1", context_window=2, metadata={"topic": "http"})
    assert created is not None and created.messages == [] and created.metadata == {"topic": "http"}
    assert sessions.create("alice", "s1") is None  # taken
    assert sessions.get("bob", "s1") is None  # another owner's id behaves as missing
    assert sessions.append("bob", "s1", [SessionMessage("user", "hi")]) is None
    assert not sessions.delete("bob", "s1")
    for n in range(3):
        sessions.append("alice", "s1", [SessionMessage("user", f"q{n}"), SessionMessage("assistant", f"a{n}")])
    state = sessions.get("alice", "s1")
    assert state is not None and [m.content for m in state.messages] == ["q0", "a0", "q1", "a1", "q2", "a2"]
    assert state.history() == [{"role": "user", "content": "q2"}, {"role": "assistant", "content": "a2"}]
    assert sessions.create("bob", "s1") is not None  # the same id is free for another owner
    assert sessions.delete("alice", "s1") and sessions.get("alice", "s1") is None
    assert sessions.get("bob", "s1") is not None


def test_two_workers_share_sessions_and_lose_no_concurrent_turn(postgres_url: str, tmp_path: Path) -> None:
    # Two stores on one database are two API workers: the advisory lock per session must keep
    # their concurrent read-then-write appends from overwriting each other's turns. The smallest
    # pool, with more threads than it has lock connections: lock holders must never starve the
    # checkpointer of the connection they wait on.
    workers = [CheckpointSessionStore.postgres(postgres_url, pool_size=2) for _ in range(2)]
    try:
        assert workers[0].create("alice", "shared") is not None
        assert workers[1].create("alice", "shared") is None  # worker B sees A's session

        def talk(worker: CheckpointSessionStore, name: str) -> None:
            for n in range(8):
                worker.append("alice", "shared", [SessionMessage("user", f"{name}{n}")])

        threads = [threading.Thread(target=talk, args=(worker, f"w{i}t{t}-"))
                   for i, worker in enumerate(workers) for t in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        state = workers[1].get("alice", "shared")
        assert state is not None
        contents = [m.content for m in state.messages]
        assert sorted(contents) == sorted(f"w{i}t{t}-{n}" for i in range(2) for t in range(2) for n in range(8))
    finally:
        for worker in workers:
            worker.close()


def test_sessions_follow_the_store(tmp_path: Path) -> None:
    pg = "postgresql://u:p@db.example:5432/citeline?pool_max_size=20&sslmode=require"
    # citeline's own URL options are dropped; libpq's stay.
    assert sessions_target("", pg, tmp_path) == "postgresql://u:p@db.example:5432/citeline?sslmode=require"
    assert sessions_target("", f"sqlite:{tmp_path / 'i.db'}", tmp_path) == f"sqlite:{tmp_path / 'sessions.sqlite3'}"
    assert sessions_target("sqlite:/x/s.db", pg, tmp_path) == "sqlite:/x/s.db"  # explicit wins
    with pytest.raises(ConfigurationError, match="CITELINE_API_SESSIONS"):
        sessions_target("redis://x", pg, tmp_path)


def test_list_and_rename_are_per_owner(sessions: CheckpointSessionStore) -> None:
    for session_id in ("a1", "a2", "a3"):
        assert sessions.create("alice", session_id) is not None
    assert sessions.create("bob", "a1") is not None  # the same id, another owner
    sessions.append("alice", "a1", [SessionMessage("user", "latest")])  # a1 becomes the most recent
    assert [s.session_id for s in sessions.list("alice")] == ["a1", "a3", "a2"]
    assert [s.session_id for s in sessions.list("bob")] == ["a1"]
    assert [m.content for m in sessions.list("alice")[0].messages] == ["latest"]
    assert sessions.list("carol") == []

    renamed = sessions.rename("alice", "a2", "Proxy questions")
    assert renamed is not None and renamed.metadata["title"] == "Proxy questions"
    assert sessions.rename("bob", "a2", "stolen") is None  # not bob's
    bobs = sessions.get("bob", "a1")
    assert bobs is not None and "title" not in bobs.metadata
    sessions.append("alice", "a2", [SessionMessage("user", "q")])  # a turn keeps the title
    state = sessions.get("alice", "a2")
    assert state is not None and state.metadata["title"] == "Proxy questions" and len(state.messages) == 1

    assert sessions.delete("alice", "a3")
    assert [s.session_id for s in sessions.list("alice")] == ["a2", "a1"]
