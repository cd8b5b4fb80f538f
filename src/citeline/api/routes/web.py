"""The web page of the team service: `/` and its static files under `/web/`.

The page is plain HTML, CSS and JavaScript shipped inside the package (`citeline/api/static/`),
so there is no build step and nothing is fetched from other hosts. It talks to the same `/v1` API as any
client, with the user's API key in an `Authorization` header. Every response here carries a
Content-Security-Policy that allows only this origin's own files: a script that slipped into a
rendered document could neither load nor run.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

from citeline.api.errors import not_found

STATIC_DIR = Path(__file__).parent.parent / "static"
# The files the page is made of, and their media types; nothing else under /web/ is served.
ASSETS = {
    "app.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
    "icon.svg": "image/svg+xml",
}
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
PAGE_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    # Revalidated on every load (ETag), so a server upgrade never leaves an old script running.
    "Cache-Control": "no-cache",
}


# The page's routes are kept out of the OpenAPI schema, which describes the API.
router = APIRouter(include_in_schema=False)


@router.get("/")
async def page() -> FileResponse:
    """The page itself."""
    return FileResponse(STATIC_DIR / "index.html", media_type="text/html; charset=utf-8", headers=PAGE_HEADERS)


@router.get("/web/{name}")
async def asset(name: str) -> FileResponse:
    """One of the page's files (only those in `ASSETS`)."""
    media = ASSETS.get(name)
    if media is None:
        raise not_found("file")
    return FileResponse(STATIC_DIR / name, media_type=media, headers=PAGE_HEADERS)
