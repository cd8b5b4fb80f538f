"""Hybrid search over the caller's documents, counted in the metrics."""

from __future__ import annotations

from typing import Any

from citeline.api.service.core import Service
from citeline.retrieval.search import SearchOutcome


def search(svc: Service, owner: str, query: str, *, top_k: int, document_ids: list[str] | None,
           filters: dict[str, Any] | None) -> SearchOutcome:
    """Hybrid search with the query's embedding returned; a cache hit counts in the metrics.
    Blocking (embeds the query): call from a worker thread."""
    outcome = svc.citeline.search(query, top_k=top_k, owner=owner, document_ids=document_ids, filters=filters,
                                  with_vector=True)
    if outcome.cached:
        svc.metrics.cache_hits.labels("retrieval").inc()
    return outcome
