"""Fixtures for the model-provider tests: an indexed tiny corpus, apps on it, the scripted
loopback server, and a real llama.cpp server (`llama_cpp.server`) with the bundled SmolLM2."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from citeline.app import Citeline
from citeline.config import Settings
from citeline.retrieval.cache import MemoryCache
from tests.answerers.helpers import API_KEY, DOCS, FakeOpenAI
from tests.servers import free_port, stop, wait_until_serving


# --- corpus --------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def llm_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("docs")
    for name, text in DOCS.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="session")
def indexed_home(tmp_path_factory: pytest.TempPathFactory, llm_corpus: Path) -> Path:
    """A CITELINE_HOME with the corpus indexed once; each test opens its own Citeline on it."""
    home = tmp_path_factory.mktemp("home")
    app = Citeline(Settings(home=home))
    report = app.ingest([llm_corpus])
    assert report.ok
    app.close()
    return home


@pytest.fixture
def make_app(indexed_home: Path) -> Iterator[Callable[..., Citeline]]:
    apps: list[Citeline] = []

    def build(**settings: Any) -> Citeline:
        settings.setdefault("openai_api_key", API_KEY)
        # A cache per app: the store's persistent answer cache would leak answers between tests.
        app = Citeline(Settings(home=indexed_home, **settings), cache=MemoryCache())
        apps.append(app)
        return app

    yield build
    for app in apps:
        app.close()


# --- a scripted OpenAI-compatible server ---------------------------------------------------
@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI()
    yield server
    server.close()


# --- a real llama.cpp server ---------------------------------------------------------------


def _die_with_parent() -> None:
    """Linux: the server gets SIGTERM when the test process dies, even by SIGKILL (no leaked servers)."""
    import ctypes

    pr_set_pdeathsig = 1
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`llama_cpp.server` serving the bundled SmolLM2 as `smollm2` on a free loopback port."""
    pytest.importorskip("llama_cpp.server", reason="install citeline[local]")
    from citeline.answerers.llama_runtime import bundled_model_path

    port = free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}  # idle server threads must not spin on shared CPUs
    command = [
        sys.executable,
        "-m",
        "citeline.answerers.llama_server",
        "--model",
        str(bundled_model_path()),
        "--model_alias",
        "smollm2",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "4096",
        "--chat_format",
        "chatml-function-calling",
        "--verbose",
        "False",
    ]
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, env=env,
                                   preexec_fn=_die_with_parent)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        wait_until_serving(f"{url}/models", process, timeout_s=120, log=log)
        yield url
    finally:
        stop([process])
