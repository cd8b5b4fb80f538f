from citeline.agent.context import count_tokens, trim_history
from citeline.agent.planning import (
    analyze_constraints,
    choose_strategy,
    default_plan,
    key_term_query,
    parse_plan,
    split_parts,
    standalone_query,
)
from citeline.agent.state import Message

RUNBOOK = ("Produce an operational runbook. Use separate tool searches for each topic, at least 3 searches, "
           "use open_citation for at least two passages, quote one exact SQL statement, resolve conflicts "
           "by the newest dated document, and explicitly say 'Insufficient documentation' for anything missing.")


def test_constraint_analysis_of_a_demanding_prompt() -> None:
    found = analyze_constraints(RUNBOOK)
    assert found.min_searches == 3
    assert found.min_open_citations == 2
    assert found.requires_exact_quote and found.exact_quote_indicators
    assert found.conflict_resolution_rule == "newest_dated_document_wins"
    assert found.requires_insufficiency_disclosure and found.disclosure_phrase == "Insufficient documentation"


def test_simple_question_has_minimal_constraints() -> None:
    found = analyze_constraints("What is the default timeout?")
    assert (found.min_searches, found.min_open_citations, found.requires_exact_quote) == (1, 0, False)


def test_required_sections() -> None:
    assert analyze_constraints('Write sections "Install" and "Upgrade".').required_sections == ["Install", "Upgrade"]


def test_plan_parsing_strategies() -> None:
    fallback = ["a", "b"]
    assert parse_plan('["Search X", "Open it", "Answer"]', fallback) == ["Search X", "Open it", "Answer"]
    assert parse_plan("1. Search X\n2. Answer", fallback) == ["Search X", "Answer"]
    assert parse_plan("- Search X\n- Open\n- Answer", fallback) == ["Search X", "Open", "Answer"]
    assert parse_plan("no structure at all", fallback) == fallback
    assert len(parse_plan(str([f"s{i}" for i in range(9)]).replace("'", '"'), fallback)) == 5


def test_default_plan_has_two_to_five_steps() -> None:
    for question in ["What is X?", RUNBOOK, "Is A on by default, and how do I set B? And what about C?"]:
        assert 2 <= len(default_plan(question, analyze_constraints(question))) <= 5


def test_multi_part_split_and_strategy() -> None:
    assert split_parts("Does it follow redirects by default, and how do I turn it on?") == [
        "Does it follow redirects by default", "how do I turn it on"]
    assert split_parts("What is the default timeout?") == ["What is the default timeout?"]
    assert split_parts("Where is the file saved, and is that file encrypted?") == [
        "Where is the file saved", "is that file encrypted"]


def test_one_question_with_two_subjects_or_two_verbs_is_not_split() -> None:
    # "and what other river" joins the subject; "and is also considered" goes on with the same one.
    for question in ("The Rhine and what other river drained the northern flanks of the Alps?",
                     "Between Brakel and what other city can the tidal influence be detected?",
                     "What continued southward and is also considered the first Rhine river?",
                     "How do I give dependencies their own layer so that they are cached and are not reinstalled?"):
        assert split_parts(question) == [question]
    assert choose_strategy("What is X?", analyze_constraints("What is X?"))["name"] == "focused-lookup"
    assert choose_strategy(RUNBOOK, analyze_constraints(RUNBOOK))["verification_level"] == "extensive"


def test_follow_up_rewrite_only_when_it_refers_back() -> None:
    history = [Message("user", "How do I configure proxy authentication?")]
    assert "proxy" in standalone_query("and what about its timeout?", history)
    assert standalone_query("What is SOCKS?", history) == "What is SOCKS?"


def test_a_follow_up_carries_the_previous_words_whose_stem_differs() -> None:
    # "retries" is the content term "retry": it is carried all the same.
    rewritten = standalone_query("and what about its delay?", [Message("user", "How do failed job retries work?")])
    assert "retries" in rewritten and "failed" in rewritten


def test_an_existential_there_or_a_relative_that_is_not_a_follow_up() -> None:
    history = [Message("user", "How do I configure proxy authentication?")]
    for question in ("Is there a maximum body size?", "Which option sets the size of the pool that connections are kept in?"):
        assert standalone_query(question, history) == question


def test_key_term_query_keeps_a_word_its_stem_does_not_begin() -> None:
    # "retries" stems to "retry": the word is kept as written all the same.
    assert key_term_query("How do failed job retries work?").split() == ["failed", "job", "retries"]


def test_key_term_query_keeps_both_words_of_a_two_word_name() -> None:
    assert key_term_query("How do I debug a test from VS Code's sidebar?").split() == ["debug", "test", "VS", "Code", "sidebar"]


def test_history_is_trimmed_oldest_first() -> None:
    history = [Message("user", f"message {i} " + "word " * 50) for i in range(10)]
    kept = trim_history(history, budget=3 * (count_tokens(history[0].content) + 4))
    assert [m.content.split()[1] for m in kept] == ["7", "8", "9"]
