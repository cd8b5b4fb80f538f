"""The Store interface every engine implements, and the engine registry.

Ownership is part of every signature: an engine filters by `owner` inside its own query, so a
document of another owner is indistinguishable from a missing one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from citeline.documents.models import Chunk
from citeline.errors import ConfigurationError


@dataclass
class DocumentRecord:
    id: str
    owner: str
    source: str
    title: str
    content_hash: str
    status: str = "indexed"
    metadata: dict[str, Any] = field(default_factory=dict)
    chunk_count: int = 0
    size_bytes: int = 0
    created_at: float = 0.0
    updated_at: float = 0.0


@dataclass
class Passage:
    """A chunk as returned by search or open: text plus where it comes from."""

    chunk_id: str
    document_id: str
    document_name: str
    source: str
    chunk_index: int
    text: str
    section: str | None
    page: int | None
    start: int
    end: int
    score: float = 0.0
    metadata: dict[str, Any] = field(default_factory=dict)
    # Per-ranker evidence kept for callers that decide whether passages answer a question.
    dense_score: float | None = None
    lexical_rank: int | None = None


@dataclass(frozen=True)
class SearchRequest:
    owner: str
    text: str
    vector: npt.NDArray[np.float32] | None
    top_k: int = 5
    document_ids: Sequence[str] | None = None
    filters: Mapping[str, Any] | None = None
    candidate_pool: int = 50
    rrf_k: int = 60


@runtime_checkable
class Store(Protocol):
    """What citeline needs from an index engine. Every write is one transaction."""

    def replace_document(
        self, record: DocumentRecord, chunks: Sequence[Chunk], vectors: npt.NDArray[np.float32]
    ) -> None:
        """Insert or atomically replace a document with all its chunks and vectors."""

    def get_document(self, owner: str, document_id: str) -> DocumentRecord | None: ...

    def find_document(self, owner: str, source: str) -> DocumentRecord | None: ...

    def list_documents(self, owner: str) -> list[DocumentRecord]: ...

    def delete_document(self, owner: str, document_id: str) -> bool: ...

    def get_passage(self, owner: str, document_id: str | None, chunk_id: str) -> Passage | None: ...

    def search(self, request: SearchRequest) -> list[Passage]: ...

    def counts(self, owner: str) -> tuple[int, int]:
        """(documents, chunks) of `owner`."""

    def corpus_version(self) -> int:
        """Changes on every write; caches key on it so they never serve stale results."""

    def kv_get(self, namespace: str, key: str) -> str | None: ...

    def kv_put(self, namespace: str, key: str, value: str) -> None: ...

    def close(self) -> None: ...


StoreFactory = Callable[[str], Store]
_ENGINES: dict[str, StoreFactory] = {}


def register_engine(scheme: str, factory: StoreFactory) -> None:
    """Register an engine for store URLs starting with `scheme:`."""
    _ENGINES[scheme] = factory


def open_store(url: str) -> Store:
    scheme = url.split(":", 1)[0]
    # Built-in engines register themselves on first use, so their drivers load only when needed.
    if scheme == "sqlite" and "sqlite" not in _ENGINES:
        from citeline.index import sqlite  # noqa: F401  (registers itself)
    if scheme in {"postgresql", "postgres"} and scheme not in _ENGINES:
        from citeline.index import postgres  # noqa: F401  (registers itself; needs citeline[postgres])
    factory = _ENGINES.get(scheme)
    if factory is None:
        raise ConfigurationError(
            f"unknown store URL scheme `{scheme}`",
            hint="use `sqlite:PATH`, `postgresql://...` or leave CITELINE_STORE empty",
        )
    return factory(url)
