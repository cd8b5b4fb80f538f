"""What only the PostgreSQL engine has: migrations, URL options, pooling, index use, errors."""

from __future__ import annotations

import sys
import threading
import zlib
from collections.abc import Iterator

import numpy as np
import psycopg
import pytest

from citeline.documents.models import Chunk
from citeline.errors import ConfigurationError, RetrievalError
from citeline.index import pg_migrations
from citeline.index.pg_migrations import migrate, redact
from citeline.index.postgres import PostgresOptions, PostgresStore
from citeline.index.store import DocumentRecord, SearchRequest, open_store
from citeline.retrieval.cache import StoreCache

DIM = pg_migrations.VECTOR_DIM


@pytest.fixture
def pg(postgres_url: str) -> Iterator[PostgresStore]:
    store = open_store(postgres_url)
    assert isinstance(store, PostgresStore)
    yield store
    store.close()


def unit(seed: int) -> np.ndarray:
    vector = np.random.default_rng(seed).normal(size=DIM).astype(np.float32)
    return vector / np.linalg.norm(vector)


def seed(doc_id: str, index: int) -> int:
    return zlib.crc32(f"{doc_id}/{index}".encode())


def put(store: PostgresStore, doc_id: str, n: int, owner: str = "alice") -> None:
    record = DocumentRecord(id=doc_id, owner=owner, source=f"/{doc_id}", title=doc_id, content_hash="h")
    texts = [f"passage {i} about topic{i}" for i in range(n)]
    chunks = [Chunk(f"{doc_id}-{i}", doc_id, i, t, None, None, 0, len(t)) for i, t in enumerate(texts)]
    store.replace_document(record, chunks, np.stack([unit(seed(doc_id, i)) for i in range(n)]))


# --- migrations ----------------------------------------------------------------------------


def test_migrations_are_recorded_and_applied_once(postgres_url: str) -> None:
    assert migrate(postgres_url) == (pg_migrations.LATEST, [m.version for m in pg_migrations.MIGRATIONS])
    assert migrate(postgres_url) == (pg_migrations.LATEST, [])
    with psycopg.connect(postgres_url) as conn:
        rows = conn.execute("SELECT version, name FROM schema_migrations ORDER BY version").fetchall()
        extensions = {row[0] for row in conn.execute("SELECT extname FROM pg_extension")}
    assert [row[0] for row in rows] == [m.version for m in pg_migrations.MIGRATIONS]
    assert {"vector", "unaccent"} <= extensions


def test_concurrent_starters_apply_each_migration_exactly_once(postgres_url: str) -> None:
    results: list[tuple[int, list[int]]] = []
    errors: list[BaseException] = []

    def start() -> None:
        try:
            results.append(migrate(postgres_url))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    applied = [version for _, versions in results for version in versions]
    assert sorted(applied) == [m.version for m in pg_migrations.MIGRATIONS]
    assert {version for version, _ in results} == {pg_migrations.LATEST}


def test_queries_can_use_the_hnsw_and_gin_indexes(pg: PostgresStore, postgres_url: str) -> None:
    put(pg, "d", 30)
    with psycopg.connect(postgres_url) as conn:
        # Tiny tables are cheaper to scan: forbid the alternatives to prove the indexes apply
        # to the engine's query shapes (owner filter + distance order; tsvector match).
        conn.execute("ANALYZE chunks")
        conn.execute("SET enable_seqscan = off")
        conn.execute("SET enable_sort = off")
        vector = "[" + ",".join(["0.1"] * DIM) + "]"
        dense = conn.execute(
            "EXPLAIN SELECT rowid FROM chunks c WHERE c.owner = 'alice'"
            " ORDER BY c.embedding <=> %s::vector LIMIT 10",
            (vector,),
        ).fetchall()
        lexical = conn.execute(
            "EXPLAIN SELECT rowid FROM chunks c WHERE c.tsv @@ phraseto_tsquery('citeline', 'topic3')"
        ).fetchall()
    assert "chunks_embedding" in "\n".join(row[0] for row in dense)
    assert "chunks_tsv" in "\n".join(row[0] for row in lexical)


def test_dense_statement_uses_hnsw_only_above_the_threshold(pg: PostgresStore, postgres_url: str) -> None:
    put(pg, "d", 30)
    vector = "[" + ",".join(["0.1"] * DIM) + "]"
    plans = {}
    with psycopg.connect(postgres_url) as conn:
        conn.execute("ANALYZE chunks")
        conn.execute("SET enable_seqscan = off")  # tiny table: make the index the cheap choice
        conn.execute("SET enable_sort = off")
        for approximate in (True, False):
            sql = PostgresStore.dense_sql("c.owner = %s", "", approximate=approximate)
            rows = conn.execute("EXPLAIN " + sql, (vector, "alice", vector, 10)).fetchall()
            plans[approximate] = "\n".join(row[0] for row in rows)
    assert "chunks_embedding" in plans[True]
    assert "chunks_embedding" not in plans[False]
    # The engine decides by the owner's chunk count: 30 chunks are below 31 and at 30.
    with psycopg.connect(postgres_url) as conn:
        below = SearchRequest(owner="alice", text="", vector=unit(1), ann_min_chunks=31)
        at = SearchRequest(owner="alice", text="", vector=unit(1), ann_min_chunks=30)
        never = SearchRequest(owner="alice", text="", vector=unit(1), ann_min_chunks=0)
        assert [pg._approximate(conn, r) for r in (below, at, never)] == [False, True, False]


# --- URLs, options and errors --------------------------------------------------------------


def test_url_options_are_parsed_and_removed_from_the_conninfo() -> None:
    options = PostgresOptions.from_url(
        "postgres://u:secret@db:5433/idx?sslmode=disable&pool_min_size=2&pool_max_size=20&ef_search=200"
    )
    assert (options.pool_min_size, options.pool_max_size, options.ef_search) == (2, 20, 200)
    assert options.conninfo == "postgresql://u:secret@db:5433/idx?sslmode=disable"
    assert redact(options.conninfo) == "postgresql://u:***@db:5433/idx?sslmode=disable"


@pytest.mark.parametrize("query", ["pool_max_size=ten", "pool_min_size=5&pool_max_size=2", "pool_min_size=0"])
def test_bad_url_options_say_how_to_fix_them(query: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        PostgresOptions.from_url(f"postgresql://localhost/db?{query}")
    assert info.value.hint and "CITELINE_STORE" in info.value.hint


def test_unreachable_server_is_a_configuration_error_without_the_password(postgres_server: object) -> None:
    with socket_free_port() as port:
        url = f"postgresql://citeline:hunter2@127.0.0.1:{port}/nowhere?connect_timeout=2"
    with pytest.raises(ConfigurationError) as info:
        open_store(url)
    assert "hunter2" not in str(info.value)
    assert "cannot connect to PostgreSQL" in str(info.value)
    assert info.value.hint and "server is running" in info.value.hint


class socket_free_port:  # lower-case: read as a context manager
    def __enter__(self) -> int:
        import socket

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            return int(sock.getsockname()[1])

    def __exit__(self, *exc: object) -> None:
        return None


def test_missing_driver_says_which_extra_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg_pool", None)  # makes `import psycopg_pool` fail
    with pytest.raises(ConfigurationError) as info:
        open_store("postgresql://localhost/db")
    assert info.value.hint == "install citeline[postgres]"


def test_wrong_vector_width_is_refused_with_a_hint(pg: PostgresStore) -> None:
    record = DocumentRecord(id="d", owner="alice", source="/d", title="d", content_hash="h")
    chunk = Chunk("c", "d", 0, "text", None, None, 0, 4)
    with pytest.raises(ConfigurationError, match="384-dimensional") as info:
        pg.replace_document(record, [chunk], np.ones((1, 1536), np.float32))
    assert info.value.hint and "embedder" in info.value.hint
    assert pg.get_document("alice", "d") is None
    with pytest.raises(RetrievalError, match="dimensions"):
        pg.search(SearchRequest(owner="alice", text="text", vector=np.ones(12, np.float32)))


def test_server_errors_become_retrieval_errors_without_sql(pg: PostgresStore, postgres_url: str) -> None:
    put(pg, "d", 2)
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("ALTER TABLE chunks RENAME TO chunks_moved")
    with pytest.raises(RetrievalError) as info:
        pg.search(SearchRequest(owner="alice", text="topic1", vector=unit(1)))
    assert "SELECT" not in str(info.value) and "chunks" not in str(info.value)


# --- concurrency and caches ----------------------------------------------------------------


def test_concurrent_writers_each_bump_the_version_once(postgres_url: str) -> None:
    store = PostgresStore(postgres_url + "?pool_max_size=4")
    try:
        start = store.corpus_version()
        errors: list[BaseException] = []

        def write(worker: int) -> None:
            try:
                for i in range(5):
                    put(store, f"doc{i % 2}", 3, owner=f"owner{worker % 2}")  # overlapping documents
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=write, args=(w,)) for w in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors
        assert store.corpus_version() == start + 20
        for owner in ("owner0", "owner1"):
            assert store.counts(owner) == (2, 6)  # replacements never duplicate chunks
    finally:
        store.close()


def test_persistent_cache_lives_in_the_kv_table(pg: PostgresStore, postgres_url: str) -> None:
    StoreCache(pg).put("retrieval", "abc", '{"passages": []}')
    other = open_store(postgres_url)  # another worker process would see the same
    try:
        assert StoreCache(other).get("retrieval", "abc") == '{"passages": []}'
        assert other.kv_get("cache:retrieval", "abc") == '{"passages": []}'
    finally:
        other.close()


def test_export_returns_what_was_stored(pg: PostgresStore) -> None:
    put(pg, "a", 3, owner="bob")
    put(pg, "b", 1)
    exported = list(pg.export_documents())
    assert [(record.owner, record.id, len(chunks)) for record, chunks, _ in exported] == [
        ("alice", "b", 1), ("bob", "a", 3),
    ]
    _, chunks, vectors = exported[1]
    assert [chunk.chunk_id for chunk in chunks] == ["a-0", "a-1", "a-2"]
    assert vectors.shape == (3, DIM) and vectors.dtype == np.float32
    assert np.allclose(vectors[1], unit(seed("a", 1)))


def test_words_common_in_a_large_corpus_are_not_ranked(
    pg: PostgresStore, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from citeline.index.postgres import _CommonLexemes

    monkeypatch.setattr(_CommonLexemes, "MAX_ROWS", 5)  # "large" = more than 5 rows here
    record = DocumentRecord(id="d", owner="alice", source="/d", title="d", content_hash="h")
    texts = [f"widget number {i}" + (" flange" if i == 7 else "") for i in range(30)]
    chunks = [Chunk(f"c{i}", "d", i, t, None, None, 0, len(t)) for i, t in enumerate(texts)]
    pg.replace_document(record, chunks, np.stack([unit(i) for i in range(30)]))

    def lexical(text: str) -> list[str]:
        return [p.chunk_id for p in pg.search(SearchRequest(owner="alice", text=text, vector=None, top_k=50))]

    assert len(lexical("widget flange")) == 30  # no statistics yet: every match is ranked
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("ANALYZE chunks")
    pg._common = _CommonLexemes()  # forget the cached (empty) statistics
    assert lexical("widget flange") == ["c7"]  # "widget" is in all 30 rows: left out
    assert lexical("widget") == [f"c{i}" for i in range(30)]  # nothing rarer left: kept
    assert lexical("widget number") == lexical("widget")  # both common: the rarest (first on a tie) ranks
    assert lexical('"widget number" flange') == ["c7"]
