"""The endpoints beside the core API: listing and renaming sessions, and a document's original
file (only where the service still has it unchanged, only for its owner)."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from citeline.api.service import Service
from tests.api.conftest import bearer


def test_sessions_are_listed_titled_renamed_per_user(client: TestClient, service: Service) -> None:
    _, alice = service.users.add("alice")
    _, bob = service.users.add("bob")
    first = client.post("/v1/sessions", headers=bearer(alice), json={}).json()["sessionId"]
    second = client.post("/v1/sessions", headers=bearer(alice), json={}).json()["sessionId"]
    client.post("/v1/sessions", headers=bearer(bob), json={})
    listed = client.get("/v1/sessions", headers=bearer(alice)).json()["sessions"]
    assert {s["sessionId"] for s in listed} == {first, second}
    assert all(s["title"] == "New conversation" and s["messageCount"] == 0 for s in listed)

    renamed = client.patch(f"/v1/sessions/{first}", headers=bearer(alice), json={"title": "  HTTP   timeouts "})
    assert renamed.status_code == 200 and renamed.json()["title"] == "HTTP timeouts"
    titles = {s["sessionId"]: s["title"] for s in client.get("/v1/sessions", headers=bearer(alice)).json()["sessions"]}
    assert titles[first] == "HTTP timeouts"

    foreign = client.patch(f"/v1/sessions/{first}", headers=bearer(bob), json={"title": "mine now"})
    assert foreign.status_code == 404 and foreign.json()["error"]["message"] == "session not found"
    blank = client.patch(f"/v1/sessions/{first}", headers=bearer(alice), json={"title": " \t "})
    assert blank.status_code == 422 and "blank" in blank.json()["error"]["message"]
    assert client.patch(f"/v1/sessions/{first}", headers=bearer(alice), json={"title": "x" * 201}).status_code == 422
    assert client.get("/v1/sessions").status_code == 401
    assert len(client.get("/v1/sessions", headers=bearer(bob)).json()["sessions"]) == 1


def test_a_session_is_titled_by_its_first_question(client: TestClient, service: Service, tmp_path: Path) -> None:
    _, key = service.users.add("alice")
    (tmp_path / "t.md").write_text("# Timeouts\n\nRequests time out after 5 seconds by default.\n")
    with (tmp_path / "t.md").open("rb") as handle:
        assert client.post("/v1/documents", headers=bearer(key), files={"files": ("t.md", handle)}).status_code == 201
    session = client.post("/v1/sessions", headers=bearer(key), json={}).json()["sessionId"]
    question = "What is the default timeout of a request, in seconds, when nothing was configured at all?"
    assert client.post("/v1/agent/run", headers=bearer(key),
                       json={"question": question, "session_id": session}).status_code == 200
    [listed] = client.get("/v1/sessions", headers=bearer(key)).json()["sessions"]
    assert listed["messageCount"] == 2
    assert listed["title"] == question[:79] + "…"


def test_the_original_file_of_a_document(client: TestClient, service: Service, tmp_path: Path) -> None:
    alice, alice_key = service.users.add("alice")
    _, bob_key = service.users.add("bob")
    folder = tmp_path / "server-docs"
    folder.mkdir()
    guide = folder / "guide.html"
    guide.write_text("<h1>Guide</h1><p>Backups run nightly at 02:00.</p><script>alert(1)</script>")
    assert service.citeline.ingest([folder], owner=alice.id).ok
    [record] = service.citeline.documents(alice.id)

    got = client.get(f"/v1/documents/{record.id}/original", headers=bearer(alice_key))
    assert got.status_code == 200 and got.content == guide.read_bytes()
    # HTML goes out as text, sandboxed: it never runs as a page of the service.
    assert got.headers["content-type"].startswith("text/plain")
    assert got.headers["content-security-policy"] == "sandbox"
    assert got.headers["x-content-type-options"] == "nosniff"
    assert 'filename="guide.html"' in got.headers["content-disposition"]
    head = client.head(f"/v1/documents/{record.id}/original", headers=bearer(alice_key))
    assert head.status_code == 200 and head.content == b""

    foreign = client.get(f"/v1/documents/{record.id}/original", headers=bearer(bob_key))
    assert foreign.status_code == 404 and foreign.json()["error"]["message"] == "document not found"
    assert client.get(f"/v1/documents/{record.id}/original").status_code == 401

    guide.write_text("<h1>Guide</h1><p>Backups run weekly now.</p>")  # changed since it was indexed
    changed = client.get(f"/v1/documents/{record.id}/original", headers=bearer(alice_key))
    assert changed.status_code == 404 and "ingest it again" in changed.json()["error"]["message"]
    guide.unlink()
    gone = client.get(f"/v1/documents/{record.id}/original", headers=bearer(alice_key))
    assert gone.status_code == 404 and "does not keep" in gone.json()["error"]["message"]


def test_uploads_have_no_original(client: TestClient, service: Service) -> None:
    _, key = service.users.add("alice")
    up = client.post("/v1/documents", headers=bearer(key), files={"files": ("a.txt", b"Backups run nightly.\n")})
    assert up.status_code == 201
    document_id = up.json()["documents"][0]["id"]
    missing = client.get(f"/v1/documents/{document_id}/original", headers=bearer(key))
    assert missing.status_code == 404 and "uploads are indexed, then removed" in missing.json()["error"]["message"]
