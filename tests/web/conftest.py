"""Fixtures of the browser tests: a real `citeline serve` (temp home, real index, the default
extractive answerer, users with API keys) and a real headless Chromium driven by Playwright.

The browser is the system's Chromium (Debian package `chromium`), never Playwright's own
download. Without one the tests skip and say how to install it; `.ci/run` installs it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, ConsoleMessage, Dialog, Page, Playwright, Request, sync_playwright

from tests.conftest import DOCS, FENCED_EXAMPLE_DOC, write_corpus, write_script
from tests.servers import add_user, start_serve, stop

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}
# A Markdown document whose title and text carry markup and scripts: the page must show them as text.
# Raw HTML is dropped at ingest (it is the page's presentation, not its text), so the hostile markup
# sits in code spans, which are stored as written and reach the page verbatim.
SCRIPT_DOC = """# Banner `<i>guide</i> <img src=x onerror="window.__pwned = 'img'">`

The deploy banner shows `<script>window.__pwned = 'script'; alert("pwned")</script>` to every operator during a deploy.
"""


def chromium_path() -> str | None:
    """The system Chromium: $CITELINE_TEST_CHROMIUM, else the usual names on PATH."""
    configured = os.environ.get("CITELINE_TEST_CHROMIUM")
    if configured:
        return configured
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass
class Server:
    """A live `citeline serve` and the API keys of its users."""

    url: str
    keys: dict[str, str]
    log: Path
    slow_model: str
    process: subprocess.Popen[bytes]

    def headers(self, user: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.keys[user]}"}

    def api(self, method: str, path: str, user: str, **kwargs: Any) -> httpx.Response:
        return httpx.request(method, f"{self.url}{path}", headers=self.headers(user), timeout=120, **kwargs)


@pytest.fixture(scope="session")
def chromium() -> str:
    path = chromium_path()
    if path is None:
        pytest.skip("no Chromium installed for the browser tests: `apt-get install chromium` (Debian) or set "
                    "CITELINE_TEST_CHROMIUM to a Chromium/Chrome binary")
    return path


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory, chromium: str) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("web")
    slow_turns: list[dict[str, object]] = []
    for query in ("timeout", "proxy", "retries", "pooling", "release"):
        slow_turns += [{"type": "sleep", "seconds": 2.0},
                       {"type": "tool_call", "tool": "search_docs", "input": {"query": query}}]
    slow = f"scripted:{write_script(root / 'slow.jsonl', *slow_turns)}"
    env = {**os.environ, "CITELINE_HOME": str(root / "home"), "CITELINE_MODEL": "extractive",
           "CITELINE_API_MODELS": f"extractive,{slow}", "CITELINE_EMBED_THREADS": "1",
           "CITELINE_API_RATE_PER_S": "1000", "CITELINE_API_RATE_BURST": "1000",
           # the sign-in test tries wrong keys on purpose; the shared server must not lock out the others
           "CITELINE_API_AUTH_FAILURES_PER_MINUTE": "1000"}
    keys = {name: add_user(name, env) for name in ("alice", "bob", "carol", "dave", "erin")}
    log = root / "server.log"
    url, process = start_serve(log, env, timeout_s=60)
    live = Server(url, keys, log, slow, process)
    try:
        # Alice's documents go in through the API, so tests of asking do not depend on the upload test.
        corpus = write_corpus(root / "alice-docs", {**DOCS, "banner.md": SCRIPT_DOC, "doctests.md": FENCED_EXAMPLE_DOC})
        files = [("files", (p.name, p.read_bytes(), "text/plain")) for p in sorted(corpus.iterdir())]
        uploaded = live.api("POST", "/v1/documents", "alice", files=files)
        assert uploaded.status_code == 201, uploaded.text
        yield live
    finally:
        stop([process])


# Package-scoped: Playwright's sync API runs an event loop in this thread until it stops, and a test
# of another package run after these (`pytest tests/web tests/agent`) could not start its own.
@pytest.fixture(scope="package")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="package")
def browser(playwright: Playwright, chromium: str) -> Iterator[Browser]:
    browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@dataclass
class Watch:
    """What a page did that it must not: native dialogs (alert/confirm), script errors, requests
    to any host but the service."""

    origin: str
    dialogs: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)

    def on_dialog(self, dialog: Dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def on_request(self, request: Request) -> None:
        if not request.url.startswith((self.origin + "/", "blob:", "data:")):
            self.foreign.append(request.url)

    def on_console(self, message: ConsoleMessage) -> None:
        # Failed requests the page handles (e.g. a 404 it explains) are logged by the browser
        # as console errors too; only script errors count here.
        if message.type == "error" and "Failed to load resource" not in message.text:
            self.errors.append(message.text)


@pytest.fixture
def watch(server: Server) -> Watch:
    return Watch(server.url)


def open_page(browser: Browser, url: str, watch: Watch, viewport: dict[str, int] = DESKTOP) -> Page:
    """A fresh browser context (its own session storage) on the page of the service at `url`."""
    context = browser.new_context(base_url=url, viewport=viewport)  # type: ignore[arg-type]
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.on("dialog", watch.on_dialog)
    page.on("request", watch.on_request)
    page.on("console", watch.on_console)
    page.on("pageerror", lambda error: watch.errors.append(str(error)))
    page.goto("/")
    return page


@pytest.fixture
def page(browser: Browser, server: Server, watch: Watch) -> Iterator[Page]:
    page = open_page(browser, server.url, watch)
    yield page
    page.context.close()
    assert watch.dialogs == [], "the page opened native dialogs"
    assert watch.errors == [], "the page had script errors"
    assert watch.foreign == [], "the page requested other hosts"


def sign_in(page: Page, server: Server, user: str) -> None:
    page.get_by_label("API key").fill(server.keys[user])
    page.get_by_role("button", name="Sign in").click()
    page.locator("#view-ask").wait_for(state="visible")


def ask(page: Page, question: str, *, timeout_ms: float = 60_000) -> Any:
    """Ask through the form; returns the turn's list item once the run has ended."""
    turns_before = page.locator("#turns > li").count()
    page.locator("#question").fill(question)
    page.locator("#question").press("Enter")
    turn = page.locator("#turns > li").nth(turns_before)
    turn.and_(page.locator("[data-exit]")).wait_for(timeout=timeout_ms)
    return turn


def screenshot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
