"""Which code example an extractive answer shows: for a how-to question the block that goes with its
lead, for any question the short example its lead hands over to, and the block under a tab the
question names ("on Windows")."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from citeline.answerers.layout import is_command_line, tabs_named, unit_text
from citeline.retrieval.answer_types import tells_how
from citeline.retrieval.units import Unit, listed_entry, shows_code

_SHORT_EXAMPLE_LINES = 3  # an example of fewer lines completes the sentence introducing it
_FOLLOWING_BLOCKS = 6  # how far after the lead, in blocks of its passage, its code example may sit
_CODE_SCORE_FLOOR = 0.5  # a how-to answer shows code only when the block is this close to the lead


def code_block(units: list[Unit], overall: np.ndarray, lead: int, lexical: np.ndarray,
               command: bool = False, question: str = "", continued_in: tuple[int, int] | None = None) -> int | None:
    """The code example for a how-to answer: the block after the lead in its passage when there
    is one (of several — one per shell, per framework — the one holding most of the question's
    terms, then the most relevant, then the first; asked for a command, a command line before
    any configuration file), or, when the lead's passage has none, the first blocks of the
    passage its document goes on with (`continued_in`: that passage's [n] and how many blocks of
    the lead's passage follow the lead), else the best-scoring block close enough to the lead's
    relevance.
    A block under a tab the question names ("on Windows" and a "Windows" tab) in the lead's
    passage comes first: the passage's other tabs show the same step for someone else (and when the
    lead shows that tab's command itself, no block is shown). A lead saying which option to pass is
    illustrated only by a command passing it."""
    named = block_under_named_tab(units, overall, lead, lexical, question)
    if named is not None:
        return named
    lead_unit = units[lead]
    if _shows_named_tab(units, lead, question):
        return None  # the example asked for is given; a sibling tab's is someone else's ("PS> …" on Linux)
    # A display the lead already shows as a code span is not shown again as a block, and a help
    # listing is no example: its options are quoted as items, never the thirty lines whole.
    listings = {(u.number, u.block) for u in units if listed_entry(u) is not None}
    blocks = [i for i, u in enumerate(units)
              if u.is_example and not shows_code(lead_unit, u) and (u.number, u.block) not in listings]
    following = [i for i in blocks if units[i].number == lead_unit.number
                 and 0 < units[i].block - lead_unit.block <= _FOLLOWING_BLOCKS]
    if continued_in is not None and not any(units[i].number == lead_unit.number for i in blocks):
        # The lead's passage holds no example and the passage its document goes on with opens
        # with it ("… will run only once the response has been sent.", then the section showing
        # `BackgroundTask` in use). Code scores too low against a question in words to be found by
        # relevance, so it is found where a reader finds it: next.
        number, blocks_left = continued_in
        following = [i for i in blocks if units[i].number == number
                     and units[i].block + blocks_left <= _FOLLOWING_BLOCKS]
    lead_text = unit_text(lead_unit)  # with its code displays as code spans
    flags = _flags_given(lead_text)
    if flags and not command and tells_how(lead_text):
        # The lead says what to pass ("include the `--default` option: `uv python install 3.12 --default`"):
        # commands not passing it are the example of something else ("$ uv python install 3.12.7", or
        # the `-W` line after "to allow a lint, run `cargo clippy -- -A clippy::lint_name`"), and so
        # is a block found further off in their place. Only the lead's own examples that pass it, or
        # set it in a configuration file under another name (`dynamic_context = …` for
        # `--cov-context`), are shown then.
        passing = [i for i in blocks if not is_command_line(units[i]) or flags & set(_FLAG.findall(units[i].text))]
        if len(passing) < len(blocks):
            following = [i for i in following if i in passing]
            blocks = following
    # A lead handing over to the block right after it ("To unset a header, use `Header:`:") is shown
    # that block: one further on is the example of a later sentence ("To send a header with an empty
    # value, use `Header;`:"), however many of the question's words it holds.
    after = lead + 1
    if (lead_unit.text.rstrip().endswith(":") and after in following and units[after].block == lead_unit.block + 1
            and (not command or is_command_line(units[after]))):
        return after
    if following:
        return max(following, key=lambda i: (command and is_command_line(units[i]), round(float(lexical[i]), 3),
                                             overall[i], -i))
    if not blocks:
        return None
    best = max(blocks, key=lambda i: overall[i])
    return best if overall[best] >= _CODE_SCORE_FLOOR * overall[lead] else None


# A command-line option as written: "--default", "-A", "--resolution".
_FLAG = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")
_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def _flags_given(text: str) -> set[str]:
    """The options a sentence gives in its code spans ("use the `--keep` option": {"--keep"})."""
    return {flag for span in _CODE_SPAN.findall(text) for flag in _FLAG.findall(span)}


def _shows_named_tab(units: Sequence[Unit], lead: int, question: str) -> bool:
    """Whether the lead already shows, as its code display, the block under the tab the question names
    ("… on a Linux server?" and "Install uv with our official standalone installer: `curl … | sh`" from
    the "macOS and Linux" tab)."""
    lead_unit = units[lead]
    blocks = [i for i, u in enumerate(units) if u.is_example and u.number == lead_unit.number]
    named = tabs_named(question, units, blocks)
    return bool(named) and all(shows_code(lead_unit, units[i]) for i in named)


def example_it_introduces(units: Sequence[Unit], lead: int) -> int | None:
    """The short example right after a lead that hands over to it with a colon ("… use this option in
    your `pytest.ini`:" and the one-line setting), shown whatever was asked: the sentence's content
    goes on into it. A longer example is shown only when asked how to do something."""
    unit = units[lead]
    after = lead + 1
    if not unit.text.rstrip().endswith(":") or after >= len(units):
        return None
    example = units[after]
    if (not example.is_example or example.number != unit.number or example.block != unit.block + 1
            or example.text.count("\n") >= _SHORT_EXAMPLE_LINES or shows_code(unit, example)):
        return None
    return after


def block_under_named_tab(units: Sequence[Unit], overall: np.ndarray, lead: int, lexical: np.ndarray,
                          question: str, value: bool = False) -> int | None:
    """The code block of the lead's passage under a tab the question names (of several, the one
    holding most of the question's terms, then the most relevant), or None. With `value`, only a
    short block among tabs of the same thing for others ("~/Library/Caches/pip" under "macOS"
    beside "Linux" and "Windows"): a value asked for, not an example of something else titled by
    a file the question names."""
    lead_unit = units[lead]
    blocks = [i for i, u in enumerate(units)
              if u.is_example and u.number == lead_unit.number and not shows_code(lead_unit, u)]
    named = tabs_named(question, units, blocks, alternatives=value)
    if value:
        named = [i for i in named if units[i].text.count("\n") < _SHORT_EXAMPLE_LINES]
    return max(named, key=lambda i: (round(float(lexical[i]), 3), overall[i], -i)) if named else None
