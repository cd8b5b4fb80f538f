"""A run's recorded settings, as a user sees them over HTTP: no server paths, store or sessions URL."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from citeline.api import create_app
from citeline.api.service import Service
from citeline.app import Citeline
from citeline.config import Settings
from tests.api.conftest import HASH_EMBEDDER, bearer
from tests.conftest import DOCS


def test_recorded_settings_hide_where_the_server_keeps_things(home: Path, tmp_path: Path) -> None:
    sessions = f"sqlite:{tmp_path / 'private-sessions.sqlite3'}"
    # The service's own limits come from the same tree as the library's settings.
    citeline = Citeline(Settings(home=home, embedder=HASH_EMBEDDER, api_sessions=sessions, api_rate_burst=1000))
    service = Service(citeline)
    assert service.api.sessions == sessions and service.api.rate_burst == 1000
    try:
        with TestClient(create_app(service=service)) as client:
            _, key = service.users.add("alice")
            files = [("files", (name, text.encode(), "text/plain")) for name, text in DOCS.items()]
            assert client.post("/v1/documents", files=files, headers=bearer(key)).status_code == 201
            asked = client.post("/v1/agent/run", json={"question": "How do I disable timeouts?"}, headers=bearer(key))
            assert asked.status_code == 200, asked.text
            runs = client.get("/v1/runs", headers=bearer(key)).json()["runs"]
            assert len(runs) == 1
            shown = client.get(f"/v1/runs/{runs[0]['run_id']}", headers=bearer(key))
            assert shown.status_code == 200, shown.text
    finally:
        service.citeline.close()
    settings = shown.json()["records"][0]["settings"]
    assert settings["retrieval"]["top_k"] == 5 and settings["index"]["chunk_tokens"] == 200
    assert not {"home", "store", "plugins"} & set(settings["index"])
    assert "sessions" not in settings["service"] and settings["service"]["rate_burst"] == 1000
    assert str(home) not in shown.text and "private-sessions" not in shown.text
