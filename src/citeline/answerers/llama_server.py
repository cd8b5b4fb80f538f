"""`python -m citeline.answerers.llama_server`: llama.cpp's OpenAI-compatible server, safely loaded.

Takes exactly the flags of `python -m llama_cpp.server` (`--model PATH --model_alias NAME --port N`
...). Why it exists: on CPUs that advertise AMX inside VMs that do not enable it, the stock server
crashes on its first request (see `safe_model_params`); this entry point loads the model without
those buffers. Elsewhere it is the stock server.
"""

from __future__ import annotations

from citeline.answerers.llama_runtime import require_llama_cpp, safe_model_params


def main() -> None:
    """Run llama.cpp's OpenAI-compatible server with the model loaded safely (same flags as `python -m
    llama_cpp.server`)."""
    require_llama_cpp()  # the install hint, and OMP_WAIT_POLICY set before the runtime loads
    from llama_cpp.server.__main__ import main as serve

    # The server loads its model inside serve(); the parameters stay safe for the whole process.
    with safe_model_params():
        serve()  # type: ignore[no-untyped-call]


if __name__ == "__main__":
    main()
