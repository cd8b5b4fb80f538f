"""Query benchmark: citeline's hybrid search against a bare numpy exact search and against the
peers (Chroma embedded, LanceDB) on the same vectors, at 10k and 100k chunks.

Vectors are synthetic (seeded, clustered 384-dim unit vectors, see bench/store.py): embedding 100k
chunks with the real model would take hours on a small machine. They are written through each
system's own write API (`replace_document` for citeline). Every query is run on every system
before the next query (order rotated), so load drift on a shared machine hits all alike.

Measured per size:
* numpy exact: `vectors @ q` + `argpartition` top 10 — the floor for exact dense search;
* citeline hybrid: `SQLiteStore.search` (BM25 + exact dense, RRF, passages with text), top 10;
* citeline dense: the engine's dense ranking alone (exact; recall 1.0 by construction);
* Chroma: `PersistentClient`, HNSW (cosine, max_neighbors 16, ef_construction 100), documents
  returned; ef_search raised until recall@10 >= 0.99 (or the largest tried);
* LanceDB: flat (exact) scan, IVF-PQ (nprobes/refine_factor tuned the same way), and its own
  hybrid search (native FTS + vector, RRF reranker) against citeline's hybrid.

    .venv/bin/python bench/query.py --sizes 10000 --queries 50
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import interleave, p50_p95
from store import OWNER, Corpus, load, make_corpus

from citeline.index.store import SearchRequest, open_store

RECALL_GOAL = 0.99


def before_store(path: Path) -> Any:
    """The SQLite engine's search as it was before its tuning (commit 8eabd8c): default page cache,
    no memory map, and the BM25 query joining every match to its full chunk row and document."""
    import sqlite3

    from citeline.index.ranking import fts5_match, trim_lexical
    from citeline.index.sqlite import SQLiteStore

    class BeforeStore(SQLiteStore):
        def _conn(self) -> sqlite3.Connection:
            conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
            if conn is None:
                conn = sqlite3.connect(self.path, timeout=60.0, isolation_level=None)
                conn.row_factory = sqlite3.Row
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute("PRAGMA busy_timeout=60000")
                self._local.conn = conn
            return conn

        def _lexical(self, request: SearchRequest, limit: int) -> list[int]:
            match = fts5_match(request.text)
            if match is None:
                return []
            scope, params = self._scope_sql(request)
            rows = self._conn().execute(
                "SELECT c.rowid, -bm25(chunks_fts, 1.0, 0.5, 0.3) FROM chunks_fts f"
                " JOIN chunks c ON c.rowid = f.rowid"
                " JOIN documents d ON d.owner = c.owner AND d.id = c.document_id"
                f" WHERE chunks_fts MATCH ? AND {scope}"
                " ORDER BY bm25(chunks_fts, 1.0, 0.5, 0.3), c.rowid LIMIT ?",
                [match, *params, limit],
            ).fetchall()
            return trim_lexical([(int(row[0]), float(row[1])) for row in rows])

    return BeforeStore(path)


def exact_truth(corpus: Corpus, k: int = 10) -> list[set[int]]:
    scores = corpus.queries @ corpus.vectors.T
    return [set(np.argpartition(-row, k)[:k].tolist()) for row in scores]


def recall(results: list[set[int]], truth: list[set[int]]) -> float:
    return round(sum(len(r & t) for r, t in zip(results, truth, strict=True)) / (10 * len(truth)), 4)


# --- peers --------------------------------------------------------------------------------------


class ChromaPeer:
    def __init__(self, root: Path, corpus: Corpus) -> None:
        import chromadb

        self.client = chromadb.PersistentClient(path=str(root))
        self.collection = self.client.create_collection(
            "bench", configuration={"hnsw": {"space": "cosine", "ef_construction": 100, "max_neighbors": 16}},
            embedding_function=None,
        )
        batch = min(5000, self.client.get_max_batch_size())
        started = time.perf_counter()
        for start in range(0, len(corpus.texts), batch):
            stop = min(start + batch, len(corpus.texts))
            self.collection.add(ids=[str(i) for i in range(start, stop)],
                                embeddings=corpus.vectors[start:stop], documents=corpus.texts[start:stop])
        self.load_s = time.perf_counter() - started
        self.ef_search = 100

    def set_ef(self, ef: int) -> None:
        self.collection.modify(configuration={"hnsw": {"ef_search": ef}})
        self.ef_search = ef

    def query(self, vector: np.ndarray) -> set[int]:
        out = self.collection.query(query_embeddings=[vector], n_results=10, include=["documents", "distances"])
        return {int(i) for i in out["ids"][0]}


class LancePeer:
    def __init__(self, root: Path, corpus: Corpus) -> None:
        import lancedb
        import pyarrow as pa

        self.db = lancedb.connect(str(root))
        n, dim = corpus.vectors.shape
        table = pa.table({
            "id": pa.array(np.arange(n, dtype=np.int64)),
            "text": pa.array(corpus.texts),
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(corpus.vectors.reshape(-1)), dim),
        })
        started = time.perf_counter()
        self.table = self.db.create_table("bench", data=table)
        self.load_s = time.perf_counter() - started
        started = time.perf_counter()
        self.table.create_fts_index("text")
        self.fts_s = time.perf_counter() - started
        self.index_s = 0.0
        self.nprobes, self.refine = 20, 10

    def build_ivf_pq(self, n: int) -> None:
        started = time.perf_counter()
        from lancedb.index import IvfPq

        # LanceDB's default partition count (it warns when partitions get under ~256 rows).
        self.table.create_index("vector", config=IvfPq(distance_type="cosine", num_sub_vectors=48))
        self.index_s = time.perf_counter() - started

    def flat(self, vector: np.ndarray) -> set[int]:
        rows = (self.table.search(vector).distance_type("cosine").bypass_vector_index().limit(10)
                .select(["id", "text"]).to_arrow())
        return set(rows.column("id").to_pylist())

    def ivf(self, vector: np.ndarray) -> set[int]:
        rows = (self.table.search(vector).distance_type("cosine").nprobes(self.nprobes)
                .refine_factor(self.refine).limit(10).select(["id", "text"]).to_arrow())
        return set(rows.column("id").to_pylist())

    def hybrid(self, vector: np.ndarray, text: str) -> set[int]:
        rows = (self.table.search(query_type="hybrid").vector(vector).text(text).distance_type("cosine")
                .limit(10).select(["id", "text"]).to_arrow())
        return set(rows.column("id").to_pylist())


# --- one size -----------------------------------------------------------------------------------


def bench_size(n: int, queries: int, seed: int, peers: bool, keep_sqlite: Path | None,
               before: bool = True) -> dict[str, Any]:
    corpus = make_corpus(n, queries, seed)
    truth = exact_truth(corpus)
    row: dict[str, Any] = {"chunks": n, "queries": queries, "seed": seed, "systems": {}, "load_s": {}}
    tmp = Path(tempfile.mkdtemp(prefix="citeline-bench-q-"))
    try:
        path = keep_sqlite or tmp / "citeline.sqlite3"
        if path.exists():
            path.unlink()
        store = open_store(f"sqlite:{path}")
        row["load_s"]["citeline"] = round(load(store, corpus), 2)
        sqlite_store: Any = store

        def ids(passages: Any) -> set[int]:
            return {int(p.chunk_id[1:]) for p in passages}

        def request(i: int) -> SearchRequest:
            return SearchRequest(owner=OWNER, text=corpus.query_texts[i], vector=corpus.queries[i], top_k=10)

        systems: dict[str, Any] = {
            "numpy exact": lambda i: set(np.argpartition(-(corpus.vectors @ corpus.queries[i]), 10)[:10].tolist()),
            "citeline hybrid": lambda i: ids(store.search(request(i))),
            "citeline dense": lambda i: {int(corpus_index[r]) for r in sqlite_store._dense(request(i), 10, None)[0]},
        }
        if before:
            old = before_store(path)
            systems["citeline hybrid (before #9)"] = lambda i: ids(old.search(request(i)))
        rowid_rows = sqlite_store._conn().execute("SELECT rowid, chunk_id FROM chunks").fetchall()
        corpus_index = {int(r[0]): int(r[1][1:]) for r in rowid_rows}
        # Phase 1, the target ratio: citeline against numpy alone, before any peer is loaded into
        # this process (the peers' native thread pools share the cores and perturb every timing).
        print(f"  [{n:,}] citeline vs numpy: {len(systems)} systems x {queries} queries (interleaved) ...",
              flush=True)
        own = interleave(systems, queries)
        row["own"] = {name: p50_p95(samples) for name, samples in own.items()}
        for q in ("p50", "p95"):
            row[f"hybrid_vs_numpy_{q}"] = round(
                row["own"]["citeline hybrid"][f"{q}_ms"] / row["own"]["numpy exact"][f"{q}_ms"], 3)
        # Phase 2: everything, peers included, for the peer comparisons.
        chroma = lance = None
        if peers:
            print(f"  [{n:,}] loading Chroma ...", flush=True)
            chroma = ChromaPeer(tmp / "chroma", corpus)
            row["load_s"]["chroma"] = round(chroma.load_s, 2)
            print(f"  [{n:,}] loading LanceDB ...", flush=True)
            lance = LancePeer(tmp / "lance", corpus)
            lance.build_ivf_pq(n)
            row["load_s"]["lancedb"] = round(lance.load_s, 2)
            row["load_s"]["lancedb_fts_index"] = round(lance.fts_s, 2)
            row["load_s"]["lancedb_ivf_pq_index"] = round(lance.index_s, 2)
            # Tune the approximate peers to citeline's recall (exact, 1.0) on a few queries first.
            probe = list(range(min(40, queries)))
            for ef in (100, 200, 400, 800):
                chroma.set_ef(ef)
                if recall([chroma.query(corpus.queries[i]) for i in probe], [truth[i] for i in probe]) >= RECALL_GOAL:
                    break
            for nprobes, refine in ((20, 10), (40, 20), (80, 40), (160, 50)):
                lance.nprobes, lance.refine = nprobes, refine
                if recall([lance.ivf(corpus.queries[i]) for i in probe], [truth[i] for i in probe]) >= RECALL_GOAL:
                    break
            systems.update({
                "chroma hnsw": lambda i: chroma.query(corpus.queries[i]),
                "lancedb flat": lambda i: lance.flat(corpus.queries[i]),
                "lancedb ivf-pq": lambda i: lance.ivf(corpus.queries[i]),
                "lancedb hybrid": lambda i: lance.hybrid(corpus.queries[i], corpus.query_texts[i]),
            })
        print(f"  [{n:,}] all systems: {len(systems)} x {queries} queries (interleaved) ...", flush=True)
        latencies = interleave(systems, queries)
        results = {name: [fn(i) for i in range(queries)] for name, fn in systems.items()}
        for name, samples in latencies.items():
            entry: dict[str, Any] = p50_p95(samples)
            entry["recall_at_10"] = None if "hybrid" in name else recall(results[name], truth)
            if name == "citeline hybrid (before #9)":
                assert results[name] == results["citeline hybrid"], "the rewritten query changed results"
            row["systems"][name] = entry
        if chroma is not None:
            row["systems"]["chroma hnsw"]["settings"] = f"ef_search={chroma.ef_search}"
        if lance is not None:
            row["systems"]["lancedb ivf-pq"]["settings"] = (
                f"default partitions, sub_vectors=48, nprobes={lance.nprobes}, "
                f"refine_factor={lance.refine}")
        # The hybrid rankings are not comparable to exact dense; report their overlap instead.
        row["hybrid_overlap_with_dense_top10"] = recall(results["citeline hybrid"], truth)
        if lance is not None:
            row["lancedb_hybrid_overlap_with_dense_top10"] = recall(results["lancedb hybrid"], truth)
        store.close()

    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return row


def measure(sizes: list[int], queries: int = 100, seed: int = 42, peers: bool = True,
            keep_sqlite: dict[int, Path] | None = None) -> dict[str, Any]:
    runs = []
    for n in sizes:
        print(f"query benchmark at {n:,} chunks", flush=True)
        runs.append(bench_size(n, queries, seed, peers, (keep_sqlite or {}).get(n)))
        for name, entry in runs[-1]["systems"].items():
            print(f"    {name:16s} p50 {entry['p50_ms']:8.2f} ms  p95 {entry['p95_ms']:8.2f} ms"
                  f"  recall@10 {entry['recall_at_10']}", flush=True)
    return {"runs": runs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--no-peers", action="store_true")
    args = parser.parse_args()
    out = measure([int(s) for s in args.sizes.split(",")], args.queries, args.seed, not args.no_peers)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
