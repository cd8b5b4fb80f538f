from dataclasses import replace

from citeline.agent.exits import ExitReason
from citeline.agent.grounding import build_citations, split_sentences, validate
from citeline.agent.planning import Constraints
from citeline.agent.result import AgentResult, Timings
from citeline.documents.models import ChunkBlock
from citeline.index.store import Passage


def _passage(n: int, text: str) -> Passage:
    return Passage(f"c{n}", f"d{n}", f"Doc {n}", f"/d{n}.md", 0, text, "Sec", None, 0, len(text), score=0.9)


EVIDENCE = [
    _passage(1, "Requests time out after 5 seconds of network inactivity by default."),
    _passage(2, "Pass `timeout=None` to disable all timeouts."),
]


def test_each_claim_gets_its_own_quote_and_a_source_is_listed_once() -> None:
    passage = _passage(1, "Requests time out after 5 seconds by default. Pass `timeout=None` to disable timeouts. "
                          "Connection pools hold ten connections.")
    answer = ("Requests time out after 5 seconds by default. [1]\n\n"
              "- Pass `timeout=None` to disable timeouts. [1]\n- Connection pools hold ten connections. [1] [1]")
    citations = build_citations(answer, [passage])
    # One citation per claim (a marker repeated within a claim counts once), each quoting its own sentence.
    assert [c.id for c in citations] == [1, 1, 1]
    assert [c.quote for c in citations] == ["Requests time out after 5 seconds by default.",
                                            "Pass `timeout=None` to disable timeouts.",
                                            "Connection pools hold ten connections."]
    assert [answer[c.position_in_response:].startswith("[1]") for c in citations] == [True, True, True]
    assert citations[1].response_fragment.endswith("Pass `timeout=None` to disable timeouts.")
    result = AgentResult(query_id="q", question="?", answer=answer, exit_reason=ExitReason.COMPLETED, retryable=False,
                         citations=citations, timings=Timings(retrieval_ms=0, generation_ms=0, total_ms=0),
                         model="extractive")
    (first, quotes), = result.sources()
    assert first is citations[0] and quotes == [c.quote for c in citations]


def test_a_marker_closing_several_sentences_is_quoted_for_all_of_them() -> None:
    # Two items of one option list end on sentences that differ only in case: the quote of the
    # item shown whole is that item, not its neighbour whose last sentence reads the same.
    items = ["`-W`, `--ignore-all-space` - Ignore white space. Note that this option is `-w` in `diff`, `-W` in "
             "`sdiff`.", "`-w N`, `--width=N` - Output at most N columns. Note that this option is `-W` in `diff`, "
             "`-w` in `sdiff`."]
    text = "\n".join(items)
    passage = replace(_passage(1, text), blocks=(ChunkBlock("list_item", 0, len(items[0])),
                                                 ChunkBlock("list_item", len(items[0]) + 1, len(text))))
    answer = ("`-w N`, `--width=N` - Output at most N columns. Note that this option is `-W` in `diff`, `-w` in "
              "`sdiff`. [1]\n\n- Nothing else is cited here.")
    citation, = build_citations(answer, [passage])
    assert citation.quote.startswith("`-w N`, `--width=N` - Output at most N columns.")
    assert citation.response_fragment.startswith("`-w N`, `--width=N`")
    # A sentence on a line of its own before the marker's line is a claim of its own, not this one's.
    separate = "Output at most N columns.\n\n- Note that this option is `-W` in `diff`, `-w` in `sdiff`. [1]"
    assert build_citations(separate, [passage])[0].response_fragment.startswith("- Note that")


def test_a_code_block_is_cited_but_not_repeated_as_a_quote() -> None:
    passage = _passage(1, "Pass `timeout=None` to disable timeouts.\n\n```python\nhttpx.get(url, timeout=None)\n```")
    answer = "Pass `timeout=None` to disable timeouts. [1]\n\n```python\nhttpx.get(url, timeout=None)\n```\n[1]"
    citations = build_citations(answer, [passage])
    assert len(citations) == 2 and "httpx.get(url, timeout=None)" in citations[1].quote
    result = AgentResult(query_id="q", question="?", answer=answer, exit_reason=ExitReason.COMPLETED, retryable=False,
                         citations=citations, timings=Timings(retrieval_ms=0, generation_ms=0, total_ms=0),
                         model="extractive")
    assert result.sources() == [(citations[0], ["Pass `timeout=None` to disable timeouts."])]


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


def test_an_index_in_quoted_code_is_code_not_a_reference() -> None:
    # `subprotocols[0]` once lost its "[0]" as an invalid reference: the example no longer stood
    # verbatim in its source and a correct extractive answer failed validation.
    code = 'if subprotocols[0] != "Authorization":\n    return subprotocols[2]'
    passage = _passage(1, f"Check the subprotocols before accepting.\n\n{code}")
    other = _passage(2, "WebSockets carry subprotocols in the handshake.")
    answer = f"Check the subprotocols before accepting. [1]\n\n```python\n{code}\n```\n[1]"
    result = validate(answer, [passage, other], question="How do I check subprotocols?", constraints=Constraints(),
                      searches_done=1, opened_count=1)
    assert result.ok, result.errors
    assert code in result.cleaned_answer and result.stripped_refs == []
    # the block cites [1] only: its "[2]" index is not a claim on passage 2
    assert [c.id for c in build_citations(result.cleaned_answer, [passage, other])] == [1, 1]
    # ... and in a sentence, a code span's brackets are neither stripped nor cited
    answer = "Compare `subprotocols[0]` first. [2]"
    assert _check(answer).cleaned_answer == answer
    assert [c.id for c in build_citations(answer, [passage, other])] == [2]


def test_text_between_two_short_code_spans_is_not_taken_for_a_quote() -> None:
    passage = _passage(1, "For `a` of map type `M`:\n\n`x`'s type must be assignable to the key type of `M`\n"
                          "if the map is `nil` or does not contain such an entry, "
                          "`a[x]` is the zero value for the element type of `M`")
    answer = ("For `a` of map type `M`: [1] if the map is `nil` or does not contain such an entry, `a[x]` is the "
              "zero value for the element type of `M` [1]")
    result = validate(answer, [passage], question="What happens when you read a nil map?", constraints=Constraints(),
                      searches_done=1, opened_count=1)
    assert result.ok, result.errors
    # A code span the source does not hold is still caught.
    assert not validate("Set `a` of map type `Q` to `zero_value(M)` [1].", [passage], question="?",
                        constraints=Constraints(), searches_done=1, opened_count=1).ok


def test_a_claim_is_quoted_by_the_unit_it_says_word_for_word() -> None:
    # The two entries differ only in words too common to count as terms: the claim's own entry is its quote.
    passage = _passage(1, "The position of the help text:\n\n`before`: display extra information before built-in help\n\n"
                          "`after`: display extra information after built-in help")
    answer = "`before`: display extra information before built-in help [1]"
    assert [c.quote for c in build_citations(answer, [passage])] == [
        "`before`: display extra information before built-in help"]
