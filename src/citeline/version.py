"""citeline's version, from one place: the `version` in `pyproject.toml`.

Installed, it is read from the package metadata; running from a source tree (an editable install
or PYTHONPATH) it is read from the tree's `pyproject.toml`, where installed metadata can lag.
The CLI (`--version`), the package (`citeline.__version__`), the MCP server and the OpenAPI
document all report this value.
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import metadata
from pathlib import Path

_PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


@cache
def version() -> str:
    """The version string, e.g. `0.1.0` (`0+unknown` if neither source can be read)."""
    try:
        project = tomllib.loads(_PYPROJECT.read_text(encoding="utf-8")).get("project", {})
        if project.get("name") == "citeline" and isinstance(project.get("version"), str):
            return str(project["version"])
    except (OSError, tomllib.TOMLDecodeError):
        pass
    try:
        return metadata.version("citeline")
    except metadata.PackageNotFoundError:
        return "0+unknown"
