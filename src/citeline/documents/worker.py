"""Parsing files in a separate worker process, with a wall-clock timeout and a memory cap.

Why a process: a parser is the one place where a file controls the work done. A decompression
bomb, a pathological regex, a cyclic structure or a C-level crash inside a parsing library can
hang or take down the interpreter; Python threads cannot be interrupted, so a thread timeout
would only abandon a runaway parse that keeps burning CPU and memory. A child process can be
killed outright and has its own address-space limit (RLIMIT_AS), so one file can cost at most
`parse_timeout_s` seconds and `parse_memory_mb` MB and the batch goes on. Loading *and* chunking
run in the worker, so chunking a degenerate document is capped too.

The worker is one long-lived process per ingest run (start-up is paid once, not per file), fed
length-prefixed pickles over its stdin/stdout. It is restarted after a timeout, a crash or a
memory error. It dies with its parent (EOF on stdin, plus PR_SET_PDEATHSIG on Linux), so killing
`citeline ingest` never leaves an orphan parsing in the background.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from citeline.documents.chunking import chunk_document
from citeline.documents.limits import LoadLimits, check_block_count, use_limits
from citeline.documents.models import Chunk, Flag
from citeline.documents.registry import Loader, loader_for
from citeline.errors import IngestError, NoTextOfItsOwn

_HEADER = struct.Struct(">Q")
_START_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class ParseRequest:
    """One file for the worker to load and chunk, with the chunking settings and the work caps."""

    path: str
    data: bytes
    doc_id: str
    doc_hash: str
    chunk_tokens: int
    overlap: int
    max_chunks: int
    limits: LoadLimits = field(default_factory=LoadLimits)


@dataclass
class ParsedFile:
    """What the worker sends back for a file: its title, metadata, chunks and flagged passages."""

    title: str
    metadata: dict[str, Any]
    sanitized_chars: int
    chunks: list[Chunk]
    flags: list[Flag] = field(default_factory=list)


def parse(request: ParseRequest, loader: Loader | None = None) -> ParsedFile:
    """Load and chunk one file under `request.limits`. Raises IngestError with the reason."""
    path = Path(request.path)
    loader = loader or loader_for(path)
    if loader is None:
        raise IngestError(f"{path.name}: unsupported file type `{path.suffix or '(none)'}`")
    with use_limits(request.limits):
        document = loader.load(path, request.data)
        check_block_count(len(document.blocks), path.name, "blocks")
    chunks = chunk_document(document, doc_id=request.doc_id, doc_hash=request.doc_hash,
                            chunk_tokens=request.chunk_tokens, overlap=request.overlap,
                            limit=request.max_chunks)
    if not chunks:
        raise IngestError(f"{path.name}: no text could be extracted", hint="check that the file has text")
    if len(chunks) > request.max_chunks:
        raise IngestError(
            f"{path.name}: would produce more than {request.max_chunks:,} chunks (the per-file limit)",
            hint="split the file, or raise CITELINE_MAX_CHUNKS_PER_FILE",
        )
    return ParsedFile(document.title, document.metadata, document.sanitized_chars, chunks, document.flags)


class ParseWorker:
    """The parent's handle on the worker process. Not thread-safe: one ingest run uses it."""

    def __init__(self, *, timeout_s: float, memory_mb: int) -> None:
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb
        self._proc: subprocess.Popen[bytes] | None = None

    def parse(self, request: ParseRequest, loader: Loader) -> ParsedFile:
        """Load and chunk one file in the worker process; an IngestError when it takes too long, needs
        too much memory or crashes the worker (which is then restarted for the next file)."""
        name = Path(request.path).name
        payload = pickle.dumps((type(loader).__module__, request), protocol=pickle.HIGHEST_PROTOCOL)
        proc = self._ensure_started()
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(_HEADER.pack(len(payload)) + payload)
            proc.stdin.flush()
            reply = self._read_reply(proc.stdout, time.monotonic() + self.timeout_s)
        except TimeoutError:
            self.close()
            raise IngestError(
                f"{name}: parsing took longer than {self.timeout_s:g} s and was stopped",
                hint="split the file, or raise CITELINE_PARSE_TIMEOUT_S",
            ) from None
        except (BrokenPipeError, EOFError, OSError):
            code = self.close()
            raise IngestError(
                f"{name}: the parser crashed on this file ({_describe_exit(code)})",
                hint="the file is probably damaged; re-export it or exclude it",
            ) from None
        kind = reply[0]
        if kind == "ok":
            parsed: ParsedFile = reply[1]
            return parsed
        if kind == "error":
            raise IngestError(reply[1], hint=reply[2])
        if kind == "no text of its own":
            raise NoTextOfItsOwn(reply[1], hint=reply[2])
        if kind == "memory":
            self.close()  # a heap that hit its limit may be fragmented: start clean
            raise IngestError(
                f"{name}: needs more than {self.memory_mb} MB of memory to parse",
                hint="split the file, or raise CITELINE_PARSE_MEMORY_MB",
            )
        # "unavailable": the loader was registered in this process only (not importable by the
        # worker), so it runs here, without the worker's caps.
        return parse(request, loader)

    def _ensure_started(self) -> subprocess.Popen[bytes]:
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        # The worker sees the parent's import path, so loaders registered by plugin modules (and
        # citeline itself, even when run from a source tree) import the same way there.
        package_root = str(Path(__file__).resolve().parents[2])
        search = [package_root, *(p for p in sys.path if p and Path(p).is_dir())]
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(search))
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "citeline.documents.worker", str(self.memory_mb)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
        )
        # Wait for the worker's "ready" before any file's clock starts: its start-up (an
        # interpreter and the parsers' imports, seconds on a loaded machine) is not the file's doing.
        assert self._proc.stdout is not None
        try:
            self._read_reply(self._proc.stdout, time.monotonic() + _START_TIMEOUT_S)
        except (TimeoutError, EOFError, OSError):
            code = self.close()
            raise IngestError(f"the parser worker did not start ({_describe_exit(code)})",
                              hint="check that `python -m citeline.documents.worker` runs") from None
        return self._proc

    @staticmethod
    def _read_reply(stream: IO[bytes], deadline: float) -> Any:
        fd = stream.fileno()
        buffer = bytearray()
        needed = _HEADER.size
        have_header = False
        while True:
            while len(buffer) < needed:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError
                ready, _, _ = select.select([fd], [], [], remaining)
                if not ready:
                    raise TimeoutError
                block = os.read(fd, max(needed - len(buffer), 1 << 16))
                if not block:
                    raise EOFError
                buffer += block
            if have_header:
                return pickle.loads(bytes(buffer[_HEADER.size : needed]))
            needed = _HEADER.size + _HEADER.unpack(bytes(buffer[: _HEADER.size]))[0]
            have_header = True

    def close(self) -> int | None:
        """Stop the worker; returns its exit code (negative: killed by that signal)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return None
        if proc.poll() is None:
            proc.kill()
        with contextlib.suppress(Exception):
            proc.wait(timeout=5)
        for stream in (proc.stdin, proc.stdout):
            with contextlib.suppress(Exception):
                if stream is not None:
                    stream.close()
        return proc.returncode

    def __enter__(self) -> ParseWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "no exit status"
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
    return f"exit status {code}"


# --- the worker side ------------------------------------------------------------------------
def _die_with_parent() -> None:
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            import ctypes

            pr_set_pdeathsig = 1
            ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)


def _read_exact(stream: IO[bytes], size: int) -> bytes | None:
    data = bytearray()
    while len(data) < size:
        block = stream.read(size - len(data))
        if not block:
            return None
        data += block
    return bytes(data)


def _handle(message: bytes) -> tuple[Any, ...]:
    module, request = pickle.loads(message)
    path = Path(request.path)
    if module != "__main__":
        with contextlib.suppress(Exception):
            importlib.import_module(module)  # third-party loaders register on import
    loader = loader_for(path)
    if loader is None or type(loader).__module__ != module:
        return ("unavailable",)
    try:
        return ("ok", parse(request, loader))
    except NoTextOfItsOwn as exc:
        return ("no text of its own", exc.message, exc.hint)
    except IngestError as exc:
        return ("error", exc.message, exc.hint)
    except MemoryError:
        return ("memory",)
    except RecursionError:
        return ("error", f"{path.name}: is nested too deeply to parse", "check the file's structure")
    except Exception as exc:  # a parser bug or an unanticipated malformation: report, go on
        return (
            "error",
            f"{path.name}: could not be parsed ({exc.__class__.__name__}: {str(exc)[:200]})",
            "the file may be damaged; re-export it or exclude it",
        )


def main() -> None:
    """The worker process: cap its own memory, then load and chunk files sent on stdin until stdin
    closes, replying on stdout."""
    memory_mb = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    _die_with_parent()
    import logging

    # Parsers log every glitch they recover from: keep those off the terminal (the reply carries
    # the errors) while loaders can still collect them with their own handlers.
    logging.getLogger().addHandler(logging.NullHandler())
    if memory_mb > 0:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print() in a library must not corrupt the protocol
    ready = pickle.dumps(("ready",))
    stdout.write(_HEADER.pack(len(ready)) + ready)
    stdout.flush()
    while True:
        header = _read_exact(stdin, _HEADER.size)
        if header is None:
            return
        message = _read_exact(stdin, _HEADER.unpack(header)[0])
        if message is None:
            return
        try:
            reply = _handle(message)
            payload = pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
        except MemoryError:
            payload = pickle.dumps(("memory",))
        stdout.write(_HEADER.pack(len(payload)) + payload)
        stdout.flush()


if __name__ == "__main__":
    # Run the imported module's main, not this `__main__` copy: pickled replies must name
    # `citeline.documents.worker.ParsedFile`, which the parent can resolve.
    from citeline.documents import worker

    worker.main()
