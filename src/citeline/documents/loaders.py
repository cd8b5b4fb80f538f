"""Loaders turn a file into a `LoadedDocument`. One loader per format, registered by suffix.

Third-party formats register exactly the way the built-ins do:

    from citeline.documents.loaders import register_loader
    register_loader(MyLoader())
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from citeline.documents.models import LoadedDocument, Section
from citeline.errors import IngestError

# Bidi overrides/isolates, zero-width characters and Unicode tag characters are invisible to a
# reader but not to a model: a known prompt-smuggling channel, so they never reach the index.
_INVISIBLE = re.compile(
    "[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]"
)


def sanitize(text: str) -> tuple[str, int]:
    """Remove invisible control characters; return the clean text and how many were removed."""
    cleaned, count = _INVISIBLE.subn("", text)
    cleaned = cleaned.replace("\r\n", "\n").replace("\r", "\n")
    return cleaned, count


def decode_text(data: bytes, path: Path) -> str:
    """Bytes to text, refusing binaries with a precise reason."""
    if b"\x00" in data[:8192]:
        raise IngestError(f"{path.name}: looks like a binary file (NUL bytes), not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise IngestError(
            f"{path.name}: not valid UTF-8 (byte {exc.start})", hint="convert the file to UTF-8"
        ) from exc


@runtime_checkable
class Loader(Protocol):
    """Reads one format. `suffixes` are lower-case with the dot, e.g. `(".md",)`."""

    suffixes: tuple[str, ...]

    def load(self, path: Path, data: bytes) -> LoadedDocument: ...


_ATX = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_FRONT_MATTER = re.compile(r"\A---\n(.*?)\n(?:---|\.\.\.)\n", re.DOTALL)


def _front_matter(text: str) -> tuple[dict[str, Any], int]:
    """Parse simple `key: value` YAML front matter; return it and where the body starts."""
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}, 0
    meta: dict[str, Any] = {}
    for line in match.group(1).splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() and not key.startswith((" ", "\t", "-")):
            meta[key.strip()] = value.strip().strip("'\"")
    return meta, match.end()


class MarkdownLoader:
    """Markdown: ATX headings become sections (with their heading path), front matter metadata."""

    suffixes: tuple[str, ...] = (".md", ".markdown", ".mdx")

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        text, removed = sanitize(decode_text(data, path))
        metadata, body_start = _front_matter(text)
        headings: list[tuple[int, int, str]] = []  # (offset, level, title)
        offset = 0
        in_fence = False
        for line in text.splitlines(keepends=True):
            if offset >= body_start:
                stripped = line.rstrip("\n")
                if _FENCE.match(stripped):
                    in_fence = not in_fence
                elif not in_fence and (match := _ATX.match(stripped)):
                    headings.append((offset, len(match.group(1)), match.group(2).strip()))
            offset += len(line)

        sections: list[Section] = []
        if not headings or headings[0][0] > body_start:
            first = headings[0][0] if headings else len(text)
            if text[body_start:first].strip():
                sections.append(Section(None, body_start, first))
        path_stack: list[tuple[int, str]] = []
        for index, (start, level, title) in enumerate(headings):
            while path_stack and path_stack[-1][0] >= level:
                path_stack.pop()
            path_stack.append((level, title))
            end = headings[index + 1][0] if index + 1 < len(headings) else len(text)
            sections.append(Section(" > ".join(t for _, t in path_stack), start, end))

        title = str(metadata.get("title") or "")
        if not title:
            top = min(headings, key=lambda h: (h[1], h[0])) if headings else None
            title = top[2] if top else path.stem
        return LoadedDocument(text, title, sections, metadata, removed)


class TextLoader:
    """Plain text: one section; the first non-empty line is not trusted as a title."""

    suffixes: tuple[str, ...] = (".txt", ".text", ".rst", ".log")

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        text, removed = sanitize(decode_text(data, path))
        return LoadedDocument(text, path.stem, [Section(None, 0, len(text))], {}, removed)


_REGISTRY: dict[str, Loader] = {}


def register_loader(loader: Loader) -> None:
    """Make `loader` handle its suffixes (replacing any previous loader for them)."""
    for suffix in loader.suffixes:
        _REGISTRY[suffix.lower()] = loader


def loader_for(path: Path) -> Loader | None:
    return _REGISTRY.get(path.suffix.lower())


def supported_suffixes() -> frozenset[str]:
    return frozenset(_REGISTRY)


register_loader(MarkdownLoader())
register_loader(TextLoader())
