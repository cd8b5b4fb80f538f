"""The QA sets kept in this repository (eval/README.md) are well-formed: `make eval` reads every one,
and a wrong source or answer string would score a right answer as wrong without a word."""

import re
from pathlib import Path

import pytest

from citeline.evaluation.qa import load_qa
from citeline.evaluation.runner import EvalSet, discover_suite

EVAL = Path(__file__).resolve().parents[2] / "eval"
SETS = discover_suite(EVAL)


def _as_read(text: str) -> str:
    """Markdown as a reader sees it, for finding an answer string: no code or emphasis marks, one space."""
    return re.sub(r"\s+", " ", re.sub(r"[`*]", "", text)).casefold()


@pytest.mark.parametrize("qa_set", SETS, ids=[s.name for s in SETS])
def test_every_question_loads_and_every_source_is_in_the_corpus(qa_set: EvalSet) -> None:
    items = load_qa(qa_set.qa_file)
    assert len({item.id for item in items}) == len(items)
    assert any(item.answerable for item in items) and any(not item.answerable for item in items)
    for item in items:
        for source in item.sources:
            assert qa_set.corpus is not None and (qa_set.corpus / source).is_file(), f"{item.id}: {source} is not in {qa_set.corpus}"


@pytest.mark.parametrize("qa_set", [s for s in SETS if s.name.startswith("squad-")], ids=lambda s: s.name)
def test_a_paragraph_set_states_every_answer_in_its_paragraph(qa_set: EvalSet) -> None:
    for item in load_qa(qa_set.qa_file):
        if item.answerable:
            assert qa_set.corpus is not None
            paragraph = _as_read((qa_set.corpus / item.sources[0]).read_text(encoding="utf-8"))
            assert all(_as_read(answer) in paragraph for answer in item.answers), item.id
