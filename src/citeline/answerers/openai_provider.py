"""The `openai` answerer: any OpenAI-compatible chat endpoint (`--model openai:MODEL`).

Native tool calling and token streaming when the server has them; otherwise it steps down a
ladder of request profiles (tools without streaming, JSON actions with a schema, plain JSON
mode, prompt-only JSON) and remembers the first one the server accepts. The client's own
retries are off: the graph retries, honouring Retry-After, and maps failures to exit reasons.
"""

from __future__ import annotations

import contextlib
import queue
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from citeline.agent.actions import Action, ProviderError
from citeline.agent.answerer import Answerer, register_answerer
from citeline.agent.context import count_tokens
from citeline.answerers import actions, quotes
from citeline.answerers.errors import capability_error, context_window_from, map_openai_error
from citeline.answerers.extractive import ExtractiveAnswerer
from citeline.answerers.prompts import Budget, Mode, build_messages, prompt_tokens, system_prompt
from citeline.answerers.schema import action_schema, quote_schema
from citeline.errors import ConfigurationError

if TYPE_CHECKING:
    from citeline.agent.state import RunState
    from citeline.config import Settings
    from citeline.index.embedder import Embedder
    from citeline.retrieval import Retriever

ToolMode = Literal["auto", "tools", "json", "quotes"]


@dataclass(frozen=True)
class Profile:
    """One way of asking: native tools or JSON actions, streamed or not, with which response_format."""

    name: str
    mode: Mode
    stream: bool
    response_format: Literal["schema", "json_object"] | None = None


PROFILES = (
    Profile("tools+stream", "tools", True),
    Profile("tools", "tools", False),
    Profile("json-schema+stream", "json", True, "schema"),
    Profile("json-object+stream", "json", True, "json_object"),
    Profile("json-prompt+stream", "json", True),
    Profile("json-prompt", "json", False),
)


class BrokenStream(Exception):
    """A streamed response ended without a finish reason (some servers fail mid-stream after a 200)."""


def _tools(run: RunState | None = None) -> list[dict[str, Any]]:
    """The tool definitions, narrowed to what can work now: nothing can be opened before a search."""
    from citeline.agent.tools import TOOL_SCHEMAS

    usable = [s for s in TOOL_SCHEMAS if run is None or run.searches or s["name"] == "search_docs"]
    return [{"type": "function", "function": schema} for schema in usable]


class OpenAIAnswerer(Answerer):
    """Any OpenAI-compatible chat endpoint: native tool calls, JSON actions, or quote selection."""

    def __init__(self, model: str, settings: Settings, *, tool_mode: ToolMode = "auto",
                 embedder: Embedder | None = None) -> None:
        if not model:
            raise ConfigurationError("`openai` needs a model name",
                                     hint="use --model openai:MODEL, e.g. openai:gpt-4o-mini")
        if not settings.answerer.openai_api_key:
            # Checked before any network call: a missing key must not look like a server failure.
            raise ConfigurationError(
                "no API key for the `openai` provider",
                hint="set OPENAI_API_KEY (or CITELINE_OPENAI_API_KEY); local servers such as llama.cpp or "
                "Ollama accept any non-empty value",
            )
        try:
            import openai  # noqa: F401  (checked here: a missing package is a ConfigurationError)
        except ImportError as exc:
            raise ConfigurationError("the `openai` package is not installed",
                                     hint="pip install openai") from exc
        self.name = f"openai:{model}"
        self.model = model
        self.settings = settings
        self.base_url = settings.answerer.openai_base_url or "https://api.openai.com/v1"
        self.client = self._new_client()
        self.profiles = [p for p in PROFILES if tool_mode in {"auto", "quotes"} or p.mode == tool_mode]
        # `#quotes`: code gathers the evidence, the model only picks the answer's sentences.
        self.quote_planner = (ExtractiveAnswerer(settings, embedder)
                              if tool_mode == "quotes" and embedder is not None else None)
        self.tool_mode = tool_mode
        if tool_mode == "quotes":
            self.name += "#quotes"
        self._quote_schema = True  # dropped if the server rejects a schema in response_format
        self._profile = 0
        self._usage_option = True  # stream_options.include_usage, dropped if the server rejects it
        self._proven: set[str] = set()  # profiles that have completed a request on this server
        self._context_window: int | None = None  # learned from a server's context-length error
        self._lock = threading.Lock()

    def _new_client(self) -> Any:
        import openai

        return openai.OpenAI(api_key=self.settings.answerer.openai_api_key, base_url=self.base_url, max_retries=0)

    @property
    def profile(self) -> Profile:
        """The request profile in use: the first one on the ladder this server has not refused."""
        return self.profiles[self._profile]

    @property
    def system_prompt(self) -> str:
        """Read by the graph to check, before the first call, that the prompt can fit at all."""
        return system_prompt(self.profile.mode)

    @property
    def fingerprint(self) -> str:
        """What cached answers are keyed on: the same model name on another server is another model."""
        return f"{self.name}@{self.base_url}"

    # --- the Answerer interface -------------------------------------------------------------
    def decide(self, run: RunState) -> Action:
        """The model's next action, stepping down the profile ladder when the server refuses a
        feature."""
        if self.quote_planner is not None:
            step = quotes.next_step(self.quote_planner, run)
            if not isinstance(step, quotes.QuoteTurn):
                return step  # the plan's next tool call, or a decline
            return step.answer(self._pick(run, step))
        while True:
            profile = self.profile
            try:
                action = self._ask(run, profile)
            except ProviderError:
                raise
            except BrokenStream as exc:
                # The server may have dropped the connection the pool would reuse: start afresh.
                self.client.close()
                self.client = self._new_client()
                # Never worked here: the server cannot stream this kind of request (llama.cpp's
                # function-calling format with automatic tool choice). Once proven, it is a failure.
                if profile.name not in self._proven and self._step_down(exc, profile, reason="stream"):
                    continue
                raise ProviderError("server", f"{self.base_url} ended the streamed answer early") from exc
            except Exception as exc:  # every client error is mapped below
                if self._step_down(exc, profile) or self._learn_window(exc):
                    continue
                raise map_openai_error(exc, model=self.model, base_url=self.base_url,
                                       secret=self.settings.answerer.openai_api_key) from exc
            self._proven.add(profile.name)
            return actions.screened(action, run)

    def _pick(self, run: RunState, turn: quotes.QuoteTurn) -> str:
        """One short, non-streamed request: the numbers of the sentences that answer."""
        while True:
            request: dict[str, Any] = {"model": self.model, "messages": turn.messages, "max_tokens": 32,
                                       "temperature": 0, "timeout": self._timeout(run)}
            if self._quote_schema:  # llama.cpp-style grammar: the reply can only be offered numbers
                request["response_format"] = {"type": "json_object",
                                              "schema": quote_schema(len(turn.candidates))}
            try:
                response = self.client.chat.completions.create(**request)
            except Exception as exc:
                if self._quote_schema and capability_error(exc) == "response_format":
                    self._quote_schema = False  # the server rejects schemas: read numbers from text
                    continue
                raise map_openai_error(exc, model=self.model, base_url=self.base_url,
                                       secret=self.settings.answerer.openai_api_key) from exc
            text = (response.choices[0].message.content or "") if response.choices else ""
            usage = response.usage
            counted = ((usage.prompt_tokens, usage.completion_tokens) if usage
                       else (prompt_tokens(turn.messages), count_tokens(text)))
            run.usage.add(*counted)
            run.model_exchange(_loggable(request), {"text": text, "usage": list(counted)})
            return text

    def _learn_window(self, exc: Exception) -> bool:
        """A server that states its context window ("maximum context length is 4096 tokens") gets
        one retry with the prompt budget fitted to it; the window is kept for later turns."""
        window = context_window_from(exc)
        if window is None or (self._context_window is not None and window >= self._context_window):
            return False
        self._context_window = window
        return True

    def _step_down(self, exc: Exception, profile: Profile, *, reason: str | None = None) -> bool:
        """Move to the next request profile when the server says it lacks a feature."""
        reason = reason or capability_error(exc)
        if reason is None:
            return False
        with self._lock:
            if reason == "stream_options":
                changed, self._usage_option = self._usage_option, False
                return changed
            if self.profile is not profile:  # another thread already stepped down
                return True
            for index in range(self._profile + 1, len(self.profiles)):
                candidate = self.profiles[index]
                lacks_tools = reason == "tools" and candidate.mode == "tools"
                if lacks_tools or (reason == "stream" and candidate.stream):
                    continue  # skip profiles that use the feature the server lacks
                self._profile = index
                return True
        return False

    # --- one request ---------------------------------------------------------------------
    def _ask(self, run: RunState, profile: Profile) -> Action:
        window = self._context_window
        # 10% slack: servers add their own template (and tool descriptions) to what we count.
        budget = Budget.from_settings(self.settings, context_window=int(window * 0.9) if window else None)
        messages = build_messages(run, mode=profile.mode, budget=budget)
        final_only = run.force_final or run.tool_budget_left == 0
        request: dict[str, Any] = {
            "model": self.model, "messages": messages, "max_tokens": self.settings.agent.response_tokens,
            "temperature": 0, "timeout": self._timeout(run),
        }
        if profile.mode == "tools" and not final_only:
            # Explicit "auto" (the API default): some servers otherwise ignore the tools entirely.
            request["tools"], request["tool_choice"] = _tools(run), "auto"
        if profile.response_format == "schema":
            request["response_format"] = {"type": "json_object", "schema": action_schema(run)}
        elif profile.response_format == "json_object":
            request["response_format"] = {"type": "json_object"}
        if profile.stream:
            request["stream"] = True
            if self._usage_option:
                request["stream_options"] = {"include_usage": True}
            text, calls, usage = self._stream(run, request)
        else:
            text, calls, usage = self._complete(run, request)
        if usage is None:  # the server reports none: estimate, so usage is never silently zero
            usage = (prompt_tokens(messages), count_tokens(text) + sum(count_tokens(a) for _, a in calls))
        run.usage.add(*usage)
        run.model_exchange(_loggable(request), {"text": text, "tool_calls": [list(c) for c in calls],
                                                "usage": list(usage)})
        if calls:
            name, arguments = calls[0]  # one action per turn; the loop asks again for the next
            return actions.from_tool_call(name, arguments)
        return actions.from_text(text, prose_is_answer=True)

    def _timeout(self, run: RunState) -> float:
        remaining = self.settings.agent.timeout_s - run.elapsed_ms / 1000
        if remaining <= 0.05:
            raise ProviderError("timeout", "the run's time budget is spent")
        return remaining

    def _complete(self, run: RunState, request: dict[str, Any]) -> tuple[str, list[tuple[str, str]], Any]:
        response = self.client.chat.completions.create(**request)
        if not response.choices:
            return "", [], None
        message = response.choices[0].message
        text = message.content or ""
        if text:
            run.event("token", text=text)
        calls = [(c.function.name, c.function.arguments or "") for c in (message.tool_calls or [])
                 if getattr(c, "function", None) is not None]
        usage = (response.usage.prompt_tokens, response.usage.completion_tokens) if response.usage else None
        return text, calls, usage

    def _stream(self, run: RunState, request: dict[str, Any]) -> tuple[str, list[tuple[str, str]], Any]:
        deadline = time.monotonic() + request["timeout"]
        pieces: list[str] = []
        calls: dict[int, list[str]] = {}
        usage = None
        finished = False
        stream = self.client.chat.completions.create(**request)
        received = False
        try:
            for chunk in _before(deadline, self._chunks(stream)):
                received = True
                if getattr(chunk, "usage", None):
                    usage = (chunk.usage.prompt_tokens, chunk.usage.completion_tokens)
                for choice in chunk.choices or []:
                    finished = finished or bool(choice.finish_reason)
                    delta = choice.delta
                    if delta is None:
                        continue
                    if delta.content:
                        pieces.append(delta.content)
                        run.event("token", text=delta.content)
                    for call in delta.tool_calls or []:
                        slot = calls.setdefault(call.index or 0, ["", ""])
                        if call.function is not None:
                            slot[0] += call.function.name or ""
                            slot[1] += call.function.arguments or ""
        finally:
            with contextlib.suppress(Exception):  # the reader thread may still hold it
                stream.close()
        if not finished and not received:
            raise BrokenStream(request["model"])
        return "".join(pieces), [(n, a) for _, (n, a) in sorted(calls.items()) if n], usage

    @staticmethod
    def _chunks(stream: Any) -> Any:
        """The stream's chunks; a transport failure before the first chunk is a BrokenStream (the
        server accepted the request, then failed to produce it), not an unreachable server."""
        import httpx
        import openai

        first = True
        iterator = iter(stream)
        while True:
            try:
                chunk = next(iterator)
            except StopIteration:
                return
            except (httpx.TransportError, openai.APIConnectionError) as exc:
                if first and not isinstance(exc, httpx.TimeoutException | openai.APITimeoutError):
                    raise BrokenStream(str(exc)) from exc
                raise
            first = False
            yield chunk

    # --- diagnostics (citeline doctor) -----------------------------------------------------
    def probe(self) -> list[tuple[bool, str, str]]:
        """(ok, what, how to fix) for: reachable, model present, tool calling."""
        from citeline.answerers.errors import describe

        checks: list[tuple[bool, str, str]] = []
        try:
            models = [m.id for m in self.client.models.list(timeout=10)]
        except Exception as exc:  # reported, not raised
            mapped = map_openai_error(exc, model=self.model, base_url=self.base_url,
                                      secret=self.settings.answerer.openai_api_key)
            checks.append((False, f"endpoint {self.base_url} not usable: {mapped}", describe(mapped)))
            return checks
        checks.append((True, f"endpoint {self.base_url} reachable ({len(models)} models)", ""))
        present = self.model in models
        checks.append((present, f"model `{self.model}` " + ("is served" if present else "is not listed"),
                       "" if present else f"use one of: {', '.join(models[:8]) or '(none listed)'}"))
        if self.tool_mode == "quotes":
            # Quote selection sends plain chat requests; a tool-call probe could even set off a
            # server's unbounded tool-argument generation (llama.cpp's function-calling format).
            probe: dict[str, Any] = {"messages": [{"role": "user", "content": "Reply with the number 1."}],
                                     "max_tokens": 8}
            answered = "a test chat request answered (quote selection needs no tool calling)"
        else:
            probe = {"messages": [{"role": "user", "content": "Search the documents for: ping"}],
                     "tools": _tools(), "max_tokens": 32}
            answered = "tool calling accepted"
        try:
            self.client.chat.completions.create(model=self.model, temperature=0, timeout=60, **probe)
            checks.append((True, answered, ""))
        except Exception as exc:  # reported, not raised
            if "tools" in probe and capability_error(exc):
                checks.append((True, "no native tool calling; citeline will use JSON actions instead",
                               ""))
            else:
                mapped = map_openai_error(exc, model=self.model, base_url=self.base_url,
                                          secret=self.settings.answerer.openai_api_key)
                checks.append((False, f"a test request failed: {mapped}", describe(mapped)))
        return checks


def _loggable(request: dict[str, Any]) -> dict[str, Any]:
    """A request as the runs log keeps it: what was sent to the model, without the client-side
    timeout (which depends on the wall clock, not on the run)."""
    return {key: value for key, value in request.items() if key != "timeout"}


_PREFIX_MODE = re.compile(r"^(?P<model>.+?)(?:#(?P<mode>tools|json|quotes))?$")


def _factory(argument: str, settings: Settings, retriever: Retriever) -> OpenAIAnswerer:
    """`openai:MODEL` (tools when the server has them), `openai:MODEL#json` to force JSON actions,
    `openai:MODEL#quotes` for quote selection (see `quotes`; for small models on CPU servers)."""
    match = _PREFIX_MODE.match(argument or "")
    model, mode = (match.group("model"), match.group("mode")) if match else ("", None)
    return OpenAIAnswerer(model, settings, tool_mode=mode or "auto",  # type: ignore[arg-type]
                          embedder=retriever.embedder)


register_answerer("openai", _factory)


def _before(deadline: float, chunks: Iterator[Any]) -> Iterator[Any]:
    """`chunks`, read in a helper thread, ending with a timeout ProviderError at `deadline`.

    Why a thread: a server that sends SSE keep-alive comments but no data (llama_cpp.server after
    a failed generation) resets the socket's read timeout forever, and a server trickling tokens
    never trips it; only a wall-clock wait on the reader ends the run on time.
    """
    inbox: queue.Queue[tuple[str, Any]] = queue.Queue()

    def pump() -> None:
        try:
            for chunk in chunks:
                inbox.put(("chunk", chunk))
            inbox.put(("end", None))
        except BaseException as exc:  # handed to the caller's thread, which raises it
            inbox.put(("error", exc))

    threading.Thread(target=pump, name="citeline-stream-reader", daemon=True).start()
    while True:
        try:
            kind, item = inbox.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise ProviderError("timeout", "the model's answer did not finish within the run's "
                                "time budget") from None
        if kind == "end":
            return
        if kind == "error":
            raise item
        yield item
