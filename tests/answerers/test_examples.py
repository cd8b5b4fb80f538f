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
