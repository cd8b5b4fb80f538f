"""The parse worker: one file cannot hang, exhaust memory or crash a batch."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from citeline.documents.registry import loader_for
from citeline.documents.worker import ParseRequest, ParseWorker
from citeline.errors import IngestError
from tests.plugins import citeline_test_loaders  # noqa: F401  (registers .hang/.oom/.crash)


def request(path: Path, data: bytes) -> ParseRequest:
    return ParseRequest(path=str(path), data=data, doc_id="d", doc_hash="h", chunk_tokens=50, overlap=5,
                        max_chunks=1000)


def parse(worker: ParseWorker, path: Path, data: bytes = b"content"):
    path.write_bytes(data)
    loader = loader_for(path)
    assert loader is not None
    return worker.parse(request(path, data), loader)


def test_parses_markdown_and_returns_chunks(tmp_path: Path) -> None:
    with ParseWorker(timeout_s=30, memory_mb=1024) as worker:
        parsed = parse(worker, tmp_path / "a.md", b"# Title\n\nSome body text here.\n")
        assert parsed.title == "Title"
        assert parsed.chunks[0].text.endswith("Some body text here.")


def test_hanging_parser_is_killed_at_the_timeout_and_the_worker_recovers(tmp_path: Path) -> None:
    with ParseWorker(timeout_s=1.5, memory_mb=1024) as worker:
        started = time.monotonic()
        with pytest.raises(IngestError, match=r"longer than 1.5 s.*CITELINE_PARSE_TIMEOUT_S"):
            parse(worker, tmp_path / "x.hang")
        assert time.monotonic() - started < 10
        assert parse(worker, tmp_path / "ok.md", b"# Fine\n\ntext\n").title == "Fine"


def test_memory_hog_hits_the_cap_not_the_machine(tmp_path: Path) -> None:
    with ParseWorker(timeout_s=30, memory_mb=512) as worker:
        with pytest.raises(IngestError, match=r"more than 512 MB.*CITELINE_PARSE_MEMORY_MB"):
            parse(worker, tmp_path / "x.oom")
        assert parse(worker, tmp_path / "ok.txt", b"plain text").chunks


def test_crashing_parser_is_reported_and_the_next_file_works(tmp_path: Path) -> None:
    with ParseWorker(timeout_s=30, memory_mb=1024) as worker:
        with pytest.raises(IngestError, match=r"parser crashed.*SIGSEGV"):
            parse(worker, tmp_path / "x.crash")
        assert parse(worker, tmp_path / "ok.txt", b"plain text").chunks


def test_loader_errors_come_back_verbatim(tmp_path: Path) -> None:
    with ParseWorker(timeout_s=30, memory_mb=1024) as worker, \
            pytest.raises(IngestError, match=r"binary file \(NUL bytes\)"):
        parse(worker, tmp_path / "bin.md", b"abc\x00def")


def test_chunk_cap(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    data = ("word " * 5000).encode()
    path.write_bytes(data)
    small = ParseRequest(path=str(path), data=data, doc_id="d", doc_hash="h", chunk_tokens=50, overlap=0,
                         max_chunks=10)
    expected = r"more than 10 chunks \(the per-file limit\).*CITELINE_MAX_CHUNKS_PER_FILE"
    with ParseWorker(timeout_s=30, memory_mb=1024) as worker, pytest.raises(IngestError, match=expected):
        worker.parse(small, loader_for(path))  # type: ignore[arg-type]
