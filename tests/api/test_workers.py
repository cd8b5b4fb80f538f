"""Two LIVE `citeline serve` workers against one PostgreSQL database, as behind a load balancer.

Each worker has its own CITELINE_HOME (nothing is shared through files) and its own port; only
the database is shared. A document uploaded through one worker is answered through the other,
with a citation that opens through either, and a conversation started on one continues on the
other with its history.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import write_corpus
from tests.servers import free_port, stop, wait_until_serving


def _env(home: Path, store: str) -> dict[str, str]:
    # Nothing of the test run's own CITELINE_* settings leaks in: only the database is shared.
    base = {k: v for k, v in os.environ.items() if not k.startswith("CITELINE_")}
    return {**base, "CITELINE_HOME": str(home), "CITELINE_STORE": store, "CITELINE_EMBED_THREADS": "1"}


@pytest.fixture
def workers(postgres_url: str, tmp_path: Path) -> Iterator[tuple[str, str, str]]:
    """(url of worker A, url of worker B, alice's API key)."""
    envs = [_env(tmp_path / name, postgres_url) for name in ("home-a", "home-b")]
    added = subprocess.run([sys.executable, "-m", "citeline.cli.main", "users", "add", "alice"], env=envs[0],
                           capture_output=True, text=True, timeout=120, check=False)
    assert added.returncode == 0, added.stderr
    key = added.stdout.strip().splitlines()[-1]
    ports = [free_port(), free_port()]
    processes = [
        subprocess.Popen([sys.executable, "-m", "citeline.cli.main", "serve", "--host", "127.0.0.1",
                          "--port", str(port)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        for port, env in zip(ports, envs, strict=True)
    ]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        for url, process in zip(urls, processes, strict=True):
            # two workers may boot (and migrate) at once on 2 shared cores
            wait_until_serving(f"{url}/healthz", process, timeout_s=120)
        yield urls[0], urls[1], key
    finally:
        stop(processes)


def _searches(result: dict[str, Any]) -> list[str]:
    return [str(entry["data"].get("input", {}).get("query", "")) for entry in result["trace"]
            if entry["type"] == "tool_call" and entry["data"].get("tool") == "search_docs"]


def test_two_serve_workers_share_one_postgres(workers: tuple[str, str, str], tmp_path: Path) -> None:
    a, b, key = workers
    auth = {"Authorization": f"Bearer {key}"}  # a key made once is valid on every worker
    corpus = write_corpus(tmp_path / "docs")
    files = [("files", (p.name, p.read_bytes(), "text/plain")) for p in sorted(corpus.iterdir())]
    uploaded = httpx.post(f"{a}/v1/documents", files=files, headers=auth, timeout=300)
    assert uploaded.status_code == 201, uploaded.text
    assert uploaded.json()["ingested"] == 3

    # Asked through B: answered from the document uploaded through A.
    asked = httpx.post(f"{b}/v1/agent/run", json={"question": "What is the default request timeout?"},
                       headers=auth, timeout=300)
    assert asked.status_code == 200, asked.text
    result = asked.json()
    assert result["exit_reason"] == "COMPLETED", result
    citation = result["citations"][0]
    assert citation["source"] == "timeouts.md" and "5 seconds" in citation["quote"]
    for worker in (a, b):  # the citation opens, verbatim, through either worker
        opened = httpx.get(f"{worker}/v1/documents/{citation['document_id']}/chunks/{citation['chunk_id']}",
                           headers=auth, timeout=60)
        assert opened.status_code == 200 and citation["quote"] in opened.json()["text"]

    # A conversation started on A continues on B: B's follow-up sees A's turn.
    assert httpx.post(f"{a}/v1/sessions", json={"sessionId": "lb"}, headers=auth, timeout=60).status_code == 201
    first = httpx.post(f"{a}/v1/agent/run", json={"question": "What is the default timeout?", "session_id": "lb"},
                       headers=auth, timeout=300).json()
    assert first["exit_reason"] == "COMPLETED"
    follow = httpx.post(f"{b}/v1/agent/run", headers=auth, timeout=300,
                        json={"question": "How do I disable it?", "session_id": "lb", "return_trace": True})
    assert follow.status_code == 200, follow.text
    follow_up = follow.json()
    # "it" is resolved from the history recorded by A: B's search carries A's question's terms.
    assert any("timeout" in query for query in _searches(follow_up)), _searches(follow_up)
    assert follow_up["exit_reason"] == "COMPLETED" and "timeout=None" in follow_up["answer"], follow_up["answer"]
    session = httpx.get(f"{a}/v1/sessions/lb", headers=auth, timeout=60).json()
    assert [m["content"] for m in session["messageHistory"] if m["role"] == "user"] == [
        "What is the default timeout?", "How do I disable it?"]

    # Re-uploading through B with ?replace=true replaces the document A indexed (same name, same document).
    renamed = [("files", ("notes.txt", b"Release notes. Version 3 removed the retry limit.\n", "text/plain"))]
    again = httpx.post(f"{b}/v1/documents?replace=true", files=renamed, headers=auth, timeout=300)
    assert again.status_code == 201 and again.json()["updated"] == 1, again.text
    listed = httpx.get(f"{a}/v1/documents", headers=auth, timeout=60).json()["documents"]
    assert sorted(d["source"] for d in listed) == ["notes.txt", "proxies.md", "timeouts.md"]
    assert re.search(r"Version 3", httpx.post(f"{a}/v1/search", json={"query": "retry limit release"},
                                               headers=auth, timeout=120).text)

    # Neither worker keeps a file (no staged upload, no sessions.sqlite3): the database holds it all.
    # Only each machine's own runs log is local, by design (docs/scaling.md).
    kept = [p for home in ("home-a", "home-b") for p in (tmp_path / home).rglob("*")
            if p.is_file() and p.relative_to(tmp_path / home).parts[0] != "runs"]
    assert kept == []
    assert all((tmp_path / home / "runs").is_dir() for home in ("home-a", "home-b"))
