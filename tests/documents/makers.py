"""Builders of real test files (PDF, DOCX, Jupyter notebooks) written byte by byte or with the real libraries."""

from __future__ import annotations

import io
import json
import zlib
from pathlib import Path
from typing import Any


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def pdf_bytes(pages: list[str], *, title: str | None = None, compress: bool = False,
              raw_streams: list[bytes] | None = None) -> bytes:
    """A valid PDF with one text line per page (Helvetica), optional /Title and Flate streams.

    `raw_streams` replaces the page content streams with given (uncompressed) bytes.
    """
    objects: list[bytes] = []
    count = len(pages)
    first_page = 4
    kids = " ".join(f"{first_page + 2 * i} 0 R" for i in range(count))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for index, text in enumerate(pages):
        content_number = first_page + 2 * index + 1
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >>"
            f" /Contents {content_number} 0 R >>".encode()
        )
        lines = text.split("\n")
        ops = "BT /F1 12 Tf 14 TL 72 720 Td " + " ".join(f"({_escape(line)}) Tj T*" for line in lines) + " ET"
        stream = raw_streams[index] if raw_streams else ops.encode("latin-1")
        if compress:
            body = zlib.compress(stream, 9)
            objects.append(f"<< /Length {len(body)} /Filter /FlateDecode >>\nstream\n".encode() + body
                           + b"\nendstream")
        else:
            objects.append(f"<< /Length {len(stream)} >>\nstream\n".encode() + stream + b"\nendstream")
    info_number = None
    if title is not None:
        objects.append(f"<< /Title ({_escape(title)}) >>".encode())
        info_number = len(objects)
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(f"{number} 0 obj\n".encode() + body + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for offset in offsets:
        out.write(f"{offset:010d} 00000 n \n".encode())
    info = f" /Info {info_number} 0 R" if info_number else ""
    trailer = f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R{info} >>\n"
    out.write(f"{trailer}startxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()


def circular_xref_pdf() -> bytes:
    """A PDF whose trailer's /Prev points back at its own xref section (an infinite chain) and
    whose objects are otherwise missing: readers that follow /Prev blindly loop forever."""
    head = b"%PDF-1.4\n"
    xref_offset = len(head)
    trailer = f"trailer\n<< /Size 1 /Root 1 0 R /Prev {xref_offset} >>\n"
    xref = f"xref\n0 1\n0000000000 65535 f \n{trailer}".encode()
    return head + xref + f"startxref\n{xref_offset}\n%%EOF\n".encode()


def encrypted_pdf(password: str = "s3cret") -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_bytes(["Secret plans for the launch"]))))
    writer.encrypt(user_password=password, owner_password=password + "-owner", algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


_STYLES = {"li": "List Bullet", "ol": "List Number", "code": "macro", "quote": "Quote"}


def docx_file(path: Path, blocks: list[tuple[str, str]], *, title: str | None = None) -> Path:
    """Write a DOCX: blocks of ("h1".."h3" | "title" | "p", text), ("table", "a,b;c,d"), and
    Word's built-in styles for lists, code and quotes: ("li" | "ol" | "code" | "quote", text)."""
    import docx

    document = docx.Document()
    if title is not None:
        document.core_properties.title = title
    for kind, text in blocks:
        if kind == "title":
            document.add_heading(text, level=0)
        elif kind.startswith("h"):
            document.add_heading(text, level=int(kind[1:]))
        elif kind == "table":
            rows = [row.split(",") for row in text.split(";")]
            table = document.add_table(rows=len(rows), cols=len(rows[0]))
            for r, row in enumerate(rows):
                for c, cell in enumerate(row):
                    table.cell(r, c).text = cell
        elif kind in _STYLES:
            document.add_paragraph(text, style=_STYLES[kind])
        else:
            document.add_paragraph(text)
    document.save(str(path))
    return path


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def markdown_cell(source: str, *, as_lines: bool = True, **extra: Any) -> dict[str, Any]:
    """A Markdown cell; Jupyter stores `source` as a list of lines, `as_lines=False` as one string."""
    return {"cell_type": "markdown", "metadata": {}, "source": _lines(source) if as_lines else source, **extra}


def raw_cell(source: str) -> dict[str, Any]:
    """A raw cell (text for nbconvert, not shown as prose)."""
    return {"cell_type": "raw", "metadata": {}, "source": _lines(source)}


def code_cell(source: str, *outputs: dict[str, Any], as_lines: bool = True) -> dict[str, Any]:
    """A code cell with its outputs (see `stream`, `result`, `error_output`)."""
    return {"cell_type": "code", "execution_count": 1, "metadata": {},
            "source": _lines(source) if as_lines else source, "outputs": list(outputs)}


def stream(text: str, name: str = "stdout") -> dict[str, Any]:
    """Text a cell printed to stdout or stderr."""
    return {"output_type": "stream", "name": name, "text": _lines(text)}


def result(data: dict[str, Any], kind: str = "execute_result") -> dict[str, Any]:
    """A cell's result (or a `display_data`): `data` maps MIME types to their representations."""
    output: dict[str, Any] = {"output_type": kind, "data": data, "metadata": {}}
    if kind == "execute_result":
        output["execution_count"] = 1
    return output


def error_output(ename: str, evalue: str, traceback: list[str]) -> dict[str, Any]:
    """An exception a cell raised, with IPython's (ANSI-coloured) traceback lines."""
    return {"output_type": "error", "ename": ename, "evalue": evalue, "traceback": traceback}


def notebook_bytes(cells: list[dict[str, Any]], *, metadata: dict[str, Any] | None = None) -> bytes:
    """An nbformat 4 notebook as Jupyter writes it (one-space indented JSON); a Python kernel
    unless `metadata` says otherwise."""
    if metadata is None:
        metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                    "language_info": {"name": "python", "version": "3.12.1"}}
    notebook = {"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}
    return (json.dumps(notebook, indent=1, ensure_ascii=False) + "\n").encode()
