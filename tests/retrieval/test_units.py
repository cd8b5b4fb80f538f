"""The quotable units of a passage: whole list items and table rows, sentences, code blocks."""

from __future__ import annotations

from citeline.answerers.layout import unit_text
from citeline.documents.models import ChunkBlock
from citeline.index.store import Passage
from citeline.retrieval.evidence import vocabulary
from citeline.retrieval.units import (
    is_a_name,
    is_bare_link,
    listed_entry,
    only_points,
    passage_units,
    under_see_also,
)


def _passage(*blocks: tuple[str, str] | tuple[str, str, str]) -> Passage:
    text, spans, at = "", [], 0
    for kind, body, *label in blocks:
        spans.append(ChunkBlock(kind, at, at + len(body), label[0] if label else None))
        text += body + "\n"
        at = len(text)
    return Passage("c", "d", "version.md", "version.md", 0, text, None, None, 0, len(text), blocks=tuple(spans))


def test_a_row_pairing_two_values_is_a_unit_but_a_bare_name_is_not() -> None:
    units = passage_units(1, _passage(
        ("paragraph", "Here is how each segment changes version `1.0.0`:"),
        ("table_row", "`dev`: `1.0.0.dev0`"),
        ("list_item", "`httpx.get`"),
    ))
    assert [(u.kind, u.text) for u in units] == [
        ("sentence", "Here is how each segment changes version `1.0.0`:"),
        ("table_row", "`dev`: `1.0.0.dev0`"),
    ]


def test_a_unit_knows_the_name_it_describes_but_not_a_notes_title() -> None:
    units = passage_units(1, _passage(
        ("paragraph", "If N is negative there is no limit. The default limit is -1.", "--soft-error-limit N"),
        ("list_item", "default: `normal`", "follow_imports"),
        ("note", "The limit may change in a later release.", "Warning"),
    ))
    assert [(u.text, u.described) for u in units] == [
        ("If N is negative there is no limit.", "--soft-error-limit N"),
        ("The default limit is -1.", "--soft-error-limit N"),
        ("default: `normal`", "follow_imports"),
        ("The limit may change in a later release.", None),
    ]


def test_a_section_titled_by_a_name_describes_its_prose_but_a_title_in_words_does_not() -> None:
    # coverage.py titles each setting's section "[run] branch"; a settings page may title it `cache-dir`.
    units = passage_units(1, _passage(
        ("heading", "[report] precision"),
        ("paragraph", "The default is 0, displaying for example 87%."),
        ("heading", "Automatic retries"),
        ("paragraph", "By default a job is retried 3 times."),
        ("heading", "`cache-dir`"),
        ("list_item", "Path to the cache directory."),
        ("paragraph", "If N is negative there is no limit.", "--soft-error-limit N"),
        ("note", "Clearing it is safe.", "Tip"),
    ))
    assert [(u.text, u.described) for u in units] == [
        ("The default is 0, displaying for example 87%.", "[report] precision"),
        ("By default a job is retried 3 times.", None),
        ("Path to the cache directory.", "`cache-dir`"),
        ("If N is negative there is no limit.", "--soft-error-limit N"),  # an entry's own name comes first
        ("Clearing it is safe.", None),  # a note's title is no name
    ]


def test_a_section_titled_by_a_name_and_what_it_does_describes_its_prose() -> None:
    # The rustdoc book titles each option "`-e`/`--extend-css`: extend rustdoc's CSS".
    units = passage_units(1, _passage(
        ("heading", "`-e`/`--extend-css`: extend rustdoc's CSS"),
        ("paragraph", "With this flag, the contents of the files you pass are included at the bottom."),
        ("heading", "`--test` - run code examples as tests"),
        ("paragraph", "This flag will run your code examples as tests."),
        ("heading", "`x` and `y` in a title of words"),
        ("paragraph", "Both are written the same way."),
    ))
    assert [u.described for u in units] == ["`-e`/`--extend-css`", "`--test`", None]


def test_only_a_name_is_shown_before_a_description_that_is_no_sentence() -> None:
    # Names: an option, an identifier, a quoted key, a word that is no English ("truststore").
    for name in ("--concise", "NO_PROXY", '`"network_stream"`', "--allowlist FILE", "truststore"):
        assert is_a_name(name), name
    # Words heading a note or a section: "Note - Asking for markers …" would read as nonsense.
    for title in ("Note", "Implementation", "Maximum Number Of Columns"):
        assert not is_a_name(title), title


def test_a_field_of_an_entry_describes_the_entry_its_heading_names() -> None:
    # A reference entry's fields ("Default: 3") are labelled by what they give, not by a thing: they
    # describe the key the heading names. An item led by a name describes that name.
    units = passage_units(1, _passage(
        ("heading", "`net.retry`"),
        ("list_item", "Default: 3", "Default"),
        ("list_item", "Environment: `TOOL_NET_RETRY`", "Environment"),
        ("list_item", "`secret_key` - Should be a random string.", "`secret_key`"),
        ("list_item", "permanent: If set to `True` the session lives on.", "permanent"),
        ("heading", "Retries"),
        ("list_item", "Note: retries back off exponentially.", "Note"),
    ))
    assert [(u.text, u.described) for u in units] == [
        ("Default: 3", "`net.retry`"),
        ("Environment: `TOOL_NET_RETRY`", "`net.retry`"),
        ("`secret_key` - Should be a random string.", "`secret_key`"),
        ("permanent: If set to `True` the session lives on.", "permanent"),  # an attribute named by a word
        ("Note: retries back off exponentially.", None),  # under a title in words, a field describes nothing
    ]


def test_a_bare_link_is_told_apart_from_a_sentence_holding_one() -> None:
    assert is_bare_link("https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Strict-Transport-Security")
    assert is_bare_link("- <https://example.org/guide>.")
    assert not is_bare_link("See https://example.org/guide for the full list.")
    assert not is_bare_link("`https://example.org` is the default base URL.")


def test_a_pointer_is_told_apart_from_a_point() -> None:
    asked = vocabulary("What does json_object_put do?")
    assert only_points("See also - json_object_put()", asked)
    assert only_points("See `json_object_put()`.", asked)
    # A sentence starting "See" is no pointer, nor is a point that names the asked thing.
    assert not only_points("Seeing json_object_put() twice frees the object.", asked)
    assert not only_points("json_object_put() frees the object.", asked)
    # A "See also" listing only names points elsewhere, whatever is asked; "See" with words is a
    # sentence telling where to look.
    assert only_points("See also - json_object_get()", asked)
    assert not only_points("See the reference counting section before freeing objects.", asked)
    assert only_points("See Also: `parse(String, String)`", asked)
    assert only_points("See also `--test-args` and `--test-run-directory`.", asked)
    assert only_points("See also: Element.text(), eachText()", asked)
    assert not only_points("See also the Timeouts section for how to set them.", asked)
    # A bare link is a pointer too; a sentence holding one is not.
    assert only_points("- <https://example.org/guide>.", asked)
    assert not only_points("See https://example.org/guide for the full list.", asked)
    # Javadoc's pointers to where a member is declared.
    assert only_points("Specified by: `timeout` in interface `Connection`", asked)
    assert only_points("Overrides: `toString` in class `Object`", asked)
    assert not only_points("Overrides the timeout given to `Connection` for this request only.", asked)


def test_a_see_also_section_is_told_by_its_own_heading() -> None:
    assert under_see_also("MSGMERGE > SEE ALSO") and under_see_also("Guide > See also:")
    # a section under it, or one whose title goes on, says something of its own
    assert not under_see_also("SEE ALSO > Related tools") and not under_see_also("Guide > See also the FAQ")
    assert not under_see_also(None) and not under_see_also("Seeing also")


def test_a_sentence_going_on_through_a_one_line_code_display_is_one_unit() -> None:
    # Manuals typeset from Texinfo set a command inside a sentence, on a line of its own.
    passage = _passage(
        ("paragraph", "Packages are removed by name. To remove from library lib, do"),
        ("code", "$ R CMD REMOVE -l lib pkg"),
        ("paragraph", "where lib is the library path. Restart R after removing any packages."),
        ("paragraph", "This can be used by configuring R with something like"),
        ("code", '--with-blas="openblas"'),
        ("paragraph", "See the section on BLAS."),
        ("paragraph", "You can unload the loaded package pkg by"),
        ("code", 'detach("package:pkg", unload = TRUE)'),
        ("paragraph", "(where unload = TRUE is needed only for packages with a namespace)."),
    )
    units = passage_units(1, passage)
    remove = next(u for u in units if "remove from library" in u.text)
    assert remove.text == passage.text[remove.start:remove.end]
    assert unit_text(remove) == "To remove from library lib, do `R CMD REMOVE -l lib pkg` where lib is the library path."
    blas = next(u for u in units if "configuring" in u.text)
    assert unit_text(blas) == 'This can be used by configuring R with something like `--with-blas="openblas"`.'
    unload = next(u for u in units if "unload the loaded" in u.text)
    assert unit_text(unload) == ('You can unload the loaded package pkg by `detach("package:pkg", unload = TRUE)` '
                                 "(where unload = TRUE is needed only for packages with a namespace).")
    # the rest of each paragraph stays its own sentence, and each display is still a code block
    assert [u.text for u in units if u.kind == "sentence"] == [
        "Packages are removed by name.", remove.text, "Restart R after removing any packages.", blas.text,
        "See the section on BLAS.", unload.text]
    assert [u.text for u in units if u.is_code] == [
        "$ R CMD REMOVE -l lib pkg", '--with-blas="openblas"', 'detach("package:pkg", unload = TRUE)']


def test_a_finished_sentence_or_a_longer_example_stays_apart_from_its_code() -> None:
    units = passage_units(1, _passage(
        ("paragraph", "Install it first."),
        ("code", "pip install citeline"),
        ("paragraph", "then run it."),
        ("paragraph", "A longer example follows"),
        ("code", "import citeline\nciteline.ask()"),
        ("paragraph", "and prints the answer."),
    ))
    assert not any(u.inline_code for u in units)
    assert [u.text for u in units if u.kind == "sentence"] == [
        "Install it first.", "then run it.", "A longer example follows", "and prints the answer."]


def test_a_sentence_handing_over_to_a_one_line_display_holds_it_but_is_matched_without_it() -> None:
    passage = _passage(
        ("paragraph", "For a password with slashes, the URL with credentials would look like:"),
        ("code", "https://user:he%2F%2Fo@pypi.company.com/simple"),
        ("paragraph", "To install a package, run:"),
        ("code", "$ pip install citeline\n$ citeline --help"),
    )
    units = passage_units(1, passage)
    url = next(u for u in units if "credentials" in u.text)
    assert unit_text(url) == ("For a password with slashes, the URL with credentials would look like: "
                              "`https://user:he%2F%2Fo@pypi.company.com/simple`.")
    # What it says is matched against a question without the display: a command echoing the
    # question's words would otherwise outrank the sentence that answers it.
    assert url.words.strip() == "For a password with slashes, the URL with credentials would look like:"
    # A display of two lines is an example of its own.
    assert "To install a package, run:" in [u.text for u in units if u.kind == "sentence"]
    assert [u.text for u in units if u.is_code][-1].startswith("$ pip install citeline")


HELP = """$ coverage json --help
Usage: coverage json [options] [modules]

Options:
  --contexts=REGEX1,REGEX2,...
                        Only display data from lines covered in the given
                        contexts.
  -i, --ignore-errors   Ignore errors while reading source files.
  -o OUTFILE            Write the JSON report to this file. Defaults to
                        'coverage.json'
  --pretty-print        Format the JSON for human readers.
"""


def test_each_option_of_a_help_listing_is_an_item_named_by_its_option() -> None:
    passage = _passage(("paragraph", "The json command writes a JSON report."), ("code", HELP))
    units = passage_units(1, passage)
    assert [u.kind for u in units] == ["sentence", "code", "list_item", "list_item", "list_item", "list_item"]
    items = [u for u in units if u.kind == "list_item"]
    assert all(u.text == passage.text[u.start:u.end] for u in items)
    assert [listed_entry(u)[0] for u in items if listed_entry(u)] == [
        "--contexts=REGEX1,REGEX2,...", "-i, --ignore-errors", "-o OUTFILE", "--pretty-print"]
    # a description wrapped over lines is one entry, shown on one line under its name
    assert [unit_text(u) for u in items] == [
        "--contexts=REGEX1,REGEX2,... - Only display data from lines covered in the given contexts.",
        "-i, --ignore-errors - Ignore errors while reading source files.",
        "-o OUTFILE - Write the JSON report to this file. Defaults to 'coverage.json'",
        "--pretty-print - Format the JSON for human readers.",
    ]
    assert all(u.described == u.label == listed_entry(u)[0] for u in items if listed_entry(u))


def test_a_command_example_or_a_file_listing_has_no_option_items() -> None:
    example = "$ pip install --upgrade --no-cache-dir citeline\n$ citeline ask --json 'What is it?'"
    listing = ("$ ls -l hooks\n  -rw-rw-r--   1 david git    84 Dec  4 22:40 config\n"
               "  -rw-rw-r--   1 david git    58 Dec  4 22:40 description\n"
               "  -r-xr-xr-x   1 david git  3536 Dec  4 22:40 update")
    two = "Options:\n  -q, --quiet   Say less.\n  -v            Say more."
    for body in (example, listing, two):
        units = passage_units(1, _passage(("code", body)))
        assert [u.kind for u in units] == ["code"], body


def test_a_notes_sentence_handing_over_to_its_display_holds_it_but_not_one_outside_the_note() -> None:
    passage = _passage(
        ("note", "Many distributions provide a package with the common build tools, e.g., for Debian or Ubuntu:", "Tip"),
        ("code", "$ apt install build-essential", "Tip"),
        ("note", "Then run the build again:", "Warning"),
        ("code", "$ make", None),
    )
    units = passage_units(1, passage)
    tip = next(u for u in units if "distributions" in u.text)
    assert unit_text(tip).endswith("for Debian or Ubuntu: `apt install build-essential`.")
    warning = next(u for u in units if "build again" in u.text)
    assert warning.text == "Then run the build again:" and not warning.inline_code
