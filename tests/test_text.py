"""Text helpers shared by every layer: what reaches a terminal or a log line."""

from __future__ import annotations

import logging

from citeline.text import (
    EscapeControlsFilter,
    code_fence,
    code_span,
    content_terms,
    escape_controls,
    is_name,
    name_parts,
    printable,
    segments,
    stem,
)


def test_controls_are_escaped_in_log_fields_and_blanked_for_display() -> None:
    hostile = "/healthz\n2031-01-01 INFO admin logged in\x1b[2J\u202e"
    assert "\n" not in escape_controls(hostile) and "\\n2031" in escape_controls(hostile)
    assert "\\x1b" in escape_controls(hostile) and "\\u202e" in escape_controls(hostile)
    assert printable(hostile) == "/healthz 2031-01-01 INFO admin logged in [2J"


def test_the_log_filter_escapes_every_string_argument_and_keeps_the_record() -> None:
    record = logging.LogRecord("t", logging.INFO, __file__, 1, "%s %d", ("a\nb", 3), None)
    assert EscapeControlsFilter().filter(record) is True
    assert record.getMessage() == "a\\nb 3"
    named = logging.LogRecord("t", logging.INFO, __file__, 1, "%(path)s", ({"path": "x\ry"},), None)
    EscapeControlsFilter().filter(named)
    assert named.getMessage() == "x\\ry"


def test_a_token_cut_fits_the_limit_and_never_splits_a_character() -> None:
    from citeline.text import cl100k_encoding, truncate_tokens

    text = "Überprüfung der Zertifikate 🔒🔒🔒 " * 40
    for limit in (0, 1, 7, 50):
        cut, truncated = truncate_tokens(text, limit)
        assert truncated and text.startswith(cut) and "\ufffd" not in cut
        assert len(cl100k_encoding().encode(cut)) <= limit
    assert truncate_tokens("short", 10) == ("short", False)


def test_a_contraction_is_a_stopword_as_terms_split_it() -> None:
    # `terms` cuts "aren't" at the apostrophe; the head left over must not pass for content.
    assert content_terms("Why aren't these pages hidden, and why don't they 404?") == ["pag", "hidden", "404"]
    # "won" of "won't" is a word of its own.
    assert content_terms("Who won the race?") == ["won", "race"]


def test_a_contraction_typed_without_its_apostrophe_is_a_stopword() -> None:
    assert content_terms("why cant i pass cookies per request? isnt that a bug") == ["pass", "cooky", "request", "bug"]
    assert content_terms("keep the stuff ive staged, im sure youre right") == ["keep", "stuff", "stag", "sure", "right"]
    # "we'll" without its apostrophe is "well", "i'd" is "id": words of their own.
    assert content_terms("the id works well") == ["id", "work", "well"]


def test_a_sentence_ends_after_its_stop_and_a_wiki_footnote_mark_which_no_sentence_keeps() -> None:
    text = ("The name was adapted as Latin Rhenus.[note 3] The spelling with Rh- in English is recent.[12] "
            "It flows north to the sea. Use x[1] for the first one here.")
    assert [span.text for span in segments(text)] == [
        "The name was adapted as Latin Rhenus.", "The spelling with Rh- in English is recent.",
        "It flows north to the sea.", "Use x[1] for the first one here."]


def test_a_names_parts_are_the_terms_content_terms_adds_for_it() -> None:
    found = content_terms("the follow_imports setting of httpx.Client")
    assert is_name("follow_imports") and is_name("httpx.client") and not is_name("setting")
    assert name_parts(found) == {"follow", "import", "httpx", "client"}
    # Every part is among the terms: a word beside the names is not a part of them.
    assert name_parts(found) <= set(found) and "sett" not in name_parts(found)


def test_a_code_fence_is_longer_than_any_fence_inside_the_code() -> None:
    assert code_fence("x = 1\nprint('```')") == "```"  # a run not opening a line ends nothing
    assert code_fence("```compile_fail\nlet x = 1;\n```") == "````"
    assert code_fence("  `````\nnested\n  `````") == "``````"


def test_a_plural_or_verb_form_is_stemmed_but_an_acronym_keeps_its_last_letter() -> None:
    assert [stem(w) for w in ("redirects", "retries", "caching", "hooks")] == ["redirect", "retry", "cach", "hook"]
    # No English stem lacks a vowel: "https" is a name of its own, not the plural of "http".
    assert stem("https") == "https" and stem("smtps") == "smtps"


def test_a_code_span_is_fenced_by_a_backtick_run_its_code_does_not_hold() -> None:
    # Every reader writes inline code this way: its own backticks never end the span.
    assert code_span("retries") == "`retries`"
    assert code_span("a`b") == "``a`b``"
    assert code_span(":ref:`label`") == "`` :ref:`label` ``"  # a backtick at an end is padded from the fence
    assert code_span("x ``y`` `z`") == "``` x ``y`` `z` ```"
    assert code_span(" a ") == "`  a  `"
