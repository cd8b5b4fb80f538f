"""files -> load -> chunk -> embed -> Store, incrementally: unchanged files are never re-embedded."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from citeline.config import Settings
from citeline.documents.chunking import chunk_document, content_hash, document_id
from citeline.documents.loaders import loader_for, supported_suffixes
from citeline.errors import CitelineError, IngestError
from citeline.index.embedder import Embedder
from citeline.index.store import DocumentRecord, Store


@dataclass
class FileFailure:
    path: str
    error: str


@dataclass
class IngestReport:
    ingested: int = 0
    unchanged: int = 0
    updated: int = 0
    removed: int = 0
    failed: list[FileFailure] = field(default_factory=list)
    chunks: int = 0
    sanitized_chars: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def ok(self) -> bool:
        return not self.failed


ProgressCallback = Callable[[Path, int], None]  # (file just handled, chunks it produced)


def discover(
    paths: Iterable[Path], include: Sequence[str] = (), exclude: Sequence[str] = ()
) -> tuple[list[Path], list[FileFailure]]:
    """Expand files and directories (recursively) into the supported files to ingest."""
    found: list[Path] = []
    problems: list[FileFailure] = []
    suffixes = supported_suffixes()

    def wanted(path: Path) -> bool:
        name = path.name
        if any(fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(str(path), pattern) for pattern in exclude):
            return False
        if include:
            return any(fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(str(path), pattern) for pattern in include)
        return path.suffix.lower() in suffixes

    for root in paths:
        if root.is_file():
            found.append(root.resolve())
            continue
        if not root.exists():
            problems.append(FileFailure(str(root), "no such file or directory"))
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for filename in sorted(filenames):
                candidate = Path(dirpath) / filename
                if filename.startswith(".") or not wanted(candidate):
                    continue
                found.append(candidate.resolve() if candidate.exists() else candidate.absolute())
    return found, problems


def _embedding_input(title: str, section: str | None, text: str) -> str:
    # Titles and headings carry topic words a chunk body often lacks ("Timeouts" > "Pool timeout").
    heading = f"{title} — {section}" if section and section != title else title
    return f"{heading}\n{text}"


def ingest_paths(
    paths: Iterable[Path],
    *,
    store: Store,
    embedder: Embedder,
    settings: Settings,
    owner: str,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    progress: ProgressCallback | None = None,
) -> IngestReport:
    report = IngestReport()
    files, problems = discover(paths, include, exclude)
    report.failed.extend(problems)
    for path in files:
        try:
            produced = ingest_file(path, store=store, embedder=embedder, settings=settings, owner=owner,
                                   report=report)
        except CitelineError as exc:
            report.failed.append(FileFailure(str(path), str(exc)))
            produced = 0
        except OSError as exc:
            report.failed.append(FileFailure(str(path), f"cannot read: {exc.strerror or exc}"))
            produced = 0
        if progress is not None:
            progress(path, produced)
    return report


def ingest_file(
    path: Path, *, store: Store, embedder: Embedder, settings: Settings, owner: str, report: IngestReport
) -> int:
    """Index one file (or skip it when unchanged). Returns the number of chunks written."""
    loader = loader_for(path)
    if loader is None:
        raise IngestError(f"{path.name}: unsupported file type `{path.suffix or '(none)'}`")
    size = path.stat().st_size
    if size > settings.max_file_bytes:
        raise IngestError(f"{path.name}: {size} bytes is over the {settings.max_file_bytes}-byte limit")
    data = path.read_bytes()
    if not data.strip():
        raise IngestError(f"{path.name}: the file is empty")
    digest = content_hash(data)
    source = str(path)
    existing = store.find_document(owner, source)
    if existing is not None and existing.content_hash == digest and existing.status == "indexed":
        report.unchanged += 1
        return 0

    document = loader.load(path, data)
    doc_id = document_id(owner, source)
    chunks = chunk_document(
        document, doc_id=doc_id, doc_hash=digest, chunk_tokens=settings.chunk_tokens,
        overlap=settings.chunk_overlap,
    )
    if not chunks:
        raise IngestError(f"{path.name}: no text could be extracted")
    vectors = embedder.embed([_embedding_input(document.title, c.section, c.text) for c in chunks])
    record = DocumentRecord(
        id=doc_id, owner=owner, source=source, title=document.title, content_hash=digest,
        metadata={**document.metadata, "format": path.suffix.lower().lstrip(".")}, size_bytes=size,
    )
    store.replace_document(record, chunks, vectors)
    if existing is None:
        report.ingested += 1
    else:
        report.updated += 1
    report.chunks += len(chunks)
    report.sanitized_chars += document.sanitized_chars
    return len(chunks)
