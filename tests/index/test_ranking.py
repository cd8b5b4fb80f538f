import sqlite3

import pytest

from citeline.index.ranking import (
    drop_common,
    fts5_match,
    fused_top,
    lexical_ranking,
    reciprocal_rank_fusion,
    trim_lexical,
)

HOSTILE = ['multi-agent "quoted" NEAR( @x', '"', "'); DROP TABLE chunks; --", "a AND OR NOT b*", "^col:x",
           "((((", "-", "…—“”", "NEAR(a b, 2)", "x" * 5000]


@pytest.mark.parametrize("text", HOSTILE)
def test_any_user_string_is_a_valid_fts5_query(text: str) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='porter unicode61')")
    conn.execute("INSERT INTO t VALUES ('multi agent systems near quoted text drop table')")
    match = fts5_match(text)
    if match is not None:
        conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (match,)).fetchall()


def test_empty_or_stopword_queries_have_nothing_to_match() -> None:
    assert fts5_match("") is None
    assert fts5_match("   ") is None
    assert fts5_match("what is the") is None


def test_identifiers_become_phrases() -> None:
    assert fts5_match("follow_redirects") == '"follow redirects"'


def test_rrf_rewards_agreement_and_normalises() -> None:
    fused = dict(reciprocal_rank_fusion([[1, 2, 3], [2, 1, 4]], k=60))
    assert fused[1] == pytest.approx(fused[2])
    assert fused[1] > fused[3] > 0
    assert max(fused.values()) <= 1.0
    assert reciprocal_rank_fusion([[7], [7]], k=60) == [(7, 1.0)]


def test_a_lexical_match_that_stands_out_is_always_in_the_fused_top() -> None:
    dense = [1, 2, 3, 4, 5, 6, 99]  # 99: far ahead by words, last by meaning
    standing_out = lexical_ranking([(99, 45.9), (1, 12.9), (2, 10.6), (3, 8.0), (4, 7.0)])
    assert standing_out.standout == 99
    assert 99 not in dict(reciprocal_rank_fusion([standing_out.ids, dense], k=60)[:3])
    assert [item for item, _ in fused_top(standing_out, dense, k=60, top_k=3)] == [1, 2, 99]
    # A first only a little ahead of the next is fused like any other.
    close = lexical_ranking([(99, 8.0), (1, 7.2), (2, 6.6), (3, 6.0), (4, 5.0)])
    assert close.standout is None
    assert fused_top(close, dense, k=60, top_k=3) == reciprocal_rank_fusion([close.ids, dense], k=60)[:3]


def test_trim_lexical_drops_near_zero_matches() -> None:
    assert trim_lexical([(1, 10.0), (2, 3.0), (3, 0.0001)]) == [1, 2]


def test_common_single_words_are_dropped_only_when_a_rarer_phrase_remains() -> None:
    counts = {("the", "pool"): 5000, ("pool",): 5000, ("timeout",): 12, ("config",): 2500}
    rows = lambda words, cap: min(counts[tuple(words)], cap + 1)  # noqa: E731
    assert drop_common([["pool"], ["timeout"], ["config"]], rows) == [["timeout"]]
    # Nothing below the cut: the rarest words, as many as match at most 4x the cut together.
    assert drop_common([["pool"], ["config"]], rows) == [["pool"], ["config"]]  # 7,500 rows
    assert drop_common([["pool"], ["config"]], rows, limit=1500) == [["config"]]
    assert drop_common([["the", "pool"], ["timeout"]], rows) == [["the", "pool"], ["timeout"]]
    assert fts5_match("ignored", [["timeout"]]) == '"timeout"'


def test_when_every_word_is_common_only_the_rarest_is_counted_far_enough_to_find_it() -> None:
    counts = {"data": 500_000, "value": 100_000, "model": 40_000}
    asked: list[tuple[str, int]] = []

    def rows(words: list[str], cap: int) -> int:
        asked.append((words[0], cap))
        return min(counts[words[0]], cap + 1)

    assert drop_common([["data"], ["value"], ["model"]], rows, limit=2000) == [["model"]]
    # Counted up to the cut, then to 4x, 16x, 64x the cut: never past 4x the rarest one's count.
    # Only the rarest is ranked: with the next one they would match more than 4x the cut.
    assert sorted({cap for _, cap in asked}) == [2000, 8000, 32000, 128000]
    assert drop_common([["data"], ["value"]], rows, limit=2000) == [["value"]]
    assert drop_common([["data"], ["model"]], rows, limit=10_000) == [["model"]]  # 40,000 = 4x the cut
    assert drop_common([["value"], ["data"], ["model"]], rows, limit=35_000) == [["value"], ["model"]]
    assert drop_common([["value"], ["value"]], rows, limit=2000) == [["value"]]  # the first on ties
    assert drop_common([], rows) == []
    assert drop_common([["value"], ["model"]], rows, limit=0) == [["model"]]
