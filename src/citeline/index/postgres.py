"""The shared engine: PostgreSQL with `tsvector` full text and pgvector HNSW vectors.

Many API workers can share one database: every write is one transaction that also bumps the
corpus version (a single row, so writers are serialised exactly like SQLite's IMMEDIATE
transactions and the version is monotonic in commit order), and every query filters by owner
inside SQL. Connections come from a `psycopg_pool` pool; the schema is migrated on open.

URL: `postgresql://user:pass@host:5432/db?pool_min_size=1&pool_max_size=10&ef_search=100`.
The three citeline options are removed before the rest goes to libpq, so any libpq parameter
(`sslmode`, `connect_timeout`, `application_name`, ...) works as usual.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import numpy as np
import numpy.typing as npt

from citeline.documents.models import Chunk
from citeline.errors import ConfigurationError, RetrievalError, StorageError
from citeline.index.embedder import EmbedderIdentity, check_reindex_target, refuse_other, stored_identity
from citeline.index.pg_migrations import import_driver, migrate
from citeline.index.ranking import (
    RARE_ROWS_FACTOR,
    LexicalRanking,
    assemble_passages,
    fused_top,
    lexical_ranking,
    query_phrases,
    rarest,
)
from citeline.index.store import (
    Centroid,
    DocumentRecord,
    Passage,
    ReindexRow,
    SearchRequest,
    Store,
    blocks_from_json,
    register_engine,
)

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

_FILTER_KEY = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
# ts_rank_cd weights for {D, C, B, A}: title (C) 0.3, section (B) 0.5, text (A) 1.0, the same
# proportions as the SQLite engine's bm25 column weights.
_RANK_WEIGHTS = "{0.1, 0.3, 0.5, 1.0}"
_DOC_COLUMNS = (
    "id, owner, source, title, content_hash, status, metadata, chunk_count, size_bytes,"
    " created_at, updated_at"
)
_CHUNK_COLUMNS = (
    "owner, document_id, chunk_id, chunk_index, text, section, page, start_char, end_char, title, embedding,"
    " blocks"
)
_CHUNK_TYPES = ["text", "text", "text", "int4", "text", "text", "int4", "int4", "int4", "text", "vector", "jsonb"]
_PASSAGE_SQL = (
    "SELECT c.rowid, c.chunk_id, c.document_id, c.chunk_index, c.text, c.section, c.page,"
    " c.start_char, c.end_char, d.title, d.source, d.metadata, c.blocks"
    " FROM chunks c JOIN documents d ON d.owner = c.owner AND d.id = c.document_id"
)


@dataclass(frozen=True)
class PostgresOptions:
    """citeline's own URL parameters (see the module docstring and docs/scaling.md)."""

    conninfo: str
    pool_min_size: int = 1
    pool_max_size: int = 10
    # HNSW candidate list per query; at least the candidate pool is always used. 100 measured
    # recall@10 >= 0.95 on 100k clustered 384-dim vectors (bench/store.py).
    ef_search: int = 100

    @classmethod
    def from_url(cls, url: str) -> PostgresOptions:
        """The options a store URL carries: citeline's own query parameters (pool sizes, `ef_search`)
        are taken out, the rest is the connection string."""
        parts = urlsplit(url)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        ours: dict[str, int] = {}
        for name in ("pool_min_size", "pool_max_size", "ef_search"):
            if name in query:
                raw = query.pop(name)
                try:
                    ours[name] = int(raw)
                except ValueError:
                    raise ConfigurationError(
                        f"store URL parameter {name}={raw!r} is not an integer",
                        hint=f"use e.g. `{name}=10` in CITELINE_STORE",
                    ) from None
        # libpq accepts both schemes; normalise so the conninfo works with any libpq client.
        conninfo = urlunsplit(("postgresql", parts.netloc, parts.path, urlencode(query), parts.fragment))
        options = cls(conninfo=conninfo, **ours)
        if not 1 <= options.pool_min_size <= options.pool_max_size:
            raise ConfigurationError(
                "pool sizes must satisfy 1 <= pool_min_size <= pool_max_size",
                hint="fix pool_min_size / pool_max_size in CITELINE_STORE",
            )
        return options


class _CommonLexemes:
    """Lexemes in too many chunks to rank, read from the planner's statistics of `chunks.tsv`.

    ts_rank_cd costs ~10 µs per matching row, so a word found in 10% of 100k chunks adds
    ~100 ms to every query containing it, while separating passages hardly at all (BM25 would
    give it an IDF near zero). Such single words are left out of the lexical query when rarer
    words remain, and when none remains only the rarest of them is ranked. Small corpora are
    unaffected: the cut is an absolute row count, and without statistics (before the first
    ANALYZE / autovacuum) nothing is cut.
    """

    MAX_ROWS = 2000
    TTL_S = 300.0  # statistics change only on ANALYZE; re-read them now and then

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loaded_at = -float("inf")
        self._common: dict[str, float] = {}

    def get(self, conn: psycopg.Connection[Any]) -> dict[str, float]:
        """The common lexemes, each with its estimated number of rows."""
        now = time.monotonic()
        with self._lock:
            if now - self._loaded_at < self.TTL_S:
                return self._common
        row = conn.execute(
            "SELECT s.most_common_elems::text::text[], s.most_common_elem_freqs, c.reltuples"
            " FROM pg_class c LEFT JOIN pg_stats s ON s.schemaname = current_schema()"
            " AND s.tablename = 'chunks' AND s.attname = 'tsv'"
            " WHERE c.oid = 'chunks'::regclass"
        ).fetchone()
        common: dict[str, float] = {}
        if row and row[0] and row[1] and row[2] > 0:
            # The frequency array has 3 extra trailing entries (min, max, null share): zip stops early.
            pairs = zip(row[0], row[1], strict=False)
            common = {lexeme: share * row[2] for lexeme, share in pairs if share * row[2] > self.MAX_ROWS}
        with self._lock:
            self._common, self._loaded_at = common, now
        return common


def _configure(conn: psycopg.Connection[tuple[Any, ...]]) -> None:
    # Teaches this connection to send/receive numpy arrays as `vector` (binary, no text parsing).
    from pgvector.psycopg import register_vector

    register_vector(conn)


class PostgresStore(Store):
    """`postgresql://...` — pooled connections, one transaction per write, owner in every query."""

    def __init__(self, url: str) -> None:
        import_driver()
        from psycopg_pool import ConnectionPool

        self.options = PostgresOptions.from_url(url)
        migrate(self.options.conninfo)
        self._pool: ConnectionPool[Any] = ConnectionPool(
            self.options.conninfo,
            min_size=self.options.pool_min_size,
            max_size=self.options.pool_max_size,
            kwargs={"autocommit": True},
            configure=_configure,
            # A worker outlives server restarts and idle-connection reapers: check on checkout.
            check=ConnectionPool.check_connection,
            name="citeline",
            open=True,
        )
        self._common = _CommonLexemes()
        self._dim: int | None = None  # width of chunks.embedding; changes only with the embedder
        # owner -> (corpus version, mean vector); a benign race at worst computes one twice
        self._centroids: dict[str, tuple[int, Centroid | None]] = {}

    @property
    def conninfo(self) -> str:
        """libpq connection string (citeline's options removed): for LangGraph's checkpointer etc."""
        return self.options.conninfo

    @contextmanager
    def _conn(self) -> Iterator[psycopg.Connection[Any]]:
        import psycopg
        from psycopg_pool import PoolTimeout

        try:
            with self._pool.connection() as conn:
                yield conn
        except PoolTimeout as exc:
            raise RetrievalError(
                "no PostgreSQL connection available in time",
                hint="raise pool_max_size in CITELINE_STORE, or the server's max_connections",
            ) from exc
        except psycopg.Error as exc:
            if str(getattr(exc, "sqlstate", "") or "").startswith("53"):  # disk full, out of memory
                raise StorageError(
                    f"the PostgreSQL server cannot write ({exc.__class__.__name__}: insufficient resources, "
                    "e.g. no space left on its disk); nothing was half-written",
                    hint="free space on the database server's disk and try again",
                ) from exc
            # Class name only: SQL, paths and server details never reach a user (they would help
            # an attacker, and tell the user nothing they can act on).
            raise RetrievalError(f"the PostgreSQL store failed: {exc.__class__.__name__}") from exc

    @contextmanager
    def _write(self) -> Iterator[psycopg.Connection[Any]]:
        with self._conn() as conn, conn.transaction():
            # First statement of every write: takes the version row lock, so concurrent writers
            # (any process) queue here and a document is never replaced by two at once.
            conn.execute("UPDATE citeline_meta SET value = value + 1 WHERE key = 'version'")
            yield conn

    def close(self) -> None:
        """Close the connection pool."""
        self._pool.close()

    # --- documents -----------------------------------------------------------------------
    def replace_document(
        self, record: DocumentRecord, chunks: Sequence[Chunk], vectors: npt.NDArray[np.float32],
        *, embedder: EmbedderIdentity | None = None,
    ) -> None:
        """Insert or replace a document with its chunks and vectors in one transaction, timestamped
        now."""
        self._replace(record, chunks, vectors, keep_times=False, embedder=embedder)

    def import_document(
        self, record: DocumentRecord, chunks: Sequence[Chunk], vectors: npt.NDArray[np.float32],
        *, embedder: EmbedderIdentity | None = None,
    ) -> None:
        """Like `replace_document` but keeps the record's timestamps (`citeline db copy`)."""
        self._replace(record, chunks, vectors, keep_times=True, embedder=embedder)

    def _vector_dim(self, conn: psycopg.Connection[Any], *, fresh: bool = False) -> int:
        """The width of `chunks.embedding` (pgvector keeps it as the column's type modifier)."""
        if fresh or self._dim is None:
            row = conn.execute(
                "SELECT atttypmod FROM pg_attribute WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'"
            ).fetchone()
            assert row is not None
            self._dim = int(row[0])
        return self._dim

    def _replace(
        self,
        record: DocumentRecord,
        chunks: Sequence[Chunk],
        vectors: npt.NDArray[np.float32],
        *,
        keep_times: bool,
        embedder: EmbedderIdentity | None = None,
    ) -> None:
        if len(chunks) != len(vectors):
            raise ValueError("one vector per chunk is required")
        matrix = np.asarray(vectors, dtype=np.float32)
        now = time.time()
        with self._write() as conn:
            if embedder is not None:
                self._claim_embedder(conn, embedder)
            width = self._vector_dim(conn, fresh=embedder is not None)
            if chunks and (matrix.ndim != 2 or matrix.shape[1] != width):
                raise ConfigurationError(
                    f"this index stores {width}-dimensional vectors, got shape {matrix.shape}",
                    hint="use the embedder the index was built with, or `citeline reindex` with the new one",
                )
            row = conn.execute(
                "DELETE FROM documents WHERE owner = %s AND id = %s RETURNING created_at",
                (record.owner, record.id),
            ).fetchone()  # chunks go with it (ON DELETE CASCADE)
            created = record.created_at if keep_times else (row[0] if row else now)
            updated = record.updated_at if keep_times else now
            conn.execute(
                f"INSERT INTO documents ({_DOC_COLUMNS}) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                (
                    record.id, record.owner, record.source, record.title, record.content_hash,
                    record.status, json.dumps(record.metadata, sort_keys=True, default=str),
                    len(chunks), record.size_bytes, created, updated,
                ),
            )
            if chunks:
                # COPY is several times faster than INSERTs for the hundreds of chunks of a book.
                with (
                    conn.cursor() as cursor,
                    cursor.copy(f"COPY chunks ({_CHUNK_COLUMNS}) FROM STDIN (FORMAT BINARY)") as copy,
                ):
                    copy.set_types(_CHUNK_TYPES)
                    for chunk, vector in zip(chunks, matrix, strict=True):
                        copy.write_row((
                            record.owner, record.id, chunk.chunk_id, chunk.chunk_index, chunk.text,
                            chunk.section, chunk.page, chunk.start, chunk.end, record.title, vector,
                            [block.to_json() for block in chunk.blocks],
                        ))

    def delete_document(self, owner: str, document_id: str) -> bool:
        """Remove the owner's document (its chunks go with it); False when the owner has none by that
        id."""
        with self._write() as conn:
            cursor = conn.execute("DELETE FROM documents WHERE owner = %s AND id = %s", (owner, document_id))
            return cursor.rowcount > 0

    @staticmethod
    def _record(row: Sequence[Any]) -> DocumentRecord:
        return DocumentRecord(
            id=row[0], owner=row[1], source=row[2], title=row[3], content_hash=row[4], status=row[5],
            metadata=row[6], chunk_count=row[7], size_bytes=row[8], created_at=row[9], updated_at=row[10],
        )

    def get_document(self, owner: str, document_id: str) -> DocumentRecord | None:
        """The owner's document record, or None (also for another owner's)."""
        with self._conn() as conn:
            row = conn.execute(
                f"SELECT {_DOC_COLUMNS} FROM documents WHERE owner = %s AND id = %s", (owner, document_id)
            ).fetchone()
        return self._record(row) if row else None

    def find_document(self, owner: str, source: str) -> DocumentRecord | None:
        """The owner's document ingested from `source`, or None."""
        with self._conn() as conn:
            row = conn.execute(
                f"SELECT {_DOC_COLUMNS} FROM documents WHERE owner = %s AND source = %s", (owner, source)
            ).fetchone()
        return self._record(row) if row else None

    def list_documents(self, owner: str) -> list[DocumentRecord]:
        """The owner's documents, by source in byte order (as the SQLite engine lists them)."""
        # COLLATE "C": byte order, the same as SQLite's, whatever the server's locale.
        with self._conn() as conn:
            rows = conn.execute(
                f'SELECT {_DOC_COLUMNS} FROM documents WHERE owner = %s ORDER BY source COLLATE "C"',
                (owner,),
            ).fetchall()
        return [self._record(row) for row in rows]

    def counts(self, owner: str) -> tuple[int, int]:
        """(documents, chunks) of `owner`."""
        with self._conn() as conn:
            row = conn.execute(
                "SELECT COUNT(*), COALESCE(SUM(chunk_count), 0) FROM documents WHERE owner = %s", (owner,)
            ).fetchone()
        assert row is not None
        return int(row[0]), int(row[1])

    def corpus_version(self) -> int:
        """The version every write bumps; caches key on it."""
        with self._conn() as conn:
            row = conn.execute("SELECT value FROM citeline_meta WHERE key = 'version'").fetchone()
        assert row is not None
        return int(row[0])

    # --- passages ------------------------------------------------------------------------
    @staticmethod
    def _passage(row: Sequence[Any]) -> Passage:
        return Passage(
            chunk_id=row[1], document_id=row[2], document_name=row[9], source=row[10],
            chunk_index=row[3], text=row[4], section=row[5], page=row[6], start=row[7], end=row[8],
            metadata=row[11], blocks=blocks_from_json(row[12]),
        )

    def get_passage(self, owner: str, document_id: str | None, chunk_id: str) -> Passage | None:
        """One of the owner's chunks as a passage, or None."""
        sql = _PASSAGE_SQL + " WHERE c.owner = %s AND c.chunk_id = %s"
        params: list[Any] = [owner, chunk_id]
        if document_id is not None:
            sql += " AND c.document_id = %s"
            params.append(document_id)
        with self._conn() as conn:
            row = conn.execute(sql + " ORDER BY c.rowid LIMIT 1", params).fetchone()
        return self._passage(row) if row else None

    # --- search --------------------------------------------------------------------------
    @staticmethod
    def _scope_sql(request: SearchRequest) -> tuple[str, list[Any], bool]:
        """Owner, document-id and metadata conditions on `c`/`d`; the flag says `d` is needed."""
        clauses = ["c.owner = %s"]
        params: list[Any] = [request.owner]
        if request.document_ids is not None:
            clauses.append("c.document_id = ANY(%s)")
            params.append(list(request.document_ids))
        for key, value in (request.filters or {}).items():
            if not _FILTER_KEY.match(key):
                raise RetrievalError(f"invalid metadata filter key {key!r}")
            # Numbers compare as numbers, anything else as its string, like the SQLite engine.
            clauses.append("d.metadata -> %s = %s::jsonb")
            params.extend([key, json.dumps(value if isinstance(value, int | float) else str(value))])
        return " AND ".join(clauses), params, bool(request.filters)

    def _phrases(self, conn: psycopg.Connection[Any], text: str) -> list[str]:
        """The query's phrases, minus single words too common to be worth ranking (if none remains: the rarest)."""
        phrases = [" ".join(words) for words in query_phrases(text)]
        common = self._common.get(conn) if phrases else {}
        if not common:
            return phrases
        rows = conn.execute(
            "SELECT tsvector_to_array(to_tsvector('citeline', p))"
            " FROM unnest(%s::text[]) WITH ORDINALITY AS t(p, n) ORDER BY n",
            (phrases,),
        ).fetchall()
        # Multi-word phrases stay: their adjacency makes them selective even when each word is not.
        pairs = [(phrase, lexemes) for phrase, (lexemes,) in zip(phrases, rows, strict=True)]
        kept = [phrase for phrase, lexemes in pairs if len(lexemes) != 1 or lexemes[0] not in common]
        if kept:
            return kept
        # Every phrase is one common lexeme. Ranking them all made ts_rank_cd score hundreds of
        # thousands of rows on a large corpus (the p95 tail); only the rarest are ranked (by the
        # statistics' estimates), as in the SQLite engine (ranking.drop_common).
        estimates = [common[lexemes[0]] for _, lexemes in pairs]
        return [phrases[i] for i in rarest(estimates, RARE_ROWS_FACTOR * self._common.MAX_ROWS)]

    @staticmethod
    def _tsquery(phrases: Sequence[str]) -> str:
        """A tsquery SQL expression OR-ing one `phraseto_tsquery` per phrase.

        The user's words only ever reach PostgreSQL as bound parameters of phraseto_tsquery,
        which treats its input as plain text: tsquery operators (`&`, `|`, `!`, `<->`, `:*`,
        quotes) in the question can never act as syntax.
        """
        return " || ".join(["phraseto_tsquery('citeline', %s)"] * len(phrases))

    def _lexical(self, conn: psycopg.Connection[Any], request: SearchRequest, limit: int) -> LexicalRanking:
        phrases = self._phrases(conn, request.text)
        if not phrases:
            return LexicalRanking([])
        scope, params, needs_documents = self._scope_sql(request)
        # Join documents only for metadata filters: the join makes the planner walk every chunk
        # of the owner's documents instead of using the GIN index.
        join = " JOIN documents d ON d.owner = c.owner AND d.id = c.document_id" if needs_documents else ""
        rows = conn.execute(
            f"SELECT c.rowid, ts_rank_cd('{_RANK_WEIGHTS}', c.tsv, q.query) AS rank FROM chunks c{join}"
            f" CROSS JOIN (SELECT {self._tsquery(phrases)} AS query) q"
            f" WHERE c.tsv @@ q.query AND {scope}"
            " ORDER BY rank DESC, c.rowid LIMIT %s",
            [*phrases, *params, limit],
        ).fetchall()
        # Same tail cut as the SQLite engine: near-zero matches would only dilute the fusion.
        return lexical_ranking([(int(row[0]), float(row[1])) for row in rows])

    def _dense(
        self, conn: psycopg.Connection[Any], request: SearchRequest, limit: int
    ) -> tuple[list[int], dict[int, float]]:
        if request.vector is None:
            return [], {}
        vector = np.asarray(request.vector, dtype=np.float32).reshape(-1)
        if vector.shape[0] != self._vector_dim(conn) and vector.shape[0] != self._vector_dim(conn, fresh=True):
            raise RetrievalError(
                f"query vector has {vector.shape[0]} dimensions, the store {self._vector_dim(conn)}",
                hint="query with the embedder the index was built with, or run `citeline reindex`",
            )
        scope, params, needs_documents = self._scope_sql(request)
        join = " JOIN documents d ON d.owner = c.owner AND d.id = c.document_id" if needs_documents else ""
        approximate = self._approximate(conn, request)
        with conn.transaction():
            # Transaction-local: ef_search must be >= LIMIT or HNSW returns fewer rows; strict
            # iterative scans keep exact distance order while skipping other owners' rows.
            conn.execute(
                "SELECT set_config('hnsw.ef_search', %s, true), set_config('hnsw.iterative_scan', %s, true)",
                (str(max(self.options.ef_search, limit)), "strict_order"),
            )
            rows = conn.execute(self.dense_sql(scope, join, approximate=approximate),
                                [vector, *params, vector, limit]).fetchall()
        ranked = [int(row[0]) for row in rows]
        return ranked, {int(row[0]): float(row[1]) for row in rows}

    @staticmethod
    def dense_sql(scope: str, join: str, *, approximate: bool) -> str:
        """The dense ranking statement: ordered by distance, which lets the HNSW index answer it;
        `approximate=False` orders by an expression the index cannot serve (an exact scan of the
        owner's rows, which the planner reaches through the owner index)."""
        order = "c.embedding <=> %s" if approximate else "(c.embedding <=> %s) + 0, c.rowid"
        return (f"SELECT c.rowid, 1 - (c.embedding <=> %s) FROM chunks c{join}"
                f" WHERE {scope} ORDER BY {order} LIMIT %s")

    @staticmethod
    def _approximate(conn: psycopg.Connection[Any], request: SearchRequest) -> bool:
        """The same threshold as the embedded engine: HNSW once the owner has `ann_min_chunks`."""
        if request.ann_min_chunks <= 0:
            return False
        row = conn.execute(
            "SELECT COALESCE(SUM(chunk_count), 0) FROM documents WHERE owner = %s", (request.owner,)
        ).fetchone()
        return row is not None and int(row[0]) >= request.ann_min_chunks

    def centroid(self, owner: str) -> Centroid | None:
        """pgvector's `AVG` over the owner's vectors, kept until the corpus changes: it reads every one."""
        version = self.corpus_version()
        cached = self._centroids.get(owner)
        if cached is not None and cached[0] == version:
            return cached[1]
        with self._conn() as conn:
            row = conn.execute("SELECT AVG(embedding), COUNT(*) FROM chunks WHERE owner = %s", (owner,)).fetchone()
        centroid = (Centroid(row[0].to_numpy().astype(np.float32), int(row[1]))
                    if row is not None and row[0] is not None else None)
        self._centroids[owner] = (version, centroid)
        return centroid

    def search(self, request: SearchRequest) -> list[Passage]:
        """`tsvector` ranking and pgvector HNSW candidates, fused by reciprocal rank (keeping a lexical
        match that stands out: `ranking.fused_top`), within the owner and filters."""
        pool = max(request.candidate_pool, request.top_k)
        with self._conn() as conn:
            lexical = self._lexical(conn, request, pool)
            dense, dense_scores = self._dense(conn, request, pool)
            fused = fused_top(lexical, dense, request.rrf_k, request.top_k)
            if not fused:
                return []
            ids = [rowid for rowid, _ in fused]
            rows = conn.execute(
                _PASSAGE_SQL + " WHERE c.owner = %s AND c.rowid = ANY(%s)", (request.owner, ids)
            ).fetchall()
        return assemble_passages(fused, {int(row[0]): row for row in rows}, self._passage,
                                 lexical=lexical.ids, dense_scores=dense_scores)

    # --- export (citeline db copy) -------------------------------------------------------
    def export_documents(self) -> Iterator[tuple[DocumentRecord, list[Chunk], npt.NDArray[np.float32]]]:
        """Every document of every owner with its chunks and stored vectors, in a stable order.

        One REPEATABLE READ transaction: a concurrent ingest cannot tear the export.
        """
        with self._conn() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            keys = conn.execute('SELECT owner, id FROM documents ORDER BY owner, id COLLATE "C"').fetchall()
            for owner, document_id in keys:
                doc = conn.execute(
                    f"SELECT {_DOC_COLUMNS} FROM documents WHERE owner = %s AND id = %s", (owner, document_id)
                ).fetchone()
                rows = conn.execute(
                    "SELECT chunk_id, chunk_index, text, section, page, start_char, end_char, embedding, blocks"
                    " FROM chunks WHERE owner = %s AND document_id = %s ORDER BY rowid",
                    (owner, document_id),
                ).fetchall()
                chunks = [
                    Chunk(chunk_id=r[0], document_id=document_id, chunk_index=r[1], text=r[2], section=r[3],
                          page=r[4], start=r[5], end=r[6], blocks=blocks_from_json(r[8]))
                    for r in rows
                ]
                vectors = (
                    np.stack([r[7].to_numpy() for r in rows]).astype(np.float32)
                    if rows else np.zeros((0, self._vector_dim(conn)), dtype=np.float32)
                )
                assert doc is not None  # the snapshot listed it
                yield self._record(doc), chunks, vectors

    # --- embedder identity and `citeline reindex` ------------------------------------------
    @staticmethod
    def _recorded_embedder(conn: psycopg.Connection[Any]) -> EmbedderIdentity | None:
        """The recorded identity; MiniLM's for vectors written before identities were recorded;
        None while the index holds no vectors."""
        row = conn.execute(
            "SELECT EXISTS (SELECT 1 FROM chunks), (SELECT value FROM citeline_index WHERE key = 'embedder')"
        ).fetchone()
        assert row is not None
        return stored_identity(bool(row[0]), row[1])

    def _claim_embedder(self, conn: psycopg.Connection[Any], embedder: EmbedderIdentity) -> None:
        """Inside a write: refuse another embedder's vectors, or record this one as the index's
        (an empty index takes the new embedder's vector width)."""
        recorded = self._recorded_embedder(conn)
        refuse_other(recorded, embedder)
        if recorded is None and self._vector_dim(conn, fresh=True) != embedder.dim:
            # No chunks: the column (and its HNSW index) is rebuilt empty at the new width.
            conn.execute(f"ALTER TABLE chunks ALTER COLUMN embedding TYPE vector({int(embedder.dim)})")
            self._dim = None
        conn.execute(
            "INSERT INTO citeline_index VALUES ('embedder', %s) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            (embedder.to_json(),),
        )

    @staticmethod
    def _check_reindex_target(conn: psycopg.Connection[Any], target: EmbedderIdentity, lock: str) -> None:
        row = conn.execute(f"SELECT value FROM citeline_index WHERE key = 'reindex_target' FOR {lock}").fetchone()
        check_reindex_target(row[0] if row else None, target)

    def embedder_identity(self) -> EmbedderIdentity | None:
        with self._conn() as conn:
            return self._recorded_embedder(conn)

    def reindex_begin(self, target: EmbedderIdentity) -> None:
        with self._conn() as conn, conn.transaction():
            row = conn.execute("SELECT value FROM citeline_index WHERE key = 'reindex_target' FOR UPDATE").fetchone()
            if row is None or not EmbedderIdentity.from_json(row[0]).same_as(target):
                # Vectors of another target (an abandoned reindex) must never be swapped in.
                conn.execute("DELETE FROM reindex_vectors")
            conn.execute(
                "INSERT INTO citeline_index VALUES ('reindex_target', %s)"
                " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                (target.to_json(),),
            )

    def reindex_pending(self, after_rowid: int, limit: int) -> list[ReindexRow]:
        with self._conn() as conn:
            rows = conn.execute(
                "SELECT c.rowid, c.chunk_id, c.title, c.section, c.text FROM chunks c"
                " WHERE c.rowid > %s AND NOT EXISTS (SELECT 1 FROM reindex_vectors r"
                " WHERE r.rowid = c.rowid AND r.chunk_id = c.chunk_id) ORDER BY c.rowid LIMIT %s",
                (after_rowid, limit),
            ).fetchall()
        return [ReindexRow(int(r[0]), r[1], r[2], r[3], r[4]) for r in rows]

    def reindex_put(self, target: EmbedderIdentity, rowids: Sequence[tuple[int, str]],
                    vectors: npt.NDArray[np.float32]) -> None:
        if len(rowids) != len(vectors):
            raise ValueError("one vector per chunk is required")
        matrix = np.asarray(vectors, dtype=np.float32)
        with self._conn() as conn, conn.transaction():
            self._check_reindex_target(conn, target, "SHARE")
            with conn.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO reindex_vectors VALUES (%s, %s, %s) ON CONFLICT (rowid) DO UPDATE"
                    " SET chunk_id = EXCLUDED.chunk_id, embedding = EXCLUDED.embedding",
                    [(rowid, chunk_id, vector) for (rowid, chunk_id), vector in zip(rowids, matrix, strict=True)],
                )

    def reindex_status(self) -> tuple[int, int]:
        with self._conn() as conn:
            row = conn.execute(
                "SELECT (SELECT COUNT(*) FROM chunks c JOIN reindex_vectors r"
                " ON r.rowid = c.rowid AND r.chunk_id = c.chunk_id), (SELECT COUNT(*) FROM chunks)"
            ).fetchone()
        assert row is not None
        return int(row[0]), int(row[1])

    def reindex_commit(self, target: EmbedderIdentity) -> bool:
        with self._write() as conn:  # the version row lock: no ingest writes while vectors swap
            self._check_reindex_target(conn, target, "UPDATE")
            row = conn.execute(
                "SELECT COUNT(*) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM reindex_vectors r"
                " WHERE r.rowid = c.rowid AND r.chunk_id = c.chunk_id)"
            ).fetchone()
            if row is None or row[0]:
                return False
            # Vector indexes are dropped and rebuilt from their own definitions: one bulk build
            # is far faster than updating an HNSW graph row by row.
            indexes = conn.execute(
                "SELECT i.relname, pg_get_indexdef(i.oid) FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid"
                " JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = ANY(x.indkey)"
                " WHERE x.indrelid = 'chunks'::regclass AND a.attname = 'embedding'"
            ).fetchall()
            for name, _ in indexes:
                conn.execute(f'DROP INDEX "{name}"')
            if self._vector_dim(conn, fresh=True) != target.dim:
                conn.execute("ALTER TABLE chunks ALTER COLUMN embedding DROP NOT NULL")
                conn.execute(f"ALTER TABLE chunks ALTER COLUMN embedding TYPE vector({int(target.dim)}) USING NULL")
            conn.execute("UPDATE chunks c SET embedding = r.embedding FROM reindex_vectors r WHERE r.rowid = c.rowid")
            conn.execute("ALTER TABLE chunks ALTER COLUMN embedding SET NOT NULL")
            for _, definition in indexes:
                conn.execute(definition)
            conn.execute(
                "INSERT INTO citeline_index VALUES ('embedder', %s) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                (target.to_json(),),
            )
            conn.execute("DELETE FROM citeline_index WHERE key = 'reindex_target'")
            conn.execute("DELETE FROM reindex_vectors")
            self._dim = None
            return True

    # --- key/value (persistent caches, users) -------------------------------------------
    def kv_get(self, namespace: str, key: str) -> str | None:
        """A value of the key/value table, or None."""
        with self._conn() as conn:
            row = conn.execute(
                "SELECT value FROM kv WHERE namespace = %s AND key = %s", (namespace, key)
            ).fetchone()
        return str(row[0]) if row else None

    def kv_put(self, namespace: str, key: str, value: str) -> None:
        """Store a value, replacing any previous one (without bumping the corpus version)."""
        # Cache writes do not bump the corpus version: they do not change what can be retrieved.
        with self._conn() as conn:
            conn.execute(
                "INSERT INTO kv (namespace, key, value, created_at) VALUES (%s, %s, %s, %s)"
                " ON CONFLICT (namespace, key) DO UPDATE"
                " SET value = EXCLUDED.value, created_at = EXCLUDED.created_at",
                (namespace, key, value, time.time()),
            )

    def kv_items(self, namespace: str) -> list[tuple[str, str]]:
        """Every (key, value) of a namespace, by key."""
        with self._conn() as conn:
            rows = conn.execute(
                "SELECT key, value FROM kv WHERE namespace = %s ORDER BY key", (namespace,)
            ).fetchall()
        return [(str(row[0]), str(row[1])) for row in rows]

    def kv_delete(self, namespace: str, key: str) -> bool:
        """Remove a value; False when there was none."""
        with self._conn() as conn:
            cursor = conn.execute("DELETE FROM kv WHERE namespace = %s AND key = %s", (namespace, key))
            return cursor.rowcount > 0


register_engine("postgresql", PostgresStore)
register_engine("postgres", PostgresStore)
