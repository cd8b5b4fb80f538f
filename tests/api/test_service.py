"""The service in process: errors, limits, uploads, sessions, isolation, health and metrics."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from citeline.api import create_app
from citeline.api.service import Service, sanitize_filename
from tests.api.conftest import bearer, make_service
from tests.conftest import DOCS, write_script

ERROR_KEYS = {"type", "message", "details", "timestamp", "query_id", "step"}


def upload(client: TestClient, key: str, docs: dict[str, str] = DOCS, *, replace: bool = False) -> dict[str, Any]:
    files = [("files", (name, text.encode(), "text/plain")) for name, text in docs.items()]
    response = client.post("/v1/documents" + ("?replace=true" if replace else ""), files=files, headers=bearer(key))
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def assert_error(response: Any, status: int, type_: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    assert set(error) == ERROR_KEYS and error["type"] == type_
    assert error["query_id"] == response.headers["x-query-id"]
    for leak in ("Traceback", "/tmp", "/work", "SELECT", "sqlite"):
        assert leak not in response.text
    return error


@pytest.mark.parametrize("name, expected", [
    ("../../etc/passwd.md", "passwd.md"), ("/abs/path/x.txt", "x.txt"), ("a\x00b.md", "ab.md"),
    ("..\\..\\win.md", "win.md"), ("..", "upload"), ("", "upload"), ("  .hidden.md", "hidden.md"),
    ("ünï cødé?.md", "ünï cødé_.md"), ("a/b\x01c.md", "b_c.md"),
])
def test_sanitize_filename(name: str, expected: str) -> None:
    assert sanitize_filename(name) == expected


def test_uploads_stay_in_the_owners_folder(client: TestClient, service: Service, home: Path) -> None:
    _, key = service.users.add("alice")
    files = [("files", (name, b"# Title\n\nThe harbor retries a failed job three times.\n", "text/plain"))
             for name in ("../../escape.md", "/etc/abs.md", "nul\x00byte.md")]
    body = upload_raw = client.post("/v1/documents", files=files, headers=bearer(key))
    assert upload_raw.status_code == 201, body.text
    user = service.users.get("alice")
    assert user is not None
    folder = home.resolve() / "uploads" / user.id
    # Staged only while indexed: no worker keeps a file another worker would need.
    assert list(folder.iterdir()) == []
    assert not (home / "escape.md").exists() and not Path("/etc/abs.md").exists()
    sources = {d["source"] for d in upload_raw.json()["documents"]}
    assert sources == {"abs.md", "escape.md", "nul_00byte.md"}  # never a server path; httpx sends NUL as %00
    stored = {r.source for r in service.citeline.documents(user.id)}
    assert stored == {"upload:abs.md", "upload:escape.md", "upload:nul_00byte.md"}  # no worker's path either


def test_reupload_replaces_a_document_uploaded_under_the_old_path_source(
        client: TestClient, service: Service) -> None:
    _, key = service.users.add("alice")
    user = service.users.get("alice")
    assert user is not None
    # As uploads were indexed before they were named `upload:NAME`: the staged path as source.
    legacy = service.uploads_dir(user.id) / "notes.txt"
    legacy.parent.mkdir(parents=True)
    legacy.write_text("Release notes. Version 1 had no connection pooling.\n", encoding="utf-8")
    assert service.citeline.ingest([legacy], owner=user.id).ingested == 1
    upload(client, key, {"notes.txt": DOCS["notes.txt"]}, replace=True)
    assert [r.source for r in service.citeline.documents(user.id)] == ["upload:notes.txt"]
    assert not legacy.exists()


def test_upload_rejections(client: TestClient, service: Service) -> None:
    _, key = service.users.add("alice")
    bad = client.post("/v1/documents", files=[("files", ("x.exe", b"MZ", "application/octet-stream"))],
                      headers=bearer(key))
    error = assert_error(bad, 422, "validation_error")
    assert error["details"]["failed"][0] == {"filename": "x.exe", "error": "unsupported file type `.exe`"}
    empty = client.post("/v1/documents", files=[("files", ("e.md", b"   ", "text/plain"))], headers=bearer(key))
    assert "empty" in assert_error(empty, 422, "validation_error")["details"]["failed"][0]["error"]


def test_errors_have_the_seed_format(client: TestClient, service: Service) -> None:
    _, key = service.users.add("alice")
    assert_error(client.post("/v1/search", json={"query": "x"}), 401, "api_error")
    assert_error(client.post("/v1/search", json={"query": "x"}, headers=bearer("cl_nope")), 401, "api_error")
    assert_error(client.get("/v1/nowhere", headers=bearer(key)), 404, "api_error")
    error = assert_error(client.post("/v1/search", json={"topK": 3}, headers=bearer(key)), 422, "validation_error")
    assert error["step"] == "validation" and "query" in error["message"]
    long_q = assert_error(client.post("/v1/agent/run", json={"question": "y" * 1001}, headers=bearer(key)), 422,
                          "validation_error")
    assert long_q["message"] == "the question is 1001 characters long; the limit is 1000"
    assert_error(client.post("/v1/agent/run", json={"question": "   "}, headers=bearer(key)), 422,
                 "validation_error")
    assert_error(client.post("/v1/agent/run", json={"question": "q", "model": "scripted:/etc/passwd"},
                             headers=bearer(key)), 422, "validation_error")
    assert_error(client.post("/v1/search", content=b"{not json", headers={**bearer(key),
                             "content-type": "application/json"}), 422, "validation_error")
    custom = client.get("/healthz", headers={"X-Query-Id": "my-request-0001"})
    assert custom.headers["x-query-id"] == "my-request-0001"


def test_store_failure_is_a_clean_503(client: TestClient, service: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    _, key = service.users.add("alice")
    upload(client, key)

    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("database disk image is malformed: SELECT * FROM chunks at /srv/secret.db")

    monkeypatch.setattr(service.citeline.store, "search", broken)
    error = assert_error(client.post("/v1/search", json={"query": "timeout"}, headers=bearer(key)), 503,
                         "retrieval_error")
    assert error["step"] == "retrieval"
    monkeypatch.setattr(service.citeline.store, "list_documents", broken)
    assert_error(client.get("/v1/documents", headers=bearer(key)), 500, "api_error")


def test_body_size_limit(home: Path) -> None:
    service = make_service(home, max_body_bytes=4096)
    _, key = service.users.add("alice")
    with TestClient(create_app(service=service)) as client:
        big = client.post("/v1/agent/run", content=b'{"question": "' + b"a" * 5000 + b'"}',
                          headers={**bearer(key), "content-type": "application/json"})
        error = assert_error(big, 413, "validation_error")
        assert "4096-byte limit" in error["message"]

        def chunked() -> Any:
            yield b'{"question": "'
            for _ in range(10):
                yield b"a" * 1000
            yield b'"}'

        streamed = client.post("/v1/agent/run", content=chunked(),
                               headers={**bearer(key), "content-type": "application/json"})
        assert_error(streamed, 413, "validation_error")
    service.citeline.close()


def test_rate_limit_has_retry_after(home: Path) -> None:
    service = make_service(home, rate_per_s=0.5, rate_burst=3)
    _, alice = service.users.add("alice")
    _, bob = service.users.add("bob")
    with TestClient(create_app(service=service)) as client:
        codes = [client.get("/v1/documents", headers=bearer(alice)).status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        limited = client.get("/v1/documents", headers=bearer(alice))
        error = assert_error(limited, 429, "api_error")
        assert "rate limit" in error["message"] and int(limited.headers["retry-after"]) >= 1
        assert client.get("/v1/documents", headers=bearer(bob)).status_code == 200  # per user
    service.citeline.close()


def test_concurrent_runs_per_user(home: Path, tmp_path: Path) -> None:
    service = make_service(home, max_concurrent_runs=1)
    slow = write_script(tmp_path / "slow.jsonl", {"type": "sleep", "seconds": 1.0},
                        {"type": "tool_call", "tool": "search_docs", "input": {"query": "timeout"}})
    service.api.models = f"scripted:{slow}"
    _, alice = service.users.add("alice")
    _, bob = service.users.add("bob")
    with TestClient(create_app(service=service)) as client:
        results: list[int] = []
        first = threading.Thread(target=lambda: results.append(client.post(
            "/v1/agent/run", json={"question": "timeout?", "model": f"scripted:{slow}"},
            headers=bearer(alice)).status_code))
        first.start()
        # A bounded poll (5 s) until the first run holds its slot; the script's 1 s "generation"
        # only keeps it held while the second request is refused.
        deadline = time.monotonic() + 5
        while service.slots.in_flight("u") == 0 and service.active_runs() == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        second = client.post("/v1/agent/run", json={"question": "timeout?"}, headers=bearer(alice))
        error = assert_error(second, 429, "api_error")
        assert "at most 1 per user" in error["message"] and second.headers["retry-after"] == "1"
        assert client.post("/v1/agent/run", json={"question": "timeout?"}, headers=bearer(bob)).status_code == 200
        first.join()
        assert results == [200]
        assert service.active_runs() == 0 and service.slots.in_flight() == 0
    service.citeline.close()


def test_sessions_record_turns_and_feed_history(client: TestClient, service: Service,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    _, key = service.users.add("alice")
    upload(client, key)
    created = client.post("/v1/sessions", json={"sessionId": "chat-1", "metadata": {"topic": "http"}},
                          headers=bearer(key))
    assert created.status_code == 201 and created.json()["sessionId"] == "chat-1"
    assert created.json()["messageHistory"] == [] and created.json()["active"] is True
    assert_error(client.post("/v1/sessions", json={"sessionId": "chat-1"}, headers=bearer(key)), 409, "api_error")
    seen: list[list[dict[str, str]]] = []
    original = service.citeline.ask

    def spy(question: str, **kwargs: Any) -> Any:
        seen.append(list(kwargs.get("history") or []))
        return original(question, **kwargs)

    monkeypatch.setattr(service.citeline, "ask", spy)
    first = client.post("/v1/agent/run", json={"question": "What is the default timeout?", "session_id": "chat-1"},
                        headers=bearer(key))
    assert first.status_code == 200 and first.json()["exit_reason"] == "COMPLETED"
    second = client.post("/v1/agent/run", json={"question": "How do I disable it?", "session_id": "chat-1"},
                         headers=bearer(key))
    assert second.status_code == 200
    assert seen[0] == [] and [m["role"] for m in seen[1]] == ["user", "assistant"]
    assert seen[1][0]["content"] == "What is the default timeout?"
    state = client.get("/v1/sessions/chat-1", headers=bearer(key)).json()
    messages = state["messageHistory"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert messages[1]["citations"] and messages[1]["citations"][0]["source"] == "timeouts.md"
    assert messages[1]["timestamp"].endswith("Z") and state["lastActivity"] >= state["createdAt"]
    assert messages[1]["metadata"]["query_id"] == first.json()["query_id"]
    assert client.delete("/v1/sessions/chat-1", headers=bearer(key)).status_code == 204
    assert_error(client.get("/v1/sessions/chat-1", headers=bearer(key)), 404, "api_error")


def test_sessions_survive_a_restart(home: Path) -> None:
    service = make_service(home)
    _, key = service.users.add("alice")
    with TestClient(create_app(service=service)) as client:
        client.post("/v1/sessions", json={"sessionId": "keep"}, headers=bearer(key))
        client.post("/v1/agent/run", json={"question": "anything?", "session_id": "keep"}, headers=bearer(key))
    service.citeline.close()
    again = make_service(home)
    with TestClient(create_app(service=again)) as client:
        state = client.get("/v1/sessions/keep", headers=bearer(key)).json()
        assert len(state["messageHistory"]) == 2
    again.citeline.close()


def test_foreign_ids_look_missing(client: TestClient, service: Service) -> None:
    _, alice = service.users.add("alice")
    _, bob = service.users.add("bob")
    docs = upload(client, alice)["documents"]
    doc = docs[0]["id"]
    hits = client.post("/v1/search", json={"query": "timeout proxy release"}, headers=bearer(alice)).json()
    chunk = hits["retrievedPassages"][0]["passageId"]
    chunk_doc = hits["retrievedPassages"][0]["documentId"]
    assert client.get(f"/v1/documents/{chunk_doc}/chunks/{chunk}", headers=bearer(alice)).status_code == 200
    client.post("/v1/sessions", json={"sessionId": "s1"}, headers=bearer(alice))

    def same_404(path: str, method: str = "GET") -> None:
        foreign = client.request(method, path, headers=bearer(bob))
        missing = client.request(method, path.replace(doc, "d_missing").replace(chunk, "c_missing")
                                 .replace("s1", "s_missing"), headers=bearer(bob))
        for response in (foreign, missing):
            assert response.status_code == 404
        strip = ("timestamp", "query_id")
        assert ({k: v for k, v in foreign.json()["error"].items() if k not in strip}
                == {k: v for k, v in missing.json()["error"].items() if k not in strip})

    same_404(f"/v1/documents/{doc}")
    same_404(f"/v1/documents/{chunk_doc}/chunks/{chunk}")
    same_404("/v1/sessions/s1")
    same_404(f"/v1/documents/{doc}", "DELETE")
    same_404("/v1/sessions/s1", "DELETE")
    assert client.get("/v1/documents", headers=bearer(bob)).json() == {"documents": []}
    assert client.post("/v1/search", json={"query": "timeout", "documentIds": [doc]},
                       headers=bearer(bob)).json()["retrievedPassages"] == []
    run = client.post("/v1/agent/run", json={"question": "What is the default timeout?"}, headers=bearer(bob))
    assert run.json()["exit_reason"] == "INSUFFICIENT_CONTEXT" and run.json()["citations"] == []
    # The same session id is free for another user and never collides.
    assert client.post("/v1/sessions", json={"sessionId": "s1"}, headers=bearer(bob)).status_code == 201
    assert client.get("/v1/documents", headers=bearer(alice)).json()["documents"]


def test_no_auth_is_one_local_user(home: Path) -> None:
    service = make_service(home, auth=False)
    with TestClient(create_app(service=service)) as client:
        upload(client, "ignored")
        docs = client.get("/v1/documents").json()["documents"]
        assert len(docs) == 3 and all(d["source"] in DOCS for d in docs)
        assert service.citeline.documents("local")
    service.citeline.close()


def test_health_ready_metrics(client: TestClient, service: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    assert client.get("/healthz").json() == {"status": "ok", "checks": {}}
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json()["checks"] == {"store": "ok", "index_writable": "ok", "embedder": "ok",
                                                            "model": "ok"}
    _, key = service.users.add("alice")
    upload(client, key)
    for _ in range(2):
        client.post("/v1/agent/run", json={"question": "What is the default timeout?"}, headers=bearer(key))
    text = client.get("/metrics").text
    assert 'citeline_http_requests_total{method="POST",route="/v1/agent/run",status="200"} 2.0' in text
    assert 'citeline_agent_runs_total{exit_reason="COMPLETED"} 2.0' in text
    assert 'citeline_cache_hits_total{cache="answer"} 1.0' in text
    assert "citeline_http_request_duration_seconds_bucket" in text and 'citeline_tokens_total{kind="prompt"}' in text

    def down() -> int:
        raise OSError("disk gone at /var/lib/x")

    monkeypatch.setattr(service.citeline.store, "corpus_version", down)
    not_ready = client.get("/readyz")
    error = assert_error(not_ready, 503, "api_error")
    assert error["details"]["checks"]["store"] == "unavailable (OSError)"


def test_run_returns_the_agent_result(client: TestClient, service: Service) -> None:
    _, key = service.users.add("alice")
    upload(client, key)
    plain = client.post("/v1/agent/run", json={"question": "How do I disable timeouts?"}, headers=bearer(key))
    body = plain.json()
    assert body["query_id"] == plain.headers["x-query-id"] and body["trace"] == []
    assert {"answer", "exit_reason", "retryable", "citations", "insufficiencies", "steps", "strategy", "usage",
            "timings", "model", "cached"} <= set(body)
    traced = client.post("/v1/agent/run", json={"question": "How do I disable timeouts now?", "return_trace": True},
                         headers=bearer(key))
    assert traced.json()["trace"]
    opened = body["citations"][0]
    passage = client.get(f"/v1/documents/{opened['document_id']}/chunks/{opened['chunk_id']}", headers=bearer(key))
    assert opened["quote"] in passage.json()["text"]


def test_delete_document_removes_upload(client: TestClient, service: Service, home: Path) -> None:
    _, key = service.users.add("alice")
    docs = upload(client, key)["documents"]
    target = next(d for d in docs if d["source"] == "notes.txt")
    assert client.delete(f"/v1/documents/{target['id']}", headers=bearer(key)).status_code == 204
    assert client.get(f"/v1/documents/{target['id']}", headers=bearer(key)).status_code == 404
    user = service.users.get("alice")
    assert user is not None and not (home.resolve() / "uploads" / user.id / "notes.txt").exists()


def test_stream_heartbeat_and_final_last(home: Path, tmp_path: Path) -> None:
    service = make_service(home, heartbeat_s=0.2)
    slow = write_script(tmp_path / "slow.jsonl", {"type": "sleep", "seconds": 0.7},
                        {"type": "tool_call", "tool": "search_docs", "input": {"query": "timeout"}},
                        {"type": "final", "answer": "Requests time out after 5 seconds of network inactivity "
                                                    "by default [1]."})
    service.api.models = f"scripted:{slow}"
    _, key = service.users.add("alice")
    with TestClient(create_app(service=service)) as client:
        upload(client, key)
        r = client.post("/v1/agent/stream", json={"question": "Default timeout?", "model": f"scripted:{slow}"},
                        headers=bearer(key))
        assert r.status_code == 200
        lines = r.text.splitlines()
        assert any(line.startswith(": ping") for line in lines), "no heartbeat comment"
        events = [line[7:] for line in lines if line.startswith("event: ")]
        assert events[0] == "run_start" and events[-1] == "final" and events.count("final") == 1
    service.citeline.close()


def test_logs_carry_the_query_id(client: TestClient, service: Service, caplog: pytest.LogCaptureFixture) -> None:
    _, key = service.users.add("alice")
    with caplog.at_level("INFO", logger="citeline.api"):
        r = client.post("/v1/agent/run", json={"question": "What is the default timeout?"}, headers=bearer(key))
    query_id = r.headers["x-query-id"]
    mine = [rec for rec in caplog.records if getattr(rec, "query_id", None) == query_id]
    assert any("run ended" in rec.getMessage() for rec in mine)
    assert any("/v1/agent/run 200" in rec.getMessage() for rec in mine)


def test_session_metadata_must_be_storable(client: TestClient, service: Service) -> None:
    _, key = service.users.add("alice")
    huge = client.post("/v1/sessions", json={"metadata": {"n": [2**95]}}, headers=bearer(key))
    assert "64 bits" in assert_error(huge, 422, "validation_error")["message"]
    fine = client.post("/v1/sessions", json={"metadata": {"n": [2**62, 1.5, "x", {"ok": True}]}}, headers=bearer(key))
    assert fine.status_code == 201 and fine.json()["metadata"] == {"n": [2**62, 1.5, "x", {"ok": True}]}
