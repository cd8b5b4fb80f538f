"""Which of the evidence's units an answer may quote, by where they sit (`answerers.layout`)."""

from __future__ import annotations

from citeline.answerers.layout import outside_named_tabs, tabs_named
from citeline.documents.models import ChunkBlock
from citeline.index.store import Passage
from citeline.retrieval.units import passage_units


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
