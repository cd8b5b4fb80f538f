"""SQLite engine behaviour through the real ingest path (the engine contract suite covers the rest)."""

import sqlite3
from pathlib import Path

import numpy as np
import pytest

import citeline.index.sqlite as sqlite_engine
from citeline.app import Citeline
from citeline.config import Settings
from citeline.documents.models import Chunk
from citeline.index.sqlite import SQLiteStore
from citeline.index.store import DocumentRecord, SearchRequest


def _store(tmp_path: Path) -> SQLiteStore:
    return SQLiteStore(tmp_path / "i.sqlite3")


def _add(store: SQLiteStore, owner: str, doc_id: str, texts: list[str], vectors: np.ndarray,
         metadata: dict[str, str] | None = None) -> None:
    chunks = [Chunk(f"{doc_id}-c{i}", doc_id, i, t, "S", None, 0, len(t)) for i, t in enumerate(texts)]
    store.replace_document(DocumentRecord(doc_id, owner, f"/{doc_id}.md", doc_id.upper(), "hash",
                                          metadata=metadata or {}), chunks, vectors)


def _vec(*values: float) -> np.ndarray:
    vector = np.array(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_search_is_scoped_to_owner_and_filters(tmp_path: Path) -> None:
    store = _store(tmp_path)
    _add(store, "alice", "a", ["alice secret retry policy"], np.stack([_vec(1, 0, 0)]), {"team": "x"})
    _add(store, "bob", "b", ["bob retry policy"], np.stack([_vec(1, 0, 0)]), {"team": "y"})
    hits = store.search(SearchRequest("bob", "retry policy", _vec(1, 0, 0)))
    assert [h.document_id for h in hits] == ["b"]
    assert store.get_passage("bob", "a", "a-c0") is None
    assert store.get_document("bob", "a") is None
    assert not store.delete_document("bob", "a")
    assert store.search(SearchRequest("alice", "retry", _vec(1, 0, 0), filters={"team": "y"})) == []
    assert [h.document_id for h in store.search(SearchRequest("alice", "retry", None, document_ids=["a"]))] == ["a"]


def test_corpus_version_changes_on_every_write(tmp_path: Path) -> None:
    store = _store(tmp_path)
    v0 = store.corpus_version()
    _add(store, "o", "a", ["text one"], np.stack([_vec(1, 0)]))
    v1 = store.corpus_version()
    _add(store, "o", "a", ["text two"], np.stack([_vec(0, 1)]))
    v2 = store.corpus_version()
    store.delete_document("o", "a")
    assert v0 < v1 < v2 < store.corpus_version()


def test_replacing_a_document_leaves_no_old_chunks(tmp_path: Path) -> None:
    store = _store(tmp_path)
    _add(store, "o", "a", ["old words alpha", "old words beta"], np.stack([_vec(1, 0), _vec(0, 1)]))
    _add(store, "o", "a", ["new words gamma"], np.stack([_vec(1, 1)]))
    assert store.counts("o") == (1, 1)
    assert store.search(SearchRequest("o", "alpha", None)) == []
    assert [h.text for h in store.search(SearchRequest("o", "gamma", None))] == ["new words gamma"]


def test_scores_are_normalised_and_ordered(home: Path, corpus: Path) -> None:
    app = Citeline(Settings(home=home))
    app.ingest([corpus])
    outcome = app.search("proxy credentials in the URL", top_k=5)
    scores = [p.score for p in outcome.passages]
    assert scores == sorted(scores, reverse=True)
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert outcome.passages[0].section == "Proxies > Proxy authentication"


def test_an_index_made_before_chunks_carried_blocks_gains_the_column(tmp_path: Path) -> None:
    import sqlite3

    store = _store(tmp_path)
    _add(store, "alice", "a", ["an old passage"], np.stack([_vec(1, 0, 0)]))
    store.close()
    with sqlite3.connect(tmp_path / "i.sqlite3") as conn:  # the schema of an older release
        conn.execute("ALTER TABLE chunks DROP COLUMN blocks")
    reopened = _store(tmp_path)
    try:
        passage = reopened.get_passage("alice", "a", "a-c0")
        assert passage is not None and passage.text == "an old passage"
        assert passage.blocks == () and not passage.flagged
        _add(reopened, "alice", "b", ["a new passage"], np.stack([_vec(0, 1, 0)]))
        assert reopened.get_passage("alice", "b", "b-c0") is not None
    finally:
        reopened.close()


def _lexical_ids(store: SQLiteStore, owner: str, text: str) -> list[str]:
    return [h.chunk_id for h in store.search(SearchRequest(owner, text, None, top_k=50))]


def test_a_sole_owner_ranks_without_the_owner_check_and_gets_the_same_answer(tmp_path: Path) -> None:
    store = _store(tmp_path)
    texts = [f"retry policy note {i} " + "backoff " * (i % 5) for i in range(60)]
    _add(store, "alice", "a", texts, np.stack([_vec(1, i, 0) for i in range(60)]))
    fast = _lexical_ids(store, "alice", "retry backoff")
    assert store._sole_owner == (store.corpus_version(), "alice")
    store._owns_everything = lambda owner: False  # type: ignore[method-assign]
    assert _lexical_ids(store, "alice", "retry backoff") == fast
    assert len(fast) == 50


def test_a_stale_sole_owner_hint_never_lets_another_owners_rows_in(tmp_path: Path) -> None:
    store = _store(tmp_path)
    _add(store, "alice", "a", [f"retry policy note {i}" for i in range(5)], np.stack([_vec(1, i, 0) for i in range(5)]))
    assert _lexical_ids(store, "alice", "retry")  # the hint is taken: alice owns everything
    _add(store, "bob", "b", ["retry retry retry"], np.stack([_vec(0, 1, 0)]))  # bob's row ranks first
    # As if bob's write landed between the hint and the ranking statement.
    store._sole_owner = (store.corpus_version(), "alice")
    hits = _lexical_ids(store, "alice", "retry")
    assert hits and all(chunk_id.startswith("a-") for chunk_id in hits)
    assert len(hits) == 5
    store._sole_owner = (-1, None)
    assert _lexical_ids(store, "alice", "retry") == hits
    assert _lexical_ids(store, "bob", "retry") == ["b-c0"]


def test_a_large_owners_centroid_is_a_sample_close_to_the_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite_engine, "_CENTROID_SAMPLE", 100)  # stands in for 20,000 of a real index
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((1000, 16)).astype(np.float32) + 0.5  # a shared direction, as a topic gives
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    store = _store(tmp_path)
    for start in range(0, 1000, 250):  # four documents, as ingest writes them
        _add(store, "alice", f"d{start}", [f"t{i}" for i in range(250)], vectors[start:start + 250])
    centroid = store.centroid("alice")
    assert centroid is not None and centroid.passages == 1000  # the count is exact
    whole = vectors.mean(axis=0)
    assert not np.allclose(centroid.vector, whole, atol=1e-6)  # a sample was read, not every vector
    query = vectors[0]
    assert abs(float(query @ centroid.vector) - float(query @ whole)) < 0.03


def test_the_centroid_from_the_loaded_matrix_equals_the_one_read_from_the_file(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((40, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    _add(_store(tmp_path), "alice", "a", [f"t{i}" for i in range(40)], vectors)
    read = _store(tmp_path).centroid("alice")  # a fresh engine: nothing in memory yet
    searched = _store(tmp_path)
    searched.search(SearchRequest("alice", "", vectors[0]))  # exact dense search loads the matrix
    assert searched._matrices, "the dense search should have loaded the owner's matrix"
    # The file's vectors change behind the engine's back (the corpus version does not): a centroid
    # read from the file would now be the mean of the negated vectors, one from the matrix is not.
    raw = sqlite3.connect(tmp_path / "i.sqlite3")
    with raw:  # one transaction, committed
        for rowid, blob in raw.execute("SELECT rowid, embedding FROM chunks").fetchall():
            raw.execute("UPDATE chunks SET embedding = ? WHERE rowid = ?",
                        ((-np.frombuffer(blob, dtype=np.float32)).tobytes(), rowid))
    raw.close()
    from_matrix = searched.centroid("alice")
    assert read is not None and from_matrix is not None and read.passages == from_matrix.passages == 40
    assert np.allclose(read.vector, from_matrix.vector, atol=1e-6)
    assert np.allclose(read.vector, vectors.mean(axis=0), atol=1e-6)
