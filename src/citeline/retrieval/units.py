"""The quotable units of retrieved passages: sentences of prose, whole list items, whole table
rows and whole code blocks.

An answer is assembled from these, so their boundaries decide what a reader sees: a list item
keeps the name that gives its sentences meaning ("`max_age` - ... Defaults to 2 weeks."), a
code example is never torn into single lines, and a table row stays a row. Passages stored with
typed blocks are cut along them; passages without (an index built by a third-party loader) fall
back to splitting the text into sentences and lines.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from citeline.index.store import Passage
from citeline.text import content_terms, segments

# A list item longer than this is quoted sentence by sentence, like prose.
_MAX_ITEM_WORDS = 70
_MIN_UNIT_CHARS = 12
UnitKind = str  # "sentence" | "list_item" | "table_row" | "code"


@dataclass(frozen=True)
class Unit:
    """One quotable piece of the evidence: `text` is `passage.text[start:end]` of passage `number`."""

    number: int  # the passage's [n] in the evidence list
    kind: UnitKind
    text: str
    start: int
    end: int
    block: int  # index of the block within its passage: units of one block share it
    label: str | None = None  # the list item's name, the code block's language, the tab's title
    first_in_block: bool = True

    @property
    def is_code(self) -> bool:
        """Whether the unit is a code block (shown whole, never as a sentence)."""
        return self.kind == "code"


def _sentences(text: str, offset: int) -> list[tuple[str, int, int]]:
    return [(span.text, offset + span.start, offset + span.end) for span in segments(text) if not span.code]


def passage_units(number: int, passage: Passage) -> list[Unit]:
    """The units of one passage, in reading order."""
    text = passage.text
    if not passage.blocks:
        return [Unit(number, "code" if span.code else "sentence", span.text, span.start, span.end, index)
                for index, span in enumerate(segments(text)) if len(span.text) >= _MIN_UNIT_CHARS]
    units: list[Unit] = []
    for index, block in enumerate(passage.blocks):
        if block.flags or block.kind == "heading":
            continue
        body = text[block.start : block.end]
        if not body.strip():
            continue
        if block.kind == "code":
            if content_terms(body):
                units.append(Unit(number, "code", body, block.start, block.end, index, block.label))
            continue
        if _only_code(body) and not (block.kind == "table_row" and len(_CODE_SPAN.findall(body)) >= 2):
            # A bare `name` in a list says nothing a reader can take away on its own; a table row
            # pairing two ("`dev`: `1.0.0.dev0`") says what one becomes, or defaults to.
            continue
        if block.kind in ("list_item", "table_row") and len(body.split()) <= _MAX_ITEM_WORDS:
            units.append(Unit(number, block.kind, body, block.start, block.end, index, block.label))
            continue
        for position, (sentence, start, end) in enumerate(_sentences(body, block.start)):
            if len(sentence) >= _MIN_UNIT_CHARS:
                units.append(Unit(number, "sentence", sentence, start, end, index, block.label, position == 0))
    return units


_CODE_SPAN = re.compile(r"`[^`]*`")


def _only_code(text: str) -> bool:
    """Whether the text is nothing but code spans and punctuation."""
    return not re.search(r"[^\W_]", _CODE_SPAN.sub("", text))


_BARE_LINK = re.compile(r"[\s*•-]*<?(?:https?://|www\.)\S+?>?[\s.]*")


def is_bare_link(text: str) -> bool:
    """Whether a unit is nothing but a link (a "see also" list item): it points at an answer, it is none."""
    return bool(_BARE_LINK.fullmatch(text))


def evidence_units(evidence: Sequence[Passage]) -> list[Unit]:
    """Every unit of the evidence, numbered by passage ([1] is the first passage)."""
    return [unit for number, passage in enumerate(evidence, 1) for unit in passage_units(number, passage)]


_ITEM_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[`\"'(\[*_]*[A-Z0-9`])")


def item_sentences(unit: Unit) -> list[str]:
    """The sentences of a list item or row (its text split at sentence ends)."""
    return [piece for piece in _ITEM_SENTENCE.split(unit.text) if piece.strip()]
