"""DOCX via python-docx: paragraphs and tables in document order, as typed blocks.

Heading styles become sections (the Title style a top-level one), List styles and numbered
paragraphs list items, tables rows labelled with the first row, code styles code blocks.

A DOCX is a ZIP: before python-docx inflates anything, the declared uncompressed sizes are
summed and capped (zipfile never inflates a member past its declared size, so the declared
total bounds the work), which defuses decompression bombs cheaply.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path
from typing import Any

from citeline.documents.builder import DocumentBuilder, item_name
from citeline.documents.limits import check_block_count, current_limits
from citeline.documents.loaders import sanitize
from citeline.documents.models import LoadedDocument
from citeline.documents.registry import register_loader
from citeline.errors import IngestError

_HEADING_STYLE = re.compile(r"^heading\s*([1-9])$", re.IGNORECASE)
# "List Bullet 2", "List Number", "List Paragraph", "List Continue": list items. ("List" alone
# marks a paragraph with direct numbering.)
_LIST_STYLE = re.compile(r"^List(?:\s+(Bullet|Number|Paragraph|Continue))?(?:\s+\d)?$", re.IGNORECASE)
# Word's styles for code and preformatted text: kept with their line breaks, as one block.
_CODE_STYLES = frozenset(("macro", "Macro Text", "HTML Preformatted", "HTML Code", "Code", "Source Code"))
_QUOTE_STYLES = frozenset(("Quote", "Intense Quote"))
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # encrypted OOXML and legacy .doc are OLE files
_MAX_MEMBERS = 10_000
_PARAGRAPH = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?p[\s/>]")  # <w:p>, <w:p w:rsidR=...>, <w:p/>


def _check_container(data: bytes, name: str) -> None:
    if data.startswith(_OLE_MAGIC):
        raise IngestError(
            f"{name}: is password-protected or a legacy Word 97-2003 file, not a DOCX",
            hint="remove the password, or re-save it as .docx in Word/LibreOffice",
        )
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise IngestError(f"{name}: is not a valid DOCX (not a ZIP container: {exc})",
                          hint="re-save it as .docx") from exc
    with archive:
        members = archive.infolist()
        limit = current_limits().max_decompressed_bytes
        if len(members) > _MAX_MEMBERS:
            raise IngestError(f"{name}: has {len(members):,} parts (limit {_MAX_MEMBERS:,})",
                              hint="this is not an ordinary Word document")
        total = sum(member.file_size for member in members)
        if total > limit:
            raise IngestError(
                f"{name}: decompresses to {total:,} bytes (limit {limit:,}; possible decompression bomb)",
                hint="if the file is genuine, raise CITELINE_MAX_DECOMPRESSED_BYTES",
            )
        if "word/document.xml" not in archive.namelist():
            raise IngestError(f"{name}: is a ZIP file but not a Word document (no word/document.xml)",
                              hint="check the file or its extension")
        # Counted in the raw XML (bounded by the size check above; C-speed), before python-docx
        # builds an object per paragraph.
        check_block_count(len(_PARAGRAPH.findall(archive.read("word/document.xml"))), name)


class DocxLoader:
    """Word documents: Heading styles become sections, List styles list items, tables rows."""

    suffixes: tuple[str, ...] = (".docx",)

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        """Check the container, then read paragraphs and tables in document order."""
        name = path.name
        _check_container(data, name)
        import docx
        from docx.opc.exceptions import PackageNotFoundError
        from docx.table import Table
        from docx.text.paragraph import Paragraph

        try:
            document = docx.Document(io.BytesIO(data))
            reader = _Reader()
            for element in document.element.body.iterchildren():
                tag = element.tag.rsplit("}", 1)[-1]
                if tag == "p":
                    reader.paragraph(Paragraph(element, document))
                elif tag == "tbl":
                    reader.table(Table(element, document))
            reader.end_code()
            properties = document.core_properties
            meta = {"author": properties.author, "created": properties.created,
                    "modified": properties.modified, "subject": properties.subject}
            core_title = properties.title
        except (PackageNotFoundError, KeyError, ValueError, zipfile.BadZipFile, AttributeError) as exc:
            raise IngestError(f"{name}: is a damaged DOCX ({exc.__class__.__name__}: {str(exc)[:200]})",
                              hint="open and re-save it in Word/LibreOffice") from exc
        except SyntaxError as exc:  # lxml.etree.XMLSyntaxError derives from SyntaxError
            raise IngestError(f"{name}: is a damaged DOCX (invalid XML: {str(exc)[:200]})",
                              hint="open and re-save it in Word/LibreOffice") from exc
        title = sanitize(core_title or "")[0].strip() or reader.title() or path.stem
        metadata = {key: str(value) for key, value in meta.items() if value}
        return reader.builder.build(title=title, metadata=metadata, sanitized_chars=reader.removed)


class _Reader:
    """Word paragraphs and tables, in document order, into a builder."""

    def __init__(self) -> None:
        self.builder = DocumentBuilder()
        self.removed = 0
        self.headings: list[tuple[int, str]] = []  # (level, title), in order
        self.list_group: object | None = None  # the list the previous paragraph belonged to
        self.list_number = 0
        self.code: list[str] = []  # consecutive code-styled paragraphs, one block

    def clean(self, raw: str) -> str:
        text, count = sanitize(raw)
        self.removed += count
        return text

    def title(self) -> str | None:
        """A Title-styled paragraph, else the first of the highest-level headings."""
        titled = [title for level, title in self.headings if level == 0]
        if titled:
            return titled[0]
        ranked = sorted(enumerate(self.headings), key=lambda item: (item[1][0], item[0]))
        return ranked[0][1][1] if ranked else None

    def visible_text(self, paragraph: Any) -> str:
        """The paragraph's text a reader sees: runs formatted as hidden (Word's "Hidden" font effect,
        shown only with formatting marks on), white or too small to read are text a person never
        reads, a classic place to plant instructions; they are reported when they carry one, never stored."""
        from docx.text.hyperlink import Hyperlink

        style_hidden = bool(paragraph.style is not None and paragraph.style.font.hidden)
        shown: list[str] = []
        hidden: list[str] = []
        for item in paragraph.iter_inner_content():
            for run in item.runs if isinstance(item, Hyperlink) else [item]:
                unseen = run.font.hidden or (style_hidden and run.font.hidden is None) or _invisible_run(run)
                (hidden if unseen else shown).append(run.text)
        if hidden:
            self.builder.hidden(" ".join(hidden), "hidden formatting in Word")
        return "".join(shown)

    def paragraph(self, paragraph: Any) -> None:
        style = (paragraph.style.name if paragraph.style is not None else "") or ""
        text = self.clean(self.visible_text(paragraph))
        if style in _CODE_STYLES:
            self.code.append(text)
            return
        self.end_code()
        if not text.strip():
            return  # an empty paragraph is spacing, and does not end a list
        level = _heading_level(style)
        list_style = _LIST_STYLE.match(style)
        if list_style is None and _has_numbering(paragraph) and level is None:
            list_style = _LIST_STYLE.match("List")
        if list_style is None:
            self.list_group = None
        if level is not None:
            block = self.builder.heading(level, text)
            if block is not None:
                self.headings.append((level, " ".join(text.split())))
        elif list_style is not None:
            if self.list_group is None:
                self.list_group, self.list_number = object(), 0
            self.list_number += 1
            marker = f"{self.list_number}. " if list_style.group(1) == "Number" else ""
            self.builder.block("list_item", marker + text, label=item_name(text), group=self.list_group)
        elif style in _QUOTE_STYLES:
            self.builder.block("quote", text)
        else:
            self.builder.block("paragraph", text)

    def end_code(self) -> None:
        if self.code:
            self.builder.block("code", "\n".join(self.code), preformatted=True)
            self.code = []

    def table(self, table: Any) -> None:
        self.end_code()
        self.list_group = None
        group = object()
        header: tuple[str, ...] = ()
        for index, row in enumerate(table.rows):
            cells: list[str] = []
            for cell in row.cells:
                text = " ".join(self.clean(cell.text).split())
                if not cells or cells[-1] != text:  # merged cells repeat their text per grid column
                    cells.append(text)
            if not any(cells):
                continue
            if index == 0:
                # Word marks a header row only by "repeat as header row": a first row without
                # the mark is still the best guess at the columns' names, but is kept as a row
                # too, since it may be data.
                header = tuple(cells)
                if _repeats_as_header(row):
                    continue
                self.builder.block("table_row", "", cells=tuple(cells), group=group)
                continue
            self.builder.block("table_row", "", cells=tuple(cells), label=" | ".join(header) or None, group=group)


def _invisible_run(run: Any) -> bool:
    """Whether a run is drawn so that a reader cannot see it on the page: white without a highlight
    behind it, or under a point in size."""
    font = run.font
    white = font.color.type is not None and str(font.color.rgb or "").upper() == "FFFFFF" and font.highlight_color is None
    return bool(white or (font.size is not None and font.size.pt < 1))


def _heading_level(style: str) -> int | None:
    if style == "Title":
        return 0
    match = _HEADING_STYLE.match(style)
    return int(match.group(1)) if match else None


def _repeats_as_header(row: Any) -> bool:
    properties = row._tr.trPr
    return properties is not None and any(child.tag.endswith("}tblHeader") for child in properties)


def _has_numbering(paragraph: Any) -> bool:
    """Whether a paragraph is a list item by direct numbering rather than by a List style."""
    properties = paragraph._p.pPr
    return properties is not None and properties.numPr is not None


register_loader(DocxLoader())
