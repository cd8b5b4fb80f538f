"""Answerability signals the extractive answerer computes from the searches themselves (`answerers.gate_signals`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from citeline.agent.state import SearchRecord
from citeline.answerers.gate_signals import dense_lift, value_unstated
from citeline.app import Citeline
from citeline.config import Settings
from citeline.index.store import Passage
from citeline.retrieval.answer_types import asked_attribute, expected_types
from citeline.retrieval.units import evidence_units
from tests.answerers.helpers import OPTIONS
from tests.conftest import write_corpus


def _passage(chunk_id: str, dense: float | None) -> Passage:
    return Passage(chunk_id=chunk_id, document_id="d", document_name="D", source="/d.md", chunk_index=0,
                   text="text", section=None, page=None, start=0, end=4, score=0.5, dense_score=dense)


def test_lift_is_the_best_passages_share_of_the_room_above_the_corpus_mean() -> None:
    on_topic = SearchRecord("q", [_passage("a", 0.7), _passage("b", 0.9), _passage("c", None)], background=0.5)
    assert dense_lift([on_topic]) == pytest.approx((0.9 - 0.5) / (1 - 0.5))
    # The same best similarity over a corpus far from the question stands out further.
    off_topic = SearchRecord("q", [_passage("b", 0.9)], background=0.1)
    assert dense_lift([off_topic]) > dense_lift([on_topic])  # type: ignore[operator]
    # The run's lift is its best search's.
    assert dense_lift([on_topic, off_topic]) == dense_lift([off_topic])


def test_lift_is_unknown_without_a_background_or_a_dense_match() -> None:
    assert dense_lift([SearchRecord("q", [_passage("a", 0.9)])]) is None
    assert dense_lift([SearchRecord("q", [_passage("a", None)], background=0.3)]) is None
    assert dense_lift([]) is None


def test_the_gate_reads_the_lift_of_the_searches_the_run_made(app: Citeline) -> None:
    result = app.ask("What is the default timeout?")
    features = next(e for e in result.trace if e.type == "validation").data["decision"]["features"]
    queries = [e.data["input"]["query"] for e in result.trace
               if e.type == "tool_call" and e.data["tool"] == "search_docs"]
    searches = [app.search(query, top_k=8) for query in queries]
    expected = dense_lift([SearchRecord(s.query, s.passages, background=s.background) for s in searches])
    assert expected is not None and 0.0 < expected <= 1.0
    assert features["dense_lift"] == pytest.approx(expected, abs=1e-4)


@pytest.fixture(scope="module")
def options(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Citeline]:
    root = tmp_path_factory.mktemp("options")
    app = Citeline(Settings(home=root / "home"))
    assert app.ingest([write_corpus(root / "docs", {"reference.rst": OPTIONS})]).ok
    yield app
    app.close()


@pytest.mark.parametrize(("question", "unstated"), [
    # The option's name heads its description; the sentence stating the default does not repeat it.
    ("What's the default value of --soft-error-limit?", False),
    # A setting's `:default:` field states the setting's default.
    ("What is the default value of follow_imports?", False),
    # A described name lends its default to nothing else.
    ("What is the default value of cache_dir?", True),
    ("What is the default value of --hard-error-limit?", True),
])
def test_a_value_is_stated_under_the_name_it_describes(options: Citeline, question: str, unstated: bool) -> None:
    evidence = options.search(question, top_k=8).passages
    assert value_unstated(evidence_units(evidence), evidence, expected_types(question),
                          asked_attribute(question)) is unstated


def _features(app: Citeline, question: str) -> dict[str, float]:
    result = app.ask(question)
    decision: dict[str, dict[str, float]] = next(e for e in result.trace if e.type == "validation").data["decision"]
    return decision["features"]


def test_a_name_in_the_askers_own_example_is_not_one_the_documents_must_hold(options: Citeline) -> None:
    # `billing.charge_card` is the asker's code: no reference documents it, and none needs to.
    asked = "Which flag makes mypy report an error when my code calls an untyped function"
    assert _features(options, f"{asked} like billing.charge_card()?")["rare_missing"] == 0.0
    # Asked about by name, it is what the question is about: the documents lack it.
    assert _features(options, f"{asked} billing.charge_card()?")["rare_missing"] == 1.0
    # In a snippet of the asker's code, it is theirs as well.
    assert _features(options, f"{asked} in `total = billing.charge_card(order)`?")["rare_missing"] == 0.0


def test_what_the_asker_would_do_without_is_not_missed_where_the_documents_lack_it(options: Citeline) -> None:
    asked = "Which flag makes mypy report an error when my code calls an untyped function"
    plain = _features(options, f"{asked}?")
    # "Pyre" is in no document: named as what the asker would do without, it is no sign of a near
    # miss, and the coverage of what is asked is what it is without the clause.
    without = _features(options, f"{asked}, without Pyre?")
    assert without["rare_missing"] == 0.0
    for signal in ("coverage_focus", "coverage_passage", "missing_weight"):
        assert without[signal] == pytest.approx(plain[signal]), signal
    # Asked about, it is what the question is about: the documents lack it.
    assert _features(options, f"{asked} with Pyre?")["rare_missing"] == 1.0
