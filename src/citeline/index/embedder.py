"""Embedders turn text into unit-length float32 vectors: the interface and the registry.

Embedders register by name from modules in the `citeline.plugins` entry-point group
(`embedder.NAME = "package.module"`); the default, `minilm-onnx`, lives in `index/minilm.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from citeline import plugins
from citeline.errors import ConfigurationError

Vectors = npt.NDArray[np.float32]



@runtime_checkable
class Embedder(Protocol):
    """Text to vectors. `name` identifies the model (indexes record it); `dim` is the vector size."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> Vectors:
        """One unit-length float32 row per text, in order."""
        ...


_FACTORIES: dict[str, Callable[..., Embedder]] = {}


def register_embedder(name: str, factory: Callable[..., Embedder]) -> None:
    """Make `factory(batch_size=..., threads=...)` build the embedder called `name`."""
    _FACTORIES[name] = factory


@cache
def get_embedder(name: str, batch_size: int = 32, threads: int = 0) -> Embedder:
    """One embedder per process and configuration: loading the model is the slow part."""
    if name not in _FACTORIES:
        plugins.ensure("embedder", name)
    if name not in _FACTORIES:
        plugins.load_all()
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ConfigurationError(
            f"unknown embedder `{name}`", hint=f"choose one of: {', '.join(sorted(_FACTORIES))}"
        )
    return factory(batch_size=batch_size, threads=threads)
