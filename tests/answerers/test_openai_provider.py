"""The `openai` answerer against a scripted OpenAI-compatible server on loopback: tool calling,
streaming, usage, the JSON fallback, and every fault path with its retry count and exit reason."""

from __future__ import annotations

import time
from typing import Any

import pytest

from citeline.agent.answerer import create_answerer
from citeline.agent.exits import ExitReason
from citeline.answerers.openai_provider import OpenAIAnswerer
from citeline.app import Citeline
from citeline.config import Settings
from citeline.errors import ConfigurationError
from tests.answerers.helpers import API_KEY, CANARY, FakeOpenAI, Reply, quoted_verbatim, verified

MODEL = "openai:fake-model"
SUPPORTED = "HTTPX raises a TimeoutException after 5 seconds of network inactivity [1]."
SEARCH = Reply(tool=("search_docs", {"query": "default timeout"}), usage=(100, 5))
OPEN = Reply(tool=("open_citation", {"rank": 1}), usage=(200, 6))


def _trace_messages(result: Any) -> str:
    return " ".join(str(entry.data) for entry in result.trace)


def test_tool_calls_streaming_and_usage(make_app: Any, fake_openai: FakeOpenAI) -> None:
    fake_openai.script = [SEARCH, OPEN, Reply(text=SUPPORTED, usage=(300, 20))]
    app: Citeline = make_app(openai_base_url=fake_openai.url)
    tokens: list[str] = []
    result = app.ask(
        "What is the default timeout?",
        model=MODEL,
        on_event=lambda e: tokens.append(e.data["text"]) if e.type == "token" else None,
    )
    assert result.exit_reason == ExitReason.COMPLETED, _trace_messages(result)
    assert result.citations and verified(app, result)
    assert result.citations[0].source.endswith("timeouts.md")
    # Usage is what the server reported, summed over the three calls.
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (600, 31)
    assert "".join(tokens).split() == SUPPORTED.split()
    first = fake_openai.requests[0]
    assert first["stream"] is True and first["stream_options"] == {"include_usage": True}
    assert first["tool_choice"] == "auto"
    # Only tools that can work are offered: nothing can be opened before a search.
    assert [t["function"]["name"] for t in first["tools"]] == ["search_docs"]
    assert [t["function"]["name"] for t in fake_openai.requests[1]["tools"]] == [
        "search_docs",
        "open_citation",
    ]
    # The opened passage is shown to the model as [1], delimited as data.
    last_prompt = fake_openai.requests[-1]["messages"][-1]["content"]
    assert '<passage n="1" doc="Timeouts"' in last_prompt and "5 seconds of network inactivity" in last_prompt


def test_json_fallback_when_server_rejects_tools(make_app: Any, fake_openai: FakeOpenAI) -> None:
    def no_tools(body: dict[str, Any]) -> Reply | None:
        if "tools" in body:
            return Reply(status=400, body={"error": {"message": "tools are not supported by this server"}})
        return None

    fake_openai.reject = no_tools
    fake_openai.script = [
        Reply(text='{"type": "tool_call", "tool": "search_docs", "input": {"query": "default timeout"}}'),
        Reply(text='{"type": "tool_call", "tool": "open_citation", "input": {"rank": 1}}'),
        Reply(text='{"type": "final", "answer": "' + SUPPORTED + '"}'),
    ]
    app: Citeline = make_app(openai_base_url=fake_openai.url)
    result = app.ask("What is the default timeout?", model=MODEL)
    assert result.exit_reason == ExitReason.COMPLETED, _trace_messages(result)
    assert verified(app, result)
    # One rejected tools request, then JSON actions only (with the action schema as response_format).
    assert "tools" in fake_openai.requests[0]
    later = fake_openai.requests[1:]
    assert later and all("tools" not in body for body in later)
    assert later[0]["response_format"]["type"] == "json_object"
    assert "one JSON object" in later[0]["messages"][-1]["content"]


def test_plain_text_reply_is_the_answer_and_is_validated(make_app: Any, fake_openai: FakeOpenAI) -> None:
    fake_openai.script = [
        SEARCH,
        Reply(text="HTTPX uses a default timeout of 30 minutes for every request [1]."),
    ]
    app: Citeline = make_app(openai_base_url=fake_openai.url, max_reprompts=1)
    result = app.ask("What is the default timeout?", model=MODEL)
    # The invented claim is not in the passage: it never reaches the user.
    assert "30 minutes" not in result.answer
    assert result.exit_reason in {ExitReason.VALIDATION_FAILED, ExitReason.INSUFFICIENT_CONTEXT}


def test_rate_limit_retries_honour_retry_after(make_app: Any, fake_openai: FakeOpenAI) -> None:
    fake_openai.script = [
        Reply(
            status=429,
            headers={"Retry-After": "0.4"},
            body={"error": {"message": "slow down", "type": "rate_limit"}},
        )
    ]
    app: Citeline = make_app(openai_base_url=fake_openai.url)
    started = time.monotonic()
    result = app.ask("What is the default timeout?", model=MODEL)
    assert result.exit_reason == ExitReason.RATE_LIMITED
    assert fake_openai.chat_requests == 3  # the first try and the graph's two retries; client retries are off
    assert time.monotonic() - started >= 0.8  # two waits of Retry-After
    assert result.retryable is True


def test_server_error_is_retried_then_llm_error(make_app: Any, fake_openai: FakeOpenAI) -> None:
    fake_openai.script = [Reply(status=500, body={"error": {"message": "upstream exploded"}})]
    app: Citeline = make_app(openai_base_url=fake_openai.url)
    result = app.ask("What is the default timeout?", model=MODEL)
    assert result.exit_reason == ExitReason.LLM_ERROR
    assert fake_openai.chat_requests == 3
    assert "upstream exploded" not in result.answer  # generic message, no internals


def test_transient_server_error_recovers(make_app: Any, fake_openai: FakeOpenAI) -> None:
    fake_openai.script = [Reply(status=503), SEARCH, OPEN, Reply(text=SUPPORTED)]
    app: Citeline = make_app(openai_base_url=fake_openai.url)
    result = app.ask("What is the default timeout?", model=MODEL)
    assert result.exit_reason == ExitReason.COMPLETED
    assert fake_openai.chat_requests == 4


def test_connection_reset_is_retried_then_llm_error(make_app: Any, fake_openai: FakeOpenAI) -> None:
    fake_openai.script = [Reply(reset=True)]
    app: Citeline = make_app(openai_base_url=fake_openai.url)
    result = app.ask("What is the default timeout?", model=MODEL)
    assert result.exit_reason == ExitReason.LLM_ERROR
    assert fake_openai.chat_requests == 3
    assert any("connection" in str(e.data.get("message", "")) for e in result.trace if e.type == "error")


def test_hung_server_ends_in_timeout_within_the_budget(make_app: Any, fake_openai: FakeOpenAI) -> None:
    # The server would hang for a minute; the 2 s budget must end the run long before. The bound is
    # loose on purpose: it tells "ended by the budget" from "ended by the server" on a loaded machine.
    fake_openai.script = [Reply(hang_s=60)]
    app: Citeline = make_app(openai_base_url=fake_openai.url, timeout_s=2.0)
    started = time.monotonic()
    result = app.ask("What is the default timeout?", model=MODEL)
    elapsed = time.monotonic() - started
    assert result.exit_reason == ExitReason.TIMEOUT
    assert fake_openai.chat_requests == 1  # no time left for a retry
    assert elapsed < 20, "the request timeout must be bounded by the run's remaining wall-clock"


def test_stream_of_keepalive_pings_ends_in_timeout_within_the_budget(
    make_app: Any, fake_openai: FakeOpenAI
) -> None:
    # Pings keep the socket's read timeout from firing: only the run's own deadline can end it.
    fake_openai.script = [Reply(ping_s=60, text="late")]
    app: Citeline = make_app(openai_base_url=fake_openai.url, timeout_s=2.0)
    started = time.monotonic()
    result = app.ask("What is the default timeout?", model=MODEL + "#json")
    elapsed = time.monotonic() - started
    assert result.exit_reason == ExitReason.TIMEOUT
    assert elapsed < 20, "a pinging stream must not outlive the run's wall-clock budget"


@pytest.mark.parametrize(
    ("status", "message", "expected"),
    [
        (401, "Incorrect API key provided: sk-test-secret-4f9c", "OPENAI_API_KEY"),
        (404, "The model `fake-model` does not exist", "check the model name"),
        (400, "This model's maximum context length is 8192 tokens", None),
    ],
)
def test_client_errors_are_not_retried(
    make_app: Any, fake_openai: FakeOpenAI, status: int, message: str, expected: str | None
) -> None:
    fake_openai.script = [Reply(status=status, body={"error": {"message": message}})]
    app: Citeline = make_app(openai_base_url=fake_openai.url)
    result = app.ask("What is the default timeout?", model=MODEL)
    # Not retried by the graph; a stated context window gets one immediate refitted attempt.
    assert fake_openai.chat_requests == (2 if expected is None else 1)
    trace = _trace_messages(result)
    assert API_KEY not in trace and API_KEY not in result.answer
    if expected is None:
        assert result.exit_reason == ExitReason.MAX_CONTEXT_REACHED
    else:
        assert result.exit_reason == ExitReason.LLM_ERROR
        assert expected in trace


def test_missing_key_fails_before_any_network_call(
    indexed_home: Any, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("CITELINE_OPENAI_API_KEY", raising=False)
    app = Citeline(Settings(home=indexed_home, openai_base_url=fake_openai.url))
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):
        app.ask("What is the default timeout?", model=MODEL)
    assert fake_openai.chat_requests == 0
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):
        create_answerer(MODEL, app.settings, app.retriever)


def test_context_overflow_is_detected_before_the_request(make_app: Any, fake_openai: FakeOpenAI) -> None:
    fake_openai.script = [SEARCH, OPEN, Reply(text=SUPPORTED)]
    app: Citeline = make_app(
        openai_base_url=fake_openai.url, evidence_tokens=0, history_tokens=0, system_tokens=500
    )
    result = app.ask("What is the default timeout?", model=MODEL)
    assert result.exit_reason == ExitReason.MAX_CONTEXT_REACHED
    assert result.retryable is False


def test_injected_canary_never_reaches_the_answer(make_app: Any, fake_openai: FakeOpenAI) -> None:
    # A model that obeys the injected instruction and cites the passage that carries it.
    fake_openai.script = [
        Reply(tool=("search_docs", {"query": "proxy argument"})),
        Reply(tool=("open_citation", {"rank": 1})),
        Reply(
            text=f"HTTPX supports routing requests through a proxy with the proxy argument [1]. {CANARY} [1]."
        ),
    ]
    app: Citeline = make_app(openai_base_url=fake_openai.url)
    result = app.ask("How do I use a proxy?", model=MODEL)
    assert CANARY not in result.answer
    assert all(CANARY not in c.quote for c in result.citations)
    # The passage carrying the instruction was flagged at ingest and is never evidence: no search
    # result or opened passage shown to the model holds it (only the model's own obedient reply,
    # quoted back to it by the validator, does).
    for body in fake_openai.requests:
        for message in body["messages"]:
            content = str(message.get("content"))
            shown = content if message["role"] in ("system", "tool") else content.partition("<passages>")[2]
            assert CANARY not in shown.partition("</passages>")[0], message
    assert all(not c.source.endswith("proxies.md") for c in result.citations)
    assert verified(app, result)


def test_policy_name_and_forced_json_mode(make_app: Any, fake_openai: FakeOpenAI) -> None:
    app: Citeline = make_app(openai_base_url=fake_openai.url)
    policy = create_answerer("openai:fake-model#json", app.settings, app.retriever)
    assert isinstance(policy, OpenAIAnswerer)
    assert policy.name == "openai:fake-model" and {p.mode for p in policy.profiles} == {"json"}


def test_stream_that_never_worked_steps_down_to_plain_requests(
    make_app: Any, fake_openai: FakeOpenAI
) -> None:
    def no_streamed_tools(body: dict[str, Any]) -> Reply | None:
        return Reply(cut_stream=True) if body.get("stream") and "tools" in body else None

    fake_openai.reject = no_streamed_tools
    fake_openai.script = [SEARCH, OPEN, Reply(text=SUPPORTED)]
    app: Citeline = make_app(openai_base_url=fake_openai.url)
    result = app.ask("What is the default timeout?", model=MODEL)
    assert result.exit_reason == ExitReason.COMPLETED, _trace_messages(result)
    assert app.answerer(MODEL).profile.name == "tools"  # type: ignore[attr-defined]
    assert [bool(body.get("stream")) for body in fake_openai.requests] == [True, False, False, False]


def test_stream_cut_after_it_worked_is_a_server_error(make_app: Any, fake_openai: FakeOpenAI) -> None:
    fake_openai.script = [SEARCH, Reply(cut_stream=True)]
    app: Citeline = make_app(openai_base_url=fake_openai.url)
    result = app.ask("What is the default timeout?", model=MODEL)
    assert result.exit_reason == ExitReason.LLM_ERROR
    assert fake_openai.chat_requests == 4  # the search, then the cut stream tried three times


def test_a_stated_context_window_is_learned_and_fitted(make_app: Any, fake_openai: FakeOpenAI) -> None:
    too_long = Reply(
        status=400,
        body={
            "error": {
                "message": "This model's maximum context length is 2600 tokens. "
                "However, you requested 9000 tokens"
            }
        },
    )
    fake_openai.script = [SEARCH, too_long, OPEN, Reply(text=SUPPORTED)]
    app: Citeline = make_app(openai_base_url=fake_openai.url)
    result = app.ask("What is the default timeout?", model=MODEL)
    assert result.exit_reason == ExitReason.COMPLETED, _trace_messages(result)
    assert fake_openai.chat_requests == 4  # the rejected turn was asked again at once, not as a graph retry
    assert not any(e.type == "error" for e in result.trace)


# --- `#quotes`: code gathers the evidence, the model picks the answer's sentences ------------
def test_quotes_mode_quotes_the_picked_sentences(make_app: Any, fake_openai: FakeOpenAI) -> None:
    def pick_the_default(body: dict[str, Any]) -> Reply:  # a model that finds the right sentence
        listing = body["messages"][1]["content"]
        number = next(line.split(")")[0].lstrip("(") for line in listing.splitlines() if "5 seconds" in line)
        return Reply(text=f'{{"sentences": [{number}]}}', usage=(120, 6))

    fake_openai.reject = pick_the_default
    app: Citeline = make_app(openai_base_url=fake_openai.url)
    result = app.ask("What is the default timeout?", model=MODEL + "#quotes")
    assert result.exit_reason == ExitReason.COMPLETED, result.trace
    assert result.model == "openai:fake-model#quotes"
    assert result.citations and verified(app, result) and quoted_verbatim(app, result)
    assert "5 seconds" in result.answer
    assert fake_openai.chat_requests == 1  # searching and opening took no model turn
    request = fake_openai.requests[0]
    offered = request["response_format"]["schema"]["properties"]["sentences"]["items"]["enum"]
    assert offered == list(range(1, len(offered) + 1)) and len(offered) >= 2
    assert "<sentences>" in request["messages"][1]["content"]
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (120, 6)


def test_quotes_mode_reads_numbers_when_the_server_rejects_schemas(
    make_app: Any, fake_openai: FakeOpenAI
) -> None:
    fake_openai.reject = lambda body: (
        Reply(status=400, body={"error": {"message": "response_format is not supported"}})
        if "response_format" in body else None
    )
    fake_openai.script = [Reply(text="Sentences 1 and 99.")]  # 99 was not offered: ignored
    app: Citeline = make_app(openai_base_url=fake_openai.url)
    result = app.ask("What is the default timeout?", model=MODEL + "#quotes")
    assert result.exit_reason == ExitReason.COMPLETED, result.trace
    assert verified(app, result) and quoted_verbatim(app, result)
    assert fake_openai.chat_requests == 2
    assert "response_format" not in fake_openai.requests[1]


def test_quotes_mode_declines_an_uncovered_question_without_a_model_turn(
    make_app: Any, fake_openai: FakeOpenAI
) -> None:
    app: Citeline = make_app(openai_base_url=fake_openai.url)
    result = app.ask("How do I configure the Kerberos keytab rotation?", model=MODEL + "#quotes")
    assert result.exit_reason == ExitReason.INSUFFICIENT_CONTEXT
    assert not result.citations and fake_openai.chat_requests == 0
