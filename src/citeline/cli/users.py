"""`citeline users`: users and API keys of the team service."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated

import typer

from citeline.cli.output import fail

if TYPE_CHECKING:
    from citeline.api.users import UserRegistry
    from citeline.app import Citeline

users_app = typer.Typer(help="Users and API keys of `citeline serve`.", no_args_is_help=True)


def _registry() -> tuple[Citeline, UserRegistry]:
    from citeline.api.users import UserRegistry
    from citeline.app import Citeline
    from citeline.config import Settings
    from citeline.errors import CitelineError

    try:
        citeline = Citeline(Settings())
        return citeline, UserRegistry(citeline.store)
    except (CitelineError, ValueError) as exc:
        fail(str(exc))


@users_app.command("add")
def add(
    name: Annotated[str, typer.Argument(metavar="NAME", help="A user name (letters, digits, _ . @ -).")],
    admin: Annotated[bool, typer.Option("--admin", help="May read every user's runs (GET /v1/runs).")] = False,
) -> None:
    """Create a user and print its API key (the LAST line of the output; shown only once)."""
    from citeline.errors import CitelineError

    citeline, registry = _registry()
    try:
        user, key = registry.add(name, admin=admin)
    except (CitelineError, ValueError) as exc:
        fail(str(exc))
    typer.echo(f"created user {user.name} (id {user.id}){' as admin' if admin else ''}; its API key, shown only "
               "once, is on the next line")
    typer.echo(key)
    citeline.close()


@users_app.command("list")
def list_users(as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False) -> None:
    """List the users (names, ids, when created); keys are never shown."""
    citeline, registry = _registry()
    users = registry.list()
    citeline.close()
    if as_json:
        sys.stdout.write(json.dumps([asdict(u) for u in users]) + "\n")
        return
    if not users:
        typer.echo("no users: create one with `citeline users add NAME`")
        return
    for user in users:
        created = datetime.fromtimestamp(user.created_at, UTC).strftime("%Y-%m-%d %H:%MZ")
        typer.echo(f"{user.name}\t{user.id}\t{created}{chr(9) + 'admin' if user.admin else ''}")


@users_app.command("rm")
def remove(names: Annotated[list[str], typer.Argument(metavar="NAME...", help="User names to remove.")]) -> None:
    """Remove users and revoke their API keys (on a running service within 5 seconds). Their
    documents stay in the index under their id."""
    citeline, registry = _registry()
    missing = []
    for name in names:
        user = registry.remove(name)
        if user is None:
            missing.append(name)
            typer.echo(f"error: no user {name}: see `citeline users list`", err=True)
        else:
            typer.echo(f"removed user {user.name} (id {user.id}); its API keys no longer work")
    citeline.close()
    raise typer.Exit(1 if missing else 0)
