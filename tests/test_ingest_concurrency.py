"""Two `citeline ingest` processes on one CITELINE_HOME, with queries running meanwhile: every
command succeeds and no "database is locked" ever reaches the user."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from pathlib import Path

import numpy as np

from citeline.index.sqlite import SQLiteStore
from citeline.index.store import SearchRequest
from tests.ingest_support import CITELINE, cli_env
from tests.plugins.citeline_test_hash_embedder import HashEmbedder
from tests.test_ingest_kill import check_index


def make_docs(root: Path, prefix: str, count: int) -> None:
    root.mkdir(parents=True)
    for n in range(count):
        body = " ".join(f"{prefix} note {n} sentence {k} about retries and timeouts." for k in range(60))
        (root / f"{prefix}-{n}.md").write_text(f"# {prefix} {n}\n\n{body}\n", encoding="utf-8")


def test_two_ingests_and_queries_at_once(tmp_path: Path, home: Path) -> None:
    make_docs(tmp_path / "a", "alpha", 25)
    make_docs(tmp_path / "b", "beta", 25)
    make_docs(tmp_path / "shared", "shared", 10)  # both processes write these same documents
    # The embedding delay keeps the ingests running long enough for several queries to start
    # and finish meanwhile on this (shared, 2-core) machine.
    env = cli_env(home, CITELINE_CHUNK_TOKENS="40", CITELINE_EMBED_BATCH_SIZE="4",
                  CITELINE_TEST_EMBED_DELAY_S="0.2")
    # Both start on an empty home: they also race to create the schema.
    ingests = [
        subprocess.Popen([CITELINE, "ingest", "--json", str(tmp_path / d), str(tmp_path / "shared")], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for d in ("a", "b")
    ]
    queries: list[subprocess.CompletedProcess[str]] = []
    finished: list[float] = []
    library_errors: list[BaseException] = []
    library_queries = 0
    stop = threading.Event()

    # The queriers poll until the ingests end (`stop` is set once both have exited or timed out):
    # bounded polls that pace real processes, not waits on time-based behaviour.
    def query_in_process() -> None:
        nonlocal library_queries
        while not (home / "index.sqlite3").exists() and not stop.is_set():
            time.sleep(0.01)
        store = SQLiteStore(home / "index.sqlite3")
        vector = HashEmbedder().embed(["retries and timeouts"])[0]
        try:
            while not stop.is_set():
                store.search(SearchRequest(owner="local", text="retries timeouts", vector=np.asarray(vector)))
                store.list_documents("local")
                library_queries += 1
                time.sleep(0.005)
        except BaseException as exc:  # surfaced by the assertion below
            library_errors.append(exc)
        finally:
            store.close()

    def query_with_cli(args: list[str], query_env: dict[str, str]) -> None:
        while not stop.is_set():
            if (home / "index.sqlite3").exists():
                queries.append(subprocess.run([CITELINE, *args], env=query_env, capture_output=True,
                                              text=True, timeout=120, check=False))
                finished.append(time.monotonic())
            else:
                time.sleep(0.01)

    threads = [
        threading.Thread(target=query_in_process),
        threading.Thread(target=query_with_cli, args=(["docs", "list", "--json"], env)),
        # `search` with the embedder that wrote the index (another one is refused by design).
        threading.Thread(target=query_with_cli, args=(["search", "--json", "retries timeouts"], env)),
    ]
    for thread in threads:
        thread.start()
    try:
        for proc in ingests:
            proc.wait(timeout=300)
        ingests_done = time.monotonic()
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=120)
    results = [(p.wait(timeout=300), *p.communicate()) for p in ingests]
    for code, stdout, stderr in results:
        assert code == 0, stderr
        assert "locked" not in stderr.lower()
        report = json.loads(stdout)
        assert report["failed"] == []
        assert report["ingested"] + report["updated"] + report["unchanged"] == 35
    print(f"concurrency: {len(queries)} CLI queries, {library_queries} library queries during 2 ingests")
    assert any(t < ingests_done for t in finished), "no CLI query completed while the ingests were running"
    for query in queries:
        assert query.returncode == 0, query.stderr
        assert "locked" not in query.stderr.lower()
        json.loads(query.stdout)
    assert library_errors == []
    assert library_queries > 0
    documents, _ = check_index(home / "index.sqlite3")
    assert documents == 60
