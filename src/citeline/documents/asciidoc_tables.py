"""AsciiDoc tables (`|===`, `,===`, `:===`) read as rows of cell text.

A table's body is a stream of cells, each opened by the separator (`|` by default) and running to
the next one, across lines. What stands right before a separator is the next cell's specifier
(`2+|` spans two columns, `.3+|` three rows, `3*|` repeats the cell, `a|` reads it as AsciiDoc,
`m|` as code): it shapes the rows and is never text. Rows are cut by the column count: `cols`
when given, else the cells of the first line. The first row is the header when the table says
`%header` (`options="header"`), or when the first line holds its cells and a blank line follows.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from citeline.documents.asciidoc_inline import BlockAttributes
from citeline.text import code_span

# A cell specifier: [n*][colspan][.rowspan+][halign][.valign][style], right before a separator.
_SPEC = re.compile(r"(?:^|(?<=[ \t]))(?:(\d{1,9})\*)?(?:(\d{1,9})?(?:\.(\d{1,9}))?\+)?(?:[<^>])?(?:\.[<^>])?([adehlmsv])?$")
# Spans and repeats beyond any real table are capped: a hostile `999999999*|` must not make a
# billion cells.
_MAX_SPAN = 100
_COLUMN = re.compile(r"^\s*(?:(\d{1,4})\*)?")
# Lines of an AsciiDoc (`a|`) cell that are structure, not words.
_CELL_STRUCTURE = re.compile(r"^\s*(?:[|!,:]={3,}|([-.=*_+/])\1{3,}|--|\[.*\]|//.*)\s*$")
_CELL_LIST_MARK = re.compile(r"^\s*(?:[*-]{1,5}|\.{1,5}|\d+\.|<\d+>)\s+")
_CELL_TITLE = re.compile(r"^\.(?=[^\s.])")
_CELL_ADMONITION = re.compile(r"^(NOTE|TIP|IMPORTANT|WARNING|CAUTION):\s+")


@dataclass
class _Cell:
    spec: re.Match[str] | None
    line: int
    parts: list[str] = field(default_factory=list)

    def _number(self, group: int) -> int:
        value = self.spec.group(group) if self.spec else None
        return min(max(int(value), 1), _MAX_SPAN) if value else 1

    @property
    def colspan(self) -> int:
        return self._number(2)

    @property
    def rowspan(self) -> int:
        return self._number(3)

    @property
    def copies(self) -> int:
        return self._number(1)

    @property
    def style(self) -> str:
        return self.spec.group(4) or "" if self.spec else ""


@dataclass(frozen=True)
class TableRow:
    """One row: its cells' text and the body line (counted from 0) where its first cell starts."""

    cells: tuple[str, ...]
    line: int


@dataclass(frozen=True)
class Table:
    """A table read: the header's cells (empty when it has none) and its other rows."""

    header: tuple[str, ...]
    rows: list[TableRow]


def read_table(lines: list[str], attributes: BlockAttributes, delimiter: str,
               render: Callable[[str], str]) -> Table:
    """The rows of a table whose body is `lines` (the lines between its delimiters)."""
    table_format = attributes.named.get("format", "").lower() or {",": "csv", ":": "dsv"}.get(delimiter[0], "psv")
    if table_format in ("csv", "tsv"):
        rows = _delimited_rows(lines, "\t" if table_format == "tsv" else attributes.named.get("separator") or ",",
                               render)
    elif table_format == "dsv":
        rows = _split_rows(lines, attributes.named.get("separator") or ":", render)
    else:
        separator = attributes.named.get("separator") or ("!" if delimiter[0] == "!" else "|")
        rows = _cell_rows(lines, separator, _column_count(attributes), render)
    if _has_header(lines, attributes) and rows:
        return Table(rows[0].cells, rows[1:])
    return Table((), rows)


def _has_header(lines: list[str], attributes: BlockAttributes) -> bool:
    if "header" in attributes.options:
        return True
    if "noheader" in attributes.options:
        return False
    # The implicit header: the first line holds the first row, and a blank line follows it.
    return len(lines) > 1 and bool(lines[0].strip()) and not lines[1].strip()


def _column_count(attributes: BlockAttributes) -> int | None:
    """The columns `cols` declares: `3`, `"1,2,3"`, `"3*"`, `"2*,^1"`; None without it."""
    cols = attributes.named.get("cols", "").strip()
    if not cols:
        return None
    if cols.isdigit():
        return min(max(1, int(cols[:4])), _MAX_SPAN)
    count = 0
    for part in re.split(r"[,;]", cols):
        repeat = _COLUMN.match(part)
        count += min(int(repeat.group(1)), _MAX_SPAN) if repeat and repeat.group(1) else 1
    return min(max(1, count), _MAX_SPAN)


def _split_unescaped(line: str, separator: str) -> list[str]:
    """The line's pieces between separators; an escaped separator (`\\|`) is text."""
    pieces = re.split(rf"(?<!\\){re.escape(separator)}", line)
    return [piece.replace(f"\\{separator}", separator) for piece in pieces]


def _cells(lines: list[str], separator: str) -> list[_Cell]:
    """Every cell of the body in order, its text lines gathered across line breaks."""
    cells: list[_Cell] = []
    current: _Cell | None = None
    for number, line in enumerate(lines):
        pieces = _split_unescaped(line, separator)
        if len(pieces) == 1:  # no separator: the current cell goes on
            if current is not None:
                current.parts.append(line)
            continue
        spec: re.Match[str] | None = None
        for index, piece in enumerate(pieces):
            text, following = piece, None
            if index < len(pieces) - 1:  # what ends this piece may be the next cell's specifier
                match = _SPEC.search(piece)
                if match and match.group(0):
                    text, following = piece[: match.start()], match
            if index == 0:
                if current is not None and text.strip():
                    current.parts.append(text)
            else:
                current = _Cell(spec, number, [text])
                cells.append(current)
            spec = following
    return cells


def _cell_text(cell: _Cell, render: Callable[[str], str]) -> str:
    text = "\n".join(cell.parts).strip()
    if cell.style == "a":
        text = render(_asciidoc_cell(text))
    elif cell.style == "m":
        text = code_span(" ".join(text.split())) if text else ""
    elif cell.style != "l":
        text = render(text)
    return " ".join(text.split())


def _asciidoc_cell(text: str) -> str:
    """An AsciiDoc cell's blocks flattened to their words: delimiters, attribute lines and
    comments go; list items and a nested table's cells read apart, joined by "; "."""
    flattened = ""
    for line in text.split("\n"):
        if _CELL_STRUCTURE.match(line):
            continue
        item = _CELL_LIST_MARK.match(line)
        line = _CELL_TITLE.sub("", line[item.end() :] if item else line)
        line = _CELL_ADMONITION.sub(lambda match: f"{match.group(1).title()}: ", line)
        if line.lstrip().startswith("!"):
            line = "; ".join(piece.strip() for piece in _split_unescaped(line.strip()[1:], "!"))
        separate = (item is not None or line.startswith(";")) and flattened.strip()
        flattened += f"; {line.strip()}" if separate else f"\n{line}"
    return flattened


def _cell_rows(lines: list[str], separator: str, columns: int | None,
               render: Callable[[str], str]) -> list[TableRow]:
    """Cells laid into rows of `columns` (the first line's cell count when not declared),
    spans taking their columns and rows."""
    cells = _cells(lines, separator)
    if not cells:
        return []
    if columns is None:
        first_line = cells[0].line
        columns = sum(cell.colspan * cell.copies for cell in cells if cell.line == first_line)
    rows: list[TableRow] = []
    row: list[str] = []
    row_line = cells[0].line
    used = 0
    reserved: list[int] = [0]  # columns of this row and the next ones taken by cells spanning rows
    for cell in cells:
        text = _cell_text(cell, render)
        for _ in range(cell.copies):
            if not row:
                row_line = cell.line
            row.append(text)
            used += cell.colspan
            for ahead in range(1, cell.rowspan):
                while len(reserved) <= ahead:
                    reserved.append(0)
                reserved[ahead] += cell.colspan
            if used + reserved[0] >= columns:
                rows.append(TableRow(tuple(row), row_line))
                row, used = [], 0
                reserved = reserved[1:] or [0]
    if row:
        rows.append(TableRow(tuple(row), row_line))
    return rows


def _delimited_rows(lines: list[str], separator: str, render: Callable[[str], str]) -> list[TableRow]:
    """A CSV (or TSV) body: one record a row, quoted fields may hold separators and line breaks."""
    rows: list[TableRow] = []
    reader = csv.reader(lines, delimiter=separator[:1] or ",")
    line = 0
    try:
        for record in reader:
            if any(field.strip() for field in record):
                rows.append(TableRow(tuple(" ".join(render(field).split()) for field in record), line))
            line = reader.line_num
    except csv.Error:  # an unterminated quote: the rows read so far stand
        pass
    return rows


def _split_rows(lines: list[str], separator: str, render: Callable[[str], str]) -> list[TableRow]:
    """A delimiter-separated (`:===`) body: one line a row."""
    return [TableRow(tuple(" ".join(render(piece).split()) for piece in _split_unescaped(line, separator)), number)
            for number, line in enumerate(lines) if line.strip()]
