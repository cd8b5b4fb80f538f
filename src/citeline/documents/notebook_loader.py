"""Jupyter notebooks (`.ipynb`) read as a person reads them in Jupyter: prose, code, short printed output.

A notebook is JSON (nbformat 4, and the `worksheets` of nbformat 3), read with the standard
library. Its cells are laid out in order as one document:

* Markdown cells are read exactly as the Markdown loader reads a page (`read_markdown`), one cell
  at a time as Jupyter renders them: a heading names the section of every cell after it, but an
  unclosed code fence, HTML comment or admonition in one cell cannot swallow the cells that follow;
* code cells are code blocks in the notebook's language; IPython magics and shell escapes
  (`%pip install`, `!ls`) stay, being what a reader types;
* a code cell's plain-text output (what it printed, its result's text form, the error it raised)
  follows it as one code block labelled "Output", cut to its first lines;
* images, HTML, widgets and other rich outputs, raw cells, cell attachments and `data:` images
  embedded in Markdown never reach the text (an image is skipped, never decoded).

Blocks have no source offsets: they would point into a cell's text, not into the JSON file.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from citeline.documents.builder import DocumentBuilder
from citeline.documents.limits import check_block_count, check_line_lengths
from citeline.documents.loaders import decode_text, sanitize
from citeline.documents.markdown_loader import read_markdown
from citeline.documents.models import LoadedDocument
from citeline.documents.registry import register_loader
from citeline.errors import IngestError

_HINT_DAMAGED = "open and re-save it in Jupyter, or exclude it"
_OUTPUT_LABEL = "Output"
# Long output (a training log, a table of thousands of rows) is cut to its first lines, each to a
# few hundred characters: a reader skims the start to see what a cell does, and the rest would
# crowd the notebook's prose out of the passages found for a question. The cut is said in the text.
_MAX_OUTPUT_LINES = 30
_MAX_OUTPUT_LINE_CHARS = 500
# Terminal colour and cursor codes (ANSI CSI sequences) of tracebacks and coloured logs.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
# An image embedded in Markdown (`![plot](data:image/png;base64,...)`, `<img src="data:...">`):
# megabytes on one line that the Markdown loader would drop anyway, removed before the line-length cap.
_DATA_URI = re.compile(r"(?<![\w-])data:[\w+.-]+/[\w+.-]+(?:;[\w=.+-]*)*,[^\s)\"'<>]*")
# An object's default repr, alone or in a list ("<__main__.Point object at 0x7f3a...>",
# "[<matplotlib.lines.Line2D at 0x7f3a...>]", "<IPython.core.display.HTML object>"): a type and a
# memory address, not anything the cell shows a reader.
_REPR = r"<[\w.]+ (?:object(?: at 0x[0-9a-fA-F]+)?|at 0x[0-9a-fA-F]+)>"
_PLACEHOLDER = re.compile(rf"\[?{_REPR}(?:,\s*{_REPR})*\]?")
# Representations whose `text/plain` twin is only a placeholder for what Jupyter draws
# ("<Figure size 640x480 with 1 Axes>", "IntSlider(value=0)"): images and widgets, by their
# nbformat 4 MIME types and nbformat 3 keys.
_DRAWN = ("image/", "application/vnd.jupyter.widget", "png", "jpeg", "svg")
_NOT_A_STREAM = object()  # what was written before a cell's first output, or a result or error was


def _kind(value: Any) -> str:
    """What a JSON value is, in the words of an error message."""
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "an object"
    return "a list of other values" if isinstance(value, list) else "text"


def _damaged(name: str, where: str, what: str) -> IngestError:
    return IngestError(f"{name}: is a damaged notebook ({where}: {what})", hint=_HINT_DAMAGED)


def _text(value: Any, name: str, where: str) -> str:
    """A notebook's multi-line string: one string, or a list of lines that keep their newlines."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        return "".join(value)
    raise _damaged(name, where, f"expected text or a list of lines, found {_kind(value)}")


def parse_notebook(data: bytes, path: Path) -> dict[str, Any]:
    """The notebook's JSON object, or an IngestError saying why the file is not one."""
    text = decode_text(data, path)  # refuses a binary named .ipynb, with what it is
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as exc:
        raise IngestError(f"{path.name}: is not a valid notebook (invalid JSON at line {exc.lineno}, "
                          f"column {exc.colno}: {exc.msg})", hint=_HINT_DAMAGED) from None
    except (ValueError, RecursionError) as exc:  # a number of thousands of digits, absurd nesting
        raise IngestError(f"{path.name}: is not a valid notebook ({str(exc)[:200]})", hint=_HINT_DAMAGED) from None
    if not isinstance(notebook, dict) or not ("cells" in notebook or "worksheets" in notebook):
        raise IngestError(f"{path.name}: is JSON but not a Jupyter notebook (no `cells`)",
                          hint="check the file or its extension")
    return notebook


def notebook_cells(notebook: dict[str, Any], name: str) -> list[dict[str, Any]]:
    """The cells in reading order: nbformat 4's `cells`, or those of nbformat 3's worksheets."""
    if "cells" in notebook:
        cells = notebook["cells"]
    else:
        sheets = notebook["worksheets"]
        if not isinstance(sheets, list) or not all(isinstance(sheet, dict) for sheet in sheets):
            raise _damaged(name, "`worksheets`", f"expected a list of objects, found {_kind(sheets)}")
        cells = [cell for sheet in sheets for cell in _list(sheet.get("cells", []), name, "`cells`")]
    cells = _list(cells, name, "`cells`")
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            raise _damaged(name, f"cell {number}", f"expected an object, found {_kind(cell)}")
        if not isinstance(cell.get("cell_type"), str):
            raise _damaged(name, f"cell {number}", "no `cell_type`")
    return cells


def _list(value: Any, name: str, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise _damaged(name, where, f"expected a list, found {_kind(value)}")
    return value


def notebook_language(metadata: Any) -> str:
    """The language of the notebook's code, as a fence names it: its kernel's, else the one its
    language info names, else Python (the language of most notebooks, and Jupyter's default)."""
    if isinstance(metadata, dict):
        for key, field in (("kernelspec", "language"), ("language_info", "name")):
            entry = metadata.get(key)
            value = entry.get(field) if isinstance(entry, dict) else None
            if isinstance(value, str) and value.strip():
                return value.split()[0].lower()
    return "python"


def _shown(text: str) -> str:
    """Output as the notebook shows it: colour codes gone, and a line a program kept rewriting
    with carriage returns (a progress bar) as its last state rather than every frame of it."""
    lines = _ANSI.sub("", text).replace("\r\n", "\n").split("\n")
    for index, line in enumerate(lines):
        if "\r" in line:
            lines[index] = next((part for part in reversed(line.split("\r")) if part), "")
    return "\n".join(lines)


def _capped(text: str) -> str:
    """The first lines of a long output, each cut to a readable length, and how much was left out."""
    lines = text.strip("\n").split("\n")
    kept = [line if len(line) <= _MAX_OUTPUT_LINE_CHARS else line[:_MAX_OUTPUT_LINE_CHARS] + " …"
            for line in lines[:_MAX_OUTPUT_LINES]]
    if len(lines) > _MAX_OUTPUT_LINES:
        kept.append(f"… ({len(lines) - _MAX_OUTPUT_LINES:,} more lines)")
    return "\n".join(kept)


def _result_text(output: dict[str, Any], name: str, where: str) -> str:
    """The plain-text form of a result or displayed value; empty when what a reader sees is drawn
    (an image, a widget) or when the text is only an object's default repr."""
    data = output.get("data", output)  # nbformat 3 keeps the representations on the output itself
    if not isinstance(data, dict):
        raise _damaged(name, where, f"`data` is {_kind(data)}, expected an object")
    if any(str(key).startswith(_DRAWN) for key in data):
        return ""
    plain = data.get("text/plain", data.get("text"))
    text = "" if plain is None else _text(plain, name, f"{where} text")
    return "" if _PLACEHOLDER.fullmatch(text.strip()) else text


def _error_text(output: dict[str, Any], name: str, where: str) -> str:
    """An error as its last traceback line reads: "ValueError: invalid literal". A tutorial shows
    an error to say what goes wrong, which the name and message say; the frames are paths and line
    numbers of the author's machine and IPython's internals, painted with terminal colour codes."""
    ename, evalue = output.get("ename", ""), output.get("evalue", "")
    if not isinstance(ename, str) or not isinstance(evalue, str):
        raise _damaged(name, where, "`ename` and `evalue` must be text")
    return f"{ename}: {evalue}" if ename and evalue else ename or evalue


def output_text(outputs: Any, name: str, number: int) -> str:
    """A code cell's outputs as one text: printed streams (consecutive writes to one stream joined,
    as Jupyter shows them), results' and displays' plain text and errors, in order, before capping."""
    parts: list[str] = []
    last_stream: object = _NOT_A_STREAM
    for index, output in enumerate(_list(outputs, name, f"cell {number} `outputs`"), start=1):
        where = f"cell {number} output {index}"
        if not isinstance(output, dict):
            raise _damaged(name, where, f"expected an object, found {_kind(output)}")
        kind = output.get("output_type")
        if kind == "stream":
            text = _text(output.get("text", ""), name, f"{where} text")
            stream = output.get("name", output.get("stream"))  # nbformat 3 calls it `stream`
            if parts and stream == last_stream:
                parts[-1] += text
            else:
                parts.append(text)
            last_stream = stream
            continue
        last_stream = _NOT_A_STREAM
        if kind in ("execute_result", "display_data", "pyout"):
            text = _result_text(output, name, where)
        elif kind in ("error", "pyerr"):
            text = _error_text(output, name, where)
        else:  # a kind a later nbformat may add shows nothing known to be text
            continue
        if text.strip():
            parts.append(text)
    return "\n".join(_shown(part).strip("\n") for part in parts if part.strip())


class _Reader:
    """Lays a notebook's cells out in one builder, counting the invisible characters removed."""

    def __init__(self, name: str, language: str) -> None:
        self.name = name
        self.language = language
        self.builder = DocumentBuilder()
        self.removed = 0
        self.metadata: dict[str, Any] = {}

    def _clean(self, text: str, number: int, *, check: bool = True) -> str:
        text, removed = sanitize(text)
        self.removed += removed
        if check:
            check_line_lengths(text, f"{self.name} (cell {number})")
        return text

    def cell(self, number: int, cell: dict[str, Any]) -> None:
        """One cell's blocks. Raw cells (text for a converter, not for a reader) and cell types
        this format does not know are skipped."""
        kind = cell["cell_type"]
        where = f"cell {number} source"
        if kind == "markdown":
            self.markdown(number, _text(cell.get("source", ""), self.name, where))
        elif kind == "heading":  # nbformat 3: a heading was a cell of its own
            level = cell.get("level")
            title = " ".join(_text(cell.get("source", ""), self.name, where).split())
            self.markdown(number, "#" * (level if isinstance(level, int) and 1 <= level <= 6 else 1) + " " + title)
        elif kind == "code":
            source = _text(cell.get("source", cell.get("input", "")), self.name, where)  # nbformat 3: `input`
            language = cell.get("language")  # nbformat 3 names it per cell
            self.code(number, source, language if isinstance(language, str) and language else self.language)
            self.output(number, output_text(cell.get("outputs", []), self.name, number))

    def markdown(self, number: int, text: str) -> None:
        """A Markdown cell, read as the Markdown loader reads a page. Only the first cell may
        open with front matter (as MyST reads a notebook); elsewhere a leading `---` is a rule."""
        text = self._clean(_DATA_URI.sub("", text), number)
        if number == 1:
            self.metadata = read_markdown(text, self.builder)
        else:
            read_markdown("\n" + text, self.builder)

    def code(self, number: int, source: str, language: str) -> None:
        """A code cell as a code block in its language."""
        self.builder.block("code", self._clean(source, number), preformatted=True, language=language)

    def output(self, number: int, text: str) -> None:
        """A code cell's output as a code block labelled "Output", checked as prose for text aimed
        at an AI: a printed instruction is as much an injection as a written one."""
        if text.strip():
            text = self._clean(_capped(text), number, check=False)  # capped lines are short
            self.builder.block("code", text, label=_OUTPUT_LABEL, preformatted=True, language="text", prose=True)

    def build(self, path: Path) -> LoadedDocument:
        """The document, titled as a Markdown page is: front matter, first heading, file name."""
        title = str(self.metadata.get("title") or "") or self.builder.first_heading or path.stem
        document = self.builder.build(title, self.metadata, self.removed)
        document.blocks = [replace(block, source_start=None, source_end=None) for block in document.blocks]
        document.flags = [replace(flag, source_start=None) for flag in document.flags]
        return document


class NotebookLoader:
    """Jupyter notebooks: Markdown cells as Markdown, code cells as code, short text outputs."""

    suffixes: tuple[str, ...] = (".ipynb",)

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        """Read the notebook's cells in order into stored text and blocks."""
        notebook = parse_notebook(data, path)
        cells = notebook_cells(notebook, path.name)
        # Counted before any cell is parsed: a million empty cells must not hold a worker.
        check_block_count(len(cells), path.name, "cells")
        reader = _Reader(path.name, notebook_language(notebook.get("metadata")))
        for number, cell in enumerate(cells, start=1):
            reader.cell(number, cell)
        return reader.build(path)


register_loader(NotebookLoader())
