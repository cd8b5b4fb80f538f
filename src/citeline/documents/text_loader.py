"""The plain-text loader: a text file is one section, unless it is reStructuredText saved as text."""

from __future__ import annotations

import re
from pathlib import Path

from citeline.documents.limits import check_line_lengths
from citeline.documents.loaders import decode_text, sanitize
from citeline.documents.models import LoadedDocument, Section
from citeline.documents.registry import register_loader

# reStructuredText saved as `.txt` (Django's documentation, many projects' README.txt and
# CHANGES.txt) is told by markup no other plain text writes: explicit markup (`.. note::`,
# `.. setting:: DEBUG`, `.. _label:`) and interpreted-text roles (:setting:`DEBUG`), together with
# a section title underlined the way rst requires (a line of one punctuation character at least
# as long as the title). Markdown and AsciiDoc write neither the directive lines nor the roles.
_RST_ADORNMENT = re.compile(r"""([=\-~^"'`#*+<>:._])\1{2,}""")
_RST_EXPLICIT = re.compile(
    r"^[ \t]*\.\.[ \t]+(?:(?:(?!_)\w)+(?:[-._+:](?:(?!_)\w)+)*[ \t]?::(?=[ \t]|$)|_[^:\n`]+:(?=[ \t]|$))",
    re.MULTILINE)
_RST_ROLE = re.compile(r"(?<![\w`]):(?:(?!_)\w)+(?:[-._+:](?:(?!_)\w)+)*:`[^`\n]+`")
_RST_MIN_MARKS = 2


def _has_rst_title(text: str) -> bool:
    previous = ""
    for line in text.split("\n"):
        stripped = line.rstrip()
        title = previous.strip()
        if (title and previous[:1] not in " \t" and _RST_ADORNMENT.fullmatch(stripped)
                and len(stripped) >= len(title) and not _RST_ADORNMENT.fullmatch(title)):
            return True
        previous = line
    return False


def looks_like_rst(text: str) -> bool:
    """Whether plain text is reStructuredText: an underlined section title and at least two marks
    only rst writes (directive or target lines, roles)."""
    marks = 0
    for pattern in (_RST_EXPLICIT, _RST_ROLE):
        for _match in pattern.finditer(text):
            marks += 1
            if marks >= _RST_MIN_MARKS:
                return _has_rst_title(text)
    return False


class TextLoader:
    """Plain text: one section; the first non-empty line is not trusted as a title. A text file
    written in reStructuredText is read as rst, with its sections and without its markup."""

    suffixes: tuple[str, ...] = (".txt", ".text", ".log")

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        """A plain-text file as one section: decoded, invisible characters removed, a line over
        the length cap refused. reStructuredText (`looks_like_rst`) goes to the rst loader."""
        text, removed = sanitize(decode_text(data, path))
        check_line_lengths(text, path.name)
        if looks_like_rst(text):
            from citeline.documents.rst_loader import RstLoader  # docutils only for the rst it reads

            return RstLoader().load(path, data)
        return LoadedDocument(text, path.stem, [Section(None, 0, len(text))], {}, removed)


register_loader(TextLoader())
