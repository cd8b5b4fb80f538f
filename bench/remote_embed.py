"""Remote embedding ingest throughput: `citeline ingest` with `embedder = "openai:MODEL"` against a
real OpenAI-compatible server on loopback, at 1, 2 and 4 requests in flight, next to the same
ingest with the bundled model in-process.

    .venv/bin/python bench/remote_embed.py [--chunks 300] [--json out.json]

The server is tests/embedding_server.py (MiniLM on ONNX Runtime, the same model as in-process),
so on this CPU-only machine the server's compute is the bottleneck and concurrency can only
overlap the client's work (parsing, JSON, writing) with the server's. A second series adds 100 ms
to every answer without using the CPU — standing in for a GPU server across a network, where
latency, not compute, dominates and concurrency is what keeps the GPU busy.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT

sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

import ingest as ingest_bench
from tests.servers import start_embedding_server, stop

from citeline.config import Settings
from citeline.index.embedder import Embedder, get_embedder
from citeline.index.ingest import ingest_paths
from citeline.index.remote import RemoteEmbedder
from citeline.index.sqlite import SQLiteStore

MODEL = "all-MiniLM-L6-v2"


def _ingest(corpus: Path, home: Path, embedder: Embedder, settings: Settings) -> dict[str, float]:
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    store = SQLiteStore(home / "index.sqlite3")
    try:
        started = time.perf_counter()
        report = ingest_paths([corpus], store=store, embedder=embedder, settings=settings, owner="bench")
        seconds = time.perf_counter() - started
    finally:
        store.close()
    if report.failed:
        raise SystemExit(f"ingest failed: {report.failed[0]}")
    return {"seconds": round(seconds, 2), "chunks": report.chunks, "chunks_per_s": round(report.chunks / seconds, 1)}


def measure(chunks: int = 300, concurrencies: tuple[int, ...] = (1, 2, 4), latencies_ms: tuple[int, ...] = (0, 100),
            batch_size: int = 32, seed: int = 20251121) -> dict[str, Any]:
    """Ingest throughput per (added latency, concurrency), and in-process MiniLM for reference."""
    work = Path(tempfile.mkdtemp(prefix="citeline-bench-remote-"))
    settings = Settings(home=work / "home")
    out: dict[str, Any] = {"chunks_target": chunks, "batch_size": batch_size, "runs": []}
    try:
        corpus = work / "corpus"
        corpus.mkdir()
        out["files"] = ingest_bench.generate(corpus, chunks, settings, seed)
        local = get_embedder("minilm-onnx", settings.embed_batch_size, settings.embed_threads)
        local.embed(["warm-up"])
        out["in_process"] = _ingest(corpus, work / "home-local", local, settings)
        print("in-process MiniLM:", out["in_process"], flush=True)
        for latency in latencies_ms:
            url, server = start_embedding_server(work / f"server-{latency}.log", "--latency-ms", str(latency))
            try:
                warm = RemoteEmbedder(MODEL, base_url=url)
                warm.embed(["warm-up"])
                warm.close()
                for concurrency in concurrencies:
                    remote = RemoteEmbedder(MODEL, base_url=url, batch_size=batch_size, concurrency=concurrency)
                    run = {"added_latency_ms": latency, "concurrency": concurrency,
                           **_ingest(corpus, work / f"home-{latency}-{concurrency}", remote, settings),
                           "requests": remote.stats.requests, "retries": remote.stats.retries}
                    remote.close()
                    out["runs"].append(run)
                    print(run, flush=True)
            finally:
                stop([server])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    out["cpus"] = os.cpu_count()
    out["load_average"] = round(os.getloadavg()[0], 1)  # other work on the machine shapes these figures
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=300)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    result = measure(args.chunks)
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
