"""Page furniture: what a printed page carries for navigation rather than content.

Running headers and footers, page numbers, "(continued on next page)" labels and the dot leaders
of a table of contents are read past by a person; stored, they land mid-sentence in passages and
get quoted as answers. They are recognised by what makes them furniture — the same line at the
same height on many pages (page numbers aside), a page number alone in the margin, a label
that only points at another page, a title joined to a page number by a leader — never by the
words of one document.
"""

from __future__ import annotations

import re
from collections import defaultdict

from citeline.documents.pdf_layout import Line, PageLayout, Word

# Running headers and footers live in the top and bottom margins: only the first and last few
# lines of a page within this fraction of its height are candidates.
_MARGIN_FRACTION = 0.14
_EDGE_LINES = 3
# A running header or footer fits in a margin line; a longer line is the page's text.
_MAX_FURNITURE_CHARS = 150
# Same height within this many points: the same slot on different pages.
_SAME_SLOT_PT = 2.5
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


def _margin_candidates(page: PageLayout) -> list[tuple[Line, str]]:
    top_limit = page.height * _MARGIN_FRACTION
    bottom_limit = page.height * (1 - _MARGIN_FRACTION)
    heads = [line for line in page.lines[:_EDGE_LINES] if line.bottom <= top_limit]
    feet = [line for line in page.lines[-_EDGE_LINES:] if line.top >= bottom_limit]
    seen: set[int] = set()
    out = []
    for line in [*heads, *feet]:
        if id(line) not in seen and len(line.text) <= _MAX_FURNITURE_CHARS:
            seen.add(id(line))
            out.append((line, "top" if line in heads else "bottom"))
    return out


def remove_running_lines(pages: list[PageLayout]) -> int:
    """Drop running headers and footers and page numbers from every page; how many lines went.

    A header is a margin line whose text (digits normalised, so "Page 3" matches "Page 4") sits
    at the same height on several pages. Chapter-dependent headers change text but not their
    slot: once a slot has shown a repeated header, any line there on another page goes too.
    """
    repeats_needed = 2 if len(pages) <= 6 else 3
    slots: dict[tuple[str, str], list[tuple[int, Line]]] = defaultdict(list)
    candidates: list[tuple[int, Line, str]] = []
    for index, page in enumerate(pages):
        for line, band in _margin_candidates(page):
            candidates.append((index, line, band))
            key = _normalised(line.text)
            if any(char.isalnum() for char in key):
                slots[(band, key)].append((index, line))
    doomed: set[int] = set()
    confirmed: list[tuple[str, float]] = []
    for (band, _), found in slots.items():
        for _, line in found:
            same = {index for index, other in found if abs(other.top - line.top) <= _SAME_SLOT_PT}
            if len(same) >= repeats_needed:
                doomed.add(id(line))
                confirmed.append((band, line.top))
    for _, line, band in candidates:
        in_slot = any(band == slot_band and abs(line.top - top) <= _SAME_SLOT_PT for slot_band, top in confirmed)
        if in_slot or _PAGE_NUMBER.match(line.text.strip()):
            doomed.add(id(line))
    removed = 0
    for page in pages:
        kept = [line for line in page.lines if id(line) not in doomed]
        removed += len(page.lines) - len(kept)
        page.lines = kept
    return removed


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
