"""Glyphs to words, lines and ruled tables, from where each glyph sits on the page (a page set
in two columns is read a column at a time; a table is ruled by lines a reader sees).

A PDF has no words, spaces or lines: it paints glyphs at positions. Many producers never paint
a space (TeX separates words by moving the pen), so words are found from the gaps between
glyphs, relative to the font size, instead of from space characters or a font's declared space
width (which is what runs words together in extractors that trust it). pdfminer.six (MIT)
gives every glyph with its font and box; pdfplumber's table finder (MIT) turns the page's ruling
lines into table cells.
"""

from __future__ import annotations

import functools
import itertools
import re
import statistics
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from citeline.documents.loaders import sanitize

# A gap wider than this fraction of the font size separates two words. Inter-word spaces are
# at least ~0.2 em even in tightly justified text; kerning and tracking inside a word stay well
# under 0.1 em.
WORD_GAP_EM = 0.13
# Glyphs whose baselines differ by less than this fraction of the font size share a line
# (superscripts and mixed sizes on one line included).
_LINE_TOLERANCE_EM = 0.45
_SUPERSCRIPT_RISE_EM = 0.6  # how far above its line's baseline a small raised mark may sit
_MONO = re.compile(r"courier|mono|consol|menlo|monaco|typewriter|code|fixed|inconsolata|nimbusmon|cursor|cousine"
                   r"|(?:^|\+)(?:cm|sf|lm|ec|tc|tx)tt",
                   re.IGNORECASE)
_BOLD = re.compile(r"bold|black|heavy|demi|semibd|(?:^|\+)(?:cm|sf|lm)bx|-bx", re.IGNORECASE)
_UNMAPPED = re.compile(r"\(cid:\d+\)")
# Typographic ligatures a reader reads as letters ("ﬁ" is "fi"): stored as the letters, so
# searching for "file" finds them.
_LIGATURES = {chr(code): unicodedata.normalize("NFKC", chr(code)) for code in range(0xFB00, 0xFB07)}
# TeX's 7-bit encodings have no "ö" or "é": TeX sets the letter and, over it, an accent glyph of
# its own, which extracts as a spacing accent beside the letter ("Bro¨ker", "P´eter"). An accent
# centred on a letter is that letter's accent, stored composed.
_ACCENTS = {"¨": "\u0308", "´": "\u0301", "`": "\u0300", "ˆ": "\u0302", "˜": "\u0303", "¯": "\u0304",
            "˘": "\u0306", "˙": "\u0307", "˚": "\u030a", "ˇ": "\u030c", "˝": "\u030b", "¸": "\u0327"}
# TeX's typewriter fonts set a verbatim ' and ` with the glyphs named quoteright and quoteleft,
# which extract as ’ and ‘: code copied from the page must keep the ASCII its author typed, or
# the command it shows does not run.
_TEX_TYPEWRITER = re.compile(r"(?:^|\+)(?:(?:cm|sf|lm|ec|tc|tx)tt|lmmono)", re.IGNORECASE)
_TYPEWRITER_QUOTES = {"’": "'", "‘": "`"}


@dataclass
class Word:
    """A run of glyphs with no word gap between them, all on one line."""

    text: str
    x0: float
    x1: float
    size: float
    mono: bool
    bold: bool


@dataclass
class Line:
    """One visual line of a page: its words left to right and the box around them."""

    page: int
    words: list[Word]
    top: float
    bottom: float
    x0: float
    x1: float
    size: float
    mono: bool
    bold: bool
    text: str
    marked: bool = False  # it began with a raised footnote mark ("¹ See …"), left out of its text
    band: float | None = None  # in a band of two columns: the band's top (see `_Band`)
    column: int = 0  # 1 or 2 in a band's left or right column; 0 across the page

    @property
    def char_width(self) -> float:
        """Average glyph advance: the width of one column in monospaced text."""
        letters = sum(len(word.text) for word in self.words)
        return sum(word.x1 - word.x0 for word in self.words) / max(1, letters)


@dataclass
class TableGrid:
    """A ruled table: its rows of cell texts and where it sits."""

    page: int
    top: float
    bottom: float
    rows: list[list[str]]
    band: float | None = None  # as a line's
    column: int = 0


@dataclass
class PageLayout:
    """The lines and tables of one page, top to bottom, and the page's size."""

    number: int
    width: float
    height: float
    lines: list[Line] = field(default_factory=list)
    tables: list[TableGrid] = field(default_factory=list)
    removed_chars: int = 0
    hidden_text: str = ""  # glyphs a reader cannot see (see `_visible`), in reading order


def read_page(page: Any, number: int) -> PageLayout:
    """Lines and ruled tables of one page laid out by pdfminer (an `LTPage`)."""
    x0_page, _, x1_page, top_page = page.bbox
    layout = PageLayout(number, float(x1_page - x0_page), float(page.height))
    marks = _Marks(float(top_page), float(x0_page), layout.width, layout.height)
    _collect(page, marks)
    chars, hidden = _visible(marks.chars, marks.backdrops, layout)
    layout.hidden_text = _spelled(hidden)
    _mark_fixed_pitch(chars)
    boxes = _table_boxes(marks.edges, layout) if marks.edges else []
    in_tables: list[list[dict[str, Any]]] = [[] for _ in boxes]
    body: list[dict[str, Any]] = []
    for char in chars:
        middle_x = (char["x0"] + char["x1"]) / 2
        middle_y = (char["top"] + char["bottom"]) / 2
        for index, (x0, top, x1, bottom, _) in enumerate(boxes):
            if x0 <= middle_x <= x1 and top <= middle_y <= bottom:
                in_tables[index].append(char)
                break
        else:
            body.append(char)
    removed = 0
    rows = list(_cluster_lines(body))
    bands = _bands(rows, layout.width)
    for chars_of_row in rows:
        for chars_of_line, band, column in _columns_of(chars_of_row, bands):
            line, count = _make_line(chars_of_line, number)
            removed += count
            if line is not None:
                line.band, line.column = band, column
                layout.lines.append(line)
    for (x0, top, x1, bottom, cells), table_chars in zip(boxes, in_tables, strict=True):
        grid = _fill_table(cells, table_chars, number, top, bottom)
        if grid is not None:
            grid.band, grid.column = _place(top, (x0 + x1) / 2, bands)
            layout.tables.append(grid)
        else:  # not a real table after all: its text flows with the page
            for chars_of_line in _cluster_lines(table_chars):
                line, count = _make_line(chars_of_line, number)
                if line is not None:
                    line.band, line.column = _place(line.top, (line.x0 + line.x1) / 2, bands)
                    layout.lines.append(line)
    layout.lines.sort(key=reading_key)
    layout.removed_chars = removed
    return layout


def reading_key(element: Line | TableGrid) -> tuple[float, int, float]:
    """Where a line or a table comes in its page's reading order: top to bottom, except that a
    band of two columns is read a column at a time, left before right."""
    return (element.top if element.band is None else element.band, element.column, element.top)


# -- columns ---------------------------------------------------------------------------------
#
# Lines are found by baseline across the whole page, so on a page set in two columns the left
# and the right column's words on one baseline would join into one line. A band of rows that
# share a vertical gutter (no glyph in it, many rows starting at its right edge, the text on its
# left running up to it) is split there and read a column at a time.

# The gap between two columns is at least this wide (LaTeX's default 10 pt at 10 pt type is 1 em).
# A loosely justified line may space its words as widely: a gutter is also shared by many rows.
_MIN_GUTTER_EM = 0.6
# The most shared edges tried on a page (a dense table has rows starting at many x).
_MAX_EDGES = 8
# A gutter lies in the middle of the page, not in a margin nor at an indent.
_GUTTER_ZONE = (0.2, 0.8)
# A column has at least this many rows, and is at least this share of the page wide: a column
# of labels beside their descriptions is not, nor a short table without rules.
_MIN_COLUMN_ROWS = 8
_MIN_COLUMN_WIDTH = 0.18
_SAME_EDGE_PT = 1.5  # a column's rows start within this distance of its left edge
# A band ends at a gap this many ems from one row's top to the next's (three lines of text: a
# page number or a footer set apart below).
_BAND_BREAK_EM = 3.6
# Text in a column fills it: at least this share of its rows run from its left margin to its
# right edge, give or take this share of its width (ragged or justified text does; the indent of
# a paragraph's first line and the end of its last are exceptions).
_FULL_ROWS_SHARE = 0.5
_ROW_SLACK = 0.25
# Columns of a page are about as wide as each other: a narrower side is a table's first column
# (or a sidebar, read beside the text as before).
_SIMILAR_WIDTHS = 0.6


@dataclass(frozen=True)
class _Band:
    """Rows (from the one at `top` to the one at `bottom`) set in two columns, the right one
    starting at `split` (or a hair right of it)."""

    top: float
    bottom: float
    split: float


def _bands(rows: list[list[dict[str, Any]]], width: float) -> list[_Band]:
    """The bands of two columns among a page's rows (glyphs by baseline across the page, top to
    bottom, each left to right)."""
    bands: list[_Band] = []
    taken: set[int] = set()
    for edge in _column_edges(rows, width):
        for start, end in _clear_runs(rows, edge, taken):
            found = _band(rows, start, end, edge, width)
            if found is not None:
                band, members = found
                bands.append(band)
                taken.update(members)
    return bands


def _column_edges(rows: list[list[dict[str, Any]]], width: float) -> list[float]:
    """Where a right column may start: an x in the middle of the page at which many rows start
    their text or go on after a gap as wide as a gutter; the most shared first."""
    starts: list[tuple[float, int]] = []
    for index, row in enumerate(rows):
        reach = None
        for char in row:
            size = max(float(char["size"]), 1.0)
            after_gap = reach is None or char["x0"] - reach >= _MIN_GUTTER_EM * size
            if after_gap and _GUTTER_ZONE[0] * width < char["x0"] < _GUTTER_ZONE[1] * width:
                starts.append((char["x0"], index))
            reach = char["x1"] if reach is None else max(reach, char["x1"])
    starts.sort()
    groups: list[list[tuple[float, int]]] = []
    for start in starts:
        if groups and start[0] - groups[-1][0][0] <= _SAME_EDGE_PT:
            groups[-1].append(start)
        else:
            groups.append([start])
    counted = [(len({index for _, index in group}), group[0][0]) for group in groups]
    ranked = [edge for count, edge in sorted(counted, key=lambda item: -item[0]) if count >= _MIN_COLUMN_ROWS]
    return ranked[:_MAX_EDGES]


def _clear_runs(rows: list[list[dict[str, Any]]], edge: float, taken: set[int]) -> Iterator[tuple[int, int]]:
    """Runs of consecutive rows (first and last index) that leave a gutter clear left of `edge`,
    none in a band already, with no wide vertical gap between them."""
    start: int | None = None
    for index, row in enumerate(rows):
        # A line of code too long for the left column runs on over the gutter: it crosses no gap.
        clear = index not in taken and not any(
            char["x0"] < edge - 0.5 and char["x1"] > edge - _MIN_GUTTER_EM * float(char["size"])
            and not _is_mono(char) for char in row)
        if clear and start is not None and index > start:
            above = rows[index - 1]
            size = max(float(char["size"]) for char in above)
            if _row_top(row) - _row_top(above) > _BAND_BREAK_EM * size:
                yield start, index - 1
                start = None
        if clear and start is None:
            start = index
        elif not clear and start is not None:
            yield start, index - 1
            start = None
    if start is not None:
        yield start, len(rows) - 1


def _band(rows: list[list[dict[str, Any]]], start: int, end: int, edge: float,
          width: float) -> tuple[_Band, list[int]] | None:
    """The band of two columns parted left of `edge` in rows `start`..`end`, and its rows, if
    both sides are columns of text."""
    indexes = list(range(start, end + 1))
    sides = _sides_of(rows, indexes, edge)
    left_width, right_width = _side_widths(sides, edge, width)
    lefts = [left for left, _ in sides.values() if left]
    rights = [right for _, right in sides.values() if right]
    starting = sum(1 for right in rights if right[0]["x0"] - edge <= _SAME_EDGE_PT)
    mono = [_is_mono(char) for side in lefts + rights for char in side]
    narrower, wider = sorted((left_width, right_width))
    if (len(lefts) < _MIN_COLUMN_ROWS or starting < _MIN_COLUMN_ROWS
            or narrower < max(_MIN_COLUMN_WIDTH * width, _SIMILAR_WIDTHS * wider)
            or sum(mono) > 0.8 * len(mono)  # statements and their aligned comments: code, not columns
            or not _is_column(lefts, left_width)):
        return None
    return _Band(_row_top(rows[start]), _row_top(rows[end]), edge - _SAME_EDGE_PT), indexes


def _sides_of(rows: list[list[dict[str, Any]]], indexes: list[int],
              edge: float) -> dict[int, tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
    """Each row's glyphs left of a gutter and right of it (a code line running on over the gutter
    is on neither side)."""
    return {index: ([char for char in rows[index] if char["x1"] <= edge - 0.5],
                    [char for char in rows[index] if char["x0"] >= edge - 0.5]) for index in indexes}


def _side_widths(sides: dict[int, tuple[list[dict[str, Any]], list[dict[str, Any]]]], edge: float,
                 width: float) -> tuple[float, float]:
    """How wide the text left and right of a gutter is (a code line running off the page counts
    to the page's edge)."""
    lefts = [char for left, _ in sides.values() for char in left]
    rights = [char for _, right in sides.values() for char in right]
    if not lefts or not rights:
        return 0.0, 0.0
    return (max(char["x1"] for char in lefts) - min(char["x0"] for char in lefts),
            min(width, max(char["x1"] for char in rights)) - edge)


def _is_column(lefts: list[list[dict[str, Any]]], width: float) -> bool:
    """Whether the text left of a gutter is a column of running text: most of its rows fill it,
    from its left margin up to the gutter (a paragraph's first line may be indented, its last
    one short). A column of names in a table without rules does not: it is as wide as its
    longest name."""
    margin = min(char["x0"] for left in lefts for char in left)
    reach = max(char["x1"] for left in lefts for char in left)
    full = sum(1 for left in lefts if left[0]["x0"] - margin <= width * _ROW_SLACK
               and reach - max(char["x1"] for char in left) <= width * _ROW_SLACK)
    return full >= _FULL_ROWS_SHARE * len(lefts)


def _is_mono(char: dict[str, Any]) -> bool:
    return bool(char.get("fixed")) or _font_kind(str(char["fontname"]))[0]


def _row_top(row: list[dict[str, Any]]) -> float:
    return min(float(char["top"]) for char in row)


def _place(top: float, middle: float, bands: list[_Band]) -> tuple[float | None, int]:
    """The band (its top) and column (1 left, 2 right) a box at `top` centred on `middle` falls in;
    (None, 0) outside every band."""
    for band in bands:
        if band.top <= top <= band.bottom:
            return band.top, 1 if middle < band.split else 2
    return None, 0


def _columns_of(row: list[dict[str, Any]],
                bands: list[_Band]) -> Iterator[tuple[list[dict[str, Any]], float | None, int]]:
    """A row's glyphs as the line(s) they make: split at the gutter when the row lies in a band,
    each run of glyphs (a gutter's width apart from the next) in the column it starts in."""
    band = next((band for band in bands if band.top <= _row_top(row) <= band.bottom), None)
    if band is None:
        yield row, None, 0
        return
    left: list[dict[str, Any]] = []
    right: list[dict[str, Any]] = []
    side, reach = left, None
    for char in row:
        if reach is None or char["x0"] - reach >= _MIN_GUTTER_EM * float(char["size"]):
            side = left if char["x0"] < band.split else right
        side.append(char)
        reach = char["x1"] if reach is None else max(reach, char["x1"])
    for chars, column in ((left, 1), (right, 2)):
        if chars:
            yield chars, band.top, column


Box = tuple[float, float, float, float]  # x0, top, x1, bottom in top-down page coordinates


@dataclass(frozen=True)
class _Paint:
    """A filled shape as painted: its box and its fill colour."""

    box: Box
    colour: Any


@dataclass
class _Marks:
    """What a page paints, gathered from its layout tree: glyphs, the lines a reader sees (as
    ruling edges for the table finder), the boxes and pictures white text may show on, and every
    filled shape in painting order (what each later shape is painted on)."""

    top: float  # the page's upper edge and left edge in pdfminer's bottom-up coordinates
    left: float
    width: float
    height: float
    chars: list[dict[str, Any]] = field(default_factory=list)
    edges: list[dict[str, Any]] = field(default_factory=list)
    backdrops: list[Box] = field(default_factory=list)
    paints: list[_Paint] = field(default_factory=list)


def _collect(item: Any, marks: _Marks) -> None:
    """Upright glyphs, ruling edges, backdrops and fills of a layout tree, in top-down page
    coordinates (forms drawn through XObjects included)."""
    from pdfminer.layout import LTChar, LTContainer, LTCurve, LTImage, LTRect

    for child in item:
        if isinstance(child, LTChar):
            if child.upright:
                marks.chars.append({
                    "text": child.get_text(), "x0": child.x0 - marks.left, "x1": child.x1 - marks.left,
                    "top": marks.top - child.y1, "bottom": marks.top - child.y0, "size": child.size,
                    "fontname": child.fontname, "white": _white(child.graphicstate.ncolor),
                })
        elif isinstance(child, LTCurve):  # rectangles and straight lines are curves too
            box = _box(child, marks)
            if child.fill and not _white(child.non_stroking_color):  # a dark box, a rounded banner
                marks.backdrops.append(box)
            if child.fill and min(box[2] - box[0], box[3] - box[1]) >= _MIN_COVER:
                marks.edges = _uncovered(marks.edges, box)
            if _shows_lines(child, _ground(box, marks)):
                marks.edges += _sides(box) if isinstance(child, LTRect) else _path_edges(child, marks)
            if child.fill:
                marks.paints.append(_Paint(box, child.non_stroking_color))
        elif isinstance(child, LTImage):  # white text on a picture may well show
            marks.backdrops.append(_box(child, marks))
        elif isinstance(child, LTContainer):
            _collect(child, marks)


def _box(item: Any, marks: _Marks) -> Box:
    return (item.x0 - marks.left, marks.top - item.y1, item.x1 - marks.left, marks.top - item.y0)


def _sides(box: Box) -> list[dict[str, Any]]:
    x0, top, x1, bottom = box
    return [_edge(x0, x1, top, top), _edge(x0, x1, bottom, bottom),
            _edge(x0, x0, top, bottom), _edge(x1, x1, top, bottom)]


def _path_edges(curve: Any, marks: _Marks) -> list[dict[str, Any]]:
    """The horizontal and vertical segments of a path (the straight sides of a rounded box)."""
    points = [(x - marks.left, marks.top - y) for x, y in curve.pts]
    return [_edge(min(ax, bx), max(ax, bx), min(ay, by), max(ay, by))
            for (ax, ay), (bx, by) in itertools.pairwise(points) if ax == bx or ay == by]


# A fill hides the lines painted before it beneath it (by more than the margin, in points) when
# it is at least this many points wide and high: smaller fills (a chart's markers, thousands on
# a page) would make the search slow and hide no table.
_MIN_COVER = 12.0
_COVER_MARGIN = 1.0
# Where nothing is painted a page is white paper.
_PAPER = (1.0, 1.0, 1.0)
_HAIR = 0.5  # points: how thick a line of no width counts when finding what it is painted on
# How far back in painting order a shape's ground is looked for: a page of a chart can paint
# thousands of shapes, and a shape's ground is almost always painted shortly before it (beyond,
# the paper is assumed).
_GROUND_LOOKBACK = 400
# Colours closer than this (the largest difference of their RGB components, 0-1) look the same:
# a box in one on the other draws no line. Light grey code boxes (0.93) on white still show.
_SAME_COLOUR = 0.03


def _uncovered(edges: list[dict[str, Any]], box: Box) -> list[dict[str, Any]]:
    """`edges` without their parts inside a box filled over them: a browser paints a page's sticky
    header over whatever the page break put beneath it, and the sides of a code box hidden
    there would join the header's frame into a table. An edge along the box's own border (a
    cell painted up to the middle of its rule) still shows."""
    x0, top = box[0] + _COVER_MARGIN, box[1] + _COVER_MARGIN
    x1, bottom = box[2] - _COVER_MARGIN, box[3] - _COVER_MARGIN
    kept: list[dict[str, Any]] = []
    for edge in edges:
        horizontal = edge["orientation"] == "h"
        if horizontal and top < edge["top"] < bottom and edge["x0"] < x1 and edge["x1"] > x0:
            y = edge["top"]
            kept += [_edge(start, end, y, y)
                     for start, end in ((edge["x0"], x0), (x1, edge["x1"])) if end > start]
        elif not horizontal and x0 < edge["x0"] < x1 and edge["top"] < bottom and edge["bottom"] > top:
            x = edge["x0"]
            kept += [_edge(x, x, start, end)
                     for start, end in ((edge["top"], top), (bottom, edge["bottom"])) if end > start]
        else:
            kept.append(edge)
    return kept


def _ground(box: Box, marks: _Marks) -> Any:
    """The colour a shape is painted on: that of the latest fill under most of it (of its part on
    the page), else the paper. Most, not all: a browser paints the background of each line of an
    inline code span as a box far wider than the page, clipped to the code block it sits in."""
    x0, x1 = _thickened(max(box[0], 0.0), min(box[2], marks.width))
    top, bottom = _thickened(max(box[1], 0.0), min(box[3], marks.height))
    if x1 <= x0 or bottom <= top:
        return _PAPER  # off the page
    half = (x1 - x0) * (bottom - top) / 2
    for paint in itertools.islice(reversed(marks.paints), _GROUND_LOOKBACK):
        p_x0, p_top, p_x1, p_bottom = paint.box
        covered_x, covered_y = min(x1, p_x1) - max(x0, p_x0), min(bottom, p_bottom) - max(top, p_top)
        if covered_x > 0 and covered_y > 0 and covered_x * covered_y > half:
            return paint.colour
    return _PAPER


def _thickened(start: float, end: float) -> tuple[float, float]:
    """A span at least a hair wide (a line has no area), around its middle; a span ending before
    it starts (off the page) is left as it is."""
    if end < start or end - start >= _HAIR:
        return start, end
    middle = (start + end) / 2
    return middle - _HAIR / 2, middle + _HAIR / 2


def _shows_lines(shape: Any, ground: Any) -> bool:
    """Whether a path's sides are lines a reader sees: it is stroked, or filled, in a colour that
    differs from what it is painted on (a thin dark box is a rule, a grey header cell borders
    the white ones). A browser fills every block box of a page white on the white page: taken as
    ruling lines, they made a printed web page one page-sized table."""
    return bool((shape.stroke and not _same_colour(shape.stroking_color, ground))
                or (shape.fill and not _same_colour(shape.non_stroking_color, ground)))


def _same_colour(colour: Any, other: Any) -> bool:
    """Whether two colours (gray, RGB or CMYK components, 0-1) look alike; a pattern or an unknown
    colour space is taken to differ from anything."""
    first, second = _rgb(colour), _rgb(other)
    if first is None or second is None:
        return False
    return max(abs(a - b) for a, b in zip(first, second, strict=True)) < _SAME_COLOUR


def _rgb(colour: Any) -> tuple[float, float, float] | None:
    """A colour as RGB components 0-1, or None when it is not a plain gray, RGB or CMYK colour."""
    components = tuple(colour) if isinstance(colour, (tuple, list)) else (colour,)
    if not all(isinstance(c, (int, float)) for c in components):
        return None
    if len(components) == 1:
        return (float(components[0]),) * 3
    if len(components) == 3:
        return (float(components[0]), float(components[1]), float(components[2]))
    if len(components) == 4:
        cyan, magenta, yellow, black = (float(c) for c in components)
        return (1 - min(1.0, cyan + black), 1 - min(1.0, magenta + black), 1 - min(1.0, yellow + black))
    return None


def _white(colour: Any) -> bool:
    """Whether a fill colour (gray, RGB or CMYK components, 0-1) is white: text drawn in it on a
    white page is invisible."""
    components = colour if isinstance(colour, (tuple, list)) else (colour,)
    if not components or not all(isinstance(c, (int, float)) for c in components):
        return False  # a pattern or an unknown colour space: assume it shows
    if len(components) == 4:  # CMYK: no ink at all
        return all(c <= 0.02 for c in components)
    return all(c >= 0.98 for c in components)


def _visible(chars: list[dict[str, Any]], backdrops: list[tuple[float, float, float, float]],
             layout: PageLayout) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(glyphs a reader sees, glyphs they cannot): text drawn white outside any dark box, smaller
    than a point, or off the page is a classic place to plant instructions for a program reading the
    file, and is never stored (white text on a dark table header or code box is kept)."""

    def on_page(char: dict[str, Any]) -> bool:
        middle_x, middle_y = (char["x0"] + char["x1"]) / 2, (char["top"] + char["bottom"]) / 2
        return bool(0 <= middle_x <= layout.width and 0 <= middle_y <= layout.height)

    # A line that starts on the page and runs past its edge (a long URL in a code block) is a
    # typesetting accident the reader sees the start of: only a line wholly off the page is hidden.
    lines_on_page = {round(char["top"]) for char in chars if on_page(char)}
    seen: list[dict[str, Any]] = []
    unseen: list[dict[str, Any]] = []
    for char in chars:
        off_page = not on_page(char) and round(char["top"]) not in lines_on_page
        invisible = off_page or char["size"] < 1 or (char["white"] and not _on_backdrop(char, backdrops))
        (unseen if invisible else seen).append(char)
    return seen, unseen


def _on_backdrop(char: dict[str, Any], backdrops: list[tuple[float, float, float, float]]) -> bool:
    """Whether a glyph's middle lies on a filled box or a picture."""
    middle_x, middle_y = (char["x0"] + char["x1"]) / 2, (char["top"] + char["bottom"]) / 2
    return any(x0 <= middle_x <= x1 and top <= middle_y <= bottom for x0, top, x1, bottom in backdrops)


def _spelled(chars: list[dict[str, Any]]) -> str:
    """Glyphs as text in reading order, a space where a gap or a new line parts two of them."""
    words: list[str] = []
    previous: dict[str, Any] | None = None
    for char in sorted(chars, key=lambda c: (round(c["top"]), c["x0"])):
        apart = previous is None or round(previous["top"]) != round(char["top"]) or (
            char["x0"] - previous["x1"] > 0.2 * max(char["size"], 1))
        words.append((" " if apart and words else "") + char["text"])
        previous = char
    return "".join(words)


_NARROW, _WIDE = frozenset("il.,;:'|!"), frozenset("mwMW@")
_MARKS = frozenset("0123456789*†‡§")


def _mark_fixed_pitch(chars: list[dict[str, Any]]) -> None:
    """Mark glyphs of fonts whose narrow letters ("i", ".") are as wide as their wide ones
    ("m", "W"): a monospaced font whatever its name says."""
    widths: dict[str, tuple[list[float], list[float]]] = {}
    for char in chars:
        text = char["text"]
        if text in _NARROW or text in _WIDE:
            narrow, wide = widths.setdefault(char["fontname"], ([], []))
            (narrow if text in _NARROW else wide).append(char["x1"] - char["x0"])
    fixed = {font for font, (narrow, wide) in widths.items()
             if narrow and wide and statistics.fmean(wide) > 0
             and statistics.fmean(narrow) / statistics.fmean(wide) > 0.9}
    if fixed:
        for char in chars:
            if char["fontname"] in fixed:
                char["fixed"] = True


def _edge(x0: float, x1: float, top: float, bottom: float) -> dict[str, Any]:
    return {"object_type": "line", "x0": x0, "x1": x1, "top": top, "bottom": bottom, "doctop": top,
            "width": x1 - x0, "height": bottom - top, "orientation": "h" if top == bottom else "v"}


@dataclass
class _Rules:
    """What pdfplumber's table finder reads of a page when tables are found from lines only."""

    edges: list[dict[str, Any]]
    bbox: tuple[float, float, float, float]


Cell = tuple[float, float, float, float] | None


def _table_boxes(edges: list[dict[str, Any]], page: PageLayout) -> list[tuple[float, float, float, float, list[list[Cell]]]]:
    """Ruled grids of at least two rows and two columns. A single framed box is a code block
    or a note drawn with a border, not a table."""
    from pdfplumber.table import TableFinder

    boxes = []
    rules = _Rules(edges, (0.0, 0.0, page.width, page.height))
    settings = {"vertical_strategy": "lines", "horizontal_strategy": "lines"}
    for table in TableFinder(rules, settings).tables:  # type: ignore[arg-type]
        rows: list[list[Cell]] = [list(row.cells) for row in table.rows]
        columns = max((sum(1 for cell in row if cell is not None) for row in rows), default=0)
        if len(rows) < 2 or columns < 2:
            continue
        x0, top, x1, bottom = table.bbox
        boxes.append((float(x0), float(top), float(x1), float(bottom), rows))
    return boxes


def _fill_table(rows: list[list[Cell]], chars: list[dict[str, Any]], page: int,
                top: float, bottom: float) -> TableGrid | None:
    texts: list[list[str]] = []
    for row in rows:
        cells: list[str] = []
        for cell in row:
            if cell is None:
                continue  # a cell spanning several columns appears once
            x0, c_top, x1, c_bottom = cell
            inside = [char for char in chars
                      if x0 <= (char["x0"] + char["x1"]) / 2 <= x1
                      and c_top <= (char["top"] + char["bottom"]) / 2 <= c_bottom]
            lines = [_make_line(group, page)[0] for group in _cluster_lines(inside)]
            cells.append(" ".join(line.text for line in lines if line is not None))
        if any(cells):
            texts.append(cells)
    if len(texts) < 2:
        return None
    return TableGrid(page, top, bottom, texts)


def _cluster_lines(chars: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    """Glyphs grouped by baseline, top to bottom; each group left to right."""
    ordered = sorted(chars, key=lambda char: char["bottom"])
    group: list[dict[str, Any]] = []
    baseline = reference = 0.0
    for char in ordered:
        size = float(char["size"]) or 1.0
        # Glyphs so far all small (raised footnote marks) wait for their line a little further down.
        tolerance = _SUPERSCRIPT_RISE_EM * size if reference <= 0.8 * size else _LINE_TOLERANCE_EM * max(size, reference)
        if group and char["bottom"] - baseline > tolerance:
            yield sorted(group, key=lambda item: item["x0"])
            group = []
        # The line's baseline is its body text's: a raised footnote mark sorts first, and measured
        # from it, a word on the true baseline set a hair lower (a code font) would start a line of its own.
        if not group or size > reference:
            baseline, reference = char["bottom"], size
        group.append(char)
    if group:
        yield sorted(group, key=lambda item: item["x0"])


# A gap between words wider than this (in ems) parts two texts set side by side on one baseline.
_INLINE_GAP_EM = 2.5


def _make_line(chars: list[dict[str, Any]], page: int) -> tuple[Line | None, int]:
    """The words of one line's glyphs (left to right), split at spaces and at word gaps."""
    words: list[Word] = []
    current: list[dict[str, Any]] = []
    removed = 0
    previous: dict[str, Any] | None = None
    reach = 0.0
    # A footnote at the page's foot starts with its mark ("¹ for example, …"): the text is the footnote.
    chars = _compose_accents(chars)
    body = max(chars, key=lambda char: float(char["size"]))
    start = 0
    while start + 1 < len(chars) and _raised_mark(chars[start], body):
        start += 1
    for char in chars[start:]:
        text = char["text"]
        if previous is not None and text == previous["text"] and abs(char["x0"] - previous["x0"]) < 0.5 \
                and abs(char["top"] - previous["top"]) < 0.5:
            continue  # painted twice (fake bold, shadow): read once
        if text.isspace():
            _flush(current, words)
            current = []
            previous = char
            reach = 0.0
            continue
        if current and _footnote_mark(char, current[-1]):
            # "a suitable¹ tar": a reader reads no "suitable1" (the footnote itself stays); what
            # follows the mark is measured from its end ("required², and" is "required, and").
            reach = max(reach, float(char["x1"]))
            continue
        if current:
            size = max(float(current[-1]["size"]), float(char["size"]), 1.0)
            gap = char["x0"] - max(current[-1]["x1"], reach)
            if gap > WORD_GAP_EM * size or gap < -0.5 * size:
                _flush(current, words)
                current = []
        current.append(char)
        previous = char
    _flush(current, words)
    cleaned: list[Word] = []
    for word in words:
        text = word.text
        if not (text.isascii() and text.isprintable() and "(cid:" not in text):
            # A glyph without a Unicode mapping ("(cid:27)", often a control code) is as
            # unreadable as an invisible character: removed and counted with them.
            text, unmapped = _UNMAPPED.subn("", text)
            text, count = sanitize(text)
            removed += count + unmapped
            text = "".join(_LIGATURES.get(letter, letter) for letter in text).strip()
        if text:
            word.text = text
            cleaned.append(word)
    if not cleaned:
        return None, removed
    letters = [(len(word.text), word) for word in cleaned]
    total = sum(count for count, _ in letters)
    mono = sum(count for count, word in letters if word.mono) >= 0.8 * total
    bold = sum(count for count, word in letters if word.bold) >= 0.8 * total
    # A prose line's size is its prose's: inline code set smaller or larger (a printed web page's
    # 13px code in 16px text, groff's Courier) does not make it a line of another size, which
    # would break its paragraph or rank it a heading. Not across a wide gap: code beside the
    # output it makes (an example and its result side by side) is two texts, not one line.
    prose = [(count, word) for count, word in letters if not word.mono]
    running = all(right.x0 - left.x1 < _INLINE_GAP_EM * max(left.size, right.size)
                  for left, right in itertools.pairwise(cleaned))
    sized = prose if prose and not mono and running else letters
    sizes = [word.size for count, word in sized for _ in range(min(count, 50))]
    line = Line(
        page=page, words=cleaned, top=min(float(c["top"]) for c in chars),
        bottom=max(float(c["bottom"]) for c in chars), x0=cleaned[0].x0, x1=cleaned[-1].x1,
        size=round(statistics.mode(sizes) * 2) / 2, mono=mono, bold=bold,
        text=" ".join(word.text for word in cleaned), marked=start > 0,
    )
    return line, removed


def _compose_accents(chars: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The line's glyphs (left to right) with each accent glyph set over a letter folded into it."""
    if not any(char["text"] in _ACCENTS for char in chars):
        return chars
    accents: dict[int, str] = {}
    for index, char in enumerate(chars):
        mark = _ACCENTS.get(char["text"])
        if mark is None:
            continue
        middle = (float(char["x0"]) + float(char["x1"])) / 2
        # Sorted by x0, the letter under the accent is its neighbour on either side.
        for other in (index + 1, index - 1):
            if 0 <= other < len(chars) and other not in accents and chars[other]["text"].isalpha() \
                    and float(chars[other]["x0"]) <= middle <= float(chars[other]["x1"]):
                accents[index] = ""
                accents[other] = accents.get(other, "") + mark
                break
    composed: list[dict[str, Any]] = []
    for index, char in enumerate(chars):
        marks = accents.get(index)
        if marks == "":
            continue
        if marks:
            base = "i" if char["text"] == "ı" else char["text"]  # TeX accents a dotless i
            char = {**char, "text": unicodedata.normalize("NFC", base + marks)}
        composed.append(char)
    return composed


def _footnote_mark(char: dict[str, Any], before: dict[str, Any]) -> bool:
    """Whether a glyph right after `before` is a footnote mark (after a digit, a small raised digit is
    more likely an exponent, and kept)."""
    return not before["text"].isdigit() and _raised_mark(char, before)


def _raised_mark(char: dict[str, Any], body: dict[str, Any]) -> bool:
    """Whether a glyph is a digit or dagger set small and raised against `body`, a glyph of the text."""
    size = float(body["size"]) or 1.0
    return (char["text"] in _MARKS and float(char["size"]) <= 0.8 * size
            and float(body["bottom"]) - float(char["bottom"]) > 0.2 * size)


def _flush(chars: list[dict[str, Any]], words: list[Word]) -> None:
    if not chars:
        return
    mono, bold = _font_kind(str(chars[0].get("fontname", "")))
    mono = mono or bool(chars[0].get("fixed"))
    text = "".join(char["text"] for char in chars)
    if "’" in text or "‘" in text:
        text = "".join(_TYPEWRITER_QUOTES.get(char["text"], char["text"])
                       if _TEX_TYPEWRITER.search(str(char.get("fontname", ""))) else char["text"] for char in chars)
    words.append(Word(
        text=text, x0=float(chars[0]["x0"]), x1=float(chars[-1]["x1"]),
        size=float(chars[0]["size"]), mono=mono, bold=bold,
    ))


@functools.lru_cache(maxsize=1024)
def _font_kind(fontname: str) -> tuple[bool, bool]:
    """Whether a font is monospaced (code) and whether it is bold, from its name."""
    return bool(_MONO.search(fontname)), bool(_BOLD.search(fontname))
