"""Assembling stored text from typed blocks: the one way every structured loader builds a document.

A loader walks its parsed source and calls `heading`, `block` and `hidden` in reading order; the
builder lays the blocks out as plain text (blank lines between blocks, single line breaks between
consecutive items of one list or rows of one table), records each block's exact offsets, keeps
the heading path that names each section, and flags text aimed at an AI.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Any

from citeline.documents import suspicious
from citeline.documents.loaders import sanitize
from citeline.documents.models import Block, BlockKind, Flag, LoadedDocument, Section

_SPACES = re.compile(r"[ \t\u00a0]+")
_BLANK_LINES = re.compile(r"\n\s*\n+")
_EXCERPT_CHARS = 160

# Kinds laid out one per line when they follow each other in one container: a list reads as a
# list and a table as rows, not as paragraphs with gaps.
_TIGHT = frozenset({"list_item", "table_row"})


def clean_inline(text: str) -> str:
    """Prose as stored: invisible characters removed, runs of spaces and tabs collapsed, line
    breaks inside a paragraph turned into spaces."""
    text, _ = sanitize(text)
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    return " ".join(line for line in lines if line)


def row_text(cells: tuple[str, ...], header: tuple[str, ...] = ()) -> str:
    """A table row as a sentence a reader can take out of its table: "name: value" for a
    two-column row, "Header: cell; Header: cell" with a header, cells joined by "; " without one.
    Pipes are never used: they are the source's syntax, not the row's content. A name that ends
    with its own colon (a "Default:" row heading, as Apache httpd's directive tables have) is given
    no second one."""
    cells = tuple(clean_inline(cell) for cell in cells)
    if len(cells) == 2 and all(cells):
        return f"{_named(cells[0])} {cells[1]}"
    if header and len(header) == len(cells):
        return "; ".join(f"{_named(name)} {cell}" if name else cell
                         for name, cell in zip(header, cells, strict=True) if cell)
    return "; ".join(cell for cell in cells if cell)


def _named(name: str) -> str:
    """A row's name followed by its colon: the name's own, if it ends with one."""
    return name if name.endswith((":", "\uff1a")) and name.rstrip(":\uff1a").strip() else f"{name}:"


# The name a list item defines ("`max_age` - Session expiry..." -> "`max_age`"): code, bold or a
# bare word before a dash or colon; or before a type in brackets and a dash, as Sphinx writes a
# typed parameter ("timeout (float) – How many seconds …" -> "timeout"). Before a colon, brackets
# qualify a value of the option the list is under ("`no` (the default): no output is written"),
# whose name stays the label.
_ITEM_NAME = re.compile(r"^\s*(`[^`]{1,80}`|\*\*[^*]{1,80}\*\*|[\w.\-]{1,60})"
                        r"(?:\s*[-–—:]\s|\s*\([^()\n]{1,120}\)\s*[-–—]\s)")


def item_name(text: str) -> str | None:
    """The name a list item's text starts by defining, used as the item's label; None if none."""
    match = _ITEM_NAME.match(text)
    return match.group(1) if match else None


def clean_code(text: str) -> str:
    """Code as stored: invisible characters removed, indentation and line breaks kept, trailing
    blank lines dropped."""
    text, _ = sanitize(text)
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return "\n".join(lines)


class Containers(list[tuple[str | None, BlockKind | None]]):
    """The notes, tabs and quotes around a loader's current position, innermost last, as
    (label, kind) pairs: what labels and types the blocks found inside them."""

    def label(self) -> str | None:
        """The label of the innermost container that has one."""
        return next((label for label, _ in reversed(self) if label), None)

    def kind(self, default: BlockKind) -> BlockKind:
        """The block kind the innermost container gives its paragraphs, else `default`."""
        return next((kind for _, kind in reversed(self) if kind), default)

    def described(self) -> str | None:
        """The name of the thing described around the position (an option, a setting, a list
        item's name): the innermost label, when its container is no note or tab."""
        return next(((label if kind is None else None) for label, kind in reversed(self) if label), None)

    def title(self) -> str | None:
        """The title of the innermost note or tab."""
        return next((label for label, kind in reversed(self) if label and kind in {"note", "tab"}), None)


class DocumentBuilder:
    """Stored text, blocks, sections and flags of one document, built in reading order."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._length = 0
        self.blocks: list[Block] = []
        self.flags: list[Flag] = []
        self._headings: list[tuple[int, int, str]] = []  # (offset, level, title)
        self._stack: list[tuple[int, str]] = []
        self._heading_level = 0  # the level of the last heading the source marked as one
        self._last_group: object = None
        self.first_heading: str | None = None
        self.first_heading_level = 0

    @property
    def section(self) -> str | None:
        """The heading path of the current position ("Install > On Linux")."""
        return " > ".join(title for _, title in self._stack) or None

    def heading(self, level: int, title: str, *, source: tuple[int, int] | None = None,
                page: int | None = None) -> Block | None:
        """A heading: starts a section named by the path of headings above it."""
        title = clean_inline(title)
        if not title:
            return None
        self._heading_level = level
        if self.first_heading is None:
            self.first_heading, self.first_heading_level = title, level
        return self._open_section(level, title, source=source, page=page)

    def subheading(self, title: str, *, source: tuple[int, int] | None = None) -> Block | None:
        """A line the source styles as a heading without marking it as one (a paragraph that is one
        bold phrase): a section one level below the last real heading, so that several such lines in
        a row are siblings rather than each nested in the one before."""
        title = clean_inline(title)
        if not title:
            return None
        return self._open_section(self._heading_level + 1, title, source=source)

    def _open_section(self, level: int, title: str, *, source: tuple[int, int] | None,
                      page: int | None = None) -> Block | None:
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        self._stack.append((level, title))
        block = self.block("heading", title, source=source, page=page)
        if block is not None:
            self._headings.append((block.start, level, title))
        return block

    def block(
        self,
        kind: BlockKind,
        text: str,
        *,
        label: str | None = None,
        cells: tuple[str, ...] = (),
        source: tuple[int, int] | None = None,
        page: int | None = None,
        pages: tuple[int, ...] = (),
        group: object = None,
        preformatted: bool = False,
        language: str | None = None,
        prose: bool = False,
    ) -> Block | None:
        """Append one block. `group` ties consecutive list items or table rows together (one line
        apart instead of a blank line); `preformatted` keeps line breaks and indentation (code).
        A table row with `cells` is laid out by `row_text`, its `label` being the header cells
        joined by " | ". A code block's `language` is also its label when nothing titles it (a
        note's or tab's title says more about the code than the language does). `prose` checks a
        code block for text aimed at an AI as prose is checked: a program's printed output is read,
        not run, so what code may legitimately say ("print", "ignore") does not excuse it."""
        language = language or None
        label = label or language
        if kind == "table_row" and cells:
            text = row_text(cells, tuple(label.split(" | ")) if label else ())
        text = clean_code(text) if preformatted else clean_inline(text)
        if not text.strip():
            return None
        if self._parts:
            tight = kind in _TIGHT and group is not None and group is self._last_group
            self._emit("\n" if tight else "\n\n")
        start = self._length
        self._emit(text)
        reasons = suspicious.reasons(text if not label else f"{label}: {text}", code=kind == "code" and not prose)
        block = Block(
            kind=kind, start=start, end=self._length, section=self.section, page=page, label=label,
            cells=cells, source_start=source[0] if source else None, source_end=source[1] if source else None,
            pages=pages, flags=reasons, language=language,
        )
        if reasons:
            self.flags.append(Flag(", ".join(reasons), _excerpt(text), block.source_start, stored=True))
        self.blocks.append(block)
        self._last_group = group if kind in _TIGHT else None
        return block

    def hidden(self, text: str, why: str, *, source: tuple[int, int] | None = None) -> None:
        """Text hidden from a reader (a comment, `display:none`) that the loader drops: reported
        when it carries instructions or is more than markup noise, never stored."""
        cleaned = clean_inline(text)
        reasons = suspicious.reasons(cleaned)
        if reasons:
            self.flags.append(Flag(f"hidden text ({why}): {', '.join(reasons)}", _excerpt(cleaned),
                                   source[0] if source else None, stored=False))

    def build(self, title: str | None = None, metadata: dict[str, Any] | None = None,
              sanitized_chars: int = 0) -> LoadedDocument:
        """The document: stored text, its sections (from the headings) and blocks."""
        text = "".join(self._parts)
        sections = _sections(text, self._headings, self.blocks)
        return LoadedDocument(
            text=text, title=title or self.first_heading or "", sections=sections,
            metadata=dict(metadata or {}), sanitized_chars=sanitized_chars, blocks=list(self.blocks),
            flags=list(self.flags),
        )

    def _emit(self, piece: str) -> None:
        self._parts.append(piece)
        self._length += len(piece)


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _EXCERPT_CHARS else text[: _EXCERPT_CHARS - 1] + "…"


def _sections(text: str, headings: list[tuple[int, int, str]], blocks: list[Block]) -> list[Section]:
    """One section per heading (named by its path) running to the next heading; text before the
    first heading is an untitled section. Pages come from the blocks when the format has them."""
    sections: list[Section] = []
    starts = [offset for offset, _, _ in headings]
    names = {block.start: block.section for block in blocks if block.kind == "heading"}
    # Blocks are laid out in order, so each section's blocks are found by bisection: a scan of every
    # block per heading took seconds on a page of thousands of headings.
    block_starts = [block.start for block in blocks]

    def first_page(start: int, end: int) -> int | None:
        for block in blocks[bisect_left(block_starts, start):bisect_left(block_starts, end)]:
            if block.page is not None:
                return block.page
        return None

    if not starts or starts[0] > 0:
        end = starts[0] if starts else len(text)
        if text[:end].strip():
            sections.append(Section(None, 0, end, first_page(0, end)))
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(text)
        if start < end:
            sections.append(Section(names.get(start), start, end, first_page(start, end)))
    return sections


__all__ = ["Containers", "DocumentBuilder", "clean_code", "clean_inline", "item_name", "row_text"]
