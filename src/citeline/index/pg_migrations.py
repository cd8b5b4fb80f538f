"""Opening a PostgreSQL database for citeline and migrating its schema (versioned).

Each migration runs in its own transaction and is recorded in `schema_migrations`, so a
database is always at a known version. An advisory lock serialises concurrent starters: many
`citeline serve` workers may boot at once against a fresh database and exactly one applies
each migration. Migrations are append-only: never edit one that has shipped, add the next.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from citeline.errors import ConfigurationError

if TYPE_CHECKING:
    import psycopg

# The vector width of a new database (pgvector indexes need a typed column): the default
# embedder's (all-MiniLM-L6-v2). The first write of another embedder into an empty index, or
# `citeline reindex`, changes the column to that embedder's width.
VECTOR_DIM = 384
# Owner-filtered HNSW search relies on iterative index scans (pgvector 0.8).
MIN_PGVECTOR = (0, 8, 0)
# Arbitrary constant that identifies citeline's migration lock among other advisory locks.
_LOCK_ID = 0x43_49_54_45  # "CITE"


@dataclass(frozen=True)
class Migration:
    """One numbered schema change of the PostgreSQL engine, applied once and recorded."""

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
    Migration(
        2,
        "chunks carry their typed blocks (list items, rows, code; flags for text aimed at an AI)",
        "ALTER TABLE chunks ADD COLUMN IF NOT EXISTS blocks jsonb NOT NULL DEFAULT '[]';",
    ),
    Migration(
        3,
        "the embedder that wrote the vectors, and the shadow vectors of `citeline reindex`",
        """
-- key 'embedder': the identity (JSON) of the embedder whose vectors `chunks` holds;
-- key 'reindex_target': the embedder a `citeline reindex` under way is filling `reindex_vectors` for.
CREATE TABLE citeline_index (key text PRIMARY KEY, value text NOT NULL);
-- Untyped width: the new embedder's vectors may be another size than the served ones.
CREATE TABLE reindex_vectors (rowid bigint PRIMARY KEY, chunk_id text NOT NULL, embedding vector NOT NULL);
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


def redact(conninfo: str) -> str:
    """The URL without its password, for messages."""
    parts = urlsplit(conninfo)
    if parts.password is None:
        return conninfo
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def import_driver() -> None:
    """Import the PostgreSQL driver, or fail with the extra to install (it is optional)."""
    try:
        import pgvector.psycopg  # noqa: F401
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError as exc:
        raise ConfigurationError(
            f"the PostgreSQL engine needs `{exc.name}`", hint="install citeline[postgres]"
        ) from exc


def connect(conninfo: str) -> psycopg.Connection[tuple[Any, ...]]:
    """One autocommit connection (migrations, CLI), with errors a user can act on."""
    import_driver()
    import psycopg

    try:
        return psycopg.connect(conninfo, autocommit=True, connect_timeout=10)
    except psycopg.Error as exc:
        raise ConfigurationError(
            f"cannot connect to PostgreSQL at {redact(conninfo)}: {str(exc).strip()}",
            hint="check CITELINE_STORE and that the server is running and reachable",
        ) from exc


def migrate(conninfo: str) -> tuple[int, list[int]]:
    """Apply pending migrations; returns (schema version now, versions applied by this call)."""
    conn = connect(conninfo)  # first: it explains a missing driver
    import psycopg

    with conn:
        try:
            applied = upgrade(conn)
            version = current_version(conn)
        except psycopg.errors.FeatureNotSupported as exc:
            raise ConfigurationError(
                f"the pgvector extension is not available on this server: {str(exc).strip()}",
                hint="install pgvector on the server (https://github.com/pgvector/pgvector#installation)",
            ) from exc
        except psycopg.errors.InsufficientPrivilege as exc:
            raise ConfigurationError(
                f"cannot create citeline's schema: {str(exc).strip()}",
                hint="run `CREATE EXTENSION vector;` as a superuser in this database, "
                "or give the citeline role CREATE on it, then `citeline db upgrade`",
            ) from exc
        except psycopg.errors.UndefinedFile as exc:  # extension control file missing
            raise ConfigurationError(
                f"the pgvector extension is not installed on this server: {str(exc).strip()}",
                hint="install pgvector on the server (https://github.com/pgvector/pgvector#installation)",
            ) from exc
        except psycopg.Error as exc:
            raise ConfigurationError(
                f"migrating citeline's schema failed: {exc.__class__.__name__}: {str(exc).strip()}",
                hint="fix the cause, then run `citeline db upgrade` (each migration is all-or-nothing)",
            ) from exc
        _check_pgvector(conn)
    return version, [migration.version for migration in applied]


def _check_pgvector(conn: psycopg.Connection[tuple[Any, ...]]) -> None:
    # Owner-filtered HNSW search relies on iterative index scans (pgvector 0.8): with older
    # versions a filtered query could silently return fewer neighbours than asked for.
    row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    version = tuple(int(part) for part in re.findall(r"\d+", str(row[0]))[:3]) if row else ()
    if version < MIN_PGVECTOR:
        found = row[0] if row else "none"
        raise ConfigurationError(
            f"citeline needs pgvector >= {'.'.join(map(str, MIN_PGVECTOR))} in this database, found {found}",
            hint="upgrade pgvector on the server, then run `ALTER EXTENSION vector UPDATE;`",
        )
