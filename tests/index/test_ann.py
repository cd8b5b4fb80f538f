"""The embedded engine's HNSW graph: used above the threshold, never when it does not match the
corpus (stale, from another database, unreadable), replaced atomically, rebuilt when needed."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from citeline.documents.models import Chunk
from citeline.index import ann
from citeline.index.sqlite import SQLiteStore
from citeline.index.store import DocumentRecord, SearchRequest

DIM = 384
THRESHOLD = 100


def units(seed: int, count: int) -> npt.NDArray[np.float32]:
    vectors = np.random.default_rng(seed).normal(size=(count, DIM)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def put(store: SQLiteStore, doc_id: str, vectors: npt.NDArray[np.float32], tag: str = "") -> None:
    record = DocumentRecord(id=doc_id, owner="alice", source=f"/{doc_id}", title=doc_id, content_hash=doc_id + tag)
    chunks = [Chunk(f"{doc_id}{tag}-{i}", doc_id, i, f"text {i}", None, None, 0, 6) for i in range(len(vectors))]
    store.replace_document(record, chunks, vectors)


def ids(store: SQLiteStore, vector: npt.NDArray[np.float32], threshold: int = THRESHOLD) -> list[str]:
    request = SearchRequest(owner="alice", text="", vector=vector, top_k=10, ann_min_chunks=threshold)
    return [p.chunk_id for p in store.search(request)]


def graph_version(store: SQLiteStore) -> int | None:
    graphs = store._ann
    graph = graphs._graphs.get("alice") if graphs is not None else None
    return graph.version if graph is not None else None


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    engine = SQLiteStore(tmp_path / "index.sqlite3")
    for number in range(4):
        put(engine, f"d{number}", units(number, 50))
    yield engine
    engine.close()


def test_below_the_threshold_nothing_is_built(store: SQLiteStore) -> None:
    store.prepare_search("alice", ann_min_chunks=1000)
    ids(store, units(9, 1)[0], threshold=1000)
    assert not store.ann_path().exists()


def test_prepared_graph_is_persisted_and_answers_like_the_exact_scan(store: SQLiteStore) -> None:
    store.prepare_search("alice", ann_min_chunks=THRESHOLD)
    files = sorted(p.suffix for p in store.ann_path().iterdir())
    assert files == [".json", ".npy", ".usearch"]
    for query in units(5, 10):
        assert ids(store, query) == ids(store, query, threshold=0)
    assert graph_version(store) == store.corpus_version()
    # A second process finds the graph on disk and uses it without rebuilding.
    other = SQLiteStore(store.path)
    before = {p.name: p.stat().st_mtime_ns for p in store.ann_path().iterdir()}
    assert ids(other, units(5, 1)[0]) == ids(store, units(5, 1)[0], threshold=0)
    assert graph_version(other) == store.corpus_version()
    assert {p.name: p.stat().st_mtime_ns for p in store.ann_path().iterdir()} == before
    other.close()


def test_a_graph_read_back_searches_with_the_configured_candidate_lists(store: SQLiteStore) -> None:
    store.prepare_search("alice", ann_min_chunks=THRESHOLD)
    other = SQLiteStore(store.path)
    query = units(5, 1)[0]
    assert ids(other, query) == ids(other, query, threshold=0)
    assert other._ann is not None
    index = other._ann._graphs["alice"].index
    # The file does not carry them: usearch restores its own defaults unless they are set again.
    assert (index.expansion_add, index.expansion_search) == (
        ann.HnswParams().expansion_add, ann.HnswParams().expansion_search)
    other.close()


@pytest.mark.parametrize(
    ("params", "reused"),
    [
        (ann.HnswParams(expansion_add=ann.HnswParams().expansion_add - 16), True),  # built with more care
        (ann.HnswParams(expansion_search=ann.HnswParams().expansion_search * 2), True),  # search-time only
        (ann.HnswParams(expansion_add=ann.HnswParams().expansion_add + 16), False),  # built with less
        (ann.HnswParams(connectivity=ann.HnswParams().connectivity * 2), False),  # another graph shape
    ],
)
def test_a_graph_built_with_other_parameters_is_used_only_when_as_good(
    store: SQLiteStore, params: ann.HnswParams, reused: bool
) -> None:
    store.prepare_search("alice", ann_min_chunks=THRESHOLD)
    other = SQLiteStore(store.path)
    graphs = other._ann_indexes()
    assert graphs is not None
    graphs.params = params
    loaded = graphs._load("alice")
    assert (loaded is not None) is reused
    if loaded is not None:
        assert (loaded.index.expansion_add, loaded.index.expansion_search) == (
            params.expansion_add, params.expansion_search)
    query = units(8, 1)[0]
    assert ids(other, query) == ids(other, query, threshold=0)
    graphs.wait()
    assert graph_version(other) == other.corpus_version()
    assert f'"connectivity": {params.connectivity}' in graphs.pointer_path("alice").read_text()
    other.close()


def test_a_stale_graph_file_is_never_used_as_is(store: SQLiteStore, tmp_path: Path) -> None:
    store.prepare_search("alice", ann_min_chunks=THRESHOLD)
    stale = tmp_path / "stale-ann"
    shutil.copytree(store.ann_path(), stale)
    probe = units(77, 1)
    put(store, "d1", probe, tag="v2")  # d1's 50 chunks become one chunk equal to the probe
    store.close()
    # Put the old graph back, as a crash or another process could have left it, and reopen.
    shutil.rmtree(store.ann_path())
    shutil.copytree(stale, store.ann_path())
    reopened = SQLiteStore(store.path)
    found = ids(reopened, probe[0])
    assert found[0] == "d1v2-0"
    assert not any(chunk.startswith("d1-") for chunk in found)
    assert found == ids(reopened, probe[0], threshold=0)
    assert graph_version(reopened) == reopened.corpus_version()
    pointer = (reopened.ann_path() / next(p.name for p in reopened.ann_path().glob("*.json"))).read_text()
    assert f'"version": {reopened.corpus_version()}' in pointer
    reopened.close()


def test_reused_rowids_are_changes(store: SQLiteStore) -> None:
    store.prepare_search("alice", ann_min_chunks=THRESHOLD)
    last = max(row[0] for row in store._conn().execute("SELECT rowid FROM chunks"))
    # The highest rows go and new ones take their rowids (SQLite reuses the largest rowid + 1).
    assert store.delete_document("alice", "d3")
    probe = units(55, 50)
    put(store, "d9", probe)
    assert max(row[0] for row in store._conn().execute("SELECT rowid FROM chunks")) == last
    for i in (0, 17, 49):
        found = ids(store, probe[i])
        assert found[0] == f"d9-{i}"
        assert found == ids(store, probe[i], threshold=0)


def test_a_graph_of_another_database_at_the_same_path_is_ignored(store: SQLiteStore, tmp_path: Path) -> None:
    store.prepare_search("alice", ann_min_chunks=THRESHOLD)
    store.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{store.path}{suffix}").unlink(missing_ok=True)
    fresh = SQLiteStore(store.path)  # same path, same versions and rowids ahead, other vectors
    for number in range(4):
        put(fresh, f"d{number}", units(100 + number, 50))
    probe = units(103, 50)[7]
    assert ids(fresh, probe) == ids(fresh, probe, threshold=0)
    assert ids(fresh, probe)[0] == "d3-7"
    fresh.close()


def test_an_unreadable_graph_means_an_exact_scan_then_a_rebuild(store: SQLiteStore) -> None:
    store.prepare_search("alice", ann_min_chunks=THRESHOLD)
    store.close()
    for path in store.ann_path().glob("*.usearch"):
        path.write_bytes(b"not a graph")
    reopened = SQLiteStore(store.path)
    query = units(3, 1)[0]
    assert ids(reopened, query) == ids(reopened, query, threshold=0)
    assert reopened._ann is not None
    reopened._ann.wait()
    assert graph_version(reopened) == reopened.corpus_version()
    assert ids(reopened, query) == ids(reopened, query, threshold=0)
    reopened.close()


def test_large_changes_scan_exactly_while_the_graph_is_rebuilt(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.prepare_search("alice", ann_min_chunks=THRESHOLD)
    built = graph_version(store)
    monkeypatch.setattr(ann, "_PATCH_MIN", 0)
    monkeypatch.setattr(ann, "_PATCH_SHARE", 0.01)  # any change is "large" here
    probe = units(66, 50)
    put(store, "d0", probe, tag="v2")
    assert ids(store, probe[3])[0] == "d0v2-3"  # exact answer while the old graph is stale
    assert store._ann is not None
    store._ann.wait()
    assert graph_version(store) == store.corpus_version() != built
    assert ids(store, probe[3]) == ids(store, probe[3], threshold=0)


def test_a_word_in_too_many_chunks_does_not_rank_when_a_rarer_one_remains(tmp_path: Path) -> None:
    engine = SQLiteStore(tmp_path / "words.sqlite3")
    common = 2100  # above ranking.COMMON_ROWS
    record = DocumentRecord(id="w", owner="alice", source="/w", title="w", content_hash="w")
    texts = [f"widget number {i}" for i in range(common)] + ["gizmo calibration", "gizmo widget"]
    chunks = [Chunk(f"w-{i}", "w", i, text, None, None, 0, len(text)) for i, text in enumerate(texts)]
    engine.replace_document(record, chunks, units(1, len(texts)))

    def lexical(text: str) -> list[str]:
        request = SearchRequest(owner="alice", text=text, vector=None, top_k=50)
        return [p.chunk_id for p in engine.search(request)]

    assert set(lexical("widget gizmo")) == {f"w-{common}", f"w-{common + 1}"}  # only the rare word ranks
    assert len(lexical("widget")) == 50  # alone, the common word still finds its chunks
    engine.close()


def test_loading_the_graph_library_first_does_not_crash_the_embedder_runtime() -> None:
    # usearch's extension loaded before ONNX Runtime made ONNX Runtime's import crash the process
    # (SIGSEGV): a store that opens its graph before the first query is embedded.
    code = "from citeline.index import ann; assert ann.available(); import onnxruntime; print('loaded')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "loaded"
