"""The loader registry: one loader per format, found by file suffix.

Third-party formats register exactly the way the built-ins do, from a module named in the
`citeline.plugins` entry-point group (`loader.SUFFIX = "package.module"`):

    from citeline.documents.registry import register_loader
    register_loader(MyLoader())
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, runtime_checkable

from citeline import plugins
from citeline.documents.models import LoadedDocument


@runtime_checkable
class Loader(Protocol):
    """Reads one format. `suffixes` are lower-case with the dot, e.g. `(".md",)`."""

    suffixes: tuple[str, ...]

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        """Turn the file's bytes into text and structure, or raise IngestError with the reason."""
        ...



_REGISTRY: dict[str, Loader] = {}


def register_loader(loader: Loader) -> None:
    """Make `loader` handle its suffixes (replacing any previous loader for them)."""
    for suffix in loader.suffixes:
        _REGISTRY[suffix.lower()] = loader


_MARKUP_AS_TEXT = frozenset((".rst", ".rest", ".md", ".markdown"))


def loader_for(path: Path) -> Loader | None:
    """The loader for a file's suffix, importing the plugin that provides it on first use. A
    markup source saved as text (`index.rst.txt`, as Sphinx publishes page sources) is read as
    its markup."""
    suffix = path.suffix.lower()
    if suffix == ".txt" and (inner := Path(path.stem).suffix.lower()) in _MARKUP_AS_TEXT:
        suffix = inner
    if suffix not in _REGISTRY:
        plugins.ensure("loader", suffix.lstrip("."))
    if suffix not in _REGISTRY:
        supported_suffixes()
    return _REGISTRY.get(suffix)


def supported_suffixes() -> frozenset[str]:
    """Every suffix some loader handles (all loader plugins are loaded to answer this)."""
    plugins.ensure("loader")
    plugins.load_all()
    return frozenset(_REGISTRY)
