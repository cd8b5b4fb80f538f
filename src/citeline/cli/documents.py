"""Removing documents by id or by the path they were ingested from (`citeline docs rm`)."""

from __future__ import annotations

from pathlib import Path

from citeline.app import Citeline
from citeline.index.store import DocumentRecord


def _under(source: str, folder: Path) -> bool:
    try:
        return Path(source).is_relative_to(folder)
    except ValueError:
        return False


def remove_documents(citeline: Citeline, targets: list[str], owner: str) -> tuple[list[DocumentRecord], list[str]]:
    """Remove each target's documents: a document id, the path of an ingested file (as given, or
    resolved like `citeline ingest` resolves it), or a folder (every document ingested from under
    it, including files that have since been deleted). Returns (removed, targets not found)."""
    store = citeline.store
    removed: list[DocumentRecord] = []
    missing: list[str] = []
    listed: list[DocumentRecord] | None = None
    for target in targets:
        record = store.get_document(owner, target)
        matches = [record] if record is not None else []
        if not matches:
            path = Path(target).expanduser()
            for candidate in dict.fromkeys([str(path), str(path.absolute()), str(path.resolve())]):
                found = store.find_document(owner, candidate)
                if found is not None:
                    matches = [found]
                    break
        if not matches:
            folder = Path(target).expanduser().resolve()
            listed = listed if listed is not None else store.list_documents(owner)
            matches = [r for r in listed if _under(r.source, folder) or _under(r.source, Path(target).absolute())]
        gone = [r for r in matches if citeline.delete_document(r.id, owner)]
        if gone:
            removed.extend(gone)
            listed = None  # the listing changed
        else:
            missing.append(target)
    return removed, missing
