"""The retriever's search: the query's background similarity to the whole corpus, fresh and cached."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from citeline.app import Citeline
from citeline.config import Settings
from citeline.index.embedder import embed_queries


def test_background_is_the_querys_mean_similarity_to_the_corpus_and_survives_the_cache(app: Citeline) -> None:
    query = "What is the default timeout?"
    vectors = np.concatenate([vectors for _, _, vectors in app.store.export_documents()])
    similarities = np.sort(vectors @ np.asarray(embed_queries(app.embedder, [query])[0]))
    fresh = app.search(query)
    # The mean over every passage but the best match: in a small corpus the best would raise the
    # level it is measured against.
    assert not fresh.cached and fresh.background == pytest.approx(float(np.mean(similarities[:-1])), abs=1e-5)
    assert max(p.dense_score or 0.0 for p in fresh.passages) == pytest.approx(float(similarities[-1]), abs=1e-5)
    again = app.search(query)
    assert again.cached and again.background == fresh.background


def test_no_background_in_a_corpus_of_one_passage(home: Path, tmp_path: Path) -> None:
    docs = tmp_path / "one"
    docs.mkdir()
    (docs / "a.md").write_text("The default timeout is five seconds.\n", encoding="utf-8")
    app = Citeline(Settings(home=home))
    try:
        assert app.ingest([docs]).ok
        outcome = app.search("What is the default timeout?")
        assert len(outcome.passages) == 1 and outcome.background is None
    finally:
        app.close()


def test_background_follows_the_corpus(app: Citeline, tmp_path: Path) -> None:
    query = "What is the default timeout?"
    before = app.search(query).background
    extra = tmp_path / "more"
    extra.mkdir()
    (extra / "timeouts.md").write_text("# Timeouts\n\nThe default timeout is five seconds.\n", encoding="utf-8")
    assert app.ingest([extra]).ok
    after = app.search(query)
    assert not after.cached and after.background is not None and after.background != before
