"""BM25's latency tail on a large corpus: the embedded engine's lexical ranking alone.

Loads the synthetic corpus of bench/million.py (bench/store.py's generator, same seed) into a
SQLite store once, without building the ANN graph, and keeps the queries beside it. Then times
`SQLiteStore._lexical` (the BM25 statement with its common-word cut) over the queries: one cold
pass (empty per-version word-count cache) and `--rounds` warm passes, and records each query's
lexical top 10 and, with `--hybrid`, its hybrid top 10 (exact dense, no graph) so that two runs
can be compared. Run it once per code tree on the same file:

    PYTHONPATH=/old/src .venv/bin/python bench/bm25_tail.py --db /tmp/bm25.sqlite3 --out before.json
    PYTHONPATH=/new/src .venv/bin/python bench/bm25_tail.py --db /tmp/bm25.sqlite3 --out after.json
    .venv/bin/python bench/bm25_tail.py --compare before.json after.json
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import machine, p50_p95, timed_ms
from store import OWNER, load, make_corpus

import citeline
from citeline.index.sqlite import SQLiteStore
from citeline.index.store import SearchRequest


def prepare(db: Path, chunks: int, queries: int, seed: int) -> dict[str, Any]:
    """The database and its queries (`<db>.queries.npz`), loaded once."""
    side = db.with_name(db.name + ".queries.npz")
    if db.exists() and side.exists():
        return {"loaded": "reused"}
    started = time.perf_counter()
    corpus = make_corpus(chunks, queries, seed)
    generate_s = time.perf_counter() - started
    store = SQLiteStore(db)
    load_s = load(store, corpus)
    store.close()
    np.savez(side, vectors=corpus.queries, texts=np.array(corpus.query_texts))
    return {"generate_s": round(generate_s, 1), "load_s": round(load_s, 1)}


def measure(db: Path, rounds: int, hybrid: bool) -> dict[str, Any]:
    side = np.load(db.with_name(db.name + ".queries.npz"))
    texts = [str(t) for t in side["texts"]]
    vectors = side["vectors"]
    store = SQLiteStore(db)
    chunks = store.counts(OWNER)[1]

    def request(i: int, vector: bool = False) -> SearchRequest:
        return SearchRequest(owner=OWNER, text=texts[i], vector=vectors[i] if vector else None,
                             top_k=10, ann_min_chunks=0)

    pool = SearchRequest(owner=OWNER, text="", vector=None).candidate_pool
    store._lexical(request(0), pool)  # page cache, statement cache; query 0 is timed cold below anyway
    cold, warm, top = [], [], []
    for i in range(len(texts)):
        ms, ranked = timed_ms(lambda j=i: store._lexical(request(j), pool))  # type: ignore[misc]
        cold.append(ms)
        top.append(ranked[:10])
    for _ in range(rounds):
        for i in range(len(texts)):
            warm.append(timed_ms(lambda j=i: store._lexical(request(j), pool))[0])  # type: ignore[misc]
    out: dict[str, Any] = {
        "citeline": str(Path(citeline.__file__).resolve().parent),
        "chunks": chunks, "queries": len(texts), "rounds": rounds, "machine": machine(),
        "lexical_cold": p50_p95(cold), "lexical_warm": p50_p95(warm),
        "slowest_cold": sorted(((round(ms, 1), texts[i]) for i, ms in enumerate(cold)), reverse=True)[:5],
        "lexical_top10": top,
    }
    if hybrid:
        store._matrix(OWNER)  # the exact-search matrix, built once
        fused, dense, times = [], [], []
        chunk_ids = dict(store._conn().execute("SELECT rowid, chunk_id FROM chunks"))
        for i in range(len(texts)):
            ms, passages = timed_ms(lambda j=i: store.search(request(j, vector=True)))  # type: ignore[misc]
            times.append(ms)
            fused.append([p.chunk_id for p in passages])
            dense.append([chunk_ids[r] for r in store._dense(request(i, vector=True), 10, None)[0]])
        out["hybrid_exact_dense"] = p50_p95(times)
        out["hybrid_top10"] = fused
        # How much of the dense top 10 the fused top 10 keeps (bench/results.md's measure for
        # hybrid rankings: synthetic queries have no relevance labels).
        out["hybrid_dense_top10_overlap"] = round(float(np.mean(
            [len(set(f) & set(d)) / 10 for f, d in zip(fused, dense, strict=True)])), 3)
    store.close()
    return out


KEYS = ("lexical_cold", "lexical_warm", "hybrid_exact_dense", "hybrid_dense_top10_overlap")


def compare(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    def overlap(key: str) -> float | None:
        if key not in before or key not in after:
            return None
        pairs = zip(before[key], after[key], strict=True)
        return round(float(np.mean([len(set(a) & set(b)) / max(len(a), 1) for a, b in pairs])), 3)

    def same(key: str) -> int | None:
        if key not in before or key not in after:
            return None
        return sum(a == b for a, b in zip(before[key], after[key], strict=True))

    return {
        name: {
            "before": {k: before.get(k) for k in KEYS},
            "after": {k: after.get(k) for k in KEYS},
        }
        for name in ("latency",)
    } | {
        "lexical_top10_overlap": overlap("lexical_top10"), "lexical_top10_identical": same("lexical_top10"),
        "hybrid_top10_overlap": overlap("hybrid_top10"), "hybrid_top10_identical": same("hybrid_top10"),
        "queries": before.get("queries"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, default=Path("/tmp/citeline-bm25-tail.sqlite3"))
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--hybrid", action="store_true", help="also record hybrid top 10 (exact dense)")
    parser.add_argument("--load-only", action="store_true")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    if args.compare:
        result = compare(*(json.loads(p.read_text(encoding="utf-8")) for p in args.compare))
    else:
        result = {"prepare": prepare(args.db, args.chunks, args.queries, args.seed)}
        if not args.load_only:
            result |= measure(args.db, args.rounds, args.hybrid)
    text = json.dumps(result, indent=1)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if not k.endswith("top10")}, indent=1))


if __name__ == "__main__":
    main()
