"""Search as a service: embed the query, ask the store, cache by corpus version."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from citeline.config import Settings
from citeline.errors import CitelineError, RetrievalError
from citeline.index.embedder import Embedder, check_identity, embed_queries
from citeline.index.store import Centroid, Passage, SearchRequest, Store
from citeline.retrieval.cache import Cache


@dataclass
class SearchOutcome:
    """The passages a search found, best first, with the time it took, whether they came from cache,
    and (on request) the query's vector."""

    query: str
    passages: list[Passage]
    elapsed_ms: float
    cached: bool = False
    query_vector: list[float] = field(default_factory=list)
    # The query's mean similarity to the owner's other passages than its best match (None when
    # unknown): how high the best passage's similarity must stand to mean a match, not the topic.
    background: float | None = None


class Retriever:
    """Search and open passages for the agent and the interfaces: embeds the query, calls the store,
    caches non-empty results, and turns engine failures into `RetrievalError`."""

    def __init__(self, store: Store, embedder: Embedder, settings: Settings, cache: Cache | None = None) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self.cache = cache
        self._embedder_checked_at: int | None = None  # corpus version the identity check passed at

    def check_embedder(self) -> None:
        """Raise EmbedderMismatchError when the index holds another embedder's vectors (checked
        again after every change to the index, e.g. a `citeline reindex` by another process)."""
        version = self.store.corpus_version()
        if self._embedder_checked_at != version:
            check_identity(self.store.embedder_identity(), self.embedder)
            self._embedder_checked_at = version

    def _cache_key(self, owner: str, query: str, top_k: int, document_ids: Sequence[str] | None,
                   filters: Mapping[str, Any] | None) -> str:
        payload = {
            "owner": owner, "query": query, "top_k": top_k,
            "document_ids": sorted(document_ids) if document_ids is not None else None,
            "filters": dict(filters or {}), "pool": self.settings.retrieval.candidate_pool,
            "rrf_k": self.settings.retrieval.rrf_k, "embedder": self.embedder.name,
            "ann": self.settings.retrieval.ann_min_chunks,
            "corpus": self.store.corpus_version(), "format": 2,  # 2: the background is cached too
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()

    def search(
        self,
        owner: str,
        query: str,
        *,
        top_k: int | None = None,
        document_ids: Sequence[str] | None = None,
        filters: Mapping[str, Any] | None = None,
        with_vector: bool = False,
    ) -> SearchOutcome:
        """Hybrid search of the owner's passages (empty for a blank query), from cache when the same
        search of the same corpus was done before."""
        started = time.perf_counter()
        top_k = top_k or self.settings.retrieval.top_k
        if not query.strip():
            return SearchOutcome(query, [], 0.0)
        key = self._cache_key(owner, query, top_k, document_ids, filters)
        if self.cache is not None and not with_vector:
            hit = self.cache.get("retrieval", key)
            if hit is not None:
                stored = json.loads(hit)
                passages = [Passage.from_json(item) for item in stored["passages"]]
                return SearchOutcome(query, passages, (time.perf_counter() - started) * 1000, cached=True,
                                     background=stored["background"])
        self.check_embedder()
        try:
            vector = embed_queries(self.embedder, [query])[0]
            passages = self.store.search(
                SearchRequest(
                    owner=owner, text=query, vector=vector, top_k=top_k, document_ids=document_ids,
                    filters=filters, candidate_pool=self.settings.retrieval.candidate_pool,
                    rrf_k=self.settings.retrieval.rrf_k, ann_min_chunks=self.settings.retrieval.ann_min_chunks,
                )
            )
            background = _background(vector, self.store.centroid(owner), passages)
        except CitelineError:
            raise
        except Exception as exc:  # an engine bug must still end as RETRIEVAL_ERROR, not a crash
            raise RetrievalError(f"search failed: {exc.__class__.__name__}") from exc
        if self.cache is not None and passages:  # empty results are never cached
            self.cache.put("retrieval", key, json.dumps({"passages": [p.to_json() for p in passages],
                                                         "background": background}))
        return SearchOutcome(
            query, passages, (time.perf_counter() - started) * 1000,
            query_vector=np.round(vector, 6).tolist() if with_vector else [], background=background,
        )

    def open(self, owner: str, document_id: str | None, chunk_id: str) -> Passage | None:
        """One of the owner's passages by id, or None; an engine failure is a `RetrievalError`."""
        try:
            return self.store.get_passage(owner, document_id, chunk_id)
        except CitelineError:
            raise
        except Exception as exc:
            raise RetrievalError(f"open failed: {exc.__class__.__name__}") from exc


def _background(vector: Sequence[float], centroid: Centroid | None, passages: Sequence[Passage]) -> float | None:
    """The query's mean similarity to the corpus's passages other than its best match, or None with
    fewer than two: in a corpus of three passages the best match is a third of the plain mean, and
    would make itself look ordinary."""
    if centroid is None or centroid.passages < 2:
        return None
    mean = float(np.dot(vector, centroid.vector))
    best = max((p.dense_score for p in passages if p.dense_score is not None), default=None)
    return mean if best is None else (mean * centroid.passages - best) / (centroid.passages - 1)


def retrieval_payload(outcome: SearchOutcome) -> dict[str, Any]:
    """The body of `/v1/search` and `citeline search --json`: the published retrieval API's shape
    (camelCase keys), kept stable for clients that parse it."""
    return {
        "retrievedPassages": [
            {
                "passageId": p.chunk_id, "text": p.text, "documentId": p.document_id,
                "documentName": p.document_name, "score": p.score,
                "metadata": {**p.metadata, "source": p.source, "section": p.section, "start": p.start,
                             "end": p.end},
                "page": p.page, "chunkIndex": p.chunk_index,
            }
            for p in outcome.passages
        ],
        "retrievalTime": round(outcome.elapsed_ms, 3),
        "queryEmbedding": outcome.query_vector,
    }
