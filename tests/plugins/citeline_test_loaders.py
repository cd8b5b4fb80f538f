"""Test-only loaders that misbehave on purpose, to prove the parse worker's caps hold.

`.hang` spins forever, `.oom` allocates without bound, `.crash` kills its own process (as a
segfault in a C parser would). Registered on import, in the test process and in the worker.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

from citeline.documents.models import LoadedDocument, Section
from citeline.documents.registry import register_loader


class HangLoader:
    suffixes: tuple[str, ...] = (".hang",)

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        while True:
            pass


class MemoryHogLoader:
    suffixes: tuple[str, ...] = (".oom",)

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        hoard = [bytearray(256 * 1024 * 1024) for _ in range(64)]  # 16 GB if nothing stops it
        return LoadedDocument(str(len(hoard)), "x", [Section(None, 0, 1)])


class CrashLoader:
    suffixes: tuple[str, ...] = (".crash",)

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        os.kill(os.getpid(), signal.SIGSEGV)
        raise AssertionError("unreachable")


for _loader in (HangLoader(), MemoryHogLoader(), CrashLoader()):
    register_loader(_loader)
