"""Markdown and plain text: front matter, encodings, binaries, degenerate lines."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from citeline.documents.chunking import chunk_document
from citeline.documents.limits import check_line_lengths
from citeline.documents.registry import loader_for
from citeline.errors import IngestError


def load(tmp_path: Path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    loader = loader_for(path)
    assert loader is not None
    return loader.load(path, data)


def test_markdown_front_matter_becomes_metadata_and_is_not_indexed(tmp_path: Path) -> None:
    data = b"---\ntitle: Release Notes\nauthor: 'Ada'\nversion: 2\n---\n# Changes\n\nFixed the retry bug.\n"
    doc = load(tmp_path, "notes.md", data)
    assert doc.metadata == {"title": "Release Notes", "author": "Ada", "version": "2"}
    assert doc.title == "Release Notes"
    chunks = chunk_document(doc, doc_id="d", doc_hash="h", chunk_tokens=50, overlap=5)
    assert all("author" not in c.text for c in chunks)
    assert chunks[0].section == "Changes"


def test_markdown_heading_closing_hashes_and_fences(tmp_path: Path) -> None:
    doc = load(tmp_path, "a.md", b"# Top ##\n\ntext\n\n```\n# not a heading\n```\n\n## C# tips\n\nmore\n")
    assert [s.heading for s in doc.sections] == ["Top", "Top > C# tips"]


def test_cp1252_text_is_detected_and_decoded(tmp_path: Path) -> None:
    text = "Café crème brûlée — “quoted” naïve façade. " * 20
    doc = load(tmp_path, "legacy.txt", text.encode("cp1252"))
    assert "Café crème brûlée" in doc.text
    assert "“quoted”" in doc.text


def test_undetectable_encoding_fails_with_the_fix(tmp_path: Path) -> None:
    # Bytes that are invalid UTF-8 and look like no text encoding at all.
    data = bytes([0x80, 0x81, 0xFE, 0xFF, 0x90, 0x8D]) * 50 + bytes(range(1, 32)) * 10
    with pytest.raises(IngestError, match=r"not valid UTF-8.*iconv"):
        load(tmp_path, "weird.txt", data)


@pytest.mark.parametrize(
    ("payload", "what"),
    [
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "PNG image"),
        (b"%PDF-1.7\n...", "a PDF"),
        (b"PK\x03\x04" + b"\x00" * 64, "ZIP archive"),
        (b"\x7fELF\x02\x01\x01" + b"\x00" * 64, "executable"),
        (b"abc\x00\x01\x02" * 100, "NUL bytes"),
    ],
)
def test_binary_file_named_md_is_refused_precisely(tmp_path: Path, payload: bytes, what: str) -> None:
    with pytest.raises(IngestError, match=what):
        load(tmp_path, "notes.md", payload)


def test_long_line_is_refused_quickly(tmp_path: Path) -> None:
    started = time.process_time()
    expected = r"line 3 is 2,000,001 characters long \(limit 1,000,000\).*MAX_LINE_CHARS"
    with pytest.raises(IngestError, match=expected):
        load(tmp_path, "dump.md", b"ok\nfine\n" + b"x" * 2_000_001 + b"\nend\n")
    assert time.process_time() - started < 5


def test_line_check_is_exact_at_the_limit() -> None:
    check_line_lengths("a" * 100 + "\n" + "b" * 100, "f", limit=100)
    with pytest.raises(IngestError, match="line 2 is 101"):
        check_line_lengths("a" * 100 + "\n" + "b" * 101, "f", limit=100)


def test_heading_regex_is_linear_on_hostile_lines(tmp_path: Path) -> None:
    # With the old backtracking pattern this line took minutes; now it is not even a heading.
    hostile = b"# a" + b" " * 200_000 + b"b\n"
    started = time.process_time()
    doc = load(tmp_path, "hostile.md", hostile + b"\n# Real\n\nbody\n")
    assert time.process_time() - started < 5
    assert [s.heading for s in doc.sections][-1] == "Real"


def test_long_tokens_are_cut_into_bounded_chunks() -> None:
    from citeline.documents.models import LoadedDocument, Section

    text = "start " + "z" * 300_000 + " end"
    doc = LoadedDocument(text, "t", [Section(None, 0, len(text))])
    chunks = chunk_document(doc, doc_id="d", doc_hash="h", chunk_tokens=100, overlap=10)
    assert max(len(c.text) for c in chunks) <= 100 * 64 + 100
    assert all(text[c.start : c.end] == c.text for c in chunks)
    assert chunks[0].text.startswith("start") and chunks[-1].text.endswith("end")


def test_huge_sections_are_chunked_in_slices_with_exact_offsets() -> None:
    from citeline.documents.models import LoadedDocument, Section

    text = "\n".join(f"line {n} has a few words in it" for n in range(60_000))  # ~2 MB, one section
    doc = LoadedDocument(text, "t", [Section(None, 0, len(text))])
    chunks = chunk_document(doc, doc_id="d", doc_hash="h", chunk_tokens=200, overlap=20)
    assert all(text[c.start : c.end] == c.text for c in chunks)
    assert chunks[-1].text.endswith("line 59999 has a few words in it")
    assert len({c.chunk_id for c in chunks}) == len(chunks)
