"""Finding a loaded document's blocks by their stored text, for the loader tests."""

from __future__ import annotations

from citeline.documents.models import Block, LoadedDocument


def text_of(doc: LoadedDocument, block: Block) -> str:
    """The stored text of one block."""
    return doc.text[block.start : block.end]


def find(doc: LoadedDocument, prefix: str) -> Block:
    """The one block whose stored text starts with `prefix`."""
    found = [block for block in doc.blocks if text_of(doc, block).startswith(prefix)]
    assert len(found) == 1, (prefix, [text_of(doc, b) for b in found])
    return found[0]


def line_of(source: str, offset: int | None) -> str:
    """The source line an offset falls on."""
    assert offset is not None
    start = source.rfind("\n", 0, offset) + 1
    end = source.find("\n", offset)
    return source[start : end if end >= 0 else len(source)]


def assert_blocks_start_on(doc: LoadedDocument, source: str, lines: dict[str, str]) -> None:
    """Each block found by its text's prefix has a source span inside `source` starting on the given line."""
    for prefix, line in lines.items():
        block = find(doc, prefix)
        assert line_of(source, block.source_start) == line, prefix
        assert block.source_start is not None and block.source_end is not None
        assert block.source_start <= block.source_end <= len(source)
