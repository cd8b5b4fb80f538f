"""The command line runs numpy's OpenBLAS on one thread unless the user chose a number."""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = "import os, citeline.cli.main, numpy; print(os.environ.get('OPENBLAS_NUM_THREADS'))"


def _threads(**env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run([sys.executable, "-c", SCRIPT], env={**clean, **env}, capture_output=True, text=True,
                          timeout=120, check=True)
    return done.stdout.strip()


def test_openblas_runs_one_thread_by_default_and_the_users_choice_is_kept() -> None:
    assert _threads() == "1"
    assert _threads(OPENBLAS_NUM_THREADS="4") == "4"


def test_the_library_leaves_the_environment_alone() -> None:
    script = "import os, citeline.app, numpy; print(os.environ.get('OPENBLAS_NUM_THREADS'))"
    clean = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run([sys.executable, "-c", script], env=clean, capture_output=True, text=True, timeout=120,
                          check=True)
    assert done.stdout.strip() == "None"
