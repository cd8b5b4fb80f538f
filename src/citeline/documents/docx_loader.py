"""DOCX via python-docx: paragraphs and tables in document order; headings become sections.

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

from citeline.documents.limits import check_block_count, current_limits
from citeline.documents.loaders import heading_sections, join_blocks, sanitize
from citeline.documents.models import LoadedDocument
from citeline.documents.registry import register_loader
from citeline.errors import IngestError

_HEADING_STYLE = re.compile(r"^heading\s*([1-9])$", re.IGNORECASE)
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
    suffixes: tuple[str, ...] = (".docx",)

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        name = path.name
        _check_container(data, name)
        import docx
        from docx.opc.exceptions import PackageNotFoundError
        from docx.table import Table
        from docx.text.paragraph import Paragraph

        try:
            document = docx.Document(io.BytesIO(data))
            blocks: list[tuple[int | None, str]] = []  # (heading level or None, text)
            for element in document.element.body.iterchildren():
                tag = element.tag.rsplit("}", 1)[-1]
                if tag == "p":
                    paragraph = Paragraph(element, document)
                    blocks.append((self._heading_level(paragraph), paragraph.text))
                elif tag == "tbl":
                    blocks.append((None, self._table_text(Table(element, document))))
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
        return self._assemble(path, blocks, core_title, meta)

    @staticmethod
    def _heading_level(paragraph: Any) -> int | None:
        style = paragraph.style.name if paragraph.style is not None else ""
        if style == "Title":
            return 0
        match = _HEADING_STYLE.match(style or "")
        return int(match.group(1)) if match else None

    @staticmethod
    def _table_text(table: Any) -> str:
        rows: list[str] = []
        for row in table.rows:
            cells: list[str] = []
            for cell in row.cells:
                text = " ".join(cell.text.split())
                if not cells or cells[-1] != text:  # merged cells repeat their text per grid column
                    cells.append(text)
            if any(cells):
                rows.append(" | ".join(cells))
        return "\n".join(rows)

    @staticmethod
    def _assemble(path: Path, blocks: list[tuple[int | None, str]], core_title: str | None,
                  meta: dict[str, Any]) -> LoadedDocument:
        full, spans, removed = join_blocks(raw for _, raw in blocks)
        # (offset, level, text) of each heading block that kept some text
        headings = [(start, level, " ".join(full[start:end].split()))
                    for index, start, end in spans if (level := blocks[index][0]) is not None]
        sections = heading_sections(full, headings)
        title = sanitize(core_title or "")[0].strip()
        if not title:
            titled = [h for h in headings if h[1] == 0] or sorted(headings, key=lambda h: (h[1], h[0]))
            title = titled[0][2] if titled else path.stem
        metadata = {key: str(value) for key, value in meta.items() if value}
        return LoadedDocument(full, title, sections, metadata, removed)


register_loader(DocxLoader())
