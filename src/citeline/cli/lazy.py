"""Commands whose modules are imported only when they are used.

Why: building the command tree for `citeline ask` used to import every command's module
(database tools, run logs, users, the service) and convert all their parameters, on every run
of every command. A command listed here is known by name only until it runs, `--help` lists the
commands, or a mistyped name needs suggestions; then its module is imported and its command
built exactly as Typer builds one registered directly.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

import typer
from typer.core import TyperGroup

from citeline.cli.help import tidy_help


@dataclass(frozen=True)
class LazyCommand:
    """A command (`group=False`: a function) or a group of commands (`group=True`: a Typer app)
    found at `module:attribute`, run as `citeline NAME`."""

    name: str
    module: str
    attribute: str
    group: bool = False
    epilog: str | None = None

    def build(self) -> Any:
        """Import the module and build the Click command the way a directly registered one is built."""
        target = getattr(importlib.import_module(self.module), self.attribute)
        holder = typer.Typer()
        if self.group:
            holder.add_typer(target, name=self.name)
        else:
            holder.command(self.name, epilog=self.epilog)(target)
        command = typer.main.get_group(holder).commands[self.name]
        tidy_help(command)
        return command


def lazy_group(commands: tuple[LazyCommand, ...]) -> type[TyperGroup]:
    """A Typer group class (for `typer.Typer(cls=...)`) that also offers `commands`, built on first use.

    Listed in the order Typer lists commands: the group's own commands, then the lazy commands,
    then the groups' own sub-groups, then the lazy sub-groups."""
    lazy = {command.name: command for command in commands}

    class LazyGroup(TyperGroup):
        """The group, with the lazy commands added by name."""

        def list_commands(self, ctx: Any) -> list[str]:
            own = [name for name in super().list_commands(ctx) if name not in lazy]
            own_groups = [name for name in own if isinstance(self.commands[name], TyperGroup)]
            return ([name for name in own if name not in own_groups]
                    + [name for name, command in lazy.items() if not command.group]
                    + own_groups + [name for name, command in lazy.items() if command.group])

        def get_command(self, ctx: Any, cmd_name: str) -> Any:
            if cmd_name not in self.commands and cmd_name in lazy:
                self.commands[cmd_name] = lazy[cmd_name].build()
            return super().get_command(ctx, cmd_name)

        def resolve_command(self, ctx: Any, args: list[str]) -> tuple[str | None, Any, list[str]]:
            if args and args[0] not in self.commands and args[0] not in lazy:
                # An unknown name: "did you mean" should consider every command.
                for name in lazy:
                    self.get_command(ctx, name)
            return super().resolve_command(ctx, args)

    return LazyGroup

