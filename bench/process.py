"""Fresh-process benchmarks: `citeline ask` cold start and peak memory.

* cold start: wall time of `citeline ask "..."` in a fresh process (imports, model load, index
  open, one extractive run) against `python -c pass`, alternating, medians; plus an import-time
  breakdown (`python -X importtime`) and a check that PyTorch is never imported on that path.
* memory: peak RSS (ru_maxrss from wait4) of `citeline ingest` on the benchmark corpus, and
  VmRSS/VmHWM of a warm `citeline serve` (a few searches done) on a 100k-chunk index.
"""

from __future__ import annotations

import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

BIN = Path(sys.executable).parent
CITELINE = str(BIN / "citeline")
QUESTIONS = ("How do I configure the default timeout?", "Can the async client retry the request?",
             "What happens to the pool when the session is idle?", "How many seconds before the proxy closes?",
             "Why should the worker validate the token?", "How do I cancel the persistent stream?",
             "Can the global cache log the header?", "What limit applies to the queue?")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITELINE_")}
    env.update(extra)
    return env


def _run_rusage(args: list[str], env: dict[str, str]) -> tuple[float, int, int]:
    """(seconds, exit code, peak RSS in KiB) of one child process."""
    started = time.perf_counter()
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        err = proc.stderr.read().decode(errors="replace")[-2000:] if proc.stderr else ""
        raise SystemExit(f"{' '.join(args[:3])} failed ({proc.returncode}): {err}")
    return seconds, proc.returncode, int(usage.ru_maxrss)


def ingest_memory(corpus: Path, home: Path) -> dict[str, Any]:
    seconds, _, rss = _run_rusage([CITELINE, "ingest", str(corpus)], _env(CITELINE_HOME=str(home)))
    return {"wall_s": round(seconds, 2), "peak_rss_mib": round(rss / 1024, 1),
            "note": "main process; the parse worker is a separate, capped process"}


def import_breakdown(home: Path) -> dict[str, Any]:
    # A question never asked before: a cached answer would skip the agent and hide its imports.
    question = f"How do I validate the custom token? (imports {time.time_ns()})"
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "citeline.cli.main", "ask", question],
                          env=_env(CITELINE_HOME=str(home)), capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"citeline ask (importtime) failed ({proc.returncode}): {proc.stderr[-2000:]}")
    own: dict[str, int] = {}  # self time per top-level package: who really costs what
    modules: list[str] = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        parts = line.partition(":")[2].split("|")
        if len(parts) != 3:
            continue
        name = parts[2].strip()
        modules.append(name)
        root = name.split(".")[0]
        own[root] = own.get(root, 0) + int(parts[0])
    total = sum(own.values())
    ranked = sorted(own.items(), key=lambda kv: -kv[1])[:15]
    heavy = ("onnxruntime", "tokenizers", "fastapi", "uvicorn", "starlette", "usearch", "torch")
    return {
        "total_import_ms": round(total / 1000, 1),
        "top_packages_self_ms": {name: round(us / 1000, 1) for name, us in ranked},
        "modules_imported": len(modules),
        "torch_imported": any(m == "torch" or m.startswith("torch.") for m in modules),
        "heavy_imported": sorted({m.split(".")[0] for m in modules if m.split(".")[0] in heavy}),
    }


# Runs `citeline ask` exactly as the command does (same imports, same code path), and prints the
# wall-clock time at which the agent starts working on the question: the first step of the graph's
# planning node (after the input guard; the answerer is consulted next). The patch is installed
# after `Citeline.run_resources` has built the graph, so it adds no import of its own.
_UNTIL_ANSWERER = """
import sys, time
import citeline.app as app
import citeline.cli.main as cli
build = app.Citeline.run_resources
def run_resources(self, model=None):
    resources = build(self, model)
    from citeline.agent import context
    check = context.check_fits
    def first_check(*args, **kwargs):
        sys.stderr.write("ANSWERER_START " + repr(time.time()) + " " + repr(time.process_time()) + chr(10))
        sys.stderr.flush()
        context.check_fits = check
        return check(*args, **kwargs)
    context.check_fits = first_check
    return resources
app.Citeline.run_resources = run_resources
sys.argv = ["citeline", "ask", sys.argv[1]]
cli.run()
"""


def until_answerer(home: Path, runs: int = 4) -> dict[str, Any]:
    """Seconds from spawning `citeline ask` to the agent starting on the question (imports,
    settings, opening the index, building the graph), and the child's CPU seconds until then."""
    env = _env(CITELINE_HOME=str(home))
    samples: list[float] = []
    cpu: list[float] = []  # the child's CPU seconds to that point: what a machine to itself would take
    for i in range(runs):
        started = time.time()
        # A question never asked before: a cached answer would skip the agent altogether.
        question = QUESTIONS[(i + 3) % len(QUESTIONS)] + f" (cold {i}, {time.time_ns()})"
        proc = subprocess.run([sys.executable, "-c", _UNTIL_ANSWERER, question], env=env,
                              capture_output=True, text=True)
        marks = [line for line in proc.stderr.splitlines() if line.startswith("ANSWERER_START ")]
        if proc.returncode not in (0, 1) or not marks:
            raise SystemExit(f"citeline ask (until answerer) failed ({proc.returncode}): {proc.stderr[-2000:]}")
        samples.append(float(marks[0].split()[1]) - started)
        cpu.append(float(marks[0].split()[2]))
    return {"runs": runs, "until_answerer_s": round(statistics.median(samples), 3),
            "samples_s": [round(x, 3) for x in samples], "cpu_until_answerer_s": round(statistics.median(cpu), 3),
            "load_avg": [round(x, 2) for x in os.getloadavg()]}


def cold_start(home: Path, runs: int = 4) -> dict[str, Any]:
    env = _env(CITELINE_HOME=str(home))
    baseline, asks = [], []
    exits: list[int] = []
    for i in range(runs):  # alternate, so drift hits both alike
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], env=env, check=True)
        baseline.append(time.perf_counter() - started)
        started = time.perf_counter()
        proc = subprocess.run([CITELINE, "ask", QUESTIONS[i % len(QUESTIONS)] + f" (run {i})"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        asks.append(time.perf_counter() - started)
        # 0 answered, 1 declined: both are complete runs; anything else is a failure.
        if proc.returncode not in (0, 1) or "Traceback" in proc.stderr:
            raise SystemExit(f"citeline ask failed ({proc.returncode}): {proc.stderr[-2000:]}")
        exits.append(proc.returncode)
    b, a = statistics.median(baseline), statistics.median(asks)
    return {"runs": runs, "python_pass_s": round(b, 3), "citeline_ask_s": round(a, 3), "ratio": round(a / b, 1), "exit_codes": exits,
            "samples_ask_s": [round(x, 3) for x in asks], "samples_pass_s": [round(x, 3) for x in baseline],
            "imports": import_breakdown(home), "until_answerer": until_answerer(home, runs)}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read())  # type: ignore[no-any-return]


def serve_memory(index: Path, owner: str, home: Path, searches: int = 10) -> dict[str, Any]:
    port = _free_port()
    env = _env(CITELINE_HOME=str(home), CITELINE_STORE=f"sqlite:{index}", CITELINE_OWNER=owner)
    proc = subprocess.Popen([CITELINE, "serve", "--no-auth", "--port", str(port), "--log-level", "warning"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    err = proc.stderr.read().decode(errors="replace")[-2000:] if proc.stderr else ""
                    raise SystemExit(f"citeline serve did not start: {err}") from None
                time.sleep(0.3)
        rng = random.Random(3)
        latencies = []
        for i in range(searches):
            started = time.perf_counter()
            out = _post(f"{url}/v1/search", {"query": f"{rng.choice(QUESTIONS)} {i}", "topK": 10})
            latencies.append((time.perf_counter() - started) * 1000)
            assert out, "empty search response"
        status = Path(f"/proc/{proc.pid}/status").read_text()
        fields = {line.split(":")[0]: line.split(":")[1].strip() for line in status.splitlines() if ":" in line}
        rss = int(fields["VmRSS"].split()[0]) / 1024
        hwm = int(fields["VmHWM"].split()[0]) / 1024
        return {"rss_mib": round(rss, 1), "peak_rss_mib": round(hwm, 1), "searches": searches,
                "first_search_ms": round(latencies[0], 1),
                "warm_search_p50_ms": round(statistics.median(latencies[1:]), 1)}
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
