"""Embedders turn text into unit-length float32 vectors: the interface, identities and the registry.

Embedders register by name from modules in the `citeline.plugins` entry-point group
(`embedder.NAME = "package.module"`); the default, `minilm-onnx`, lives in `index/minilm.py`,
the OpenAI-compatible client (`openai:MODEL`) in `index/remote.py` and the multilingual option
(`e5-multilingual`) in `index/e5.py`.

Vectors from two models are not comparable, so an index records the identity (provider, model,
dimension) of the embedder that wrote it and refuses another one until `citeline reindex`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt
from pydantic import SecretStr

from citeline import plugins
from citeline.config import Settings
from citeline.errors import ConfigurationError

Vectors = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Text to vectors. `name` identifies the model (indexes record it); `dim` is the vector size."""

    @property
    def name(self) -> str:
        """The `embedder` setting that selects it."""
        ...

    @property
    def dim(self) -> int:
        """The size of its vectors."""
        ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """One unit-length float32 row per text, in order."""
        ...


@runtime_checkable
class CallSizeHint(Protocol):
    """An embedder that works best when handed many texts per call (a remote one keeps all its
    connections busy that way). Optional: embedders without it get the ingest default."""

    texts_per_call: int


def texts_per_call(embedder: Embedder, default: int) -> int:
    """How many texts to hand `embedder` per call: its own hint when larger than `default`."""
    return max(default, embedder.texts_per_call) if isinstance(embedder, CallSizeHint) else default


@dataclass(frozen=True)
class EmbedderIdentity:
    """Which model wrote an index's vectors: what must match before vectors are compared.

    `name` is the `embedder` setting that selects it (for messages); only provider, model and
    dimension decide whether two identities are the same embedder."""

    provider: str
    model: str
    dim: int
    name: str = ""

    def same_as(self, other: EmbedderIdentity) -> bool:
        """Whether vectors of `other` can be compared with vectors of this embedder."""
        return (self.provider, self.model, self.dim) == (other.provider, other.model, other.dim)

    def describe(self) -> str:
        """For messages: `openai:bge-m3 (1024 dimensions, embedder = "openai:bge-m3")`."""
        setting = f', embedder = "{self.name}"' if self.name else ""
        return f"{self.provider}:{self.model} ({self.dim} dimensions{setting})"

    def to_json(self) -> str:
        """The form engines store."""
        return json.dumps({"provider": self.provider, "model": self.model, "dim": self.dim, "name": self.name},
                          sort_keys=True)

    @classmethod
    def from_json(cls, raw: str) -> EmbedderIdentity:
        """The identity an engine stored."""
        data = json.loads(raw)
        return cls(str(data["provider"]), str(data["model"]), int(data["dim"]), str(data.get("name", "")))


# Indexes written before identities were recorded hold MiniLM vectors: it was the only built-in
# embedder, so an index with vectors and no identity is taken to be MiniLM's.
MINILM_IDENTITY = EmbedderIdentity("onnx", "all-MiniLM-L6-v2-int8", 384, "minilm-onnx")


class EmbedderMismatchError(ConfigurationError):
    """The configured embedder is not the one whose vectors the index holds."""

    def __init__(self, recorded: EmbedderIdentity, configured: EmbedderIdentity) -> None:
        super().__init__(
            f"the index was embedded with {recorded.describe()}, but the configured embedder is "
            f"{configured.describe()}; their vectors cannot be compared",
            hint=f"run `citeline reindex` to re-embed every chunk with {configured.name or configured.model} "
            f"(the old vectors keep serving until it is done), or set the embedder back to "
            f'"{recorded.name or recorded.model}"',
        )
        self.recorded = recorded
        self.configured = configured


@runtime_checkable
class KnowsIdentity(Protocol):
    """An embedder that says which provider and model it is (the built-ins do). Optional: a plugin
    without it is identified by its name and dimension."""

    @property
    def identity(self) -> EmbedderIdentity:
        """Provider, model and dimension of the vectors it writes."""
        ...


def identity_of(embedder: Embedder) -> EmbedderIdentity:
    """An embedder's identity: its own, or (for plugins that have none) its name and dimension."""
    if isinstance(embedder, KnowsIdentity):
        return embedder.identity
    return EmbedderIdentity("plugin", embedder.name, int(embedder.dim), embedder.name)


def check_identity(recorded: EmbedderIdentity | None, embedder: Embedder) -> EmbedderIdentity:
    """The embedder's identity; EmbedderMismatchError when the index recorded another one."""
    configured = identity_of(embedder)
    refuse_other(recorded, configured)
    return configured


def refuse_other(recorded: EmbedderIdentity | None, writing: EmbedderIdentity) -> None:
    """EmbedderMismatchError when an index that recorded one embedder is given another's vectors."""
    if recorded is not None and not recorded.same_as(writing):
        raise EmbedderMismatchError(recorded, writing)


def stored_identity(has_vectors: bool, stored: str | None) -> EmbedderIdentity | None:
    """The identity an engine recorded (`stored`, its JSON): MiniLM's for an index written before
    identities were recorded; None while the index holds no vectors (any embedder may fill it)."""
    if not has_vectors:
        return None
    return EmbedderIdentity.from_json(stored) if stored else MINILM_IDENTITY


def check_reindex_target(stored: str | None, target: EmbedderIdentity) -> None:
    """ConfigurationError unless the reindex recorded in the index (`stored`, its JSON) is to `target`."""
    if stored is None or not EmbedderIdentity.from_json(stored).same_as(target):
        raise ConfigurationError(
            "another `citeline reindex` with a different embedder took over this index",
            hint="let that one finish, or run `citeline reindex` again with the embedder you want",
        )


@runtime_checkable
class EmbedsQueries(Protocol):
    """An asymmetric embedder: queries are embedded differently from documents (e5 wants
    "query: " before a question and "passage: " before a document). Optional."""

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """One unit-length float32 row per query, in order."""
        ...


def embed_queries(embedder: Embedder, texts: Sequence[str]) -> Vectors:
    """Vectors for search queries: the embedder's own query form when it has one, else a query
    is embedded like any text."""
    if isinstance(embedder, EmbedsQueries):
        return embedder.embed_queries(texts)
    return embedder.embed(texts)


@dataclass(frozen=True)
class TokenStates:
    """One text as the model read it: its word pieces and each piece's contextual vector (unit
    length, one row per piece, special tokens left out)."""

    pieces: tuple[str, ...]
    vectors: Vectors


@runtime_checkable
class EmbedsTokens(Protocol):
    """An embedder that can also hand back each text's per-piece vectors from the same pass, so a
    question's words can be matched one by one with a sentence's ("turn off" with "disable").
    Optional: answers from embedders without it simply lack that signal."""

    def embed_with_tokens(self, texts: Sequence[str]) -> tuple[Vectors, list[TokenStates]]:
        """What `embed` returns, and each text's token states, in order."""
        ...


_FACTORIES: dict[str, Callable[..., Embedder]] = {}
_FAMILIES: dict[str, Callable[[str, Settings], Embedder]] = {}
_FAMILY_INSTANCES: dict[tuple[Any, ...], Embedder] = {}
_FAMILY_LOCK = threading.Lock()


def register_embedder(name: str, factory: Callable[..., Embedder]) -> None:
    """Make `factory(batch_size=..., threads=...)` build the embedder called `name`."""
    _FACTORIES[name] = factory


def register_embedder_family(family: str, factory: Callable[[str, Settings], Embedder]) -> None:
    """Make `factory(model, settings)` build the embedders called `FAMILY:MODEL` (e.g. `openai:bge-m3`):
    one client for any model a server offers, configured by the settings."""
    _FAMILIES[family] = factory


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
            f"unknown embedder `{name}`",
            hint=f"choose one of: {', '.join(sorted([*_FACTORIES, *(f + ':MODEL' for f in _FAMILIES)]))}",
        )
    return factory(batch_size=batch_size, threads=threads)


def _setting_key(value: Any) -> Any:
    return value.get_secret_value() if isinstance(value, SecretStr) else value


def embedder_for(settings: Settings) -> Embedder:
    """The embedder the settings name: `NAME`, or `FAMILY:MODEL` for a family such as `openai`.
    One instance per process and configuration."""
    index = settings.index
    family, separator, model = index.embedder.partition(":")
    if not separator:
        return get_embedder(index.embedder, index.embed_batch_size, index.embed_threads)
    if family not in _FAMILIES:
        plugins.ensure("embedder", family)
    if family not in _FAMILIES:
        plugins.load_all()
    factory = _FAMILIES.get(family)
    if factory is None or not model:
        raise ConfigurationError(
            f"unknown embedder `{index.embedder}`",
            hint=f"use `FAMILY:MODEL` with a family of: {', '.join(sorted(_FAMILIES)) or '(none installed)'}",
        )
    # Every setting an embedder may read is part of the key: changing the URL or key makes a new client.
    key = (index.embedder, *(
        (name, _setting_key(getattr(group, name)))
        for group, prefix in ((index, "embed"), (settings.answerer, "openai_"))
        for name in sorted(type(group).model_fields) if name.startswith(prefix)
    ))
    with _FAMILY_LOCK:
        instance = _FAMILY_INSTANCES.get(key)
        if instance is None:
            instance = _FAMILY_INSTANCES[key] = factory(model, settings)
    return instance
