"""The page of a single-user `citeline serve --no-auth` over a folder indexed with `citeline
ingest`: no sign-in, and a citation's passage links to the original file, which downloads."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.servers import free_port, run_cli, stop, wait_until_serving
from tests.web.conftest import Watch, ask, open_page, screenshot

GUIDE = """# Backups

## Schedule

Backups run every night at 02:00 and are kept for 30 days.
"""


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory, chromium: str) -> Iterator[tuple[str, Path]]:
    root = tmp_path_factory.mktemp("web-local")
    docs = root / "docs"
    docs.mkdir()
    (docs / "backups.md").write_text(GUIDE)
    env = {**os.environ, "CITELINE_HOME": str(root / "home"), "CITELINE_MODEL": "extractive",
           "CITELINE_EMBED_THREADS": "1"}
    indexed = run_cli("ingest", str(docs), env=env)
    assert indexed.returncode == 0, indexed.stderr
    port = free_port()
    log = root / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "citeline.cli.main", "serve", "--no-auth", "--host", "127.0.0.1",
             "--port", str(port)], env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(f"{url}/healthz", process, timeout_s=60, log=log)
        yield url, docs / "backups.md"
    finally:
        stop([process])


def test_no_sign_in_and_the_original_file_downloads(browser: Browser, local: tuple[str, Path],
                                                    tmp_path: Path) -> None:
    url, original = local
    watch = Watch(url)
    page = open_page(browser, url, watch)
    try:
        expect(page.locator("#view-ask")).to_be_visible()  # no key needed, so no sign-in form
        expect(page.locator("#sign-out")).to_be_hidden()
        turn = ask(page, "When do backups run?")
        expect(turn).to_have_attribute("data-exit", "COMPLETED")
        turn.locator("button.cite").first.click()
        expect(page.locator("#passage-dialog mark.quote")).to_contain_text("02:00")
        button = page.get_by_role("button", name="Open the original file")
        expect(button).to_be_visible()
        screenshot(page, "passage-original")
        with page.expect_download() as download:
            button.click()
        saved = tmp_path / "downloaded.md"
        download.value.save_as(saved)
        assert download.value.suggested_filename == "backups.md"
        assert saved.read_bytes() == original.read_bytes()
    finally:
        page.context.close()
    assert watch.dialogs == [] and watch.errors == [] and watch.foreign == []
