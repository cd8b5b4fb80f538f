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
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, report

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


def _embed_only(url: str, texts: list[str], concurrency: int, batch_size: int) -> float:
    """Texts per second of the client alone (no parsing, no writing)."""
    remote = RemoteEmbedder(MODEL, base_url=url, batch_size=batch_size, concurrency=concurrency)
    try:
        started = time.perf_counter()
        remote.embed(texts)
        return len(texts) / (time.perf_counter() - started)
    finally:
        remote.close()


def measure(chunks: int = 300, concurrencies: tuple[int, ...] = (1, 2, 4), latencies_ms: tuple[int, ...] = (0, 100),
            batch_size: int = 16, rounds: int = 2, seed: int = 20251121) -> dict[str, Any]:
    """Ingest and embed-only throughput per (added latency, concurrency), medians of `rounds`
    alternated rounds (machine load drifts), and in-process MiniLM for reference."""
    work = Path(tempfile.mkdtemp(prefix="citeline-bench-remote-"))
    settings = Settings(home=work / "home")
    out: dict[str, Any] = {"chunks_target": chunks, "batch_size": batch_size, "rounds": rounds, "runs": []}
    servers = []
    try:
        corpus = work / "corpus"
        corpus.mkdir()
        out["files"] = ingest_bench.generate(corpus, chunks, settings, seed)
        local = get_embedder("minilm-onnx", settings.index.embed_batch_size, settings.index.embed_threads)
        local.embed(["warm-up"])
        urls = {}
        for latency in latencies_ms:
            url, server = start_embedding_server(work / f"server-{latency}.log", "--latency-ms", str(latency))
            servers.append(server)
            urls[latency] = url
            RemoteEmbedder(MODEL, base_url=url).embed(["warm-up"])
        texts = [path.read_text(encoding="utf-8")[:1200] for path in sorted(corpus.iterdir())] * 4
        samples: dict[Any, list[dict[str, float]]] = {}
        for _ in range(rounds):
            samples.setdefault("in_process", []).append(_ingest(corpus, work / "home-local", local, settings))
            for latency in latencies_ms:
                for concurrency in concurrencies:
                    remote = RemoteEmbedder(MODEL, base_url=urls[latency], batch_size=batch_size, concurrency=concurrency)
                    run = _ingest(corpus, work / f"home-{latency}-{concurrency}", remote, settings)
                    run["requests"], run["retries"] = remote.stats.requests, remote.stats.retries
                    remote.close()
                    run["embed_only_texts_per_s"] = round(_embed_only(urls[latency], texts, concurrency, batch_size), 1)
                    samples.setdefault((latency, concurrency), []).append(run)
                    print(latency, concurrency, run, flush=True)
        out["in_process"] = _median(samples.pop("in_process"))
        for (latency, concurrency), runs in samples.items():
            out["runs"].append({"added_latency_ms": latency, "concurrency": concurrency, **_median(runs)})
        out["embed_only_texts"] = len(texts)
    finally:
        stop(servers)
        shutil.rmtree(work, ignore_errors=True)
    out["cpus"] = os.cpu_count()
    out["load_average"] = round(os.getloadavg()[0], 1)  # other work on the machine shapes these figures
    return out


def _median(runs: list[dict[str, float]]) -> dict[str, float]:
    import statistics

    return {key: round(statistics.median(run[key] for run in runs), 2) for key in runs[0]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=300)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    result = measure(args.chunks)
    report(result, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
