"""One million chunks in the embedded engine: load time, HNSW graph build time, memory, latency.

Synthetic seeded vectors and texts (bench/store.py), written through `replace_document` like
every other size; then the graph `citeline ingest` would build (`prepare_search`), then
interleaved queries: numpy exact over the same vectors, citeline dense (graph) and hybrid. Recall
of the graph is measured against exact search. Memory is this process's RSS after each phase
(VmRSS/VmHWM), which includes the corpus arrays the benchmark itself holds (n x 384 x 4 bytes).

    OPENBLAS_NUM_THREADS=1 nice -n 10 .venv/bin/python bench/million.py --chunks 1000000
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

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
from query import exact_truth, recall
from store import OWNER, load, make_corpus

from citeline.index.store import DEFAULT_ANN_MIN_CHUNKS, SearchRequest, open_store


def rss_mib() -> dict[str, float]:
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
    return {"rss_mib": round(int(fields["VmRSS"].split()[0]) / 1024, 1),
            "peak_rss_mib": round(int(fields["VmHWM"].split()[0]) / 1024, 1)}


def measure(chunks: int, queries: int = 100, seed: int = 42) -> dict[str, Any]:
    out: dict[str, Any] = {"chunks": chunks, "queries": queries, "seed": seed}
    started = time.perf_counter()
    corpus = make_corpus(chunks, queries, seed)
    out["generate_s"] = round(time.perf_counter() - started, 1)
    truth = exact_truth(corpus)
    tmp = Path(tempfile.mkdtemp(prefix="citeline-bench-1m-"))
    try:
        store: Any = open_store(f"sqlite:{tmp / 'index.sqlite3'}")
        print(f"loading {chunks:,} chunks ...", flush=True)
        out["load_s"] = round(load(store, corpus), 1)
        out["after_load"] = rss_mib()
        print(f"  {out['load_s']} s; building the HNSW graph ...", flush=True)
        started = time.perf_counter()
        store.prepare_search(OWNER, ann_min_chunks=DEFAULT_ANN_MIN_CHUNKS)
        out["graph_build_s"] = round(time.perf_counter() - started, 1)
        out["after_graph"] = rss_mib()
        out["files_mib"] = {
            "database": round(sum(p.stat().st_size for p in tmp.glob("index.sqlite3*") if p.is_file()) / 2**20, 1),
            "graph": round(sum(p.stat().st_size for p in store.ann_path().glob("*")) / 2**20, 1),
        }
        print(f"  {out['graph_build_s']} s; querying ...", flush=True)
        rowids = {int(r[0]): int(r[1][1:]) for r in store._conn().execute("SELECT rowid, chunk_id FROM chunks")}

        def request(i: int) -> SearchRequest:
            return SearchRequest(owner=OWNER, text=corpus.query_texts[i], vector=corpus.queries[i], top_k=10)

        systems = {
            "numpy exact": lambda i: set(np.argpartition(-(corpus.vectors @ corpus.queries[i]), 10)[:10].tolist()),
            "citeline dense": lambda i: {rowids[r] for r in store._dense(request(i), 10, None)[0]},
            "citeline hybrid": lambda i: {int(p.chunk_id[1:]) for p in store.search(request(i))},
        }
        latencies = interleave(systems, queries)
        out["systems"] = {name: p50_p95(samples) for name, samples in latencies.items()}
        out["recall_at_10"] = recall([systems["citeline dense"](i) for i in range(queries)], truth)
        out["after_queries"] = rss_mib()
        # A fresh process's view: opening the graph (memory-mapped) and the first query.
        fresh: Any = open_store(f"sqlite:{tmp / 'index.sqlite3'}")
        started = time.perf_counter()
        fresh._dense(request(0), 10, None)
        out["fresh_first_dense_ms"] = round((time.perf_counter() - started) * 1000, 1)
        fresh.close()
        store.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--out", type=Path, default=None, help="write the JSON here too")
    args = parser.parse_args()
    out = measure(args.chunks, args.queries)
    text = json.dumps(out, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
