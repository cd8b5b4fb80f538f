"""Every command is listed and runs although most commands' modules are imported only when used."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from citeline.cli.main import LAZY_COMMANDS

CLI = [sys.executable, "-m", "citeline.cli.main"]
# What `citeline --help` has always listed, in this order: commands, then groups of commands.
COMMANDS = ["ingest", "ask", "search", "chat", "mcp", "eval", "doctor", "reindex", "serve", "replay",
            "docs", "db", "users", "logs"]


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CITELINE_HOME": str(home), "COLUMNS": "200"}
    return subprocess.run([*CLI, *args], capture_output=True, text=True, env=env, timeout=120, check=False)


def test_help_lists_every_command_in_order(tmp_path: Path) -> None:
    shown = _cli(tmp_path, "--help")
    assert shown.returncode == 0, shown.stderr
    listed = [match.group(1) for match in re.finditer(r"^│ ([a-z]+) ", shown.stdout, re.MULTILINE)]
    assert listed == COMMANDS
    assert {command.name for command in LAZY_COMMANDS} < set(COMMANDS)


def test_each_lazily_imported_command_has_its_help_and_its_subcommands(tmp_path: Path) -> None:
    for command in LAZY_COMMANDS:
        shown = _cli(tmp_path, command.name, "--help")
        assert shown.returncode == 0, (command.name, shown.stderr)
        assert f"citeline {command.name}" in shown.stdout
        if command.group:  # a group lists its own commands
            assert "Commands" in shown.stdout, command.name
    # A lazily built group runs its subcommands: `users list` on an empty home lists nobody.
    listed = _cli(tmp_path, "users", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.strip() == "[]"


def test_a_mistyped_command_is_matched_against_the_lazy_ones_too(tmp_path: Path) -> None:
    mistyped = _cli(tmp_path, "doctr")
    assert mistyped.returncode == 2
    assert "No such command 'doctr'" in mistyped.stderr and "'doctor'" in mistyped.stderr
