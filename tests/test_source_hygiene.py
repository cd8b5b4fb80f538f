"""Comments and docstrings say why, in place; they never send the reader to a spec they do not have.

The design notes and source specifications live outside the repository, so a pointer to a
specification's number or to a section of the design notes explains nothing to someone reading
the code. This reads every comment and
docstring of the package, the tests and the benchmarks with Python's own tokenizer and parser (not
a grep: code such as `seed=7` is not prose) and fails on such a pointer, naming file and line.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHECKED = ("src", "tests", "bench")

POINTERS = re.compile(
    r"(?i:\bseeds?[- ]?0*\d+\b)"  # a source specification by number
    r"|(?i:\bseeds/)"  # the specification folder
    r"|\bDESIGN(?:\.md)?\b"  # the design notes (the file's name, in capitals), any section
    r"|§\s*\d"  # a section sign and number, of any document
    r"|(?i:\bissue\s*#?\d+)",  # a tracker number
)



def prose(source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of every comment and every module, class and function docstring."""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            docstring = ast.get_docstring(node, clean=False)
            if docstring is not None:
                first = node.body[0]
                yield first.lineno, docstring


def pointers(path: Path) -> list[str]:
    """Every spec pointer in the comments and docstrings of one file, as `path:line: text`."""
    relative = path.relative_to(ROOT).as_posix()
    found = []
    for line, text in prose(path.read_text(encoding="utf-8")):
        for match in POINTERS.finditer(text):
            found.append(f"{relative}:{line}: {match.group(0)!r} in {text.strip()[:100]!r}")
    return found


def python_files() -> list[Path]:
    """The checked source files, so each one is its own test case."""
    return sorted(path for folder in CHECKED for path in (ROOT / folder).rglob("*.py"))


@pytest.mark.parametrize("path", python_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_comment_points_at_a_spec(path: Path) -> None:
    found = pointers(path)
    assert not found, "say the reason in place instead of pointing at a spec:\n" + "\n".join(found)


@pytest.mark.parametrize("text", [
    "# see seed 004", "# seed-002 name", '"""The body (DESIGN.md §3)."""', "# DESIGN §5 target",
    "# as issue #9 measured", "# the spec in seeds/",
])
def test_the_check_catches_each_kind_of_pointer(tmp_path: Path, text: str) -> None:
    source = tmp_path / "sample.py"
    source.write_text(f"def f(seed=7):\n    {text}\n    return seed\n", encoding="utf-8")
    assert [line for line, found in prose(source.read_text()) if POINTERS.search(found)] == [2]


def test_code_and_plain_words_are_not_pointers(tmp_path: Path) -> None:
    source = tmp_path / "sample.py"
    source.write_text('"""Seeded corpora; a design choice."""\nrng = random.Random(seed=7)  # seeded, so runs repeat\n'
                      'label = "seed 004"\n', encoding="utf-8")
    assert [text for _, text in prose(source.read_text()) if POINTERS.search(text)] == []


# A merge resolved in haste once left both sides of a README table row, with the markers, on main.
CONFLICT_MARKER = re.compile(r"^(?:<{7}|>{7})(?: |$)", re.MULTILINE)
OWN_FILES = ("README.md", "CHANGELOG.md", "Makefile", "pyproject.toml", "docs", "src", "tests", "bench",
             "examples", ".ci", "eval/README.md")


def own_text_files() -> list[Path]:
    """The project's own text files: everything but the evaluation corpora, which are other projects' pages."""
    files = []
    for name in OWN_FILES:
        path = ROOT / name
        candidates = path.rglob("*") if path.is_dir() else [path]
        files += [item for item in candidates if item.is_file() and "__pycache__" not in item.parts]
    return sorted(files)


def test_no_file_keeps_a_merge_conflict() -> None:
    found = []
    for path in own_text_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # a binary fixture cannot hold a conflict a person resolves by hand
        found += [f"{path.relative_to(ROOT).as_posix()}:{text.count(chr(10), 0, match.start()) + 1}"
                  for match in CONFLICT_MARKER.finditer(text)]
    assert not found, "resolve these merge conflicts (keep the right side, drop the markers):\n" + "\n".join(found)


def test_the_conflict_check_sees_markers_and_not_rst_underlines() -> None:
    assert CONFLICT_MARKER.findall("a\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> branch\n") == ["<<<<<<< ", ">>>>>>> "]
    assert CONFLICT_MARKER.findall("Title\n=======\n>>>>>>>>> not a marker\n") == []
