"""The embedded engine: one SQLite file with FTS5 for BM25 and float32 vectors.

Vectors live in the database (atomic with their chunks). Below the `ann_min_chunks` threshold of
a request they are searched exactly with numpy (the matrix for an owner is loaded once and reused
until the corpus version changes); above it through an HNSW graph kept beside the database
(`citeline.index.ann`), which is only ever used when it matches the corpus version.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import shutil
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from citeline.documents.models import Chunk
from citeline.errors import ConfigurationError, IngestError, RetrievalError, StorageError
from citeline.index import ann
from citeline.index.embedder import EmbedderIdentity, check_reindex_target, refuse_other, stored_identity
from citeline.index.private import private_file
from citeline.index.ranking import (
    COMMON_ROWS,
    LexicalRanking,
    assemble_passages,
    drop_common,
    fts5_match,
    fts5_phrase,
    fused_top,
    lexical_ranking,
    query_phrases,
)
from citeline.index.store import (
    Centroid,
    DocumentRecord,
    Exported,
    Passage,
    ReindexRow,
    SearchRequest,
    Store,
    blocks_from_json,
    blocks_to_json,
    register_engine,
)

SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    id TEXT NOT NULL, owner TEXT NOT NULL, source TEXT NOT NULL, title TEXT NOT NULL,
    content_hash TEXT NOT NULL, status TEXT NOT NULL, metadata TEXT NOT NULL DEFAULT '{}',
    chunk_count INTEGER NOT NULL DEFAULT 0, size_bytes INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL, updated_at REAL NOT NULL,
    PRIMARY KEY (owner, id)
);
CREATE UNIQUE INDEX IF NOT EXISTS documents_source ON documents(owner, source);
CREATE TABLE IF NOT EXISTS chunks (
    rowid INTEGER PRIMARY KEY,
    owner TEXT NOT NULL, document_id TEXT NOT NULL, chunk_id TEXT NOT NULL,
    chunk_index INTEGER NOT NULL, text TEXT NOT NULL, section TEXT, page INTEGER,
    start_char INTEGER NOT NULL, end_char INTEGER NOT NULL, embedding BLOB NOT NULL,
    blocks TEXT NOT NULL DEFAULT '[]',
    UNIQUE (owner, document_id, chunk_id)
);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(owner, document_id, chunk_index);
CREATE INDEX IF NOT EXISTS chunks_chunk_id ON chunks(owner, chunk_id);
-- Covers the owner/document check of every full-text match: without it each match reads the
-- chunk's table row (text and 1.5 KB vector), which made BM25 joins 2-3x slower at 100k chunks.
CREATE INDEX IF NOT EXISTS chunks_scope ON chunks(rowid, owner, document_id);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    text, section, title, tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TABLE IF NOT EXISTS kv (
    namespace TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, created_at REAL NOT NULL,
    PRIMARY KEY (namespace, key)
);
-- `citeline reindex` writes the new embedder's vectors here, keyed by the chunk row they belong
-- to (and its chunk id, since SQLite may reuse a deleted row's rowid), and swaps them into
-- `chunks` in one transaction when every chunk has one.
CREATE TABLE IF NOT EXISTS reindex_vectors (
    rowid INTEGER PRIMARY KEY, chunk_id TEXT NOT NULL, embedding BLOB NOT NULL
);
"""
_MMAP_BYTES = 1 << 30
_CENTROID_BATCH = 4096  # vectors summed at a time: 6 MB at 384 dimensions
_CENTROID_SAMPLE = 20_000  # vectors an owner's mean is taken over, at most
_CACHE_KIB = 64 * 1024
_FILTER_KEY = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_PROBE_NS = "health"
_MIN_FREE_BYTES = 1 << 20  # below this the next transaction's WAL frames may not fit
_URL_OPTION = re.compile(r"\?max_bytes=(\d+)$")
T = TypeVar("T")


def _is_storage_failure(exc: sqlite3.Error) -> bool:
    """Whether SQLite failed because it could not write: disk full, I/O error, size cap."""
    name = str(getattr(exc, "sqlite_errorname", ""))
    message = str(exc).lower()
    return (name.startswith(("SQLITE_FULL", "SQLITE_IOERR"))
            or "disk is full" in message or "disk i/o error" in message)


def storage_error(exc: sqlite3.Error, path: Path) -> StorageError:
    """The one clear error for a write the disk refused (the transaction was rolled back whole)."""
    return StorageError(
        f"cannot write the index at {path}: {exc} (disk I/O error / no space left on the device, or the "
        "index is at its size cap); nothing was half-written",
        hint="free disk space (or move CITELINE_HOME to a larger disk, or raise the store's max_bytes) "
        "and run the command again",
    )


class SQLiteStore(Store):
    """`sqlite:PATH` — WAL mode, one connection per thread, writes in IMMEDIATE transactions."""

    # A single query word matching more rows than this is left out of BM25 (ranking.drop_common).
    common_rows = COMMON_ROWS

    def __init__(self, path: Path, *, max_bytes: int = 0, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        # Stamps `created_at`/`updated_at`: a test passes a fake clock to tell two writes apart.
        self.clock = clock
        # max_bytes > 0 caps the file: SQLite then refuses growth with SQLITE_FULL, exactly as
        # on a full disk (an operator's quota for the index on a shared disk).
        self.max_bytes = max_bytes
        path.parent.mkdir(parents=True, exist_ok=True)
        private_file(path)
        self._local = threading.local()
        self._matrix_lock = threading.Lock()
        self._matrices: dict[tuple[str, int], tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]] = {}
        self._ann: ann.AnnIndexes | None = None
        self._ann_checked = False
        self._sizes: dict[str, tuple[int, int]] = {}  # owner -> (corpus version, chunks)
        self._centroids: dict[str, tuple[int, Centroid | None]] = {}  # owner -> (corpus version, centroid)
        self._phrase_counts: dict[tuple[str, int], int] = {}  # (phrase, cap) -> rows, up to cap + 1
        self._phrase_counts_version = -1
        self._sole_owner: tuple[int, str | None] = (-1, None)  # (corpus version, the only owner or None)
        conn = self._conn()
        try:
            # executescript commits on its own; every statement is idempotent, so a crash here is harmless.
            conn.executescript(_SCHEMA)
            # Indexes made before chunks carried their blocks gain the column (empty for old rows,
            # which the next ingest re-reads: the text model is part of every content hash).
            if "blocks" not in {row[1] for row in conn.execute("PRAGMA table_info(chunks)")}:
                conn.execute("ALTER TABLE chunks ADD COLUMN blocks TEXT NOT NULL DEFAULT '[]'")
            conn.execute("INSERT OR IGNORE INTO meta VALUES ('version', '0')")
            conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            # Tells this database from a deleted and re-created one at the same path (whose
            # versions and rowids start over): files kept beside it are only trusted with it.
            conn.execute("INSERT OR IGNORE INTO meta VALUES ('instance', ?)", (uuid.uuid4().hex,))
        except sqlite3.OperationalError as exc:
            if _is_storage_failure(exc):
                raise storage_error(exc, path) from None
            raise

    # --- connections ---------------------------------------------------------------------
    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            try:
                conn = sqlite3.connect(self.path, timeout=60.0, isolation_level=None)
            except sqlite3.Error as exc:
                raise ConfigurationError(f"cannot open the index at {self.path}: {exc}") from exc
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA busy_timeout=60000")
            _enable_wal(conn)
            conn.execute("PRAGMA synchronous=NORMAL")
            # Reads through a memory map and a larger page cache: a search touches thousands
            # of index pages (FTS doclists, the scope index), and read() per page was a large
            # share of a hybrid query at 100k chunks. Address space only; pages are the OS's.
            conn.execute(f"PRAGMA mmap_size={_MMAP_BYTES}")
            conn.execute(f"PRAGMA cache_size=-{_CACHE_KIB}")
            if self.max_bytes > 0:
                page_size = int(conn.execute("PRAGMA page_size").fetchone()[0])
                conn.execute(f"PRAGMA max_page_count={max(1, self.max_bytes // page_size)}")
            self._local.conn = conn
        return conn

    def _write(self, work: Callable[[sqlite3.Connection], T], attempts: int = 8, *, bump: bool = True) -> T:
        """Run `work` in one IMMEDIATE transaction that also bumps the corpus version (unless
        `bump` is off: writes that change nothing a search can see, such as shadow vectors).

        WAL plus a busy timeout makes lock conflicts rare, but SQLite returns SQLITE_BUSY without
        waiting in some cases (a lock upgrade that could deadlock): the whole transaction is then
        retried with backoff, so a writer never sees "database is locked" from a neighbour."""
        delay = 0.05
        for attempt in range(attempts):
            conn = self._conn()
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    result = work(conn)
                    if bump:
                        conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'version'")
                    conn.execute("COMMIT")
                except BaseException:
                    # A failing ROLLBACK (the disk is full, the file vanished) must not hide the
                    # error that made the transaction fail: SQLite rolls back on its own then.
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                    raise
                return result
            except sqlite3.OperationalError as exc:
                message = str(exc).lower()
                if _is_storage_failure(exc):
                    raise storage_error(exc, self.path) from None
                if "locked" not in message and "busy" not in message:
                    raise
                if attempt == attempts - 1:
                    raise IngestError(
                        "the index stayed locked by another process",
                        hint="another citeline process is writing a lot; try again when it is done",
                    ) from exc
            time.sleep(delay * (1 + random.random()))
            delay = min(delay * 2, 2.0)
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Close this thread's connection."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    # --- documents -----------------------------------------------------------------------
    def replace_document(
        self, record: DocumentRecord, chunks: Sequence[Chunk], vectors: npt.NDArray[np.float32],
        *, embedder: EmbedderIdentity | None = None,
    ) -> None:
        """Insert or replace a document with its chunks, full-text rows and vectors in one
        transaction, stamped by the store's clock."""
        if len(chunks) != len(vectors):
            raise ValueError("one vector per chunk is required")
        now = self.clock()

        def write(conn: sqlite3.Connection) -> None:
            if embedder is not None:
                _claim_embedder(conn, embedder)
            existing = conn.execute(
                "SELECT created_at FROM documents WHERE owner = ? AND id = ?", (record.owner, record.id)
            ).fetchone()
            self._delete_rows(conn, record.owner, record.id)
            created = existing["created_at"] if existing else now
            conn.execute(
                "INSERT INTO documents VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (
                    record.id, record.owner, record.source, record.title, record.content_hash,
                    record.status, json.dumps(record.metadata, sort_keys=True, default=str),
                    len(chunks), record.size_bytes, created, now,
                ),
            )
            for chunk, vector in zip(chunks, vectors, strict=True):
                cursor = conn.execute(
                    "INSERT INTO chunks (owner, document_id, chunk_id, chunk_index, text, section, page,"
                    " start_char, end_char, embedding, blocks) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    (
                        record.owner, record.id, chunk.chunk_id, chunk.chunk_index, chunk.text,
                        chunk.section, chunk.page, chunk.start, chunk.end,
                        np.asarray(vector, dtype=np.float32).tobytes(), blocks_to_json(chunk.blocks),
                    ),
                )
                conn.execute(
                    "INSERT INTO chunks_fts (rowid, text, section, title) VALUES (?,?,?,?)",
                    (cursor.lastrowid, chunk.text, chunk.section or "", record.title),
                )

        self._write(write)

    @staticmethod
    def _delete_rows(conn: sqlite3.Connection, owner: str, document_id: str) -> int:
        conn.execute(
            "DELETE FROM chunks_fts WHERE rowid IN "
            "(SELECT rowid FROM chunks WHERE owner = ? AND document_id = ?)",
            (owner, document_id),
        )
        conn.execute("DELETE FROM chunks WHERE owner = ? AND document_id = ?", (owner, document_id))
        return conn.execute(
            "DELETE FROM documents WHERE owner = ? AND id = ?", (owner, document_id)
        ).rowcount

    def delete_document(self, owner: str, document_id: str) -> bool:
        """Remove the owner's document with its chunks and full-text rows; False when the owner has
        none by that id."""
        return self._write(lambda conn: self._delete_rows(conn, owner, document_id) > 0)

    @staticmethod
    def _record(row: sqlite3.Row) -> DocumentRecord:
        return DocumentRecord(
            id=row["id"], owner=row["owner"], source=row["source"], title=row["title"],
            content_hash=row["content_hash"], status=row["status"], metadata=json.loads(row["metadata"]),
            chunk_count=row["chunk_count"], size_bytes=row["size_bytes"],
            created_at=row["created_at"], updated_at=row["updated_at"],
        )

    def get_document(self, owner: str, document_id: str) -> DocumentRecord | None:
        """The owner's document record, or None (also for another owner's)."""
        row = self._conn().execute(
            "SELECT * FROM documents WHERE owner = ? AND id = ?", (owner, document_id)
        ).fetchone()
        return self._record(row) if row else None

    def find_document(self, owner: str, source: str) -> DocumentRecord | None:
        """The owner's document ingested from `source`, or None."""
        row = self._conn().execute(
            "SELECT * FROM documents WHERE owner = ? AND source = ?", (owner, source)
        ).fetchone()
        return self._record(row) if row else None

    def list_documents(self, owner: str) -> list[DocumentRecord]:
        """The owner's documents, by source."""
        rows = self._conn().execute(
            "SELECT * FROM documents WHERE owner = ? ORDER BY source", (owner,)
        ).fetchall()
        return [self._record(row) for row in rows]

    def counts(self, owner: str) -> tuple[int, int]:
        """(documents, chunks) of `owner`."""
        row = self._conn().execute(
            "SELECT COUNT(*), COALESCE(SUM(chunk_count), 0) FROM documents WHERE owner = ?", (owner,)
        ).fetchone()
        return int(row[0]), int(row[1])

    def corpus_version(self) -> int:
        """The version every write bumps; caches key on it."""
        row = self._conn().execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
        return int(row[0])

    def export_documents(self) -> Iterator[Exported]:
        """Every document of every owner with its chunks and vectors, read in one transaction so a
        concurrent ingest cannot tear the copy."""
        conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
        try:
            conn.execute("BEGIN")  # one read snapshot: a concurrent ingest cannot tear the copy
            keys = conn.execute("SELECT owner, id FROM documents ORDER BY owner, id").fetchall()
            for owner, document_id in keys:
                doc = conn.execute(
                    "SELECT id, owner, source, title, content_hash, status, metadata, chunk_count, size_bytes,"
                    " created_at, updated_at FROM documents WHERE owner = ? AND id = ?",
                    (owner, document_id),
                ).fetchone()
                rows = conn.execute(
                    "SELECT chunk_id, chunk_index, text, section, page, start_char, end_char, embedding, blocks"
                    " FROM chunks WHERE owner = ? AND document_id = ? ORDER BY rowid",
                    (owner, document_id),
                ).fetchall()
                record = DocumentRecord(
                    id=doc[0], owner=doc[1], source=doc[2], title=doc[3], content_hash=doc[4], status=doc[5],
                    metadata=json.loads(doc[6]), chunk_count=doc[7], size_bytes=doc[8],
                    created_at=doc[9], updated_at=doc[10],
                )
                chunks = [
                    Chunk(chunk_id=r[0], document_id=document_id, chunk_index=r[1], text=r[2], section=r[3],
                          page=r[4], start=r[5], end=r[6], blocks=blocks_from_json(r[8]))
                    for r in rows
                ]
                vectors = (
                    np.stack([np.frombuffer(r[7], dtype=np.float32) for r in rows])
                    if rows else np.zeros((0, 0), dtype=np.float32)
                )
                yield record, chunks, vectors
        finally:
            conn.close()

    # --- passages ------------------------------------------------------------------------
    _PASSAGE_SQL = (
        "SELECT c.rowid AS rowid, c.chunk_id, c.document_id, c.chunk_index, c.text, c.section, c.page,"
        " c.start_char, c.end_char, c.blocks, d.title, d.source, d.metadata"
        " FROM chunks c JOIN documents d ON d.owner = c.owner AND d.id = c.document_id"
    )

    @staticmethod
    def _passage(row: sqlite3.Row) -> Passage:
        return Passage(
            chunk_id=row["chunk_id"], document_id=row["document_id"], document_name=row["title"],
            source=row["source"], chunk_index=row["chunk_index"], text=row["text"],
            section=row["section"], page=row["page"], start=row["start_char"], end=row["end_char"],
            metadata=json.loads(row["metadata"]), blocks=blocks_from_json(row["blocks"]),
        )

    def get_passage(self, owner: str, document_id: str | None, chunk_id: str) -> Passage | None:
        """One of the owner's chunks as a passage, or None."""
        sql = self._PASSAGE_SQL + " WHERE c.owner = ? AND c.chunk_id = ?"
        params: list[Any] = [owner, chunk_id]
        if document_id is not None:
            sql += " AND c.document_id = ?"
            params.append(document_id)
        row = self._conn().execute(sql + " ORDER BY c.rowid LIMIT 1", params).fetchone()
        return self._passage(row) if row else None

    # --- search --------------------------------------------------------------------------
    def _scope_sql(self, request: SearchRequest) -> tuple[str, list[Any]]:
        """Owner, document-id and metadata conditions on aliases `c` (chunks) and `d` (documents)."""
        clauses = ["c.owner = ?"]
        params: list[Any] = [request.owner]
        if request.document_ids is not None:
            ids = list(request.document_ids)
            clauses.append(f"c.document_id IN ({','.join('?' * len(ids))})" if ids else "0")
            params.extend(ids)
        for key, value in (request.filters or {}).items():
            if not _FILTER_KEY.match(key):
                raise RetrievalError(f"invalid metadata filter key {key!r}")
            clauses.append("json_extract(d.metadata, ?) = ?")
            params.extend([f'$."{key}"', value if isinstance(value, int | float) else str(value)])
        return " AND ".join(clauses), params

    def _phrase_rows(self, words: list[str], cap: int) -> int:
        """Rows matching one phrase, counted up to `cap` + 1 (a doclist walk, no ranking);
        remembered per corpus version, so frequent words cost one count per version and cap."""
        version = self.corpus_version()
        key = (" ".join(words), cap)
        with self._matrix_lock:
            if self._phrase_counts_version != version:
                self._phrase_counts.clear()
                self._phrase_counts_version = version
            cached = self._phrase_counts.get(key)
        if cached is not None:
            return cached
        row = self._conn().execute(
            "SELECT count(*) FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)",
            (fts5_phrase(words), cap + 1),
        ).fetchone()
        count = int(row[0])
        with self._matrix_lock:
            if len(self._phrase_counts) > 50_000:
                self._phrase_counts.clear()
            self._phrase_counts[key] = count
        return count

    def _lexical(self, request: SearchRequest, limit: int) -> LexicalRanking:
        phrases = query_phrases(request.text)
        if len(phrases) > 1:
            phrases = drop_common(phrases, self._phrase_rows, self.common_rows)
        match = fts5_match(request.text, phrases)
        if match is None:
            return LexicalRanking([])
        if request.document_ids is None and not request.filters and self._owns_everything(request.owner):
            found = self._lexical_unscoped(request.owner, match, limit)
            if found is not None:
                return found
        scope, params = self._scope_sql(request)
        # The scope index answers the owner/document check per match without reading chunk rows;
        # the documents table is joined only when metadata filters need it.
        documents = (" JOIN documents d ON d.owner = c.owner AND d.id = c.document_id"
                     if request.filters else "")
        rows = self._conn().execute(
            "SELECT c.rowid, -bm25(chunks_fts, 1.0, 0.5, 0.3) FROM chunks_fts f"
            " JOIN chunks c INDEXED BY chunks_scope ON c.rowid = f.rowid"
            f"{documents} WHERE chunks_fts MATCH ? AND {scope}"
            " ORDER BY bm25(chunks_fts, 1.0, 0.5, 0.3), c.rowid LIMIT ?",
            [match, *params, limit],
        ).fetchall()
        return lexical_ranking([(int(row[0]), float(row[1])) for row in rows])

    def _owns_everything(self, owner: str) -> bool:
        """Whether every chunk of the database was `owner`'s at the last look (once per corpus
        version: two index seeks). Only a hint: `_lexical_unscoped` checks its answer."""
        version = self.corpus_version()
        with self._matrix_lock:
            seen, sole = self._sole_owner
        if seen != version:
            conn = self._conn()
            low = conn.execute("SELECT min(owner) FROM chunks").fetchone()[0]
            high = conn.execute("SELECT max(owner) FROM chunks").fetchone()[0]
            sole = low if low == high else None
            with self._matrix_lock:
                self._sole_owner = (version, sole)
        return sole == owner

    def _lexical_unscoped(self, owner: str, match: str, limit: int) -> LexicalRanking | None:
        """The BM25 ranking without the per-match owner check, for a database one owner fills;
        None when any row it found is not (or no longer) the owner's, and the scoped statement
        must run. The owner check costs as much as the ranking itself on queries matching
        thousands of rows (the latency tail at 100k chunks). When every row returned is the
        owner's, it is the scoped statement's answer: the owner's matches are a subset of all
        matches, so the best `limit` of all, being all the owner's, are the owner's best."""
        conn = self._conn()
        rows = conn.execute(
            "SELECT rowid, -bm25(chunks_fts, 1.0, 0.5, 0.3) FROM chunks_fts WHERE chunks_fts MATCH ?"
            " ORDER BY bm25(chunks_fts, 1.0, 0.5, 0.3), rowid LIMIT ?",
            (match, limit),
        ).fetchall()
        if rows:
            ids = [int(row[0]) for row in rows]
            owned = conn.execute(
                f"SELECT count(*) FROM chunks WHERE owner = ? AND rowid IN ({','.join('?' * len(ids))})",
                [owner, *ids],
            ).fetchone()[0]
            if owned != len(ids):
                return None
        return lexical_ranking([(int(row[0]), float(row[1])) for row in rows])

    def _matrix(self, owner: str) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        version = self.corpus_version()
        key = (owner, version)
        with self._matrix_lock:
            cached = self._matrices.get(key)
            if cached is not None:
                return cached
        rows = self._conn().execute(
            "SELECT rowid, embedding FROM chunks WHERE owner = ? ORDER BY rowid", (owner,)
        ).fetchall()
        rowids = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
        blob = b"".join(row[1] for row in rows)
        matrix = np.frombuffer(blob, dtype=np.float32).reshape(len(rows), -1) if rows else np.zeros(
            (0, 0), dtype=np.float32
        )
        with self._matrix_lock:
            # Keep only the newest version per owner: older ones can never be asked for again.
            for stale in [k for k in self._matrices if k[0] == owner]:
                del self._matrices[stale]
            self._matrices[key] = (rowids, matrix)
        return rowids, matrix

    def centroid(self, owner: str) -> Centroid | None:
        """The mean of the owner's vectors, kept until the corpus changes. Above `_CENTROID_SAMPLE`
        vectors it is the mean of a fixed hash-chosen sample of that many (200,000 vectors took 0.5 s
        to read, once after every write; the sample's mean similarity to a query is within about
        0.001 of the whole's), summed in batches so an owner searched through the ANN graph never
        loads its whole matrix; taken from the matrix instead when exact search has loaded it."""
        version = self.corpus_version()
        with self._matrix_lock:
            cached = self._centroids.get(owner)
            if cached is not None and cached[0] == version:
                return cached[1]
            loaded = self._matrices.get((owner, version))
        if loaded is not None and len(loaded[0]):  # exact search already holds every vector in memory
            return self._keep_centroid(owner, version,
                                       Centroid(loaded[1].mean(axis=0, dtype=np.float64).astype(np.float32),
                                                len(loaded[0])))
        total: npt.NDArray[np.float64] | None = None
        sampled = 0
        try:
            conn = self._conn()
            count = int(conn.execute("SELECT COUNT(*) FROM chunks WHERE owner = ?", (owner,)).fetchone()[0])
            # Knuth's multiplicative hash spreads consecutive rowids evenly over 32 bits: a rowid is
            # sampled when its hash falls below the sampled share of that range.
            below = (1 << 32) * min(1.0, _CENTROID_SAMPLE / count) if count else 0
            cursor = conn.execute(
                "SELECT embedding FROM chunks WHERE owner = ? AND (rowid * 2654435761) % 4294967296 < ?", (owner, below))
            while rows := cursor.fetchmany(_CENTROID_BATCH):
                block = np.frombuffer(b"".join(row[0] for row in rows), dtype=np.float32).reshape(len(rows), -1)
                summed = block.sum(axis=0, dtype=np.float64)
                total = summed if total is None else total + summed
                sampled += len(rows)
        except sqlite3.Error as exc:
            raise RetrievalError(f"reading the corpus's vectors failed: {exc.__class__.__name__}") from exc
        return self._keep_centroid(owner, version,
                                   Centroid((total / sampled).astype(np.float32), count) if total is not None else None)

    def _keep_centroid(self, owner: str, version: int, centroid: Centroid | None) -> Centroid | None:
        with self._matrix_lock:
            self._centroids[owner] = (version, centroid)
        return centroid

    def _dense(
        self, request: SearchRequest, limit: int, allowed: set[int] | None
    ) -> tuple[list[int], dict[int, float]]:
        if request.vector is None:
            return [], {}
        version = self.corpus_version()
        if self._approximate(request, version):
            graphs = self._ann_indexes()
            if allowed is None and graphs is not None:
                found = graphs.search(request.owner, request.vector, limit, version)
                if found is not None:
                    return found
            elif allowed is not None:
                # Filtered: scan exactly just the allowed rows instead of the owner's whole matrix.
                return self._dense_subset(request, limit, allowed)
        rowids, matrix = self._matrix(request.owner)
        if len(rowids) == 0:
            return [], {}
        scores = matrix @ np.asarray(request.vector, dtype=np.float32)
        if allowed is not None:
            mask = np.isin(rowids, np.fromiter(allowed, dtype=np.int64, count=len(allowed)))
            scores = np.where(mask, scores, -np.inf)
        return _top(rowids, scores, limit)

    def _dense_subset(
        self, request: SearchRequest, limit: int, allowed: set[int]
    ) -> tuple[list[int], dict[int, float]]:
        ids = sorted(allowed)
        rowids, matrix = self._rows_vectors(request.owner, np.array(ids, dtype=np.int64))
        if len(rowids) == 0:
            return [], {}
        return _top(rowids, matrix @ np.asarray(request.vector, dtype=np.float32), limit)

    # --- approximate search (HNSW beside the database) ----------------------------------
    def _approximate(self, request: SearchRequest, version: int) -> bool:
        """Whether this request's owner is large enough for the ANN graph."""
        if request.ann_min_chunks <= 0:
            return False
        cached = self._sizes.get(request.owner)
        if cached is None or cached[0] != version:
            cached = (version, self.counts(request.owner)[1])
            self._sizes[request.owner] = cached
        return cached[1] >= request.ann_min_chunks

    def _ann_indexes(self) -> ann.AnnIndexes | None:
        with self._matrix_lock:
            if not self._ann_checked:
                self._ann_checked = True
                if ann.available():
                    self._ann = ann.AnnIndexes(
                        self.ann_path(), rows=self._ann_rows,
                        vectors=self._ann_vectors, identity=self._ann_identity,
                    )
            return self._ann

    def ann_path(self) -> Path:
        """The directory of the ANN graphs kept beside this database."""
        return self.path.with_name(self.path.name + ".ann")

    def prepare_search(self, owner: str, *, ann_min_chunks: int) -> None:
        """Bring the owner's ANN graph up to date now (after an ingest), when the owner is
        above the threshold, so the next query does not find it stale."""
        version = self.corpus_version()
        request = SearchRequest(owner=owner, text="", vector=None, ann_min_chunks=ann_min_chunks)
        graphs = self._ann_indexes()
        if graphs is not None and self._approximate(request, version):
            graphs.refresh(owner, version)

    def _ann_identity(self) -> str:
        rows = self._conn().execute("SELECT key, value FROM meta WHERE key != 'version' ORDER BY key").fetchall()
        return json.dumps([[row[0], row[1]] for row in rows], separators=(",", ":"))

    def _ann_rows(self, owner: str) -> ann.Rows:
        conn = self._conn()
        conn.execute("BEGIN")  # the version and the rows from one snapshot
        try:
            version = int(conn.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()[0])
            rows = conn.execute(
                "SELECT rowid, chunk_id FROM chunks WHERE owner = ? ORDER BY rowid", (owner,)
            ).fetchall()
        finally:
            conn.execute("COMMIT")
        rowids = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
        return ann.Rows(version, rowids, ann.chunk_keys(row[1] for row in rows))

    def _ann_vectors(
        self, owner: str, rowids: npt.NDArray[np.int64], keys: npt.NDArray[np.uint32]
    ) -> npt.NDArray[np.float32]:
        found, matrix, chunk_ids = self._rows_vectors(owner, rowids, with_chunk_ids=True)
        if len(found) != len(rowids) or not np.array_equal(found, rowids) or not np.array_equal(
            ann.chunk_keys(chunk_ids), keys
        ):
            raise ann.StaleRows("rows changed while they were read")
        return np.asarray(matrix, dtype=np.float32)

    def _rows_vectors(self, owner: str, rowids: npt.NDArray[np.int64], *, with_chunk_ids: bool = False) -> Any:
        """(rowids found, their vectors[, chunk ids]) for the given ascending rowids of `owner`."""
        conn = self._conn()
        rows: list[sqlite3.Row] = []
        # Most of the owner: one ordered scan beats thousands of lookups.
        if len(rowids) > 5000:
            wanted = set(rowids.tolist())
            for row in conn.execute(
                "SELECT rowid, chunk_id, embedding FROM chunks WHERE owner = ? ORDER BY rowid", (owner,)
            ):
                if row[0] in wanted:
                    rows.append(row)
        else:
            for start in range(0, len(rowids), 500):
                part = [int(r) for r in rowids[start : start + 500]]
                rows.extend(conn.execute(
                    "SELECT rowid, chunk_id, embedding FROM chunks WHERE owner = ? AND rowid IN"
                    f" ({','.join('?' * len(part))}) ORDER BY rowid",
                    [owner, *part],
                ).fetchall())
        found = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
        matrix = (np.frombuffer(b"".join(row[2] for row in rows), dtype=np.float32).reshape(len(rows), -1)
                  if rows else np.zeros((0, 0), dtype=np.float32))
        if with_chunk_ids:
            return found, matrix, [row[1] for row in rows]
        return found, matrix

    def _allowed_rowids(self, request: SearchRequest) -> set[int] | None:
        if request.document_ids is None and not request.filters:
            return None
        scope, params = self._scope_sql(request)
        rows = self._conn().execute(
            "SELECT c.rowid FROM chunks c JOIN documents d ON d.owner = c.owner AND d.id = c.document_id"
            f" WHERE {scope}",
            params,
        ).fetchall()
        return {int(row[0]) for row in rows}

    def search(self, request: SearchRequest) -> list[Passage]:
        """FTS5 BM25 and exact numpy dense candidates, fused by reciprocal rank (keeping a lexical match
        that stands out: `ranking.fused_top`), within the owner and filters."""
        try:
            pool = max(request.candidate_pool, request.top_k)
            lexical = self._lexical(request, pool)
            dense, dense_scores = self._dense(request, pool, self._allowed_rowids(request))
        except sqlite3.Error as exc:
            raise RetrievalError(f"search failed: {exc.__class__.__name__}") from exc
        fused = fused_top(lexical, dense, request.rrf_k, request.top_k)
        if not fused:
            return []
        ids = [rowid for rowid, _ in fused]
        rows = self._conn().execute(
            self._PASSAGE_SQL + f" WHERE c.rowid IN ({','.join('?' * len(ids))})", ids
        ).fetchall()
        return assemble_passages(fused, {int(row["rowid"]): row for row in rows}, self._passage,
                                 lexical=lexical.ids, dense_scores=dense_scores)

    # --- embedder identity and `citeline reindex` ------------------------------------------
    def embedder_identity(self) -> EmbedderIdentity | None:
        return _recorded_embedder(self._conn())

    def reindex_begin(self, target: EmbedderIdentity) -> None:
        def begin(conn: sqlite3.Connection) -> None:
            row = conn.execute("SELECT value FROM meta WHERE key = 'reindex_target'").fetchone()
            if row is None or not EmbedderIdentity.from_json(row[0]).same_as(target):
                # Vectors of another target (an abandoned reindex) must never be swapped in.
                conn.execute("DELETE FROM reindex_vectors")
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('reindex_target', ?)", (target.to_json(),))

        self._write(begin, bump=False)

    def reindex_pending(self, after_rowid: int, limit: int) -> list[ReindexRow]:
        rows = self._conn().execute(
            "SELECT c.rowid, c.chunk_id, d.title, c.section, c.text FROM chunks c"
            " JOIN documents d ON d.owner = c.owner AND d.id = c.document_id"
            " WHERE c.rowid > ? AND NOT EXISTS (SELECT 1 FROM reindex_vectors r"
            " WHERE r.rowid = c.rowid AND r.chunk_id = c.chunk_id) ORDER BY c.rowid LIMIT ?",
            (after_rowid, limit),
        ).fetchall()
        return [ReindexRow(int(r[0]), r[1], r[2], r[3], r[4]) for r in rows]

    def reindex_put(self, target: EmbedderIdentity, rowids: Sequence[tuple[int, str]],
                    vectors: npt.NDArray[np.float32]) -> None:
        if len(rowids) != len(vectors):
            raise ValueError("one vector per chunk is required")

        def put(conn: sqlite3.Connection) -> None:
            _check_reindex_target(conn, target)
            conn.executemany(
                "INSERT OR REPLACE INTO reindex_vectors VALUES (?,?,?)",
                [(rowid, chunk_id, np.asarray(vector, dtype=np.float32).tobytes())
                 for (rowid, chunk_id), vector in zip(rowids, vectors, strict=True)],
            )

        self._write(put, bump=False)

    def reindex_status(self) -> tuple[int, int]:
        conn = self._conn()
        done = conn.execute(
            "SELECT COUNT(*) FROM chunks c JOIN reindex_vectors r ON r.rowid = c.rowid AND r.chunk_id = c.chunk_id"
        ).fetchone()[0]
        total = conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        return int(done), int(total)

    def reindex_commit(self, target: EmbedderIdentity) -> bool:
        def swap(conn: sqlite3.Connection) -> bool:
            _check_reindex_target(conn, target)
            missing = conn.execute(
                "SELECT COUNT(*) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM reindex_vectors r"
                " WHERE r.rowid = c.rowid AND r.chunk_id = c.chunk_id)"
            ).fetchone()[0]
            if missing:
                return False
            # Every chunk has exactly one shadow row with its rowid and chunk id: swap them all.
            conn.execute("UPDATE chunks SET embedding ="
                         " (SELECT r.embedding FROM reindex_vectors r WHERE r.rowid = chunks.rowid)")
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('embedder', ?)", (target.to_json(),))
            conn.execute("DELETE FROM meta WHERE key = 'reindex_target'")
            conn.execute("DELETE FROM reindex_vectors")
            return True

        return self._write(swap)

    # --- key/value (persistent caches, users) -------------------------------------------
    def kv_get(self, namespace: str, key: str) -> str | None:
        """A value of the key/value table, or None."""
        row = self._conn().execute(
            "SELECT value FROM kv WHERE namespace = ? AND key = ?", (namespace, key)
        ).fetchone()
        return str(row[0]) if row else None

    def kv_put(self, namespace: str, key: str, value: str) -> None:
        """Store a value, replacing any previous one (without bumping the corpus version)."""
        conn = self._conn()
        # Cache writes do not bump the corpus version: they do not change what can be retrieved.
        try:
            conn.execute(
                "INSERT OR REPLACE INTO kv VALUES (?,?,?,?)", (namespace, key, value, time.time())
            )
        except sqlite3.OperationalError as exc:
            if _is_storage_failure(exc):
                raise storage_error(exc, self.path) from None
            raise

    def check_writable(self) -> None:
        """Raise StorageError unless a write can succeed now: the file has room under its cap
        and the disk has space, and a probe row is really written."""
        conn = self._conn()
        if self.max_bytes > 0:
            pages, free = (int(conn.execute(f"PRAGMA {p}").fetchone()[0]) for p in ("page_count", "freelist_count"))
            limit = int(conn.execute("PRAGMA max_page_count").fetchone()[0])
            if limit - pages + free < 2:
                raise storage_error(sqlite3.OperationalError("database or disk is full"), self.path)
        try:
            free_bytes = shutil.disk_usage(self.path.parent).free
        except OSError:
            free_bytes = None
        if free_bytes is not None and free_bytes < _MIN_FREE_BYTES:
            raise storage_error(sqlite3.OperationalError("no space left on device"), self.path)
        self.kv_put(_PROBE_NS, "write_probe", str(time.time()))

    def kv_items(self, namespace: str) -> list[tuple[str, str]]:
        """Every (key, value) of a namespace, by key."""
        rows = self._conn().execute(
            "SELECT key, value FROM kv WHERE namespace = ? ORDER BY key", (namespace,)
        ).fetchall()
        return [(str(row[0]), str(row[1])) for row in rows]

    def kv_delete(self, namespace: str, key: str) -> bool:
        """Remove a value; False when there was none."""
        cursor = self._conn().execute("DELETE FROM kv WHERE namespace = ? AND key = ?", (namespace, key))
        return cursor.rowcount > 0


def _top(
    rowids: npt.NDArray[np.int64], scores: npt.NDArray[np.float32], limit: int
) -> tuple[list[int], dict[int, float]]:
    """The `limit` best-scoring rowids, best first (ties by position), with their scores."""
    take = min(limit, len(scores))
    if take <= 0:
        return [], {}
    top = np.argpartition(-scores, take - 1)[:take]
    top = top[np.argsort(-scores[top], kind="stable")]
    ranked = [int(rowids[i]) for i in top if np.isfinite(scores[i])]
    return ranked, {int(rowids[i]): float(scores[i]) for i in top if np.isfinite(scores[i])}


def _recorded_embedder(conn: sqlite3.Connection) -> EmbedderIdentity | None:
    """The identity recorded in `meta` (see `stored_identity`)."""
    has_vectors = bool(conn.execute("SELECT EXISTS (SELECT 1 FROM chunks)").fetchone()[0])
    row = conn.execute("SELECT value FROM meta WHERE key = 'embedder'").fetchone()
    return stored_identity(has_vectors, row[0] if row else None)


def _claim_embedder(conn: sqlite3.Connection, embedder: EmbedderIdentity) -> None:
    """Inside a write: refuse another embedder's vectors, or record this one as the index's."""
    refuse_other(_recorded_embedder(conn), embedder)
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('embedder', ?)", (embedder.to_json(),))


def _check_reindex_target(conn: sqlite3.Connection, target: EmbedderIdentity) -> None:
    row = conn.execute("SELECT value FROM meta WHERE key = 'reindex_target'").fetchone()
    check_reindex_target(row[0] if row else None, target)


def _enable_wal(conn: sqlite3.Connection, attempts: int = 40) -> None:
    """Switch the database to WAL. Changing the journal mode needs an exclusive lock and SQLite
    answers SQLITE_BUSY at once, without its busy handler, while another process is creating or
    switching the same new database (two `ingest`s started together): retry briefly."""
    delay = 0.01
    for attempt in range(attempts):
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if ("locked" not in str(exc) and "busy" not in str(exc)) or attempt == attempts - 1:
                raise
            time.sleep(delay)
            delay = min(0.5, delay * 2)


def _open(url: str) -> SQLiteStore:
    """`sqlite:PATH`, optionally `sqlite:PATH?max_bytes=N` to cap the file's size."""
    path = url.split(":", 1)[1]
    max_bytes = 0
    option = _URL_OPTION.search(path)
    if option is not None:
        path, max_bytes = path[: option.start()], int(option.group(1))
    if not path:
        raise ConfigurationError("a sqlite store URL needs a path", hint="use `sqlite:/path/to/index.sqlite3`")
    return SQLiteStore(Path(path).expanduser(), max_bytes=max_bytes)


register_engine("sqlite", _open)
