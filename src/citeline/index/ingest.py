"""files -> load -> chunk -> embed -> Store, incrementally: unchanged files are never re-embedded.

Guarantees:
- one bad file never stops a batch: it lands in `report.failed` with a reason and a fix;
- a document is either fully indexed or absent: each document (row, chunks, vectors, FTS rows)
  is written by one `replace_document` transaction, so a crash or kill at any moment leaves
  the previous state of that document or the new one, never a mix;
- loading and chunking run in a worker process with time and memory caps (documents/worker.py).

Chunks of several files are embedded together (one call per ~256 chunks), then each document is
written in its own transaction: full batches and less padding, same atomicity.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from citeline.config import Settings
from citeline.documents.chunking import content_hash, document_id
from citeline.documents.limits import LoadLimits
from citeline.documents.models import TEXT_MODEL_VERSION
from citeline.documents.registry import Loader, loader_for, reading_suffix, supported_suffixes
from citeline.documents.worker import ParsedFile, ParseRequest, ParseWorker, parse
from citeline.errors import CitelineError, IngestError, NoTextOfItsOwn, StorageError
from citeline.index.derived import DerivedPages
from citeline.index.embedder import (
    Embedder,
    EmbedderIdentity,
    EmbedderMismatchError,
    check_identity,
    texts_per_call,
)
from citeline.index.store import DocumentRecord, Store


@dataclass
class FileFailure:
    """A file that could not be indexed and why; nothing of it was stored."""

    path: str
    error: str


@dataclass
class SkippedFile:
    """A file (or hidden folder) found under a folder and left out on purpose, and why."""

    path: str
    reason: str


@dataclass
class IngestReport:
    """What an ingest did, file by file counted: new, unchanged, updated, removed and failed
    documents, chunks written, and what was cleaned or flagged on the way."""

    ingested: int = 0
    unchanged: int = 0
    updated: int = 0
    removed: int = 0
    failed: list[FileFailure] = field(default_factory=list)
    chunks: int = 0
    sanitized_chars: int = 0
    # Passages (or hidden text) that address an AI or carry instructions; kept out of answers.
    flagged: int = 0
    # Documents re-read because an older version of citeline's loaders stored them.
    upgraded: int = 0
    skipped: list[SkippedFile] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The report as plain values (the `--json` output)."""
        return asdict(self)

    @property
    def ok(self) -> bool:
        """Whether every file was indexed."""
        return not self.failed


ProgressCallback = Callable[[Path, int], None]  # (file just handled, chunks it produced)
EmbedderSource = Embedder | Callable[[], Embedder]
T = TypeVar("T")


def _matches(path: Path, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatch(path.name, p) or fnmatch.fnmatch(str(path), p) for p in patterns)


def discover(
    paths: Iterable[Path], include: Sequence[str] = (), exclude: Sequence[str] = (),
    skipped: list[SkippedFile] | None = None,
) -> tuple[list[Path], list[FileFailure]]:
    """Expand files and directories (recursively) into the supported files to ingest.

    Hidden files and directories are skipped. Broken symbolic links are kept so that they are
    reported (a link that silently vanished from the index would be a surprise). What is left
    out on purpose is added to `skipped` with the reason, when given.
    """
    found: list[Path] = []
    problems: list[FileFailure] = []
    suffixes = supported_suffixes()
    left_out: list[SkippedFile] = skipped if skipped is not None else []

    def wanted(path: Path) -> bool:
        if _matches(path, exclude):
            left_out.append(SkippedFile(str(path), "excluded by --exclude"))
            return False
        if include:
            if not _matches(path, include):
                left_out.append(SkippedFile(str(path), "not matched by --include"))
                return False
            return True
        if reading_suffix(path) not in suffixes:
            kind = f"`{path.suffix}`" if path.suffix else "without a suffix"
            left_out.append(SkippedFile(str(path), f"unsupported file type {kind} (supported: "
                                        f"{', '.join(sorted(suffixes))})"))
            return False
        return True

    for root in paths:
        if root.is_symlink() and not root.exists():
            problems.append(FileFailure(str(root), f"broken symbolic link (points to {root.readlink()})"))
            continue
        if not root.exists():
            problems.append(FileFailure(str(root), "no such file or directory"))
            continue
        if not root.is_dir():  # a file given explicitly is taken whatever its suffix, and checked later
            found.append(root.resolve())
            continue
        derived = DerivedPages()
        for dirpath, dirnames, filenames in os.walk(root):
            left_out.extend(SkippedFile(str(Path(dirpath) / d), "hidden folder") for d in sorted(dirnames)
                            if d.startswith("."))
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name, reason in derived.left_out(Path(dirpath), dirnames, filenames):
                left_out.append(SkippedFile(str(Path(dirpath) / name), reason))
                (dirnames if name in dirnames else filenames).remove(name)
            for filename in sorted(filenames):
                candidate = Path(dirpath) / filename
                if filename.startswith("."):
                    left_out.append(SkippedFile(str(candidate), "hidden file"))
                    continue
                if not wanted(candidate):
                    continue
                found.append(candidate.resolve() if candidate.exists() else candidate.absolute())
    # The same file reached through two roots or a symlink is ingested once.
    return list(dict.fromkeys(found)), problems


def embedding_input(title: str, section: str | None, text: str) -> str:
    """What is embedded for a chunk (ingest and `citeline reindex` must agree): its title and
    section, then its text. Titles and headings carry topic words a chunk body often lacks
    ("Timeouts" > "Pool timeout")."""
    heading = f"{title} — {section}" if section and section != title else title
    return f"{heading}\n{text}"


def _read_checked(path: Path, max_bytes: int) -> bytes:
    """The file's bytes, or an IngestError saying precisely why it cannot be read."""
    name = path.name
    try:
        info = path.stat()
    except FileNotFoundError:
        if path.is_symlink():
            raise IngestError(f"{name}: broken symbolic link (points to {path.readlink()})",
                              hint="fix the link or delete it") from None
        raise IngestError(f"{name}: the file disappeared before it could be read") from None
    if not stat.S_ISREG(info.st_mode):
        # Reading a FIFO would block forever and a device could be endless.
        raise IngestError(f"{name}: is not a regular file (a pipe, socket or device)",
                          hint="exclude it with --exclude")
    if info.st_size > max_bytes:
        raise IngestError(f"{name}: {info.st_size:,} bytes is over the {max_bytes:,}-byte limit",
                          hint="split the file, or raise CITELINE_MAX_FILE_BYTES")
    try:
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)  # a file growing while read cannot exceed the cap
    except PermissionError:
        raise IngestError(f"{name}: permission denied",
                          hint="make it readable for this user, e.g. `chmod a+r FILE`") from None
    except IsADirectoryError:
        raise IngestError(f"{name}: is a directory") from None
    if len(data) > max_bytes:
        raise IngestError(f"{name}: grew past the {max_bytes:,}-byte limit while being read")
    if not data.strip():
        raise NoTextOfItsOwn(f"{name}: the file is empty", hint="add content or exclude it")
    return data


def _parse_here(request: ParseRequest, loader: Loader) -> ParsedFile:
    """In-process parsing (`parse_in_worker = false`): no time or memory cap, but a loader bug
    still fails only its own file."""
    name = Path(request.path).name
    try:
        return parse(request, loader)
    except CitelineError:
        raise
    except MemoryError:
        raise IngestError(f"{name}: ran out of memory while parsing",
                          hint="turn CITELINE_PARSE_IN_WORKER back on, or split the file") from None
    except Exception as exc:
        raise IngestError(f"{name}: could not be parsed ({exc.__class__.__name__}: {str(exc)[:200]})",
                          hint="the file may be damaged; re-export it or exclude it") from exc


@dataclass
class _Pending:
    """A parsed file waiting for its embeddings."""

    path: Path
    record: DocumentRecord
    parsed: ParsedFile
    is_update: bool


class _Ingester:
    def __init__(self, *, store: Store, embedder: EmbedderSource, settings: Settings, owner: str,
                 report: IngestReport, progress: ProgressCallback | None,
                 sources: Mapping[Path, str] | None = None) -> None:
        self.store, self.settings, self.owner, self.report = store, settings, owner, report
        # Resolved path -> the document's `source` when it is not the path itself (API uploads).
        self.sources = {path.resolve(): source for path, source in (sources or {}).items()}
        self.progress = progress
        self._embedder_source = embedder
        self._embedder: Embedder | None = None
        self._identity: EmbedderIdentity | None = None
        self._worker: ParseWorker | None = None
        self._pending: list[_Pending] = []
        self._pending_chunks = 0
        # Texts are embedded sorted by length, so one call over many files pads far less than a
        # call per file or two (bench/ingest.py: ingest 1.29x embedding the same texts alone when
        # flushing every 16 chunks, 1.10-1.12x at 256). Pending chunks cost only their text.
        self._flush_at = max(32 * settings.index.embed_batch_size, 256)
        self._limits = LoadLimits(max_pages=settings.index.max_pages,
                                  max_decompressed_bytes=settings.index.max_decompressed_bytes,
                                  max_line_chars=settings.index.max_line_chars,
                                  max_blocks=settings.index.max_blocks_per_file)

    # The embedder (a model load) and the worker (a process) are only created when a file
    # actually changed: re-running on an unchanged folder is just hashing.
    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            source = self._embedder_source
            embedder = source if isinstance(source, Embedder) else source()
            # Before any work: vectors of another embedder than the index's are refused here, and
            # again inside every write (an index can be reindexed while this runs).
            self._identity = check_identity(self.store.embedder_identity(), embedder)
            self._embedder = embedder
        return self._embedder

    def _flush_threshold(self) -> int:
        # A remote embedder wants enough texts per call to keep all its connections busy.
        return texts_per_call(self.embedder, self._flush_at)

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()

    def _done(self, path: Path, chunks: int) -> None:
        if self.progress is not None:
            self.progress(path, chunks)

    def _fail(self, path: Path, message: str) -> None:
        self.report.failed.append(FileFailure(str(path), message))
        self._done(path, 0)

    def add(self, path: Path, *, named: bool = True) -> None:
        """Read, parse and queue one file for embedding. `named`: the user named this file itself
        rather than a folder holding it."""
        try:
            pending = self._prepare(path)
        except NoTextOfItsOwn as exc:
            self._no_text_of_its_own(path, exc, named=named)
            return
        except CitelineError as exc:
            self._fail(path, str(exc))
            return
        except OSError as exc:
            self._fail(path, f"{path.name}: cannot read: {exc.strerror or exc}")
            return
        if pending is None:
            self._done(path, 0)
            return
        self._pending.append(pending)
        self._pending_chunks += len(pending.parsed.chunks)
        if self._pending_chunks >= self._flush_threshold():
            self.flush()

    def _no_text_of_its_own(self, path: Path, exc: NoTextOfItsOwn, *, named: bool) -> None:
        # A documentation tree holds such pages on purpose (a changelog page including
        # CHANGES.rst), and failing them would fail every run of a folder's ingest. A named file,
        # or one whose earlier version is still indexed (its old text would go on answering),
        # is a fault the user must see.
        source = self.sources.get(path.resolve(), str(path))
        if named or self.store.find_document(self.owner, source) is not None:
            self._fail(path, str(exc))
            return
        reason = str(exc).removeprefix(f"{path.name}: ")
        self.report.skipped.append(SkippedFile(str(path), reason))
        self._done(path, 0)

    def _prepare(self, path: Path) -> _Pending | None:
        loader = loader_for(path)
        if loader is None:
            raise IngestError(f"{path.name}: unsupported file type `{path.suffix or '(none)'}`",
                              hint="see `citeline ingest --help` for the formats, or use --exclude")
        data = _read_checked(path, self.settings.index.max_file_bytes)
        digest = content_hash(data)
        source = self.sources.get(path.resolve(), str(path))
        existing = self.store.find_document(self.owner, source)
        if existing is not None and existing.content_hash == digest and existing.status == "indexed":
            self.report.unchanged += 1
            return None
        doc_id = document_id(self.owner, source)
        # A file named otherwise than by its path (an upload) is parsed under its bare file name:
        # the loader derives the title and its error messages from it, and the internal source
        # name (`upload:...`) must never become a title a user reads.
        parse_path = str(path) if source == str(path) else path.name
        request = ParseRequest(
            path=parse_path, data=data, doc_id=doc_id, doc_hash=digest,
            chunk_tokens=self.settings.index.chunk_tokens, overlap=self.settings.index.chunk_overlap,
            max_chunks=self.settings.index.max_chunks_per_file, limits=self._limits,
        )
        if self.settings.index.parse_in_worker:
            if self._worker is None:
                self._worker = ParseWorker(timeout_s=self.settings.index.parse_timeout_s,
                                           memory_mb=self.settings.index.parse_memory_mb)
            parsed = self._worker.parse(request, loader)
        else:
            parsed = _parse_here(request, loader)
        flags = [{"reason": f.reason, "excerpt": f.excerpt, "stored": f.stored} for f in parsed.flags]
        metadata = {**parsed.metadata, "format": reading_suffix(path).lstrip("."), "text_model": TEXT_MODEL_VERSION}
        if flags:
            metadata["flags"] = flags
        record = DocumentRecord(
            id=doc_id, owner=self.owner, source=source, title=parsed.title, content_hash=digest,
            metadata=metadata, size_bytes=len(data),
        )
        if existing is not None and existing.metadata.get("text_model") != TEXT_MODEL_VERSION:
            self.report.upgraded += 1
        return _Pending(path, record, parsed, existing is not None)

    def flush(self) -> None:
        pending, self._pending, self._pending_chunks = self._pending, [], 0
        if not pending:
            return
        texts = [embedding_input(p.parsed.title, c.section, c.text)
                 for p in pending for c in p.parsed.chunks]
        vectors = self.embedder.embed(texts)
        offset = 0
        for item in pending:
            count = len(item.parsed.chunks)
            item_vectors = vectors[offset : offset + count]
            offset += count
            try:
                self.store.replace_document(item.record, item.parsed.chunks, item_vectors,
                                            embedder=self._identity)
            except (StorageError, EmbedderMismatchError):
                raise  # a full disk or another embedder's index fails every later file too: stop, say it once
            except CitelineError as exc:
                self._fail(item.path, f"{item.path.name}: {exc}")
                continue
            if item.is_update:
                self.report.updated += 1
            else:
                self.report.ingested += 1
            self.report.chunks += count
            self.report.sanitized_chars += item.parsed.sanitized_chars
            self.report.flagged += len(item.parsed.flags)
            self._done(item.path, count)


def ingest_paths(
    paths: Iterable[Path],
    *,
    store: Store,
    embedder: EmbedderSource,
    settings: Settings,
    owner: str,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    progress: ProgressCallback | None = None,
    prune: bool = False,
    on_discovered: Callable[[int], None] | None = None,
    sources: Mapping[Path, str] | None = None,
) -> IngestReport:
    """Ingest files and directories. `embedder` may be a factory, called only if something changed.

    With `prune`, documents of `owner` whose files under these roots no longer exist are removed.
    `sources` names the documents of some files otherwise than by their path (API uploads: the
    name must not depend on which worker's disk held the file).
    """
    roots = list(paths)
    report = IngestReport()
    files, problems = discover(roots, include, exclude, report.skipped)
    report.failed.extend(problems)
    if on_discovered is not None:
        on_discovered(len(files))
    ingester = _Ingester(store=store, embedder=embedder, settings=settings, owner=owner, report=report,
                         progress=progress, sources=sources)
    try:
        named = {root.resolve() for root in roots if not root.is_dir()}
        for path in files:
            ingester.add(path, named=path in named)
        ingester.flush()
    finally:
        ingester.close()
    if prune:
        report.removed = prune_missing(store, owner, roots)
    if report.chunks or report.removed:
        # Large corpora: build or patch the ANN graph now rather than in the first query.
        store.prepare_search(owner, ann_min_chunks=settings.retrieval.ann_min_chunks)
    return report


def ingest_file(
    path: Path, *, store: Store, embedder: EmbedderSource, settings: Settings, owner: str,
    report: IngestReport,
) -> int:
    """Index one file (or skip it when unchanged). Returns the number of chunks written.

    Raises IngestError when the file cannot be ingested (and leaves `report.failed` alone)."""
    failures_before = len(report.failed)
    chunks_before = report.chunks
    ingester = _Ingester(store=store, embedder=embedder, settings=settings, owner=owner, report=report,
                         progress=None)
    try:
        ingester.add(path)
        ingester.flush()
    finally:
        ingester.close()
    if len(report.failed) > failures_before:
        failure = report.failed.pop()
        raise IngestError(failure.error)
    return report.chunks - chunks_before


def _under(source: Path, roots: Sequence[Path]) -> bool:
    return any(source == root or source.is_relative_to(root) for root in roots)


def prune_missing(store: Store, owner: str, roots: Sequence[Path]) -> int:
    """Remove `owner`'s documents whose source file under one of `roots` no longer exists.

    Roots that do not exist themselves are ignored: an unmounted drive or a typo in a path must
    not wipe that part of the index.
    """
    existing_roots = [root.resolve() for root in roots if root.exists()]
    if not existing_roots:
        return 0
    removed = 0
    for record in store.list_documents(owner):
        source = Path(record.source)
        if not _under(source, existing_roots) or source.exists():
            continue
        if store.delete_document(owner, record.id):
            removed += 1
    return removed
