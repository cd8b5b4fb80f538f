"""`citeline users`: API keys of the team service."""

from __future__ import annotations

from typing import Annotated

import typer

users_app = typer.Typer(help="Users and API keys of `citeline serve`.", no_args_is_help=True)


@users_app.command("add")
def add(name: Annotated[str, typer.Argument(help="A user name (letters, digits, _ . @ -).")]) -> None:
    """Create a user and print its API key (the LAST line of the output; shown only once)."""
    from citeline.api.users import UserRegistry
    from citeline.app import Citeline
    from citeline.config import Settings
    from citeline.errors import CitelineError

    try:
        citeline = Citeline(Settings())
        user, key = UserRegistry(citeline.store).add(name)
    except (CitelineError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"created user {user.name} (id {user.id}); its API key, shown only once, is on the next line")
    typer.echo(key)
    citeline.close()
