"""The lead model: which candidate sentence an answer leads with, fitted on sentences that hold gold answers."""

from __future__ import annotations

import random
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

from citeline.app import Citeline
from citeline.config import Settings
from citeline.errors import ConfigurationError
from citeline.evaluation.fit import fit_lead, lead_examples, lead_leave_one_corpus_out, lead_top1
from citeline.evaluation.form import first_sentence
from citeline.evaluation.runner import decision_of
from citeline.retrieval.lead import LEAD_SIGNALS, fit_ranker, lead_model_from, lead_shares, shipped_lead_model
from tests.conftest import write_corpus


def _unit(text: str, **signals: float) -> dict[str, object]:
    return {"text": text, "signals": dict.fromkeys(LEAD_SIGNALS, 0.0) | signals}


def _question(rng: random.Random, gold: str) -> dict[str, object]:
    """A topic sentence that resembles the question most, and a less similar one holding the value."""
    topic = _unit("The middleware provides signed cookie-based sessions.",
                  relevance=rng.uniform(0.7, 0.9), type_held=0.0)
    value = _unit(f"The cookie lasts {gold}.", relevance=rng.uniform(0.5, 0.65), type_held=1.0)
    filler = _unit("Other settings are described below.", relevance=rng.uniform(0.1, 0.3), type_held=0.0)
    units = [topic, value, filler]
    rng.shuffle(units)
    return {"answerable": True, "gold": [gold], "decision": {"units": units}}


def _corpus(seed: int) -> list[dict[str, object]]:
    rng = random.Random(seed)
    return [_question(rng, f"{n} weeks") for n in range(2, 30)]


def test_shares_are_a_softmax_over_one_questions_candidates() -> None:
    candidates = [{"relevance": 0.9, "type_held": 0.0}, {"relevance": 0.6, "type_held": 1.0},
                  {"relevance": 0.2, "type_held": 0.0}]
    model = fit_ranker([(candidates, [0, 1, 0])] * 5, ["a"] * 5, features=["relevance", "type_held"], l2=1.0)
    shares = lead_shares(model, {name: [c[name] for c in candidates] for name in ("relevance", "type_held")})
    assert abs(float(shares.sum()) - 1.0) < 1e-9
    assert int(np.argmax(shares)) == 1  # the candidate that held the answer in training


def test_every_corpus_weighs_the_same_whatever_its_size() -> None:
    # A large corpus whose answers are the most relevant sentences must not outvote a small one
    # whose answers hold the asked value.
    relevant = ([{"relevance": 0.9, "type_held": 0.0}, {"relevance": 0.5, "type_held": 1.0}], [1, 0])
    typed = ([{"relevance": 0.9, "type_held": 0.0}, {"relevance": 0.5, "type_held": 1.0}], [0, 1])
    questions = [relevant] * 50 + [typed] * 10
    plain = fit_ranker(questions, ["big"] * 60, features=["relevance", "type_held"], l2=1.0)
    grouped = fit_ranker(questions, ["big"] * 50 + ["small"] * 10, features=["relevance", "type_held"], l2=1.0)
    columns = {"relevance": [0.9, 0.5], "type_held": [0.0, 1.0]}
    assert lead_shares(grouped, columns)[1] > lead_shares(plain, columns)[1]


def test_a_question_with_a_sentence_holding_a_gold_answer_is_a_training_example() -> None:
    by_set = {"a": _corpus(1)}
    by_set["a"].append({"answerable": True, "gold": ["absent"], "decision": {"units": [_unit("nothing here")]}})
    by_set["a"].append({"answerable": False, "gold": [], "decision": {"units": [_unit("nothing")]}})
    questions, groups = lead_examples(by_set)
    assert len(questions) == 28 and set(groups) == {"a"}  # a question with no such sentence teaches nothing
    assert all(sum(marks) == 1 and len(marks) == 3 for _, marks in questions)


def test_the_lead_model_learns_what_holds_the_answer_not_what_resembles_the_question() -> None:
    by_set = {"a": _corpus(1), "b": _corpus(2), "c": _corpus(3)}
    folds = lead_leave_one_corpus_out(by_set)
    for name, rows in by_set.items():
        assert lead_top1(rows, None) == 0.0  # relevance alone leads with the topic sentence
        assert lead_top1(rows, folds[name]) == 1.0  # held out: the value sentence
    assert fit_lead(by_set).weights[list(LEAD_SIGNALS).index("type_held")] > 0


def test_the_shipped_lead_model_uses_known_signals_and_reports_held_out_figures() -> None:
    model = shipped_lead_model()
    assert model is not None
    assert set(model.features) == set(LEAD_SIGNALS)
    held_out = model.provenance["leave_one_corpus_out"]
    assert set(held_out) == set(model.provenance["sets"]) and len(held_out) >= 4


def test_a_lead_model_file_that_cannot_be_read_is_an_error_that_says_the_fix(tmp_path: Path) -> None:
    broken = tmp_path / "lead.json"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigurationError) as caught:
        lead_model_from(broken)
    assert str(broken) in caught.value.message and "citeline.evaluation.fit" in (caught.value.hint or "")


def test_recorded_signals_reach_the_decision_record_through_the_real_agent(tmp_path: Path) -> None:
    # The fitting script learns from these records: every candidate sentence, all signals, and the
    # one the hand-written rules would lead with.
    settings = Settings(home=tmp_path / "home").with_overrides(lead="rules", record_signals=True, answerability="off")
    citeline = Citeline(settings)
    try:
        assert citeline.ingest([write_corpus(tmp_path / "docs")]).ok
        result = citeline.ask("What is the default timeout?")
    finally:
        citeline.close()
    units = decision_of(result)["units"]  # type: ignore[index]
    assert units and all(set(u["signals"]) == set(LEAD_SIGNALS) for u in units)
    assert sum(u["signals"]["rules"] for u in units) == 1.0
    # A sentence's neighbours in its passage are what `before` and `after` see: the next candidate
    # when it follows in the same passage, nothing at the very start.
    signals = [u["signals"] for u in units]
    assert signals[0]["before"] == 0.0
    pairs = list(pairwise(signals))
    assert all(a["after"] in (0.0, b["relative"]) and b["before"] in (0.0, a["relative"]) for a, b in pairs)
    assert any(a["after"] == b["relative"] > 0 and b["before"] == a["relative"] > 0 for a, b in pairs)
    assert first_sentence(result.answer).startswith(next(u["text"] for u in units if u["signals"]["rules"])[:40])
    # Word-by-word alignment (MiniLM gives token states): every embedded sentence has one, and the
    # sentence under "Default timeout" aligns better by its heading than the one under "Disabling timeouts".
    by_text = {u["text"]: u["signals"] for u in units}
    assert all(s["alignment"] > 0 for s in signals if s["cosine"] > 0)
    under_default = by_text["Requests time out after 5 seconds of network inactivity by default."]
    under_disabling = by_text["Pass `timeout=None` to disable all timeouts."]
    assert under_default["heading"] > under_disabling["heading"] > 0
