"""Caches behind one interface: in memory (per process) or persistent (the store's own database).

Keys are SHA-256 digests built by the callers from everything that determines the value,
including the corpus version, so an entry can never be served for a changed corpus.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from typing import Protocol, runtime_checkable

from citeline.index.store import Store

log = logging.getLogger("citeline.cache")


@runtime_checkable
class Cache(Protocol):
    """A string cache by namespace and key; the retriever and the runner keep search results and
    answers in one."""

    def get(self, namespace: str, key: str) -> str | None:
        """The cached value, or None."""

    def put(self, namespace: str, key: str, value: str) -> None:
        """Remember a value under the key."""


class MemoryCache:
    """A bounded LRU, safe to share between threads."""

    def __init__(self, max_entries: int = 2048) -> None:
        self._data: OrderedDict[tuple[str, str], str] = OrderedDict()
        self._max = max_entries
        self._lock = threading.Lock()

    def get(self, namespace: str, key: str) -> str | None:
        """The cached value (now the most recently used), or None."""
        with self._lock:
            value = self._data.get((namespace, key))
            if value is not None:
                self._data.move_to_end((namespace, key))
            return value

    def put(self, namespace: str, key: str, value: str) -> None:
        """Remember a value, dropping the least recently used entries beyond the bound."""
        with self._lock:
            self._data[(namespace, key)] = value
            self._data.move_to_end((namespace, key))
            while len(self._data) > self._max:
                self._data.popitem(last=False)


class NullCache:
    """Remembers nothing: for measuring the real work of answering (`citeline eval`)."""

    def get(self, namespace: str, key: str) -> str | None:
        """Always None: nothing is remembered."""
        return None

    def put(self, namespace: str, key: str, value: str) -> None:
        """Forget the value at once."""
        return None


class StoreCache:
    """Persistent cache in the store's key/value table: survives restarts, shared by processes."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def get(self, namespace: str, key: str) -> str | None:
        """The value from the store's key/value table, or None."""
        return self._store.kv_get(f"cache:{namespace}", key)

    def put(self, namespace: str, key: str, value: str) -> None:
        """Best effort: a cache entry that cannot be written (disk full, store down) is skipped
        with a warning; the answer or search it would have cached is still returned."""
        try:
            self._store.kv_put(f"cache:{namespace}", key, value)
        except Exception as exc:
            log.warning("could not write a %s cache entry (%s); continuing without caching it", namespace, exc)


class LayeredCache:
    """Memory in front of a persistent cache: repeated lookups in one process stay in memory."""

    def __init__(self, front: Cache, back: Cache) -> None:
        self._front = front
        self._back = back

    def get(self, namespace: str, key: str) -> str | None:
        """The value from the front cache, else from the back one (then also kept in front), else
        None."""
        value = self._front.get(namespace, key)
        if value is None:
            value = self._back.get(namespace, key)
            if value is not None:
                self._front.put(namespace, key, value)
        return value

    def put(self, namespace: str, key: str, value: str) -> None:
        """Remember a value in both caches."""
        self._front.put(namespace, key, value)
        self._back.put(namespace, key, value)
