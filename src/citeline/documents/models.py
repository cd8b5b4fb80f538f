"""What loaders produce and the chunker emits.

A loader turns a file into *stored text* — what a person reads, without the source format's
markup — and a list of typed blocks that say what each stretch of that text is (a heading, a
paragraph, a list item, a code block, a table row, a note, a tab) and where it came from in the
source. Everything later (chunking, search, quoting, answers) works on the stored text, so a
quote is always an exact substring of a stored passage.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

# Bumped whenever a loader or the chunker changes the stored text or its blocks. It is part of
# every document's content hash, so the next `ingest` re-reads documents stored by an older
# text model instead of keeping text that no longer matches what the loaders produce.
TEXT_MODEL_VERSION = 29

BlockKind = Literal["heading", "paragraph", "list_item", "code", "table_row", "note", "tab", "quote"]
BLOCK_KINDS: tuple[str, ...] = ("heading", "paragraph", "list_item", "code", "table_row", "note", "tab", "quote")
# The kinds of admonition documentation generators draw ("Note", "Warning", ...): a note titled
# only with its kind says what sort of aside it is, not what its contents are about.
ADMONITION_KINDS: tuple[str, ...] = ("note", "warning", "tip", "hint", "important", "caution", "danger", "error",
                                     "attention", "seealso", "todo", "info", "success", "question", "failure", "bug",
                                     "example", "quote", "abstract")


@dataclass(frozen=True)
class Block:
    """One structural unit of stored text: `text[start:end]` of its document.

    `label` names what the block belongs to where that gives its text meaning: an admonition's
    or tab's title for the blocks inside it, a code block's language, a table's header cells
    (joined with " | ") for its rows. `language` is a code block's language apart from its label,
    which a tab's or file's title takes ("Windows", "example.py"). `cells` keeps a table row's cells.
    `source_start` and `source_end` locate the block in the decoded source file (None where a format
    has no usable character offsets). `pages` lists every page a block touches when it crosses a page break.
    `flags` names why a block looks like text aimed at an AI rather than a reader (see
    `documents.suspicious`); such blocks are kept out of answers. `cut` marks a piece of a block too
    long for one chunk (see `chunking`): a piece of code is no example to show.
    """

    kind: BlockKind
    start: int
    end: int
    section: str | None = None
    page: int | None = None
    label: str | None = None
    cells: tuple[str, ...] = ()
    source_start: int | None = None
    source_end: int | None = None
    pages: tuple[int, ...] = ()
    flags: tuple[str, ...] = ()
    language: str | None = None
    cut: bool = False


@dataclass(frozen=True)
class Flag:
    """Text that addresses an AI or hides from a reader, found while loading a document.

    `stored` is False for hidden text the loader dropped (HTML or rst comments, `display:none`):
    it is reported, never indexed."""

    reason: str
    excerpt: str
    source_start: int | None = None
    stored: bool = True


@dataclass(frozen=True)
class Section:
    """A structural region of a loaded document: a heading's body or a PDF page."""

    heading: str | None
    start: int
    end: int
    page: int | None = None


@dataclass
class LoadedDocument:
    """A file turned into stored text plus the structure the chunker needs.

    `text` is what gets indexed; every section's and block's offsets point into it. Loaders
    that have not been converted to blocks leave `blocks` empty and the chunker falls back to
    cutting sections by words.
    """

    text: str
    title: str
    sections: list[Section]
    metadata: dict[str, Any] = field(default_factory=dict)
    sanitized_chars: int = 0
    blocks: list[Block] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)


@dataclass(frozen=True)
class ChunkBlock:
    """A block as a chunk carries it: offsets relative to the chunk's text."""

    kind: str
    start: int
    end: int
    label: str | None = None
    flags: tuple[str, ...] = ()
    language: str | None = None
    cut: bool = False  # a piece of a block too long for one chunk (`Block.cut`)

    def to_json(self) -> list[Any]:
        """Compact form stored beside the chunk: [kind, start, end, label, flags], then a code
        block's language when it has one, and `true` after it (the language or null) for a piece."""
        stored = [self.kind, self.start, self.end, self.label, list(self.flags)]
        if self.cut:
            return [*stored, self.language, True]
        return [*stored, self.language] if self.language else stored

    @classmethod
    def from_json(cls, value: Any) -> ChunkBlock:
        """A block from its stored JSON form (an index written before languages were kept has none)."""
        kind, start, end, label, flags, *rest = value
        return cls(str(kind), int(start), int(end), label, tuple(flags), rest[0] if rest else None,
                   bool(rest[1]) if len(rest) > 1 else False)


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
    blocks: tuple[ChunkBlock, ...] = ()

    @property
    def flagged(self) -> bool:
        """Whether any block of the chunk carries text aimed at an AI."""
        return any(block.flags for block in self.blocks)
