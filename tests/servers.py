"""Starting and stopping real servers in tests: wait until one answers, stop it for sure."""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterable
from pathlib import Path


def wait_until_serving(url: str, process: subprocess.Popen[bytes], *, timeout_s: float,
                       log: Path | None = None) -> None:
    """Return once GET `url` answers 200; fail with the server's output if it exits or times out."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if process.poll() is not None:
            output = log.read_text()[-2000:] if log else (process.stdout.read().decode() if process.stdout else "")
            raise AssertionError(f"the server for {url} exited ({process.returncode}): {output}")
        if time.monotonic() > deadline:
            raise AssertionError(f"the server for {url} did not answer within {timeout_s:.0f} s")
        # A bounded poll (deadline above): a real process needs real time to start serving.
        time.sleep(0.2)


def stop(processes: Iterable[subprocess.Popen[bytes]]) -> None:
    """SIGTERM all, then SIGKILL whatever has not exited 15 s later."""
    processes = list(processes)
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_embedding_server(log: Path, *args: str) -> tuple[str, subprocess.Popen[bytes]]:
    """Start tests/embedding_server.py (a real OpenAI-compatible server over MiniLM) on loopback;
    returns its `/v1` base URL and the process (stop it with `stop`)."""
    import os
    import sys

    port = free_port()
    repo = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(repo), os.environ.get("PYTHONPATH", "")) if p)}
    with log.open("wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "tests.embedding_server", "--port", str(port), *args],
                                   stdout=out, stderr=subprocess.STDOUT, env=env, cwd=repo)
    wait_until_serving(f"http://127.0.0.1:{port}/health", process, timeout_s=60, log=log)
    return f"http://127.0.0.1:{port}/v1", process


def run_cli(*args: str, env: dict[str, str], timeout_s: float = 180, **kwargs: object) -> subprocess.CompletedProcess[str]:
    """`citeline ARGS` in a fresh process with `env`, output captured (never raises on its exit code)."""
    done: subprocess.CompletedProcess[str] = subprocess.run(  # type: ignore[call-overload]
        [sys.executable, "-m", "citeline.cli.main", *args], env=env, capture_output=True, text=True,
        timeout=timeout_s, check=False, **kwargs)
    return done


def add_user(name: str, env: dict[str, str]) -> str:
    """`citeline users add NAME`; returns the new user's API key."""
    added = run_cli("users", "add", name, env=env)
    assert added.returncode == 0, added.stderr
    return added.stdout.strip().splitlines()[-1]


def start_serve(log: Path, env: dict[str, str], *args: str, timeout_s: float = 90) -> tuple[str, subprocess.Popen[bytes]]:
    """Start `citeline serve` on a free loopback port (output to `log`) and wait until it answers;
    returns its base URL and the process (stop it with `stop`)."""
    port = free_port()
    with log.open("wb") as handle:
        process = subprocess.Popen(
            [sys.executable, "-m", "citeline.cli.main", "serve", "--host", "127.0.0.1", "--port", str(port), *args],
            env=env, stdout=handle, stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(f"{url}/healthz", process, timeout_s=timeout_s, log=log)
    except BaseException:
        stop([process])
        raise
    return url, process
