"""Key terms: what of a question its evidence must contain, and how a decline names what is missing."""

from __future__ import annotations

from citeline.retrieval.evidence import KeyTerm, key_terms, present, vocabulary


def _terms(question: str) -> dict[str, KeyTerm]:
    return {k.term: k for k in key_terms(question)}


def test_contractions_and_latin_abbreviations_are_phrasing_not_terms() -> None:
    found = _terms("Why aren’t protected pages hidden, i.e. why don't they 404, e.g. for guests?")
    assert not {"aren", "don", "i.e", "e.g"} & set(found)
    assert {"protect", "hidden", "404", "guest"} <= set(found)


def test_a_capitalised_abbreviation_names_something_and_stays() -> None:
    assert "u.s" in _terms("Which U.S. states border the river?")


def test_a_stemmed_term_keeps_the_word_the_question_used() -> None:
    found = _terms("Where does uv writes its logs when taking snapshots?")
    assert found["writ"].shown == "writes" and found["tak"].shown == "taking"
    assert found["snapshot"].shown == "snapshots"


def test_a_hyphenated_compound_matches_its_closed_spelling_but_not_its_parts() -> None:
    assert present("e-mail", vocabulary("Send a welcome email after signing up."))
    assert present("email", vocabulary("Send a welcome e-mail after signing up."))
    assert present("built-in", vocabulary("Retries are builtin."))
    assert not present("rate-limit", vocabulary("The rate of requests has no limit."))
    # an ordinary word however it is spelled: a missing "e-mail" weighs what a missing "email" would
    assert _terms("Who gets the e-mail?")["e-mail"].weight == _terms("Who gets the email?")["email"].weight
