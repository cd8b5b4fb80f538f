"""HTML via BeautifulSoup: page chrome and hidden content dropped, h1-h6 become sections.

Navigation, scripts, styles, headers, footers and asides are not the document. Elements hidden
from a reader (`hidden`, `aria-hidden`, `display:none`) are dropped too: text a person cannot
see is a classic way to smuggle instructions to a model.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from citeline.documents.loaders import decode_text, heading_sections, sanitize
from citeline.documents.models import LoadedDocument
from citeline.documents.registry import register_loader
from citeline.errors import IngestError

_DROP = ("nav", "script", "style", "header", "footer", "aside", "noscript", "template", "iframe",
         "svg", "canvas", "object", "embed", "head")
_BLOCK = frozenset((
    "p", "div", "section", "article", "main", "ul", "ol", "dl", "dt", "dd", "table", "thead", "tbody",
    "tfoot", "blockquote", "pre", "figure", "figcaption", "hr", "address", "details", "summary", "form",
    "fieldset", "body", "html", "center",
))
_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
_WS = re.compile(r"\s+")


class _Text:
    """Builds the document text with collapsed whitespace and explicit paragraph breaks."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.newlines = 2  # newlines at the end of the output; "2" at the start: no leading break
        self.space = False  # a collapsed space is owed before the next word

    def text(self, raw: str, *, pre: bool = False) -> None:
        if pre:
            piece = raw
        else:
            piece = _WS.sub(" ", raw)
            if piece.startswith(" "):
                self.space = True
                piece = piece[1:]
            trailing = piece.endswith(" ")
            piece = piece.rstrip(" ")
            if not piece:
                return
            if self.space and self.newlines == 0:
                piece = " " + piece
            self.space = trailing
        if not piece:
            return
        self._emit(piece)
        stripped = piece.rstrip("\n")
        self.newlines = len(piece) - len(stripped) if stripped else self.newlines + len(piece)

    def brk(self, count: int = 2) -> None:
        self.space = False
        if self.newlines < count:
            self._emit("\n" * (count - self.newlines))
            self.newlines = count

    def _emit(self, piece: str) -> None:
        self.parts.append(piece)
        self.length += len(piece)


def _hidden(tag: Any) -> bool:
    attrs = tag.attrs or {}
    return (
        "hidden" in attrs
        or str(attrs.get("aria-hidden", "")).lower() == "true"
        or bool(_HIDDEN_STYLE.search(str(attrs.get("style", ""))))
    )


class HtmlLoader:
    suffixes: tuple[str, ...] = (".html", ".htm", ".xhtml")

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        from bs4 import BeautifulSoup
        from bs4.element import Comment, NavigableString, Tag

        markup = decode_text(data, path)
        try:
            soup = BeautifulSoup(markup, "lxml")
        except Exception as exc:  # lxml recovers from almost anything; this is a last resort
            raise IngestError(f"{path.name}: could not be parsed as HTML ({exc})",
                              hint="check the file") from exc
        head_title = soup.title.get_text(" ", strip=True) if soup.title else ""
        metadata = self._metadata(soup)
        for tag in soup.find_all(_DROP):
            tag.decompose()
        for tag in soup.find_all(_hidden):
            if not tag.decomposed:
                tag.decompose()

        out = _Text()
        headings: list[tuple[int, int, str]] = []  # (offset, level, text)
        open_heading: list[tuple[int, int, int]] = []  # (offset, level, index into out.parts)
        removed = 0
        root = soup.body or soup
        # An explicit stack instead of recursion: deeply nested markup must not hit the
        # interpreter's recursion limit.
        stack: list[tuple[Any, bool]] = [(root, False)]
        pre_depth = 0
        while stack:
            node, closing = stack.pop()
            if isinstance(node, Comment):
                continue
            if isinstance(node, NavigableString):
                # Sanitizing each piece as it is emitted keeps every offset valid in the clean text.
                clean, count = sanitize(str(node))
                removed += count
                out.text(clean, pre=pre_depth > 0)
                continue
            if not isinstance(node, Tag):
                continue
            name = node.name
            if closing:
                if name == "pre":
                    pre_depth -= 1
                if name in _HEADINGS and open_heading:
                    start, level, first_part = open_heading.pop()
                    text = " ".join("".join(out.parts[first_part:]).split())
                    if text:
                        headings.append((start, level, text))
                if name in _BLOCK or name in _HEADINGS or name == "li":
                    out.brk(2 if name not in {"li", "tr", "dt", "dd"} else 1)
                elif name == "tr":
                    out.brk(1)
                continue
            if name == "br":
                out.brk(1)
                continue
            if name in _HEADINGS:
                out.brk(2)
                open_heading.append((out.length, _HEADINGS[name], len(out.parts)))
            elif name == "li":
                out.brk(1)
                out.text("- ")
            elif name == "tr":
                out.brk(1)
            elif name in {"td", "th"} and node.find_previous_sibling(["td", "th"]) is not None:
                out.text(" | ")
            elif name in _BLOCK:
                out.brk(2)
            if name == "pre":
                pre_depth += 1
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(node.contents))
        return self._assemble(path, "".join(out.parts), headings, head_title, metadata, removed)

    @staticmethod
    def _metadata(soup: Any) -> dict[str, Any]:
        metadata: dict[str, Any] = {}
        for key in ("description", "author", "keywords"):
            tag = soup.find("meta", attrs={"name": key})
            if tag is not None and tag.get("content"):
                metadata[key] = sanitize(str(tag["content"]))[0][:500]
        html = soup.find("html")
        if html is not None and html.get("lang"):
            metadata["lang"] = str(html["lang"])[:20]
        return metadata

    @staticmethod
    def _assemble(path: Path, raw: str, headings: list[tuple[int, int, str]], head_title: str,
                  metadata: dict[str, Any], removed: int) -> LoadedDocument:
        text = raw.rstrip()
        sections = heading_sections(text, headings)
        title_clean, title_removed = sanitize(head_title)
        removed += title_removed
        title = title_clean.strip()
        if not title:
            h1 = [h for h in headings if h[1] == 1]
            title = h1[0][2] if h1 else path.stem
        else:
            title = " ".join(title.split())
        return LoadedDocument(text, title, sections, metadata, removed)


register_loader(HtmlLoader())
