"""`POST /v1/documents`: staging, the checks before indexing, and indexing itself.

Before anything is indexed, an upload must fit: a run slot of its user and one of the worker's
upload slots (parsing is the heaviest work a request can cause), the user's storage quota, and
no silent replacement: a file name the user already has with other content is a 409 unless the
client asks for `?replace=true` (the same content again is simply "unchanged"). Files are parsed
in the capped parse worker whatever `parse_in_worker` says, so a hostile file costs at most
`parse_timeout_s` and `parse_memory_mb`. Files are only staged on this worker's disk while they
are indexed, then removed: the store holds everything later requests need.
"""

from __future__ import annotations

import logging
import shutil
import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Protocol

from starlette.concurrency import run_in_threadpool

from citeline.api.errors import ApiError
from citeline.api.service.core import Service, sanitize_filename
from citeline.api.users import User
from citeline.documents.chunking import content_hash
from citeline.documents.registry import reading_suffix, supported_suffixes
from citeline.errors import StorageError
from citeline.index.ingest import ingest_paths
from citeline.index.private import private_dir
from citeline.index.store import DocumentRecord
from citeline.text import printable

log = logging.getLogger("citeline.api")
_owner_locks: dict[str, threading.Lock] = {}
_owner_locks_guard = threading.Lock()


class IncomingFile(Protocol):
    """A file of a multipart request as uploads read it (FastAPI's `UploadFile` is one)."""

    filename: str | None

    async def read(self, size: int = -1) -> bytes:
        """At most `size` bytes of the file; empty at its end."""
        ...


@dataclass(frozen=True)
class RejectedFile:
    """A file of an upload that was not indexed, and why."""

    filename: str
    error: str


@dataclass
class UploadOutcome:
    """What an upload did: the documents it indexed (new, updated or unchanged), the files it
    could not index, and the ingest counts."""

    documents: list[DocumentRecord] = field(default_factory=list)
    failed: list[RejectedFile] = field(default_factory=list)
    ingested: int = 0
    updated: int = 0
    unchanged: int = 0
    chunks: int = 0


def _owner_lock(owner: str) -> threading.Lock:
    with _owner_locks_guard:
        return _owner_locks.setdefault(owner, threading.Lock())


@contextmanager
def upload_slots(svc: Service, user: User) -> Iterator[None]:
    """One of the user's run slots and one of the worker's upload slots, or 429."""
    if not svc.slots.try_acquire(user.id):
        raise ApiError(429, f"too much work in flight: at most {svc.api.max_concurrent_runs} runs and uploads "
                       "per user at once; retry after the Retry-After delay", headers={"Retry-After": "1"})
    try:
        if not svc.upload_slots.try_acquire():
            raise ApiError(429, f"the server is indexing {svc.api.max_concurrent_uploads} uploads already; retry "
                           "after the Retry-After delay", headers={"Retry-After": "2"})
        try:
            yield
        finally:
            svc.upload_slots.release()
    finally:
        svc.slots.release(user.id)


async def _save(svc: Service, upload: IncomingFile, folder: Path) -> tuple[str, Path | None, str | None]:
    name = sanitize_filename(upload.filename or "")
    if reading_suffix(Path(name)) not in supported_suffixes():
        return name, None, f"unsupported file type `{Path(name).suffix or '(none)'}`"
    limit = svc.citeline.settings.index.max_file_bytes
    target = folder / name
    partial = folder / f".{name}.{uuid.uuid4().hex}.part"
    size = 0
    with partial.open("wb") as out:
        while chunk := await upload.read(1 << 20):
            size += len(chunk)
            if size > limit:
                break
            out.write(chunk)
    if size > limit:
        partial.unlink(missing_ok=True)
        return name, None, f"the file is over the {limit}-byte limit"
    partial.replace(target)
    return name, target, None


def _existing(svc: Service, owner: str, name: str) -> DocumentRecord | None:
    store = svc.citeline.store
    return store.find_document(owner, svc.upload_source(name)) or store.find_document(
        owner, svc.legacy_upload_source(owner, name))


def _check_fits(svc: Service, owner: str, saved: list[tuple[str, Path]], replace: bool) -> None:
    """409 for a name taken by other content (unless `replace`), 413 over the storage quota."""
    names = [name for name, _ in saved]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ApiError(409, f"the upload has several files named {', '.join(f'`{n}`' for n in twice)}: "
                       "rename them so each name is used once", details={"conflicts": twice})
    conflicts: list[str] = []
    freed = 0
    for name, path in saved:
        existing = _existing(svc, owner, name)
        if existing is None:
            continue
        if existing.content_hash != content_hash(path.read_bytes()) and not replace:
            conflicts.append(name)
        freed += existing.size_bytes
    if conflicts:
        listed = ", ".join(f"`{n}`" for n in conflicts)
        raise ApiError(409, f"you already have a document named {listed} with other content: upload with "
                       "`?replace=true` to replace it, or rename the file", details={"conflicts": conflicts})
    quota = svc.api.storage_quota_bytes
    if quota > 0:
        used = sum(record.size_bytes for record in svc.citeline.store.list_documents(owner))
        incoming = sum(path.stat().st_size for _, path in saved)
        if used - freed + incoming > quota:
            raise ApiError(413, f"storage quota exceeded: {used:,} of {quota:,} bytes are used and this upload "
                           f"needs {incoming - freed:,} more; delete documents (DELETE /v1/documents/ID) first",
                           type="validation_error", step="validation",
                           details={"used_bytes": used, "quota_bytes": quota, "upload_bytes": incoming})


def _ingest(svc: Service, owner: str, saved: list[tuple[str, Path]]) -> UploadOutcome:
    result = UploadOutcome()
    store = svc.citeline.store
    # Uploads are strangers' files: always parsed in the worker with its time and memory caps.
    settings = svc.citeline.settings.model_copy(update={"parse_in_worker": True})
    for name, path in saved:
        source = svc.upload_source(name)
        try:
            report = ingest_paths([path], store=store, embedder=lambda: svc.citeline.embedder, settings=settings,
                                  owner=owner, sources={path: source})
        except StorageError:
            log.exception("an upload could not be written to the index")
            raise ApiError(507, "the server's storage is full or failing: the file was not stored (nothing was "
                           "half-written); try again later", type="retrieval_error", step="retrieval") from None
        except Exception:
            log.exception("ingest of an upload failed")
            report = None
        if report is None or report.failed:
            reason = report.failed[0].error if report else "the file could not be indexed"
            reason = reason.replace(str(path.parent) + "/", "").replace(str(path), name)
            result.failed.append(RejectedFile(filename=name, error=printable(svc.present_name(reason))))
            continue
        result.ingested += report.ingested
        result.updated += report.updated
        result.unchanged += report.unchanged
        result.chunks += report.chunks
        # An upload indexed before uploads were named by file name (its source a path in this
        # worker's home) is replaced by the new document, as a re-upload always was.
        legacy = store.find_document(owner, svc.legacy_upload_source(owner, name))
        if legacy is not None:
            svc.citeline.delete_document(legacy.id, owner)
            Path(legacy.source).unlink(missing_ok=True)
        record = store.find_document(owner, source)
        if record is not None:
            result.documents.append(record)
    return result


def _check_and_ingest(svc: Service, owner: str, saved: list[tuple[str, Path]], replace: bool) -> UploadOutcome:
    # One upload of a user at a time in this worker, so two cannot both pass the quota check.
    with _owner_lock(owner):
        _check_fits(svc, owner, saved, replace)
        return _ingest(svc, owner, saved)


async def upload(svc: Service, user: User, files: Sequence[IncomingFile], *, replace: bool) -> UploadOutcome:
    """Stage, check and index an upload (see the module docstring for the rules)."""
    if len(files) > svc.api.max_upload_files:
        raise ApiError(422, f"at most {svc.api.max_upload_files} files per upload", type="validation_error",
                       step="validation")
    with upload_slots(svc, user):
        folder = svc.uploads_dir(user.id) / uuid.uuid4().hex
        await run_in_threadpool(private_dir, folder)
        try:
            saved: list[tuple[str, Path]] = []
            failures: list[RejectedFile] = []
            for item in files:
                name, path, problem = await _save(svc, item, folder)
                if path is None:
                    failures.append(RejectedFile(filename=name, error=problem or "rejected"))
                else:
                    saved.append((name, path))
            result = await run_in_threadpool(_check_and_ingest, svc, user.id, saved, replace)
        finally:
            await run_in_threadpool(shutil.rmtree, folder, ignore_errors=True)
    result.failed = failures + result.failed
    if not result.documents:
        raise ApiError(422, "no file could be indexed", type="validation_error", step="validation",
                       details={"failed": [asdict(f) for f in result.failed]})
    return result
