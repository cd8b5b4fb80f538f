"""Readiness: whether this worker can serve now (the store answers, the index can be written,
the embedder and the default model load)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from citeline.api.errors import ApiError
from citeline.api.service.core import Service

log = logging.getLogger("citeline.api")


def readiness(svc: Service) -> dict[str, str]:
    """Each check's state ("ok" or why not); 503 with `details.checks` when any fails.
    Blocking (may load models): call from a worker thread."""
    checks: dict[str, str] = {}

    def probe(name: str, check: Callable[[], object]) -> None:
        try:
            check()
            checks[name] = "ok"
        except Exception as exc:
            log.warning("readiness check %s failed: %r", name, exc)
            checks[name] = f"unavailable ({exc.__class__.__name__})"

    probe("store", svc.citeline.store.corpus_version)
    probe("index_writable", svc.check_writable)
    probe("embedder", lambda: svc.citeline.embedder)
    probe("model", lambda: svc.citeline.answerer(None))
    failed = {k: v for k, v in checks.items() if v != "ok"}
    if failed:
        raise ApiError(503, "not ready: " + ", ".join(f"{k} {v}" for k, v in failed.items()),
                       details={"checks": checks})
    return checks
