"""The chat REPL driven through a real pseudo-terminal (pexpect)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pexpect

from tests.conftest import write_corpus

PROMPT = "citeline>"


def _spawn(home: Path, *args: str, transcript: Path) -> pexpect.spawn:
    env = {**os.environ, "CITELINE_HOME": str(home), "PROMPT_TOOLKIT_NO_CPR": "1", "TERM": "xterm",
           "COLUMNS": "100", "LINES": "40"}
    child = pexpect.spawn(sys.executable, ["-m", "citeline.cli.main", "chat", *args], env=env,
                          encoding="utf-8", timeout=120, dimensions=(40, 100))
    child.logfile_read = transcript.open("w", encoding="utf-8")
    return child


def test_chat_session(tmp_path: Path) -> None:
    home = tmp_path / "home"
    docs = write_corpus(tmp_path / "docs")
    env = {**os.environ, "CITELINE_HOME": str(home)}
    subprocess.run([sys.executable, "-m", "citeline.cli.main", "ingest", str(docs)], env=env, check=True,
                   capture_output=True, timeout=300)
    slow = tmp_path / "slow.jsonl"
    slow.write_text(json.dumps({"type": "sleep", "seconds": 30}) + "\n")
    transcript = Path(os.environ.get("CITELINE_CHAT_TRANSCRIPT", tmp_path / "transcript.txt"))

    child = _spawn(home, transcript=transcript)
    child.expect("3 documents, [0-9]+ chunks indexed")
    child.expect(PROMPT)
    child.sendline("What is the default timeout?")
    child.expect("Sources")
    child.expect(r"\[1\]")
    child.expect("COMPLETED")
    child.expect(PROMPT)
    child.sendline("and how do I disable it?")  # follow-up, answered from the conversation
    child.expect("timeout=None")
    child.expect(PROMPT)
    child.sendline("sources 1")
    child.expect("Timeouts")
    child.expect(PROMPT)
    child.sendline("trace")
    child.expect("exit: ")
    child.expect(PROMPT)
    child.sendline("clear")
    child.expect("conversation cleared")
    child.expect(PROMPT)
    child.sendline("sources 1")
    child.expect("no citations yet")
    child.expect(PROMPT)
    child.sendline("help")
    child.expect("sources N")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect("bye")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    # Ctrl+C cancels a running answer and returns to the prompt; Ctrl+D leaves with code 0.
    child = _spawn(home, "--model", f"scripted:{slow}", transcript=transcript.with_suffix(".cancel.txt"))
    child.expect(PROMPT)
    child.sendline("What is the default timeout?")
    child.expect("Ctrl\\+C cancels")  # the answer is under way
    child.sendintr()
    child.expect("cancelled", timeout=10)
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    history = (home / "chat_history").read_text()
    assert "What is the default timeout?" in history  # inputs persist across runs
