"""Fit the two small models of the extractive answerer, and report them honestly: leave-one-corpus-out.

    python -m citeline.evaluation.fit --suite ../shared/eval --suite eval   # run, fit, write both models
    python -m citeline.evaluation.fit --from-details DIR              # refit from an earlier run

1. The **lead model** (`retrieval/lead.json`) picks the sentence an answer leads with. Every QA
   set is answered once with the hand-written lead rules and the gate off, recording each
   candidate sentence's signals; a sentence is a positive example when it holds a gold answer.
2. Every set is answered again with a lead model fitted on the *other* sets only, still with the
   gate off, recording each question's answerability signals and whether its answer was right.
3. The **answerability model** (`retrieval/answerability.json`) decides answer or decline. For each
   set, a model fitted on the other sets decides which of its questions to answer.

Those held-out figures are what a new corpus can expect: they are printed and written to
`docs/answerability.md`. The shipped models are finally fitted on all sets together.
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

from citeline.evaluation.runner import normalise
from citeline.retrieval.answerability import (
    EMBEDDER_RELATIVE,
    EMBEDDER_SCALE,
    GATE_CANDIDATES,
    MODEL_FILE,
    AnswerabilityModel,
    fit,
)
from citeline.retrieval.lead import LEAD_MODEL_FILE, LEAD_SIGNALS, Question, fit_ranker, lead_shares

Row = dict[str, Any]
# The embedder the sets are answered with: the bundled default, which most users keep. The model
# records it, and uses its embedder-relative signals under that embedder only.
FIT_EMBEDDER = "minilm-onnx"


def collect(suites: Sequence[Path], details: Path, home: Path,
            lead_models: Mapping[str, Path] | None = None, only: Sequence[str] = ()) -> dict[str, list[Row]]:
    """Answer every question of every set in `suite` (of the sets named in `only`, when given) with
    the gate off; per-question rows.

    Without `lead_models` the lead is chosen by the hand-written rules and every candidate
    sentence's lead signals are recorded; with them, each set is answered with its own lead model."""
    from citeline.app import Citeline
    from citeline.config import AnswererSettings, IndexSettings, Settings
    from citeline.evaluation.runner import discover_suite, run_sets
    from citeline.retrieval.cache import NullCache

    details.mkdir(parents=True, exist_ok=True)
    found = [eval_set for suite in suites for eval_set in discover_suite(suite)]
    chosen = chosen_sets([eval_set.name for eval_set in found], only)
    for eval_set in [eval_set for eval_set in found if eval_set.name in chosen]:
        answerer = (AnswererSettings(answerability="off", lead="model", lead_model=lead_models[eval_set.name])
                    if lead_models else AnswererSettings(answerability="off", lead="rules", record_signals=True))
        app = Citeline(Settings(index=IndexSettings(home=home, embedder=FIT_EMBEDDER), answerer=answerer),
                       cache=NullCache())
        try:
            run_sets(app, [eval_set], details=details / f"{eval_set.name}.jsonl")
        finally:
            app.close()
    return _restricted(load_details(details), chosen)


def chosen_sets(found: Sequence[str], only: Sequence[str]) -> list[str]:
    """The sets to fit on: those named in `only`, else every one found; a name not found is an error
    (a misspelt set would otherwise fit quietly on one set fewer)."""
    unknown = sorted(set(only) - set(found))
    if unknown:
        raise SystemExit(f"error: no set named {', '.join(unknown)}; found: {', '.join(sorted(found))}")
    return [name for name in found if not only or name in only]


def _restricted(by_set: Mapping[str, list[Row]], names: Sequence[str]) -> dict[str, list[Row]]:
    """The rows of the sets in `names` only (a details folder can hold rows of other sets)."""
    return {name: rows for name, rows in by_set.items() if name in names}


def lead_examples(by_set: Mapping[str, Sequence[Row]]) -> tuple[list[Question], list[str]]:
    """Every answerable question that has a candidate sentence holding a gold answer: its candidates'
    signals and which of them hold one, and the set each question comes from."""
    questions: list[Question] = []
    groups: list[str] = []
    for name, rows in by_set.items():
        for row in rows:
            units = (row.get("decision") or {}).get("units") or []
            marks = [int(_holds_gold(u["text"], row)) for u in units]
            if row["answerable"] and any(marks):
                questions.append(([u["signals"] for u in units], marks))
                groups.append(name)
    return questions, groups


def _holds_gold(text: str, row: Row) -> bool:
    """Whether a candidate sentence holds one of the question's gold answers (as the eval matches them)."""
    return any(normalise(gold) in normalise(text) for gold in row.get("gold") or [])


def fit_lead(by_set: Mapping[str, Sequence[Row]], **extra: Any) -> AnswerabilityModel:
    """The lead model fitted on every answerable question of `by_set` (each set weighing the same)."""
    questions, groups = lead_examples(by_set)
    return fit_ranker(questions, groups, **extra)


def lead_top1(rows: Sequence[Row], model: AnswerabilityModel | None) -> float:
    """Share of the set's answerable questions whose best sentence by `model` holds a gold answer
    (None: the best by relevance alone)."""
    answerable = [r for r in rows if r["answerable"]]
    right = 0
    for row in answerable:
        units = (row.get("decision") or {}).get("units") or []
        if not units:
            continue
        columns = {name: [u["signals"][name] for u in units] for name in LEAD_SIGNALS}
        scores = lead_shares(model, columns) if model else columns["relevance"]
        best = units[max(range(len(units)), key=lambda i: scores[i])]
        right += _holds_gold(best["text"], row)
    return round(right / len(answerable), 4) if answerable else 0.0


def lead_leave_one_corpus_out(by_set: Mapping[str, Sequence[Row]]) -> dict[str, AnswerabilityModel]:
    """For each set, the lead model fitted on the other sets."""
    return {held_out: fit_lead({n: r for n, r in by_set.items() if n != held_out}) for held_out in by_set}


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
    return fit(rows, labels, groups=groups, features=features, max_declined=DECLINE_BUDGET, **extra)


def outcome(rows: Sequence[Row], model: AnswerabilityModel | None) -> dict[str, float]:
    """The set's figures had `model` decided (None: answer whenever evidence was found)."""
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]

    def answered(row: Row) -> bool:
        decision = row.get("decision") or {}
        features = decision.get("features")
        if row["exit_reason"] != "COMPLETED" or not features:
            return False
        # With any gate on, a lead speaking of the opposite of what is asked, or evidence stating no value of
        # the shape asked for, is declined (rules, not fitted).
        return model is None or (not decision.get("opposite") and not decision.get("value_missing")
                                 and model.answers(features))

    def share(part: int, whole: int) -> float:
        return round(part / whole, 4) if whole else 0.0

    return {
        "answer_accuracy": share(sum(1 for r in answerable if answered(r) and r["correct"]), len(answerable)),
        "lead_accuracy": share(sum(1 for r in answerable if answered(r) and r["lead"]), len(answerable)),
        "unanswerable_declined": share(sum(1 for r in unanswerable if not answered(r)), len(unanswerable)),
        "answerable_declined": share(sum(1 for r in answerable if not answered(r)), len(answerable)),
    }


def leave_one_corpus_out(by_set: Mapping[str, Sequence[Row]],
                         features: Sequence[str] = GATE_CANDIDATES) -> dict[str, dict[str, float]]:
    """Each set's figures under a model fitted on the other sets only."""
    return {held_out: outcome(by_set[held_out], _fit({n: r for n, r in by_set.items() if n != held_out}, features))
            for held_out in by_set}


def balanced(report: Mapping[str, Mapping[str, float]]) -> float:
    """Mean over held-out sets of (share of unanswerable declined + share of answerable answered) / 2."""
    return sum((f["unanswerable_declined"] + 1 - f["answerable_declined"]) / 2 for f in report.values()) / len(report)


# The share of its answerable questions a training set may see declined: the threshold that balances
# declines best is lowered until every training set stays within it. Tried on the four development
# sets: 0.1, 0.12, 0.15, 0.2, 0.3 gave held-out balanced accuracy 0.772/0.764/0.774/0.795/0.792, and
# above 0.15 held-out sets lost answers (starlette and uv declined 0.14-0.21 of theirs). At 0.1 the
# model fitted on all four sets, held to the budget by the hardest of them, declined only 0.47-0.67
# of the documentation sets' unanswerable questions; at 0.15, 0.73-0.83. Again on six sets (the shared
# four, Flask and Hatch), with the signal selected there: 0.1/0.15/0.2/0.25 gave 0.682/0.743/0.735/0.735;
# with every signal: 0.05/0.08/0.1/0.12/0.15/0.2/0.25 gave 0.678/0.744/0.768/0.770/0.782/0.771/0.768.
DECLINE_BUDGET = 0.15


# How many signal sets forward selection carries from one step to the next. Greedy selection (one)
# is led by the best single signal: when the beam came in, on seven sets, greedy kept coverage_focus
# alone (held-out 0.722, nested 0.695), where carrying three found coverage_passage, value_unstated,
# rare_missing and agreement (0.772, nested 0.706); five found the same set.
BEAM_WIDTH = 3


def select_features(by_set: Mapping[str, Sequence[Row]]) -> list[str]:
    """Forward selection by the held-out figures, as a beam search: start from no signal; at each
    step extend each of the best `BEAM_WIDTH` sets by one signal and keep the best extensions; stop
    when the best no longer improves the mean balanced accuracy over held-out sets."""
    beam: list[tuple[str, ...]] = [()]
    best: tuple[float, tuple[str, ...]] = (0.0, ())
    while True:
        trials: dict[frozenset[str], tuple[float, tuple[str, ...]]] = {}
        for chosen in beam:
            for name in GATE_CANDIDATES:
                extended = frozenset((*chosen, name))
                if name not in chosen and extended not in trials:
                    trials[extended] = (balanced(leave_one_corpus_out(by_set, [*chosen, name])), (*chosen, name))
        ranked = sorted(trials.values(), reverse=True)[:BEAM_WIDTH]
        if not ranked or ranked[0][0] <= best[0] + 1e-3:
            return list(best[1]) or ["coverage_passage"]
        best, beam = ranked[0], [chosen for _, chosen in ranked]


def nested_selection(by_set: Mapping[str, Sequence[Row]]) -> dict[str, dict[str, float]]:
    """Each set's figures under a model whose signals were chosen by `select_features` on the other
    sets only, then fitted on them: what choosing signals would give a new corpus. (Choosing them
    on the held-out figures themselves makes those figures look better than they are.)"""
    report = {}
    for held_out in by_set:
        others = {n: r for n, r in by_set.items() if n != held_out}
        report[held_out] = outcome(by_set[held_out], _fit(others, select_features(others)))
    return report


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
    source.add_argument("--suite", type=Path, action="append",
                        help="folder of NAME-qa.jsonl files with their corpora (repeatable)")
    source.add_argument("--from-details", type=Path, help="per-question rows of an earlier --suite run")
    parser.add_argument("--set", dest="sets", action="append", default=[], metavar="NAME",
                        help="fit on this set only (repeatable; default: every set found)")
    parser.add_argument("--details", type=Path, default=Path("docs/answerability-details"),
                        help="where --suite writes its per-question rows (the lead pass under lead/)")
    parser.add_argument("--lead-model", type=Path, default=LEAD_MODEL_FILE, help="where to write the lead model")
    parser.add_argument("--model", type=Path, default=MODEL_FILE, help="where to write the fitted model")
    parser.add_argument("--doc", type=Path, default=Path("docs/answerability.md"),
                        help="where to write the held-out report")
    args = parser.parse_args(argv)
    if args.from_details:
        lead_rows, by_set = load_details(args.from_details / "lead"), load_details(args.from_details)
        chosen = chosen_sets(list(by_set), args.sets)
        lead_rows, by_set = _restricted(lead_rows, chosen), _restricted(by_set, chosen)
        lead_folds = lead_leave_one_corpus_out(lead_rows)
    else:
        with tempfile.TemporaryDirectory(prefix="citeline-fit-") as home:
            lead_rows = collect(args.suite, args.details / "lead", Path(home), only=args.sets)
            lead_folds = lead_leave_one_corpus_out(lead_rows)
            fold_files = {}
            for name, fold in lead_folds.items():
                fold_files[name] = Path(home) / f"lead-without-{name}.json"
                fold_files[name].write_text(fold.to_json(), encoding="utf-8")
            by_set = collect(args.suite, args.details, Path(home), fold_files, only=args.sets)
    lead_report = {name: {"relevance_top1": lead_top1(rows, None), "model_top1": lead_top1(rows, lead_folds[name])}
                   for name, rows in lead_rows.items()}
    lead_model = fit_lead(lead_rows, provenance={
        "fitted": datetime.now(UTC).strftime("%Y-%m-%d"), "sets": sorted(lead_rows),
        "questions": len(lead_examples(lead_rows)[1]), "leave_one_corpus_out": lead_report})
    args.lead_model.write_text(lead_model.to_json(), encoding="utf-8")
    features = select_features(by_set)
    held_out = leave_one_corpus_out(by_set, features)
    nested = nested_selection(by_set)
    everything = leave_one_corpus_out(by_set, GATE_CANDIDATES)
    ungated = {name: outcome(rows, None) for name, rows in by_set.items()}
    questions = len(_training(by_set)[1])
    model = _fit(by_set, features, provenance={
        "fitted": datetime.now(UTC).strftime("%Y-%m-%d"), "sets": sorted(by_set), "questions": questions,
        "selected_features": features, "leave_one_corpus_out": held_out, "embedder": FIT_EMBEDDER,
    })
    args.model.write_text(model.to_json(), encoding="utf-8")
    report = table(held_out)
    lead_table = "\n".join(["| held-out set | relevance top-1 | lead model top-1 |", "|---|---|---|"] + [
        f"| {name} | {f['relevance_top1']:.3f} | {f['model_top1']:.3f} |" for name, f in lead_report.items()])
    weights = "\n".join(f"| {name} | {weight:+.3f} |" for name, weight in zip(features, model.weights, strict=True))
    args.doc.parent.mkdir(parents=True, exist_ok=True)
    args.doc.write_text(
        "# Answerability: when citeline answers and when it declines\n\n"
        "Generated by `python -m citeline.evaluation.fit`; do not edit by hand.\n\n"
        "The extractive answerer decides whether the evidence answers a question with a logistic model over "
        "signals that mean the same on any corpus (see `citeline.retrieval.answerability`). Each row below is "
        "a set the model was **not** fitted on (leave-one-corpus-out): the figures a new corpus can expect. "
        "Before the model, two rules that are not fitted: when the sentence the answer would lead with speaks of the "
        "opposite of a word of the question (\"longest\" for \"shortest\", see `citeline.retrieval.opposites`) or states, "
        "without any negation, what the question asks is not so, "
        "and when the question asks for a value with a shape of its own (a number, a duration, a measure, a date: "
        "\"What port does it listen on?\") and neither that sentence nor the five most relevant ones hold one, "
        "the question is declined; the figures include both.\n\n"
        f"{report}\n\nThe threshold is the one that balances declines best on the training sets, lowered "
        f"until none of them declines more than {DECLINE_BUDGET:.0%} of its answerable questions: wrong "
        "declines have a fixed budget on any corpus. "
        f"Signals kept by forward selection on the held-out figures (a beam of {BEAM_WIDTH} signal sets; a signal is "
        "kept only if it raises the mean balanced accuracy over held-out sets): "
        f"{', '.join(features)} (mean balanced accuracy "
        f"{balanced(held_out):.3f}). The selection looks at the same held-out folds, so those figures are "
        "optimistic. The same selection made inside each fold, on the other sets only, as it would be made "
        f"without the new corpus (mean {balanced(nested):.3f}):\n\n{table(nested)}\n\n"
        "Signals on the embedder's own scale (" + ", ".join(sorted(EMBEDDER_SCALE)) + ") are not offered: a "
        "cosine means something else under another embedder, and the gate must hold with any. Offered, as "
        "relative to the embedder's own scale: " + ", ".join(sorted(EMBEDDER_RELATIVE)) + " (how far the best "
        "passage's similarity stands above the question's mean similarity to the whole corpus, as a share of "
        f"the room above that mean); the model uses it only under the embedder it was fitted with ({FIT_EMBEDDER}), "
        "and under another counts it as typical. "
        f"With every other signal (no selection; mean {balanced(everything):.3f}):\n\n"
        f"{table(everything)}\n\n"
        f"With no gate at all (answer whenever evidence is found):\n\n{table(ungated)}\n\n"
        f"The shipped model is fitted on all {len(by_set)} sets ({questions} questions, every set weighing the "
        "same), "
        f"threshold {model.threshold}. Standardised weights:\n\n| signal | weight |\n|---|---|\n{weights}\n\n"
        "## The lead sentence\n\n"
        "The answers above lead with the sentence the lead model ranks first (`citeline.retrieval.lead`); each "
        "set was answered with a lead model fitted on the other sets. Share of answerable questions whose "
        "top-ranked candidate sentence holds a gold answer, on the held-out set, by relevance alone and by "
        f"the lead model:\n\n{lead_table}\n",
        encoding="utf-8")
    print(lead_table)
    print()
    print(report)
    print(f"\nmodel written to {args.model}; report to {args.doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
