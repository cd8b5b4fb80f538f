"""Agent benchmark: end-to-end `Citeline.ask` with the extractive answerer at 10k chunks.

The index holds 10k chunks of realistic documentation text (seeded; the same sentence, list,
code and table generator as the ingest corpus) with synthetic clustered vectors written through
`replace_document` — embedding 10k chunks with the real model is too slow for the time budget.
Questions are embedded by the real ONNX embedder, and the extractive answerer embeds the
sentences it considers with it too.

The embedder and the store are wrapped to time them, so per run:
    agent overhead = wall time of ask() - time in the store (search, open) - time in the embedder
and the target is overhead / steps <= 20 ms, with `steps` the AgentResult's steps (validation,
retrieval, reasoning, response: the phases every run reports). Every question is distinct (no cache hits).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import TimedEmbedder, TimedStore, p50_p95
from ingest import ADJECTIVES, NOUNS, TOPICS, VERBS, block
from store import make_corpus

from citeline.app import Citeline
from citeline.config import Settings
from citeline.documents.models import Chunk
from citeline.index.embedder import get_embedder
from citeline.index.store import DocumentRecord, open_store

OWNER = "bench"
CHUNKS_PER_DOC = 20


def build_index(path: Path, n: int, seed: int) -> float:
    rng = random.Random(seed)
    vectors = make_corpus(n, 1, seed).vectors
    store = open_store(f"sqlite:{path}")
    started = time.perf_counter()
    for d in range(0, n, CHUNKS_PER_DOC):
        doc_id = f"doc{d // CHUNKS_PER_DOC:05d}"
        title = f"{rng.choice(TOPICS)} {d // CHUNKS_PER_DOC}"
        record = DocumentRecord(id=doc_id, owner=OWNER, source=f"/bench/{doc_id}.md", title=title,
                                content_hash=doc_id, metadata={"format": "md"})
        chunks, offset = [], 0
        for i in range(d, min(d + CHUNKS_PER_DOC, n)):
            section = f"{title} > {rng.choice(ADJECTIVES).title()} {rng.choice(NOUNS)}"
            text = block(rng) + "\n\n" + block(rng)
            chunks.append(Chunk(f"c{i}", doc_id, i - d, text, section, None, offset, offset + len(text)))
            offset += len(text) + 2
        store.replace_document(record, chunks, vectors[d : d + len(chunks)])
    seconds = time.perf_counter() - started
    store.close()
    return seconds


def questions(count: int, seed: int) -> list[str]:
    rng = random.Random(seed + 1)
    shapes = ("How do I {v} the {a} {n}?", "What happens to the {n} when the {n2} is {a}?",
              "Can the {a} {n} {v} the {n2}?", "Why should the {n} {v} the {a} {n2}?",
              "How many seconds before the {n} closes the {n2}?")
    out: list[str] = []
    while len(out) < count:
        q = rng.choice(shapes).format(v=rng.choice(VERBS), a=rng.choice(ADJECTIVES), n=rng.choice(NOUNS),
                                      n2=rng.choice(NOUNS))
        if q not in out:
            out.append(q)
    return out


def measure(n: int = 10_000, count: int = 12, seed: int = 7) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="citeline-bench-agent-"))
    try:
        path = tmp / "index.sqlite3"
        load_s = build_index(path, n, seed)
        settings = Settings(home=tmp / "home", store=f"sqlite:{path}", owner=OWNER, model="extractive")
        app = Citeline(settings)
        index = settings.index
        embedder = TimedEmbedder(get_embedder(index.embedder, index.embed_batch_size, index.embed_threads))
        store = TimedStore(open_store(settings.index.store_url))
        app._embedder, app._store = embedder, store  # type: ignore[assignment]
        app.ask("How do I configure the default timeout for a warm-up run?")  # loads matrix, model, graph
        rows: list[dict[str, Any]] = []
        for question in questions(count, seed):
            embedder.seconds = store.seconds = 0.0
            started = time.perf_counter()
            result = app.ask(question)
            total = (time.perf_counter() - started) * 1000
            overhead = total - store.seconds * 1000 - embedder.seconds * 1000
            rows.append({"total_ms": total, "store_ms": store.seconds * 1000, "embed_ms": embedder.seconds * 1000,
                         "overhead_ms": overhead, "steps": len(result.steps),
                         "per_step_ms": overhead / max(1, len(result.steps)),
                         "tool_calls": sum(1 for t in result.trace if t.type == "tool_call"),
                         "exit": result.exit_reason.value, "cached": result.cached})
        app.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    def med(key: str) -> float:
        return round(statistics.median(r[key] for r in rows), 3)

    return {
        "chunks": n, "questions": count, "seed": seed, "load_s": round(load_s, 2),
        "total": p50_p95([r["total_ms"] for r in rows]),
        "store_ms_p50": med("store_ms"), "embed_ms_p50": med("embed_ms"), "overhead_ms_p50": med("overhead_ms"),
        "overhead_share_p50": round(statistics.median(r["overhead_ms"] / r["total_ms"] for r in rows), 4),
        "steps_p50": med("steps"), "tool_calls_p50": med("tool_calls"),
        "overhead_per_step": p50_p95([r["per_step_ms"] for r in rows]),
        "exits": dict(Counter(r["exit"] for r in rows)), "cache_hits": sum(r["cached"] for r in rows),
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--questions", type=int, default=12)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    out = measure(args.chunks, args.questions, args.seed)
    print(json.dumps({k: v for k, v in out.items() if k != "rows"}, indent=2))


if __name__ == "__main__":
    main()
