"""How well a sentence's words answer to the question's words, one by one, by meaning.

A whole-sentence embedding blurs which words matched; exact term overlap misses "turn off" in
"disable", "last resort" in "fallback", "which one wins" in "takes precedence". The embedder's
per-word-piece vectors are contextual, so each of the question's content pieces can look for its
closest piece in a sentence: the mean of those best matches, each piece weighed by how rare it is
among the candidate sentences (a word every candidate shares tells them apart no more than a
stopword), is high for the sentence that speaks to every part of the question.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from citeline.index.embedder import TokenStates
from citeline.text import STOPWORDS


def _content(piece: str) -> bool:
    """A piece that starts a word and carries meaning: not a stopword, punctuation or "##" tail."""
    return piece[:1].isalnum() and piece not in STOPWORDS


def alignment(question: TokenStates, sentences: Sequence[TokenStates | None]) -> np.ndarray:
    """For each sentence, the rarity-weighted mean over the question's content pieces of its best
    cosine with any of the sentence's pieces (0 for a sentence without states)."""
    asked = [i for i, piece in enumerate(question.pieces) if _content(piece)]
    scores = np.zeros(len(sentences))
    present = [s for s in sentences if s is not None]
    if not asked or not present:
        return scores
    pieces = [question.pieces[i] for i in asked]
    vocabularies = [set(s.pieces) for s in present]
    holding = [sum(piece in vocabulary for vocabulary in vocabularies) for piece in pieces]
    weight = np.log1p(len(present) / (1.0 + np.array(holding, dtype=np.float64)))
    weight /= weight.sum()
    vectors = question.vectors[asked]
    for index, sentence in enumerate(sentences):
        if sentence is not None and len(sentence.pieces):
            scores[index] = float(weight @ (vectors @ sentence.vectors.T).max(axis=1))
    return scores
