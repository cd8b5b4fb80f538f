"""`citeline eval`: run QA sets against their corpora and compute what a reader would judge.

Each set is a QA file (format in `docs/eval.md`) and, optionally, the folder of documents it is
about. Several sets run in one call, each corpus in an index of its own. Answers are computed
with the caches off: the latency reported is the work of answering, not a cache lookup.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from citeline.agent.exits import ExitReason
from citeline.errors import ConfigurationError
from citeline.evaluation.form import AnswerForm, first_sentence
from citeline.evaluation.qa import QAItem, load_qa
from citeline.text import collapse_ws

if TYPE_CHECKING:
    from citeline.agent.result import AgentResult
    from citeline.app import Citeline

# Licence and changelog files are not documentation: leave them out of an eval corpus.
EVAL_EXCLUDES = ("LICENSE*", "LICENCE*", "COPYING*")
_ANY_CANARY = re.compile(r"CANARY-[0-9A-F]{4}")


@dataclass(frozen=True)
class EvalSet:
    """A QA file and the corpus its questions are about (None: the index as it is)."""

    name: str
    qa_file: Path
    corpus: Path | None = None

    @classmethod
    def of(cls, qa_file: Path, corpus: Path | None) -> EvalSet:
        """A set named after its QA file (`NAME-qa.jsonl` gives NAME)."""
        return cls(qa_file.name.removesuffix(".jsonl").removesuffix("-qa"), qa_file, corpus)


def discover_suite(directory: Path) -> list[EvalSet]:
    """Every `NAME-qa.jsonl` in `directory` with its corpus folder `NAME-docs/` or `NAME/`."""
    sets = []
    for qa_file in sorted(directory.glob("*-qa.jsonl")):
        name = qa_file.name.removesuffix("-qa.jsonl")
        corpus = next((c for c in (directory / f"{name}-docs", directory / name) if c.is_dir()), None)
        if corpus is None:
            raise ConfigurationError(f"{qa_file}: no corpus folder `{name}-docs/` or `{name}/` beside it",
                                     hint="put the documents beside the QA file, or pass --corpus")
        sets.append(EvalSet(name, qa_file, corpus))
    if not sets:
        raise ConfigurationError(f"{directory}: no `*-qa.jsonl` files", hint="see docs/eval.md for the layout")
    return sets


def normalise(text: str) -> str:
    """Casefold, collapse whitespace and drop ` and *, as the QA sets' scoring rules say."""
    return collapse_ws(re.sub(r"[`*]", "", text).casefold())


def _contains(answer: str, wanted: str) -> bool:
    return normalise(wanted) in normalise(answer)


def run_eval(
    citeline: Citeline,
    qa_file: Path,
    *,
    corpus: Path | None = None,
    model: str | None = None,
    details_path: Path | None = None,
) -> dict[str, Any]:
    """Metrics of one QA set (see `docs/eval.md` for each key)."""
    return _evaluate(citeline, load_qa(qa_file), corpus=corpus, model=model, details_path=details_path)


def _evaluate(citeline: Citeline, items: Sequence[QAItem], *, corpus: Path | None, model: str | None,
              details_path: Path | None) -> dict[str, Any]:
    owner = citeline.settings.index.owner
    if corpus is not None:
        report = citeline.ingest([corpus], owner=owner, exclude=EVAL_EXCLUDES)
        # A corpus file with nothing to read (a page that only includes another) is left out, as
        # `citeline ingest` leaves it out for a user; a corpus that cannot be read at all is an error.
        for failure in report.failed:
            print(f"warning: {failure.path}: {failure.error}", file=sys.stderr)
        if report.failed and not (report.ingested or report.updated or report.unchanged):
            raise ConfigurationError(f"could not ingest {len(report.failed)} corpus files: {report.failed[0].error}")
    root = corpus.resolve() if corpus is not None else None

    def relative(source: str) -> str:
        if root is not None:
            try:
                return Path(source).resolve().relative_to(root).as_posix()
            except ValueError:
                pass
        return source

    canaries = {item.canary for item in items if item.canary}
    tally = _Tally()
    details = []
    for item in items:
        started = time.perf_counter()
        result = citeline.ask(item.question, model=model, owner=owner)
        latency = (time.perf_counter() - started) * 1000
        details.append(tally.add(item, result, latency, citeline, owner, relative, canaries))
    if details_path is not None:
        details_path.write_text("\n".join(json.dumps(d, ensure_ascii=False) for d in details) + "\n",
                                encoding="utf-8")
    return tally.report(len(items))


class _Tally:
    """Counts accumulated over one set's questions."""

    def __init__(self) -> None:
        self.count: Counter[str] = Counter()
        self.latencies: list[float] = []
        self.words: list[int] = []
        self.exit_reasons: Counter[str] = Counter()
        self.markup_kinds: Counter[str] = Counter()

    def add(self, item: QAItem, result: AgentResult, latency: float, citeline: Citeline, owner: str,
            relative: Callable[[str], str], canaries: set[str]) -> dict[str, Any]:
        count = self.count
        self.latencies.append(latency)
        self.exit_reasons[result.exit_reason.value] += 1
        declined = not result.answered
        for citation in result.citations:
            count["citations"] += 1
            passage = citeline.store.get_passage(owner, citation.document_id, citation.chunk_id)
            count["verified"] += passage is not None and bool(citation.quote) and citation.quote in passage.text
        leaked = sorted({c for c in canaries if c in result.answer} | set(_ANY_CANARY.findall(result.answer)))
        count["canary_leaks"] += bool(leaked)
        form = AnswerForm.of(result.answer)
        if not declined:
            count["answered"] += 1
            self.words.append(form.words)
            count["markup"] += bool(form.markup)
            self.markup_kinds.update(form.markup)
            count["run_together"] += form.run_together
            count["torn_code"] += form.torn_code > 0
            count["repeats"] += form.repeats > 0
        cited = {relative(c.source) for c in result.citations}
        lead = correct = strict = hit = read = False
        if item.answerable:
            count["answerable"] += 1
            count["answerable_declined"] += declined
            # A hit is a listed source among the documents retrieved or cited (the QA sets' rule),
            # so retrieval is measured apart from how many passages an answer happens to cite.
            hit = bool((cited | _retrieved_sources(result, relative)) & set(item.sources))
            # Whether the answer was in what the run read: an answer missed although read is the
            # composer's miss, one never read the search's or the choice of passages to open.
            read = any(_contains(text, a) for text in _opened_texts(result, citeline, owner) for a in item.answers)
            correct = not declined and any(_contains(result.answer, a) for a in item.answers)
            strict = not declined and all(_contains(result.answer, a) for a in item.answers)
            lead = not declined and any(_contains(first_sentence(result.answer), a) for a in item.answers)
            count["hits"] += hit
            count["read"] += read
            count["correct"] += correct
            count["strict"] += strict
            count["lead"] += lead
        else:
            count["unanswerable"] += 1
            correct = result.exit_reason == ExitReason.INSUFFICIENT_CONTEXT
            count["unanswerable_declined"] += correct
            count["distractor"] += not declined and any(_contains(result.answer, d) for d in item.distractors)
        return {"id": item.id, "answerable": item.answerable, "gold": list(item.answers),
                "exit_reason": result.exit_reason.value,
                "correct": correct, "lead": lead, "strict": strict, "retrieval_hit": hit, "read": read,
                "answer": result.answer,
                "cited": sorted(cited), "markup": form.markup, "words": form.words, "canaries": leaked,
                "torn_code": form.torn_code, "repeats": form.repeats, "run_together": form.run_together,
                "latency_ms": round(latency, 1), "decision": decision_of(result)}

    def report(self, n: int) -> dict[str, Any]:
        count = self.count

        def share(numerator: str, denominator: str) -> float:
            return round(count[numerator] / count[denominator], 4) if count[denominator] else 0.0

        def percentile(values: Sequence[float], q: int) -> float:
            return round(float(np.percentile(values, q)), 1) if values else 0.0

        return {
            "n": n,
            "retrieval_hit_at_k": share("hits", "answerable"),
            "answer_read": share("read", "answerable"),
            "answer_accuracy": share("correct", "answerable"),
            "answer_accuracy_strict": share("strict", "answerable"),
            "lead_accuracy": share("lead", "answerable"),
            "unanswerable_declined": share("unanswerable_declined", "unanswerable"),
            "answerable_declined": share("answerable_declined", "answerable"),
            "distractor_answers": share("distractor", "unanswerable"),
            "citation_verified_rate": share("verified", "citations") if count["citations"] else 1.0,
            "canary_leaks": count["canary_leaks"],
            "markup_in_answers": share("markup", "answered"),
            "markup_kinds": dict(self.markup_kinds.most_common()),
            "words_run_together": share("run_together", "answered"),
            "torn_code_points": share("torn_code", "answered"),
            "repeated_points": share("repeats", "answered"),
            "answer_words_p50": percentile(self.words, 50),
            "exit_reasons": dict(self.exit_reasons),
            "latency_ms": {"p50": percentile(self.latencies, 50), "p95": percentile(self.latencies, 95)},
        }


def run_sets(citeline: Citeline, sets: Sequence[EvalSet], *, model: str | None = None,
             details: Path | None = None) -> dict[str, dict[str, Any]]:
    """Metrics of several sets. A set with a corpus is indexed in its own SQLite file under
    `HOME/eval/NAME/`: full-text statistics are per index, so sharing one index would let one
    corpus change how another's passages rank. A set without a corpus asks `citeline`'s index.

    `details` receives the per-question results: the file itself for one set, a folder holding
    `NAME.jsonl` per set for several."""
    from citeline.app import Citeline

    names = [s.name for s in sets]
    if len(set(names)) != len(names):
        raise ConfigurationError(f"two QA sets share a name: {', '.join(names)}",
                                 hint="rename one of the QA files")
    questions = {s.name: load_qa(s.qa_file) for s in sets}  # every file checked before any work
    if details is not None and len(sets) > 1:
        details.mkdir(parents=True, exist_ok=True)
    reports = {}
    for eval_set in sets:
        app = citeline
        if eval_set.corpus is not None:
            settings = citeline.settings.with_overrides(home=citeline.settings.index.home / "eval" / eval_set.name,
                                                        store="")
            app = Citeline(settings, cache=citeline.cache)
        path = details if details is None or len(sets) == 1 else details / f"{eval_set.name}.jsonl"
        try:
            reports[eval_set.name] = _evaluate(app, questions[eval_set.name], corpus=eval_set.corpus,
                                               model=model, details_path=path)
        finally:
            if app is not citeline:
                app.close()
    return reports


def decision_of(result: AgentResult) -> dict[str, Any] | None:
    """What the answerer based its answer-or-decline decision on, from the run's trace."""
    for entry in reversed(result.trace):
        if entry.type == "validation" and isinstance(entry.data.get("decision"), dict):
            decision: dict[str, Any] = entry.data["decision"]
            return decision
    return None


def _opened_texts(result: AgentResult, citeline: Citeline, owner: str) -> list[str]:
    """The text of every passage the run opened, read back from the index. The ids come from each
    open's result in the trace: a model may open by search rank rather than by id."""
    texts = []
    for entry in result.trace:
        opened = entry.data.get("output", {})
        if entry.type == "tool_call" and entry.data.get("tool") == "open_citation" and "citation" in opened:
            passage = citeline.store.get_passage(owner, opened.get("document_id"), str(opened.get("chunk_id", "")))
            if passage is not None:
                texts.append(passage.text)
    return texts


def _retrieved_sources(result: AgentResult, relative: Callable[[str], str]) -> set[str]:
    """Sources of the passages a declined run retrieved (from its trace)."""
    sources: set[str] = set()
    for entry in result.trace:
        if entry.type == "tool_call":
            for passage in entry.data.get("output", {}).get("passages", []):
                if passage.get("source"):
                    sources.add(relative(passage["source"]))
    return sources
