"""Shared helpers of the benchmark suite: percentiles, timers, wrappers that measure time spent
in the embedder and the store, and a description of the machine the numbers come from."""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent


def pct(samples: Sequence[float], q: float) -> float:
    """The q-quantile by nearest rank (q=0.5: median-ish, q=0.95: p95)."""
    ordered = sorted(samples)
    if not ordered:
        return float("nan")
    if q == 0.5:
        return float(statistics.median(ordered))
    return float(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))])


def p50_p95(samples: Sequence[float]) -> dict[str, float]:
    return {"p50_ms": round(pct(samples, 0.5), 3), "p95_ms": round(pct(samples, 0.95), 3), "n": len(samples)}


def timed_ms(action: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    value = action()
    return (time.perf_counter() - started) * 1000, value


def interleave(systems: dict[str, Callable[[int], Any]], count: int, warmup: int = 5,
               rounds: int = 1) -> dict[str, list[float]]:
    """Run query i on every system before query i+1 (order rotated per query), so load drift on a
    shared machine hits all systems alike. Returns per-system latencies in ms."""
    names = list(systems)
    for i in range(min(warmup, count)):
        for name in names:
            systems[name](i)
    out: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        for i in range(count):
            shift = (i + r) % len(names)
            for name in names[shift:] + names[:shift]:
                elapsed, _ = timed_ms(lambda n=name, j=i: systems[n](j))  # type: ignore[misc]
                out[name].append(elapsed)
    return out


class TimedEmbedder:
    """Wraps an embedder and adds up the time spent inside it."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.dim, self.seconds, self.calls = inner, inner.name, inner.dim, 0.0, 0
        # The index checks the embedder's identity: the wrapper is the same model, not a plugin of its own.
        self.identity = getattr(inner, "identity", None)

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        started = time.perf_counter()
        try:
            return self.inner.embed(texts)  # type: ignore[no-any-return]
        finally:
            self.seconds += time.perf_counter() - started
            self.calls += 1


class TimedStore:
    """Wraps a Store; adds up the time of the retrieval calls (search, open)."""

    TIMED = frozenset({"search", "get_passage"})

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.seconds = 0.0

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if name not in self.TIMED:
            return attr

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return attr(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started

        return wrapper


def report(result: dict[str, Any], path: Path | None) -> None:
    """Print a benchmark's result and, when asked, write it as JSON to `path`."""
    print(json.dumps(result, indent=1, default=str))
    if path is not None:
        path.write_text(json.dumps(result, indent=2, default=str) + "\n", encoding="utf-8")


def machine() -> dict[str, Any]:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "load_avg": [round(x, 2) for x in load],
    }
