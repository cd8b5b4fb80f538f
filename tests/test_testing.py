"""`citeline.testing`: a function decides every action, and the validator still guards the answer."""

from __future__ import annotations

from citeline.app import Citeline
from citeline.testing import FinalAnswer, FunctionAnswerer, RunState, ToolCall


def _search_then(answer: str) -> FunctionAnswerer:
    def decide(run: RunState) -> ToolCall | FinalAnswer:
        if not run.searches:
            return ToolCall("search_docs", {"query": run.question})
        return FinalAnswer(answer)

    return FunctionAnswerer(decide)


def test_a_function_answer_is_validated_and_cited(app: Citeline) -> None:
    answerer = _search_then("Requests time out after 5 seconds of network inactivity by default. [1]")
    result = app.ask("What is the default timeout?", answerer=answerer)
    assert result.exit_reason.value == "COMPLETED" and result.model == "function"
    assert result.citations[0].quote in app.store.get_passage(
        app.settings.index.owner, result.citations[0].document_id,
        result.citations[0].chunk_id).text  # type: ignore[union-attr]


def test_an_unsupported_claim_from_the_function_never_reaches_the_user(app: Citeline) -> None:
    answerer = _search_then("The default timeout is 90 minutes and can be raised to 3 days via turbo_mode. [1]")
    result = app.ask("What is the default timeout?", answerer=answerer)
    assert "90 minutes" not in result.answer and "turbo_mode" not in result.answer
    assert result.exit_reason.value in {"VALIDATION_FAILED", "INSUFFICIENT_CONTEXT"}


def test_two_functions_never_share_a_cached_answer(app: Citeline) -> None:
    first = app.ask("What is the default timeout?",
                    answerer=_search_then("Requests time out after 5 seconds of network inactivity by default. [1]"))
    second = app.ask("What is the default timeout?",
                     answerer=_search_then("Pass `timeout=None` to disable all timeouts. [1]"))
    assert not second.cached and first.answer != second.answer
