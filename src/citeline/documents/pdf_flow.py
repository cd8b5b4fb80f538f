"""Lines of laid-out pages back into the blocks a person reads: headings, paragraphs, list
items, code and table rows, across page and column breaks.

A line break in a PDF is where the paper ran out, not a break in the text: lines join into a
paragraph unless something a reader sees says otherwise (a gap wider than the line pitch, a
first-line indent, a short last line ending a sentence, a change of font, a bullet). A word
hyphenated at a line end is joined again when the document itself says it is one word; a
sentence cut by a page break continues on the next page as the same block, which records both
pages. Footnotes at a page's foot are set apart from the text they interrupt: a sentence
running on to the next page reads whole, its page's footnotes after it.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass, field, replace

from citeline.documents.builder import DocumentBuilder
from citeline.documents.pdf_layout import Line, PageLayout, TableGrid, reading_key

# A line this much larger than the body text is a heading: a seventh larger is the smallest step
# a stylesheet takes for one (a 16 px third-level heading over 14 px text); an eighth is not (a
# 9 pt running header over 8 pt small print).
_HEADING_SIZE_RATIO = 1.13
_MAX_HEADING_CHARS = 200
# Top-to-top distance above this multiple of the usual pitch is a paragraph gap.
_GAP_RATIO = 1.35
# A run-in title (LaTeX's \paragraph) is set off from its text by a quad; words of a sentence are
# a third of that apart.
_RUN_IN_GAP_EM = 0.9
_TERMINAL = re.compile(r"[.!?:…][\"'”’)\]]*$")
# A line ending inside a URL, and a line going on with the rest of one: a first token in lower case
# with a URL's punctuation in it ("com/library/…", "html)"); "for details" or "E.g." start anew.
_URL_BREAKS = "./_#?=&-"  # where a typesetter breaks a URL that does not fit
_URL_TAIL = re.compile(rf"https?://[^\s()<>\"']*[{re.escape(_URL_BREAKS)}]$")
_URL_GOES_ON = re.compile(r"[a-z0-9~%][\w.~%-]*[/._#?=&)]\S*(?:\s|$)")
_BULLETS = frozenset("•◦▪‣⁃–-*·●○■□➢►✓✔∙")
_ENUMERATOR = re.compile(r"^(?:\(?\d{1,3}[.)]|\(?[a-z][.)]|\(?[ivx]{1,5}[.)])$")
# Marks a typesetter puts where it wrapped a long code line (Sphinx's ↪): the next line is the
# same line of code.
_WRAP_MARKS = frozenset("\u21aa\u21b3\u2937")
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
# A definition list set as a printed manual sets one (an option's "-E" and "--tabstospaces",
# a setting's "set tabsize number"): a term of a few short lines in the code font, its
# description just below and indented under it.
_TERM_MAX_LINES = 3
_TERM_MAX_CHARS = 60
_TERM_INDENT_EM = 1.2
_TERM_GAP_PITCHES = 2.2
_NUMBERED_TITLE = re.compile(r"\d+(?:\.\d+)*\.?\s")
_SECTION_NUMBER = re.compile(r"^(?:chapter\s+|part\s+|appendix\s+)?(?:\d+(?:\.\d+)*|[A-Z](?:\.\d+)*)\.?\s+",
                             re.IGNORECASE)


@dataclass(frozen=True)
class OutlineEntry:
    """A bookmark of the document outline: a section title, its page and depth (0 = top)."""

    title: str
    page: int
    level: int


@dataclass
class _Open:
    kind: str
    lines: list[Line]
    level: int = 0
    pages: list[int] = field(default_factory=list)
    term: list[Line] | None = None  # a definition's term (an option's name set above its description)


@dataclass
class _Style:
    body_size: float
    heading_levels: dict[float, int]
    pitch: dict[tuple[float, bool], float]
    left: dict[tuple[int, float | None, int], float]  # per page, band and column (see `_frame`)
    right: dict[tuple[int, float | None, int], float]
    height: dict[int, float]
    text_bottom: float
    body_end: dict[int, int]  # per page, the index of its first footnote line (its line count if none)
    notes_top: dict[int, float]  # per page with footnotes, the top of the first

    def line_pitch(self, line: Line) -> float:
        return self.pitch.get((line.size, line.mono), line.size * 1.25)

    def margins(self, line: Line) -> tuple[float, float]:
        """Where the body text of a line's page, or of its column, starts and ends."""
        frame = _frame(line)
        return self.left.get(frame, line.x0), self.right.get(frame, line.x1)


def _frame(line: Line) -> tuple[int, float | None, int]:
    """What a line's text is set in: its page, or a column of a band on it."""
    return line.page, line.band, line.column


def _same_column(line: Line, other: Line) -> bool:
    """Whether two lines of a block are set in one column (a block may run on from the foot of
    the column before; across a page break, the text's column is the page's)."""
    return (line.band, line.column) == (other.band, other.column)


def _margin(lines: list[Line], line: Line) -> float:
    """Where the lines of a block set in `line`'s column start."""
    return min((item.x0 for item in lines if _same_column(item, line)), default=line.x0)


def _column_break(previous: Line, line: Line) -> bool:
    """Whether `line` starts the next column of its page after `previous` ended one."""
    return previous.page == line.page and line.top < previous.top and _frame(line) != _frame(previous)


# Footnotes are set in smaller type than the text they annotate.
_FOOTNOTE_SIZE_RATIO = 0.95
_NOTE_MARK = re.compile(r"\(?[\d*\u2020\u2021\u00a7]{1,3}\)?")


def _footnotes_at(page: PageLayout, body_size: float) -> int:
    """Where the footnotes at the foot of `page` start among its lines (len(lines) if none): the
    first of a run of lines in smaller type, in the page's lower half, that ends the page and
    opens with a raised footnote mark (before its text, or raised onto a line of its own), below
    some text of the body's size."""
    lines = page.lines
    start = len(lines)
    for index in range(len(lines) - 1, 0, -1):
        line = lines[index]
        if line.size >= body_size * _FOOTNOTE_SIZE_RATIO or line.top < page.height * 0.5:
            break
        if line.marked or _NOTE_MARK.fullmatch(line.text):
            start = index
    if start < len(lines) and not any(line.size >= body_size * _FOOTNOTE_SIZE_RATIO for line in lines[:start]):
        return len(lines)  # a page of small type: no body to set its footnotes apart from
    return start


def _titles_key(text: str) -> str:
    text = _SECTION_NUMBER.sub("", " ".join(text.split()))
    return re.sub(r"[\W_]+", " ", text.lower()).strip()


def _style(pages: list[PageLayout]) -> _Style:
    weight: Counter[float] = Counter()
    pitches: dict[tuple[float, bool], list[float]] = {}
    left: dict[tuple[int, float | None, int], float] = {}
    right: dict[tuple[int, float | None, int], float] = {}
    for page in pages:
        for line, following in zip(page.lines, page.lines[1:], strict=False):
            if following.size == line.size and following.mono == line.mono:
                step = following.top - line.top
                if 0 < step < line.size * 3:
                    pitches.setdefault((line.size, line.mono), []).append(step)
        for line in page.lines:
            if not line.mono:
                weight[line.size] += len(line.text)
    body_size = weight.most_common(1)[0][0] if weight else 10.0
    for page in pages:
        for line in page.lines:
            if line.size == body_size and not line.mono:
                frame = _frame(line)
                left[frame] = min(left.get(frame, line.x0), line.x0)
                right[frame] = max(right.get(frame, line.x1), line.x1)
    heading_sizes = sorted({line.size for page in pages for line in page.lines
                            if not line.mono and line.size >= body_size * _HEADING_SIZE_RATIO
                            and len(line.text) <= _MAX_HEADING_CHARS}, reverse=True)
    levels = {size: index + 1 for index, size in enumerate(heading_sizes)}
    pitch = {key: statistics.median(values) for key, values in pitches.items()}
    height = {page.number: page.height for page in pages}
    # How low the text goes, above footnotes, and where each page's footnotes start.
    ends = {page.number: _footnotes_at(page, body_size) for page in pages}
    text_bottom = max((page.lines[ends[page.number] - 1].bottom for page in pages if ends[page.number]),
                      default=0.0)
    notes_top = {page.number: page.lines[ends[page.number]].top for page in pages
                 if ends[page.number] < len(page.lines)}
    return _Style(body_size, levels, pitch, left, right, height, text_bottom, ends, notes_top)


def _vocabulary(pages: list[PageLayout]) -> Counter[str]:
    """How often each word occurs in the document's prose, not counting the word halves that
    follow a line-end hyphen (they are what is being decided)."""
    words: Counter[str] = Counter()
    after_hyphen = False
    for page in pages:
        for line in page.lines:
            if line.mono:
                continue
            tokens = _WORD.findall(line.text.lower())
            if after_hyphen and tokens:
                tokens = tokens[1:]
            stripped = line.text.rstrip()
            if stripped.endswith("-") and tokens:
                tokens = tokens[:-1]
            words.update(tokens)
            after_hyphen = stripped.endswith(("-", "\u00ad"))
    return words


def join_hyphenated(left: str, right: str, vocabulary: Counter[str]) -> str:
    """Two lines of one paragraph, the first ending in a hyphen after a letter: the word as
    the document spells it.

    A soft hyphen is always a break inside a word. Otherwise the document's own vocabulary
    decides: "generate" written whole elsewhere joins "gen-" + "erate"; "built-in" written with
    its hyphen elsewhere keeps it. Without evidence, a compound of two words the document uses
    on their own ("data-" + "base") keeps its hyphen and fragments ("gen", "erate") join.
    A capital or a digit after the break is a compound ("Python-" + "3")."""
    if left.endswith("\u00ad"):
        return left[:-1] + right
    head = _WORD.findall(left[:-1].lower())
    tail_match = re.match(r"[^\W\d_]+", right)
    if not head or tail_match is None or not right[:1].islower():
        return left + right
    first, second = head[-1].split("-")[-1], tail_match.group(0).lower()
    joined = vocabulary.get(head[-1] + second, 0)
    hyphenated = vocabulary.get(f"{head[-1]}-{second}", 0)
    if joined > hyphenated:
        return left[:-1] + right
    if hyphenated:
        return left + right
    if vocabulary.get(first, 0) and vocabulary.get(second, 0):
        return left + right
    return left[:-1] + right


def _ends_in_url(lines: list[Line]) -> bool:
    """Whether `lines` end inside a URL broken at a line end (it may run over several lines, each
    one unbroken token)."""
    for line in reversed(lines):
        text = line.text.rstrip()
        if _URL_TAIL.search(text):
            return True
        if " " in text or not text.endswith(tuple(_URL_BREAKS)):
            return False
    return False


def _code_goes_on(previous: Line | None, line: Line) -> bool:
    """Whether a word in the code font broken after a hyphen at a line's end goes on at the next
    line's start: an option cut after its dashes ("(--" + "constantshow)"), as a browser prints it.
    Code is not hyphenated, so the dashes are the name's own."""
    if previous is None or not previous.words or not line.words:
        return False
    last, first = previous.words[-1], line.words[0]
    if last.text == "-" and first.text[:1].isalnum():
        return False  # a minus in an expression ("width -" + "inch")
    return (last.mono or last.text.endswith("--")) and first.mono and last.text.endswith("-") and bool(first.text)


def _prose(lines: list[Line], vocabulary: Counter[str]) -> str:
    text = ""
    previous: Line | None = None
    for line in lines:
        piece = line.text.strip()
        if not text:
            text = piece
        elif _code_goes_on(previous, line):
            text += piece
        elif re.search(r"[^\W\d_][-\u00ad]$", text) and piece[:1].isalpha():
            text = join_hyphenated(text, piece, vocabulary)
        elif (text.endswith(("—", "/")) or (text.endswith("_") and piece[:1].isalnum())
              or (_URL_TAIL.search(text) and _URL_GOES_ON.match(piece))):
            # a path, a name broken at an underscore ("R_" + "LIBS_USER"), or a URL broken where it
            # did not fit ("https://developer.apple." + "com/library/…")
            text += piece
        else:
            text += " " + piece
        previous = line
    return text


def _code(lines: list[Line], style: _Style) -> str:
    widths = [line.char_width for line in lines if line.char_width > 0]
    column = statistics.median(widths) if widths else 6.0
    left = min(line.x0 for line in lines)
    out: list[str] = []
    previous: Line | None = None
    for line in lines:
        words = line.words
        if words and words[0].text in _WRAP_MARKS and out:
            rest = _code_line(line, column, words[0].x1 + column, skip_first=True).lstrip()
            glue = " " if out[-1][-1:].isalnum() and rest[:1].isalnum() else ""
            out[-1] = out[-1] + glue + rest
            previous = line
            continue
        if previous is not None and previous.page == line.page:
            blank = round((line.top - previous.top) / style.line_pitch(line)) - 1
            out.extend([""] * max(0, min(blank, 2)))
        out.append(_code_line(line, column, left))
        previous = line
    return "\n".join(out)


def _code_line(line: Line, column: float, left: float, skip_first: bool = False) -> str:
    words = line.words[1:] if skip_first else line.words
    text = ""
    cursor = left
    for word in words:
        spaces = max(0 if not text else 1, round((word.x0 - cursor) / column))
        text += " " * spaces + word.text
        cursor = word.x1
    return text


def _glyph_bullet(line: Line) -> bool:
    """Whether a line starts with a bullet glyph in a text font (a "-" in a code font is code)."""
    first = line.words[0]
    return len(line.words) >= 2 and len(first.text) == 1 and first.text in _BULLETS and not first.mono


def _is_bullet(line: Line) -> bool:
    if len(line.words) < 2:
        return False
    first = line.words[0].text
    return (len(first) == 1 and first in _BULLETS) or bool(_ENUMERATOR.match(first))


class _Flow:
    """The walk over every page's lines and tables, emitting blocks into the builder."""

    def __init__(self, pages: list[PageLayout], outline: list[OutlineEntry], builder: DocumentBuilder) -> None:
        self.pages = pages
        self.builder = builder
        self.style = _style(pages)
        self.vocabulary = _vocabulary(pages)
        self.outline: dict[int, list[OutlineEntry]] = {}
        for entry in outline:
            self.outline.setdefault(entry.page, []).append(entry)
        self.open: _Open | None = None
        self.previous: Line | None = None
        self.notes: list[list[Line]] = []  # footnotes waiting for the block open at their page's end
        self.list_group: object | None = None
        self.table: tuple[object, int, list[str], int] | None = None  # group, columns, header, page

    def run(self) -> None:
        for page in self.pages:
            end = self.style.body_end.get(page.number, len(page.lines))
            elements: list[tuple[tuple[float, int, float], Line | TableGrid]] = [
                (reading_key(line), line) for line in page.lines[:end]]
            elements += [(reading_key(table), table) for table in page.tables]
            elements.sort(key=lambda item: item[0])
            for position, (_, element) in enumerate(elements):
                following = elements[position + 1][1] if position + 1 < len(elements) else None
                if isinstance(element, TableGrid):
                    self._flush()
                    self._table(element)
                    self.previous = None
                else:
                    self._line(element, following if isinstance(following, Line) else None)
            self.notes += self._footnotes(page.lines[end:])
            if self.open is None:
                self._place_notes()
        self._flush()

    def _footnotes(self, lines: list[Line]) -> list[list[Line]]:
        """The footnotes at a page's foot, each its lines. A footnote opens with its mark (raised
        before its text, or onto a line of its own), or, its mark set level with the text, after a
        gap or a short line ending a sentence, as a paragraph does."""
        notes: list[list[Line]] = []
        marked = False
        for line in lines:
            if _NOTE_MARK.fullmatch(line.text):
                marked = True
                continue
            last = notes[-1][-1] if notes else None
            if last is None or marked or line.marked or self._ends_short(last) \
                    or line.top - last.top > self.style.line_pitch(last) * _GAP_RATIO:
                notes.append([line])
            else:
                notes[-1].append(line)
            marked = False
        return notes

    def _place_notes(self) -> None:
        """Emit the footnotes waiting since their page ended, once the block then open is out."""
        notes, self.notes = self.notes, []
        for lines in notes:
            self.builder.block("paragraph", _prose(lines, self.vocabulary), page=lines[0].page)

    # -- tables ---------------------------------------------------------------------------

    def _table(self, grid: TableGrid) -> None:
        rows = grid.rows
        columns = max(len(row) for row in rows)
        continued = self.table is not None and self.table[1] == columns and self.table[3] == grid.page - 1
        if continued and self.table is not None:
            group, _, header, _ = self.table
            if rows[0] == header:
                rows = rows[1:]  # the header repeated on the next page
        else:
            # The header is carried by every row's label (and so its text), not stored alone.
            group, header = object(), rows[0]
            rows = rows[1:]
        label = " | ".join(cell for cell in header if cell) or None
        for row in rows:
            self.builder.block("table_row", " | ".join(row), cells=tuple(row), label=label, page=grid.page,
                               group=group)
        self.table = (group, columns, header, grid.page)
        self.list_group = None

    # -- lines ----------------------------------------------------------------------------

    def _heading_level(self, line: Line, following: Line | None) -> int | None:
        key = _titles_key(line.text)
        for entry in self.outline.get(line.page, []):
            title = _titles_key(entry.title)
            if key and (key == title or (len(key) >= 8 and title.startswith(key))):
                return entry.level + 1
        if line.mono or len(line.text) > _MAX_HEADING_CHARS:
            return None
        level = self.style.heading_levels.get(line.size)
        if level is not None:
            return level
        if line.bold and line.size >= self.style.body_size and len(line.text) <= 120 \
                and not line.text.rstrip().endswith((".", ",", ";", ":")) and self._isolated(line, following):
            return len(self.style.heading_levels) + 1
        return None

    def _run_in_heading(self, line: Line) -> tuple[Line, Line] | None:
        """A line opening with bold words that the outline lists as a title on its page, then,
        after a quad, text in the body face: the title and the rest of the line, each a line of
        its own."""
        entries = self.outline.get(line.page)
        if not entries or line.mono or line.bold or not line.words[0].bold:
            return None
        count = next(index for index, word in enumerate(line.words) if not word.bold)
        key = _titles_key(" ".join(word.text for word in line.words[:count]))
        if not key or not any(_titles_key(entry.title) == key for entry in entries):
            return None
        title_words, rest_words = line.words[:count], line.words[count:]
        if rest_words[0].x0 - title_words[-1].x1 < _RUN_IN_GAP_EM * line.size:
            return None  # a word of the paragraph set in bold, as a command's name often is
        title = replace(line, words=title_words, x1=title_words[-1].x1, bold=True,
                        text=" ".join(word.text for word in title_words))
        rest = replace(line, words=rest_words, bold=False, text=" ".join(word.text for word in rest_words))
        return title, rest

    def _isolated(self, line: Line, following: Line | None) -> bool:
        pitch = self.style.line_pitch(line)
        before = self.previous is None or self.previous.page != line.page \
            or _column_break(self.previous, line) or line.top - self.previous.top > pitch * _GAP_RATIO
        after = following is None or following.top - line.top > pitch * _GAP_RATIO \
            or following.bold != line.bold or following.size != line.size
        return before and after

    def _line(self, line: Line, following: Line | None) -> None:
        run_in = self._run_in_heading(line)
        if run_in is not None:
            # A run-in title ("Pseudocolumns  Expressions in the using clause …", LaTeX's
            # \paragraph): the heading the outline names, then its paragraph.
            title, rest = run_in
            self._flush()
            self.open = _Open("heading", [title], self._heading_level(title, rest) or 1, [title.page])
            self._flush()
            self.open = _Open("paragraph", [rest], 0, [rest.page])
            self.previous = rest
            return
        current = self.open
        level = None if line.mono else self._heading_level(line, following)
        if current is not None and self._continues(current, line, level):
            current.lines.append(line)
            if line.page not in current.pages:
                current.pages.append(line.page)
        elif current is not None and level is None and self._describes(current, line):
            # A term and its description: one definition, named by the term, as a definition
            # list of a page reads ("-E, --tabstospaces - Convert each typed tab to spaces …").
            self.open = _Open("paragraph", [line], 0, [line.page], term=current.lines)
        else:
            self._flush()
            if level is not None:
                kind = "heading"
            elif line.mono and not _glyph_bullet(line):
                kind = "code"
            elif _is_bullet(line):
                kind = "list_item"
            else:
                kind = "paragraph"
            self.open = _Open(kind, [line], level or 0, [line.page])
        self.previous = line

    def _continues(self, current: _Open, line: Line, level: int | None) -> bool:
        previous = current.lines[-1]
        column_break = _column_break(previous, line)
        same_page = previous.page == line.page and not column_break  # text goes on down the page
        pitch = self.style.line_pitch(previous)
        step = line.top - previous.top if same_page else 0.0
        if current.kind == "heading":
            close = (same_page and line.size == previous.size and step <= pitch * _GAP_RATIO and len(current.lines) < 3
                     and not _NUMBERED_TITLE.match(line.text))  # "1 Overview" then "2 Usage": two headings
            return close and ((level is not None and level == current.level) or self._title_goes_on(current, line))
        if current.kind == "code":
            return line.mono and not _glyph_bullet(line) and (not same_page or step <= pitch * 3.2)
        # A URL that did not fit goes on at the next line's start (in texinfo, in the code font).
        url_goes_on = _ends_in_url(current.lines) and bool(_URL_GOES_ON.match(line.text))
        inline_code = line.mono and self._inline_code_line(current, previous, line, step, pitch)
        if line.mono and not url_goes_on and not inline_code:
            return False
        numbered = _is_bullet(line) and not _glyph_bullet(line)
        if numbered and not _TERMINAL.search(previous.text.rstrip()) and not previous.text.rstrip().endswith(";"):
            numbered = False  # "… must not be\n0. …": a number that wrapped to the line start
        # The prose's size is what a change of size is measured from: a line of inline code set
        # smaller than its text (a printed web page's) is not a new block, nor is the prose after it.
        prose = next((item for item in reversed(current.lines) if not item.mono), previous)
        resized = abs(line.size - prose.size) >= 0.6 and not inline_code
        if level is not None or _glyph_bullet(line) or numbered or resized:
            return False
        if column_break:  # a column ends where its text ends: the sentence may go on in the next
            return not _TERMINAL.search(previous.text.rstrip()) or line.text[:1].islower()
        if not same_page:
            return self._runs_on(previous, line)
        if step > pitch * _GAP_RATIO or step <= 0:
            return False
        first = current.lines[0]
        margin = _margin(current.lines, line)
        if current.kind == "list_item":
            text_left = first.words[1].x0
            return line.x0 >= text_left - 2 and not self._ends_short(previous)
        opening = next((item for item in current.lines if _same_column(item, line)), line)
        if line.x0 - margin > line.size * 0.8 and opening.x0 <= margin + 1 and not self._reaches_right(previous):
            return False  # a first-line indent after a short line: a new paragraph
        return url_goes_on or not self._ends_short(previous)

    def _describes(self, current: _Open, line: Line) -> bool:
        """Whether `line` opens the description of the term `current` holds: a few short lines in
        the code font, then prose right below them, indented under them. Code in running text
        is indented from the prose around it, and the prose after it comes back out."""
        if current.kind != "code" or current.term is not None or line.mono or _glyph_bullet(line) \
                or len(current.lines) > _TERM_MAX_LINES:
            return False
        last = current.lines[-1]
        if _column_break(last, line) or any(len(item.text) > _TERM_MAX_CHARS for item in current.lines) \
                or last.text.rstrip().endswith((".", ",", ";")):
            return False  # a sentence's last words in the code font (a path, a URL) end no term
        left = min(item.x0 for item in current.lines)
        if line.x0 - left < _TERM_INDENT_EM * line.size:
            return False
        if line.page == last.page + 1:  # the term ended a page, its description opens the next
            return self._starts_page(line)
        step = line.top - last.top
        return line.page == last.page and 0 < step <= self.style.line_pitch(line) * _TERM_GAP_PITCHES

    @staticmethod
    def _indented_first_line(lines: list[Line]) -> bool:
        """Whether a paragraph's second line starts left of its first (a first-line indent)."""
        return len(lines) > 1 and _same_column(lines[0], lines[1]) and lines[1].x0 < lines[0].x0 - 2

    def _starts_page(self, line: Line) -> bool:
        """Whether `line` is the first line of its page's text."""
        page = next((item for item in self.pages if item.number == line.page), None)
        return page is not None and bool(page.lines) and any(item is line for item in page.lines[:3]) \
            and all(item.top >= line.top or item.size < line.size for item in page.lines if item is not line)

    def _title_goes_on(self, current: _Open, line: Line) -> bool:
        """Whether `line` carries on the title of the heading open before it, as the outline spells
        the title: the line a long title wrapped onto ranks by its size alone, which need not be
        the level the outline gave the heading's first line."""
        joined = _titles_key(" ".join(item.text for item in [*current.lines, line]))
        return any(_titles_key(entry.title).startswith(joined) for entry in self.outline.get(line.page, []))

    def _inline_code_line(self, current: _Open, previous: Line, line: Line, step: float, pitch: float) -> bool:
        """A line set wholly in a code font inside running prose (a long identifier or a list
        of constants wrapped onto a line of its own): same pitch, same margin, no colon
        introducing it. A code block has a gap or a different leading before it."""
        margin = _margin(current.lines, line)
        return (current.kind in ("paragraph", "list_item") and previous.page == line.page and not previous.mono
                and 0 < step <= pitch * 1.1 and abs(line.x0 - margin) <= 1.5
                and not previous.text.rstrip().endswith(":"))

    def _reaches_right(self, line: Line) -> bool:
        _, right = self.style.margins(line)
        return line.x1 >= right - 2 * line.size

    def _runs_on(self, previous: Line, line: Line) -> bool:
        """Whether a paragraph cut by the end of a page goes on with `line` on the next page:
        the page was full (its last line low on the page, as low as text goes in this
        document) and the sentence is unfinished or goes on in lower case."""
        if line.page != previous.page + 1:
            return False
        height = self.style.height.get(previous.page, 0.0)
        # Footnotes take the foot of a page: text reaching them fills it.
        bottom = min(self.style.text_bottom, self.style.notes_top.get(previous.page, self.style.text_bottom))
        full = previous.bottom >= height * 0.6 and previous.bottom >= bottom - 3 * self.style.line_pitch(previous)
        return full and (not _TERMINAL.search(previous.text.rstrip()) or line.text[:1].islower())

    def _ends_short(self, line: Line) -> bool:
        left, right = self.style.margins(line)
        return bool(_TERMINAL.search(line.text.rstrip())) and line.x1 < right - 0.3 * (right - left)

    def _flush(self) -> None:
        current, self.open = self.open, None
        if current is None:
            return
        first_page = current.lines[0].page
        pages = tuple(current.pages) if len(current.pages) > 1 else ()
        if current.kind == "heading":
            # A title wrapped at a hyphen is joined as a paragraph's line ends are.
            self.builder.heading(current.level, _prose(current.lines, self.vocabulary), page=first_page)
            self.list_group = None
        elif current.kind == "code":
            self.builder.block("code", _code(current.lines, self.style), page=first_page, pages=pages,
                               preformatted=True)
            self.list_group = None
        elif current.kind == "list_item":
            lines = list(current.lines)
            first = lines[0]
            marker = first.words[0].text
            rest = Line(first.page, first.words[1:], first.top, first.bottom, first.words[1].x0, first.x1,
                        first.size, first.mono, first.bold, " ".join(word.text for word in first.words[1:]))
            text = _prose([rest, *lines[1:]], self.vocabulary)
            if not (len(marker) == 1 and marker in _BULLETS):
                text = f"{marker} {text}"  # an item's number is part of what it says
            if self.list_group is None:
                self.list_group = object()
            self.builder.block("list_item", text, page=first_page, pages=pages, group=self.list_group)
        elif current.term is not None and not self._indented_first_line(current.lines):
            if self.list_group is None:
                self.list_group = object()
            term = ", ".join(item.text.strip() for item in current.term)
            text = f"{term} - {_prose(current.lines, self.vocabulary)}"
            self.builder.block("list_item", text, label=term, page=first_page, pages=pages,
                               group=self.list_group)
        elif current.term is not None:
            # Only the first line was indented: a paragraph's indent after code, not a description.
            self.builder.block("code", _code(current.term, self.style), page=current.term[0].page, preformatted=True)
            self.builder.block("paragraph", _prose(current.lines, self.vocabulary), page=first_page, pages=pages)
            self.list_group = None
        else:
            self.builder.block("paragraph", _prose(current.lines, self.vocabulary), page=first_page, pages=pages)
            self.list_group = None
        self.table = None
        self._place_notes()


def build_blocks(pages: list[PageLayout], outline: list[OutlineEntry], builder: DocumentBuilder) -> None:
    """Emit every page's content into `builder` in reading order."""
    _Flow(pages, outline, builder).run()
