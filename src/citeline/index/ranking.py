"""Engine-independent ranking pieces: full-text query building and reciprocal rank fusion."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from citeline.text import STOPWORDS, terms

if TYPE_CHECKING:
    from citeline.index.store import Passage

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
MAX_QUERY_TERMS = 32


def query_phrases(text: str) -> list[list[str]]:
    """The user's text as phrases of plain words, stopwords dropped, duplicates removed.

    An identifier such as `follow_redirects` becomes the phrase ["follow", "redirects"], which
    matches the same adjacent tokens the index stores for it.
    """
    seen: set[tuple[str, ...]] = set()
    phrases: list[list[str]] = []
    for term in terms(text):
        words = _WORD.findall(term)
        if not words or (len(words) == 1 and (words[0] in STOPWORDS or len(words[0]) < 2)):
            continue
        key = tuple(words)
        if key not in seen:
            seen.add(key)
            phrases.append(words)
        if len(phrases) >= MAX_QUERY_TERMS:
            break
    return phrases


def fts5_phrase(words: Sequence[str]) -> str:
    """One phrase as a quoted FTS5 string (quotes inside cannot occur: words are alphanumeric)."""
    return '"' + " ".join(words) + '"'


def fts5_match(text: str, phrases: Sequence[Sequence[str]] | None = None) -> str | None:
    """A safe FTS5 MATCH expression for any user string, or None if nothing is searchable.

    Every word is double-quoted, so FTS5 operators in the input (`NEAR(`, `-`, `"`, `@`, `AND`,
    `*`) are only ever literal text. `phrases` replaces the text's own phrases (a subset of them).
    """
    chosen = query_phrases(text) if phrases is None else phrases
    if not chosen:
        return None
    return " OR ".join(fts5_phrase(words) for words in chosen)


# A single word found in more rows than this costs more to rank than it tells apart: FTS5 scores
# every matching row (~3 µs each) before the top candidates are taken, so one word present in a
# third of 100k chunks made a query 5x slower than its p50, and BM25 gives such a word an IDF near
# zero. The PostgreSQL engine drops the same words (from its planner statistics).
COMMON_ROWS = 2000
# When every word of a query is above the cut, its rarest words are still ranked, as many as
# match at most this many times the cut together (and always the rarest one): see drop_common.
RARE_ROWS_FACTOR = 4


def drop_common(phrases: Sequence[list[str]], rows: Callable[[list[str], int], int],
                limit: int = COMMON_ROWS) -> list[list[str]]:
    """The phrases minus single words matching more than `limit` rows, when a rarer phrase remains;
    when none remains, the rarest words (`rarest`).

    `rows(phrase, cap)` counts matching rows, and may stop counting past `cap`. Multi-word phrases
    stay: adjacency makes them selective even when each word is not."""
    kept = [words for words in phrases if len(words) > 1 or rows(words, limit) <= limit]
    if kept or not phrases:
        return kept
    # Every phrase is a single word above the cut. Ranking them all made FTS5 score hundreds of
    # thousands of rows at 1M chunks (hybrid p95 20x its p50). Only the rarest are ranked, so the
    # rows scored are at most the budget or the rarest word's own count; the most common words
    # left out have an IDF near zero anyway, and dense search still runs beside this in hybrid.
    budget = RARE_ROWS_FACTOR * limit
    cap = max(budget, 1)
    counts = [rows(words, cap) for words in phrases]
    while min(counts) > cap:  # no phrase within the budget: count further to find the rarest
        cap *= 4
        counts = [rows(words, cap) for words in phrases]
    return [phrases[i] for i in rarest(counts, budget)]


def rarest(counts: Sequence[float], budget: float) -> list[int]:
    """Indexes (in query order) of the rarest phrases whose row counts add up to at most `budget`,
    and always of the rarest one (the first on ties). A count may be a capped one if the cap is
    at least `budget` and above the rarest count."""
    order = sorted(range(len(counts)), key=counts.__getitem__)
    chosen, total = [order[0]], counts[order[0]]
    for i in order[1:]:
        total += counts[i]
        if total > budget:
            break
        chosen.append(i)
    return sorted(chosen)


LEXICAL_FLOOR = 0.05


def trim_lexical(scored: Sequence[tuple[int, float]], floor: float = LEXICAL_FLOOR) -> list[int]:
    """Ids of a lexical ranking (best first, scores higher-is-better) whose score is at least
    `floor` of the best one.

    With OR queries, a term present in every document ("httpx" in its own docs) matches
    everything with a near-zero score; letting those matches into fusion would push a strong
    dense-only or lexical-only hit down the fused list for no reason.
    """
    if not scored:
        return []
    best = scored[0][1]
    if best <= 0:
        return [item for item, _ in scored]
    return [item for item, score in scored if score >= best * floor]


# A lexical match scoring this many times the next one stands out: the only passage naming the
# question's rarest words together (45.9 against 12.9 for "partial clones … full clone" in pip's
# docs, where the near misses of ten development sets that it let in score at most 1.7 times theirs).
LEXICAL_STANDOUT = 2.0


class LexicalRanking(NamedTuple):
    """A lexical ranking as fusion takes it: the ids kept by `trim_lexical`, and the first when it
    stands out from the rest (`LEXICAL_STANDOUT`)."""

    ids: list[int]
    standout: int | None = None


def lexical_ranking(scored: Sequence[tuple[int, float]]) -> LexicalRanking:
    """`scored` (best first, higher is better) as fusion takes it."""
    ids = trim_lexical(scored)
    first_stands_out = bool(scored) and scored[0][1] > 0 and (
        len(scored) == 1 or scored[0][1] >= LEXICAL_STANDOUT * scored[1][1])
    return LexicalRanking(ids, scored[0][0] if first_stands_out else None)


def reciprocal_rank_fusion(rankings: Sequence[Sequence[int]], k: int) -> list[tuple[int, float]]:
    """Fuse ranked id lists; scores are normalised so an id ranked first everywhere scores 1.0."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank + 1)
    best_possible = len(rankings) / (k + 1) if rankings else 1.0
    fused = sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))
    return [(item, score / best_possible) for item, score in fused]


def fused_top(lexical: LexicalRanking, dense: Sequence[int], k: int, top_k: int) -> list[tuple[int, float]]:
    """The best `top_k` of the reciprocal rank fusion of the two rankings, always holding a lexical
    match that stands out. Fusion rewards agreement, so a passage far ahead by its words that the
    dense ranker puts low (a long section full of URLs, the only one naming "partial clones")
    falls behind passages both rank middling, out of the top. It takes the last fused place."""
    fused = reciprocal_rank_fusion([ranking for ranking in (lexical.ids, dense) if ranking], k)
    top = fused[:top_k]
    standout = lexical.standout
    if standout is None or top_k < 1 or any(item == standout for item, _ in top):
        return top
    return top[: top_k - 1] + [pair for pair in fused if pair[0] == standout]


def assemble_passages(
    fused: Sequence[tuple[int, float]],
    rows_by_id: Mapping[int, Any],
    to_passage: Callable[[Any], Passage],
    *,
    lexical: Sequence[int],
    dense_scores: Mapping[int, float],
) -> list[Passage]:
    """Fused ids -> passages in fused order, each with its fused score and per-ranker evidence.
    Ids whose row vanished between ranking and reading (a concurrent delete) are skipped."""
    lexical_rank = {rowid: rank for rank, rowid in enumerate(lexical)}
    passages: list[Passage] = []
    for rowid, score in fused:
        row = rows_by_id.get(rowid)
        if row is None:
            continue
        passage = to_passage(row)
        passage.score = round(score, 6)
        passage.dense_score = dense_scores.get(rowid)
        passage.lexical_rank = lexical_rank.get(rowid)
        passages.append(passage)
    return passages
