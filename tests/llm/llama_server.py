"""Start `llama_cpp.server` with citeline's safe model parameters (see `safe_model_params`).

Usage: python tests/llm/llama_server.py --model PATH --port N [other llama_cpp.server flags]
"""

from __future__ import annotations

from llama_cpp.server.__main__ import main

from citeline.llm.llama_runtime import safe_model_params

if __name__ == "__main__":
    # The server loads its model inside main(); the wrapper stays active for the whole process.
    with safe_model_params():
        main()
