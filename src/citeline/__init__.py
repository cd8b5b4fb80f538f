"""citeline: answers from your own documents, with every citation verified by code.

Heavy modules load on first use, so `import citeline` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    "AgentResult", "Citation", "Citeline", "CitelineError", "ConfigurationError", "ContextOverflowError",
    "ExitReason", "GenerationError", "IngestError", "RetrievalError", "Settings",
]

_EXPORTS = {
    "Citeline": "citeline.app",
    "Settings": "citeline.config",
    "AgentResult": "citeline.agent.result",
    "Citation": "citeline.agent.result",
    "ExitReason": "citeline.agent.exits",
    "CitelineError": "citeline.errors",
    "ConfigurationError": "citeline.errors",
    "RetrievalError": "citeline.errors",
    "GenerationError": "citeline.errors",
    "ContextOverflowError": "citeline.errors",
    "IngestError": "citeline.errors",
}

if TYPE_CHECKING:
    from citeline.agent.exits import ExitReason
    from citeline.agent.result import AgentResult, Citation
    from citeline.app import Citeline
    from citeline.config import Settings
    from citeline.errors import (
        CitelineError,
        ConfigurationError,
        ContextOverflowError,
        GenerationError,
        IngestError,
        RetrievalError,
    )


def __getattr__(name: str) -> Any:
    if name == "__version__":  # one source: pyproject.toml (see citeline.version)
        from citeline.version import version

        return version()
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'citeline' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
