"""What every command prints the same way: an error line with its exit code, and one JSON line."""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

import typer

EXIT_USAGE = 2  # bad input or configuration: the message says what to change


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """Print `error: message` on stderr and exit with `code`."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def print_json(data: Any) -> None:
    """Print `data` as one JSON line on stdout (`--json` output; anything not JSON is written as text)."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")
