"""`citeline db`: schema upgrades and moving an index between engines.

`db copy` moves documents, chunks and their stored vectors as they are: nothing is re-embedded,
ids are kept, so citations keep pointing at the same text after a move to PostgreSQL.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from citeline.cli.output import fail
from citeline.errors import CitelineError, ConfigurationError

# The CLI imports this module at start-up: numpy, sqlite3 and the store load inside commands.
if TYPE_CHECKING:


    from citeline.index.embedder import EmbedderIdentity
    from citeline.index.store import Exported, Store


db_app = typer.Typer(
    help="Database maintenance: schema upgrades, copying an index between engines. "
    "Exit codes: 0 succeeded, 2 usage/configuration error.",
    no_args_is_help=True,
)
StoreOpt = Annotated[
    str | None, typer.Option("--store", help="Store URL (default: the `store` setting / CITELINE_STORE).")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]


def _scheme(url: str) -> str:
    return url.split(":", 1)[0]


def _default_store() -> str:
    from citeline.config import Settings

    return Settings().index.store_url


@db_app.command()
def upgrade(store: StoreOpt = None, as_json: JsonOpt = False) -> None:
    """Apply pending schema migrations (PostgreSQL). Safe to run from many workers at once."""
    url = store or _default_store()
    if _scheme(url) == "sqlite":
        message = "the SQLite engine creates and updates its schema when it opens; nothing to do"
        payload: dict[str, Any] = {"engine": "sqlite", "version": None, "applied": []}
    elif _scheme(url) in {"postgresql", "postgres"}:
        from citeline.index.pg_migrations import migrate
        from citeline.index.postgres import PostgresOptions

        try:
            version, applied = migrate(PostgresOptions.from_url(url).conninfo)
        except CitelineError as exc:
            fail(str(exc))
        message = f"schema at version {version}" + (
            f" (applied {', '.join(map(str, applied))})" if applied else " (already up to date)"
        )
        payload = {"engine": "postgresql", "version": version, "applied": applied}
    else:
        fail(f"unknown store URL scheme `{_scheme(url)}`: use `sqlite:PATH` or `postgresql://...`")
    if as_json:
        sys.stdout.write(json.dumps(payload) + "\n")
    else:
        typer.echo(message)


# --- copy ----------------------------------------------------------------------------------


def source_documents(url: str) -> Iterator[Exported]:
    """The documents of any store URL, as stored (vectors included)."""
    from citeline.index.store import open_store

    if _scheme(url) == "sqlite":
        path = Path(url.split(":", 1)[1]).expanduser()
        if not path.is_file():  # opening would create an empty index: copying from a typo must fail
            raise ConfigurationError(f"no SQLite index at {path}",
                                     hint="use `--from sqlite:/path/to/index.sqlite3`")
    store = open_store(url)
    try:
        yield from store.export_documents()
    finally:
        store.close()


def source_embedder(url: str) -> EmbedderIdentity | None:
    """The embedder whose vectors the source store holds (the copy records it too)."""
    from citeline.index.store import open_store

    store = open_store(url)
    try:
        return store.embedder_identity()
    finally:
        store.close()


def copy_index(
    source_url: str, target: Store, progress: Callable[[Exported], None] | None = None
) -> dict[str, Any]:
    """Copy every document from `source_url` into `target`, one transaction per document.

    Re-running is safe: each document atomically replaces its copy. Timestamps are kept when
    the target supports it (`import_document`).
    """
    started = time.perf_counter()
    owners: dict[str, tuple[int, int]] = {}
    embedder: EmbedderIdentity | None = None
    for exported in source_documents(source_url):
        record, chunks, vectors = exported
        if embedder is None:  # the source exists now (source_documents checked it)
            embedder = source_embedder(source_url)
        # The target refuses vectors of another embedder than its own, and records the source's.
        target.import_document(record, chunks, vectors, embedder=embedder)
        documents, chunk_total = owners.get(record.owner, (0, 0))
        owners[record.owner] = (documents + 1, chunk_total + len(chunks))
        if progress is not None:
            progress(exported)
    # The target may hold more (earlier documents), never fewer than what was copied.
    for owner, (documents, chunk_total) in owners.items():
        have = target.counts(owner)
        if have[0] < documents or have[1] < chunk_total:
            raise CitelineError(
                f"copy verification failed for owner {owner!r}: expected {documents} documents,"
                f" {chunk_total} chunks; the target has {have[0]}, {have[1]}"
            )
    return {
        "documents": sum(d for d, _ in owners.values()),
        "chunks": sum(c for _, c in owners.values()),
        "owners": len(owners),
        "seconds": round(time.perf_counter() - started, 3),
    }


@db_app.command()
def copy(
    source: Annotated[str, typer.Option("--from", help="Source store URL, e.g. sqlite:/path/index.sqlite3.")],
    target: Annotated[str, typer.Option("--to", help="Target store URL, e.g. postgresql://user@host/db.")],
    as_json: JsonOpt = False,
) -> None:
    """Copy an index (documents, chunks, vectors) to another store without re-embedding."""
    if source == target:
        fail("--from and --to are the same store")
    from citeline.index.store import open_store

    try:
        store = open_store(target)
    except CitelineError as exc:
        fail(str(exc))
    try:
        if as_json:
            report = copy_index(source, store)
        else:
            from rich.progress import Progress, SpinnerColumn, TextColumn

            with Progress(SpinnerColumn(), TextColumn("{task.description}"), transient=True) as bar:
                task = bar.add_task("copying", total=None)
                count = [0, 0]

                def advance(exported: Exported) -> None:
                    count[0] += 1
                    count[1] += len(exported[1])
                    bar.update(task, description=f"copied {count[0]} documents, {count[1]} chunks")

                report = copy_index(source, store, advance)
    except CitelineError as exc:
        fail(str(exc))
    finally:
        store.close()
    if as_json:
        sys.stdout.write(json.dumps(report) + "\n")
    else:
        typer.echo(
            f"copied {report['documents']} documents ({report['chunks']} chunks, {report['owners']} owners)"
            f" in {report['seconds']:.1f} s; vectors were copied, not re-embedded"
        )
