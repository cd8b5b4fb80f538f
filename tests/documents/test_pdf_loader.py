from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from citeline.documents.chunking import chunk_document
from citeline.documents.limits import LoadLimits, use_limits
from citeline.documents.registry import loader_for
from citeline.errors import IngestError

from .makers import circular_xref_pdf, encrypted_pdf, pdf_bytes


def load(tmp_path: Path, data: bytes, name: str = "doc.pdf"):
    path = tmp_path / name
    path.write_bytes(data)
    loader = loader_for(path)
    assert loader is not None
    return loader.load(path, data)


def test_one_section_per_page_and_every_chunk_keeps_its_page(tmp_path: Path) -> None:
    pages = [f"Page {n} talks about topic number {n}. " + ("filler words here " * 40) for n in range(1, 4)]
    doc = load(tmp_path, pdf_bytes(pages, title="Quarterly Report"))
    assert doc.title == "Quarterly Report"
    assert [s.page for s in doc.sections] == [1, 2, 3]
    for section, number in zip(doc.sections, range(1, 4), strict=True):
        assert doc.text[section.start : section.end].startswith(f"Page {number} talks")
    chunks = chunk_document(doc, doc_id="d", doc_hash="h", chunk_tokens=40, overlap=5)
    assert len(chunks) > 3
    for chunk in chunks:
        assert chunk.page is not None
        assert f"Page {chunk.page} talks" in doc.text[doc.sections[chunk.page - 1].start : chunk.end]
        assert doc.text[chunk.start : chunk.end] == chunk.text


def test_title_falls_back_to_the_file_name(tmp_path: Path) -> None:
    doc = load(tmp_path, pdf_bytes(["Some text"]), name="annual-plan.pdf")
    assert doc.title == "annual-plan"
    assert doc.metadata["pages"] == 1


def test_flate_compressed_pages_are_read(tmp_path: Path) -> None:
    doc = load(tmp_path, pdf_bytes(["Compressed hello"], compress=True))
    assert "Compressed hello" in doc.text


def test_blank_pages_are_skipped_but_page_numbers_stay_true(tmp_path: Path) -> None:
    doc = load(tmp_path, pdf_bytes(["First", "", "Third"]))
    assert [s.page for s in doc.sections] == [1, 3]


def test_encrypted_pdf_is_refused_with_the_fix(tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="password-protected") as info:
        load(tmp_path, encrypted_pdf())
    assert "qpdf --decrypt" in str(info.value)


def test_empty_user_password_pdf_opens(tmp_path: Path) -> None:
    import io

    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_bytes(["Readable but restricted"]))))
    writer.encrypt(user_password="", owner_password="owner", algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    assert "Readable but restricted" in load(tmp_path, out.getvalue()).text


def test_truncated_pdf_is_reported_as_truncated(tmp_path: Path) -> None:
    data = pdf_bytes(["Hello there"] * 3)
    with pytest.raises(IngestError, match="looks truncated"):
        load(tmp_path, data[: len(data) // 3])


def test_circular_xref_is_reported_not_looped(tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="circular cross-reference"):
        load(tmp_path, circular_xref_pdf())


def test_not_a_pdf_at_all(tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="not a PDF"):
        load(tmp_path, b"just some text pretending")


def test_decompression_bomb_is_capped(tmp_path: Path) -> None:
    # 4 MB of zeros compresses to ~4 KB; with a 1 MB cap it must be refused, not inflated.
    bomb = b"BT /F1 12 Tf 72 720 Td (x) Tj ET\n" + b" " * (4 * 1024 * 1024)
    data = pdf_bytes(["x"], compress=True, raw_streams=[bomb])
    assert len(data) < 20_000
    assert len(zlib.compress(bomb)) < 20_000
    with use_limits(LoadLimits(max_decompressed_bytes=1024 * 1024)), \
            pytest.raises(IngestError, match="decompression bomb"):
        load(tmp_path, data)


def test_page_count_is_capped(tmp_path: Path) -> None:
    with use_limits(LoadLimits(max_pages=5)), pytest.raises(IngestError, match=r"6 pages \(limit 5\)"):
        load(tmp_path, pdf_bytes([f"p{n}" for n in range(6)]))


def test_scanned_pdf_without_text_says_to_ocr(tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="no extractable text") as info:
        load(tmp_path, pdf_bytes(["", ""]))
    assert "ocrmypdf" in str(info.value)
