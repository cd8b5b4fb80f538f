"""PDF: text as a person reads it, from where glyphs sit on the page.

pypdf (BSD) opens the file first: it decrypts, counts pages, reads the metadata and the outline,
and inflates every stream the text extractor will need under `LoadLimits`' decompression caps,
so a bomb is refused before anything else parses it. pdfminer.six (MIT) then gives each glyph
with its font and position and each ruling line; `pdf_layout` turns them into words, lines and
ruled tables (with pdfplumber's table finder, MIT), `pdf_furniture` removes running headers and
footers, page numbers, continuation labels and tables of contents, and `pdf_flow` rebuilds
headings, paragraphs, list items, code and table rows across page breaks. PyMuPDF is AGPL and
is not used. The whole call runs in the parse worker (time and address-space limits).

Sections are the heading sections cut at page breaks, so every chunk keeps its page; a block
that crosses a page break stays whole in the section of its first page and lists both pages.
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from citeline.documents.builder import DocumentBuilder
from citeline.documents.limits import current_limits
from citeline.documents.loaders import sanitize
from citeline.documents.models import LoadedDocument, Section
from citeline.documents.pdf_flow import OutlineEntry, build_blocks
from citeline.documents.pdf_furniture import (
    remove_contents_listing,
    remove_running_lines,
    strip_continuation_labels,
)
from citeline.documents.pdf_layout import PageLayout, read_page
from citeline.documents.registry import register_loader
from citeline.errors import IngestError

_METADATA_KEYS = {"/Author": "author", "/Subject": "subject", "/Keywords": "keywords",
                  "/CreationDate": "created", "/ModDate": "modified"}
# Titles producers write when the author gave none: the first heading says more.
_PLACEHOLDER_TITLE = re.compile(
    r"^(?:untitled.*|document\d*|microsoft (?:word|powerpoint) - .*|.*\.(?:docx?|pdf|tex|dvi|odt|rtf|indd|pptx?))$",
    re.IGNORECASE,
)
# Outline entries beyond this depth or count are not read (a hostile outline can be huge).
_MAX_OUTLINE_ENTRIES = 5000
_MAX_OUTLINE_DEPTH = 8


def _decompression_caps(limit: int) -> dict[str, int]:
    # Every decoder pypdf has gets the same output cap: a bomb in any filter is still a bomb.
    return {
        "zlib_maximum_output_length": limit,
        "lzw_maximum_output_length": limit,
        "run_length_maximum_output_length": limit,
        "jbig2_maximum_output_length": limit,
        "brotli_maximum_output_length": limit,
        "array_based_stream_maximum_output_length": limit,
        "maximum_declared_stream_length": limit,
        "stream_decoding_work_maximum_length": limit,
        "image_maximum_buffer_size": limit,
    }


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if len(self.messages) < 20:
            self.messages.append(record.getMessage())


@contextmanager
def _pypdf_warnings() -> Iterator[list[str]]:
    """pypdf reports what it repaired (no %%EOF, a circular xref chain...) only as log warnings;
    collect them so a failure can say what is actually wrong with the file."""
    handler = _Collect()
    logger = logging.getLogger("pypdf")
    logger.addHandler(handler)
    try:
        yield handler.messages
    finally:
        logger.removeHandler(handler)


def _damage(exc: Exception, warnings: list[str]) -> str:
    notes = list(dict.fromkeys(w.strip() for w in warnings if w.strip()))[:3]
    detail = f"{exc.__class__.__name__}: {str(exc)[:200]}" + "".join(f"; {n[:120]}" for n in notes)
    everything = " ".join([str(exc), *notes]).lower()
    if "eof marker" in everything or "ended unexpectedly" in everything:
        return f"looks truncated ({detail})"
    if "circular" in everything:
        return f"has a circular cross-reference chain ({detail})"
    return detail


# What pdfminer raises on a file it cannot parse (beside the builtin errors listed below).
def _parser_errors() -> tuple[type[Exception], ...]:
    from pdfminer.psexceptions import PSException

    return (PSException, ValueError, KeyError, TypeError,
            AttributeError, IndexError, RecursionError, AssertionError, OSError, EOFError,
            NotImplementedError, ZeroDivisionError)


class PdfLoader:
    """Loads PDFs as headings, paragraphs, list items, code and table rows with their pages."""

    suffixes: tuple[str, ...] = (".pdf",)

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        """A PDF as blocks of clean text, page by page: headers and footers, page numbers and contents
        leaders removed, hyphenation and broken words repaired, tables as rows."""
        if b"%PDF-" not in data[:1024]:  # the spec allows junk before the header, within 1 KB
            raise IngestError(f"{path.name}: not a PDF (no %PDF- header)",
                              hint="check the file or its extension")
        with _pypdf_warnings() as warnings:
            reader, info, outline, caps = self._open(path.name, data, warnings)
            pages = self._layout(path.name, data, reader, caps, warnings)
        return self._document(path, pages, info, outline)

    # -- opening and guarding (pypdf) ----------------------------------------------------

    def _open(self, name: str, data: bytes, warnings: list[str]) -> tuple[Any, dict[str, Any], list[OutlineEntry], Any]:
        import pypdf

        limits = current_limits()
        caps = pypdf.get_configuration().with_overwrites(**_decompression_caps(limits.max_decompressed_bytes))
        with self._errors(name, warnings), pypdf.apply_configuration(caps):
            reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
            if reader.is_encrypted:
                self._decrypt(reader, name)
            pages = len(reader.pages)
            if pages > limits.max_pages:
                raise IngestError(
                    f"{name}: has {pages:,} pages (limit {limits.max_pages:,})",
                    hint="split the PDF, or raise CITELINE_MAX_PAGES",
                )
            _inflate_text_streams(reader)
            info = self._info(reader)
            info["pages"] = pages
            outline = _outline(reader)
        return reader, info, outline, caps

    @contextmanager
    def _errors(self, name: str, warnings: list[str]) -> Iterator[None]:
        from pypdf.errors import DependencyError, FileNotDecryptedError, LimitReachedError, PdfReadError

        limit = current_limits().max_decompressed_bytes
        try:
            yield
        except IngestError:
            raise
        except LimitReachedError as exc:
            raise IngestError(
                f"{name}: decompresses to more than {limit:,} bytes (possible decompression bomb: {exc})",
                hint="if the file is genuine, raise CITELINE_MAX_DECOMPRESSED_BYTES",
            ) from exc
        except FileNotDecryptedError as exc:
            raise self._encrypted(name) from exc
        except DependencyError as exc:
            raise IngestError(f"{name}: cannot be decrypted here ({exc})",
                              hint="install `pypdf[crypto]`") from exc
        except (PdfReadError, ValueError, KeyError, TypeError, AttributeError, IndexError,
                RecursionError, AssertionError, OSError) as exc:
            # pypdf reports structural damage through many exception types; all mean the same to
            # a user: the file is damaged (truncated download, broken cross-reference table...).
            raise self._damaged(name, exc, warnings) from exc

    @staticmethod
    def _damaged(name: str, exc: Exception, warnings: list[str]) -> IngestError:
        return IngestError(
            f"{name}: is a damaged or malformed PDF: {_damage(exc, warnings)}",
            hint="re-download or re-export it (e.g. `qpdf in.pdf out.pdf` often repairs it)",
        )

    @staticmethod
    def _encrypted(name: str) -> IngestError:
        return IngestError(
            f"{name}: is password-protected",
            hint="remove the password (`qpdf --decrypt --password=PASS in.pdf out.pdf`) and ingest again",
        )

    def _decrypt(self, reader: Any, name: str) -> None:
        # Many PDFs are "encrypted" with an empty user password only to restrict printing or
        # copying; those open fine. A real user password cannot be guessed: fail clearly.
        from pypdf import PasswordType

        if reader.decrypt("") == PasswordType.NOT_DECRYPTED:
            raise self._encrypted(name)

    @staticmethod
    def _info(reader: Any) -> dict[str, Any]:
        try:
            meta = reader.metadata or {}
        except Exception:  # metadata is optional: a damaged /Info must not fail a readable PDF
            return {}
        info: dict[str, Any] = {}
        title = meta.get("/Title")
        if title:
            info["title"] = sanitize(str(title))[0]
        for key, field in _METADATA_KEYS.items():
            value = meta.get(key)
            if value:
                info[field] = sanitize(str(value))[0][:500]
        return info

    # -- layout (pdfminer) ---------------------------------------------------------------

    def _layout(self, name: str, data: bytes, reader: Any, caps: Any, warnings: list[str]) -> list[PageLayout]:
        errors = _parser_errors()
        try:
            return _read_layout(data)
        except errors as first:
            # pdfminer is stricter than pypdf, which repaired the file on reading (and may have
            # decrypted it with an empty password): read pypdf's rewritten copy instead.
            import pypdf

            try:
                with self._errors(name, warnings), pypdf.apply_configuration(caps):
                    repaired = io.BytesIO()
                    pypdf.PdfWriter(clone_from=reader).write(repaired)
                return _read_layout(repaired.getvalue())
            except errors as exc:
                raise self._damaged(name, first, warnings) from exc

    def _document(self, path: Path, pages: list[PageLayout], info: dict[str, Any],
                  outline: list[OutlineEntry]) -> LoadedDocument:
        removed = sum(page.removed_chars for page in pages)
        furniture = remove_running_lines(pages)
        furniture += strip_continuation_labels(pages)
        contents = remove_contents_listing(pages)
        builder = DocumentBuilder()
        for page in pages:
            if page.hidden_text:
                builder.hidden(page.hidden_text, f"invisible text on page {page.number}")
        build_blocks(pages, outline, builder)
        if not builder.blocks:
            raise IngestError(
                f"{path.name}: has no extractable text (a scanned PDF?)",
                hint="run OCR on it first, e.g. `ocrmypdf in.pdf out.pdf`",
            )
        title = str(info.pop("title", "") or "").strip()
        if _PLACEHOLDER_TITLE.match(title):
            title = ""
        info["furniture_lines_removed"] = furniture
        info["contents_entries_removed"] = contents
        document = builder.build(title or builder.first_heading or path.stem, info, removed)
        document.sections = _page_sections(document)
        return document


def _read_layout(data: bytes) -> list[PageLayout]:
    # pdfminer without its layout analysis (laparams=None): glyphs and paths only, grouped by
    # `pdf_layout`, which is both faster and predictable.
    from pdfminer.converter import PDFPageAggregator
    from pdfminer.pdfdocument import PDFDocument
    from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
    from pdfminer.pdfpage import PDFPage
    from pdfminer.pdfparser import PDFParser

    document = PDFDocument(PDFParser(io.BytesIO(data)), password="")
    resources = PDFResourceManager(caching=True)
    device = PDFPageAggregator(resources, laparams=None)
    interpreter = PDFPageInterpreter(resources, device)
    layouts: list[PageLayout] = []
    for number, page in enumerate(PDFPage.create_pages(document), start=1):
        interpreter.process_page(page)
        layouts.append(read_page(device.get_result(), number))
    return layouts


def _inflate_text_streams(reader: Any) -> None:
    """Decode, under pypdf's caps, every stream the text extractor will decode: page contents,
    form XObjects (recursively) and fonts' ToUnicode maps and embedded programs. pdfminer has
    no output cap of its own, so a bomb must be caught here."""
    seen: set[int] = set()
    for page in reader.pages:
        _inflate(page.get("/Contents"), seen)
        _inflate_resources(page.get("/Resources"), seen, 0)


def _inflate(value: Any, seen: set[int]) -> Any:
    from pypdf.generic import ArrayObject, IndirectObject, StreamObject

    if isinstance(value, IndirectObject):
        if value.idnum in seen:
            return None
        seen.add(value.idnum)
        value = value.get_object()
    if isinstance(value, ArrayObject):
        for item in value:
            _inflate(item, seen)
    elif isinstance(value, StreamObject):
        value.get_data()
    return value


def _inflate_resources(resources: Any, seen: set[int], depth: int) -> None:
    from pypdf.generic import DictionaryObject

    resources = resources.get_object() if resources is not None else None
    if not isinstance(resources, DictionaryObject) or depth > _MAX_OUTLINE_DEPTH:
        return
    fonts = resources.get("/Font")
    fonts = fonts.get_object() if fonts is not None else None
    if isinstance(fonts, DictionaryObject):
        for ref in fonts.values():
            font = ref.get_object()
            if not isinstance(font, DictionaryObject):
                continue
            _inflate(font.get("/ToUnicode"), seen)
            descendants = font.get("/DescendantFonts")
            for descendant in (descendants.get_object() if descendants is not None else None) or []:
                _inflate_font_program(descendant.get_object(), seen)
            _inflate_font_program(font, seen)
    xobjects = resources.get("/XObject")
    xobjects = xobjects.get_object() if xobjects is not None else None
    if isinstance(xobjects, DictionaryObject):
        for ref in xobjects.values():
            key = getattr(ref, "idnum", None)
            if key is not None and key in seen:
                continue
            xobject = ref.get_object()
            if isinstance(xobject, DictionaryObject) and xobject.get("/Subtype") == "/Form":
                if key is not None:
                    seen.add(key)
                _inflate(xobject, seen)
                _inflate_resources(xobject.get("/Resources"), seen, depth + 1)


def _inflate_font_program(font: Any, seen: set[int]) -> None:
    from pypdf.generic import DictionaryObject

    if not isinstance(font, DictionaryObject):
        return
    descriptor = font.get("/FontDescriptor")
    descriptor = descriptor.get_object() if descriptor is not None else None
    if isinstance(descriptor, DictionaryObject):
        for key in ("/FontFile", "/FontFile2", "/FontFile3"):
            _inflate(descriptor.get(key), seen)


def _outline(reader: Any) -> list[OutlineEntry]:
    """The bookmarks as (title, page, depth); an unreadable outline is no outline."""
    entries: list[OutlineEntry] = []

    def walk(items: Any, depth: int) -> None:
        for item in items:
            if len(entries) >= _MAX_OUTLINE_ENTRIES:
                return
            if isinstance(item, list):
                if depth < _MAX_OUTLINE_DEPTH:
                    walk(item, depth + 1)
                continue
            try:
                page = reader.get_destination_page_number(item)
            except Exception:  # a dangling destination: skip the bookmark, keep the rest
                continue
            title = sanitize(str(getattr(item, "title", "") or ""))[0].strip()
            if title and page is not None and page >= 0:
                entries.append(OutlineEntry(title, page + 1, depth))

    try:
        walk(reader.outline, 0)
    except Exception:  # the outline is optional: a damaged one must not fail a readable PDF
        return entries
    return entries


def _page_sections(document: LoadedDocument) -> list[Section]:
    """The heading sections, each cut where its blocks move to another page, so a section (and
    every chunk cut from it) has one page. A block crossing a page break stays whole."""
    sections: list[Section] = []
    for section in document.sections:
        start, page = section.start, section.page
        for block in document.blocks:
            if block.start < section.start or block.start >= section.end or block.page is None:
                continue
            if page is not None and block.page != page and block.start > start:
                sections.append(Section(section.heading, start, block.start, page))
                start = block.start
            page = block.page
        sections.append(Section(section.heading, start, section.end, page))
    return sections


register_loader(PdfLoader())
