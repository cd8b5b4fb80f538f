"""The answer-or-decline model: fitting, the shipped model, and selection by held-out corpora."""

from __future__ import annotations

import random

import numpy as np
import pytest

import citeline.evaluation.fit as fit_module
from citeline.evaluation.fit import balanced, leave_one_corpus_out, nested_selection, outcome, select_features
from citeline.retrieval.answerability import (
    EMBEDDER_RELATIVE,
    EMBEDDER_SCALE,
    FEATURES,
    GATE_CANDIDATES,
    RECORDED_ONLY,
    AnswerabilityModel,
    _budget_threshold,
    fit,
    shipped_model,
)


def _row(answerable: bool, coverage: float, local: float) -> dict[str, object]:
    features = dict.fromkeys(FEATURES, 0.0) | {"coverage_passage": coverage, "lead_coverage": local}
    return {"answerable": answerable, "exit_reason": "COMPLETED", "correct": answerable, "lead": answerable,
            "decision": {"features": features}}


def _corpus(seed: int, local_sign: float) -> list[dict[str, object]]:
    """Coverage separates the classes in every corpus; `lead_coverage` only in the direction
    `local_sign` says, which differs between corpora (a habit of one corpus)."""
    rng = random.Random(seed)
    rows = []
    for _ in range(60):
        answerable = rng.random() < 0.6
        coverage = rng.uniform(0.6, 1.0) if answerable else rng.uniform(0.0, 0.45)
        local = (0.8 if answerable else 0.2) * local_sign + rng.uniform(-0.05, 0.05)
        rows.append(_row(answerable, coverage, local))
    return rows


def test_a_fitted_model_separates_what_its_signal_separates() -> None:
    rows = [{"coverage_passage": c} for c in (0.9, 0.8, 0.95, 0.1, 0.2, 0.05)]
    model = fit(rows, [1, 1, 1, 0, 0, 0], features=["coverage_passage"])
    assert model.answers({"coverage_passage": 0.85}) and not model.answers({"coverage_passage": 0.1})
    assert 0.0 < model.probability({"coverage_passage": 0.5}) < 1.0
    again = AnswerabilityModel.from_json(model.to_json())
    assert again.probability({"coverage_passage": 0.7}) == model.probability({"coverage_passage": 0.7})


def test_a_signal_the_run_could_not_measure_counts_as_typical() -> None:
    rows = [{"coverage_passage": c, "dense_lift": d} for c, d in ((0.9, 0.6), (0.8, 0.5), (0.1, 0.2), (0.2, 0.3))]
    model = fit(rows, [1, 1, 0, 0], features=["coverage_passage", "dense_lift"])
    typical = model.mean[model.features.index("dense_lift")]
    assert model.probability({"coverage_passage": 0.5}) == model.probability(
        {"coverage_passage": 0.5, "dense_lift": typical})
    assert model.probability({"coverage_passage": 0.5}) != model.probability({"coverage_passage": 0.5, "dense_lift": 0.0})


def test_embedder_relative_signals_count_only_under_the_embedder_the_model_was_fitted_with() -> None:
    rows = [{"coverage_passage": c, "dense_lift": d} for c, d in ((0.9, 0.6), (0.8, 0.5), (0.1, 0.2), (0.2, 0.3))]
    model = fit(rows, [1, 1, 0, 0], features=["coverage_passage", "dense_lift"], provenance={"embedder": "minilm-onnx"})
    assert set(GATE_CANDIDATES) >= EMBEDDER_RELATIVE
    values = {"coverage_passage": 0.5, "dense_lift": 0.1}
    assert model.probability(values, "minilm-onnx") == model.probability(values) < model.probability(
        {"coverage_passage": 0.5})
    # Under another embedder the lift reads on another scale: it counts as typical.
    assert model.probability(values, "e5-multilingual") == model.probability({"coverage_passage": 0.5})


def test_every_corpus_weighs_the_same_whatever_its_size() -> None:
    # A large corpus where low coverage is still answerable must not outvote a small one.
    big = [{"coverage_passage": 0.3}] * 200 + [{"coverage_passage": 0.9}] * 10
    small = [{"coverage_passage": 0.3}] * 10 + [{"coverage_passage": 0.9}] * 10
    labels = [1] * 200 + [0] * 10 + [0] * 10 + [1] * 10
    unbalanced = fit(big + small, labels, features=["coverage_passage"])
    balanced = fit(big + small, labels, groups=["big"] * 210 + ["small"] * 20, features=["coverage_passage"])
    assert unbalanced.probability({"coverage_passage": 0.3}) > balanced.probability({"coverage_passage": 0.3})


def test_a_decline_budget_holds_on_every_training_corpus() -> None:
    # Two corpora where the classes overlap differently: the threshold must keep the harder one
    # (b, whose answerable questions score low) within the budget, not only the average.
    rng = random.Random(7)
    rows, labels, groups = [], [], []
    for group, low in (("a", 0.5), ("b", 0.2)):
        for _ in range(100):
            rows.append({"coverage_passage": rng.uniform(low, 1.0)})
            labels.append(1)
            groups.append(group)
            rows.append({"coverage_passage": rng.uniform(0.0, 0.6)})
            labels.append(0)
            groups.append(group)
    model = fit(rows, labels, groups=groups, features=["coverage_passage"], max_declined=0.1)
    for group in ("a", "b"):
        answerable = [r for r, y, g in zip(rows, labels, groups, strict=True) if g == group and y == 1]
        declined = sum(not model.answers(r) for r in answerable) / len(answerable)
        assert declined <= 0.1
    # A tighter budget answers more, so declines fewer unanswerable questions.
    tighter = fit(rows, labels, groups=groups, features=["coverage_passage"], max_declined=0.02)
    assert tighter.threshold < model.threshold


def test_the_decline_budget_threshold_is_the_highest_that_keeps_every_corpus_within_it() -> None:
    # Scores with ties and a corpus with no answerable question: at the next threshold tried above
    # the chosen one some corpus must decline more than the budget, or that one would be chosen.
    rng = np.random.default_rng(3)
    for _ in range(200):
        groups = rng.choice(np.array(["a", "b", "c"]), 60)
        labels = np.where(groups == "c", 0.0, rng.integers(0, 2, 60).astype(float))
        scores = np.round(rng.random(60), 1)
        budget = float(rng.choice([0.0, 0.1, 0.3]))
        threshold = _budget_threshold(scores, labels, groups, budget)
        assert threshold == 0.0 or _worst_declined(scores, labels, groups, threshold) <= budget
        grid = np.linspace(0.02, 0.98, 97)  # the thresholds the fit tries
        higher = grid[grid > threshold + 1e-12]
        if len(higher):
            assert _worst_declined(scores, labels, groups, float(higher[0])) > budget


def _worst_declined(scores: np.ndarray, labels: np.ndarray, groups: np.ndarray, threshold: float) -> float:
    """The largest share of a corpus's answerable questions scoring below `threshold`."""
    return max(float(np.mean(scores[(groups == g) & (labels == 1)] < threshold))
               for g in set(groups.tolist()) if ((groups == g) & (labels == 1)).any())


def test_selection_keeps_signals_that_hold_on_held_out_corpora_only() -> None:
    by_set = {"a": _corpus(1, 1.0), "b": _corpus(2, 1.0), "c": _corpus(3, -1.0)}
    chosen = select_features(by_set)
    assert chosen == ["coverage_passage"]
    report = leave_one_corpus_out(by_set, chosen)
    assert all(f["unanswerable_declined"] >= 0.9 and f["answerable_declined"] <= 0.1 for f in report.values())
    with_habit = leave_one_corpus_out(by_set, ["lead_coverage"])
    assert with_habit["c"]["answerable_declined"] > 0.5  # the habit of a and b fails on c


def test_selection_inside_each_fold_shows_what_selection_on_the_held_out_sets_hides() -> None:
    # Coverage separates the classes only roughly; `lead_coverage` separates a, b and c perfectly and d
    # the wrong way round. Chosen on all four, the habit never makes it in; chosen without d, as a
    # new corpus meets the selection, it does, and d is declined wholesale.
    def corpus(seed: int, sign: float) -> list[dict[str, object]]:
        rng = random.Random(seed)
        rows = []
        for _ in range(80):
            answerable = rng.random() < 0.6
            coverage = rng.uniform(0.2, 1.0) if answerable else rng.uniform(0.0, 0.8)
            rows.append(_row(answerable, coverage, (0.8 if answerable else 0.2) * sign + rng.uniform(-0.05, 0.05)))
        return rows

    by_set = {"a": corpus(1, 1.0), "b": corpus(2, 1.0), "c": corpus(3, 1.0), "d": corpus(4, -1.0)}
    assert "lead_coverage" not in select_features(by_set)
    same_fold = leave_one_corpus_out(by_set, select_features(by_set))
    nested = nested_selection(by_set)
    assert same_fold["d"]["answerable_declined"] <= 0.1
    assert nested["d"]["answerable_declined"] >= 0.9
    assert nested["a"] == same_fold["a"]  # without the odd one out in training, the choice is the same


def test_the_shipped_model_is_fitted_on_known_signals_and_reports_its_held_out_figures() -> None:
    model = shipped_model()
    assert model is not None
    assert set(model.features) <= set(GATE_CANDIDATES)
    held_out = model.provenance["leave_one_corpus_out"]
    assert set(held_out) == set(model.provenance["sets"]) and len(held_out) >= 4


def test_a_lead_speaking_of_the_opposite_is_declined_under_any_gate_but_not_without_one() -> None:
    # Recorded with the gate off: answered, but its lead says "longest" where "shortest" was asked.
    opposite = _row(False, 0.9, 0.0)
    opposite["decision"]["opposite"] = ["shortest", "longest"]  # type: ignore[index]
    rows = [opposite, _row(True, 0.9, 0.0)]
    model = fit([{"coverage_passage": c} for c in (0.9, 0.8, 0.1, 0.2)], [1, 1, 0, 0], features=["coverage_passage"])
    assert outcome(rows, model)["unanswerable_declined"] == 1.0 and outcome(rows, model)["answerable_declined"] == 0.0
    assert outcome(rows, None)["unanswerable_declined"] == 0.0  # no gate: answered whenever evidence is found


def test_signals_on_the_embedders_scale_are_never_offered_to_the_gate() -> None:
    # A cosine of 0.6 means something else under another embedder: a gate leaning on one would
    # decline or answer everything once a user configures theirs.
    assert set(FEATURES) >= EMBEDDER_SCALE and not EMBEDDER_SCALE & set(GATE_CANDIDATES)
    strong = {"a": _corpus(1, 1.0), "b": _corpus(2, 1.0), "c": _corpus(3, 1.0)}
    for rows in strong.values():
        for row in rows:  # only the embedder's cosine separates these sets, perfectly; it is still not chosen
            features = row["decision"]["features"]  # type: ignore[index]
            features["coverage_passage"] = features["lead_coverage"] = 0.5
            features["dense_top"] = 1.0 if row["answerable"] else 0.0
    assert "dense_top" not in select_features(strong)


def test_a_recorded_only_signal_is_never_chosen() -> None:
    assert set(FEATURES) >= RECORDED_ONLY and not RECORDED_ONLY & set(GATE_CANDIDATES)
    strong = {"a": _corpus(1, 1.0), "b": _corpus(2, 1.0), "c": _corpus(3, 1.0)}
    for rows in strong.values():
        for row in rows:  # only the recorded-only signal separates these sets, perfectly
            features = row["decision"]["features"]  # type: ignore[index]
            features["coverage_passage"] = features["lead_coverage"] = 0.5
            features["rare_missing_focus"] = 0.0 if row["answerable"] else 1.0
    assert "rare_missing_focus" not in select_features(strong)


def test_selection_finds_signals_that_only_separate_together(monkeypatch: pytest.MonkeyPatch) -> None:
    # Two signals each all but useless alone (a large shared offset), their difference separating the
    # classes perfectly; a third modestly useful alone. Greedy selection takes the third and stops.
    def corpus(seed: int) -> list[dict[str, object]]:
        rng = random.Random(seed)
        rows = []
        for _ in range(80):
            answerable = rng.random() < 0.6
            offset = rng.gauss(0, 10)
            row = _row(answerable, (0.6 if answerable else 0.4) + rng.gauss(0, 0.15), 0.0)
            features = row["decision"]["features"]  # type: ignore[index]
            features["coverage_unit"], features["lead_coverage"] = offset, offset + (1 if answerable else -1)
            rows.append(row)
        return rows

    by_set = {"a": corpus(1), "b": corpus(2), "c": corpus(3)}
    assert set(select_features(by_set)) == {"coverage_unit", "lead_coverage"}
    assert balanced(leave_one_corpus_out(by_set, select_features(by_set))) == 1.0
    monkeypatch.setattr(fit_module, "BEAM_WIDTH", 1)
    assert select_features(by_set) == ["coverage_passage"]
