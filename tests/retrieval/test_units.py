"""The quotable units of a passage: whole list items and table rows, sentences, code blocks."""

from __future__ import annotations

from citeline.documents.models import ChunkBlock
from citeline.index.store import Passage
from citeline.retrieval.units import is_bare_link, passage_units


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


def test_a_bare_link_is_told_apart_from_a_sentence_holding_one() -> None:
    assert is_bare_link("https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Strict-Transport-Security")
    assert is_bare_link("- <https://example.org/guide>.")
    assert not is_bare_link("See https://example.org/guide for the full list.")
    assert not is_bare_link("`https://example.org` is the default base URL.")
