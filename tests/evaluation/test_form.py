"""Form checks of answers: what a reader would notice, computed from the answer text alone."""

from __future__ import annotations

import pytest

from citeline.evaluation.form import (
    AnswerForm,
    first_sentence,
    markup_found,
    repeated_points,
    torn_code_points,
    words_outside_code,
)


@pytest.mark.parametrize(("answer", "kind"), [
    ('=== "macOS and Linux"\n    Install it. [1]', "mkdocs tab"),
    ('!!! note "Heads up"\n    Something. [1]', "admonition"),
    ("Set the value. {: style=\"height:2em\"} [1]", "attribute list"),
    ("Run it. <!-- prettier-ignore --> [1]", "html comment"),
    ('<div class="termy">uv sync</div> [1]', "html tag"),
    ("Use :data:`SSL_CERT_FILE` to point at a bundle. [1]", "rst role"),
    (".. versionchanged:: 0.28\n   Changed. [1]", "rst directive"),
    ("Call {func}`attrs.validate` on the instance. [1]", "myst role"),
    (":::{warning}\nA validator that raises. [1]", "myst directive"),
    ("It was never accepted.\n\n(labels/mypyc-support)=\n[1]", "myst target"),
    ("See `the guide <https://example.org>`_ for more. [1]", "rst reference"),
    ("Timeouts\n========\nThey apply. [1]", "heading underline"),
    ("Use [timeouts](quickstart.md#timeouts) for that. [1]", "markdown link"),
    ("Use [timeouts][guide] for that. [1]", "markdown link"),
    ("Class: [`MetaPreprocessor`][markdown.extensions.meta.MetaPreprocessor]; Kind: extension [1]", "markdown link"),
    ("Pass it to [`markdown.Markdown`][] as an argument. [1]", "markdown link"),
    ("See [the `run` method](api.md#run). [1]", "markdown link"),
    ("## Default timeout\nFive seconds. [1]", "markdown heading"),
    ("| name | default |\n|---|---|\n| timeout | 5 |", "markdown table"),
    ('--8<-- "CONTRIBUTING.md" [1]', "include directive"),
    ("{* ../docs_src/app.py *} [1]", "include directive"),
    ("{% include 'x.html' %} [1]", "template tag"),
    ("Client¶ [1]", "pilcrow"),
    ("class Client [source] [1]", "source link"),
    ("Installation ........ 12", "pdf artefact"),
    ("Shell: Z shell; macOS: :white_check_mark: [1]", "emoji shortcode"),
    ("See xref:logging.adoc#levels[Log Levels] for the names. [1]", "asciidoc macro"),
    ("Press kbd:[Ctrl+C] to stop it. [1]", "asciidoc macro"),
    ("The levels are listed in <<log-levels,Log Levels>>. [1]", "asciidoc cross reference"),
    ("[source,yaml]\nlogging.level.root: warn [1]", "asciidoc block attribute"),
])
def test_each_kind_of_source_markup_is_found(answer: str, kind: str) -> None:
    assert kind in markup_found(answer)


def test_clean_prose_and_code_are_not_markup() -> None:
    answer = ("Requests time out after 5 seconds of network inactivity by default. [1]\n"
              "Pass `timeout=None` to disable them; `{{ url_for('static') }}` is fine inside code. [1]\n"
              "Name the variable as `${API_TOKEN}`; lines read `Downloading cup-{version}`. [1]\n"
              "The ratio is 3:2: keep it; the `:white_check_mark:` code stays code. [1]\n"
              "Shift values with `x << 2 >> 1`; a list `[1, 2]` and a link: see the docs [1]. [1]\n"
              "Index it as `md.inlinePatterns[0][1]`, or `[`, then `][ref]` written apart. [1]\n"
              "- ArgumentParser.add_argument(name or flags...[, action][, nargs][, const]) [3]\n\n"
              "```python\n=== not a tab here\n<div>html in code is code</div>\n```\n")
    assert markup_found(answer) == []


def test_first_sentence_skips_list_marks_and_citations() -> None:
    assert first_sentence("- It lasts 2 weeks. [1] If set to None it is a session cookie. [1]") == "It lasts 2 weeks."
    assert first_sentence("The default is 5 seconds [1]\nMore here.") == "The default is 5 seconds"


def test_words_outside_code_ignore_code_blocks_and_citations() -> None:
    answer = "Attach a background task to the response. [1]\n\n```python\nreturn JSONResponse(m, background=t)\n```"
    assert words_outside_code(answer) == 7
    # A block showing Markdown holds three-backtick lines inside a longer fence: all of it is code.
    nested = "Add the attribute to the fence: [1]\n\n````md\n```compile_fail\nlet x = 1;\n```\n````\n[1]"
    assert words_outside_code(nested) == 6


def test_torn_code_and_repeated_points() -> None:
    answer = ("- `async def websocket_endpoint(websocket: WebSocket):` [1]\n"
              "- `app = Starlette(routes=routes)` [2]\n- `app = Starlette(routes=routes)` [2]\n"
              "- Use `Starlette(routes=...)` to declare routes. [1]")
    assert torn_code_points(answer) == 3
    assert repeated_points(answer) == 1


def test_run_together_words_are_found_outside_urls_and_identifiers() -> None:
    assert AnswerForm.of("Thedefaultvalueistakenfromtheenvironment. [1]").run_together
    assert not AnswerForm.of("See https://example.org/averyveryverylongpathsegmentwithoutspaces [1]").run_together
    assert not AnswerForm.of("Set `SOME_VERY_LONG_ENVIRONMENT_VARIABLE_NAME`. [1]").run_together
