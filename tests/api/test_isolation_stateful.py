"""Three users upload, re-upload, delete, search, ask, open citations and use sessions in random
order (hypothesis RuleBasedStateMachine, in-process app); no result may ever cross users.

Every user writes documents with the same file names but its own marker words, so any leak shows
up as a foreign marker, a foreign document id or a non-404 on a foreign id.
"""

from __future__ import annotations

import itertools
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule

from citeline.api import create_app
from tests.api.conftest import bearer, make_service

USERS = ("alice", "bob", "carol")
STEPS = itertools.count()
RUNS = itertools.count()
_ROOT = Path(tempfile.mkdtemp(prefix="citeline-stateful-"))
SERVICE = make_service(_ROOT / "home", rate_per_s=100_000.0, rate_burst=100_000, max_concurrent_runs=8)
CLIENT = TestClient(create_app(service=SERVICE))
NAMES = itertools.count()


def pick(data: st.DataObject, items: list[Any]) -> Any:
    """An index draw, not `sampled_from(items)`: the lists depend on server state (search ranking
    uses corpus-wide BM25 statistics), and hypothesis wants the same draws when it replays a case."""
    return items[data.draw(st.integers(0, 1 << 16)) % len(items)]


def marker(user: str, n: int) -> str:
    return f"{user}mark{n}q"  # the closing letter: no marker is a prefix of another


class Isolation(RuleBasedStateMachine):
    @initialize()
    def setup(self) -> None:
        next(RUNS)
        round_id = next(NAMES)
        self.keys: dict[str, str] = {}
        for user in USERS:
            _, key = SERVICE.users.add(f"{user}{round_id}")
            self.keys[user] = key
        # model: user -> file name -> (document id, marker); plus every (doc, chunk) ever seen per user
        self.docs: dict[str, dict[str, tuple[str, str]]] = {u: {} for u in USERS}
        self.chunks: dict[str, set[tuple[str, str]]] = {u: set() for u in USERS}
        self.sessions: dict[str, set[str]] = {u: set() for u in USERS}
        # Marker words a user typed into its own questions: its answers may repeat them (a declined
        # answer lists the queries tried, and follow-ups reuse the session's earlier questions).
        self.typed: dict[str, set[str]] = {u: set() for u in USERS}
        self.version = itertools.count()

    def h(self, user: str) -> dict[str, str]:
        return bearer(self.keys[user])

    def own_ids(self, user: str) -> set[str]:
        return {doc_id for doc_id, _ in self.docs[user].values()}

    def foreign_markers(self, user: str) -> set[str]:
        return {mark for other in USERS if other != user for _, mark in self.docs[other].values()}

    def foreign_ids(self, user: str) -> set[str]:
        return {doc_id for other in USERS if other != user for doc_id in self.own_ids(other)}

    def all_ids(self) -> list[tuple[str, str]]:
        return sorted((u, doc_id) for u in USERS for doc_id, _ in self.docs[u].values())

    def check_passages(self, user: str, passages: list[dict[str, Any]]) -> None:
        own, foreign = self.own_ids(user), self.foreign_markers(user)
        for p in passages:
            assert p["documentId"] in own, "a passage of another user's document"
            assert not any(mark in p["text"] for mark in foreign), "another user's text"
            self.chunks[user].add((p["documentId"], p["passageId"]))

    # --- rules -------------------------------------------------------------------------
    @rule(user=st.sampled_from(USERS), slot=st.integers(0, 3))
    def upload(self, user: str, slot: int) -> None:
        next(STEPS)
        name = f"note-{slot}.md"  # the same names for every user
        mark = marker(user, next(self.version))
        text = f"# Note {slot}\n\nThe {mark} setting controls the harbor retry budget. Harbor retries {mark} jobs.\n"
        # A re-upload of a name replaces that user's document: explicitly (without it, 409).
        r = CLIENT.post("/v1/documents?replace=true", files=[("files", (name, text.encode(), "text/markdown"))],
                        headers=self.h(user))
        assert r.status_code == 201, r.text
        (doc,) = r.json()["documents"]
        assert doc["source"] == name
        self.docs[user][name] = (doc["id"], mark)

    @rule(user=st.sampled_from(USERS), data=st.data())
    def delete(self, user: str, data: st.DataObject) -> None:
        next(STEPS)
        candidates = self.all_ids()
        if not candidates:
            return
        owner, doc_id = pick(data, candidates)
        r = CLIENT.delete(f"/v1/documents/{doc_id}", headers=self.h(user))
        if owner == user:
            assert r.status_code == 204, r.text
            self.docs[user] = {n: v for n, v in self.docs[user].items() if v[0] != doc_id}
        else:
            assert r.status_code == 404 and r.json()["error"]["message"] == "document not found"

    @rule(user=st.sampled_from(USERS), target_user=st.sampled_from(USERS), n=st.integers(0, 12))
    def search(self, user: str, target_user: str, n: int) -> None:
        next(STEPS)
        query = f"{marker(target_user, n)} harbor retry budget"
        r = CLIENT.post("/v1/search", json={"query": query, "topK": 10}, headers=self.h(user))
        assert r.status_code == 200, r.text
        self.check_passages(user, r.json()["retrievedPassages"])

    @rule(user=st.sampled_from(USERS), data=st.data())
    def search_by_foreign_ids(self, user: str, data: st.DataObject) -> None:
        next(STEPS)
        candidates = self.all_ids()
        if not candidates:
            return
        ids = [pick(data, candidates) for _ in range(data.draw(st.integers(1, 3)))]
        r = CLIENT.post("/v1/search", json={"query": "harbor retries", "documentIds": [d for _, d in ids]},
                        headers=self.h(user))
        assert r.status_code == 200
        self.check_passages(user, r.json()["retrievedPassages"])

    @rule(user=st.sampled_from(USERS), target_user=st.sampled_from(USERS), n=st.integers(0, 12),
          via_session=st.booleans())
    def ask(self, user: str, target_user: str, n: int, via_session: bool) -> None:
        next(STEPS)
        body: dict[str, Any] = {"question": f"What does the {marker(target_user, n)} setting control?"}
        if via_session and self.sessions[user]:
            body["session_id"] = sorted(self.sessions[user])[0]
        r = CLIENT.post("/v1/agent/run", json=body, headers=self.h(user))
        assert r.status_code == 200, r.text
        result = r.json()
        own, foreign = self.own_ids(user), self.foreign_markers(user)
        self.typed[user].add(marker(target_user, n))
        assert not any(mark in result["answer"] for mark in foreign - self.typed[user])
        for c in result["citations"]:
            assert c["document_id"] in own and not any(mark in c["quote"] for mark in foreign)
            self.chunks[user].add((c["document_id"], c["chunk_id"]))

    @rule(user=st.sampled_from(USERS), data=st.data())
    def open_citation(self, user: str, data: st.DataObject) -> None:
        next(STEPS)
        seen = sorted((u, d, c) for u in USERS for d, c in self.chunks[u])
        if not seen:
            return
        owner, doc_id, chunk_id = pick(data, seen)
        r = CLIENT.get(f"/v1/documents/{doc_id}/chunks/{chunk_id}", headers=self.h(user))
        if owner != user:
            assert r.status_code == 404 and r.json()["error"]["message"] == "passage not found"
        elif r.status_code == 200:
            assert doc_id in self.own_ids(user)
            assert not any(mark in r.json()["text"] for mark in self.foreign_markers(user))
        else:  # deleted or replaced since it was seen
            assert r.status_code == 404

    @rule(user=st.sampled_from(USERS), data=st.data())
    def get_document(self, user: str, data: st.DataObject) -> None:
        next(STEPS)
        candidates = self.all_ids()
        if not candidates:
            return
        owner, doc_id = pick(data, candidates)
        r = CLIENT.get(f"/v1/documents/{doc_id}", headers=self.h(user))
        assert r.status_code == (200 if owner == user else 404)

    @rule(user=st.sampled_from(USERS), name=st.sampled_from(["s1", "s2", "shared"]))
    def create_session(self, user: str, name: str) -> None:
        next(STEPS)
        r = CLIENT.post("/v1/sessions", json={"sessionId": name}, headers=self.h(user))
        assert r.status_code == (409 if name in self.sessions[user] else 201), r.text
        self.sessions[user].add(name)

    @rule(user=st.sampled_from(USERS), other=st.sampled_from(USERS), name=st.sampled_from(["s1", "s2", "shared"]))
    def read_session(self, user: str, other: str, name: str) -> None:
        next(STEPS)
        r = CLIENT.get(f"/v1/sessions/{name}", headers=self.h(user))
        if name not in self.sessions[user]:
            assert r.status_code == 404  # even when `other` has a session of that name
            return
        assert r.status_code == 200
        foreign = self.foreign_markers(user)
        for message in r.json()["messageHistory"]:
            if message["role"] == "user":  # what the user typed may name anything
                continue
            assert not any(mark in message["content"] for mark in foreign - self.typed[user])
            assert all(c["document_id"] not in self.foreign_ids(user) for c in message["citations"])

    @rule(user=st.sampled_from(USERS))
    def list_documents(self, user: str) -> None:
        next(STEPS)
        listed = CLIENT.get("/v1/documents", headers=self.h(user)).json()["documents"]
        assert {d["id"] for d in listed} == self.own_ids(user)


TestIsolation = Isolation.TestCase
# 60 runs of 50 steps take minutes, more on a loaded machine: the suite's 300 s hang guard fired on
# a CI run sharing its two cores with two other jobs. A hang still fails, later.
TestIsolation = pytest.mark.timeout(900)(TestIsolation)
TestIsolation.settings = settings(max_examples=60, stateful_step_count=50, deadline=None,
                                  phases=(Phase.explicit, Phase.reuse, Phase.generate),  # no slow shrinking
                                  suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module", autouse=True)
def _cleanup() -> Any:
    yield
    CLIENT.close()
    SERVICE.shutdown()
    SERVICE.citeline.close()
    shutil.rmtree(_ROOT, ignore_errors=True)


def test_zz_report_steps(capsys: pytest.CaptureFixture[str]) -> None:
    steps, runs = next(STEPS), next(RUNS)
    with capsys.disabled():
        print(f"\nstateful isolation: {steps} randomized steps in {runs} runs, 3 users each")
    assert steps >= 1000
