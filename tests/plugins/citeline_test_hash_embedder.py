"""Test-only plugin: cheap deterministic embedders, selected with CITELINE_EMBEDDER=test-hash.

`test-hash-b` (other vectors, same size) and `test-hash-256` (256 dimensions) are other embedders
for the identity and `citeline reindex` tests: their vectors differ from `test-hash`'s for every text.

Loaded in CLI subprocesses through CITELINE_PLUGINS=tests.plugins.citeline_test_hash_embedder
(with the repository root on PYTHONPATH), so kill and concurrency tests can run hundreds of real `citeline ingest`
processes without paying for the ONNX model each time. The real embedder keeps its own, smaller
kill test.

Environment knobs (tests only):
- CITELINE_TEST_EMBED_MARKER: a file created on the first `embed` call, i.e. when the process is
  about to write to the index; the kill test waits for it so its kills land in the write phase.
- CITELINE_TEST_EMBED_DELAY_S: seconds to sleep per `embed` call, to widen that window.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from citeline.index.embedder import register_embedder


class HashEmbedder:
    name = "test-hash"
    dim = 384
    salt = b""

    def __init__(self, **_: Any) -> None:
        self._marker = os.environ.get("CITELINE_TEST_EMBED_MARKER")
        self._delay = float(os.environ.get("CITELINE_TEST_EMBED_DELAY_S", "0") or 0)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self._marker:
            Path(self._marker).touch()
        if self._delay:
            time.sleep(self._delay)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            seed = int.from_bytes(hashlib.sha256(self.salt + text.encode()).digest()[:8], "little")
            vector = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
            out[row] = vector / np.linalg.norm(vector)
        return out


class HashEmbedderB(HashEmbedder):
    name = "test-hash-b"
    salt = b"b:"


class HashEmbedder256(HashEmbedder):
    name = "test-hash-256"
    dim = 256
    salt = b"256:"


for _embedder in (HashEmbedder, HashEmbedderB, HashEmbedder256):
    register_embedder(_embedder.name, _embedder)
