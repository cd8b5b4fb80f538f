"""`citeline ask` starts without loading what the question does not need yet: no ONNX Runtime,
tokenizer or model before the first embedding, no web stack, no document loaders, no ANN library
below the threshold, no other command's module; its imports run with the garbage collector paused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import write_corpus

SCRIPT = """
import sys
from citeline.app import Citeline
from citeline.config import Settings
app = Citeline(Settings(home=sys.argv[1]))
app.store.counts("local")
app.run_resources(None)  # what `ask` builds before the agent starts: index, retriever, graph
heavy = ("onnxruntime", "tokenizers", "fastapi", "uvicorn", "starlette", "usearch", "torch",
         "citeline.index.ingest", "citeline.documents.markdown_loader", "pypdf", "docutils")
print(",".join(name for name in heavy if name in sys.modules))
app.embedder.embed(["now the model is needed"])
print("onnxruntime" in sys.modules)
"""


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITELINE_")}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1] / "src")
    return env


def test_ask_path_loads_nothing_heavy_before_the_first_embedding(tmp_path: Path) -> None:
    env = _env()
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], env=env, capture_output=True,
                          text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    loaded_early, loaded_later = proc.stdout.splitlines()[-2:]
    assert loaded_early == "", f"imported before needed: {loaded_early}"
    assert loaded_later == "True"


# `citeline ask` as the console script runs it. When the agent's planning node starts (its first
# context check), the modules loaded so far are written down; again when the process exits.
CLI_SCRIPT = """
import atexit, json, sys
out, question = sys.argv[1], sys.argv[2]
seen = {}
from citeline.agent import context
check = context.check_fits
def first_check(*args, **kwargs):
    seen["start"] = sorted(sys.modules)
    context.check_fits = check
    return check(*args, **kwargs)
context.check_fits = first_check
atexit.register(lambda: open(out, "w").write(json.dumps({**seen, "exit": sorted(sys.modules)})))
sys.argv = ["citeline", "ask", question]
from citeline.cli.main import run
run()
"""
# Needed by no `ask` before its answerer starts: the model runtime, the web service, the ingest
# side, the other commands' modules, LangChain's tool classes, LangGraph's optional parts.
NOT_AT_START = ("onnxruntime", "tokenizers", "fastapi", "uvicorn", "starlette", "usearch", "torch",
                "citeline.index.ingest", "citeline.documents.markdown_loader", "pypdf", "docutils",
                "citeline.cli.db", "citeline.cli.doctor", "citeline.cli.runs", "citeline.cli.serve",
                "citeline.cli.users", "citeline.cli.reindex", "citeline.cli.render", "rich.markdown",
                "langchain_core.tools", "langgraph.prebuilt", "langgraph.checkpoint.sqlite",
                "langgraph.checkpoint.postgres")


def test_cli_ask_starts_the_agent_before_loading_what_the_answer_needs_later(tmp_path: Path) -> None:
    env = _env()
    env["CITELINE_HOME"] = str(tmp_path / "home")
    ingest = subprocess.run([sys.executable, "-m", "citeline.cli.main", "ingest", "--json",
                             str(write_corpus(tmp_path / "docs"))], env=env, capture_output=True, text=True,
                            timeout=300)
    assert ingest.returncode == 0, ingest.stderr[-2000:]
    record = tmp_path / "modules.json"
    proc = subprocess.run([sys.executable, "-c", CLI_SCRIPT, str(record), "What is the default timeout?"],
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "[1]" in proc.stdout  # a cited answer, printed as plain text (stdout is a pipe)
    loaded = json.loads(record.read_text(encoding="utf-8"))
    at_start, at_exit = set(loaded["start"]), set(loaded["exit"])
    assert "langgraph.graph" in at_start  # the agent is the LangGraph graph, built before it starts
    assert sorted(name for name in NOT_AT_START if name in at_start) == []
    # They were deferred, not dropped: the answer embedded the question and called tools.
    assert {"onnxruntime", "tokenizers", "langchain_core.tools"} <= at_exit
    assert "rich.markdown" not in at_exit  # piped output is printed without the Markdown renderer


def test_the_library_front_door_imports_no_index_engine_or_model_code() -> None:
    # `citeline.app` is imported by every command and by the service before any of them knows
    # whether it will open an index or embed anything.
    script = ("import sys, citeline.app; print(','.join(sorted(m for m in ('numpy', 'citeline.index.store', "
              "'citeline.index.embedder', 'citeline.retrieval.search', 'langgraph') if m in sys.modules)))")
    proc = subprocess.run([sys.executable, "-c", script], env=_env(), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == ""


def test_the_collector_is_paused_inside_and_restored_after() -> None:
    script = """
import gc
from citeline.cli.collector import collector_paused
before = gc.get_freeze_count()
with collector_paused():
    inside = gc.isenabled()
    made = [[i] for i in range(5000)]
print(gc.isenabled(), inside, gc.get_freeze_count() - before >= 5000)
gc.disable()
with collector_paused():
    pass
print(gc.isenabled())
"""
    proc = subprocess.run([sys.executable, "-c", script], env=_env(), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    # Enabled again afterwards, off inside, what was made inside frozen; a disabled collector stays off.
    assert proc.stdout.split() == ["True", "False", "True", "False"]
