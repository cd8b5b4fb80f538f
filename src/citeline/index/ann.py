"""Approximate nearest-neighbour search for the embedded engine: an HNSW graph per owner.

Above a size threshold an exact scan reads every vector on every query (memory-bound: ~20 ms at
100k chunks); an HNSW graph (usearch, Apache-2.0) reads a few hundred. The graph is a cache of
what the database holds, never a second source of truth:

* it lives in files beside the database (`<db>.ann/`), one graph per owner, found through a small
  pointer file that names the graph, the corpus version it was built for, the database's instance
  id and a fingerprint of the engine's metadata (a re-embedding changes it);
* it is replaced atomically — new files under unique names, fsynced, then the pointer is swapped
  with `rename` — so a reader sees the old graph or the new one, never half of one;
* a graph whose version does not match the corpus is never searched as is: small differences
  (rows added or removed, compared by rowid *and* chunk id, so a reused rowid is a difference)
  are applied to a copy first; large ones make the query scan exactly while the graph is rebuilt
  in the background. Any failure to read a graph means an exact scan, not an error.

The engine supplies the rows; this module knows nothing about SQL.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import uuid
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

log = logging.getLogger(__name__)

FORMAT = 1
# Changes up to this share of the graph are applied in place of a rebuild, in the query path.
_PATCH_SHARE = 0.2
_PATCH_MIN = 2_000

# A parallel build of a small graph loses nodes: threads inserting at once near the few existing
# nodes leave some unreachable (240 random vectors: up to 5 of them, one build in three missed an
# exact top-10 hit; never with one thread). The first nodes go in one at a time, the rest in parallel.
_SEQUENTIAL_HEAD = 2_000

RowIds = npt.NDArray[np.int64]
Matrix = npt.NDArray[np.float32]


@dataclass(frozen=True)
class HnswParams:
    """The graph's shape: `connectivity` (M) links per node, candidate lists while building
    (`expansion_add`) and searching (`expansion_search`, raised to the result count when
    smaller). Chosen with bench/ann_params.py: building costs about linearly in `expansion_add`
    (100k synthetic chunks: 124 CPU s at 128, 53 at 64) and searching a few hundred
    microseconds more per query at a wider `expansion_search`. Recall@10 against exact search at
    `expansion_search` 256: at `expansion_add` 64 it was 1.0 on 100k synthetic chunks but
    0.9885-0.9955 on two corpora of 20k real MiniLM chunks (under 0.99 in one build of three: the
    parallel build is not deterministic) and 0.955 on 1M synthetic chunks, where the graph, not
    the search, limits it (0.973 at 64/1024); at 128 it is 0.9955-0.998 on the real chunks and
    0.999-1.0 on 1M. Recall is worth the build time: one width for every size."""

    connectivity: int = 16
    expansion_add: int = 128
    expansion_search: int = 256

    def as_json(self) -> dict[str, int]:
        """The parameters as recorded in a pointer file."""
        return {"connectivity": self.connectivity, "expansion_add": self.expansion_add,
                "expansion_search": self.expansion_search}

    def can_search(self, recorded: object) -> bool:
        """Whether a graph built with the `recorded` parameters may serve these ones: the same
        links per node, built with at least this candidate list (a wider one only makes a better
        graph). `expansion_search` is a search-time setting, applied to whatever graph is loaded,
        so it never forces a rebuild."""
        if not isinstance(recorded, dict):
            return False
        connectivity, expansion_add = recorded.get("connectivity"), recorded.get("expansion_add")
        return (connectivity == self.connectivity and isinstance(expansion_add, int)
                and expansion_add >= self.expansion_add)

    def apply(self, index: Any) -> None:
        """Set the build and search candidate lists on `index` (a usearch graph read back from a
        file comes with the library's defaults, not the ones it was built with)."""
        index.expansion_add = self.expansion_add
        index.expansion_search = self.expansion_search


def available() -> bool:
    """Whether the ANN library is importable (it is a core dependency; a broken install scans exactly)."""
    try:
        _usearch_index()
    except ImportError:
        return False
    return True


def _usearch_index() -> Any:
    """The `usearch.index` module, loaded after ONNX Runtime when that is installed: loaded the other
    way round, ONNX Runtime's C++ runtime crashes the process (SIGSEGV) while it initialises
    (usearch 2.26, onnxruntime 1.32), and the embedder imports it later in the same process."""
    with contextlib.suppress(ImportError):
        import onnxruntime  # noqa: F401
    import usearch.index

    return usearch.index


def chunk_keys(chunk_ids: Iterable[str]) -> npt.NDArray[np.uint32]:
    """A checksum per row of its chunk id: with the rowid, it tells a reused rowid from the same row."""
    return np.fromiter((zlib.crc32(chunk_id.encode()) for chunk_id in chunk_ids), dtype=np.uint32)


class StaleRows(Exception):
    """The rows changed while a graph was being built from them (the next query retries)."""


@dataclass
class Rows:
    """What the engine holds for an owner at one corpus version: rowids (ascending) and the
    checksum of each row's chunk id."""

    version: int
    rowids: RowIds
    keys: npt.NDArray[np.uint32]


@dataclass
class _Graph:
    version: int
    index: Any  # usearch.index.Index
    rowids: RowIds
    keys: npt.NDArray[np.uint32]
    files: tuple[str, str]
    identity: str


class AnnIndexes:
    """The HNSW graphs of one database, one per owner, loaded lazily and kept fresh.

    `rows(owner)` must return the owner's rows with the corpus version they were read at (one
    read snapshot); `vectors(owner, rowids, keys)` their vectors in the same order (raising
    `StaleRows` when a row no longer has the key it was listed with). `identity()` is
    the database's instance id plus anything that changes when the vectors' meaning does (the
    embedder); a graph recorded with another identity is rebuilt."""

    def __init__(
        self,
        directory: Path,
        *,
        rows: Callable[[str], Rows],
        vectors: Callable[[str, RowIds, npt.NDArray[np.uint32]], Matrix],
        identity: Callable[[], str],
        params: HnswParams | None = None,
        threads: int = 0,
    ) -> None:
        self.directory = directory
        self.params = params or HnswParams()
        self.threads = threads
        self._rows = rows
        self._vectors = vectors
        self._identity = identity
        self._lock = threading.Lock()
        self._graphs: dict[str, _Graph] = {}
        self._building: dict[str, threading.Thread] = {}

    # --- files -------------------------------------------------------------------------------
    @staticmethod
    def _stem(owner: str) -> str:
        # Owner ids are arbitrary strings: a digest keeps file names safe and fixed-length.
        return f"owner-{zlib.crc32(owner.encode()):08x}-{len(owner)}"

    def pointer_path(self, owner: str) -> Path:
        """The pointer file naming the owner's current graph."""
        return self.directory / f"{self._stem(owner)}.json"

    def _read_pointer(self, owner: str) -> dict[str, Any] | None:
        try:
            pointer = json.loads(self.pointer_path(owner).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(pointer, dict) or pointer.get("format") != FORMAT or pointer.get("owner") != owner:
            return None
        if not self.params.can_search(pointer.get("params")) or pointer.get("identity") != self._identity():
            return None
        return pointer

    def _load(self, owner: str) -> _Graph | None:
        """The graph the pointer names, memory-mapped; None when missing or unreadable."""
        pointer = self._read_pointer(owner)
        if pointer is None:
            return None
        Index = _usearch_index().Index

        index_file, keys_file = str(pointer["index"]), str(pointer["keys"])
        try:
            index = Index.restore(str(self.directory / index_file), view=True)
            table = np.load(self.directory / keys_file, allow_pickle=False)
        except (OSError, ValueError, RuntimeError) as exc:
            log.info("ignoring an unreadable ANN graph for %r: %s", owner, exc)
            return None
        if index is None or table.ndim != 2 or table.shape != (len(index), 2):
            return None
        self.params.apply(index)
        return _Graph(int(pointer["version"]), index, table[:, 0].astype(np.int64),
                      table[:, 1].astype(np.uint32), (index_file, keys_file), str(pointer["identity"]))

    @staticmethod
    def _fsync_write(path: Path, write: Callable[[Path], object]) -> None:
        write(path)
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def _publish(self, owner: str, graph: _Graph, *, write_data: bool) -> None:
        """Make `graph` the owner's current one: data files first (unique names, fsynced),
        then the pointer by rename, then the previous graph's files go."""
        self.directory.mkdir(parents=True, exist_ok=True)
        previous = self._read_pointer(owner)
        if write_data:
            self._fsync_write(self.directory / graph.files[0], lambda p: graph.index.save(str(p)))
            table = np.stack([graph.rowids, graph.keys.astype(np.int64)], axis=1)
            self._fsync_write(self.directory / graph.files[1], lambda p: np.save(p, table, allow_pickle=False))
        pointer = {
            "format": FORMAT, "owner": owner, "version": graph.version, "count": len(graph.rowids),
            "index": graph.files[0], "keys": graph.files[1], "params": self.params.as_json(),
            "identity": graph.identity,
        }
        tmp = self.directory / f".{self._stem(owner)}.{uuid.uuid4().hex}.tmp"
        self._fsync_write(tmp, lambda p: p.write_text(json.dumps(pointer), encoding="utf-8"))
        tmp.replace(self.pointer_path(owner))
        with contextlib.suppress(OSError):  # the rename itself must survive a crash
            fd = os.open(self.directory, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        if previous is not None and write_data:
            for name in (previous.get("index"), previous.get("keys")):
                if isinstance(name, str) and name not in graph.files:
                    with contextlib.suppress(OSError):
                        (self.directory / name).unlink()

    # --- building ----------------------------------------------------------------------------
    def _add(self, index: Any, keys: RowIds, matrix: Matrix) -> None:
        """Insert rows: one at a time while the graph is small, then on `threads` threads."""
        head = max(0, min(len(keys), _SEQUENTIAL_HEAD - len(index)))
        if head:
            index.add(keys[:head].astype(np.uint64), matrix[:head], threads=1)
        if head < len(keys):
            index.add(keys[head:].astype(np.uint64), matrix[head:], threads=self.threads)

    def _new_index(self, dim: int) -> Any:
        Index = _usearch_index().Index

        # Inner product on unit vectors is the cosine similarity the exact scan computes.
        return Index(ndim=dim, metric="ip", dtype="f32", connectivity=self.params.connectivity,
                     expansion_add=self.params.expansion_add, expansion_search=self.params.expansion_search)

    def _files(self, owner: str) -> tuple[str, str]:
        name = f"{self._stem(owner)}-{uuid.uuid4().hex}"
        return f"{name}.usearch", f"{name}.keys.npy"

    def build(self, owner: str) -> _Graph | None:
        """Build the owner's graph from scratch at the current corpus version and publish it."""
        rows = self._rows(owner)
        if len(rows.rowids) == 0:
            return None
        identity = self._identity()
        matrix = self._vectors(owner, rows.rowids, rows.keys)
        index = self._new_index(matrix.shape[1])
        self._add(index, rows.rowids, matrix)
        graph = _Graph(rows.version, index, rows.rowids, rows.keys, self._files(owner), identity)
        self._publish(owner, graph, write_data=True)
        with self._lock:
            self._graphs[owner] = graph
        return graph

    def _patch(self, owner: str, base: _Graph, rows: Rows) -> _Graph | None:
        """Bring `base` to `rows` by removing and adding rows; None when too much changed."""
        old = dict(zip(base.rowids.tolist(), base.keys.tolist(), strict=True))
        new = dict(zip(rows.rowids.tolist(), rows.keys.tolist(), strict=True))
        removed = [rowid for rowid, key in old.items() if new.get(rowid) != key]
        added = np.array([rowid for rowid, key in new.items() if old.get(rowid) != key], dtype=np.int64)
        if len(removed) + len(added) > max(_PATCH_MIN, _PATCH_SHARE * len(base.rowids)):
            return None
        if not removed and not len(added):
            graph = _Graph(rows.version, base.index, rows.rowids, rows.keys, base.files, base.identity)
            self._publish(owner, graph, write_data=False)
            return graph
        Index = _usearch_index().Index

        # A memory-mapped graph is read-only: patch a loaded copy.
        index = Index.restore(str(self.directory / base.files[0]), view=False)
        if index is None:
            return None
        self.params.apply(index)
        if removed:
            index.remove(np.array(removed, dtype=np.uint64))
        if len(added):
            added_keys = np.array([new[int(rowid)] for rowid in added], dtype=np.uint32)
            self._add(index, added, self._vectors(owner, added, added_keys))
        graph = _Graph(rows.version, index, rows.rowids, rows.keys, self._files(owner), base.identity)
        self._publish(owner, graph, write_data=True)
        return graph

    def refresh(self, owner: str, version: int) -> _Graph | None:
        """The owner's graph at `version`, made current if needed (patched, or built when too
        much changed). Synchronous: ingestion calls it so the first query finds a fresh graph."""
        graph = self._current(owner, version)
        if graph is not None:
            return graph
        base = self._base(owner)
        rows = self._rows(owner)
        patched = self._patch(owner, base, rows) if base is not None else None
        graph = patched or self.build(owner)
        if graph is not None:
            with self._lock:
                self._graphs[owner] = graph
        return graph if graph is not None and graph.version == version else None

    def _base(self, owner: str) -> _Graph | None:
        """The newest graph of the owner with the database's identity, whatever its version."""
        with self._lock:
            graph = self._graphs.get(owner)
        if graph is not None and graph.identity == self._identity():
            return graph
        return self._load(owner)

    def _current(self, owner: str, version: int) -> _Graph | None:
        with self._lock:
            graph = self._graphs.get(owner)
        if graph is not None and graph.version == version and graph.identity == self._identity():
            return graph
        loaded = self._load(owner)
        if loaded is not None and loaded.version == version:
            with self._lock:
                self._graphs[owner] = loaded
            return loaded
        return None

    def _rebuild_in_background(self, owner: str) -> None:
        with self._lock:
            if owner in self._building and self._building[owner].is_alive():
                return

            def work() -> None:
                try:
                    self.build(owner)
                except StaleRows:
                    log.info("the corpus changed while its ANN graph was built; the next query retries")
                except Exception:  # the exact scan keeps answering; the next query retries
                    log.exception("building the ANN graph for %r failed", owner)

            thread = threading.Thread(target=work, name=f"citeline-ann-{self._stem(owner)}", daemon=True)
            self._building[owner] = thread
        thread.start()

    # --- searching ---------------------------------------------------------------------------
    def search(
        self, owner: str, vector: npt.NDArray[np.float32], limit: int, version: int
    ) -> tuple[list[int], dict[int, float]] | None:
        """The `limit` nearest rows (best first) with their similarity, or None when no graph
        matches `version` right now (the caller scans exactly; a rebuild may have started)."""
        try:
            graph = self._current(owner, version)
            if graph is None:
                base = self._base(owner)
                if base is None:
                    self._rebuild_in_background(owner)
                    return None
                rows = self._rows(owner)
                if rows.version != version:  # written meanwhile: this query's snapshot is gone
                    return None
                graph = self._patch(owner, base, rows)
                if graph is None:
                    self._rebuild_in_background(owner)
                    return None
                with self._lock:
                    self._graphs[owner] = graph
        except (OSError, RuntimeError, ValueError, StaleRows) as exc:
            log.warning("ANN graph for %r unusable, scanning exactly: %s", owner, exc)
            return None
        count = min(limit, len(graph.rowids))
        if count == 0:
            return [], {}
        index = graph.index
        if index.expansion_search < count:
            index.expansion_search = count
        # One query is one sequential walk: the library's default (threads=0) hands it to a thread
        # pool, which costs more than the walk at these sizes (10k chunks: 0.52 -> 0.30 ms p50).
        matches = index.search(np.asarray(vector, dtype=np.float32).reshape(-1), count, threads=1)
        ranked = [int(key) for key in matches.keys]
        return ranked, {key: 1.0 - float(d) for key, d in zip(ranked, matches.distances, strict=True)}

    def wait(self) -> None:
        """Wait for background rebuilds (tests and benchmarks)."""
        with self._lock:
            threads = list(self._building.values())
        for thread in threads:
            thread.join()
