"""Whether the retrieved evidence answers a question: corpus-independent signals and a small
calibrated model that combines them.

Retrieval always returns *something*; the question is whether it is the answer. Each signal
means the same on any corpus — how much of the question's rare terms the evidence covers, how
close the best sentence is in meaning, whether the asked kind of value is there at all, whether
the lexical and dense rankers agree — and a logistic model weighs them. The weights are fitted
by `citeline.evaluation.fit` with leave-one-corpus-out over several QA sets and shipped as JSON
beside this module, so the decision is reproducible and nothing is tuned to one corpus.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

# Signals every embedder gives: the word-by-word alignment of token states (`retrieval.alignment`)
# would add one, but only embedders implementing `EmbedsTokens` give it, and the gate must work with
# any embedder: without the signal, a model leaning on it declined or answered everything.
FEATURES: tuple[str, ...] = (
    "coverage_passage",  # weighted share of key terms the best single passage covers
    "coverage_unit",  # ... the best single sentence/item covers
    "missing_weight",  # weighted share of key terms found nowhere in the retrieved passages
    "rare_missing",  # 1 when a rare term or identifier of the question (not of an example it gives) is found nowhere
    "rare_missing_focus",  # ... of the asking sentence (a typo or an error name in the scene set before it is not)
    "dense_top",  # cosine of the question to the best passage
    "dense_margin",  # how far the best passage stands out from the rest (cosine)
    "agreement",  # 1 when the best passage ranks high for both BM25 and dense search
    "lead_score",  # relevance of the sentence the answer would lead with
    "lead_cosine",  # cosine of the question to that sentence
    "type_missing",  # 1 when the question asks for a kind of value no top sentence holds
    "key_terms",  # log(1 + number of key terms): long questions cover less by chance
    "focus_missing",  # like missing_weight, over the asking sentence's terms only (not the scene set before it)
    "coverage_focus",  # like coverage_passage, over the asking sentence's terms only
    "coverage_capped",  # like coverage_passage, a term found nowhere weighing what found ones do
    "lead_coverage",  # weighted share of key terms in the sentence the answer would lead with
    "lead_type",  # 1 when that sentence holds the kind of value asked for (or none is asked)
    "lead_probability",  # the lead model's probability that that sentence holds the answer (0 without one)
    "value_unstated",  # 1 when the question asks a value of a named thing no evidence sentence states with it
    "dense_lift",  # how far the best passage's cosine stands above the question's mean cosine to the corpus
)

# Signals on the embedder's own scale: a cosine of 0.6 is close for one embedder and far for another
# (E5 puts unrelated texts near 0.7, MiniLM near 0.1). Recorded for analysis, they are not offered
# to the fitted gate, which must hold whichever embedder a user configures.
EMBEDDER_SCALE: frozenset[str] = frozenset({"dense_top", "dense_margin", "lead_score", "lead_cosine"})
# `rare_missing_focus` is recorded, not offered: fitted on eight sets it answered more of a blind
# set's scene-setting questions, but forward selection then dropped every coverage signal, and on
# tiny corpora a near miss was answered ("the maximum WebSocket message size in kilobytes").
RECORDED_ONLY: frozenset[str] = frozenset({"rare_missing_focus"})
# Signals the embedder measures but on a scale of its own making: `dense_lift` is the best passage's
# share of the room above the question's mean similarity to the rest of the corpus. Measured on four
# sets (httpx, starlette, Rhine, hatch) under the bundled embedder and under multilingual E5 (whose
# unrelated texts sit near 0.8, not near 0.2), the raw best cosine's medians differ by 0.2-0.3 between
# the two, the lift's by 0.04-0.18, and the lift separates answerable from unanswerable questions
# about as well under either (AUC 0.61-0.85 under E5, 0.67-0.86 under MiniLM). Alike, not the same:
# the gate uses them only under the embedder it was fitted with; under another they count as typical.
EMBEDDER_RELATIVE: frozenset[str] = frozenset({"dense_lift"})
GATE_CANDIDATES: tuple[str, ...] = tuple(name for name in FEATURES
                                         if name not in EMBEDDER_SCALE and name not in RECORDED_ONLY)

MODEL_FILE = Path(__file__).with_name("answerability.json")


@dataclass
class AnswerabilityModel:
    """A logistic model over standardised features: P(answerable) = sigmoid(w·z + b)."""

    features: list[str]
    mean: list[float]
    scale: list[float]
    weights: list[float]
    bias: float
    threshold: float = 0.5
    provenance: dict[str, Any] = field(default_factory=dict)

    def probability(self, values: Mapping[str, float], embedder: str | None = None) -> float:
        """P(the evidence answers the question) for one question's features, measured with `embedder`
        (when the model was fitted under another, its embedder-relative signals count as typical)."""
        fitted_under = self.provenance.get("embedder")
        if embedder is not None and fitted_under is not None and embedder != fitted_under:
            values = {name: value for name, value in values.items() if name not in EMBEDDER_RELATIVE}
        # A signal the run could not measure (a search without its corpus background) counts as typical.
        z = sum(w * (float(values.get(name, m)) - m) / s
                for name, m, s, w in zip(self.features, self.mean, self.scale, self.weights, strict=True))
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z + self.bias))))

    def linear(self, columns: Mapping[str, npt.ArrayLike]) -> npt.NDArray[np.float64]:
        """w·z without the bias for many rows at once (`columns`: each feature, one value per row)."""
        rows = len(np.asarray(next(iter(columns.values())))) if columns else 0
        score = np.zeros(rows)
        for name, m, s, w in zip(self.features, self.mean, self.scale, self.weights, strict=True):
            score = score + w * (np.asarray(columns[name], dtype=np.float64) - m) / s
        return score

    def answers(self, values: Mapping[str, float]) -> bool:
        """Whether to answer: the probability reaches the fitted threshold."""
        return self.probability(values) >= self.threshold

    def to_json(self) -> str:
        """The model as shipped: weights, standardisation, threshold and how it was fitted."""
        return json.dumps(asdict(self), indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str) -> AnswerabilityModel:
        """A model written by `to_json`."""
        data = json.loads(text)
        return cls(**data)


@cache
def shipped_model() -> AnswerabilityModel | None:
    """The model fitted by `citeline.evaluation.fit` and shipped with citeline (None if absent)."""
    try:
        return AnswerabilityModel.from_json(MODEL_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError):
        return None


def fit(rows: Sequence[Mapping[str, float]], labels: Sequence[int], *, groups: Sequence[str] | None = None,
        features: Sequence[str] = GATE_CANDIDATES, l2: float = 1.0, iterations: int = 50,
        provenance: Mapping[str, Any] | None = None, max_declined: float | None = None) -> AnswerabilityModel:
    """Fit an L2-regularised logistic regression by Newton's method and choose the threshold that
    maximises balanced accuracy on the training rows, lowered if need be until no group declines
    more than `max_declined` of its answerable questions.

    Every group (a corpus) weighs the same, and within it both classes weigh the same: a large
    set, or one with many unanswerable questions, must not teach its own habits to the model."""
    x = np.array([[float(row.get(name, 0.0)) for name in features] for row in rows], dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    names = np.asarray(groups if groups is not None else ["all"] * len(y))
    sample = np.zeros(len(y))
    for group in set(names.tolist()):
        for label in (0.0, 1.0):
            members = (names == group) & (y == label)
            if members.any():
                sample[members] = 1.0 / members.sum()
    sample *= len(y) / sample.sum()
    beta = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], l2)
    penalty[-1] = 0.0  # the bias is not shrunk
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ beta, -30, 30)))
        gradient = z.T @ (sample * (p - y)) + penalty * beta
        hessian = (z * (sample * p * (1 - p))[:, None]).T @ z + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    probabilities = 1.0 / (1.0 + np.exp(-np.clip(z @ beta, -30, 30)))
    threshold = _balanced_threshold(probabilities, y, sample)
    if max_declined is not None:
        threshold = min(threshold, _budget_threshold(probabilities, y, names, max_declined))
    return AnswerabilityModel(
        features=list(features), mean=[round(float(v), 6) for v in mean], scale=[round(float(v), 6) for v in scale],
        weights=[round(float(v), 6) for v in beta[:-1]], bias=round(float(beta[-1]), 6), threshold=round(threshold, 4),
        provenance=dict(provenance or {}),
    )


def _balanced_threshold(probabilities: npt.NDArray[np.float64], labels: npt.NDArray[np.float64],
                        weights: npt.NDArray[np.float64]) -> float:
    best, best_score = 0.5, -1.0
    positive, negative = weights * (labels == 1), weights * (labels == 0)
    for threshold in np.linspace(0.2, 0.8, 61):
        answered = probabilities >= threshold
        tpr = float((positive * answered).sum() / max(1e-9, positive.sum()))
        tnr = float((negative * ~answered).sum() / max(1e-9, negative.sum()))
        score = (tpr + tnr) / 2
        if score > best_score + 1e-9:
            best, best_score = float(threshold), score
    return best


def _budget_threshold(probabilities: npt.NDArray[np.float64], labels: npt.NDArray[np.float64],
                      groups: npt.NDArray[Any], max_declined: float) -> float:
    """The highest threshold at which every group answers all but `max_declined` of its answerable
    questions: declines are bought with a fixed budget of wrongly declined answers, the same on any
    corpus, not traded off against them wherever the training sets happen to balance."""
    thresholds = np.linspace(0.02, 0.98, 97)
    # Each group's share of answerable questions scoring below each threshold, counted by one
    # sorted search (feature selection fits thousands of models, and this was most of their time).
    declined = np.zeros(len(thresholds))
    for group in set(groups.tolist()):
        scores = np.sort(probabilities[(groups == group) & (labels == 1)])
        if len(scores):
            declined = np.maximum(declined, np.searchsorted(scores, thresholds, side="left") / len(scores))
    within = np.flatnonzero(declined <= max_declined + 1e-9)
    return float(thresholds[within[-1]]) if len(within) else 0.0
