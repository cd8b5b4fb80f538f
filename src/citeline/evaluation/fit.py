"""Fit the answerability model, and report it honestly: leave-one-corpus-out.

    python -m citeline.evaluation.fit --suite ../shared/eval          # run, fit, write the model
    python -m citeline.evaluation.fit --from-details DIR              # refit from an earlier run

Every QA set is answered once with the gate off (`answerability = "off"`), recording each
question's signals and whether its answer was right. For each set, a model fitted on the *other*
sets then decides which of this set's questions to answer: those held-out figures are what a new
corpus can expect, and they are printed and written to `docs/answerability.md`. The shipped model
(`retrieval/answerability.json`) is finally fitted on all sets together.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citeline.retrieval.answerability import FEATURES, MODEL_FILE, AnswerabilityModel, fit

Row = dict[str, Any]


def collect(suite: Path, details: Path) -> dict[str, list[Row]]:
    """Answer every question of every set in `suite` with the gate off; per-question rows."""
    from citeline.app import Citeline
    from citeline.config import AnswererSettings, IndexSettings, Settings
    from citeline.evaluation.runner import discover_suite, run_sets
    from citeline.retrieval.cache import NullCache

    sets = discover_suite(suite)
    with tempfile.TemporaryDirectory(prefix="citeline-fit-") as home:
        settings = Settings(index=IndexSettings(home=Path(home)), answerer=AnswererSettings(answerability="off"))
        app = Citeline(settings, cache=NullCache())
        try:
            run_sets(app, sets, details=details)
        finally:
            app.close()
    return load_details(details)


def load_details(folder: Path) -> dict[str, list[Row]]:
    """The per-question rows of each set, from `NAME.jsonl` files."""
    rows: dict[str, list[Row]] = {}
    for path in sorted(folder.glob("*.jsonl")):
        rows[path.stem] = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    if not rows:
        raise SystemExit(f"error: no NAME.jsonl files in {folder}: run with --suite first")
    return rows


def _training(by_set: Mapping[str, Sequence[Row]]) -> tuple[list[Mapping[str, float]], list[int], list[str]]:
    """Questions that reached the decision (evidence was found), labelled answerable or not, with
    the set each comes from."""
    features, labels, groups = [], [], []
    for name, rows in by_set.items():
        for row in rows:
            decision = row.get("decision") or {}
            if decision.get("features"):
                features.append(decision["features"])
                labels.append(1 if row["answerable"] else 0)
                groups.append(name)
    return features, labels, groups


def _fit(by_set: Mapping[str, Sequence[Row]], features: Sequence[str], **extra: Any) -> AnswerabilityModel:
    rows, labels, groups = _training(by_set)
    return fit(rows, labels, groups=groups, features=features, **extra)


def outcome(rows: Sequence[Row], model: AnswerabilityModel | None) -> dict[str, float]:
    """The set's figures had `model` decided (None: answer whenever evidence was found)."""
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]

    def answered(row: Row) -> bool:
        decision = row.get("decision") or {}
        features = decision.get("features")
        if row["exit_reason"] != "COMPLETED" or not features:
            return False
        # With any gate on, a lead speaking of the opposite of what is asked is declined (a rule, not fitted).
        return model is None or (not decision.get("opposite") and model.answers(features))

    def share(part: int, whole: int) -> float:
        return round(part / whole, 4) if whole else 0.0

    return {
        "answer_accuracy": share(sum(1 for r in answerable if answered(r) and r["correct"]), len(answerable)),
        "lead_accuracy": share(sum(1 for r in answerable if answered(r) and r["lead"]), len(answerable)),
        "unanswerable_declined": share(sum(1 for r in unanswerable if not answered(r)), len(unanswerable)),
        "answerable_declined": share(sum(1 for r in answerable if not answered(r)), len(answerable)),
    }


def leave_one_corpus_out(by_set: Mapping[str, Sequence[Row]],
                         features: Sequence[str] = FEATURES) -> dict[str, dict[str, float]]:
    """Each set's figures under a model fitted on the other sets only."""
    return {held_out: outcome(by_set[held_out], _fit({n: r for n, r in by_set.items() if n != held_out}, features))
            for held_out in by_set}


def balanced(report: Mapping[str, Mapping[str, float]]) -> float:
    """Mean over held-out sets of (share of unanswerable declined + share of answerable answered) / 2."""
    return sum((f["unanswerable_declined"] + 1 - f["answerable_declined"]) / 2 for f in report.values()) / len(report)


MAX_WRONG_DECLINES = 0.2  # on any held-out set: a signal that costs more answers than this is not kept


def select_features(by_set: Mapping[str, Sequence[Row]]) -> list[str]:
    """Forward selection by the held-out figures: start from no signal, add the one that most
    improves the mean balanced accuracy over held-out sets while no held-out set declines more
    than MAX_WRONG_DECLINES of its answerable questions; stop when nothing improves. Signals
    that only help the sets they were fitted on never make it in."""
    chosen: list[str] = []
    best = 0.0
    while True:
        trials = []
        for name in FEATURES:
            if name in chosen:
                continue
            report = leave_one_corpus_out(by_set, [*chosen, name])
            if max(f["answerable_declined"] for f in report.values()) <= MAX_WRONG_DECLINES:
                trials.append((balanced(report), name))
        if not trials or max(trials)[0] <= best + 1e-3:
            return chosen or ["coverage_passage"]
        best, name = max(trials)
        chosen.append(name)


def table(report: Mapping[str, Mapping[str, float]]) -> str:
    """Markdown table of per-set figures."""
    keys = ("answer_accuracy", "lead_accuracy", "unanswerable_declined", "answerable_declined")
    lines = ["| held-out set | " + " | ".join(k.replace("_", " ") for k in keys) + " |",
             "|---|" + "---|" * len(keys)]
    lines += [f"| {name} | " + " | ".join(f"{figures[k]:.3f}" for k in keys) + " |" for name, figures in report.items()]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry: collect (or load) rows, report leave-one-corpus-out, write the model."""
    parser = argparse.ArgumentParser(prog="python -m citeline.evaluation.fit", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--suite", type=Path, help="folder of NAME-qa.jsonl files with their corpora")
    source.add_argument("--from-details", type=Path, help="per-question rows of an earlier --suite run")
    parser.add_argument("--details", type=Path, default=Path("docs/answerability-details"),
                        help="where --suite writes its per-question rows")
    parser.add_argument("--model", type=Path, default=MODEL_FILE, help="where to write the fitted model")
    parser.add_argument("--doc", type=Path, default=Path("docs/answerability.md"),
                        help="where to write the held-out report")
    args = parser.parse_args(argv)
    by_set = load_details(args.from_details) if args.from_details else collect(args.suite, args.details)
    features = select_features(by_set)
    held_out = leave_one_corpus_out(by_set, features)
    everything = leave_one_corpus_out(by_set, FEATURES)
    ungated = {name: outcome(rows, None) for name, rows in by_set.items()}
    questions = len(_training(by_set)[1])
    model = _fit(by_set, features, provenance={
        "fitted": datetime.now(UTC).strftime("%Y-%m-%d"), "sets": sorted(by_set), "questions": questions,
        "selected_features": features, "leave_one_corpus_out": held_out,
    })
    args.model.write_text(model.to_json(), encoding="utf-8")
    report = table(held_out)
    weights = "\n".join(f"| {name} | {weight:+.3f} |" for name, weight in zip(features, model.weights, strict=True))
    args.doc.parent.mkdir(parents=True, exist_ok=True)
    args.doc.write_text(
        "# Answerability: when citeline answers and when it declines\n\n"
        "Generated by `python -m citeline.evaluation.fit`; do not edit by hand.\n\n"
        "The extractive answerer decides whether the evidence answers a question with a logistic model over "
        "signals that mean the same on any corpus (see `citeline.retrieval.answerability`). Each row below is "
        "a set the model was **not** fitted on (leave-one-corpus-out): the figures a new corpus can expect. "
        "Before the model, one rule that is not fitted: when the sentence the answer would lead with speaks of the "
        "opposite of a word of the question (\"longest\" for \"shortest\", see `citeline.retrieval.opposites`), "
        "the question is declined; the figures include it.\n\n"
        f"{report}\n\nSignals kept by forward selection on these held-out figures (a signal is kept only "
        f"if it raises the mean balanced accuracy over held-out sets while no held-out set declines more than "
        f"{MAX_WRONG_DECLINES:.0%} of its answerable questions): {', '.join(features)}. The selection looks at the "
        "same held-out folds, so the figures above are slightly optimistic.\n\n"
        f"With every signal (no selection):\n\n{table(everything)}\n\n"
        f"With no gate at all (answer whenever evidence is found):\n\n{table(ungated)}\n\n"
        f"The shipped model is fitted on all {len(by_set)} sets ({questions} questions, every set weighing the "
        "same), "
        f"threshold {model.threshold}. Standardised weights:\n\n| signal | weight |\n|---|---|\n{weights}\n",
        encoding="utf-8")
    print(report)
    print(f"\nmodel written to {args.model}; report to {args.doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
