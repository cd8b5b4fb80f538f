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
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from citeline.errors import CitelineError, ConfigurationError

# The CLI imports this module at start-up: numpy, sqlite3 and the store load inside commands.
if TYPE_CHECKING:
    import sqlite3

    import numpy as np
    import numpy.typing as npt

    from citeline.documents.models import Chunk
    from citeline.index.store import DocumentRecord, Store

    Exported = tuple[DocumentRecord, list[Chunk], npt.NDArray[np.float32]]

EXIT_OK, EXIT_USAGE = 0, 2
db_app = typer.Typer(
    help="Database maintenance: schema upgrades, copying an index between engines. "
    "Exit codes: 0 succeeded, 2 usage/configuration error.",
    no_args_is_help=True,
)
StoreOpt = Annotated[
    str | None, typer.Option("--store", help="Store URL (default: the `store` setting / CITELINE_STORE).")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]


def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(EXIT_USAGE)


def _scheme(url: str) -> str:
    return url.split(":", 1)[0]


def _default_store() -> str:
    from citeline.config import Settings

    return Settings().store_url


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
            _fail(str(exc))
        message = f"schema at version {version}" + (
            f" (applied {', '.join(map(str, applied))})" if applied else " (already up to date)"
        )
        payload = {"engine": "postgresql", "version": version, "applied": applied}
    else:
        _fail(f"unknown store URL scheme `{_scheme(url)}`: use `sqlite:PATH` or `postgresql://...`")
    if as_json:
        sys.stdout.write(json.dumps(payload) + "\n")
    else:
        typer.echo(message)


# --- copy ----------------------------------------------------------------------------------


def sqlite_documents(path: Path) -> Iterator[Exported]:
    """Every document of a SQLite index file (opened read-only), with chunks and vectors."""
    import sqlite3

    if not path.is_file():
        raise ConfigurationError(
            f"no SQLite index at {path}", hint="use `--from sqlite:/path/to/index.sqlite3`"
        )
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        yield from _read_sqlite(conn, path)
    except sqlite3.Error as exc:
        raise ConfigurationError(
            f"cannot read the SQLite index {path}: {exc}", hint="check the path points at a citeline index"
        ) from exc
    finally:
        conn.close()


def _read_sqlite(conn: sqlite3.Connection, path: Path) -> Iterator[Exported]:
    import numpy as np

    from citeline.documents.models import Chunk
    from citeline.index.store import DocumentRecord

    row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    if row is None or row[0] != "1":
        raise ConfigurationError(
            f"{path} has SQLite index schema {row[0] if row else 'unknown'}; this citeline reads schema 1",
            hint="open it once with a matching citeline version, or re-ingest",
        )
    conn.execute("BEGIN")  # one read snapshot: a concurrent ingest cannot tear the copy
    keys = conn.execute("SELECT owner, id FROM documents ORDER BY owner, id").fetchall()
    for owner, document_id in keys:
        doc = conn.execute(
            "SELECT id, owner, source, title, content_hash, status, metadata, chunk_count, size_bytes,"
            " created_at, updated_at FROM documents WHERE owner = ? AND id = ?",
            (owner, document_id),
        ).fetchone()
        rows = conn.execute(
            "SELECT chunk_id, chunk_index, text, section, page, start_char, end_char, embedding"
            " FROM chunks WHERE owner = ? AND document_id = ? ORDER BY rowid",
            (owner, document_id),
        ).fetchall()
        record = DocumentRecord(
            id=doc[0], owner=doc[1], source=doc[2], title=doc[3], content_hash=doc[4], status=doc[5],
            metadata=json.loads(doc[6]), chunk_count=doc[7], size_bytes=doc[8],
            created_at=doc[9], updated_at=doc[10],
        )
        chunks = [
            Chunk(chunk_id=r[0], document_id=document_id, chunk_index=r[1], text=r[2], section=r[3],
                  page=r[4], start=r[5], end=r[6])
            for r in rows
        ]
        vectors = (
            np.stack([np.frombuffer(r[7], dtype=np.float32) for r in rows])
            if rows else np.zeros((0, 0), dtype=np.float32)
        )
        yield record, chunks, vectors


def source_documents(url: str) -> Iterator[Exported]:
    """The documents of any store URL, as stored (vectors included)."""
    if _scheme(url) == "sqlite":
        path = url.split(":", 1)[1]
        if not path:
            raise ConfigurationError("a sqlite URL needs a path", hint="use `sqlite:/path/to/index.sqlite3`")
        yield from sqlite_documents(Path(path).expanduser())
        return
    from citeline.index.store import open_store

    store = open_store(url)
    try:
        export = getattr(store, "export_documents", None)
        if export is None:
            raise ConfigurationError(
                f"cannot copy from a `{_scheme(url)}` store", hint="copy from sqlite or postgresql"
            )
        yield from export()
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
    write = getattr(target, "import_document", None) or target.replace_document
    owners: dict[str, tuple[int, int]] = {}
    for exported in source_documents(source_url):
        record, chunks, vectors = exported
        write(record, chunks, vectors)
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
        _fail("--from and --to are the same store")
    from citeline.index.store import open_store

    try:
        store = open_store(target)
    except CitelineError as exc:
        _fail(str(exc))
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
        _fail(str(exc))
    finally:
        store.close()
    if as_json:
        sys.stdout.write(json.dumps(report) + "\n")
    else:
        typer.echo(
            f"copied {report['documents']} documents ({report['chunks']} chunks, {report['owners']} owners)"
            f" in {report['seconds']:.1f} s; vectors were copied, not re-embedded"
        )
