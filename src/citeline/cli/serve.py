"""`citeline serve`: the team service (FastAPI under uvicorn)."""

from __future__ import annotations

from typing import Annotated

import typer


def serve(
    host: Annotated[str, typer.Option("--host", help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="TCP port.", min=0, max=65535)] = 8000,
    no_auth: Annotated[bool, typer.Option("--no-auth", help="No API keys: one local user (the `owner` "
                                                            "setting). Only for a trusted machine.")] = False,
    log_level: Annotated[str, typer.Option("--log-level", help="debug | info | warning | error")] = "info",
) -> None:
    """Serve the HTTP API: agent runs (JSON and SSE), search, documents, sessions, an
    OpenAI-compatible endpoint, /healthz, /readyz and /metrics."""
    import logging

    import uvicorn

    from citeline.api import create_app
    from citeline.api.service import EscapeControlsFilter, QueryIdFilter
    from citeline.app import Citeline
    from citeline.config import Settings
    from citeline.errors import CitelineError

    handler = logging.StreamHandler()
    handler.addFilter(QueryIdFilter())
    handler.addFilter(EscapeControlsFilter())  # no log line forged through a path or header
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s [%(query_id)s] %(message)s"))
    logger = logging.getLogger("citeline")
    logger.addHandler(handler)
    logger.setLevel(log_level.upper())
    logger.propagate = False
    try:
        settings = Settings()
        if no_auth:
            settings = settings.with_overrides(service={"auth": False})
        citeline = Citeline(settings)
        app = create_app(citeline)
    except (CitelineError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    if citeline.settings.service.auth:
        typer.echo("API keys required (`citeline users add NAME` makes one); --no-auth for a single local user",
                   err=True)
    uvicorn.run(app, host=host, port=port, log_level=log_level.lower(), access_log=False,
                timeout_graceful_shutdown=5)
    citeline.close()
