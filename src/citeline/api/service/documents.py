"""The caller's documents: list, read, open a cited passage, delete, and find the original file.
Another user's document id behaves exactly like a missing one (404). Blocking (the store): call
these from a worker thread."""

from __future__ import annotations

from pathlib import Path

from citeline.api.errors import ApiError, not_found
from citeline.api.service.core import UPLOAD_SCHEME, Service
from citeline.documents.chunking import content_hash
from citeline.index.store import DocumentRecord, Passage

_NO_ORIGINAL = ("the service does not keep this document's original file (uploads are indexed, "
                "then removed); the passage text is what was indexed")
_CHANGED = "the original file changed after it was indexed; ingest it again to open it"


def list_documents(svc: Service, owner: str) -> list[DocumentRecord]:
    """The owner's documents."""
    return svc.citeline.documents(owner)


def get_document(svc: Service, owner: str, document_id: str) -> DocumentRecord:
    """One of the owner's documents, or 404."""
    record = svc.citeline.store.get_document(owner, document_id)
    if record is None:
        raise not_found("document")
    return record


def open_passage(svc: Service, owner: str, document_id: str, chunk_id: str) -> Passage:
    """The exact passage a citation points at, or 404."""
    passage = svc.citeline.store.get_passage(owner, document_id, chunk_id)
    if passage is None:
        raise not_found("passage")
    return passage


def delete_document(svc: Service, owner: str, document_id: str) -> None:
    """Delete one of the owner's documents (404 when there is none), with its staged upload file."""
    record = svc.citeline.store.get_document(owner, document_id)
    if record is None or not svc.citeline.delete_document(document_id, owner):
        raise not_found("document")
    source = Path(record.source)
    if source.parent == svc.uploads_dir(owner):  # an upload from before uploads were staged only
        source.unlink(missing_ok=True)


def original_path(record: DocumentRecord) -> Path | None:
    """The file a document was indexed from, if it is still on this machine unchanged; else None.

    Uploads have no path (their source is the upload name). A file that changed since it was
    indexed raises 404 with the fix, so a citation never opens text other than the one it checked.
    """
    if record.source.startswith(UPLOAD_SCHEME):
        return None
    path = Path(record.source)
    if not path.is_absolute() or not path.is_file():
        return None
    if content_hash(path.read_bytes()) != record.content_hash:
        raise ApiError(404, _CHANGED)
    return path


def original_file(svc: Service, owner: str, document_id: str) -> Path:
    """The original file of one of the owner's documents indexed from a file on the server, or 404
    saying why there is none (uploads are not kept)."""
    path = original_path(get_document(svc, owner, document_id))
    if path is None:
        raise ApiError(404, _NO_ORIGINAL)
    return path
