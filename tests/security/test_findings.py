"""The holes an outside attacker found, each replayed against a real server.

Most tests drive a LIVE `citeline serve` (or `citeline mcp --http`) subprocess on loopback, with
the test hash embedder so no model loads; where a test needs an injected clock or to hold a slot
exactly, it uses the FastAPI app in-process over a real SQLite store. Disk-full is made real:
`RLIMIT_FSIZE` on a CLI subprocess (its writes fail with EFBIG: "disk I/O error") and SQLite's
own page cap (`?max_bytes=`, i.e. `PRAGMA max_page_count`) on a filled database for the server.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import resource
import socket
import sqlite3
import stat
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from citeline.agent.events import Event
from citeline.api import create_app
from citeline.api.service import Service
from citeline.app import Citeline
from citeline.config import ServiceSettings, Settings
from citeline.retrieval.cache import MemoryCache
from tests.api.conftest import HASH_EMBEDDER, bearer, make_service
from tests.conftest import DOCS, write_corpus
from tests.ingest_support import cli_env
from tests.servers import add_user, free_port, run_cli, start_serve, stop

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


# --- live servers ------------------------------------------------------------------------------
@dataclass
class Live:
    url: str
    env: dict[str, str]
    home: Path
    log: Path
    process: subprocess.Popen[bytes]
    keys: dict[str, str]

    def headers(self, user: str) -> dict[str, str]:
        return bearer(self.keys[user])

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    root = tmp_path_factory.mktemp("security")
    home = root / "home"
    env = cli_env(home, CITELINE_API_MAX_SESSION_MESSAGES="4", CITELINE_API_STORAGE_QUOTA_BYTES="1000000",
                  CITELINE_API_RATE_PER_S="1000", CITELINE_API_RATE_BURST="1000", CITELINE_EMBED_THREADS="1")
    keys = {name: add_user(name, env) for name in ("alice", "bob")}
    log = root / "serve.log"
    url, process = start_serve(log, env)
    try:
        yield Live(url, env, home, log, process, keys)
    finally:
        stop([process])


def _upload(live: Live, user: str, files: dict[str, bytes], *, replace: bool = False) -> httpx.Response:
    return httpx.post(f"{live.url}/v1/documents" + ("?replace=true" if replace else ""), headers=live.headers(user),
                      files=[("files", (name, data, "application/octet-stream")) for name, data in files.items()],
                      timeout=180)


@pytest.fixture(scope="module")
def live_docs(live: Live) -> Live:
    """Alice owns the shared corpus; Bob owns one secret document."""
    uploaded = _upload(live, "alice", {name: text.encode() for name, text in DOCS.items()})
    assert uploaded.status_code == 201, uploaded.text
    secret = _upload(live, "bob", {"bob-secret.md": b"# Vault\n\nThe vault combination is 31-41-59.\n"})
    assert secret.status_code == 201, secret.text
    return live


# --- MCP over HTTP: the same keys and owners as the service -----------------------------------
def _mcp_client(url: str, key: str | None) -> Any:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {key}"} if key else {}
    transport = streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers, timeout=120))
    return Client(transport, read_timeout_seconds=120)


def _tool_payload(result: Any) -> dict[str, Any]:
    assert not result.is_error, result
    if result.structured_content:
        return dict(result.structured_content)
    return dict(json.loads(result.content[0].text))


def test_mcp_http_requires_api_keys_and_scopes_each_caller(live_docs: Live, tmp_path: Path) -> None:
    live = live_docs
    port = free_port()
    log = tmp_path / "mcp.log"
    with log.open("wb") as handle:
        server = subprocess.Popen([sys.executable, "-m", "citeline.cli.main", "mcp", "--http", f"127.0.0.1:{port}"],
                                  env=live.env, stdout=handle, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 90  # a bounded poll: the real MCP server needs time to start
        while True:
            try:
                anonymous = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, timeout=10,
                                       headers={"Accept": "application/json, text/event-stream"})
                break
            except httpx.TransportError:
                assert server.poll() is None, log.read_text()
                assert time.monotonic() < deadline, "the MCP server did not start"
                time.sleep(0.2)
        assert anonymous.status_code == 401, anonymous.text
        assert anonymous.headers["www-authenticate"] == "Bearer"
        wrong = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, timeout=10,
                           headers={"Authorization": "Bearer cl_not-a-key"})
        assert wrong.status_code == 401

        async def as_user(key: str) -> tuple[dict[str, Any], dict[str, Any]]:
            async with _mcp_client(url, key) as client:
                vault = _tool_payload(await client.call_tool("search_docs", {"query": "vault combination"}))
                proxy = _tool_payload(await client.call_tool("search_docs", {"query": "proxy credentials"}))
                return vault, proxy

        alice_vault, alice_proxy = asyncio.run(as_user(live.keys["alice"]))
        bob_vault, bob_proxy = asyncio.run(as_user(live.keys["bob"]))
        # Each caller sees exactly their own documents, never the other's.
        assert not any("31-41-59" in p["text"] for p in alice_vault["passages"])
        assert alice_proxy["passages"] and {p["document_name"] for p in alice_proxy["passages"]} <= {
            "timeouts", "proxies", "notes"} | {"Timeouts", "Proxies"}
        assert any("31-41-59" in p["text"] for p in bob_vault["passages"])
        assert all(p["source"] == "bob-secret.md" for p in bob_proxy["passages"])
        secret = next(p for p in bob_vault["passages"] if "31-41-59" in p["text"])
        assert "upload:" not in json.dumps([alice_proxy, bob_vault])

        async def alice_opens_bobs_passage() -> Any:
            async with _mcp_client(url, live.keys["alice"]) as client:
                return await client.call_tool("open_citation", {"document_id": secret["document_id"],
                                                                "chunk_id": secret["chunk_id"]})

        stolen = asyncio.run(alice_opens_bobs_passage())
        assert stolen.is_error and "31-41-59" not in json.dumps(stolen.model_dump(mode="json"))
    finally:
        stop([server])
    assert "Traceback" not in log.read_text(errors="replace")


# --- sessions: metadata size, turns kept, storage bounded --------------------------------------
def test_session_metadata_over_the_limit_is_413(live: Live) -> None:
    big = {"blob": "x" * 17_000}
    response = httpx.post(f"{live.url}/v1/sessions", json={"metadata": big}, headers=live.headers("alice"), timeout=30)
    assert response.status_code == 413, response.text
    error = response.json()["error"]
    assert "16,384 bytes" in error["message"] and error["details"]["field"] == "metadata"
    context = httpx.post(f"{live.url}/v1/sessions", json={"initialContext": big}, headers=live.headers("alice"),
                         timeout=30)
    assert context.status_code == 413 and context.json()["error"]["details"]["field"] == "initialContext"
    fine = httpx.post(f"{live.url}/v1/sessions", json={"metadata": {"blob": "x" * 10_000}},
                      headers=live.headers("alice"), timeout=30)
    assert fine.status_code == 201, fine.text


def test_sessions_keep_the_newest_messages_and_one_checkpoint(live_docs: Live) -> None:
    live = live_docs
    created = httpx.post(f"{live.url}/v1/sessions", json={}, headers=live.headers("alice"), timeout=30)
    assert created.status_code == 201
    session_id = created.json()["sessionId"]
    questions = ["What is the default timeout?", "How do I disable timeouts?", "How are proxy credentials sent?"]
    for question in questions:
        ran = httpx.post(f"{live.url}/v1/agent/run", json={"question": question, "session_id": session_id},
                         headers=live.headers("alice"), timeout=120)
        assert ran.status_code == 200, ran.text
    state = httpx.get(f"{live.url}/v1/sessions/{session_id}", headers=live.headers("alice"), timeout=30).json()
    messages = state["messageHistory"]
    # CITELINE_API_MAX_SESSION_MESSAGES=4: the oldest turn was trimmed, the newest two kept in order.
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert [m["content"] for m in messages if m["role"] == "user"] == questions[1:]
    with sqlite3.connect(live.home / "sessions.sqlite3") as conn:
        per_thread = conn.execute("SELECT thread_id, COUNT(*) FROM checkpoints GROUP BY thread_id").fetchall()
    assert per_thread and all(count == 1 for _, count in per_thread), per_thread  # not one copy per turn


# --- uploads: quota, concurrency caps, bounded loaders ---------------------------------------
def test_storage_quota_is_413_with_a_clear_message(live: Live) -> None:
    body = ("Quota filler paragraph about nothing in particular.\n\n" * 20_000).encode()  # ~1 MB > the quota
    response = _upload(live, "bob", {"too-big.md": body})
    assert response.status_code == 413, response.text
    message = response.json()["error"]["message"]
    assert message.startswith("storage quota exceeded") and "1,000,000 bytes" in message and "DELETE /v1/documents" in message
    listed = httpx.get(f"{live.url}/v1/documents", headers=live.headers("bob"), timeout=30).json()["documents"]
    assert "too-big.md" not in {d["source"] for d in listed}


def test_uploads_take_the_users_run_slots_and_the_servers_upload_slots(home: Path) -> None:
    service = make_service(home, max_concurrent_runs=1, max_concurrent_uploads=1)
    _, alice = service.users.add("alice")
    _, bob = service.users.add("bob")
    user = service.users.get("alice")
    assert user is not None
    files = [("files", ("notes.txt", DOCS["notes.txt"].encode(), "text/plain"))]
    with TestClient(create_app(service=service)) as client:
        assert service.slots.try_acquire(user.id)  # a run of Alice's is in flight
        busy = client.post("/v1/documents", files=files, headers=bearer(alice))
        assert busy.status_code == 429 and busy.headers["retry-after"] == "1", busy.text
        assert "runs and uploads per user" in busy.json()["error"]["message"]
        service.slots.release(user.id)
        assert service.upload_slots.try_acquire()  # another upload is being indexed
        full = client.post("/v1/documents", files=files, headers=bearer(bob))
        assert full.status_code == 429 and "indexing 1 uploads already" in full.json()["error"]["message"]
        service.upload_slots.release()
        assert client.post("/v1/documents", files=files, headers=bearer(bob)).status_code == 201
        assert service.slots.in_flight() == 0  # released once done
    service.citeline.close()


def _docx(paragraphs: int) -> bytes:
    """A minimal valid DOCX of `paragraphs` one-word paragraphs, built without python-docx (fast)."""
    namespace = b"http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    document = (b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="' + namespace
                + b'"><w:body>' + b"<w:p><w:r><w:t>word</w:t></w:r></w:p>" * paragraphs + b"</w:body></w:document>")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("[Content_Types].xml", (
            '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
            'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
            'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName='
            '"/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.'
            'document.main+xml"/></Types>'))
        archive.writestr("_rels/.rels", (
            '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/'
            '2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/'
            '2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>'))
        archive.writestr("word/document.xml", document)
    return buffer.getvalue()


def test_a_two_million_paragraph_docx_is_refused_quickly(live: Live) -> None:
    data = _docx(2_000_000)
    started = time.monotonic()
    response = _upload(live, "alice", {"bomb.docx": data})
    elapsed = time.monotonic() - started
    assert response.status_code == 422, response.text
    reason = response.json()["error"]["details"]["failed"][0]["error"]
    assert "2,000,000 paragraphs (limit 200,000)" in reason and "CITELINE_MAX_BLOCKS_PER_FILE" in reason
    assert elapsed < 30, f"took {elapsed:.1f} s"  # the parse timeout is 120 s: the cap, not the clock, stopped it


# --- disk full: CLI, API, readiness; nothing half-written ------------------------------------
def test_cli_ingest_on_a_full_disk_says_so_in_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = cli_env(home)
    first = run_cli("ingest", "--json", str(write_corpus(tmp_path / "docs")), env=env)
    assert first.returncode == 0, first.stderr
    big = tmp_path / "big"
    big.mkdir()
    (big / "manual.md").write_text("# Manual\n\n" + "The pump delivers water at a steady rate. " * 8000,
                                   encoding="utf-8")

    def small_files() -> None:  # the write-ahead log may not grow past 64 KiB: writes fail (EFBIG)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))

    full = subprocess.run([sys.executable, "-m", "citeline.cli.main", "ingest", str(big)], env=env,
                          capture_output=True, text=True, timeout=180, check=False, preexec_fn=small_files)
    assert full.returncode == 2, (full.stdout, full.stderr)
    lines = [line for line in full.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, full.stderr
    assert "Traceback" not in full.stderr
    assert "disk I/O error" in lines[0] and "no space left" in lines[0] and "free disk space" in lines[0]
    with sqlite3.connect(home / "index.sqlite3") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        sources = {Path(row[0]).name for row in conn.execute("SELECT source FROM documents")}
    assert sources == set(DOCS)  # the earlier documents intact, the failed one absent (not half-written)


def _fill_to_the_cap(db: Path) -> int:
    """VACUUM, then fill the free space of the existing pages; returns the byte cap that leaves
    no room at all (the database's size)."""
    with sqlite3.connect(db) as conn:
        conn.execute("VACUUM")
        size = conn.execute("PRAGMA page_count").fetchone()[0] * conn.execute("PRAGMA page_size").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count={size // conn.execute('PRAGMA page_size').fetchone()[0]}")
        for n in range(100_000):
            try:
                conn.execute("INSERT INTO kv VALUES ('filler', ?, ?, 0)", (str(n), "f" * 64))
                conn.commit()
            except sqlite3.OperationalError as exc:
                assert "full" in str(exc)
                break
        else:
            raise AssertionError("the database never filled up to its page cap")
    return size


@pytest.fixture(scope="module")
def full_disk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    root = tmp_path_factory.mktemp("full-disk")
    home = root / "home"
    db = home / "index.sqlite3"
    env = cli_env(home, CITELINE_STORE=f"sqlite:{db}")
    ingested = run_cli("ingest", "--json", str(write_corpus(root / "docs")), env=env)
    assert ingested.returncode == 0, ingested.stderr
    size = _fill_to_the_cap(db)
    capped = {**env, "CITELINE_STORE": f"sqlite:{db}?max_bytes={size}"}
    url, process = start_serve(root / "serve.log", capped, "--no-auth")
    try:
        yield Live(url, capped, home, root / "serve.log", process, {})
    finally:
        stop([process])


def test_search_on_a_full_disk_still_answers(full_disk: Live) -> None:
    response = httpx.post(f"{full_disk.url}/v1/search", json={"query": "proxy credentials"}, timeout=60)
    assert response.status_code == 200, response.text
    assert response.json()["retrievedPassages"]
    ran = httpx.post(f"{full_disk.url}/v1/agent/run", json={"question": "How are proxy credentials sent?"},
                     timeout=120)
    assert ran.status_code == 200 and ran.json()["exit_reason"] == "COMPLETED", ran.text
    with sqlite3.connect(full_disk.home / "index.sqlite3") as conn:
        cached = conn.execute("SELECT COUNT(*) FROM kv WHERE namespace LIKE 'cache:%'").fetchone()[0]
    assert cached == 0  # the cache writes really failed, and the answers came anyway
    assert "could not write a retrieval cache entry" in full_disk.log_text()


def test_readiness_says_not_ready_when_the_index_cannot_be_written(full_disk: Live) -> None:
    response = httpx.get(f"{full_disk.url}/readyz", timeout=60)
    assert response.status_code == 503, response.text
    checks = response.json()["error"]["details"]["checks"]
    assert checks["store"] == "ok" and checks["index_writable"] != "ok"


def test_upload_on_a_full_disk_is_507_and_nothing_is_half_written(full_disk: Live) -> None:
    files = [("files", ("pump.md", ("# Pump\n\n" + "The pump delivers water. " * 400).encode(), "text/markdown"))]
    response = httpx.post(f"{full_disk.url}/v1/documents", files=files, timeout=120)
    assert response.status_code == 507, response.text
    error = response.json()["error"]
    assert "storage is full" in error["message"] and str(full_disk.home) not in response.text
    listed = httpx.get(f"{full_disk.url}/v1/documents", timeout=30).json()["documents"]
    assert "pump.md" not in {d["source"] for d in listed} and len(listed) == len(DOCS)
    with sqlite3.connect(full_disk.home / "index.sqlite3") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT COUNT(*) FROM chunks WHERE text LIKE '%pump delivers%'").fetchone()[0] == 0


# --- log injection, invalid Unicode, control characters ---------------------------------------
def test_a_newline_in_the_path_cannot_forge_a_log_line(live: Live) -> None:
    port = int(live.url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(b"GET /healthz%0A2031-01-01%2000:00:00%20INFO%20FORGED%20admin%20logged%20in HTTP/1.1\r\n"
                     b"Host: x\r\nConnection: close\r\n\r\n")
        reply = sock.recv(65536)
    assert reply.startswith(b"HTTP/1.1 404"), reply[:200]
    deadline = time.monotonic() + 10  # a bounded poll: the server writes its log line after replying
    while "FORGED" not in live.log_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    lines = [line for line in live.log_text().splitlines() if "FORGED" in line]
    assert lines, "the request was not logged"
    assert all(not line.startswith("2031-01-01") and "\\n2031-01-01" in line for line in lines), lines


def test_invalid_unicode_is_a_plain_400(live: Live) -> None:
    for path, body in (("/v1/agent/run", b'{"question": "\\ud800 what is the timeout?"}'),
                       ("/v1/search", b'{"query": "timeout \\udfff"}'),
                       ("/v1/sessions", b'{"metadata": {"k": ["ok", "\\ud83d"]}}')):
        response = httpx.post(f"{live.url}{path}", content=body, timeout=30,
                              headers={**live.headers("alice"), "Content-Type": "application/json"})
        assert response.status_code == 400, (path, response.text)
        error = response.json()["error"]
        assert error["message"].startswith("invalid Unicode in `") and "send valid UTF-8" in error["message"]
        assert "Value error" not in response.text and "errors" not in error["details"]
    emoji = httpx.post(f"{live.url}/v1/search", content=b'{"query": "timeout \\ud83d\\ude00"}', timeout=30,
                       headers={**live.headers("alice"), "Content-Type": "application/json"})
    assert emoji.status_code == 200, emoji.text  # a valid surrogate pair is an ordinary character


def test_control_characters_are_not_echoed(live_docs: Live) -> None:
    live = live_docs
    question = "zqxw \x1b[2J\x1b[31mflurbo\u202e gnix\x07?"
    ran = httpx.post(f"{live.url}/v1/agent/run", json={"question": question}, headers=live.headers("alice"),
                     timeout=120)
    assert ran.status_code == 200, ran.text
    result = ran.json()
    assert result["exit_reason"] == "INSUFFICIENT_CONTEXT" and "Searches tried:" in result["answer"]
    assert not CONTROL.search(result["answer"]), repr(result["answer"])
    for item in result["insufficiencies"]:
        assert not CONTROL.search(item["missing"]) and not any(CONTROL.search(q) for q in item["queries_tried"])
    unknown = httpx.post(f"{live.url}/v1/agent/run", json={"question": "hi", "model": "x\x1b[2Jy\u202e"},
                         headers=live.headers("alice"), timeout=30)
    assert unknown.status_code == 422 and not CONTROL.search(unknown.json()["error"]["message"])


# --- private home ---------------------------------------------------------------------------
def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_index_home_is_private_and_an_old_home_is_tightened(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "docs")
    home = tmp_path / "fresh" / "home"
    old_umask = os.umask(0o022)
    try:
        made = run_cli("ingest", "--json", str(corpus), env=cli_env(home))
        assert made.returncode == 0, made.stderr
        assert _mode(home) == 0o700
        files = [p for p in home.iterdir() if p.name.startswith("index.sqlite3")]
        assert files and all(_mode(p) == 0o600 for p in files), {p.name: oct(_mode(p)) for p in files}

        # A home made before: world-readable, tightened on the next command, with a note.
        home.chmod(0o755)
        (home / "index.sqlite3").chmod(0o644)
        again = run_cli("docs", "list", "--json", env=cli_env(home))
        assert again.returncode == 0, again.stderr
        assert _mode(home) == 0o700 and _mode(home / "index.sqlite3") == 0o600
        assert "tightened the permissions" in again.stderr and "0755 to 0700" in again.stderr
    finally:
        os.umask(old_umask)


# --- failed authentication is rate-limited per client address ---------------------------------
def test_failed_authentication_gets_429_on_a_live_server(live: Live) -> None:
    attacker = httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2"), timeout=30)
    statuses = []
    with attacker:
        for n in range(12):
            response = attacker.get(f"{live.url}/v1/documents", headers={"Authorization": f"Bearer cl_guess{n}"})
            statuses.append(response.status_code)
        assert statuses[:10] == [401] * 10 and statuses[10:] == [429, 429], statuses
        assert 1 <= int(response.headers["retry-after"]) <= 60
        assert "too many failed authentications" in response.json()["error"]["message"]
        # Even a valid key waits from that address: the block is decided before any key is checked.
        assert attacker.get(f"{live.url}/v1/documents", headers=live.headers("alice")).status_code == 429
    other = httpx.get(f"{live.url}/v1/documents", headers=live.headers("alice"), timeout=30)
    assert other.status_code == 200  # other addresses are unaffected


def test_failed_authentication_window_uses_the_injected_clock(home: Path) -> None:
    now = [1000.0]
    service = Service(Citeline(Settings(home=home, embedder=HASH_EMBEDDER)),
                      ServiceSettings(rate_per_s=1000.0, rate_burst=1000), clock=lambda: now[0])
    _, key = service.users.add("alice")
    with TestClient(create_app(service=service)) as client:
        for _ in range(10):
            assert client.get("/v1/documents", headers=bearer("cl_wrong")).status_code == 401
            now[0] += 1.0
        blocked = client.get("/v1/documents", headers=bearer("cl_wrong"))
        assert blocked.status_code == 429 and blocked.headers["retry-after"] == "50"  # 1st failure at t=1000, now 1010
        now[0] += 49.5
        assert client.get("/v1/documents", headers=bearer(key)).status_code == 429
        now[0] += 0.6  # the first failure is now over a minute old: one more try is allowed
        assert client.get("/v1/documents", headers=bearer(key)).status_code == 200
    service.citeline.close()


# --- the local model stops generating when the run is cancelled -------------------------------
def test_cancelling_stops_the_local_model_between_tokens(tmp_path: Path) -> None:
    app = Citeline(Settings(home=tmp_path / "home", embedder=HASH_EMBEDDER, model="local", local_search="model",
                            llm_threads=1), cache=MemoryCache())
    assert app.ingest([write_corpus(tmp_path / "docs")]).ok
    cancel = threading.Event()
    late: list[str] = []

    def on_event(event: Event) -> None:
        if event.type == "token":
            if cancel.is_set():
                late.append(str(event.data.get("text")))
            cancel.set()  # the client went away after the first token

    started = time.monotonic()
    result = app.ask("What is the default timeout?", on_event=on_event, cancelled=cancel.is_set)
    app.close()
    assert cancel.is_set(), "the model never streamed a token"
    assert result.exit_reason == "CANCELLED" and result.answer == ""
    assert late == [], f"{len(late)} tokens were generated after the cancel"
    assert time.monotonic() - started < 60


# --- uploads: internal prefix never shown, name collisions explicit ----------------------------
def test_the_upload_prefix_is_never_shown(live_docs: Live) -> None:
    live = live_docs
    shown: list[str] = []
    documents = httpx.get(f"{live.url}/v1/documents", headers=live.headers("alice"), timeout=30)
    shown.append(documents.text)
    assert {d["name"] for d in documents.json()["documents"]} >= {"notes"}
    shown.append(httpx.post(f"{live.url}/v1/search", json={"query": "connection pooling"},
                            headers=live.headers("alice"), timeout=30).text)
    ran = httpx.post(f"{live.url}/v1/agent/run", json={"question": "What did version 2 add?"},
                     headers=live.headers("alice"), timeout=120)
    assert ran.json()["citations"], ran.text
    shown.append(ran.text)
    with httpx.stream("POST", f"{live.url}/v1/agent/stream", json={"question": "What did version 2 remove?"},
                      headers=live.headers("alice"), timeout=120) as stream:
        shown.append("".join(stream.iter_text()))
    shown.append(_upload(live, "alice", {"empty.txt": b"   "}).text)
    assert all("upload:" not in text for text in shown), next(t for t in shown if "upload:" in t)[:500]


def test_upload_name_collisions_are_explicit(live: Live) -> None:
    first = b"# Changelog\n\nVersion 7 added the frobnicator.\n"
    second = b"# Changelog\n\nVersion 8 removed the frobnicator again.\n"
    created = _upload(live, "bob", {"changelog.md": first})
    assert created.status_code == 201 and created.json()["ingested"] == 1, created.text
    clash = _upload(live, "bob", {"changelog.md": second})
    assert clash.status_code == 409, clash.text
    error = clash.json()["error"]
    assert "`changelog.md`" in error["message"] and "?replace=true" in error["message"]
    assert error["details"]["conflicts"] == ["changelog.md"]

    def stored_text() -> str:
        found = httpx.post(f"{live.url}/v1/search", json={"query": "frobnicator version"},
                           headers=live.headers("bob"), timeout=30).json()["retrievedPassages"]
        return " ".join(p["text"] for p in found if p["metadata"]["source"] == "changelog.md")

    assert "Version 7" in stored_text() and "Version 8" not in stored_text()  # the 409 changed nothing
    same = _upload(live, "bob", {"changelog.md": first})
    assert same.status_code == 201 and same.json()["unchanged"] == 1  # a retry of the same file is fine
    twice = httpx.post(f"{live.url}/v1/documents", headers=live.headers("bob"), timeout=60, files=[
        ("files", ("a.md", b"# A\n\none\n", "text/markdown")), ("files", ("a.md", b"# A\n\ntwo\n", "text/markdown"))])
    assert twice.status_code == 409 and "several files named `a.md`" in twice.json()["error"]["message"]
    replaced = _upload(live, "bob", {"changelog.md": second}, replace=True)
    assert replaced.status_code == 201 and replaced.json()["updated"] == 1, replaced.text
    assert "Version 8" in stored_text() and "Version 7" not in stored_text()
