"""Page furniture: what a printed page carries for navigation rather than content.

Running headers and footers, page numbers, "(continued on next page)" labels and the dot leaders
of a table of contents are read past by a person; stored, they land mid-sentence in passages and
get quoted as answers. They are recognised by what makes them furniture — the same line at the
same height at the edge of many pages (page numbers aside), a page number alone in the margin,
a label that only points at another page, a title joined to a page number by a leader — never
by the words of one document.
"""

from __future__ import annotations

import bisect
import itertools
import re
import statistics
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from citeline.documents.pdf_layout import Line, PageLayout, Word

# Running headers and footers live in the top and bottom margins: only the outermost few lines of
# a page within this fraction of its height are candidates.
_MARGIN_FRACTION = 0.14
_EDGE_LINES = 3
# A running header or footer fits in a margin line; a longer line is the page's text.
_MAX_FURNITURE_CHARS = 150
# Same height within this many points: the same slot on different pages.
_SAME_SLOT_PT = 2.5
# A header or footer of several lines is set like one paragraph, and a margin wider than that
# separates it from the page's text: a line further than this (in ems of its size) from the
# furniture outside it is where the page's own text starts.
_BLOCK_GAP_EM = 0.6
# A slot whose repeated lines are on at least this share of the pages holds the document's
# running header or footer, so another text set in it (a chapter's title, on the only page of a
# short chapter) is furniture too.
_RUNNING_SLOT_SHARE = 0.25
# Set as a slot's lines are: the same font size within this many points, and the same left edge,
# right edge or centre within this many.
_SAME_SIZE_PT = 0.5
_SAME_ALIGNMENT_PT = 3.0
_ROMAN = r"[ivxlcdm]+"
_PAGE_NUMBER = re.compile(
    rf"^(?:[-–—(\[]\s*)?(?:page\s+|p\.\s*|seite\s+|página\s+)?(?:\d{{1,5}}|{_ROMAN})"
    rf"(?:\s*(?:/|of|von|de)\s*\d{{1,5}})?(?:\s*[-–—)\]])?$",
    re.IGNORECASE,
)
_CONTINUATION = re.compile(
    r"\(?\s*(?:continues|continued|cont(?:'d|inued)?\.?)\s+(?:on|from)\s+(?:the\s+)?"
    r"(?:next|previous|following|preceding|last|prior)\s+page\s*\)?"
    r"|\(\s*(?:continued|cont(?:'d|\.)?)\s*\)",
    re.IGNORECASE,
)
# A title, a leader of at least four dots (spaced or not, or middle dots, ellipses, underscores)
# and a page number at the end: a table-of-contents entry.
_LEADER = re.compile(r"\s*(?:[.·•…_]\s*){4,}")
_TOC_ENTRY = re.compile(rf"^(?P<title>.*?\S)\s*(?:[.·•…_]\s*){{4,}}\s*(?P<page>\d{{1,5}}|{_ROMAN})$",
                        re.IGNORECASE)
_CONTENTS = re.compile(r"^(?:table\s+of\s+)?contents$|^inhalt(?:sverzeichnis)?$|^sommaire$|^índice$",
                       re.IGNORECASE)
# A run of at least this many entries is a table of contents; one or two leader lines elsewhere
# (a price list, a form) are content whose leader only goes.
_MIN_TOC_ENTRIES = 3


def _normalised(text: str) -> str:
    text = re.sub(r"\d+", "#", text.lower())
    text = re.sub(rf"^{_ROMAN}\b|\b{_ROMAN}$", "#", text)
    return " ".join(text.split())


def _margin_bands(page: PageLayout) -> list[tuple[str, list[Line]]]:
    """The page's top and bottom margin lines, each band outermost first: where furniture sits."""
    top_limit = page.height * _MARGIN_FRACTION
    bottom_limit = page.height * (1 - _MARGIN_FRACTION)
    heads = list(itertools.takewhile(lambda line: line.bottom <= top_limit, page.lines[:_EDGE_LINES]))
    feet = list(itertools.takewhile(lambda line: line.top >= bottom_limit, page.lines[::-1][:_EDGE_LINES]))
    return [("top", heads), ("bottom", feet)]


def _outermost(band: list[Line], doomed: set[int]) -> list[Line]:
    """The band's lines that may be furniture now: the outermost one not yet known to be (with any
    beside it at its height), if only furniture set close to it lies further out.

    Furniture is peeled from the page's edge inwards, so a line of the page's own text is never
    taken for a header because it sits where other pages have one, nor because its text starts
    a few pages just below their header."""
    outer: Line | None = None
    for position, line in enumerate(band):
        if id(line) in doomed:
            outer = line
            continue
        if outer is not None and max(line.top - outer.bottom, outer.top - line.bottom) > _BLOCK_GAP_EM * line.size:
            return []
        return [other for other in band[position:]
                if id(other) not in doomed and abs(other.top - line.top) <= _SAME_SLOT_PT]
    return []


def _repeated(found: list[Line], repeats_needed: int) -> list[Line]:
    """The lines of one text that sit at the same height on at least `repeats_needed` pages."""
    ordered = sorted(found, key=lambda line: line.top)
    tops = [line.top for line in ordered]
    repeated = []
    for line in ordered:
        near = ordered[bisect.bisect_left(tops, line.top - _SAME_SLOT_PT):
                       bisect.bisect_right(tops, line.top + _SAME_SLOT_PT)]
        pages: set[int] = set()
        for other in near:  # stops counting once there are enough: a header is on every page
            pages.add(other.page)
            if len(pages) >= repeats_needed:
                repeated.append(line)
                break
    return repeated


@dataclass
class _Slot:
    """Where the document's running header or footer is set: a height, a size and weight, and the
    lines repeated there (one of each placement, to align other lines with)."""

    top: float
    bottom: float  # the lowest top of its lines: the slot spans a few points of height
    size: float
    bold: bool
    placements: list[Line]

    def holds(self, line: Line) -> bool:
        """Whether a line is set in this slot: at its height, in its size and weight, sharing an
        edge or the centre with a line repeated here."""
        return (self.top - _SAME_SLOT_PT <= line.top <= self.bottom + _SAME_SLOT_PT
                and abs(line.size - self.size) <= _SAME_SIZE_PT and line.bold == self.bold
                and any(_aligned(line, other) for other in self.placements))


def _aligned(line: Line, other: Line) -> bool:
    """Whether two lines share their left edge, right edge or centre."""
    return (abs(line.x0 - other.x0) <= _SAME_ALIGNMENT_PT or abs(line.x1 - other.x1) <= _SAME_ALIGNMENT_PT
            or abs(line.x0 + line.x1 - other.x0 - other.x1) <= 2 * _SAME_ALIGNMENT_PT)


def _height_runs(lines: list[Line]) -> Iterator[list[Line]]:
    """Lines top to bottom, in runs at one height: each within the same-slot tolerance of the last."""
    run: list[Line] = []
    for line in sorted(lines, key=lambda line: line.top):
        if run and line.top - run[-1].top > _SAME_SLOT_PT:
            yield run
            run = []
        run.append(line)
    if run:
        yield run


def _running_slots(running: list[Line], page_count: int) -> list[_Slot]:
    """The slots of one margin that hold the document's running header or footer: repeated lines
    of one size and weight, at one height, on a good share of the pages."""
    styles: dict[tuple[bool, int], list[Line]] = defaultdict(list)
    for line in running:
        styles[(line.bold, round(line.size))].append(line)
    slots = []
    for (bold, _), lines in styles.items():
        for run in _height_runs(lines):
            if len({line.page for line in run}) >= _RUNNING_SLOT_SHARE * page_count:
                placements = {(round(line.x0), round(line.x1)): line for line in run}
                slots.append(_Slot(run[0].top, run[-1].top, statistics.median(line.size for line in run), bold,
                                   list(placements.values())))
    return slots


def remove_running_lines(pages: list[PageLayout]) -> int:
    """Drop running headers and footers and page numbers from every page; how many lines went."""
    doomed = _running_lines(pages)
    removed = 0
    for page in pages:
        kept = [line for line in page.lines if id(line) not in doomed]
        removed += len(page.lines) - len(kept)
        page.lines = kept
    return removed


def _running_lines(pages: list[PageLayout]) -> set[int]:
    """The ids of the lines of `pages` that are running headers, footers or page numbers.

    Only a page's outermost margin lines are candidates (see `_outermost`). One is furniture if
    it is a page number, or if its text (digits normalised, so "Page 3" matches "Page 4") is such
    a line at the same height on several pages. Chapter-dependent headers change text but not
    their slot: a candidate set in the slot of the repeated lines, where they recur through the
    document, is furniture too. Each line found lets the one inside it be a candidate, until none
    is found.
    """
    repeats_needed = 2 if len(pages) <= 6 else 3
    bands = [(band, lines) for page in pages for band, lines in _margin_bands(page)]
    doomed: set[int] = set()
    seen: set[int] = set()
    candidates: list[tuple[str, Line]] = []
    groups: dict[tuple[str, str], list[Line]] = defaultdict(list)
    repeated: dict[tuple[str, str], list[Line]] = {}
    while True:
        known = len(doomed)
        grown: set[tuple[str, str]] = set()
        for band, lines in bands:
            for line in _outermost(lines, doomed):
                if id(line) in seen:
                    continue
                seen.add(id(line))
                key = (band, _normalised(line.text))
                if _PAGE_NUMBER.match(line.text.strip()):
                    doomed.add(id(line))
                elif len(line.text) <= _MAX_FURNITURE_CHARS and any(char.isalnum() for char in key[1]):
                    candidates.append((band, line))
                    groups[key].append(line)
                    grown.add(key)
        for key in grown:
            repeated[key] = _repeated(groups[key], repeats_needed)
        running: dict[str, list[Line]] = defaultdict(list)
        for (band, _), lines in repeated.items():
            running[band] += lines
        doomed |= {id(line) for lines in running.values() for line in lines}
        slots = {band: _running_slots(lines, len(pages)) for band, lines in running.items()}
        doomed |= {id(line) for band, line in candidates
                   if id(line) not in doomed and any(slot.holds(line) for slot in slots.get(band, []))}
        if len(doomed) == known:
            return doomed


def strip_continuation_labels(pages: list[PageLayout]) -> int:
    """Remove "(continues on next page)" style labels; lines left empty go. Returns how many."""
    count = 0
    for page in pages:
        kept = []
        for line in page.lines:
            if _CONTINUATION.search(line.text):
                remainder = _CONTINUATION.sub("", line.text).strip(" –—-")
                count += 1
                if not remainder:
                    continue
                _retext(line, remainder)
            kept.append(line)
        page.lines = kept
    return count


def remove_contents_listing(pages: list[PageLayout]) -> int:
    """Drop tables of contents (runs of title-leader-page lines, the lines wrapped between
    them and their "Contents" heading); elsewhere a leader becomes a single space. Returns how
    many entries went.

    A table of contents only points at pages: as stored text it would answer "how do I
    install" with "Installation 3"."""
    flat = [(page, line) for page in pages for line in page.lines]
    is_entry = [bool(_TOC_ENTRY.match(line.text)) for _, line in flat]
    doomed: set[int] = set()
    index = 0
    while index < len(flat):
        if not is_entry[index]:
            index += 1
            continue
        # A run: entries, allowing single wrapped lines between them.
        end = index
        entries = 0
        cursor = index
        while cursor < len(flat):
            if is_entry[cursor]:
                entries += 1
                end = cursor
                cursor += 1
            elif cursor + 1 < len(flat) and is_entry[cursor + 1] and not flat[cursor][1].bold:
                cursor += 1
            else:
                break
        if entries >= _MIN_TOC_ENTRIES:
            for position in range(index, end + 1):
                doomed.add(id(flat[position][1]))
            for position in range(index - 1, max(-1, index - 4), -1):
                if _CONTENTS.match(flat[position][1].text.strip()):
                    doomed.add(id(flat[position][1]))
                    break
        index = end + 1
    removed = 0
    for page in pages:
        kept = []
        for line in page.lines:
            if id(line) in doomed:
                removed += 1
                continue
            if _LEADER.search(line.text) and _TOC_ENTRY.match(line.text):
                _retext(line, _LEADER.sub(" ", line.text).strip())
            kept.append(line)
        page.lines = kept
    return removed


def _retext(line: Line, text: str) -> None:
    """Change a line's text after furniture was cut out of it; its words follow, so code and
    paragraph assembly see the same text."""
    line.text = text
    first = line.words[0]
    line.words = [Word(text, first.x0, line.words[-1].x1, first.size, line.mono, line.bold)]
