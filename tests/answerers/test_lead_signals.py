"""How the sentence an answer leads with is chosen: the rules' pick and the lead model's, with its overrides."""

from __future__ import annotations

import math

import numpy as np

from citeline.answerers.lead_signals import model_lead, rules_lead
from citeline.retrieval.answer_types import expected_types
from citeline.retrieval.answerability import AnswerabilityModel
from citeline.retrieval.lead import LEAD_SIGNALS
from citeline.retrieval.units import Unit

NAMES_IT = "The timeout is set with the `timeout` argument of the client."
STATES_IT = "The default is five seconds."


def _sentences(*texts: str) -> list[Unit]:
    return [Unit(1, "sentence", text, 0, len(text), index) for index, text in enumerate(texts)]


def test_asked_for_a_duration_the_rules_lead_with_one_close_to_the_best() -> None:
    units = _sentences(NAMES_IT, STATES_IT)
    asked = expected_types("How long is the default timeout?")
    # Within 0.7 of the best relevance, the sentence holding a duration leads …
    assert rules_lead(units, np.array([1.0, 0.75]), [0, 1], asked) == 1
    # … and far below it, the most relevant sentence does.
    assert rules_lead(units, np.array([1.0, 0.5]), [0, 1], asked) == 0


def _model_preferring(first_over_second: float) -> tuple[AnswerabilityModel, dict[str, np.ndarray]]:
    """A lead model reading one signal, and signals giving the first sentence `first_over_second`
    times the second's share."""
    model = AnswerabilityModel(features=["relevance"], mean=[0.0], scale=[1.0], weights=[1.0], bias=0.0)
    signals = {name: np.zeros(2) for name in LEAD_SIGNALS}
    signals["relevance"] = np.array([math.log(first_over_second), 0.0])
    return model, signals


def test_asked_for_a_default_the_sentence_stating_it_leads_when_the_model_all_but_ties() -> None:
    question = "What is the default timeout?"
    units = _sentences(NAMES_IT, STATES_IT)
    relevant = np.array([1.0, 0.9])
    model, signals = _model_preferring(1.5)  # the stating sentence has two thirds of the top share
    lead, shares = model_lead(model, signals, units, relevant, [0, 1], question, [question], False,
                              expected_types(question), ())
    assert lead == 1
    assert math.isclose(float(shares.sum()), 1.0)
    model, signals = _model_preferring(4.0)  # a quarter: the model is sure
    lead, _ = model_lead(model, signals, units, relevant, [0, 1], question, [question], False,
                         expected_types(question), ())
    assert lead == 0
