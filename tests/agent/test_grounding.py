from citeline.agent.grounding import build_citations, split_sentences, validate
from citeline.agent.planning import Constraints
from citeline.index.store import Passage


def _passage(n: int, text: str) -> Passage:
    return Passage(f"c{n}", f"d{n}", f"Doc {n}", f"/d{n}.md", 0, text, "Sec", None, 0, len(text), score=0.9)


EVIDENCE = [
    _passage(1, "Requests time out after 5 seconds of network inactivity by default."),
    _passage(2, "Pass `timeout=None` to disable all timeouts."),
]


def _check(answer: str, **kwargs: object):  # type: ignore[no-untyped-def]
    args = {"question": "What is the default timeout?", "constraints": Constraints(), "searches_done": 1,
            "opened_count": 2}
    args.update(kwargs)
    return validate(answer, EVIDENCE, **args)  # type: ignore[arg-type]


def test_supported_answer_passes_and_citations_are_verbatim() -> None:
    answer = "Requests time out after 5 seconds of network inactivity by default [1]."
    result = _check(answer)
    assert result.ok, result.errors
    citations = build_citations(result.cleaned_answer, EVIDENCE)
    assert [c.id for c in citations] == [1]
    assert citations[0].quote in EVIDENCE[0].text
    assert answer[citations[0].position_in_response :].startswith("[1]")


def test_reference_to_a_passage_never_retrieved_is_stripped() -> None:
    result = _check("Requests time out after 5 seconds by default [1][5].")
    assert result.stripped_refs == [5]
    assert "[5]" not in result.cleaned_answer and result.ok


def test_unsupported_cited_sentence_fails_and_is_removed_from_partial() -> None:
    answer = "Requests time out after 5 seconds by default [1]. Retries happen three times with jitter [2]."
    result = _check(answer)
    assert not result.ok and "UNGROUNDED_CLAIM" in result.codes
    assert result.removed_sentences == ["Retries happen three times with jitter [2]."]
    assert "jitter" not in result.grounded_answer and "[1]" in result.grounded_answer


def test_quoted_text_must_be_verbatim() -> None:
    result = _check('The docs say "timeouts are disabled by default" [2].')
    assert not result.ok


def test_uncited_technical_claim_fails() -> None:
    result = _check("Requests time out after 5 seconds by default [1]. The limit is 42 connections per host.")
    assert "UNGROUNDED_CLAIM" in result.codes


def test_answer_without_any_citation_fails_but_a_decline_passes() -> None:
    assert "NO_CITATIONS" in _check("Requests time out after 5 seconds by default.").codes
    assert _check("I don't have enough information in the current documentation to answer that.").ok


def test_constraint_checks() -> None:
    constraints = Constraints(min_searches=3, min_open_citations=3, requires_exact_quote=True)
    result = _check("Requests time out after 5 seconds by default [1].", constraints=constraints)
    assert {"MIN_SEARCHES_UNMET", "MIN_OPEN_CITATIONS_UNMET", "EXACT_QUOTE_MISSING"} <= set(result.codes)


def test_empty_sentence_cannot_carry_a_citation() -> None:
    pieces = split_sentences("Requests time out after 5 seconds. | [1]")
    assert len(pieces) == 1 and pieces[0][0].endswith("[1]")
