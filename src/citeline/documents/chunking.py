"""Structure-aware, token-bounded chunking with overlap and stable, content-addressed ids."""

from __future__ import annotations

import hashlib
import re

from citeline.documents.models import Chunk, LoadedDocument, Section
from citeline.text import Span, word_spans

# Sections shorter than this (in words) are merged into the following section, so a heading
# followed directly by a sub-heading does not become a chunk of its own.
_MIN_SECTION_WORDS = 25
_BREAK_AFTER = re.compile(r"(\n\s*\n|[.!?:]\s*$)")


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
    blocks = list(zip(fences[::2], [*fences[1::2], len(text)][: len(fences[::2])], strict=True))
    return [any(a <= w.start <= b + 3 for a, b in blocks) for w in words]


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
) -> list[Chunk]:
    """Cut every section into windows of at most `chunk_tokens` words, overlapping by `overlap`."""
    chunks: list[Chunk] = []
    overlap = min(overlap, chunk_tokens // 2)
    for section in _merge_small(doc.sections, doc.text):
        body = doc.text[section.start : section.end]
        words = word_spans(body)
        if not words:
            continue
        fenced = _inside_fence(words, body)
        position = 0
        while position < len(words):
            end = _window_end(words, position, chunk_tokens, body, fenced)
            start_char = section.start + words[position].start
            end_char = section.start + words[end - 1].end
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
    return chunks
