from __future__ import annotations

from fastapi.testclient import TestClient

from citeline.api.service import Service
from tests.api.conftest import bearer
from tests.conftest import DOCS


def test_upload_search_run(client: TestClient, service: Service) -> None:
    _, key = service.users.add("alice")
    h = bearer(key)
    files = [("files", (name, text.encode(), "text/plain")) for name, text in DOCS.items()]
    r = client.post("/v1/documents", files=files, headers=h)
    assert r.status_code == 201, r.text
    assert r.json()["ingested"] == 3
    r = client.post("/v1/search", json={"query": "timeout", "topK": 2}, headers=h)
    assert r.status_code == 200, r.text
    print(r.json()["retrievedPassages"][0]["metadata"])
    r = client.post("/v1/agent/run", json={"question": "What is the default timeout?"}, headers=h)
    assert r.status_code == 200, r.text
    print(r.json()["exit_reason"], r.json()["answer"][:200], r.headers["x-query-id"])
    r = client.post("/v1/agent/run", json={"question": "x"})
    print(r.status_code, r.json())
