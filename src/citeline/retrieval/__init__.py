"""Retrieval: search as a service (embed, query the store, cache by corpus version) and the
evidence judgements made on what comes back."""

from citeline.retrieval.search import Retriever, SearchOutcome, retrieval_payload

__all__ = ["Retriever", "SearchOutcome", "retrieval_payload"]
