"""Where a run meets the world outside the agent's own code, so it can be recorded and replayed.

Everything a run's outcome depends on besides the agent's deterministic code passes through
`RunIO.exchange` as a JSON request and a JSON response: the answerer's decisions (a model, a
script, or code that uses an embedder), the plan it proposes, the fallback synthesis, each
search and open the tools make in the index, and the clock/cancellation checks. The default
`RunIO` just performs each exchange. A `RunRecorder` (implemented by `citeline.runs`) also
writes every exchange down; a replay serves the recorded responses instead of performing them,
and reports the first request that no longer matches the record.

Exchanges come in two sorts. *Served* ones (decisions, retrieval, clock) are the outside world:
a replay returns the recorded response without performing them. The others (a tool call) are the
agent's own code over served inputs: a replay performs them and checks that the response is the
recorded one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from citeline.agent.result import AgentResult

T = TypeVar("T")
Json = dict[str, Any]


@dataclass(frozen=True)
class Codec(Generic[T]):
    """How one kind of exchange's response is written down (`encode`) and rebuilt (`decode`),
    and how an exception it raised is written down (`encode_error`) and raised again
    (`decode_error`), so a replay fails exactly where and how the recorded run failed."""

    encode: Callable[[T], Json]
    decode: Callable[[Json], T]
    encode_error: Callable[[BaseException], Json]
    decode_error: Callable[[Json], BaseException]


class RunIO:
    """Performs every exchange and keeps no record: runs with the runs log switched off."""

    def exchange(self, kind: str, request: Json, perform: Callable[[], T], codec: Codec[T], *,
                 served: bool = True) -> T:
        """Perform one exchange of `kind` with this JSON `request` and return its value."""
        return perform()


class RunRecorder(RunIO):
    """A `RunIO` that also writes down the whole run: a header before any work, the context the
    run was answered in, every exchange, and the result (or the error that ended it)."""

    def begin(self, header: Mapping[str, Any]) -> None:
        """The run starts: question, owner, model, settings (written before any work)."""

    def context(self, info: Mapping[str, Any]) -> None:
        """What the run is answered with: corpus version, answerer, system prompt, cache hit."""

    def finish(self, result: AgentResult) -> None:
        """The run ended with this result."""

    def abort(self, error: BaseException) -> None:
        """The run ended with an exception instead of a result."""
