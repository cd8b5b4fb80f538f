"""The signals the answer-or-decline decision rests on, measured on one question's evidence (what
each means: `retrieval.answerability.FEATURES`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from citeline.agent.state import SearchRecord
from citeline.answerers.ranking import Ranking
from citeline.index.store import Passage
from citeline.retrieval.answer_types import AnswerTypes, holds, states_value
from citeline.retrieval.evidence import RARE_WEIGHT, Coverage, KeyTerm
from citeline.retrieval.units import Unit


def gate_signals(keys: list[KeyTerm], asked_keys: list[KeyTerm], pool: Sequence[Passage], coverage: Coverage,
                 ranking: Ranking, unit_lexical: np.ndarray) -> dict[str, float]:
    """The answerability signals of one question (see `retrieval.answerability.FEATURES`)."""
    weights = coverage.weights(keys)
    total = sum(weights.values()) or 1.0

    missing = [k for k in keys if not coverage.found(k.term)]
    asked_weights = coverage.weights(asked_keys)
    asked_missing = sum(asked_weights[k.term] for k in asked_keys if not coverage.found(k.term))
    lead_text = ranking.units[ranking.lead].text
    dense = sorted((p.dense_score for p in pool if p.dense_score is not None), reverse=True)
    top = max(pool, key=lambda p: p.score)
    prose = [i for i, u in enumerate(ranking.units) if not u.is_code]
    best_units = sorted(prose, key=lambda i: -ranking.overall[i])[:5]
    type_missing = float(not any(holds(ranking.answer_type, ranking.units[i].text) for i in best_units))
    return {
        "coverage_passage": round(coverage.best(keys)[0], 4),
        "coverage_unit": round(float(max((unit_lexical[i] for i in prose), default=0.0)), 4),
        "missing_weight": round(sum(weights[k.term] for k in missing) / total, 4),
        "rare_missing": float(any(k.weight >= RARE_WEIGHT and not k.optional for k in missing)),
        "rare_missing_focus": float(any(k.weight >= RARE_WEIGHT and not k.optional and not coverage.found(k.term)
                                        for k in asked_keys)),
        "dense_top": round(dense[0], 4) if dense else 0.0,
        "dense_margin": round(dense[0] - float(np.mean(dense[1:6])), 4) if len(dense) > 1 else 0.0,
        "agreement": float(top.dense_score is not None and top.lexical_rank is not None and top.lexical_rank < 3),
        "lead_score": round(float(ranking.overall[ranking.lead]), 4),
        "lead_cosine": round(float(ranking.cosine[ranking.lead]), 4),
        "type_missing": type_missing,
        "key_terms": round(float(np.log1p(len(keys))), 4),
        "focus_missing": round(asked_missing / (sum(asked_weights.values()) or 1.0), 4),
        "coverage_focus": round(coverage.best(asked_keys)[0], 4),
        "coverage_capped": round(coverage.best(keys, coverage.capped_weights(keys))[0], 4),
        "lead_coverage": round(float(unit_lexical[ranking.lead]), 4),
        "lead_type": float(holds(ranking.answer_type, lead_text)),
    }


def value_unstated(units: list[Unit], evidence: Sequence[Passage], answer_type: AnswerTypes,
                   attribute: tuple[str, ...]) -> bool:
    """Whether the question asks for a kind of value of a named thing ("how many threads …") and
    no unit of the evidence holds such a value where the thing is named — in the unit, the sentence
    before it, the section it sits in, or the name it is described under (the body of a described
    option "`--soft-error-limit N`" saying "The default limit is -1."). Documents that speak of the
    thing without stating it are the near miss a reader must not be given an answer for."""
    if not answer_type or not attribute:
        return False
    # A unit may name its thing in the sentence before it (a list's items in the sentence that
    # introduces them), never in the item before it: that is another thing ("`secret_key` - …"
    # above "`session_cookie` - Defaults to …").
    last_sentence: dict[int, str] = {}  # by passage number
    for unit in units:
        section = (evidence[unit.number - 1].section or "") if 0 < unit.number <= len(evidence) else ""
        if states_value(answer_type, attribute, unit.text, last_sentence.get(unit.number, ""), section,
                        unit.described or ""):
            return False
        if unit.kind == "sentence":
            last_sentence[unit.number] = unit.text
    return True


def dense_lift(searches: Sequence[SearchRecord]) -> float | None:
    """How far the best passage stands out from the rest of the corpus, over the searches whose
    background is known: (best similarity − background) / (1 − background), the background being the
    query's mean similarity to the corpus's other passages. On a corpus all about one topic every
    passage is fairly close to a question on it; a passage that answers it stands out further. As a
    share of the room above the background it reads far more alike under embedders of different
    scales than a raw cosine does (see `answerability.EMBEDDER_RELATIVE`)."""
    lifts = []
    for record in searches:
        scores = [p.dense_score for p in record.passages if p.dense_score is not None]
        if record.background is not None and record.background < 1.0 and scores:
            lifts.append((max(scores) - record.background) / (1.0 - record.background))
    return max(lifts, default=None)
