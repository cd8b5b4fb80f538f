"""What loaders produce and the chunker emits."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Section:
    """A structural region of a loaded document: a heading's body or a PDF page."""

    heading: str | None
    start: int
    end: int
    page: int | None = None


@dataclass
class LoadedDocument:
    """A file turned into text plus the structure the chunker needs.

    `text` is what gets indexed; every section's offsets point into it.
    """

    text: str
    title: str
    sections: list[Section]
    metadata: dict[str, Any] = field(default_factory=dict)
    sanitized_chars: int = 0


@dataclass(frozen=True)
class Chunk:
    """One indexed passage; `text == document_text[start:end]` always holds."""

    chunk_id: str
    document_id: str
    chunk_index: int
    text: str
    section: str | None
    page: int | None
    start: int
    end: int
