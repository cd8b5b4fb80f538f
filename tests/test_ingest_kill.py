"""Atomicity under SIGKILL: a document is either fully indexed or absent, whenever the process dies.

Real `citeline ingest` processes are killed at random moments while files keep changing, and
after every kill the index is checked: every document has exactly its chunks (chunk_count equals
the rows, indexes 0..n-1, no duplicates), every chunk belongs to the version of the document that
is recorded (chunk ids are derived from the document's content hash, so a mix of an old and a new
version cannot hide), the FTS index has exactly the chunk rows, and SQLite's integrity check passes.

The many-kill test uses the cheap test-only hash embedder (tests/plugins) and waits for the
process to reach its first embedding before arming the kill, so kills land in the write phase;
a smaller test does the same with the real ONNX embedder.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from citeline.documents.chunking import chunk_id as chunk_id_of
from citeline.documents.chunking import content_hash
from tests.ingest_support import CITELINE, cli_env

KILL_ITERATIONS = int(os.environ.get("CITELINE_KILL_ITERATIONS", "200"))
WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda"]


def write_version(path: Path, rng: random.Random, version: int) -> None:
    sentences = [f"Version {version} of {path.stem} says {' '.join(rng.choices(WORDS, k=12))}."
                 for _ in range(rng.randint(8, 40))]
    path.write_text(f"# {path.stem} v{version}\n\n" + "\n\n".join(sentences) + "\n", encoding="utf-8")


def check_index(db: Path) -> tuple[int, int]:
    """Assert every atomicity invariant; return (documents, chunks)."""
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        documents = conn.execute("SELECT owner, id, content_hash, chunk_count FROM documents").fetchall()
        for owner, doc_id, doc_hash, chunk_count in documents:
            rows = conn.execute(
                "SELECT chunk_id, chunk_index, start_char, end_char, length(embedding) FROM chunks"
                " WHERE owner = ? AND document_id = ? ORDER BY chunk_index", (owner, doc_id),
            ).fetchall()
            assert chunk_count > 0, f"document {doc_id} indexed with no chunks"
            assert len(rows) == chunk_count, f"{doc_id}: chunk_count {chunk_count} != {len(rows)} rows"
            assert [r[1] for r in rows] == list(range(chunk_count)), f"{doc_id}: chunk indexes not 0..n-1"
            for chunk_id, _, start, end, blob_len in rows:
                expected = chunk_id_of(doc_hash, start, end)
                assert chunk_id == expected, f"document {doc_id}: a chunk from another version survived"
                assert blob_len == 384 * 4
        orphans = conn.execute(
            "SELECT COUNT(*) FROM chunks c WHERE NOT EXISTS"
            " (SELECT 1 FROM documents d WHERE d.owner = c.owner AND d.id = c.document_id)"
        ).fetchone()[0]
        assert orphans == 0, f"{orphans} chunks without a document"
        duplicates = conn.execute(
            "SELECT COUNT(*) FROM (SELECT 1 FROM chunks"
            " GROUP BY owner, document_id, chunk_index HAVING COUNT(*) > 1)"
        ).fetchone()[0]
        assert duplicates == 0, "duplicate chunks"
        chunk_rows = conn.execute("SELECT rowid, text FROM chunks ORDER BY rowid").fetchall()
        fts_rows = conn.execute("SELECT rowid, text FROM chunks_fts ORDER BY rowid").fetchall()
        assert fts_rows == chunk_rows, "FTS rows do not match chunk rows"
        return len(documents), len(chunk_rows)
    finally:
        conn.close()


def _calibrate(docs: Path, env: dict[str, str], marker: Path, hash_embedder: bool) -> float:
    marker.unlink(missing_ok=True)
    started = time.monotonic()
    proc = subprocess.Popen([CITELINE, "ingest", "--json", str(docs)], env=env, stdout=subprocess.DEVNULL)
    # A bounded poll for the real process's marker file (it ends when the process does, or at 300 s).
    deadline = time.monotonic() + 300
    while hash_embedder and not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    armed = time.monotonic()
    assert proc.wait(timeout=300) == 0
    return max((time.monotonic() - (armed if hash_embedder else started)) * 1.1, 0.02)


def kill_loop(tmp_path: Path, iterations: int, *, hash_embedder: bool, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    docs, home = tmp_path / "docs", tmp_path / "home"
    docs.mkdir()
    home.mkdir()
    files = [docs / f"file-{n}.md" for n in range(6 if hash_embedder else 3)]
    versions = dict.fromkeys(files, 0)
    for path in files:
        write_version(path, rng, 0)
    marker = tmp_path / "embedding-started"
    env = cli_env(home, hash_embedder=hash_embedder, CITELINE_CHUNK_TOKENS="32", CITELINE_CHUNK_OVERLAP="4",
                  CITELINE_EMBED_BATCH_SIZE="4", CITELINE_TEST_EMBED_MARKER=str(marker))
    db = home / "index.sqlite3"
    stats: dict[str, float] = {"iterations": 0, "killed_while_running": 0, "finished_before_kill": 0}
    # How long a full run lasts after its first embedding (hash) or in total (real embedder):
    # measured on an uninterrupted run, so kill moments are spread over the whole write phase.
    window = _calibrate(docs, env, marker, hash_embedder)
    for _ in range(iterations):
        # Change some files so that every run has writes to do (and sometimes removes one).
        for path in rng.sample(files, rng.randint(1, len(files))):
            versions[path] += 1
            write_version(path, rng, versions[path])
        gone = rng.random() < 0.15 and files[-1].exists()
        if gone:
            files[-1].unlink()
        marker.unlink(missing_ok=True)
        proc = subprocess.Popen([CITELINE, "ingest", "--json", "--prune", str(docs)], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        # The sleeps below choose *when* SIGKILL lands in a real process (the point of this test),
        # they do not wait for any time-based behaviour of citeline.
        if hash_embedder:
            # Arm the kill only once the process is about to write, so kills hit the write phase
            # (a bounded poll: at most 30 s).
            deadline = time.monotonic() + 30
            while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.002)
            time.sleep(rng.uniform(0, window))
        else:
            time.sleep(rng.uniform(0.2 * window, window))
        # The window adapts: later runs change fewer files than the calibration run and finish
        # sooner, so it shrinks after a run that finished and grows after one that was killed.
        # It settles where about three kills in four land mid-run, spread over the whole run.
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            stats["killed_while_running"] += 1
            window *= 1.05
        else:
            stats["finished_before_kill"] += 1
            window *= 0.85
            assert proc.returncode == 0, proc.stderr.read().decode() if proc.stderr else ""
        proc.wait(timeout=30)
        if proc.stderr is not None:
            proc.stderr.close()
        if db.exists():
            check_index(db)
        if gone:
            write_version(files[-1], rng, versions[files[-1]] + 1)
        stats["iterations"] += 1
    stats["window_ms"] = round(window * 1000)
    # After all that, one uninterrupted run must bring the index exactly up to date.
    final = subprocess.run([CITELINE, "ingest", "--json", "--prune", str(docs)], env=env, capture_output=True,
                           text=True, timeout=300, check=False)
    assert final.returncode == 0, final.stderr
    documents, _ = check_index(db)
    assert documents == len(files)
    with sqlite3.connect(db) as conn:
        indexed = dict(conn.execute("SELECT source, content_hash FROM documents").fetchall())
    for path in files:
        assert indexed[str(path)] == content_hash(path.read_bytes())
    return stats


@pytest.mark.timeout(900)
def test_sigkill_at_random_moments_never_leaves_a_partial_document(tmp_path: Path) -> None:
    stats = kill_loop(tmp_path, KILL_ITERATIONS, hash_embedder=True, seed=5)
    print(f"kill test (hash embedder): {stats}")
    assert stats["iterations"] >= KILL_ITERATIONS
    # Most kills must land while the process is alive, or the test proves little.
    assert stats["killed_while_running"] >= KILL_ITERATIONS // 2, stats


@pytest.mark.timeout(600)
def test_sigkill_with_the_real_embedder(tmp_path: Path) -> None:
    stats = kill_loop(tmp_path, 12, hash_embedder=False, seed=7)
    print(f"kill test (real embedder): {stats}")
    assert stats["killed_while_running"] >= 6, stats
