"""`citeline ask` starts without loading what the question does not need yet: no ONNX Runtime,
tokenizer or model before the first embedding, no web stack, no document loaders, no ANN library
below the threshold."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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


def test_ask_path_loads_nothing_heavy_before_the_first_embedding(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITELINE_")}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1] / "src")
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], env=env, capture_output=True,
                          text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    loaded_early, loaded_later = proc.stdout.splitlines()[-2:]
    assert loaded_early == "", f"imported before needed: {loaded_early}"
    assert loaded_later == "True"
