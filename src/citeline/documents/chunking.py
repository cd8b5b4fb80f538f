"""Structure-aware, token-bounded chunking with overlap and stable, content-addressed ids."""

from __future__ import annotations

import bisect
import hashlib
import itertools
import re

from citeline.documents.models import TEXT_MODEL_VERSION, Block, Chunk, ChunkBlock, LoadedDocument, Section
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
    """The document's identity for re-ingest: its bytes and the text model that read them, so an
    upgrade that changes how files are read re-reads every document once."""
    return hashlib.sha256(data + f"\x00citeline-text-model-{TEXT_MODEL_VERSION}".encode()).hexdigest()


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

    A document with blocks is cut at block boundaries (see `_chunk_blocks`); one without (a
    third-party loader that only sets sections) by words. With `limit`, stops as soon as there
    are more than `limit` chunks (the caller refuses such a file anyway; finishing would only
    spend time and memory)."""
    if doc.blocks:
        return _chunk_blocks(doc, doc_id=doc_id, doc_hash=doc_hash, chunk_tokens=chunk_tokens,
                             overlap=min(overlap, chunk_tokens // 2), limit=limit)
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


# --- block-aware chunking ---------------------------------------------------------------------
_LINE_KINDS = frozenset({"code", "table_row"})


def _block_words(doc: LoadedDocument, block: Block) -> int:
    return len(_WORD.findall(doc.text, block.start, block.end))


def _pieces(doc: LoadedDocument, block: Block, chunk_tokens: int, overlap: int) -> list[Block]:
    """A block larger than a chunk, cut into pieces that fit: code and table rows at line
    boundaries, prose at sentence (else word) boundaries, consecutive prose pieces sharing up to
    `overlap` words. Smaller blocks come back whole."""
    if _block_words(doc, block) <= chunk_tokens:
        return [block]
    text = doc.text
    is_lines = block.kind in _LINE_KINDS
    pattern = r"\n" if is_lines else r"(?<=[.!?])\s+"
    bounds = [block.start] + [block.start + m.end() for m in re.finditer(pattern, text[block.start : block.end])]
    segments = [(start, end, len(_WORD.findall(text, start, end)))
                for start, end in itertools.pairwise([*bounds, block.end]) if end > start]
    shared = 0 if is_lines else overlap
    pieces: list[Block] = []
    first = 0
    while first < len(segments):
        last, words = first, 0
        while last < len(segments) and (last == first or words + segments[last][2] <= chunk_tokens):
            words += segments[last][2]
            last += 1
        pieces.append(_part(block, segments[first][0], segments[last - 1][1], text))
        if last >= len(segments):
            break
        back, carried = last, 0
        while back - 1 > first and carried + segments[back - 1][2] <= shared:
            back -= 1
            carried += segments[back][2]
        first = back
    result: list[Block] = []
    for piece in pieces:  # a single sentence or line still too long: word windows
        if _block_words(doc, piece) <= chunk_tokens:
            result.append(piece)
            continue
        spans = list(_WORD.finditer(text, piece.start, piece.end))
        step = max(1, chunk_tokens - shared)
        for start in range(0, len(spans), step):
            window = spans[start : start + chunk_tokens]
            result.append(_part(piece, window[0].start(), window[-1].end(), text))
            if start + chunk_tokens >= len(spans):
                break
    return [piece for piece in result if piece.end > piece.start]


def _part(block: Block, start: int, end: int, text: str) -> Block:
    while end > start and text[end - 1].isspace():
        end -= 1
    # A piece of code keeps its first line's indentation: `return x` out of its block reads
    # differently from the indented line it is.
    keep_indent = block.kind == "code"
    while start < end and text[start].isspace() and not (keep_indent and text[start] in " \t"):
        start += 1
    return Block(block.kind, start, end, block.section, block.page, block.label, block.cells,
                 block.source_start, block.source_end, block.pages, block.flags, block.language, cut=True)


def _sections_of(blocks: list[Block]) -> list[list[Block]]:
    """Blocks grouped by section; a heading with nothing under it before the next heading joins
    that next section (it names what follows, and alone it would be a chunk of one line)."""
    groups: list[list[Block]] = []
    for block in blocks:
        starts_section = block.kind == "heading" or not groups or block.section != groups[-1][-1].section
        if starts_section and not (groups and all(b.kind == "heading" for b in groups[-1])):
            groups.append([block])
        else:
            groups[-1].append(block)
    return groups


def _packs(doc: LoadedDocument, units: list[Block], chunk_tokens: int) -> list[list[Block]]:
    """Units that go into a chunk together: the rows of one table (consecutive rows one line
    apart) when the whole table fits in a chunk, every other unit alone. A table larger than a
    chunk is split between rows."""
    packs: list[list[Block]] = []
    for unit in units:
        previous = packs[-1][-1] if packs else None
        if (previous is not None and unit.kind == previous.kind == "table_row"
                and doc.text[previous.end : unit.start] == "\n"):
            packs[-1].append(unit)
        else:
            packs.append([unit])
    result: list[list[Block]] = []
    for pack in packs:
        if len(pack) > 1 and sum(_block_words(doc, unit) for unit in pack) > chunk_tokens:
            result.extend([unit] for unit in pack)
        else:
            result.append(pack)
    return result


def _chunk_blocks(
    doc: LoadedDocument, *, doc_id: str, doc_hash: str, chunk_tokens: int, overlap: int, limit: int | None,
) -> list[Chunk]:
    """Chunks made of whole blocks, never straddling sections: a code block, table or list item
    is cut only when it alone is larger than a chunk (a table then between rows). The next chunk
    of a section repeats the previous chunk's last block when that block is short (at most
    `overlap` words), so a sentence that leads into the cut keeps its context."""
    chunks: list[Chunk] = []
    for group in _sections_of(doc.blocks):
        units = [piece for block in group for piece in _pieces(doc, block, chunk_tokens, overlap)]
        current: list[Block] = []
        words = 0
        for pack in _packs(doc, units, chunk_tokens):
            size = sum(_block_words(doc, unit) for unit in pack)
            if current and words + size > chunk_tokens and not all(b.kind == "heading" for b in current):
                chunks.append(_make_chunk(doc, current, len(chunks), doc_id, doc_hash))
                if limit is not None and len(chunks) > limit:
                    return chunks
                tail = current[-1]
                tail_words = _block_words(doc, tail)
                keep = tail.kind != "heading" and tail_words <= overlap and tail_words + size <= chunk_tokens
                current, words = ([tail], tail_words) if keep else ([], 0)
            current.extend(pack)
            words += size
        if current:
            chunks.append(_make_chunk(doc, current, len(chunks), doc_id, doc_hash))
            if limit is not None and len(chunks) > limit:
                return chunks
    return chunks


def _make_chunk(doc: LoadedDocument, blocks: list[Block], index: int, doc_id: str, doc_hash: str) -> Chunk:
    start, end = blocks[0].start, blocks[-1].end
    section = next((b.section for b in reversed(blocks) if b.section), None)
    page = next((b.page for b in blocks if b.page is not None), None)
    carried = tuple(
        ChunkBlock(b.kind, b.start - start, b.end - start, b.label, b.flags, b.language, b.cut) for b in blocks
    )
    return Chunk(
        chunk_id=chunk_id(doc_hash, start, end), document_id=doc_id, chunk_index=index,
        text=doc.text[start:end], section=section, page=page, start=start, end=end, blocks=carried,
    )
