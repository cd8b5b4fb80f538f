"""`citeline eval`: run a QA set (format of shared/eval/README.md) and compute its metrics."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from citeline.agent.exits import ExitReason
from citeline.errors import ConfigurationError
from citeline.jsonl import read_objects
from citeline.text import collapse_ws

if TYPE_CHECKING:
    from citeline.app import Citeline

# Licence and changelog files are not documentation: leave them out of an eval corpus.
EVAL_EXCLUDES = ("LICENSE*", "LICENCE*", "COPYING*")


def normalise(text: str) -> str:
    return collapse_ws(re.sub(r"[`*]", "", text).casefold())


def run_eval(
    citeline: Citeline,
    qa_file: Path,
    *,
    corpus: Path | None = None,
    model: str | None = None,
    details_path: Path | None = None,
) -> dict[str, Any]:
    items = read_objects(qa_file)
    owner = citeline.settings.owner
    if corpus is not None:
        report = citeline.ingest([corpus], owner=owner, exclude=EVAL_EXCLUDES)
        if report.failed:
            raise ConfigurationError(f"could not ingest {len(report.failed)} corpus files: {report.failed[0].error}")
    root = corpus.resolve() if corpus is not None else None

    def relative(source: str) -> str:
        if root is not None:
            try:
                return Path(source).resolve().relative_to(root).as_posix()
            except ValueError:
                pass
        return source

    latencies: list[float] = []
    exit_reasons: dict[str, int] = {}
    answerable = hits = correct = answerable_declined = 0
    unanswerable = unanswerable_declined = 0
    citations_total = citations_verified = canary_leaks = 0
    details = []
    for item in items:
        started = time.perf_counter()
        result = citeline.ask(item["question"], model=model, owner=owner)
        latencies.append((time.perf_counter() - started) * 1000)
        exit_reasons[result.exit_reason.value] = exit_reasons.get(result.exit_reason.value, 0) + 1
        declined = not result.answered
        for citation in result.citations:
            citations_total += 1
            passage = citeline.store.get_passage(owner, citation.document_id, citation.chunk_id)
            if passage is not None and citation.quote and citation.quote in passage.text:
                citations_verified += 1
        if item.get("canary") and item["canary"] in result.answer:
            canary_leaks += 1
        if item.get("answerable", True):
            answerable += 1
            cited = {relative(c.source) for c in result.citations}
            if declined:
                answerable_declined += 1
                cited |= _retrieved_sources(result, relative)
            hit = bool(cited & set(item.get("sources", [])))
            hits += hit
            answer = normalise(result.answer)
            is_correct = not declined and any(normalise(a) in answer for a in item.get("answers", []))
            correct += is_correct
        else:
            unanswerable += 1
            unanswerable_declined += result.exit_reason == ExitReason.INSUFFICIENT_CONTEXT
            hit, is_correct = False, result.exit_reason == ExitReason.INSUFFICIENT_CONTEXT
        details.append({"id": item.get("id"), "exit_reason": result.exit_reason.value, "correct": is_correct,
                        "retrieval_hit": hit, "answer": result.answer,
                        "cited": sorted({relative(c.source) for c in result.citations})})
    if details_path is not None:
        details_path.write_text("\n".join(json.dumps(d, ensure_ascii=False) for d in details) + "\n", encoding="utf-8")

    def share(numerator: int, denominator: int) -> float:
        return round(numerator / denominator, 4) if denominator else 0.0

    return {
        "n": len(items),
        "retrieval_hit_at_k": share(hits, answerable),
        "answer_accuracy": share(correct, answerable),
        "unanswerable_declined": share(unanswerable_declined, unanswerable),
        "answerable_declined": share(answerable_declined, answerable),
        "citation_verified_rate": share(citations_verified, citations_total) if citations_total else 1.0,
        "exit_reasons": exit_reasons,
        "latency_ms": {
            "p50": round(float(np.percentile(latencies, 50)), 1) if latencies else 0.0,
            "p95": round(float(np.percentile(latencies, 95)), 1) if latencies else 0.0,
        },
        "canary_leaks": canary_leaks,
    }


def _retrieved_sources(result: Any, relative: Any) -> set[str]:
    """Sources of the passages a declined run retrieved (from its trace)."""
    sources: set[str] = set()
    for entry in result.trace:
        if entry.type == "tool_call":
            for passage in entry.data.get("output", {}).get("passages", []):
                if passage.get("source"):
                    sources.add(relative(passage["source"]))
    return sources
