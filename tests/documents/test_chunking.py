import itertools
from pathlib import Path

from citeline.documents.chunking import chunk_document, chunk_id, document_id
from citeline.documents.markdown_loader import MarkdownLoader


def _doc(text: str):  # type: ignore[no-untyped-def]
    return MarkdownLoader().load(Path("d.md"), text.encode())


def _long_markdown() -> str:
    paragraphs = [f"Paragraph {i} says something specific about topic {i}. " * 6 for i in range(12)]
    code = "```python\n" + "\n".join(f"value_{i} = compute({i})" for i in range(12)) + "\n```\n"
    return "# Guide\n\n" + "\n\n".join(paragraphs[:6]) + "\n\n" + code + "\n\n".join(paragraphs[6:]) + "\n"


def test_chunks_are_exact_slices_with_offsets() -> None:
    doc = _doc(_long_markdown())
    chunks = chunk_document(doc, doc_id="d", doc_hash="h", chunk_tokens=80, overlap=10)
    assert len(chunks) > 3
    for index, chunk in enumerate(chunks):
        assert chunk.text == doc.text[chunk.start : chunk.end]
        assert chunk.chunk_index == index
        assert len(chunk.text.split()) <= 80
        assert chunk.section == "Guide"


def test_consecutive_chunks_overlap() -> None:
    doc = _doc("# Prose\n\n" + " ".join(f"word{i}" for i in range(400)))
    chunks = chunk_document(doc, doc_id="d", doc_hash="h", chunk_tokens=80, overlap=10)
    assert all(b.start < a.end for a, b in itertools.pairwise(chunks))


def test_chunks_do_not_start_inside_a_code_fence() -> None:
    doc = _doc(_long_markdown())
    for chunk in chunk_document(doc, doc_id="d", doc_hash="h", chunk_tokens=60, overlap=10):
        before = doc.text[: chunk.start]
        # An even number of fences before the start means the chunk starts outside a fence
        # (or exactly on an opening fence line).
        assert before.count("```") % 2 == 0 or chunk.text.lstrip().startswith("```")


def test_headings_split_sections_and_ids_are_stable() -> None:
    text = "# A\n\n" + "alpha words here. " * 20 + "\n\n# B\n\n" + "beta words here. " * 20
    first = chunk_document(_doc(text), doc_id="d", doc_hash="h1", chunk_tokens=200, overlap=20)
    again = chunk_document(_doc(text), doc_id="d", doc_hash="h1", chunk_tokens=200, overlap=20)
    assert [c.section for c in first] == ["A", "B"]
    assert [c.chunk_id for c in first] == [c.chunk_id for c in again]
    changed = chunk_document(_doc(text), doc_id="d", doc_hash="h2", chunk_tokens=200, overlap=20)
    assert {c.chunk_id for c in changed}.isdisjoint({c.chunk_id for c in first})


def test_id_derivation() -> None:
    assert document_id("alice", "/a.md") == document_id("alice", "/a.md")
    assert document_id("alice", "/a.md") != document_id("bob", "/a.md")
    assert chunk_id("h", 0, 10) != chunk_id("h", 0, 11)
