"""Plugins from the `citeline.plugins` entry-point group, built-ins included, and the
`CITELINE_PLUGINS` override, through the registries and the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from citeline import plugins
from citeline.errors import ConfigurationError
from tests.conftest import write_corpus

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "citeline.cli.main"]


def test_every_builtin_entry_point_registers_what_its_name_says() -> None:
    from citeline.agent import answerer
    from citeline.documents import registry
    from citeline.index import embedder, store

    registries = {"answerer": answerer._FACTORIES, "loader": registry._REGISTRY, "engine": store._ENGINES,
                  "embedder": embedder._FACTORIES}
    own = [p for p in plugins.available() if p.value.startswith("citeline.")]
    assert {p.kind for p in own} == set(registries)
    for plugin in own:
        plugins.ensure(plugin.kind, plugin.name.split(".", 1)[1])
        key = plugin.name.split(".", 1)[1]
        # An embedder family (`openai` for `openai:MODEL`) registers in its own table.
        families = embedder._FAMILIES if plugin.kind == "embedder" else {}
        assert (f".{key}" if plugin.kind == "loader" else key) in {**registries[plugin.kind], **families}, plugin


def _imported_after(code: str, cwd: Path) -> set[str]:
    script = textwrap.dedent(code) + "\nimport json, sys; print(json.dumps(sorted(sys.modules)))"
    # Run in a scratch directory: the store file the script opens must not land in the checkout.
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, cwd=cwd)
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_a_lookup_imports_only_the_plugin_it_needs(tmp_path: Path) -> None:
    modules = _imported_after("""
        from pathlib import Path
        from citeline.documents.registry import loader_for
        from citeline.index.store import open_store
        assert loader_for(Path("a.md")) is not None
        open_store("sqlite:index.db").close()
    """, tmp_path)
    assert "citeline.documents.loaders" in modules and "citeline.index.sqlite" in modules
    assert not {"citeline.documents.pdf_loader", "citeline.answerers.openai_provider", "citeline.index.postgres",
                "pypdf", "openai"} & modules


def test_a_broken_plugin_fails_with_its_name_and_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plugins, "_extra", [])
    plugins.use_modules("citeline_no_such_plugin_module")
    with pytest.raises(ConfigurationError, match=r"citeline_no_such_plugin_module.*CITELINE_PLUGINS") as error:
        plugins.load_all()
    assert "correct CITELINE_PLUGINS" in (error.value.hint or "")


def test_a_settings_plugin_serves_every_command_not_only_ingest(tmp_path: Path) -> None:
    env = {**os.environ, "CITELINE_HOME": str(tmp_path / "home"), "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'src'}",
           "CITELINE_PLUGINS": "tests.plugins.citeline_test_hash_embedder", "CITELINE_EMBEDDER": "test-hash"}
    docs = write_corpus(tmp_path / "docs")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*CLI, *args], env=env, capture_output=True, text=True, timeout=300, check=False)

    assert run("ingest", str(docs)).returncode == 0
    searched = run("search", "default timeout", "--json")
    assert searched.returncode == 0, searched.stderr
    assert json.loads(searched.stdout)["retrievedPassages"]
    asked = run("ask", "What is the default timeout?", "--json")
    assert asked.returncode in (0, 1), asked.stderr
    assert json.loads(asked.stdout)["exit_reason"] in {"COMPLETED", "INSUFFICIENT_CONTEXT"}
