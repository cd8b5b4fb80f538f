"""Which sentence of the evidence answers the question: per-sentence signals and a small fitted
model that weighs them.

The first sentence a reader sees should hold what was asked. Relevance alone picks the sentence
that most *resembles* the question, which is often a topic sentence ("The SessionMiddleware
provides signed cookie-based sessions") rather than the one with the value ("Defaults to 2
weeks"). Each signal below means the same on any corpus — how close the sentence is in meaning
and in words, whether it holds the kind of value asked for or names something the question does
not, where it stands in its passage — and a conditional logit model (a softmax over one
question's candidate sentences), fitted by `citeline.evaluation.fit` with leave-one-corpus-out
on which sentences hold the gold answers of several QA sets, weighs them. The model ships as
JSON beside this module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from citeline.errors import ConfigurationError
from citeline.retrieval.answerability import AnswerabilityModel

LEAD_SIGNALS: tuple[str, ...] = (
    "relevance",  # the sentence's relevance to the question (meaning and words mixed)
    "relative",  # that relevance as a share of the best sentence's
    "rank",  # 1 / (1 + its place among the sentences by relevance)
    "cosine",  # cosine of the question to the sentence (0 when it was not embedded)
    "alignment",  # how well its words match the question's one by one, by meaning (`retrieval.alignment`)
    "heading",  # the same for the heading it sits under
    "lexical",  # weighted share of the question's key terms in the sentence or its heading
    "focus",  # the same over the asking sentence's terms only
    "novelty",  # share of the sentence's words the question does not already hold
    "type_held",  # 1 when the question asks for a kind of value and the sentence holds one
    "new_value",  # 1 when it names a concrete value (code span, flag, call) the question lacks
    "counted",  # 1 when a number in it counts the thing a how-many question asks about
    "instruction",  # 1 when a how-to question is asked and the sentence says what to do
    "introduces",  # 1 when it only introduces what follows (ends with a colon)
    "changelog",  # 1 when it is a release-notes entry ("... #1903.")
    "first",  # 1 when it opens its paragraph or list item
    "item",  # 1 when it is a whole list item or table row
    "passage",  # 1 / the rank of its passage in the evidence
    "words",  # log(1 + its length in words)
    "before",  # "relative" of the prose unit just before it in its passage (0 at the start): the
    #            sentence that answers often follows the one that names the topic
    "after",  # "relative" of the prose unit just after it in its passage (0 at the end)
    "fitness",  # log of the hand-written lead rules' weight (introductions, values the question lacks, counts)
    "rules",  # 1 for the sentence the hand-written rules alone would lead with
)

LEAD_MODEL_FILE = Path(__file__).with_name("lead.json")


@cache
def shipped_lead_model() -> AnswerabilityModel | None:
    """The lead model fitted by `citeline.evaluation.fit` and shipped with citeline (None if absent;
    cached either way, so a missing file is not looked for again on every question)."""
    try:
        return lead_model_from(LEAD_MODEL_FILE)
    except ConfigurationError:
        return None


@cache
def lead_model_from(path: Path) -> AnswerabilityModel:
    """A lead model written by `citeline.evaluation.fit` (cached: read once per process)."""
    try:
        return AnswerabilityModel.from_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError) as error:
        raise ConfigurationError(f"cannot read the lead model {path}: {error}",
                                 hint="write one with `python -m citeline.evaluation.fit`, or unset answerer.lead_model") from error


def lead_shares(model: AnswerabilityModel, columns: Mapping[str, npt.ArrayLike]) -> npt.NDArray[np.float64]:
    """Each candidate's share of P(it is the sentence that answers): a softmax of the model's scores
    over one question's candidates (`columns` maps each signal to one value per candidate)."""
    score = model.linear(columns)
    if not len(score):
        return score
    share: npt.NDArray[np.float64] = np.exp(score - score.max())
    return share / float(share.sum())


Question = tuple[Sequence[Mapping[str, float]], Sequence[int]]  # candidates' signals, which hold the answer


def fit_ranker(questions: Sequence[Question], groups: Sequence[str], *, features: Sequence[str] = LEAD_SIGNALS,
               l2: float = 10.0, iterations: int = 50, provenance: Mapping[str, Any] | None = None) -> AnswerabilityModel:
    """Fit a conditional logit by Newton's method: for each question, a softmax over its candidates
    should put its mass on the ones that hold the answer. Every group (a corpus) weighs the same."""
    rows = [[float(c.get(name, 0.0)) for name in features] for signals, _ in questions for c in signals]
    everything = np.array(rows, dtype=np.float64).reshape(-1, len(features))
    mean = everything.mean(axis=0) if len(everything) else np.zeros(len(features))
    scale = everything.std(axis=0) if len(everything) else np.ones(len(features))
    scale[scale < 1e-6] = 1.0
    data = []
    for signals, marks in questions:
        x = (np.array([[float(c.get(name, 0.0)) for name in features] for c in signals]) - mean) / scale
        target = np.asarray(marks, dtype=np.float64)
        data.append((x, target / target.sum()))
    sizes = {group: groups.count(group) for group in set(groups)}
    weight = np.array([1.0 / sizes[group] for group in groups])
    weight *= len(groups) / weight.sum()

    def loss(beta: npt.NDArray[np.float64]) -> float:
        total = 0.5 * l2 * float(beta @ beta)
        for (x, target), w in zip(data, weight, strict=True):
            score = x @ beta
            top = score.max()
            total += w * (top + float(np.log(np.exp(score - top).sum())) - float(target @ score))
        return total

    beta = np.zeros(len(features))
    current = loss(beta)
    for _ in range(iterations):
        gradient = l2 * beta
        hessian = np.diag(np.full(len(features), l2 + 1e-9))
        for (x, target), w in zip(data, weight, strict=True):
            score = x @ beta
            p = np.exp(score - score.max())
            p /= p.sum()
            mean_x = x.T @ p
            gradient += w * (mean_x - x.T @ target)
            hessian += w * ((x * p[:, None]).T @ x - np.outer(mean_x, mean_x))
        step = np.linalg.solve(hessian, gradient)
        # A full Newton step can overshoot on nearly separable data: halve it until the loss falls.
        size = 1.0
        while size > 1e-4 and loss(beta - size * step) > current:
            size /= 2
        beta -= size * step
        previous, current = current, loss(beta)
        if previous - current < 1e-9:
            break
    return AnswerabilityModel(
        features=list(features), mean=[round(float(v), 6) for v in mean], scale=[round(float(v), 6) for v in scale],
        weights=[round(float(v), 6) for v in beta], bias=0.0, provenance=dict(provenance or {}))
