"""The runs log through every surface, as users run them: the same question through the CLI, a live
`citeline serve` (JSON and SSE) and the MCP server leaves four records with the model and tool
I/O; `citeline replay` reproduces each byte for byte in a network namespace with no network at
all, after the scripts (the "model") and the index are deleted. A run killed with SIGKILL
mid-answer stays on record as incomplete. Another user's runs are never visible."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from citeline.version import version
from tests.conftest import write_corpus, write_script
from tests.servers import free_port, stop, wait_until_serving

QUESTION = "What is the default timeout?"
ANSWER = "Requests time out after 5 seconds of network inactivity by default [1]."
CLI = [sys.executable, "-m", "citeline.cli.main"]


def _cli(env: dict[str, str], *args: str, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*prefix, *CLI, *args], env=env, capture_output=True, text=True, timeout=300,
                          check=False)


def _script(root: Path, name: str, query: str) -> Path:
    # One script per surface with its own search, so no run is served from another's cached answer.
    return write_script(root / f"{name}.jsonl", {"type": "tool_call", "tool": "search_docs", "input": {"query": query}},
                        {"type": "final", "answer": ANSWER})


def _user(env: dict[str, str], name: str, *flags: str) -> tuple[str, str]:
    added = _cli(env, "users", "add", name, *flags)
    assert added.returncode == 0, added.stderr
    user_id = added.stdout.split("(id ", 1)[1].split(")", 1)[0]
    return user_id, added.stdout.strip().splitlines()[-1]


def _mcp_ask(env: dict[str, str]) -> tuple[dict[str, Any], str]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "citeline.cli.main", "mcp"], env=env)

    async def main() -> tuple[dict[str, Any], str]:
        async with Client(params, read_timeout_seconds=120) as client:
            result = await client.call_tool("ask", {"question": QUESTION})
            info = client.server_info
            return json.loads(result.content[0].text), info.version if info else ""

    return asyncio.run(main())


def test_every_surface_is_recorded_and_replays_offline(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "CITELINE_HOME": str(home), "CITELINE_EMBED_THREADS": "1"}
    assert _cli(env, "ingest", str(write_corpus(tmp_path / "docs"))).returncode == 0
    scripts = {name: _script(tmp_path, name, query) for name, query in
               (("cli", "default timeout"), ("http", "timeout default"), ("sse", "request timeout"),
                ("mcp", "network inactivity timeout"))}

    # CLI (owner `local`)
    asked = _cli(env, "ask", QUESTION, "--model", f"scripted:{scripts['cli']}", "--json")
    assert asked.returncode == 0 and json.loads(asked.stdout)["answer"] == ANSWER, asked.stderr

    # HTTP and SSE (owner alice), through a live server
    alice, alice_key = _user(env, "alice")
    bob, bob_key = _user(env, "bob")
    _, admin_key = _user(env, "root", "--admin")
    port = free_port()
    serve_env = {**env, "CITELINE_API_MODELS": f"scripted:{scripts['http']},scripted:{scripts['sse']}"}
    server = subprocess.Popen([*CLI, "serve", "--host", "127.0.0.1", "--port", str(port)], env=serve_env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(f"{url}/healthz", server, timeout_s=60)
        as_alice = {"Authorization": f"Bearer {alice_key}"}
        assert httpx.get(f"{url}/openapi.json", timeout=30).json()["info"]["version"] == version()
        files = [("files", (p.name, p.read_bytes(), "text/plain")) for p in sorted((tmp_path / "docs").iterdir())]
        assert httpx.post(f"{url}/v1/documents", files=files, headers=as_alice, timeout=120).status_code == 201
        ran = httpx.post(f"{url}/v1/agent/run", headers=as_alice, timeout=120,
                         json={"question": QUESTION, "model": f"scripted:{scripts['http']}"})
        assert ran.status_code == 200 and ran.json()["answer"] == ANSWER, ran.text
        final: dict[str, Any] = {}
        with httpx.stream("POST", f"{url}/v1/agent/stream", headers=as_alice, timeout=120,
                          json={"question": QUESTION, "model": f"scripted:{scripts['sse']}"}) as stream:
            for line in stream.iter_lines():
                if line.startswith("data: ") and '"type":"final"' in line:
                    final = json.loads(line[6:])
        assert final["data"]["result"]["answer"] == ANSWER

        # HTTP shows a user their own runs only; an admin sees all of them.
        mine = httpx.get(f"{url}/v1/runs", headers=as_alice, timeout=30).json()["runs"]
        assert sorted(r["via"] for r in mine) == ["http", "sse"] and {r["owner"] for r in mine} == {alice}
        as_bob = {"Authorization": f"Bearer {bob_key}"}
        assert httpx.get(f"{url}/v1/runs", headers=as_bob, timeout=30).json() == {"runs": []}
        assert httpx.get(f"{url}/v1/runs", headers=as_bob, params={"owner": alice}, timeout=30).json() == {"runs": []}
        assert httpx.get(f"{url}/v1/runs/{mine[0]['run_id']}", headers=as_bob, timeout=30).status_code == 404
        assert httpx.get(f"{url}/v1/runs/export", headers=as_bob, timeout=30).text == ""
        one = httpx.get(f"{url}/v1/runs/{mine[0]['run_id']}", headers=as_alice, timeout=30)
        assert one.status_code == 200 and one.json()["records"][0]["question"] == QUESTION
        exported = httpx.get(f"{url}/v1/runs/export", headers=as_alice, timeout=30).text.splitlines()
        assert {json.loads(line)["run_id"] for line in exported} == {r["run_id"] for r in mine}
        everyone = httpx.get(f"{url}/v1/runs", headers={"Authorization": f"Bearer {admin_key}"}, timeout=30)
        assert {r["via"] for r in everyone.json()["runs"]} == {"cli", "http", "sse"}
    finally:
        stop([server])

    # MCP (owner `local`), over stdio
    answer, mcp_version = _mcp_ask({**env, "CITELINE_MODEL": f"scripted:{scripts['mcp']}"})
    assert answer["answer"] == ANSWER and mcp_version == version()

    # The CLI shows the `owner` setting's runs; alice's appear only for --all-owners.
    local = json.loads(_cli(env, "logs", "--json").stdout)
    assert sorted(r["via"] for r in local) == ["cli", "mcp"] and {r["owner"] for r in local} == {"local"}
    assert json.loads(_cli(env, "logs", "--json", "--owner", bob).stdout) == []
    runs = json.loads(_cli(env, "logs", "--json", "--all-owners").stdout)
    assert sorted(r["via"] for r in runs) == ["cli", "http", "mcp", "sse"]
    assert all(r["status"] == "complete" and r["exit_reason"] == "COMPLETED" for r in runs)
    hidden = _cli(env, "logs", "show", next(r["run_id"] for r in runs if r["owner"] == alice))
    assert hidden.returncode == 2 and "no recorded run" in hidden.stderr  # alice's run, for owner local

    for run in runs:
        shown = json.loads(_cli(env, "logs", "show", run["run_id"], "--all-owners", "--json").stdout)
        exchanges = [r for r in shown["records"] if r["record"] == "exchange"]
        decisions = [e for e in exchanges if e["kind"] == "decision"]
        assert [d["response"]["action"]["type"] for d in decisions] == ["tool_call", "final"]
        assert all(d["response"]["model"] for d in decisions)  # what the "model" was asked and said
        searches = [e for e in exchanges if e["kind"] == "retrieval"]
        assert searches and "5 seconds" in json.dumps(searches[0]["response"]["passages"])
        assert any(e["kind"] == "tool" for e in exchanges)

    # No model, no index, no network: the scripts and the index are gone, and replay runs in a
    # network namespace without any interface up.
    shutil.rmtree(tmp_path / "docs")
    for script in scripts.values():
        script.unlink()
    for leftover in home.glob("index.sqlite3*"):
        leftover.unlink()
    for run in runs:
        replayed = _cli(env, "replay", run["run_id"], "--all-owners", "--json", prefix=("unshare", "-rn"))
        report = json.loads(replayed.stdout)
        assert replayed.returncode == 0 and report["identical"], (run["via"], replayed.stdout, replayed.stderr)
        assert report["steps_replayed"] == report["steps_recorded"] > 0 and report["compared_bytes"] > 1000
        assert report["result"]["answer"] == ANSWER
    assert not list(home.glob("index.sqlite3*"))  # replay never opened (or recreated) the index


def test_a_run_killed_mid_answer_is_on_record_as_incomplete(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "CITELINE_HOME": str(home), "CITELINE_EMBED_THREADS": "1"}
    assert _cli(env, "ingest", str(write_corpus(tmp_path / "docs"))).returncode == 0
    slow = write_script(tmp_path / "slow.jsonl",
                        {"type": "tool_call", "tool": "search_docs", "input": {"query": "default timeout"}},
                        {"type": "sleep", "seconds": 120}, {"type": "final", "answer": ANSWER})
    process = subprocess.Popen([*CLI, "ask", QUESTION, "--model", f"scripted:{slow}"], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:  # until the search is on record: the run is mid-answer
            text = "".join(p.read_text() for p in (home / "runs").glob("*.jsonl")) if (home / "runs").exists() else ""
            if '"kind":"tool"' in text:
                break
            time.sleep(0.1)
        else:
            raise AssertionError("the run never recorded its search")
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL

    (run,) = json.loads(_cli(env, "logs", "--json").stdout)
    assert run["status"] == "incomplete" and run["exit_reason"] is None and run["steps"] >= 3
    shown = _cli(env, "logs", "show", run["run_id"])
    assert shown.returncode == 0 and "INCOMPLETE" in shown.stdout and "search_docs" in shown.stdout
    replayed = _cli(env, "replay", run["run_id"])
    assert replayed.returncode == 1 and "incomplete record" in replayed.stdout
    # The log stays readable and writable: the next run goes on record after the cut-off one.
    quick = write_script(tmp_path / "quick.jsonl",
                         {"type": "tool_call", "tool": "search_docs", "input": {"query": "timeout"}},
                         {"type": "final", "answer": ANSWER})
    assert _cli(env, "ask", QUESTION, "--model", f"scripted:{quick}").returncode == 0
    statuses = [r["status"] for r in json.loads(_cli(env, "logs", "--json").stdout)]
    assert statuses == ["complete", "incomplete"]
    assert _cli(env, "logs", "--json", "--status", "incomplete").stdout.count(run["run_id"]) == 1
