"""Helpers for the ingestion tests: real files, real SQLite in temp dirs, real CLI subprocesses.

Importing this module registers the test-only "test-hash" embedder in this process (from
tests/plugins, which is also put on the path of CLI subprocesses). No mocks.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import tests.plugins.citeline_test_hash_embedder  # noqa: F401  (registers "test-hash" in this process)

REPO = Path(__file__).resolve().parents[1]
CITELINE = str(Path(sys.executable).parent / "citeline")


def cli_env(home: Path, *, hash_embedder: bool = True, **extra: str) -> dict[str, str]:
    """Environment for a `citeline` subprocess using `home` (and the test embedder by default)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITELINE_")}
    env["CITELINE_HOME"] = str(home)
    if hash_embedder:
        env["CITELINE_EMBEDDER"] = "test-hash"
        env["CITELINE_PLUGINS"] = "tests.plugins.citeline_test_hash_embedder"
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    env.update(extra)
    return env


def run_cli(*args: str, home: Path, timeout: float = 120, hash_embedder: bool = True,
            **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CITELINE, *args], env=cli_env(home, hash_embedder=hash_embedder, **extra), capture_output=True,
        text=True, timeout=timeout, check=False,
    )


def ingest_json(*args: str, home: Path, **extra: str) -> tuple[int, dict[str, Any]]:
    proc = run_cli("ingest", "--json", *args, home=home, **extra)
    assert proc.stdout.strip(), f"no JSON on stdout; stderr: {proc.stderr}"
    return proc.returncode, json.loads(proc.stdout)
