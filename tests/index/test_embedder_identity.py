"""The embedder's identity lives in the index; another embedder is refused until `citeline reindex`.

Both engines (real SQLite files, a real PostgreSQL with pgvector), real ingests of real files,
the deterministic test embedders (tests/plugins) whose vectors differ for every text, and the
remote embedder against the loopback server for a reindex that changes the vector width.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from tests.ingest_support import run_cli
from tests.plugins.citeline_test_hash_embedder import HashEmbedder, HashEmbedder256, HashEmbedderB
from tests.servers import start_embedding_server, stop

from citeline.config import Settings
from citeline.errors import ConfigurationError
from citeline.index.embedder import MINILM_IDENTITY, Embedder, EmbedderMismatchError, identity_of
from citeline.index.ingest import embedding_input, ingest_paths
from citeline.index.reindex import reindex
from citeline.index.remote import RemoteEmbedder
from citeline.index.store import DocumentRecord, Store, open_store
from citeline.retrieval import Retriever


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    url = (f"sqlite:{tmp_path / 'index.sqlite3'}" if request.param == "sqlite"
           else request.getfixturevalue("postgres_url"))
    opened = open_store(url)
    yield opened
    opened.close()


def write_docs(root: Path, count: int, start: int = 0) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for n in range(start, start + count):
        body = " ".join(f"Widget {n} supports option {k} for the pool timeout." for k in range(30))
        (root / f"doc-{n}.md").write_text(f"# Doc {n}\n\n{body}\n\n## More {n}\n\n{body}\n", encoding="utf-8")
    return root


def settings_for(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path / "home", chunk_tokens=48, chunk_overlap=8)


def ingest(store: Store, embedder: Embedder, root: Path, tmp_path: Path) -> int:
    report = ingest_paths([root], store=store, embedder=embedder, settings=settings_for(tmp_path), owner="local")
    return report.chunks


def stored_vectors(store: Store) -> dict[str, tuple[str, np.ndarray]]:
    """chunk id -> (what was embedded for it, its stored vector), over every document."""
    out = {}
    for record, chunks, vectors in store.export_documents():
        for chunk, vector in zip(chunks, vectors, strict=True):
            out[chunk.chunk_id] = (embedding_input(record.title, chunk.section, chunk.text), vector)
    return out


def assert_all_from(store: Store, embedder: Embedder) -> None:
    """Every stored vector is exactly `embedder`'s vector of its chunk."""
    rows = stored_vectors(store)
    assert rows
    texts = [text for text, _ in rows.values()]
    expected = embedder.embed(texts)
    actual = np.stack([vector for _, vector in rows.values()])
    assert actual.shape == expected.shape
    assert np.allclose(actual, expected, atol=1e-6)


def test_the_first_ingest_records_the_embedder(store: Store, tmp_path: Path) -> None:
    assert store.embedder_identity() is None
    ingest(store, HashEmbedder(), write_docs(tmp_path / "docs", 2), tmp_path)
    assert store.embedder_identity() == identity_of(HashEmbedder())


def test_ingesting_with_another_embedder_is_refused_and_writes_nothing(store: Store, tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs", 2)
    ingest(store, HashEmbedder(), docs, tmp_path)
    before = store.counts("local")
    write_docs(docs, 1, start=5)
    with pytest.raises(EmbedderMismatchError) as error:
        ingest(store, HashEmbedderB(), docs, tmp_path)
    message = str(error.value)
    assert "plugin:test-hash (384 dimensions" in message and "plugin:test-hash-b (384 dimensions" in message
    assert "citeline reindex" in message
    assert store.counts("local") == before
    assert store.find_document("local", str((docs / "doc-5.md").resolve())) is None


def test_searching_with_another_embedder_is_refused(store: Store, tmp_path: Path) -> None:
    ingest(store, HashEmbedder(), write_docs(tmp_path / "docs", 2), tmp_path)
    settings = settings_for(tmp_path)
    assert Retriever(store, HashEmbedder(), settings).search("local", "pool timeout").passages
    with pytest.raises(EmbedderMismatchError, match="citeline reindex"):
        Retriever(store, HashEmbedder256(), settings).search("local", "pool timeout")


def test_an_index_from_before_identities_is_taken_as_minilm(store: Store, tmp_path: Path) -> None:
    # Written without an identity, as every index was before they were recorded.
    record = DocumentRecord(id="d", owner="local", source="/d", title="d", content_hash="h")
    from citeline.documents.models import Chunk

    store.replace_document(record, [Chunk("c", "d", 0, "text", None, None, 0, 4)], HashEmbedder().embed(["x"]))
    assert store.embedder_identity() == MINILM_IDENTITY
    with pytest.raises(EmbedderMismatchError, match="minilm-onnx"):
        Retriever(store, HashEmbedder(), settings_for(tmp_path)).search("local", "text")


def test_an_emptied_index_takes_any_embedder(store: Store, tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs", 1)
    ingest(store, HashEmbedder(), docs, tmp_path)
    for record in store.list_documents("local"):
        store.delete_document("local", record.id)
    ingest(store, HashEmbedder256(), docs, tmp_path)
    assert store.embedder_identity() == identity_of(HashEmbedder256())
    assert_all_from(store, HashEmbedder256())


def test_reindex_swaps_every_vector_and_the_identity(store: Store, tmp_path: Path) -> None:
    chunks = ingest(store, HashEmbedder(), write_docs(tmp_path / "docs", 3), tmp_path)
    version = store.corpus_version()
    seen: list[tuple[int, int]] = []
    report = reindex(store, HashEmbedder256(), batch_size=7, progress=lambda done, total: seen.append((done, total)))
    assert report.swapped and report.embedded == chunks == report.chunks and report.resumed == 0
    assert store.embedder_identity() == identity_of(HashEmbedder256())
    assert_all_from(store, HashEmbedder256())
    assert store.corpus_version() > version  # caches keyed on it drop the old results
    assert seen[0] == (0, chunks) and seen[-1] == (chunks, chunks)
    # The new vectors serve searches, with the new embedder only.
    passages = Retriever(store, HashEmbedder256(), settings_for(tmp_path)).search("local", "pool timeout").passages
    assert passages and passages[0].dense_score is not None
    with pytest.raises(EmbedderMismatchError):
        Retriever(store, HashEmbedder(), settings_for(tmp_path)).search("local", "pool timeout")
    # Nothing to do the second time.
    assert not reindex(store, HashEmbedder256()).swapped


def test_old_vectors_serve_until_the_swap_and_an_interrupted_reindex_resumes(store: Store, tmp_path: Path) -> None:
    chunks = ingest(store, HashEmbedder(), write_docs(tmp_path / "docs", 3), tmp_path)
    retriever = Retriever(store, HashEmbedder(), settings_for(tmp_path))

    class Interrupted(Exception):
        pass

    def stop_halfway(done: int, total: int) -> None:
        # Mid-reindex the old embedder still searches the old vectors.
        assert retriever.search("local", "widget option").passages
        if done >= total // 2 and done:
            raise Interrupted

    with pytest.raises(Interrupted):
        reindex(store, HashEmbedderB(), batch_size=5, progress=stop_halfway)
    assert store.embedder_identity() == identity_of(HashEmbedder())
    assert_all_from(store, HashEmbedder())
    report = reindex(store, HashEmbedderB(), batch_size=5)
    assert report.swapped and 0 < report.resumed < chunks and report.resumed + report.embedded == chunks
    assert_all_from(store, HashEmbedderB())


def test_another_target_discards_the_shadow_vectors_of_an_abandoned_reindex(store: Store, tmp_path: Path) -> None:
    ingest(store, HashEmbedder(), write_docs(tmp_path / "docs", 2), tmp_path)

    def abandon(done: int, total: int) -> None:
        if done:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        reindex(store, HashEmbedderB(), batch_size=4, progress=abandon)
    report = reindex(store, HashEmbedder256(), batch_size=4)
    assert report.resumed == 0 and report.swapped
    assert_all_from(store, HashEmbedder256())
    # A writer still holding the abandoned target cannot put vectors any more.
    with pytest.raises(ConfigurationError, match="took over"):
        store.reindex_put(identity_of(HashEmbedderB()), [(1, "x")], HashEmbedderB().embed(["x"]))


def test_chunks_ingested_during_a_reindex_get_new_vectors_before_the_swap(store: Store, tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs", 2)
    ingest(store, HashEmbedder(), docs, tmp_path)
    added: list[int] = []

    def ingest_alongside(done: int, total: int) -> None:
        if done and not added:  # an ingest with the old embedder lands in the middle of the first pass
            added.append(ingest(store, HashEmbedder(), write_docs(docs, 1, start=9), tmp_path))

    report = reindex(store, HashEmbedderB(), batch_size=4, progress=ingest_alongside)
    assert added and added[0] > 0 and report.swapped
    assert report.chunks == store.counts("local")[1]
    assert_all_from(store, HashEmbedderB())


@pytest.mark.parametrize("engine", ["sqlite", "postgres"])
def test_reindex_onto_a_remote_embedder_of_another_width(engine: str, tmp_path: Path,
                                                         request: pytest.FixtureRequest) -> None:
    url, server = start_embedding_server(tmp_path / "server.log")
    store = open_store(f"sqlite:{tmp_path / 'index.sqlite3'}" if engine == "sqlite"
                       else request.getfixturevalue("postgres_url"))
    try:
        ingest(store, HashEmbedder(), write_docs(tmp_path / "docs", 2), tmp_path)
        remote = RemoteEmbedder("all-MiniLM-L6-v2", base_url=url, dimensions=128, batch_size=8, concurrency=2)
        report = reindex(store, remote)
        assert report.swapped and store.embedder_identity() == remote.identity
        assert_all_from(store, remote)
        outcome = Retriever(store, remote, settings_for(tmp_path)).search("local", "widget pool timeout")
        assert outcome.passages and all(p.dense_score is not None for p in outcome.passages[:1])
        # And the index keeps growing with the remote embedder.
        assert ingest(store, remote, write_docs(tmp_path / "docs", 1, start=7), tmp_path) > 0
        assert_all_from(store, remote)
    finally:
        store.close()
        stop([server])


def test_the_cli_names_both_embedders_and_the_fix(tmp_path: Path) -> None:
    home, docs = tmp_path / "home", write_docs(tmp_path / "docs", 2)
    assert run_cli("ingest", "--json", str(docs), home=home).returncode == 0
    for command in (["ask", "pool timeout"], ["search", "pool timeout"], ["ingest", str(write_docs(docs, 1, 4))]):
        proc = run_cli(*command, home=home, CITELINE_EMBEDDER="test-hash-256")
        assert proc.returncode == 2, (command, proc.stderr)
        assert "plugin:test-hash (384 dimensions" in proc.stderr and "plugin:test-hash-256 (256" in proc.stderr
        assert "citeline reindex" in proc.stderr
    doctor = run_cli("doctor", "--json", home=home, CITELINE_EMBEDDER="test-hash-256")
    embedder_check = next(c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "embedder")
    assert not embedder_check["ok"] and "citeline reindex" in embedder_check["fix"]
    proc = run_cli("reindex", "--json", home=home, CITELINE_EMBEDDER="test-hash-256")
    assert proc.returncode == 0, proc.stderr
    assert '"swapped": true' in proc.stdout
    assert run_cli("search", "pool timeout", home=home, CITELINE_EMBEDDER="test-hash-256").returncode == 0
    doctor = run_cli("doctor", "--json", home=home, CITELINE_EMBEDDER="test-hash-256")
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["embedder"]["ok"] and "plugin:test-hash-256 (256 dimensions" in checks["index"]["detail"]
