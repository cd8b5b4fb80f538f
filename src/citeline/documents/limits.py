"""Work caps for loaders, so one hostile or degenerate file cannot exhaust memory or hang a batch.

Loaders keep the simple `load(path, data)` signature (third-party loaders register the same way),
so the caps travel in a context variable: the parse worker sets them from `Settings` around each
call, and a loader reads them with `current_limits()`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from citeline.errors import IngestError


@dataclass(frozen=True)
class LoadLimits:
    """The most work one file may cause: pages, decompressed bytes, characters in one line, blocks."""

    max_pages: int = 5000
    max_decompressed_bytes: int = 256 * 1024 * 1024
    max_line_chars: int = 1_000_000
    max_blocks: int = 200_000


_DEFAULT = LoadLimits()
_CURRENT: ContextVar[LoadLimits | None] = ContextVar("citeline_load_limits", default=None)


def current_limits() -> LoadLimits:
    """The caps in force for the load running now (the defaults outside the parse worker)."""
    return _CURRENT.get() or _DEFAULT


@contextmanager
def use_limits(limits: LoadLimits) -> Iterator[LoadLimits]:
    """Apply `limits` to loaders called inside the block (in this thread/context only)."""
    token = _CURRENT.set(limits)
    try:
        yield limits
    finally:
        _CURRENT.reset(token)


def check_block_count(count: int, name: str, what: str = "paragraphs") -> None:
    """Refuse a document with more blocks (paragraphs, table rows, ...) than the limit, before
    the work of building them: millions of one-word paragraphs are a way to hold a worker for
    minutes and gigabytes, never a document someone asks questions of."""
    limit = current_limits().max_blocks
    if count > limit:
        raise IngestError(f"{name}: has {count:,} {what} (limit {limit:,})",
                          hint="split the file, or raise CITELINE_MAX_BLOCKS_PER_FILE")


def check_line_lengths(text: str, name: str, limit: int | None = None) -> None:
    """Refuse text with a line longer than the limit, in time linear in the text's length.

    A multi-megabyte line is generated data (minified output, a base64 blob, a log without
    newlines), not prose: it makes regex-based structure detection quadratic and chunks useless.
    Each step jumps to the last newline inside a window of `limit + 1` characters, so ordinary
    text is scanned in a handful of C-level `rfind` calls instead of a Python loop per line.
    """
    limit = current_limits().max_line_chars if limit is None else limit
    position, length = 0, len(text)
    while length - position > limit:
        newline = text.rfind("\n", position, position + limit + 1)
        if newline < 0:
            line_number = text.count("\n", 0, position) + 1
            end = text.find("\n", position)
            line_length = (length if end < 0 else end) - position
            raise IngestError(
                f"{name}: line {line_number} is {line_length:,} characters long (limit {limit:,}); "
                "this looks like generated data rather than a document",
                hint="reformat it with line breaks, or raise CITELINE_MAX_LINE_CHARS",
            )
        position = newline + 1
