"""What a question asks: its asking sentence, without what the asker rules out."""

from citeline.retrieval.evidence import key_terms
from citeline.retrieval.focus import question_focus


def test_scene_setting_sentences_are_left_out() -> None:
    focus = question_focus("I activated another virtual environment, but uv sync keeps using .venv. "
                           "How do I make uv use the active environment?")
    assert focus.text == "How do I make uv use the active environment?"
    assert focus.differs_from("I activated another virtual environment, but uv sync keeps using .venv. "
                              "How do I make uv use the active environment?")


def test_what_the_asker_rules_out_is_excluded() -> None:
    focus = question_focus("How do I run my tests on trio instead of asyncio?")
    assert focus.text == "How do I run my tests on trio?"
    assert "asyncio" in focus.excluded and "trio" not in focus.excluded
    kept = {k.term for k in focus.keep(key_terms("How do I run my tests on trio instead of asyncio?"))}
    assert "trio" in kept and "asyncio" not in kept
    # "Besides X, what else": the answer is often listed with X, so nothing is ruled out.
    besides = question_focus("Besides Germany and Switzerland, where else is Lake Constance?")
    assert besides.text == "Besides Germany and Switzerland, where else is Lake Constance?"
    assert not besides.excluded


def test_a_plain_question_is_its_own_focus() -> None:
    focus = question_focus("What is the default timeout?")
    assert focus.text == "What is the default timeout?" and not focus.excluded
    assert not focus.differs_from("What is the default timeout?")
    # Every asking sentence stays: each is something to answer.
    two = question_focus("Is HTTP/2 on by default? How do I turn it on?")
    assert two.text == "Is HTTP/2 on by default? How do I turn it on?"


def test_a_clause_that_is_the_whole_question_is_kept() -> None:
    focus = question_focus("Anything rather than asyncio?")
    assert focus.text == "Anything rather than asyncio?" and not focus.excluded
