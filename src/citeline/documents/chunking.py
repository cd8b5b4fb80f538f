"""Structure-aware, token-bounded chunking with overlap and stable, content-addressed ids."""

from __future__ import annotations

import bisect
import hashlib
import re

from citeline.documents.models import Chunk, LoadedDocument, Section
from citeline.text import Span

# Sections shorter than this (in words) are merged into the following section, so a heading
# followed directly by a sub-heading does not become a chunk of its own.
_MIN_SECTION_WORDS = 25
_BREAK_AFTER = re.compile(r"(\n\s*\n|[.!?:]\s*$)")
# A "word" is at most this many characters: a base64 blob or a minified line without spaces is
# then cut into pieces of bounded size instead of becoming one giant chunk.
_MAX_WORD_CHARS = 64
_WORD = re.compile(rf"\S{{1,{_MAX_WORD_CHARS}}}")
# Sections are chunked in slices of at most this many characters, so the word list in memory
# stays small however large a document is (8M words as Python objects would need gigabytes).
_MAX_SLICE_CHARS = 200_000


def _words(text: str) -> list[Span]:
    return [Span(m.group(0), m.start(), m.end()) for m in _WORD.finditer(text)]


def _slices(start: int, end: int, text: str) -> list[tuple[int, int]]:
    """Cut [start, end) into pieces of at most _MAX_SLICE_CHARS, preferring paragraph, line and
    then word boundaries near the end of each piece."""
    pieces: list[tuple[int, int]] = []
    while end - start > _MAX_SLICE_CHARS:
        limit = start + _MAX_SLICE_CHARS
        floor = start + _MAX_SLICE_CHARS // 2
        cut = -1
        for separator in ("\n\n", "\n", " "):
            cut = text.rfind(separator, floor, limit)
            if cut >= 0:
                cut += len(separator)
                break
        if cut < 0:
            cut = limit
        pieces.append((start, cut))
        start = cut
    pieces.append((start, end))
    return pieces


def document_id(owner: str, source: str) -> str:
    """Stable id of a document: the same owner and source path always give the same id."""
    return hashlib.sha256(f"{owner}\x00{source}".encode()).hexdigest()[:24]


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def chunk_id(doc_content_hash: str, start: int, end: int) -> str:
    """Content-addressed: unchanged text at unchanged offsets keeps its id across rebuilds."""
    return hashlib.sha256(f"{doc_content_hash}:{start}:{end}".encode()).hexdigest()[:24]


def _merge_small(sections: list[Section], text: str) -> list[Section]:
    merged: list[Section] = []
    carry: Section | None = None
    for section in sections:
        if carry is not None:
            section = Section(section.heading, carry.start, section.end, carry.page or section.page)
            carry = None
        words = len(text[section.start : section.end].split())
        same_page_next = True  # pages are never merged across (a PDF loader sets page per section)
        if words < _MIN_SECTION_WORDS and same_page_next and section.page is None:
            carry = section
            continue
        merged.append(section)
    if carry is not None:
        if merged and merged[-1].page == carry.page:
            last = merged.pop()
            merged.append(Section(last.heading, last.start, carry.end, last.page))
        else:
            merged.append(carry)
    return merged


_FENCE_LINE = re.compile(r"^\s*(```|~~~)", re.MULTILINE)


def _inside_fence(words: list[Span], text: str) -> list[bool]:
    """For each word, whether it lies inside a fenced code block (fence lines count as inside)."""
    fences = [m.start() for m in _FENCE_LINE.finditer(text)]
    starts = fences[::2]
    ends = [*fences[1::2], len(text)][: len(starts)]
    inside: list[bool] = []
    for word in words:
        # Blocks are sorted and disjoint: only the last one starting at or before the word (or
        # the one before it, for the 3-character fence slack) can contain it. Linear, where a
        # scan of every block per word was quadratic on code-heavy documents.
        index = bisect.bisect_right(starts, word.start) - 1
        inside.append(any(starts[i] <= word.start <= ends[i] + 3 for i in (index, index - 1) if i >= 0))
    return inside


def _window_end(words: list[Span], start: int, size: int, text: str, fenced: list[bool]) -> int:
    """Index (exclusive) of the last word of a window, preferring a paragraph or sentence end
    outside code blocks, so a chunk never starts or ends in the middle of a fence."""
    hard_end = min(start + size, len(words))
    if hard_end == len(words):
        return hard_end
    floor = start + max(1, int(size * 0.5))
    for index in range(hard_end, floor, -1):
        gap = text[words[index - 1].end : words[index].start]
        if not fenced[index] and ("\n\n" in gap or _BREAK_AFTER.search(words[index - 1].text)):
            return index
    for index in range(hard_end, floor, -1):
        if not fenced[index]:
            return index
    return hard_end


def chunk_document(
    doc: LoadedDocument,
    *,
    doc_id: str,
    doc_hash: str,
    chunk_tokens: int,
    overlap: int,
    limit: int | None = None,
) -> list[Chunk]:
    """Cut every section into windows of at most `chunk_tokens` words, overlapping by `overlap`.

    With `limit`, stops as soon as there are more than `limit` chunks (the caller refuses such
    a file anyway; finishing would only spend time and memory)."""
    chunks: list[Chunk] = []
    overlap = min(overlap, chunk_tokens // 2)
    for section in _merge_small(doc.sections, doc.text):
        for slice_start, slice_end in _slices(section.start, section.end, doc.text):
            if limit is not None and len(chunks) > limit:
                return chunks
            _chunk_slice(doc, section, slice_start, slice_end, chunks, doc_id=doc_id, doc_hash=doc_hash,
                         chunk_tokens=chunk_tokens, overlap=overlap)
    return chunks


def _chunk_slice(
    doc: LoadedDocument, section: Section, slice_start: int, slice_end: int, chunks: list[Chunk], *,
    doc_id: str, doc_hash: str, chunk_tokens: int, overlap: int,
) -> None:
    body = doc.text[slice_start:slice_end]
    words = _words(body)
    fenced = _inside_fence(words, body)
    position = 0
    while position < len(words):
        end = _window_end(words, position, chunk_tokens, body, fenced)
        start_char = slice_start + words[position].start
        end_char = slice_start + words[end - 1].end
        chunks.append(
            Chunk(
                chunk_id=chunk_id(doc_hash, start_char, end_char),
                document_id=doc_id,
                chunk_index=len(chunks),
                text=doc.text[start_char:end_char],
                section=section.heading,
                page=section.page,
                start=start_char,
                end=end_char,
            )
        )
        if end >= len(words):
            break
        next_start = max(end - overlap, position + 1)
        while next_start < end and fenced[next_start]:
            next_start += 1  # overlap never begins inside a code block
        position = next_start
