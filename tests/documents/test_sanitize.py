"""Invisible characters (bidi overrides, zero-width, tags, controls) never reach the index,
whatever the format, and are counted."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeline.documents.loaders import sanitize
from citeline.documents.registry import loader_for

from .makers import docx_file, pdf_bytes

# RLO, ZWSP, ZWJ, tag "A", BOM mid-text, LRI...PDI, an ESC: 8 invisible characters.
HIDDEN = "\u202e\u200b\u200d\U000e0041\ufeff\u2066\u2069\x1b"
VISIBLE = "Payment is due in 30 days."
POISONED = f"Payment {HIDDEN[:4]}is due{HIDDEN[4:]} in 30 days."


def test_sanitize_counts_and_removes() -> None:
    clean, removed = sanitize(POISONED)
    assert clean == VISIBLE
    assert removed == len(HIDDEN) == 8


def test_sanitize_normalises_line_ends_without_counting() -> None:
    assert sanitize("a\r\nb\rc\x0cd") == ("a\nb\nc\nd", 0)


def _load(path: Path):
    loader = loader_for(path)
    assert loader is not None
    return loader.load(path, path.read_bytes())


@pytest.mark.parametrize("fmt", ["md", "txt", "html", "docx"])
def test_every_loader_removes_and_counts(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / f"doc.{fmt}"
    if fmt == "md":
        path.write_text(f"# Terms\n\n{POISONED}\n", encoding="utf-8")
    elif fmt == "txt":
        path.write_text(POISONED, encoding="utf-8")
    elif fmt == "html":
        path.write_text(f"<html><body><h1>Terms</h1><p>{POISONED}</p></body></html>", encoding="utf-8")
    else:
        # XML cannot carry C0 controls, so a DOCX can hold every hidden character but the ESC.
        docx_file(path, [("h1", "Terms"), ("p", POISONED.replace("\x1b", ""))])
    doc = _load(path)
    assert VISIBLE in doc.text
    assert not any(ch in doc.text for ch in HIDDEN)
    assert doc.sanitized_chars == (7 if fmt == "docx" else 8)


def test_pdf_loader_removes_and_counts(tmp_path: Path) -> None:
    # PDF text strings here are Latin-1, so only the C0 control survives into the content stream;
    # the metadata title carries the Unicode ones (pypdf decodes UTF-16 there).
    path = tmp_path / "doc.pdf"
    path.write_bytes(pdf_bytes(["Payment is\x1b due"]))
    doc = _load(path)
    assert "\x1b" not in doc.text
    assert doc.sanitized_chars == 1
