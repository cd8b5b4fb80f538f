"""Load check of the team service: 50 concurrent streamed runs against a live `citeline serve`.

    .venv/bin/python bench/api_load.py [--runs 50] [--concurrency 50]

Uses the deterministic `scripted` answerer (search, then a grounded final answer) on a tiny corpus,
so the numbers measure the service, not a model. Every question is distinct, so no run is an
answer-cache hit. Prints:
  * direct: `Citeline.ask` latencies in this process (sequential, then N threads at once);
  * api sequential: one streamed run at a time over loopback, request sent -> `final` received;
  * api concurrent: N streamed runs at once; errors must be 0;
  * overhead: api minus direct, at p50 and p95, for the sequential and the concurrent case.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import write_corpus, write_script  # noqa: E402

from citeline.app import Citeline  # noqa: E402
from citeline.config import Settings  # noqa: E402

ANSWER = "Requests time out after 5 seconds of network inactivity by default [1]."


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(name: str, values: list[float]) -> str:
    return (f"{name:<28} n={len(values):<3} p50={pct(values, 0.5):7.1f} ms  p95={pct(values, 0.95):7.1f} ms  "
            f"mean={statistics.fmean(values):7.1f} ms")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def streamed_run(client: httpx.AsyncClient, url: str, question: str) -> tuple[float, str | None]:
    started = time.perf_counter()
    try:
        async with client.stream("POST", f"{url}/v1/agent/stream", json={"question": question}) as response:
            if response.status_code != 200:
                await response.aread()
                return time.perf_counter() - started, f"HTTP {response.status_code}: {response.text[:200]}"
            kind = ""
            async for line in response.aiter_lines():
                if line.startswith("event:"):
                    kind = line[6:].strip()
                elif line.startswith("data:") and kind == "final":
                    result = json.loads(line[5:])["data"]["result"]
                    elapsed = time.perf_counter() - started
                    if result["exit_reason"] != "COMPLETED":
                        return elapsed, f"exit {result['exit_reason']}"
                    return elapsed, None
        return time.perf_counter() - started, "stream ended without final"
    except httpx.HTTPError as exc:
        return time.perf_counter() - started, f"{exc.__class__.__name__}: {exc}"


async def api_runs(url: str, questions: list[str], concurrency: int) -> tuple[list[float], list[str]]:
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        semaphore = asyncio.Semaphore(concurrency)

        async def one(question: str) -> tuple[float, str | None]:
            async with semaphore:
                return await streamed_run(client, url, question)

        outcomes = await asyncio.gather(*(one(q) for q in questions))
    return [t * 1000 for t, _ in outcomes], [e for _, e in outcomes if e]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--concurrency", type=int, default=50)
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="citeline-api-load-"))
    home = root / "home"
    script = write_script(root / "answer.jsonl",
                          {"type": "tool_call", "tool": "search_docs", "input": {"query": "default timeout"}},
                          {"type": "final", "answer": ANSWER})
    env = {**os.environ, "CITELINE_HOME": str(home), "CITELINE_MODEL": f"scripted:{script}",
           "CITELINE_API_MAX_CONCURRENT_RUNS": "1000", "CITELINE_API_RATE_PER_S": "100000",
           "CITELINE_API_RATE_BURST": "100000"}
    os.environ.update({k: v for k, v in env.items() if k.startswith("CITELINE_")})
    citeline = Citeline(Settings())
    report = citeline.ingest([write_corpus(root / "docs")])
    assert report.ok, report

    def questions(tag: str) -> list[str]:
        return [f"What is the default timeout of a request? ({tag} {i})" for i in range(args.runs)]

    def direct(question: str) -> float:
        started = time.perf_counter()
        result = citeline.ask(question)
        assert result.exit_reason.value == "COMPLETED", result.exit_reason
        return (time.perf_counter() - started) * 1000

    direct("warm-up")
    direct_seq = [direct(q) for q in questions("direct-seq")]
    # All N submitted at once, each latency measured from that common moment (as the API clients are).
    direct_wall = time.perf_counter()

    def direct_from_submit(question: str) -> float:
        direct(question)
        return (time.perf_counter() - direct_wall) * 1000

    with ThreadPoolExecutor(max_workers=args.concurrency) as pool:
        direct_conc = list(pool.map(direct_from_submit, questions("direct-conc")))
    direct_wall = (time.perf_counter() - direct_wall) * 1000

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([sys.executable, "-m", "citeline.cli.main", "serve", "--no-auth", "--port", str(port),
                               "--log-level", "warning"], env=env)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/readyz", timeout=30).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit("the server did not come up")
            time.sleep(0.2)
        asyncio.run(api_runs(url, ["warm-up question about the timeout?"], 1))
        api_seq, seq_errors = asyncio.run(api_runs(url, questions("api-seq"), 1))
        wall = time.perf_counter()
        api_conc, conc_errors = asyncio.run(api_runs(url, questions("api-conc"), args.concurrency))
        wall = (time.perf_counter() - wall) * 1000
        metrics = httpx.get(f"{url}/metrics").text
    finally:
        server.terminate()
        server.wait(timeout=30)
        citeline.close()

    cpus = os.cpu_count()
    print(f"citeline API load check: {args.runs} runs, concurrency {args.concurrency}, {cpus} CPUs, "
          "scripted answerer, MiniLM embedder, loopback")
    print(summary("direct Citeline.ask (seq)", direct_seq))
    print(summary(f"direct Citeline.ask (x{args.concurrency})", direct_conc))
    print(summary("api stream (seq)", api_seq))
    print(summary(f"api stream (x{args.concurrency})", api_conc))
    print(f"wall time for {args.runs} runs at x{args.concurrency}: direct {direct_wall:7.1f} ms, api {wall:7.1f} ms "
          f"(throughput {args.runs / direct_wall * 1000:.1f} vs {args.runs / wall * 1000:.1f} runs/s)")
    print(f"errors: sequential {len(seq_errors)}, concurrent {len(conc_errors)}")
    for error in (seq_errors + conc_errors)[:5]:
        print("  ", error)
    print(f"overhead (seq):  p50 {pct(api_seq, .5) - pct(direct_seq, .5):+7.1f} ms   "
          f"p95 {pct(api_seq, .95) - pct(direct_seq, .95):+7.1f} ms")
    print(f"overhead (x{args.concurrency}): p50 {pct(api_conc, .5) - pct(direct_conc, .5):+7.1f} ms   "
          f"p95 {pct(api_conc, .95) - pct(direct_conc, .95):+7.1f} ms")
    completed = [line for line in metrics.splitlines() if line.startswith("citeline_agent_runs_total")]
    print("server metrics:", "; ".join(completed))
    if seq_errors or conc_errors:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
