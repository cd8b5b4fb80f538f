"""`citeline reindex`: re-embed every chunk with the configured embedder, atomically.

The new vectors are written to a shadow table while the old ones keep serving searches; when
every chunk has its new vector, one transaction swaps them all in and records the new embedder.
Killed at any moment, the index is entirely the old one (the shadow rows are not served), and
running the command again resumes where it stopped: shadow vectors already made for the same
embedder are kept. Chunks that an ingest writes meanwhile are picked up by another pass before
the swap, so no chunk is ever left with an old vector.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from citeline.errors import ConfigurationError, IngestError
from citeline.index.embedder import Embedder, EmbedderIdentity, identity_of, texts_per_call
from citeline.index.ingest import embedding_input
from citeline.index.store import Store

ReindexProgress = Callable[[int, int], None]  # (chunks with a new vector, chunks in the index)
_MAX_PASSES = 50  # an index written to without pause for this long never settles: say so


@dataclass
class ReindexReport:
    """What `reindex` did: the embedders before and after, chunks embedded now and in total."""

    previous: str | None
    embedder: str
    chunks: int
    embedded: int
    resumed: int
    swapped: bool

    def to_dict(self) -> dict[str, Any]:
        """The `--json` output."""
        return asdict(self)


def reindex(store: Store, embedder: Embedder, *, force: bool = False, batch_size: int = 0,
            progress: ReindexProgress | None = None) -> ReindexReport:
    """Re-embed every chunk of `store` with `embedder` and swap the vectors in one transaction.

    Nothing is done when the index already holds this embedder's vectors, unless `force`."""
    target = identity_of(embedder)
    previous = store.embedder_identity()
    if previous is not None and previous.same_as(target) and not force:
        try:
            _, total = store.reindex_status()
        except ConfigurationError:  # an engine that cannot reindex still has nothing to do here
            total = 0
        return ReindexReport(previous.describe(), target.describe(), total, 0, 0, swapped=False)
    store.reindex_begin(target)
    resumed, total = store.reindex_status()
    done, embedded = resumed, 0
    size = batch_size or texts_per_call(embedder, 256)
    if progress is not None:
        progress(done, total)
    for _ in range(_MAX_PASSES):
        after = 0
        while rows := store.reindex_pending(after, size):
            vectors = embedder.embed([embedding_input(row.title, row.section, row.text) for row in rows])
            _check_width(vectors.shape, len(rows), target)
            store.reindex_put(target, [(row.rowid, row.chunk_id) for row in rows], vectors)
            after = rows[-1].rowid
            done, embedded = done + len(rows), embedded + len(rows)
            if progress is not None:
                progress(done, max(total, done))
        if store.reindex_commit(target):
            _, total = store.reindex_status()
            return ReindexReport(previous.describe() if previous else None, target.describe(), total,
                                 embedded, resumed, swapped=True)
        # Chunks were written since the pass started (an ingest ran alongside): embed those too.
        done, total = store.reindex_status()
    raise IngestError(
        f"the index kept changing during {_MAX_PASSES} passes of `citeline reindex`; the old vectors still serve",
        hint="run `citeline reindex` again when no ingest is running (the vectors made so far are kept)",
    )


def _check_width(shape: tuple[int, ...], rows: int, target: EmbedderIdentity) -> None:
    if len(shape) != 2 or shape[0] != rows or shape[1] != target.dim:
        raise IngestError(f"the embedder returned vectors of shape {shape} for {rows} chunks, expected "
                          f"{target.dim} dimensions", hint="check the embedder's configuration")
