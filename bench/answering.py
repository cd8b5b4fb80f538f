"""Answering benchmark: uncached `Citeline.ask` latency with the extractive answerer on real corpora.

Each development set beside the repository (`../shared/eval/NAME-qa.jsonl` with its corpus) is
ingested through the real loaders into its own index; then a seeded sample of its questions is
answered with the caches off, so every figure is the work of answering: search, opening passages,
embedding the candidate sentences, composing and validating. The target is a p50 of at most
300 ms per question on this machine: fast enough that the default answerer feels instant.

    .venv/bin/python bench/answering.py [--suite ../shared/eval] [--per-set 40]
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
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import p50_p95

from citeline.app import Citeline
from citeline.config import Settings
from citeline.evaluation.qa import load_qa
from citeline.evaluation.runner import EVAL_EXCLUDES, discover_suite
from citeline.retrieval.cache import NullCache


def _nearest_suite() -> Path:
    """`shared/eval` beside the checkout, or beside any folder above it (a git worktree sits deeper)."""
    here = Path(__file__).resolve().parent
    for folder in here.parents[1:]:
        if (folder / "shared" / "eval").is_dir():
            return folder / "shared" / "eval"
    return here.parents[1] / "shared" / "eval"


DEFAULT_SUITE = _nearest_suite()
TARGET_P50_MS = 300.0


def measure(suite: Path = DEFAULT_SUITE, per_set: int = 40, seed: int = 11) -> dict[str, Any]:
    """p50/p95 uncached answer latency per set and over all sampled questions."""
    if not suite.is_dir():
        return {"skipped": f"no QA sets at {suite}"}
    work = Path(tempfile.mkdtemp(prefix="citeline-bench-answering-"))
    sets: dict[str, Any] = {}
    every: list[float] = []
    try:
        for eval_set in discover_suite(suite):
            app = Citeline(Settings(home=work / eval_set.name), cache=NullCache())
            try:
                assert eval_set.corpus is not None
                app.ingest([eval_set.corpus], exclude=EVAL_EXCLUDES)
                items = load_qa(eval_set.qa_file)
                sample = random.Random(seed).sample(items, min(per_set, len(items)))
                app.ask(sample[0].question)  # warm-up: loads the model, the graph and the vectors
                latencies = []
                for item in sample:
                    started = time.perf_counter()
                    app.ask(item.question)
                    latencies.append((time.perf_counter() - started) * 1000)
            finally:
                app.close()
            sets[eval_set.name] = {"questions": len(sample), **p50_p95(latencies)}
            every += latencies
    finally:
        shutil.rmtree(work, ignore_errors=True)
    overall = p50_p95(every)
    return {"sets": sets, "overall": overall, "target_p50_ms": TARGET_P50_MS,
            "met": overall["p50_ms"] <= TARGET_P50_MS, "median_of_set_p50s": round(
                statistics.median(s["p50_ms"] for s in sets.values()), 1) if sets else None}


def main() -> None:
    """Run the benchmark alone and print its figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", type=Path, default=DEFAULT_SUITE)
    parser.add_argument("--per-set", type=int, default=40)
    args = parser.parse_args()
    print(json.dumps(measure(args.suite, args.per_set), indent=2))


if __name__ == "__main__":
    main()
