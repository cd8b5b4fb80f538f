"""Plugins: loaders, embedders, answerers and store engines from the `citeline.plugins` entry-point group.

A plugin is a module (or a `module:function` called with no arguments) that registers what it
provides with the registry of its kind (`register_loader`, `register_embedder`,
`register_answerer`, `register_engine`). citeline's own formats, embedders, answerers and engines
are declared in its `pyproject.toml` under the same group, exactly as a third party's are.

Entry-point names say what a plugin provides, as `KIND.NAME` (`answerer.openai`, `loader.pdf`,
`engine.sqlite`), so a registry imports only the plugin it needs: `citeline ask` with the
default answerer never imports the OpenAI client or the PDF parser. A lookup that still fails
loads every plugin, including those with other names and the modules listed in the `plugins`
setting (`CITELINE_PLUGINS`), which stays an override for plugins that are not installed as
packages.
"""

from __future__ import annotations

import importlib
import threading
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path

from citeline.errors import ConfigurationError

GROUP = "citeline.plugins"
_PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


@dataclass(frozen=True)
class Plugin:
    """One entry of the group: its name (`KIND.NAME` or free) and what to import."""

    name: str
    value: str

    @property
    def kind(self) -> str:
        """What the plugin provides (`loader`, `embedder`, `answerer`, `engine`), from its `KIND.NAME` name;
        empty for a free-form name."""
        return self.name.partition(".")[0] if "." in self.name else ""


def _own_source_tree() -> list[Plugin] | None:
    """citeline's own entries read from its `pyproject.toml` when running from a source tree
    (an editable install or PYTHONPATH), where installed metadata can lag behind the code."""
    if not _PYPROJECT.is_file():
        return None
    try:
        project = tomllib.loads(_PYPROJECT.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return None
    if project.get("project", {}).get("name") != "citeline":
        return None
    entries = project["project"].get("entry-points", {}).get(GROUP, {})
    return [Plugin(name, value) for name, value in entries.items()]


@cache
def available() -> tuple[Plugin, ...]:
    """Every plugin of the group: citeline's own first, then those of other installed packages."""
    own = _own_source_tree()
    found: list[Plugin] = list(own or [])
    for entry in metadata.entry_points(group=GROUP):
        is_own = entry.dist is not None and entry.dist.name == "citeline"
        if is_own and own is not None:
            continue
        found.append(Plugin(entry.name, entry.value))
    return tuple(dict.fromkeys(found))


_loaded: set[str] = set()
_lock = threading.RLock()


def _import(value: str, origin: str) -> None:
    with _lock:
        if value in _loaded:
            return
        module_name, _, attribute = value.partition(":")
        try:
            module = importlib.import_module(module_name.strip())
            if attribute:
                getattr(module, attribute.strip())()
        except Exception as exc:
            raise ConfigurationError(
                f"cannot load plugin `{value}` ({origin}): {exc.__class__.__name__}: {exc}",
                hint="fix or uninstall the package that provides it, or correct CITELINE_PLUGINS",
            ) from exc
        _loaded.add(value)


def ensure(kind: str, name: str | None = None) -> None:
    """Load the plugins that provide `kind` (all of them, or only the one called `name`)."""
    for plugin in available():
        if plugin.kind == kind and (name is None or plugin.name == f"{kind}.{name}"):
            _import(plugin.value, f"entry point {plugin.name}")


_extra: list[str] = []


def use_modules(spec: str) -> None:
    """Add the comma-separated modules of the `plugins` setting to what `load_all` loads."""
    with _lock:
        for module in (part.strip() for part in spec.split(",")):
            if module and module not in _extra:
                _extra.append(module)


def load_all() -> None:
    """Load every plugin of the group, then the modules named by the `plugins` setting."""
    for plugin in available():
        _import(plugin.value, f"entry point {plugin.name}")
    for module in list(_extra):
        _import(module, "CITELINE_PLUGINS")
