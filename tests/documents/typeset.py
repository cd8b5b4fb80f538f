"""A small typesetter for test PDFs, on reportlab's canvas: explicit lines, so a test decides
where a line, a hyphen or a page break falls, plus the furniture real manuals carry (running
header and footer with page numbers, an outline, ruled tables, dot leaders, continuation labels).

With `spaces=False` every line is written the way TeX writes it: one TJ array per line whose
words are separated by positioning offsets, with no space characters at all, and the fonts
declare a space glyph 1000 units wide (the default width of a CID font): a reader that guesses
word breaks from the declared space width instead of the glyph positions runs the words together
(pypdf's `extract_text` does on such files).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

WIDTH, HEIGHT, MARGIN = 612.0, 792.0, 72.0
BODY_FONT, BODY_SIZE, LEADING = "Helvetica", 10.0, 13.0
CODE_FONT, CODE_SIZE, CODE_LEADING = "Courier", 9.0, 11.0


@dataclass
class Heading:
    """A heading; a newline in its text wraps it onto another line (the outline has it whole)."""

    level: int
    text: str


@dataclass
class Para:
    lines: list[str]


@dataclass
class Code:
    lines: list[str]


@dataclass
class Label:
    """A small right-aligned italic line, e.g. "(continues on next page)"."""

    text: str


@dataclass
class Table:
    rows: list[list[str]]
    widths: list[float] = field(default_factory=list)


@dataclass
class Toc:
    entries: list[tuple[str, str]]  # (title, page label)


@dataclass
class Bullets:
    items: list[list[str]]  # each item: its lines


@dataclass
class Fill:
    """Filler paragraphs down to `bottom` points above the page's lower edge: the page is full
    when the next item starts."""

    bottom: float


@dataclass
class Spans:
    """A paragraph whose lines are set from pieces in their own font, size and rise above the
    baseline, as TeX sets inline code (a typewriter font a hair below the baseline) and footnote
    marks (small, raised)."""

    lines: list[list[tuple[str, str, float, float]]]  # each line's (text, font, size, rise)
    indent: float = 0.0  # the first line's indent
    title: str = ""  # an outline entry at the paragraph (a run-in title, as LaTeX's \paragraph sets)
    level: int = 2


Item = Heading | Para | Code | Label | Table | Toc | Bullets | Fill | Spans


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


class _Writer:
    def __init__(self, canvas: Canvas, spaces: bool, outline: bool) -> None:
        self.c = canvas
        self.spaces = spaces
        self.outline = outline
        self.y = HEIGHT - MARGIN
        self.marks = 0

    def text(self, x: float, y: float, text: str, font: str, size: float) -> None:
        self.c.setFont(font, size)
        if self.spaces or " " not in text.strip():
            self.c.drawString(x, y, text)
            return
        # TeX style: one TJ array, words separated by a kerning offset of one space's width
        # (in thousandths of the font size), no space glyphs.
        name = self.c._doc.getInternalFontName(font)
        space = stringWidth(" ", font, 1000)
        parts: list[str] = []
        for index, word in enumerate(text.split(" ")):
            if index:
                parts.append(f"{-space:.0f}")
            if word:
                parts.append(f"({_escape(word)})")
        self.c.addLiteral(f"BT {name} {size} Tf 1 0 0 1 {x:.2f} {y:.2f} Tm [{' '.join(parts)}] TJ ET")

    def heading(self, item: Heading) -> None:
        size = {1: 18.0, 2: 14.0}.get(item.level, 12.0)
        self.y -= size * 0.8
        top = self.y + size
        for index, line in enumerate(item.text.split("\n")):
            if index:
                self.y -= size * 1.2
            self.text(MARGIN, self.y, line, "Helvetica-Bold", size)
        if self.outline:
            key = f"h{self.marks}"
            self.marks += 1
            self.c.bookmarkHorizontal(key, 0, top)
            self.c.addOutlineEntry(" ".join(item.text.split()), key, level=item.level - 1)
        self.y -= size * 0.9

    def para(self, item: Para) -> None:
        for line in item.lines:
            self.y -= LEADING
            self.text(MARGIN, self.y, line, BODY_FONT, BODY_SIZE)
        self.y -= LEADING * 0.7

    def code(self, item: Code) -> None:
        char = stringWidth(" ", CODE_FONT, CODE_SIZE)
        for line in item.lines:
            self.y -= CODE_LEADING
            stripped = line.lstrip(" ")
            if stripped:
                self.c.setFont(CODE_FONT, CODE_SIZE)
                self.c.drawString(MARGIN + 10 + char * (len(line) - len(stripped)), self.y, stripped)
        self.y -= CODE_LEADING * 0.7

    def label(self, item: Label) -> None:
        self.y -= 10
        width = stringWidth(item.text, "Helvetica-Oblique", 8)
        self.text(WIDTH - MARGIN - width, self.y, item.text, "Helvetica-Oblique", 8)
        self.y -= 4

    def table(self, item: Table) -> None:
        columns = len(item.rows[0])
        widths = item.widths or [(WIDTH - 2 * MARGIN) / columns] * columns
        row_height = 16.0
        top = self.y - 4
        self.c.setLineWidth(0.6)
        for r, row in enumerate(item.rows):
            x = MARGIN
            baseline = top - row_height * r - 11.5
            for cell, width in zip(row, widths, strict=True):
                font = "Helvetica-Bold" if r == 0 else BODY_FONT
                self.text(x + 4, baseline, cell, font, 9)
                x += width
        bottom = top - row_height * len(item.rows)
        for r in range(len(item.rows) + 1):
            self.c.line(MARGIN, top - row_height * r, MARGIN + sum(widths), top - row_height * r)
        x = MARGIN
        for width in [0.0, *widths]:
            x += width
            self.c.line(x, top, x, bottom)
        self.y = bottom - LEADING * 0.7

    def toc(self, item: Toc) -> None:
        dot = stringWidth(". ", BODY_FONT, BODY_SIZE)
        for title, page in item.entries:
            self.y -= LEADING + 2
            self.text(MARGIN, self.y, title, BODY_FONT, BODY_SIZE)
            start = MARGIN + stringWidth(title + " ", BODY_FONT, BODY_SIZE)
            number_width = stringWidth(page, BODY_FONT, BODY_SIZE)
            count = int((WIDTH - MARGIN - number_width - 6 - start) / dot)
            self.text(start, self.y, ". " * count, BODY_FONT, BODY_SIZE)
            self.text(WIDTH - MARGIN - number_width, self.y, page, BODY_FONT, BODY_SIZE)
        self.y -= LEADING

    def fill(self, item: Fill) -> None:
        number = 0
        while self.y - 2 * LEADING - LEADING * 0.7 > item.bottom:
            number += 1
            self.para(Para([f"Filler paragraph {number} explains one more detail of how the index keeps",
                            "its passages, so that this page is full."]))

    def spans(self, item: Spans) -> None:
        if item.title and self.outline:
            key = f"h{self.marks}"
            self.marks += 1
            self.c.bookmarkHorizontal(key, 0, self.y)
            self.c.addOutlineEntry(item.title, key, level=item.level - 1)
        for number, pieces in enumerate(item.lines):
            self.y -= LEADING
            x = MARGIN + (item.indent if number == 0 else 0.0)
            for text, font, size, rise in pieces:
                self.text(x, self.y + rise, text, font, size)
                x += stringWidth(text, font, size)
        self.y -= LEADING * 0.7

    def bullets(self, item: Bullets) -> None:
        for lines in item.items:
            for index, line in enumerate(lines):
                self.y -= LEADING
                if index == 0:
                    self.c.setFont(BODY_FONT, BODY_SIZE)
                    # An en dash: reportlab writes "•" with a code no text extractor can map.
                    self.c.drawString(MARGIN + 6, self.y, "\u2013")
                self.text(MARGIN + 18, self.y, line, BODY_FONT, BODY_SIZE)
        self.y -= LEADING * 0.7


def manual_pdf(
    pages: list[list[Item]],
    *,
    title: str | None = None,
    header: str | list[str] | None = "Citeline Manual, Release 1.0",
    footer: str | None = "Example Corp. All rights reserved.",
    page_labels: list[str] | None = None,
    spaces: bool = False,
    outline: bool = True,
) -> bytes:
    """A PDF with one list of items per page. The header carries the page number at its right,
    the footer its text at the left and "Page N" at the right (both at fixed positions); an empty
    footer is the page number alone. A list of headers gives each page its own (a chapter's title)."""
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=(WIDTH, HEIGHT), invariant=True)
    if title is not None:
        canvas.setTitle(title)
    writer = _Writer(canvas, spaces, outline)
    for number, items in enumerate(pages, start=1):
        label = page_labels[number - 1] if page_labels else str(number)
        if header is not None:
            text = header if isinstance(header, str) else header[number - 1]
            writer.text(MARGIN, HEIGHT - 40, text, "Helvetica-Oblique", 9)
            writer.text(WIDTH - MARGIN - stringWidth(label, "Helvetica-Oblique", 9), HEIGHT - 40, label,
                        "Helvetica-Oblique", 9)
        if footer is not None:
            if footer:
                writer.text(MARGIN, 36, footer, BODY_FONT, 8)
            page_text = f"Page {label}"
            writer.text(WIDTH - MARGIN - stringWidth(page_text, BODY_FONT, 8), 36, page_text, BODY_FONT, 8)
        writer.y = HEIGHT - MARGIN
        for item in items:
            if isinstance(item, Heading):
                writer.heading(item)
            elif isinstance(item, Para):
                writer.para(item)
            elif isinstance(item, Code):
                writer.code(item)
            elif isinstance(item, Label):
                writer.label(item)
            elif isinstance(item, Table):
                writer.table(item)
            elif isinstance(item, Toc):
                writer.toc(item)
            elif isinstance(item, Fill):
                writer.fill(item)
            elif isinstance(item, Spans):
                writer.spans(item)
            else:
                writer.bullets(item)
        canvas.showPage()
    canvas.save()
    return out.getvalue() if spaces else _wide_space_fonts(out.getvalue())


def _wide_space_fonts(data: bytes) -> bytes:
    """Give every standard font explicit /Widths with a 1000-unit space (letters keep their
    real widths, so glyph positions stay true)."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import ArrayObject, NameObject, NumberObject

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    for page in writer.pages:
        fonts = page["/Resources"]["/Font"].get_object()
        for key in fonts:
            font = fonts[key].get_object()
            base = str(font["/BaseFont"])[1:]
            widths = [1000] + [round(stringWidth(chr(code), base, 1000)) for code in range(33, 127)]
            font[NameObject("/FirstChar")] = NumberObject(32)
            font[NameObject("/LastChar")] = NumberObject(126)
            font[NameObject("/Widths")] = ArrayObject(NumberObject(width) for width in widths)
    result = io.BytesIO()
    writer.write(result)
    return result.getvalue()
