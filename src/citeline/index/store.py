"""The Store interface every engine implements, and the engine registry.

Ownership is part of every signature: an engine filters by `owner` inside its own query, so a
document of another owner is indistinguishable from a missing one.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from citeline import plugins
from citeline.config import DEFAULT_ANN_MIN_CHUNKS
from citeline.documents.models import Chunk, ChunkBlock
from citeline.errors import ConfigurationError
from citeline.index.embedder import EmbedderIdentity


@dataclass
class DocumentRecord:
    """One indexed document of one owner: where it came from, its content hash (what tells an
    unchanged file on re-ingest), its metadata and counts."""

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
    # The chunk's typed blocks (offsets into `text`): answers quote whole list items, rows and
    # code blocks, and keep passages with text aimed at an AI out of the evidence.
    blocks: tuple[ChunkBlock, ...] = ()

    @property
    def flagged(self) -> bool:
        """Whether the passage carries text aimed at an AI (flagged when it was ingested)."""
        return any(block.flags for block in self.blocks)

    @property
    def untrusted(self) -> bool:
        """Whether the passage is kept out of evidence: it, or another passage of its document (the
        document's `flags` metadata), was flagged at ingest as text aimed at an AI. A page that tries
        to instruct the assistant is not a source to trust, whatever its other sections say."""
        return self.flagged or bool(self.metadata.get("flags"))

    def to_json(self) -> dict[str, Any]:
        """The passage as JSON (for caches and run records), its blocks in their compact list form."""
        data = asdict(self)
        data["blocks"] = [block.to_json() for block in self.blocks]
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Passage:
        """The passage `to_json` wrote down."""
        fields = {key: value for key, value in data.items() if key != "blocks"}
        return cls(**fields, blocks=tuple(ChunkBlock.from_json(block) for block in data.get("blocks") or []))


class Centroid(NamedTuple):
    """The mean of an owner's passage vectors (`Store.centroid`) and how many went into it."""

    vector: npt.NDArray[np.float32]
    passages: int


@dataclass(frozen=True)
class SearchRequest:
    """One search of one owner's passages: the query text for BM25, its vector for dense search, the
    filters, and how many candidates each ranking contributes before fusion."""

    owner: str
    text: str
    vector: npt.NDArray[np.float32] | None
    top_k: int = 5
    document_ids: Sequence[str] | None = None
    filters: Mapping[str, Any] | None = None
    candidate_pool: int = 50
    rrf_k: int = 60
    # Dense search is approximate (an HNSW graph) when the owner holds at least this many
    # chunks, exact below; 0 keeps it exact always.
    ann_min_chunks: int = DEFAULT_ANN_MIN_CHUNKS


Exported = tuple[DocumentRecord, list[Chunk], npt.NDArray[np.float32]]


@dataclass(frozen=True)
class ReindexRow:
    """A chunk still waiting for its vector from the new embedder during `citeline reindex`."""

    rowid: int
    chunk_id: str
    title: str
    section: str | None
    text: str


def blocks_to_json(blocks: Sequence[ChunkBlock]) -> str:
    """A chunk's blocks as engines store them (a compact JSON list)."""
    return json.dumps([block.to_json() for block in blocks], separators=(",", ":"))


def blocks_from_json(value: str | list[Any] | None) -> tuple[ChunkBlock, ...]:
    """The blocks an engine stored (JSON text, or an already decoded list)."""
    if not value:
        return ()
    items = json.loads(value) if isinstance(value, str) else value
    return tuple(ChunkBlock.from_json(item) for item in items)


class Store(ABC):
    """What citeline needs from an index engine. Every write is one transaction.

    Ownership is part of every signature: an engine filters by `owner` inside its own query,
    so another owner's document is indistinguishable from a missing one."""

    @abstractmethod
    def replace_document(
        self, record: DocumentRecord, chunks: Sequence[Chunk], vectors: npt.NDArray[np.float32],
        *, embedder: EmbedderIdentity | None = None,
    ) -> None:
        """Insert or atomically replace a document with all its chunks and vectors.

        With `embedder`, the same transaction checks that the index holds that embedder's vectors
        (recording it on the first write) and raises `EmbedderMismatchError` otherwise."""

    def import_document(
        self, record: DocumentRecord, chunks: Sequence[Chunk], vectors: npt.NDArray[np.float32],
        *, embedder: EmbedderIdentity | None = None,
    ) -> None:
        """Like `replace_document`, keeping the record's timestamps where the engine can
        (`citeline db copy`); by default the copy is timestamped now."""
        self.replace_document(record, chunks, vectors, embedder=embedder)

    # --- which embedder wrote the vectors, and re-embedding them (`citeline reindex`) ---------
    def embedder_identity(self) -> EmbedderIdentity | None:
        """The embedder whose vectors the index holds; None while it holds none (any embedder may
        start it). Engines that do not record identities return None and accept any embedder."""
        return None

    def _no_reindex(self) -> ConfigurationError:
        return ConfigurationError(f"the {type(self).__name__} engine cannot re-embed an index in place",
                                  hint="ingest the documents again into a new index with the new embedder")

    def reindex_begin(self, target: EmbedderIdentity) -> None:
        """Start (or resume, when `target` is the one already started) re-embedding with `target`:
        new vectors go to a shadow table and the old ones keep serving."""
        raise self._no_reindex()

    def reindex_pending(self, after_rowid: int, limit: int) -> list[ReindexRow]:
        """Up to `limit` chunks after `after_rowid` (by rowid) without a new vector yet."""
        raise self._no_reindex()

    def reindex_put(self, target: EmbedderIdentity, rowids: Sequence[tuple[int, str]],
                    vectors: npt.NDArray[np.float32]) -> None:
        """Store new vectors for (rowid, chunk_id) pairs in the shadow table (nothing serves them yet)."""
        raise self._no_reindex()

    def reindex_status(self) -> tuple[int, int]:
        """(chunks with a new vector, chunks in the index) of the re-embedding under way."""
        raise self._no_reindex()

    def reindex_commit(self, target: EmbedderIdentity) -> bool:
        """In one transaction: if every chunk has its new vector, swap them all in and record
        `target` as the index's embedder (True); otherwise change nothing (False: chunks written
        since, e.g. by an ingest, still need vectors)."""
        raise self._no_reindex()

    @abstractmethod
    def export_documents(self) -> Iterator[Exported]:
        """Every document of every owner with its chunks and stored vectors, from one read
        snapshot (a concurrent ingest cannot tear it), in a stable order."""

    @abstractmethod
    def get_document(self, owner: str, document_id: str) -> DocumentRecord | None:
        """The document's record, or None (also for another owner's document)."""

    @abstractmethod
    def find_document(self, owner: str, source: str) -> DocumentRecord | None:
        """The owner's document ingested from `source`, or None."""

    @abstractmethod
    def list_documents(self, owner: str) -> list[DocumentRecord]:
        """The owner's documents."""

    @abstractmethod
    def delete_document(self, owner: str, document_id: str) -> bool:
        """Remove a document with its chunks and vectors; False when the owner has no such document."""

    @abstractmethod
    def get_passage(self, owner: str, document_id: str | None, chunk_id: str) -> Passage | None:
        """One of the owner's chunks as a passage, or None."""

    def centroid(self, owner: str) -> Centroid | None:
        """The mean of the owner's passage vectors and how many there are, or None while the owner has
        none. A query vector's dot product with the mean is the query's mean similarity to the whole
        corpus: the level a passage that truly matches stands out from, whatever the corpus or the
        embedder. An engine that cannot tell returns None; the answerer then does without."""
        return None

    @abstractmethod
    def search(self, request: SearchRequest) -> list[Passage]:
        """Hybrid (BM25 + dense, fused) search within the request's owner and filters."""

    @abstractmethod
    def counts(self, owner: str) -> tuple[int, int]:
        """(documents, chunks) of `owner`."""

    @abstractmethod
    def corpus_version(self) -> int:
        """Changes on every write; caches key on it so they never serve stale results."""

    @abstractmethod
    def kv_get(self, namespace: str, key: str) -> str | None:
        """A value of the engine's key/value table (the persistent cache), or None."""

    @abstractmethod
    def kv_put(self, namespace: str, key: str, value: str) -> None:
        """Store a value in the key/value table, replacing any previous one."""

    def check_writable(self) -> None:
        """Raise `StorageError` (or the engine's error) unless a write succeeds now: readiness
        checks call it so a server whose index cannot be written stops taking traffic."""
        import time

        self.kv_put("health", "write_probe", str(time.time()))

    @abstractmethod
    def kv_items(self, namespace: str) -> list[tuple[str, str]]:
        """Every (key, value) of a namespace, by key (for small namespaces such as the users)."""

    @abstractmethod
    def kv_delete(self, namespace: str, key: str) -> bool:
        """Remove a value; False when there was none."""

    def prepare_search(self, owner: str, *, ann_min_chunks: int) -> None:
        """Bring the owner's search structures up to date after writes (ingestion calls it), so
        the first query does not pay for it; engines whose indexes update with every write keep
        this no-op."""
        return None

    @abstractmethod
    def close(self) -> None:
        """Release connections; the store is not used afterwards."""


StoreFactory = Callable[[str], Store]
_ENGINES: dict[str, StoreFactory] = {}


def register_engine(scheme: str, factory: StoreFactory) -> None:
    """Register an engine for store URLs starting with `scheme:`."""
    _ENGINES[scheme] = factory


def open_store(url: str) -> Store:
    """Open the store a URL names; the engine's plugin (and its driver) loads on first use."""
    scheme = url.split(":", 1)[0]
    if scheme not in _ENGINES:
        plugins.ensure("engine", scheme)
    if scheme not in _ENGINES:
        plugins.load_all()
    factory = _ENGINES.get(scheme)
    if factory is None:
        raise ConfigurationError(
            f"unknown store URL scheme `{scheme}`",
            hint="use `sqlite:PATH`, `postgresql://...` or leave CITELINE_STORE empty",
        )
    return factory(url)
