"""`citeline db upgrade` and `citeline db copy` (SQLite -> PostgreSQL and back, no re-embedding)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from citeline.cli.main import app
from citeline.documents.models import Chunk
from citeline.index.pg_migrations import LATEST, MIGRATIONS
from citeline.index.store import DocumentRecord, SearchRequest, Store, open_store

DIM = 384
runner = CliRunner()


def fill(store: Store) -> dict[tuple[str, str], np.ndarray]:
    """Two owners, three documents (one without chunks); returns the vectors written."""
    rng = np.random.default_rng(7)
    written: dict[tuple[str, str], np.ndarray] = {}
    specs = [
        ("alice", "guide", ["Retry failed jobs three times.", "Backoff doubles each try."], {"lang": "en"}),
        ("alice", "empty", [], {}),
        ("bob", "guide", ["Bob's private café notes."], {"year": 2024}),
    ]
    for owner, doc_id, texts, metadata in specs:
        record = DocumentRecord(
            id=doc_id, owner=owner, source=f"/{owner}/{doc_id}.md", title=f"{doc_id} title",
            content_hash=f"h-{owner}-{doc_id}", metadata=metadata, size_bytes=42,
        )
        chunks = [
            Chunk(f"{doc_id}-{i}", doc_id, i, text, "Intro", i + 1, 0, len(text))
            for i, text in enumerate(texts)
        ]
        vectors = rng.normal(size=(len(texts), DIM)).astype(np.float32)
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
        store.replace_document(record, chunks, vectors)
        for chunk, vector in zip(chunks, vectors, strict=True):
            written[(owner, chunk.chunk_id)] = vector
    return written


def assert_same_index(
    source: Store, target: Store, vectors: dict[tuple[str, str], np.ndarray], *, timestamps: bool = True
) -> None:
    for owner in ("alice", "bob"):
        assert target.counts(owner) == source.counts(owner)
        for expected, got in zip(source.list_documents(owner), target.list_documents(owner), strict=True):
            if not timestamps:
                got.created_at, got.updated_at = expected.created_at, expected.updated_at
            assert got == expected  # every field
    for (owner, chunk_id), vector in vectors.items():
        passage = target.get_passage(owner, None, chunk_id)
        assert passage == source.get_passage(owner, None, chunk_id)
        # The stored vector came across unchanged: searching with it finds it with similarity 1.
        hits = target.search(SearchRequest(owner=owner, text="", vector=vector, top_k=1))
        assert hits[0].chunk_id == chunk_id
        assert hits[0].dense_score == pytest.approx(1.0, abs=1e-5)
    request = SearchRequest(owner="alice", text="retry jobs", vector=vectors[("alice", "guide-1")])
    assert [p.chunk_id for p in target.search(request)] == [p.chunk_id for p in source.search(request)]


def test_copy_sqlite_to_postgres_and_back(tmp_path: Path, postgres_url: str) -> None:
    sqlite_url = f"sqlite:{tmp_path / 'index.sqlite3'}"
    source = open_store(sqlite_url)
    vectors = fill(source)

    result = runner.invoke(app, ["db", "copy", "--from", sqlite_url, "--to", postgres_url, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report | {"seconds": 0} == {"documents": 3, "chunks": 3, "owners": 2, "seconds": 0}
    target = open_store(postgres_url)
    try:
        assert_same_index(source, target, vectors)
        # Copying again replaces each document in place: nothing is duplicated.
        again = runner.invoke(app, ["db", "copy", "--from", sqlite_url, "--to", postgres_url])
        assert again.exit_code == 0, again.output
        assert "copied 3 documents (3 chunks, 2 owners)" in again.stdout
        assert target.counts("alice") == (2, 2)

        back_url = f"sqlite:{tmp_path / 'back.sqlite3'}"
        back = runner.invoke(app, ["db", "copy", "--from", postgres_url, "--to", back_url, "--json"])
        assert back.exit_code == 0, back.output
        restored = open_store(back_url)
        try:
            # SQLite has no import_document: copies into it get fresh timestamps.
            assert_same_index(target, restored, vectors, timestamps=False)
        finally:
            restored.close()
    finally:
        target.close()
        source.close()


def test_copy_from_a_missing_file_fails_with_the_fix(tmp_path: Path, postgres_url: str) -> None:
    missing = f"sqlite:{tmp_path / 'nope.sqlite3'}"
    result = runner.invoke(app, ["db", "copy", "--from", missing, "--to", postgres_url])
    assert result.exit_code == 2
    assert "no SQLite index at" in result.stderr and "--from sqlite:" in result.stderr


def test_copy_to_the_same_store_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:{tmp_path / 'a.sqlite3'}"
    result = runner.invoke(app, ["db", "copy", "--from", url, "--to", url])
    assert result.exit_code == 2 and "same store" in result.stderr


def test_upgrade_postgres_then_nothing_to_do(postgres_url: str) -> None:
    first = runner.invoke(app, ["db", "upgrade", "--store", postgres_url, "--json"])
    assert first.exit_code == 0, first.output
    every = [migration.version for migration in MIGRATIONS]
    assert json.loads(first.stdout) == {"engine": "postgresql", "version": LATEST, "applied": every}
    second = runner.invoke(app, ["db", "upgrade", "--store", postgres_url])
    assert second.exit_code == 0 and f"schema at version {LATEST} (already up to date)" in second.stdout


def test_upgrade_sqlite_and_unknown_schemes(tmp_path: Path) -> None:
    sqlite = runner.invoke(app, ["db", "upgrade", "--store", f"sqlite:{tmp_path / 'x.sqlite3'}"])
    assert sqlite.exit_code == 0 and "nothing to do" in sqlite.stdout
    unknown = runner.invoke(app, ["db", "upgrade", "--store", "mysql://x"])
    assert unknown.exit_code == 2 and "postgresql://" in unknown.stderr
