"""Ctrl+C during an answer: cancel the run instead of raising wherever the main thread is."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def sigint_sets(event: threading.Event) -> Iterator[None]:
    """While inside, SIGINT sets `event` instead of raising KeyboardInterrupt.

    Why: a KeyboardInterrupt lands on whatever line the main thread is running, and on a busy
    machine that can be outside the `except` that would cancel the run; the process then waits for
    a run nobody cancelled. A handler that only sets an event cannot miss.
    """
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be installed from the main thread
        return
    previous = signal.signal(signal.SIGINT, lambda signum, frame: event.set())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
