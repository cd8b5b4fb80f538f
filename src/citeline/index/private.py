"""Private files: citeline's home directory is readable by its owner only (0700), its databases
0600, and a home made before this rule is tightened once, with a note.

The index holds the full text of every document a user ingested and the API keys' digests, so
the default umask (0022: world-readable) is the wrong default for it. SQLite creates the `-wal`
and `-shm` files of a database with the database file's own permissions, so creating the
database file 0600 before SQLite opens it covers those too.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
_OTHERS = stat.S_IRWXG | stat.S_IRWXO
log = logging.getLogger("citeline")


def _tighten(path: Path, mode: int) -> None:
    current = stat.S_IMODE(path.stat().st_mode)
    if current & _OTHERS:
        path.chmod(mode)
        log.warning("note: tightened the permissions of %s from %04o to %04o (it holds your indexed "
                    "documents; only its owner should read it)", path, current, mode)


def private_dir(path: Path) -> Path:
    """Create `path` (and missing parents) with the leaf private to its owner; tighten it if it
    already exists readable by others. Returns the path."""
    path = path.expanduser()
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            path.mkdir(mode=PRIVATE_DIR_MODE)
        except FileExistsError:  # created meanwhile by another process: tightened below
            pass
        else:
            path.chmod(PRIVATE_DIR_MODE)  # mkdir's mode is filtered by the umask; be exact
            return path
    if path.is_dir() and path.stat().st_uid == os.geteuid():
        _tighten(path, PRIVATE_DIR_MODE)
    return path


def private_file(path: Path) -> Path:
    """Create `path` empty with mode 0600 if missing, or tighten it (and the `-wal`/`-shm`/
    `-journal` files SQLite keeps beside it) if others can read it. Returns the path."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, PRIVATE_FILE_MODE)
    except FileExistsError:
        for candidate in (path, *(path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal"))):
            try:
                if candidate.stat().st_uid == os.geteuid():
                    _tighten(candidate, PRIVATE_FILE_MODE)
            except FileNotFoundError:
                continue
    else:
        os.close(fd)
    return path
