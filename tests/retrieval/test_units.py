"""The quotable units of a passage: whole list items and table rows, sentences, code blocks."""

from __future__ import annotations

from citeline.documents.models import ChunkBlock
from citeline.index.store import Passage
from citeline.retrieval.units import passage_units


def _passage(*blocks: tuple[str, str]) -> Passage:
    text, spans, at = "", [], 0
    for kind, body in blocks:
        spans.append(ChunkBlock(kind, at, at + len(body)))
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
