"""Reading JSON Lines files (QA sets, scripted turns) with errors that name the line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from citeline.errors import ConfigurationError


def read_objects(path: Path) -> list[dict[str, Any]]:
    """Every non-blank line of `path` as a JSON object; a bad line fails with its number."""
    return [value for _, value in read_numbered_objects(path)]


def read_numbered_objects(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line of `path`; a bad line fails with its number."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigurationError(f"cannot read {path}: {exc.strerror}") from exc
    objects = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigurationError(f"{path}:{number}: not JSON ({exc.msg})") from exc
        if not isinstance(value, dict):
            raise ConfigurationError(f"{path}:{number}: each line must be a JSON object")
        objects.append((number, value))
    return objects
