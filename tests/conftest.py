"""Shared fixtures: real tiny corpora in real SQLite files under temporary homes."""

from __future__ import annotations

import json
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


def write_corpus(root: Path, docs: dict[str, str] = DOCS) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in docs.items():
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
