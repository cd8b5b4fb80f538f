"""The page's files as served (no browser needed): headers, what is and is not served, and
checks over the source that the browser tests cannot cover exhaustively."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient

from citeline.agent.exits import ExitReason
from citeline.api import create_app
from citeline.api.routes.web import ASSETS, STATIC_DIR
from tests.api.conftest import make_service


def test_the_page_and_its_files_are_served_with_a_strict_policy(home: Path) -> None:
    service = make_service(home)
    try:
        with TestClient(create_app(service=service)) as client:
            _check_served(client)
    finally:
        service.citeline.close()


def _check_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "default-src 'none'" in policy and "unsafe" not in policy
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["referrer-policy"] == "no-referrer"
    for name, media in ASSETS.items():
        asset = client.get(f"/web/{name}")
        assert asset.status_code == 200 and asset.headers["content-type"] == media
    for name in ("index.html", "../server.py", "..%2Fserver.py", "nope.js"):
        assert client.get(f"/web/{name}").status_code == 404
    assert "/" not in client.get("/openapi.json").json()["paths"]  # the schema describes the API only


def test_every_file_the_page_loads_is_listed() -> None:
    # (That each is packaged is `tests/test_packaging.py`'s check, for every data file.)
    html = (STATIC_DIR / "index.html").read_text()
    loaded = set(re.findall(r'(?:src|href)="/web/([^"]+)"', html))
    assert loaded and loaded <= set(ASSETS)


def test_nothing_is_fetched_from_other_hosts() -> None:
    for path in STATIC_DIR.iterdir():
        text = path.read_text()
        urls = [u for u in re.findall(r"https?://[^\s\"')]+", text) if not u.startswith("http://www.w3.org/2000/svg")]
        assert urls == [], f"{path.name} refers to other hosts: {urls}"
        assert "@import" not in text


def test_the_script_never_parses_text_as_html() -> None:
    script = (STATIC_DIR / "app.js").read_text()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in script, f"app.js uses {sink}"


def test_every_exit_reason_has_plain_words() -> None:
    script = (STATIC_DIR / "app.js").read_text()
    table = script[script.index("const EXIT_WORDS = {"): script.index("};", script.index("const EXIT_WORDS"))]
    worded = set(re.findall(r"^\s+([A-Z_]+): \"", table, re.M))
    assert worded == {reason.value for reason in ExitReason}
