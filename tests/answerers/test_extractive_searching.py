"""Which searches the extractive answerer runs for a question."""

from __future__ import annotations

from pathlib import Path

from citeline.agent.state import RunState, SearchRecord
from citeline.answerers.extractive import ExtractiveAnswerer
from citeline.config import Settings


def _searches(tmp_path: Path, question: str) -> list[str]:
    """Every query the answerer asks for, in order, each search returning nothing."""
    run = RunState(query_id="q", question=question, owner="local", settings=Settings(home=tmp_path))
    answerer = ExtractiveAnswerer(run.settings, embedder=None)  # type: ignore[arg-type]
    while (call := answerer.next_tool(run)) is not None and call.tool == "search_docs":
        run.searches.append(SearchRecord(call.input["query"], []))
    return run.queries_tried


def test_a_part_referring_back_by_a_pronoun_is_searched_with_what_it_refers_to(tmp_path: Path) -> None:
    # Searched alone, "what's its default value" finds any passage stating any default.
    searches = _searches(tmp_path, "Which setting controls the truncate filter's leeway, and what's its default value?")
    assert searches[0] == "Which setting controls the truncate filter's leeway"
    assert searches[1].startswith("what's its default value")
    assert "truncate" in searches[1] and "leeway" in searches[1]


def test_a_part_naming_its_own_subject_is_searched_as_written(tmp_path: Path) -> None:
    searches = _searches(tmp_path, "What does max_age default to, and what is the default minimum_size for GZip?")
    assert searches[1] == "what is the default minimum_size for GZip"
