"""PDF via pypdf (BSD; PyMuPDF is AGPL and not used): one section per page, so every chunk
keeps its page number.

pypdf's own decompression caps are set from `LoadLimits`, the page count is capped before any
page is parsed, and the whole call runs in the parse worker (time and address-space limits).
"""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from citeline.documents.limits import current_limits
from citeline.documents.loaders import join_blocks, sanitize
from citeline.documents.models import LoadedDocument, Section
from citeline.documents.registry import register_loader
from citeline.errors import IngestError

_METADATA_KEYS = {"/Author": "author", "/Subject": "subject", "/Keywords": "keywords",
                  "/CreationDate": "created", "/ModDate": "modified"}


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


class PdfLoader:
    suffixes: tuple[str, ...] = (".pdf",)

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        if b"%PDF-" not in data[:1024]:  # the spec allows junk before the header, within 1 KB
            raise IngestError(f"{path.name}: not a PDF (no %PDF- header)",
                              hint="check the file or its extension")
        with _pypdf_warnings() as warnings:
            return self._load(path, data, warnings)

    def _load(self, path: Path, data: bytes, warnings: list[str]) -> LoadedDocument:
        import pypdf
        from pypdf.errors import DependencyError, FileNotDecryptedError, LimitReachedError, PdfReadError

        limits = current_limits()
        name = path.name
        try:
            bytes_cap = _decompression_caps(limits.max_decompressed_bytes)
            caps = pypdf.get_configuration().with_overwrites(**bytes_cap)
            with pypdf.apply_configuration(caps):
                reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
                if reader.is_encrypted:
                    self._decrypt(reader, name)
                pages = len(reader.pages)
                if pages > limits.max_pages:
                    raise IngestError(
                        f"{name}: has {pages:,} pages (limit {limits.max_pages:,})",
                        hint="split the PDF, or raise CITELINE_MAX_PAGES",
                    )
                texts = [page.extract_text() or "" for page in reader.pages]
                info = self._info(reader)
        except IngestError:
            raise
        except LimitReachedError as exc:
            raise IngestError(
                f"{name}: decompresses to more than {limits.max_decompressed_bytes:,} bytes "
                f"(possible decompression bomb: {exc})",
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
            raise IngestError(
                f"{name}: is a damaged or malformed PDF: {_damage(exc, warnings)}",
                hint="re-download or re-export it (e.g. `qpdf in.pdf out.pdf` often repairs it)",
            ) from exc

        full, spans, removed = join_blocks(texts)
        sections = [Section(None, start, end, page=index + 1) for index, start, end in spans]
        if not sections:
            raise IngestError(
                f"{name}: has no extractable text (a scanned PDF?)",
                hint="run OCR on it first, e.g. `ocrmypdf in.pdf out.pdf`",
            )
        title = str(info.pop("title", "") or "").strip() or path.stem
        info["pages"] = len(texts)
        return LoadedDocument(full, title, sections, info, removed)

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


register_loader(PdfLoader())
