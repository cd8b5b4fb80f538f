"""Which of the evidence's units an answer may quote, by where they sit (`answerers.layout`)."""

from __future__ import annotations

from citeline.answerers.layout import (
    completion,
    fit_to_budget,
    introduced_items,
    is_description,
    lead_in,
    lead_paragraph,
    list_sentence,
    outside_named_tabs,
    premise,
    tabs_named,
)
from citeline.documents.models import ChunkBlock
from citeline.index.store import Passage
from citeline.retrieval.units import Unit, passage_units


def _passage(*blocks: tuple[str, str, str | None]) -> Passage:
    text, spans, at = "", [], 0
    for kind, body, label in blocks:
        spans.append(ChunkBlock(kind, at, at + len(body), label))
        text += body + "\n"
        at = len(text)
    return Passage("c", "d", "setup.md", "setup.md", 0, text, None, None, 0, len(text), blocks=tuple(spans))


SETUP = _passage(
    ("heading", "Configuration", None),
    ("tab", "Put the settings in the pyproject.toml file of the project.", "pyproject.toml"),
    ("tab", "Put the settings in the tool.toml file beside it.", "tool.toml"),
    ("heading", "Completion", None),
    ("tab", "Save the script somewhere on the search path.", "Bash"),
    ("code", "_TOOL_COMPLETE=bash_source tool > ~/.tool.bash", "Bash"),
    ("tab", "Save the script somewhere on the search path.", "Z shell"),
    ("code", "_TOOL_COMPLETE=zsh_source tool > ~/.tool.zsh", "Z shell"),
)


def _left_out(question: str) -> list[str]:
    units = passage_units(1, SETUP)
    return sorted(units[i].text for i in outside_named_tabs(question, units, [SETUP]))


def _code_shown(question: str) -> list[str]:
    units = passage_units(1, SETUP)
    return [units[i].text for i in tabs_named(question, units, [i for i, u in enumerate(units) if u.is_code],
                                              alternatives=True)]


def test_a_tab_named_by_its_title_leaves_out_its_siblings_prose_in_its_group_only() -> None:
    # The configuration tabs are another group: the shell asked for says nothing about them. Code
    # stays, for the block to be chosen among its siblings.
    assert _left_out("How do I set up completion in Bash?") == ["Save the script somewhere on the search path."]
    assert _code_shown("How do I set up completion in Bash?") == ["_TOOL_COMPLETE=bash_source tool > ~/.tool.bash"]


def test_a_name_found_in_one_tabs_text_alone_names_that_tab() -> None:
    assert _left_out("I use zsh. How do I set up completion?") == ["Save the script somewhere on the search path."]
    assert _code_shown("I use zsh. How do I set up completion?") == ["_TOOL_COMPLETE=zsh_source tool > ~/.tool.zsh"]


def test_nothing_is_left_out_when_no_tab_or_every_tab_is_named() -> None:
    assert _left_out("How do I set up completion?") == [] and _code_shown("How do I set up completion?") == []
    assert _left_out("Does completion work the same in bash and zsh?") == []
    # An English word in one tab's text alone ("beside") is the asker's phrasing, not a name.
    assert _left_out("Where do the settings go beside the project?") == []


def test_a_sentence_leaning_on_the_one_before_has_it_as_its_premise_unless_shown() -> None:
    units = passage_units(1, _passage(
        ("paragraph", "The special exit code 125 should be used when the source cannot be tested. "
                      "If the script exits with this code, the revision is skipped.", None),
        ("paragraph", "The run command starts the server. It replaces the old method in most cases. "
                      "In this way nothing changes for users.", None),
        ("paragraph", "Skipped revisions are listed at the end.", None),
        ("paragraph", "They are never tested again.", None),
    ))
    texts = [u.text for u in units]
    skipped, replaces, way, listed = (texts.index(t) for t in (
        "If the script exits with this code, the revision is skipped.", "It replaces the old method in most cases.",
        "In this way nothing changes for users.", "They are never tested again."))
    assert premise(units, skipped, set()) == skipped - 1  # "this code": the code the sentence before names
    assert premise(units, replaces, set()) == replaces - 1  # its subject a pronoun
    assert premise(units, replaces, {replaces - 1}) is None  # shown already
    assert premise(units, way, set()) is None  # "this way" names nothing the sentence before says
    assert premise(units, listed, set()) is None  # another paragraph: another thought


def test_an_item_that_is_no_sentence_has_the_sentence_introducing_its_list_as_its_lead_in() -> None:
    units = passage_units(1, _passage(
        ("paragraph", "The server uses a worker thread in these cases:", None),
        ("list_item", "When an endpoint is written with def", None),
        ("list_item", "When a file is streamed from disk", None),
        ("paragraph", "Each pool has its limits.", None),
        ("list_item", "When the pool is full", None),
        ("paragraph", "Two settings matter:", None),
        ("list_item", "Threads are started lazily.", None),
        ("list_item", "The number of threads", "threads"),
        ("paragraph", "There are two approaches:", None),
        ("list_item", "1. manually escaping each variable; or", None),
        ("list_item", "2. automatically escaping everything by default.", None),
        ("paragraph", "Three tools read it:", None),
        ("list_item", "pytest reads it at start-up.", None),
    ))
    at = {u.text: i for i, u in enumerate(units)}
    introduces = at["The server uses a worker thread in these cases:"]
    assert lead_in(units, at["When an endpoint is written with def"]) == introduces
    assert lead_in(units, at["When a file is streamed from disk"]) == introduces  # further down the same list
    assert lead_in(units, at["When the pool is full"]) is None  # its list is not introduced by a colon
    assert lead_in(units, at["Threads are started lazily."]) is None  # a sentence of its own
    assert lead_in(units, at["The number of threads"]) is None  # led by its name ("threads")
    approaches = at["There are two approaches:"]
    # A sentence's end, but going on from the lead-in: its first word is in lower case.
    assert lead_in(units, at["2. automatically escaping everything by default."]) == approaches
    assert lead_in(units, at["pytest reads it at start-up."]) is None  # a name in lower case
    assert lead_in(units, introduces) is None  # no list item


def test_a_list_that_makes_one_sentence_with_its_lead_in_is_quoted_whole() -> None:
    units = passage_units(1, _passage(
        ("paragraph", "There are two approaches:", None),
        ("list_item", "1. manually escaping each variable; or", None),
        ("list_item", "2. automatically escaping everything by default.", None),
        ("paragraph", "The server uses a worker thread in these cases:", None),
        ("list_item", "when an endpoint is written with def", None),
        ("list_item", "when a file is streamed from disk", None),
    ))
    at = {u.text: i for i, u in enumerate(units)}
    approaches, cases = at["There are two approaches:"], at["The server uses a worker thread in these cases:"]
    manually, automatically = at["1. manually escaping each variable; or"], at["2. automatically escaping everything by default."]
    assert list_sentence(units, approaches) == [manually, automatically]
    # Items that do not go on from one to the next are a list of their own sentences' fragments.
    assert list_sentence(units, cases) == []
    # Too many items, or too many words, make no sentence a reader takes in at once.
    for items in (["a first way;", "a second;", "a third;", "a fourth; or", "a fifth."],
                  ["a way that " + "goes on " * 12 + "for long;", "one more that " + "goes on " * 12 + "as well; or",
                   "the last one."]):
        long_list = passage_units(1, _passage(("paragraph", "There are several ways:", None),
                                              *(("list_item", item, None) for item in items)))
        assert len(introduced_items(long_list, 0)) == len(items) and list_sentence(long_list, 0) == []
    paragraph, used = lead_paragraph(units, automatically, "automatically escaping everything by default.", ())
    assert paragraph == ("There are two approaches: [1] manually escaping each variable; or automatically "
                         "escaping everything by default. [1]")
    assert used == {approaches, manually, automatically}
    # An item of a list of fragments comes after the lead-in alone, as before.
    streamed = at["when a file is streamed from disk"]
    paragraph, used = lead_paragraph(units, streamed, "when a file is streamed from disk", ())
    assert paragraph == "The server uses a worker thread in these cases: [1] when a file is streamed from disk [1]"
    assert used == {cases}


def test_a_whole_list_opens_with_the_name_its_lead_was_shown_under() -> None:
    texts = ["Black will exit with:", "code 0 if nothing would change;", "code 1 if some files would be reformatted; or",
             "code 123 if there was an internal error"]
    units = [Unit(1, "sentence" if block == 0 else "list_item", text, 0, len(text), block, described="`--check`")
             for block, text in enumerate(texts)]
    paragraph, _ = lead_paragraph(units, 2, "`--check` - code 1 if some files would be reformatted; or", ())
    assert paragraph == ("`--check` - Black will exit with: [1] code 0 if nothing would change; code 1 if some files "
                         "would be reformatted; or code 123 if there was an internal error [1]")


def test_a_list_sentence_ends_with_its_last_items_first_sentence() -> None:
    # The last item goes on past the sentence the list makes: what it says next is its own sentence,
    # neither quoted in that sentence nor counted against its length.
    texts = ["There are three ways to enable dynamic contexts:",
             "you can set the `[run] dynamic_context` option in your .coveragerc file, or",
             "you can enable a dynamic context switcher plugin, or",
             "another tool (such as a test runner) can call the `switch_context` method to set the context explicitly. "
             "The pytest plugin pytest-cov has a `--cov-context` option that uses this to set the dynamic context for "
             "each test."]
    units = [Unit(1, "sentence" if block == 0 else "list_item", text, 0, len(text), block)
             for block, text in enumerate(texts)]
    assert list_sentence(units, 0) == [1, 2, 3]
    paragraph, used = lead_paragraph(units, 1, texts[1], ())
    assert paragraph == (f"{texts[0]} [1] {texts[1]} {texts[2]} another tool (such as a test runner) can call the "
                         "`switch_context` method to set the context explicitly. [1]")
    assert used == {0, 1, 2, 3}


def test_a_sentence_going_on_from_the_one_before_completes_it() -> None:
    units = passage_units(1, _passage(
        ("paragraph", "If the output parses as a literal, the value is returned. Otherwise, the string is returned.", None),
        ("paragraph", "Set a timeout on the client. If not, requests wait forever.", None),
        ("paragraph", "A proxy may be configured. In this case, every request goes through it.", None),
        ("paragraph", "The pool holds ten connections for each host. Further requests are queued until one is free.", None),
        ("paragraph", "Retries are off by default.", None),
        ("paragraph", "Otherwise nothing changes.", None),
    ))
    at = {u.text: i for i, u in enumerate(units)}
    for first in ("If the output parses as a literal, the value is returned.", "Set a timeout on the client.",
                  "A proxy may be configured."):
        assert completion(units, at[first]) == at[first] + 1
    assert completion(units, at["The pool holds ten connections for each host."]) is None  # a new statement
    assert completion(units, at["Retries are off by default."]) is None  # another paragraph


def test_a_noun_phrase_ending_in_a_full_stop_is_a_description_and_a_statement_is_not() -> None:
    for text in ("The server's hostname, which is used to confirm the hostname supplied by the SSL certificate.",
                 "The HTTP version, as bytes.", "The number of retries.",
                 "The directory where Black should store its cache.", "A file that lists the hosts to skip.",
                 "Whether to expire the session when the user closes their browser.",
                 "Whether the report includes the source of each file."):
        assert is_description(text), text
    # A verb states something; a sentence not opening with an article names its own subject.
    for text in ("The default is 5.", "The pool can hold ten connections.", "This flag turns retries off.",
                 "HTTPX uses certifi, which is bundled.", "Whether you need it depends on your proxy.",
                 "The amount of time elapsed between sending the "
                 "request and calling `close()` on the corresponding response received for that request."):
        assert not is_description(text), text


def test_rows_chosen_as_points_are_shown_under_the_sentence_introducing_their_table_in_its_order() -> None:
    texts = [("sentence", "All the other output options are shortcuts for the more powerful `--print`."),
             ("sentence", "It accepts a string of characters each of which represents a part of the exchange:"),
             ("table_row", "`H`: request headers"), ("table_row", "`B`: request body"),
             ("table_row", "`h`: response headers"), ("table_row", "`b`: response body"),
             ("table_row", "`m`: response meta")]
    units = [Unit(1, kind, text, 0, len(text), block) for block, (kind, text) in enumerate(texts)]
    # Two rows scored as points before the sentence introducing the table: shown apart, the table
    # read "B, b, m" under it and "H", "h" after it.
    assert fit_to_budget(units, [0, 4, 2, 1], []) == ([0, 1], {0: [], 1: [2, 3, 4, 5, 6]})
