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
