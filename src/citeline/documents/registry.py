"""The loader registry: one loader per format, found by file suffix.

Third-party formats register exactly the way the built-ins do, from a module named in the
`citeline.plugins` entry-point group (`loader.SUFFIX = "package.module"`):

    from citeline.documents.registry import register_loader
    register_loader(MyLoader())
"""

from __future__ import annotations

import re
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
# A web page saved as one language's variant of it, the name a web server negotiates by language
# (Apache httpd's own manual is `core.html.en`, `core.html.fr`, ...): a language tag after the suffix.
_NEGOTIATED = frozenset((".html", ".htm", ".xhtml"))
_LANGUAGE_TAG = re.compile(r"\.[a-z]{2,3}(?:[-_][a-z0-9]{2,8})?")


def reading_suffix(path: Path) -> str:
    """The suffix a file is read by: its own, lower-cased; a markup source saved as text
    (`index.rst.txt`, as Sphinx publishes page sources) by its markup's; a web page's language
    variant (`core.html.en`, `index.html.pt-br`) by the page's, when the language tag is no
    format's suffix."""
    suffix = path.suffix.lower()
    inner = Path(path.stem).suffix.lower()
    if suffix == ".txt" and inner in _MARKUP_AS_TEXT:
        return inner
    if inner in _NEGOTIATED and _LANGUAGE_TAG.fullmatch(suffix) and suffix not in supported_suffixes():
        return inner
    return suffix


def loader_for(path: Path) -> Loader | None:
    """The loader for a file's suffix (see `reading_suffix`), importing the plugin that provides it
    on first use."""
    suffix = reading_suffix(path)
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
