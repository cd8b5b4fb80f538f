"""Fixtures of the team-service tests: a cheap deterministic embedder, in-process apps, users."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from citeline.api import create_app
from citeline.api.service import Service
from citeline.app import Citeline
from citeline.config import ServiceSettings, Settings
from citeline.index.embedder import register_embedder

HASH_EMBEDDER = "test-hash"


class HashEmbedder:
    """Bag of hashed word stems: no model to load, so hundreds of uploads take milliseconds."""

    name = HASH_EMBEDDER
    dim = 64

    def __init__(self, **_: Any) -> None:
        pass

    def embed(self, texts: Sequence[str]) -> np.ndarray[Any, np.dtype[np.float32]]:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9]+", text.lower()):
                out[row, int(hashlib.md5(word[:6].encode()).hexdigest(), 16) % self.dim] += 1.0
            norm = float(np.linalg.norm(out[row]))
            out[row] = out[row] / norm if norm else out[row]
        return out


register_embedder(HASH_EMBEDDER, HashEmbedder)


def make_service(home: Path, *, auth: bool = True, **api: Any) -> Service:
    citeline = Citeline(Settings(home=home, embedder=HASH_EMBEDDER))
    settings = ServiceSettings(auth=auth, **{"rate_per_s": 1000.0, "rate_burst": 1000, **api})
    return Service(citeline, settings)


@pytest.fixture
def service(home: Path) -> Iterator[Service]:
    svc = make_service(home)
    yield svc
    svc.citeline.close()


@pytest.fixture
def client(service: Service) -> Iterator[TestClient]:
    with TestClient(create_app(service=service)) as test_client:
        yield test_client


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}
