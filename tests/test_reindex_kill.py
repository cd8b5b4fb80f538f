"""`citeline reindex` under SIGKILL: the index is entirely the old embedder's or entirely the new one's.

Real `citeline reindex` processes are killed at random moments while they re-embed a real
index, switching between two test embedders whose vectors differ for every text. After every
kill the index is checked: the recorded embedder is one of the two, and every chunk's stored
vector is exactly that embedder's vector of the chunk (a single vector of the other one would be
a mixed index), SQLite's integrity check passes, and the shadow vectors are never served. A last
uninterrupted run must then finish the switch.
"""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from citeline.index.embedder import EmbedderIdentity
from citeline.index.ingest import embedding_input
from tests.ingest_support import CITELINE, cli_env
from tests.plugins.citeline_test_hash_embedder import HashEmbedder, HashEmbedderB

EMBEDDERS = {"test-hash": HashEmbedder(), "test-hash-b": HashEmbedderB()}


def index_embedder(db: Path) -> str:
    """Assert the index holds one embedder's vectors only; return that embedder's name."""
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        name = EmbedderIdentity.from_json(
            conn.execute("SELECT value FROM meta WHERE key = 'embedder'").fetchone()[0]).name
        rows = conn.execute(
            "SELECT d.title, c.section, c.text, c.embedding FROM chunks c"
            " JOIN documents d ON d.owner = c.owner AND d.id = c.document_id ORDER BY c.rowid"
        ).fetchall()
    finally:
        conn.close()
    assert rows
    stored = np.stack([np.frombuffer(row[3], dtype=np.float32) for row in rows])
    expected = EMBEDDERS[name].embed([embedding_input(row[0], row[1], row[2]) for row in rows])
    matches = np.all(np.isclose(stored, expected, atol=1e-6), axis=1)
    assert matches.all(), f"{int((~matches).sum())} of {len(rows)} chunks hold vectors of another embedder than {name}"
    return name


def start(target: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([CITELINE, "reindex", "--json", "--batch-size", "8"],
                            env={**env, "CITELINE_EMBEDDER": target},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


@pytest.mark.timeout(900)
def test_sigkill_during_reindex_never_leaves_mixed_vectors(tmp_path: Path) -> None:
    rng = random.Random(11)
    docs, home = tmp_path / "docs", tmp_path / "home"
    docs.mkdir()
    for n in range(6):
        body = "\n\n".join(f"File {n} paragraph {k} explains option {k} of the pool." for k in range(30))
        (docs / f"file-{n}.md").write_text(f"# File {n}\n\n{body}\n", encoding="utf-8")
    marker = tmp_path / "embedding-started"
    # Each embedding call of 8 chunks takes 20 ms: a reindex of ~100 chunks lasts a few hundred ms.
    env = cli_env(home, CITELINE_CHUNK_TOKENS="32", CITELINE_CHUNK_OVERLAP="4",
                  CITELINE_TEST_EMBED_MARKER=str(marker), CITELINE_TEST_EMBED_DELAY_S="0.02")
    db = home / "index.sqlite3"
    ingest = subprocess.run([CITELINE, "ingest", "--json", str(docs)], env=env, capture_output=True, text=True,
                            timeout=300, check=False)
    assert ingest.returncode == 0, ingest.stderr
    assert json.loads(ingest.stdout)["chunks"] >= 60
    assert index_embedder(db) == "test-hash"

    # How long a whole reindex lasts after its first embedding: kills are spread over it.
    marker.unlink(missing_ok=True)
    calibration = start("test-hash-b", env)
    while not marker.exists() and calibration.poll() is None:
        time.sleep(0.002)
    armed = time.monotonic()
    assert calibration.wait(timeout=300) == 0
    window = (time.monotonic() - armed) * 1.1
    current = index_embedder(db)
    assert current == "test-hash-b"

    stats = {"killed_before_swap": 0, "killed_after_swap": 0, "finished": 0}
    for _ in range(40):
        target = "test-hash" if current == "test-hash-b" else "test-hash-b"
        marker.unlink(missing_ok=True)
        proc = start(target, env)
        deadline = time.monotonic() + 60
        while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)
        time.sleep(rng.uniform(0, window))
        killed = proc.poll() is None
        if killed:
            proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        stderr = proc.stderr.read().decode() if proc.stderr else ""
        if proc.stderr is not None:
            proc.stderr.close()
        now = index_embedder(db)
        if not killed:
            assert proc.returncode == 0 and now == target, stderr
            stats["finished"] += 1
        elif now == current:
            stats["killed_before_swap"] += 1
        else:
            stats["killed_after_swap"] += 1  # its swap had committed: entirely new, as it should be
        # A killed run leaves its shadow vectors, so the next one (same target) resumes and is
        # shorter: the window shrinks when kills come too late and grows when they come early.
        window *= 1.05 if stats["killed_before_swap"] and now == current and killed else 0.8
        current = now
    print(f"reindex kill test: {stats}, window {window * 1000:.0f} ms")
    assert stats["killed_before_swap"] >= 15, stats

    # An uninterrupted run finishes whatever switch was left half-embedded (resuming its shadow).
    target = "test-hash" if current == "test-hash-b" else "test-hash-b"
    final = subprocess.run([CITELINE, "reindex", "--json"], env={**env, "CITELINE_EMBEDDER": target},
                           capture_output=True, text=True, timeout=300, check=False)
    assert final.returncode == 0, final.stderr
    assert json.loads(final.stdout)["swapped"] is True
    assert index_embedder(db) == target
    search = subprocess.run([CITELINE, "search", "--json", "option of the pool"],
                            env={**env, "CITELINE_EMBEDDER": target}, capture_output=True, text=True,
                            timeout=120, check=False)
    assert search.returncode == 0 and json.loads(search.stdout)["retrievedPassages"], search.stderr
