"""Which code example an answer shows (`answerers.examples`)."""

from __future__ import annotations

import numpy as np

from citeline.answerers.examples import code_block
from citeline.documents.models import ChunkBlock
from citeline.index.store import Passage
from citeline.retrieval.units import Unit, passage_units


def test_of_the_examples_after_the_lead_the_one_closest_to_the_question_is_shown() -> None:
    texts = [("sentence", "Completion is achieved by saving a script and sourcing it at startup."),
             ("code", "_APP_COMPLETE=bash_source app > ~/.app-complete.bash"),
             ("sentence", "Source the file in `~/.bashrc`:"),
             ("code", "_APP_COMPLETE=zsh_source app > ~/.app-complete.zsh"),
             ("code", "_APP_COMPLETE=fish_source app > ~/.config/fish/completions/app.fish")]
    units = [Unit(1, kind, text, 0, len(text), block) for block, (kind, text) in enumerate(texts)]
    relevance = np.array([0.7, 0.3, 0.4, 0.3, 0.5])
    # Asked about zsh, the zsh block holds most of the question's terms, however relevant the fish one is.
    assert code_block(units, relevance, 0, np.array([0.5, 0.2, 0.3, 0.4, 0.2])) == 3
    # Holding as many, the more relevant; with nothing to choose between them, the first.
    assert code_block(units, relevance, 0, np.array([0.5, 0.2, 0.3, 0.2, 0.2])) == 4
    assert code_block(units, np.full(5, 0.3), 0, np.full(5, 0.2)) == 1


def test_a_help_listing_is_no_example_to_show() -> None:
    listing = ("Options:\n  -a, --append          Append coverage data to .coverage.\n"
               "  --keep                Keep original coverage files.\n"
               "  -q, --quiet           Don't print messages about what is happening.")
    units = [Unit(1, "sentence", "Combine the data files before reporting.", 0, 41, 0),
             *passage_units(2, Passage("c", "d", "cmd.md", "cmd.md", 0, listing, None, None, 0, len(listing),
                                       blocks=(ChunkBlock("code", 0, len(listing)),)))]
    assert [u.kind for u in units] == ["sentence", "code", "list_item", "list_item", "list_item"]
    relevance = np.array([0.6, 0.5, 0.4, 0.4, 0.4])
    # The listing is the only block, and relevant: as an example it would be thirty lines of options.
    assert code_block(units, relevance, 0, np.full(5, 0.3)) is None
    assert code_block(units[:2], relevance[:2], 0, np.full(2, 0.3)) == 1  # (read as code alone, it would be)


def test_a_lead_saying_which_option_to_pass_is_shown_only_an_example_passing_it() -> None:
    texts = [("sentence", "To allow `lint_name`, run `cargo clippy -- -A clippy::lint_name`."),
             ("code", "cargo clippy -- -W clippy::lint_name"),
             ("sentence", "Run it with `cargo clippy -- -A clippy::lint_name -A clippy::other`:"),
             ("code", "cargo clippy -- -A clippy::lint_name -A clippy::other")]
    units = [Unit(1, kind, text, 0, len(text), block) for block, (kind, text) in enumerate(texts)]
    relevance = np.array([0.7, 0.5, 0.4, 0.3])
    # The block right after the lead warns (`-W`) where the lead allows (`-A`): the example shown is
    # the one passing the lead's option, though it sits further on and scores lower.
    assert code_block(units, relevance, 0, np.array([0.5, 0.4, 0.3, 0.2])) == 3
    # With no block passing it, none is shown: the lead's own code span is the command.
    assert code_block(units[:2], relevance[:2], 0, np.array([0.5, 0.4])) is None
    # Nor is a block of another passage shown instead, however relevant: the lead is the answer.
    elsewhere = Unit(2, "code", "import sys\nif sys.platform == 'win32': ...", 0, 40, 0, language="python")
    assert code_block([*units[:2], elsewhere], np.array([0.7, 0.5, 0.7]), 0, np.array([0.5, 0.4, 0.5])) is None
    # A configuration file may set the same thing under another name: it is no other command.
    config = Unit(1, "code", "[lints.clippy]\nlint_name = \"allow\"", 0, 33, 1)
    assert code_block([units[0], config], relevance[:2], 0, np.array([0.5, 0.4])) == 1
    # A lead that is no instruction, only describing the option, is illustrated by the block after it.
    described = [Unit(1, "sentence", "The `-A` option silences a lint entirely.", 0, 41, 0), units[1]]
    assert code_block(described, relevance[:2], 0, np.array([0.5, 0.4])) == 1


def test_once_the_lead_shows_the_example_of_the_tab_asked_for_no_other_tab_is_shown() -> None:
    intro = "Install the tool with the standalone installer:"
    linux = "$ curl -LsSf https://example.org/install.sh | sh"
    windows = 'PS> powershell -c "irm https://example.org/install.ps1 | iex"'
    text = f"{intro}\n\n{linux}\n\n{windows}"
    at_linux, at_windows = text.index(linux), text.index(windows)
    # The lead sentence holds the Linux tab's one-line block as its display (as the index page's does).
    lead = Unit(1, "sentence", text[:at_linux + len(linux)], 0, at_linux + len(linux), 0,
                inline_code=((at_linux, at_linux + len(linux)),))
    units = [lead,
             Unit(1, "code", linux, at_linux, at_linux + len(linux), 1, "macOS and Linux", language="console"),
             Unit(1, "code", windows, at_windows, at_windows + len(windows), 2, "Windows", language="pwsh-session")]
    relevance, lexical = np.array([0.7, 0.5, 0.4]), np.array([0.5, 0.4, 0.3])
    assert code_block(units, relevance, 0, lexical, command=True, question="How do I install it on a Linux server?") is None
    # Asked for Windows, its block is the one to show.
    assert code_block(units, relevance, 0, lexical, command=True, question="How do I install it on Windows?") == 2


def test_a_lead_handing_over_to_a_block_is_shown_that_block() -> None:
    texts = [("sentence", "To unset a previously specified header, use `Header:`:"),
             ("code", "$ http pie.dev/headers Accept: User-Agent:"),
             ("sentence", "To send a header with an empty value, use `Header;`, with a semicolon:"),
             ("code", "$ http pie.dev/headers 'Header;'")]
    units = [Unit(1, kind, text, 0, len(text), block) for block, (kind, text) in enumerate(texts)]
    relevance = np.array([0.7, 0.4, 0.5, 0.4])
    # The later block holds more of the question's words ("header"), but it shows the later sentence.
    assert code_block(units, relevance, 0, np.array([0.5, 0.2, 0.4, 0.4])) == 1
    # A lead handing over to nothing right after it is shown the block closest to the question.
    told = [Unit(1, "sentence", "Headers can be unset.", 0, 21, 0), *units[1:]]
    assert code_block(told, relevance, 0, np.array([0.5, 0.2, 0.4, 0.4])) == 3
