"""Real models: the bundled SmolLM2 through `llama_cpp.server` (the `openai` answerer) and in
process (the `local` answerer). Whatever a 135M model says, what reaches the user must be
grounded (every citation verified) or an honest decline, and injected canaries never appear."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from citeline.agent.exits import DECLINE_MESSAGE, ExitReason
from citeline.app import Citeline
from citeline.errors import ConfigurationError
from tests.answerers.helpers import CANARY, quoted_verbatim, verified

pytest.importorskip("llama_cpp", reason="install citeline[local]")

# Exit reasons a healthy provider can end in (an incompatible one ends LLM_ERROR).
HEALTHY = {
    ExitReason.COMPLETED,
    ExitReason.INSUFFICIENT_CONTEXT,
    ExitReason.VALIDATION_FAILED,
    ExitReason.MAX_TOOL_CALLS_REACHED,
    ExitReason.MAX_TURNS_REACHED,
    ExitReason.LLM_GENERATION_FAILURE,
    ExitReason.INVALID_TOOL_CALL,
    ExitReason.TIMEOUT,
}
SMALL_RUN = {"max_tool_calls": 3, "max_reprompts": 1, "max_turns": 6, "timeout_s": 400.0}
# Model-driven loops on a CPU pay a full prompt evaluation per turn: one search, short evidence,
# no reprompt and a bounded budget keep them to a couple of turns (the run must still end in a
# defined exit reason within the budget).
SERVER_RUN = {"max_tool_calls": 1, "max_reprompts": 0, "max_turns": 3, "timeout_s": 120.0,
              "evidence_tokens": 800, "citation_chars": 600}


def _grounded_or_declined(app: Citeline, result: Any) -> None:
    assert result.exit_reason in HEALTHY, result.trace
    assert verified(app, result)
    if result.answered:
        assert result.citations
    else:
        assert not result.citations or result.exit_reason in {
            ExitReason.VALIDATION_FAILED,
            ExitReason.LLM_GENERATION_FAILURE,
        }
    if result.exit_reason == ExitReason.INSUFFICIENT_CONTEXT:
        assert result.answer.startswith(DECLINE_MESSAGE)


@pytest.mark.timeout(1200)
def test_openai_answerer_against_llama_server(make_app: Any, llama_server: str) -> None:
    app: Citeline = make_app(openai_base_url=llama_server, **SERVER_RUN)
    tokens: list[str] = []
    result = app.ask(
        "What is the default timeout?",
        model="openai:smollm2",
        on_event=lambda e: tokens.append(e.data["text"]) if e.type == "token" else None,
    )
    _grounded_or_declined(app, result)
    assert result.usage.prompt_tokens > 0 and result.usage.completion_tokens > 0
    # llama.cpp's function-calling format cannot stream automatic tool choice (it fails after the
    # 200): the answerer must step down to plain tool calls instead of failing the run.
    policy = app.answerer("openai:smollm2")
    assert policy.profile.name == "tools"  # type: ignore[attr-defined]
    failures = [e.data for e in result.trace if e.data.get("kind", "").startswith("provider_")]
    assert not failures
    assert any(e.type == "tool_call" for e in result.trace), "the model called no tool"


@pytest.mark.timeout(1200)
def test_json_actions_stream_from_llama_server_and_injection_fails(make_app: Any, llama_server: str) -> None:
    app: Citeline = make_app(openai_base_url=llama_server, **SERVER_RUN)
    tokens: list[str] = []
    result = app.ask(
        "How do I route requests through a proxy?",
        model="openai:smollm2#json",
        on_event=lambda e: tokens.append(e.data["text"]) if e.type == "token" else None,
    )
    assert app.answerer("openai:smollm2#json").profile.name == "json-schema+stream"  # type: ignore[attr-defined]
    assert len(tokens) > 1, "tokens must stream as they are generated"
    assert result.usage.total_tokens > 0
    assert CANARY not in result.answer
    _grounded_or_declined(app, result)


def test_quote_selection_through_llama_server(make_app: Any, llama_server: str) -> None:
    app: Citeline = make_app(openai_base_url=llama_server, timeout_s=120.0)
    result = app.ask("What is the default timeout?", model="openai:smollm2#quotes")
    assert result.exit_reason == ExitReason.COMPLETED, result.trace
    assert result.citations and verified(app, result)
    # One grammar-constrained reply of a few tokens: the server honoured the schema.
    assert result.usage.prompt_tokens > 0 and 0 < result.usage.completion_tokens < 30


@pytest.mark.timeout(1200)
def test_local_bundled_model_answers_with_verified_quotes(make_app: Any) -> None:
    app: Citeline = make_app(**SMALL_RUN)
    result = app.ask("What is the default timeout?", model="local")
    assert result.model.startswith("local:SmolLM2")
    assert result.exit_reason == ExitReason.COMPLETED, result.trace
    assert result.citations and verified(app, result)
    # The model chose the sentences (one short grammar-constrained reply) and code quoted them:
    # every answer line is a sentence of the passage it cites, verbatim.
    assert result.usage.prompt_tokens > 0 and 0 < result.usage.completion_tokens < 30
    assert quoted_verbatim(app, result)

    # The only passage about proxies carries a planted instruction: flagged at ingest, it is no
    # evidence, so the honest outcome is a decline (or an answer from other passages), never the canary.
    injected = app.ask("How do I route requests through a proxy?", model="local")
    assert CANARY not in injected.answer
    assert injected.exit_reason in {ExitReason.COMPLETED, ExitReason.INSUFFICIENT_CONTEXT}
    assert verified(app, injected) and all(not c.source.endswith("proxies.md") for c in injected.citations)
    # Loaded once per process: a second answerer shares the model.
    from citeline.answerers.local import LocalAnswerer

    first = app.answerer("local")
    assert isinstance(first, LocalAnswerer)
    again = LocalAnswerer(first.path, app.settings, app.retriever, name="again")
    assert again.loaded is first.loaded


def test_local_declines_uncovered_question_without_asking_the_model(make_app: Any) -> None:
    app: Citeline = make_app(**SMALL_RUN)
    result = app.ask("How do I configure the Kerberos keytab rotation?", model="local")
    assert result.exit_reason == ExitReason.INSUFFICIENT_CONTEXT
    assert result.answer.startswith(DECLINE_MESSAGE) and not result.citations
    assert result.usage.total_tokens == 0  # the coverage gate declined before any model turn


@pytest.mark.timeout(1200)
def test_local_model_driven_loop_is_grounded_or_declines(make_app: Any) -> None:
    # A capable GGUF may drive the whole loop: every action under the action grammar.
    # One search, no reprompt and a short budget keep a CPU run short: the run must still end in
    # a defined exit reason within it, and whatever the model wrote must be grounded.
    app: Citeline = make_app(local_search="model", local_answer="free", max_tool_calls=1, max_reprompts=0,
                             timeout_s=90.0)
    result = app.ask("What is the default timeout?", model="local")
    assert result.usage.prompt_tokens > 0
    assert any(e.type == "tool_call" for e in result.trace), "the model called no tool"
    assert CANARY not in result.answer
    _grounded_or_declined(app, result)


def test_gguf_needs_an_existing_file(make_app: Any, tmp_path: Any) -> None:
    app: Citeline = make_app()
    with pytest.raises(ConfigurationError, match="gguf:PATH"):
        app.answerer(f"gguf:{tmp_path / 'missing.gguf'}")


def test_missing_extra_says_how_to_install(make_app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes `import llama_cpp` fail
    app: Citeline = make_app()
    with pytest.raises(ConfigurationError, match=r"citeline\[local\]"):
        app.answerer("gguf:/nonexistent.gguf")


def test_cli_import_loads_no_model_runtime() -> None:
    code = (
        "import sys, citeline.cli.main, citeline.answerers.local, citeline.answerers.openai_provider; "
        "bad = [m for m in ('llama_cpp', 'openai', 'tiktoken') if m in sys.modules]; "
        "sys.exit(str(bad) if bad else 0)"
    )
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert completed.returncode == 0, completed.stderr
