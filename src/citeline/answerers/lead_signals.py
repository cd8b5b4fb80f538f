"""How the extractive answerer chooses the sentence to lead with: the hand-written rules' fitness of
each unit as a first sentence, each candidate's signals for the fitted lead model
(`retrieval.lead`), and the overrides applied when that model is unsure."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from citeline.answerers.layout import INTRODUCES
from citeline.retrieval.answer_types import (
    AnswerType,
    AnswerTypes,
    asks_for_value,
    holds,
    new_values,
    tells_how,
)
from citeline.retrieval.evidence import KeyTerm
from citeline.retrieval.lead import LEAD_SIGNALS
from citeline.retrieval.units import Unit
from citeline.text import fold, stem

CONTENDER = 0.5  # share of the lead's preference at which the runner-up is quoted however relevant
CHANGELOG_ENTRY = re.compile(r"\(?#\d{2,}\)?\.?\s*$")  # "Allow `Request.form()` as a context manager #1903."
_COUNTED = re.compile(r"\b\d[\d,.]*\s+([^\W\d_]+)")


def lead_fitness(units: Sequence[Unit], answer_type: AnswerTypes, keys: Sequence[KeyTerm],
                 question: str) -> np.ndarray:
    """How well each unit would read as the first sentence, beyond its relevance.

    - A sentence that only introduces what follows it (ends with a colon) or a release-notes entry
      ("… #1903") says less on its own.
    - When the question asks for something to name (not yes/no, not why, not a count or a
      duration), a sentence naming a concrete value the question does not already hold ("uv was
      installed into `~/.cargo/bin`") answers it, where one echoing the question's words only
      describes the topic. Asked how many times a job is retried, a row naming some other setting
      (`HARBOR_JOB_TIMEOUT`, `300`) is not the answer: the count is.
    - For a how-many question, a number counting the thing asked about ("40 threads") is the answer.
    """
    counted_terms = {k.term for k in keys}
    wants_value = asks_for_value(question)
    wants_number = _asks_count(answer_type)
    fitness = np.ones(len(units))
    for index, unit in enumerate(units):
        text = unit.text.strip()
        if INTRODUCES.search(text) or CHANGELOG_ENTRY.search(text):
            fitness[index] *= 0.85
        if wants_value and not wants_number and holds(answer_type, text) and new_values(text, question):
            fitness[index] *= 1.2
        if wants_number and _counts(text, counted_terms):
            fitness[index] *= 1.1
    return fitness


def _asks_count(answer_type: AnswerTypes) -> bool:
    """Whether the question asks how many, how long or how far (a number, a duration or a measure)."""
    return bool({AnswerType.NUMBER, AnswerType.DURATION, AnswerType.MEASURE} & set(answer_type))


def _counts(text: str, terms: set[str]) -> bool:
    """Whether a number in `text` counts one of `terms` ("40 threads" for "how many threads")."""
    return any(stem(fold(m.group(1))) in terms or fold(m.group(1)) in terms for m in _COUNTED.finditer(text))


def unless_unsure(lead: int, kind: np.ndarray, preference: np.ndarray, overall: np.ndarray, prose: Sequence[int],
                  share: float) -> int:
    """`lead`, or, when it is not of the `kind` a reader wants (`kind[i]` true) and a unit of that kind
    has `share` of the lead's preference or more and half its relevance, the likeliest such unit."""
    if kind[lead]:
        return lead
    rivals = [i for i in prose if kind[i] and preference[i] >= share * preference[lead]
              and overall[i] >= CONTENDER * overall[lead]]
    return max(rivals, key=lambda i: preference[i], default=lead)


def spread(values: np.ndarray, where: Sequence[int], size: int) -> np.ndarray:
    """An array of `size` zeros with `values` put at the positions `where`."""
    result = np.zeros(size)
    result[list(where)] = values
    return result


def lead_signals(units: Sequence[Unit], overall: np.ndarray, cosine: np.ndarray, aligned: np.ndarray,
                 heading: np.ndarray, lexical: np.ndarray, focus_lexical: np.ndarray, novelty: np.ndarray,
                 fitness: np.ndarray, rules_lead: int,
                 answer_type: AnswerTypes, keys: Sequence[KeyTerm], question: str, how_to: bool) -> dict[str, np.ndarray]:
    """Each unit's lead signals (`citeline.retrieval.lead.LEAD_SIGNALS`), one array per signal."""
    count = len(units)
    prose = [i for i, u in enumerate(units) if not u.is_code]
    best = max((float(overall[i]) for i in prose), default=0.0) or 1.0
    order = np.empty(count)
    for place, index in enumerate(sorted(range(count), key=lambda i: (units[i].is_code, -overall[i]))):
        order[index] = place
    counted_terms = {k.term for k in keys}
    wants_value = asks_for_value(question)
    wants_number = _asks_count(answer_type)

    def each(rule: Any) -> np.ndarray:
        return np.array([float(rule(u)) for u in units])

    def neighbour(step: int) -> np.ndarray:
        near = np.zeros(count)
        for index in range(count):
            other = index + step
            if 0 <= other < count and units[other].number == units[index].number and not units[other].is_code:
                near[index] = overall[other] / best
        return near

    signals = {
        "relevance": overall,
        "relative": overall / best,
        "rank": 1.0 / (1.0 + order),
        "cosine": cosine,
        "alignment": aligned,
        "heading": heading,
        "lexical": lexical,
        "focus": focus_lexical,
        "novelty": novelty,
        "type_held": each(lambda u: bool(answer_type) and holds(answer_type, u.text)),
        "new_value": each(lambda u: wants_value and bool(new_values(u.text, question))),
        "counted": each(lambda u: wants_number and _counts(u.text, counted_terms)),
        "instruction": each(lambda u: how_to and tells_how(u.text)),
        "introduces": each(lambda u: bool(INTRODUCES.search(u.text.strip()))),
        "changelog": each(lambda u: bool(CHANGELOG_ENTRY.search(u.text.strip()))),
        "first": each(lambda u: u.first_in_block),
        "item": each(lambda u: u.kind in ("list_item", "table_row")),
        "passage": each(lambda u: 1.0 / u.number),
        "words": each(lambda u: np.log1p(len(u.text.split()))),
        "before": neighbour(-1),
        "after": neighbour(1),
        "fitness": np.log(fitness),
        "rules": np.array([float(i == rules_lead) for i in range(count)]),
    }
    assert tuple(signals) == LEAD_SIGNALS
    return signals
