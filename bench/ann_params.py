"""HNSW build parameters: graph build time and recall@10 per `expansion_add` (and thread count).

Builds the usearch graph exactly as the SQLite engine does (citeline.index.ann: inner product on
unit f32 rows, M=16), straight from the vectors, so only the graph is timed. Recall@10 is against
an exact numpy scan, searched with the engine's `expansion_search`. Run on the synthetic set and
on the cached real MiniLM corpus (bench/real_corpus.py) to choose `HnswParams.expansion_add`.

    nice -n 10 .venv/bin/python bench/ann_params.py --size 100000 --expansion-add 128,64,48
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import resource
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parent))

from store import make_corpus

from citeline.index.ann import HnswParams


def exact_top10(vectors: npt.NDArray[np.float32], queries: npt.NDArray[np.float32]) -> list[set[int]]:
    """The exact top 10 of every query (inner product on unit rows)."""
    truth = []
    for start in range(0, len(queries), 50):
        scores = queries[start : start + 50] @ vectors.T
        truth.extend(set(np.argpartition(-row, 10)[:10].tolist()) for row in scores)
    return truth


def build_and_measure(vectors: npt.NDArray[np.float32], queries: npt.NDArray[np.float32],
                      truth: list[set[int]], expansion_add: int, threads: int,
                      expansion_search: list[int]) -> dict[str, Any]:
    """Build one graph; its wall and CPU seconds, CPU/wall (cores really used), and recall@10 and
    search p50 per `expansion_search`."""
    from usearch.index import Index

    defaults = HnswParams()
    index = Index(ndim=vectors.shape[1], metric="ip", dtype="f32", connectivity=defaults.connectivity,
                  expansion_add=expansion_add, expansion_search=defaults.expansion_search)
    cpu0, wall0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    index.add(np.arange(len(vectors), dtype=np.uint64), vectors, threads=threads)
    wall = time.perf_counter() - wall0
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    row: dict[str, Any] = {"expansion_add": expansion_add, "threads": threads, "build_s": round(wall, 1),
                           "build_cpu_s": round(cpu, 1), "cores_used": round(cpu / wall, 2)}
    for ef in expansion_search:
        index.expansion_search = ef
        found, times = [], []
        for query in queries:
            started = time.perf_counter()
            matches = index.search(query, 10)
            times.append((time.perf_counter() - started) * 1000)
            found.append({int(k) for k in matches.keys})
        hits = sum(len(f & t) for f, t in zip(found, truth, strict=True))
        row[f"ef_search_{ef}"] = {"recall_at_10": round(hits / (10 * len(truth)), 4),
                                  "search_p50_ms": round(float(np.percentile(times, 50)), 3)}
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=100_000, help="synthetic vectors (0: none)")
    parser.add_argument("--real", type=int, default=0, help="also the cached real corpus of this many chunks")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--expansion-add", default="128,64,48")
    parser.add_argument("--threads", default="0", help="comma-separated; 0 = all cores")
    parser.add_argument("--expansion-search", default=str(HnswParams().expansion_search))
    args = parser.parse_args()
    sets: list[tuple[str, Any, Any]] = []
    if args.size:
        corpus = make_corpus(args.size, args.queries, 42)
        sets.append((f"synthetic {args.size:,}", corpus.vectors, corpus.queries))
    if args.real:
        import real_corpus

        real = real_corpus.load_or_build(args.real, build=False)
        if real is None:
            raise SystemExit(f"no cached real corpus of {args.real} chunks: run bench/real_corpus.py first")
        sets.append((f"real MiniLM {len(real.texts):,}", real.vectors, real.queries))
    searches = [int(e) for e in args.expansion_search.split(",")]
    out = []
    for label, vectors, queries in sets:
        truth = exact_top10(vectors, queries)
        for threads in (int(t) for t in args.threads.split(",")):
            for ef in (int(e) for e in args.expansion_add.split(",")):
                row = {"data": label, **build_and_measure(vectors, queries, truth, ef, threads, searches)}
                print(json.dumps(row), flush=True)
                out.append(row)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
