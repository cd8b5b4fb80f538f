"""A command's start-up imports without the cyclic garbage collector running through them.

Why: `citeline ask` imports about 1,300 modules (LangGraph alone brings LangChain, LangSmith,
pydantic and their models). Every class, function and pydantic schema those imports create is a
new container object, so the collector keeps running during the imports, and its full
collections walk every object created so far, while nearly nothing is garbage: on the ask path
that was a fifth of the time before the agent starts. Pausing the collector for the imports and
then freezing what they made (modules live as long as the process) removes that work without
changing what runs; collection resumes normally for the answer itself.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """While inside, no automatic garbage collection; on leaving, everything allocated so far is
    moved to the collector's permanent generation (later collections skip it) and automatic
    collection is restored as it was."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        # Without the freeze, the first collection after re-enabling would walk all of it at once.
        gc.freeze()
        if enabled:
            gc.enable()
