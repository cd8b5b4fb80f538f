"""The team service: `citeline serve` (FastAPI, SSE, OpenAI-compatible, users and isolation)."""

from citeline.api.server import create_app

__all__ = ["create_app"]
