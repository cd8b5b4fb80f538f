"""Which retrieved passages the extractive answerer opens."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeline.agent.planning import key_term_query
from citeline.agent.state import RunState, SearchRecord
from citeline.answerers import extractive
from citeline.answerers.extractive import ExtractiveAnswerer
from citeline.config import Settings
from citeline.index.store import Passage

QUESTION = "Where does uv tool install put tool environments by default on Linux?"


def _passage(n: int, section: str, text: str, score: float) -> Passage:
    return Passage(chunk_id=f"c{n}", document_id=f"d{n}", document_name="docs", source=f"doc{n}.md",
                   chunk_index=0, text=text, section=section, page=None, start=0, end=len(text), score=score)


def _opening_order(tmp_path: Path) -> list[str]:
    executables = _passage(1, "Tool executables", "uv installs executables for installed tools, e.g. ruff. "
                           "Use the UV_TOOL_BIN_DIR environment variable to configure the directory.", 0.87)
    tools = _passage(2, "Tools", "uv can install Python packages as tools using uv tool install. By default, "
                     "tools are installed in a tools/ subdirectory, e.g. ~/.local/share/uv/tools. Use the "
                     "UV_TOOL_DIR environment variable to configure the installation directory.", 0.83)
    limited = _passage(3, "Limited resolution environments", "Resolution environments limit the platforms "
                       "a lockfile covers, for a project or a tool.", 1.0)
    run = RunState(query_id="q", question=QUESTION, owner="local", settings=Settings(home=tmp_path))
    run.searches.append(SearchRecord(QUESTION, [executables, tools]))
    # The key-term search scores every result against its own best: a passage the question's own
    # search did not find tops it, as well covered by the question's words as the one that answers.
    run.searches.append(SearchRecord(key_term_query(QUESTION), [
        limited, _passage(2, tools.section or "", tools.text, 0.6)]))
    chosen = ExtractiveAnswerer(run.settings, embedder=None)._choose(run, [QUESTION])  # type: ignore[arg-type]
    return [p.section or "" for p in chosen]


def test_a_passage_found_only_by_the_key_term_search_counts_less(tmp_path: Path) -> None:
    order = _opening_order(tmp_path)
    assert order.index("Tools") < order.index("Limited resolution environments")


def test_counted_in_full_the_key_term_search_would_open_another_passage_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The check above is not vacuous: with the fallback weighed like the question's own search,
    # the passage about resolution environments is opened first.
    monkeypatch.setattr(extractive, "FALLBACK_SEARCH_WEIGHT", 1.0)
    order = _opening_order(tmp_path)
    assert order.index("Limited resolution environments") < order.index("Tools")
