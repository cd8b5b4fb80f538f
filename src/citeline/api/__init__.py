"""The team service: `citeline serve` (FastAPI, SSE, OpenAI-compatible, users and isolation)."""

from citeline.api.server import create_app
from citeline.api.settings import ApiSettings

__all__ = ["ApiSettings", "create_app"]
