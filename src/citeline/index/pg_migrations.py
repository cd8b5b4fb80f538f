"""Versioned schema migrations of the PostgreSQL engine.

Each migration runs in its own transaction and is recorded in `schema_migrations`, so a
database is always at a known version. An advisory lock serialises concurrent starters: many
`citeline serve` workers may boot at once against a fresh database and exactly one applies
each migration. Migrations are append-only: never edit one that has shipped, add the next.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

# The vector width is fixed by the schema (pgvector indexes need a typed column); it is the
# default embedder's (all-MiniLM-L6-v2). Another width needs a new migration.
VECTOR_DIM = 384
# Arbitrary constant that identifies citeline's migration lock among other advisory locks.
_LOCK_ID = 0x43_49_54_45  # "CITE"


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "documents, chunks (tsvector + pgvector HNSW), kv, corpus version",
        f"""
CREATE EXTENSION IF NOT EXISTS vector;
-- English stemming plus accent folding, like the SQLite engine's `remove_diacritics 2` and the
-- query side's `citeline.text.fold`: "café" and "cafe" are the same word. unaccent is a trusted
-- contrib extension (PostgreSQL >= 13), so a database owner can create it without superuser.
CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE TEXT SEARCH CONFIGURATION citeline (COPY = english);
ALTER TEXT SEARCH CONFIGURATION citeline
    ALTER MAPPING FOR hword, hword_part, word WITH unaccent, english_stem;
CREATE TABLE citeline_meta (key text PRIMARY KEY, value bigint NOT NULL);
INSERT INTO citeline_meta VALUES ('version', 0);
CREATE TABLE documents (
    owner text NOT NULL, id text NOT NULL, source text NOT NULL, title text NOT NULL,
    content_hash text NOT NULL, status text NOT NULL, metadata jsonb NOT NULL DEFAULT '{{}}',
    chunk_count integer NOT NULL DEFAULT 0, size_bytes bigint NOT NULL DEFAULT 0,
    created_at double precision NOT NULL, updated_at double precision NOT NULL,
    PRIMARY KEY (owner, id),
    UNIQUE (owner, source)
);
CREATE TABLE chunks (
    rowid bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    owner text NOT NULL, document_id text NOT NULL, chunk_id text NOT NULL,
    chunk_index integer NOT NULL, text text NOT NULL, section text, page integer,
    start_char integer NOT NULL, end_char integer NOT NULL,
    -- The title is repeated per chunk so the full-text vector can be a generated column.
    title text NOT NULL DEFAULT '',
    -- Weights mirror the SQLite engine's bm25 column weights: text A, section B, title C.
    tsv tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('citeline', text), 'A')
        || setweight(to_tsvector('citeline', coalesce(section, '')), 'B')
        || setweight(to_tsvector('citeline', title), 'C')
    ) STORED,
    embedding vector({VECTOR_DIM}) NOT NULL,
    UNIQUE (owner, document_id, chunk_id),
    FOREIGN KEY (owner, document_id) REFERENCES documents (owner, id) ON DELETE CASCADE
);
CREATE INDEX chunks_doc ON chunks (owner, document_id, chunk_index);
CREATE INDEX chunks_chunk_id ON chunks (owner, chunk_id);
-- fastupdate off: a GIN pending list left by recent inserts makes the planner give up the index
-- and scan every chunk (measured: 26 ms -> 11 ms per query at 10k chunks); the slower insert
-- is noise next to embedding the chunk.
CREATE INDEX chunks_tsv ON chunks USING gin (tsv) WITH (fastupdate = off);
-- m/ef_construction: see docs/scaling.md for the measured recall/latency trade-off.
CREATE INDEX chunks_embedding ON chunks USING hnsw (embedding vector_cosine_ops)
    WITH (m = 16, ef_construction = 64);
CREATE TABLE kv (
    namespace text NOT NULL, key text NOT NULL, value text NOT NULL,
    created_at double precision NOT NULL,
    PRIMARY KEY (namespace, key)
);
""",
    ),
)

LATEST = MIGRATIONS[-1].version


def current_version(conn: psycopg.Connection[tuple[Any, ...]]) -> int:
    """The highest applied migration, 0 for an empty database."""
    row = conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()
    if not row or not row[0]:
        return 0
    row = conn.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations").fetchone()
    return int(row[0]) if row else 0


def upgrade(conn: psycopg.Connection[tuple[Any, ...]]) -> list[Migration]:
    """Apply every pending migration; returns those applied by this call (maybe none).

    `conn` must be in autocommit mode: each migration gets its own transaction.
    """
    applied: list[Migration] = []
    # Session-level lock, held across the per-migration transactions below.
    conn.execute("SELECT pg_advisory_lock(%s)", (_LOCK_ID,))
    try:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version integer PRIMARY KEY, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        done = current_version(conn)
        for migration in MIGRATIONS:
            if migration.version <= done:
                continue
            with conn.transaction():
                conn.execute(migration.sql.encode())
                conn.execute(
                    "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)",
                    (migration.version, migration.name),
                )
            applied.append(migration)
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (_LOCK_ID,))
    return applied
