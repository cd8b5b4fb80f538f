"""The interface every answerer implements, and the registry that builds one from a model spec.

The graph does not care who decides the next action: code (`extractive`), a script, or a model.
Answerers register a factory under the prefix of a model spec (`extractive`, `scripted:PATH`,
`openai:MODEL`, ...). Built-ins register through the `citeline.plugins` entry-point group exactly
as a third-party answerer does, so this module never imports an implementation.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from citeline import plugins
from citeline.agent.actions import Action
from citeline.errors import ConfigurationError

if TYPE_CHECKING:
    from citeline.agent.state import RunState
    from citeline.config import Settings
    from citeline.retrieval import Retriever


class Answerer(ABC):
    """Decides the next action of a run. `name` is reported as `AgentResult.model`."""

    name: str
    # Whether one instance may serve many runs (also concurrently). An answerer that keeps
    # per-run state (a script replaying its turns from the first) says False and is built anew
    # for every run.
    shareable: ClassVar[bool] = True

    @property
    def fingerprint(self) -> str:
        """Everything about this answerer that changes its answers (cached answers key on it)."""
        return self.name

    @property
    def system_prompt(self) -> str:
        """The system prompt sent with every model turn ("" when no model is asked); the agent
        checks before the first turn that it fits the token budget with the question."""
        return ""

    def propose_plan(self, run: RunState) -> str | None:
        """A plan for the run in the answerer's words (a JSON list or numbered steps), or None
        to let the agent plan from the question."""
        return None

    @abstractmethod
    def decide(self, run: RunState) -> Action:
        """The next action: a tool call, a final answer, or output that is not usable."""


AnswererFactory = Callable[[str, "Settings", "Retriever"], Answerer]
_FACTORIES: dict[str, AnswererFactory] = {}


def register_answerer(prefix: str, factory: AnswererFactory) -> None:
    """Make `factory(argument, settings, retriever)` build the answerer for `prefix[:argument]`."""
    _FACTORIES[prefix] = factory


def create_answerer(spec: str, settings: Settings, retriever: Retriever) -> Answerer:
    """Build the answerer a model spec names, or fail with the specs that exist."""
    prefix, _, argument = spec.partition(":")
    if prefix not in _FACTORIES:
        plugins.ensure("answerer", prefix)
    if prefix not in _FACTORIES:
        plugins.load_all()
    factory = _FACTORIES.get(prefix)
    if factory is None:
        known = ", ".join(sorted(p + (":..." if p != "extractive" else "") for p in _FACTORIES))
        raise ConfigurationError(f"unknown model `{spec}`", hint=f"use one of: {known}")
    return factory(argument, settings, retriever)
