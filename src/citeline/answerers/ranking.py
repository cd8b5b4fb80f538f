"""What the extractive answerer knows once it has scored the evidence: each unit's relevance, the
lead it would answer with, the code example it would show, and the signals its answer-or-decline
decision rests on. `extractive` builds it; `layout` and `quotes` read it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from citeline.retrieval.answer_types import AnswerTypes
from citeline.retrieval.units import Unit


@dataclass
class Ranking:
    """The evidence's units scored against the question, and what the answer would lead with."""

    units: list[Unit]
    overall: np.ndarray  # each unit's relevance to the whole question
    part_picks: list[int]  # the best unit for each covered part of a multi-part question
    insufficiencies: list[dict[str, Any]]
    preference: np.ndarray  # what the lead was chosen by (the lead model's shares, or the rules' scores)
    lead: int = 0
    answer_type: AnswerTypes = ()
    code: int | None = None  # the code block a how-to answer shows
    command_intro: int | None = None  # the sentence introducing `code` when the question asks for a command
    features: dict[str, float] = field(default_factory=dict)
    cosine: np.ndarray = field(default_factory=lambda: np.zeros(0))
    opposite: tuple[str, str] | None = None  # (asked word, the lead's opposite of it), see `opposed`
    value_missing: bool = False  # a value with a shape is asked and neither the lead nor the best units hold one
    recorded: list[dict[str, Any]] | None = None  # each prose unit's lead signals, when recording for fitting
    shares: bool = False  # whether `preference` is the lead model's shares (else the rules' scores)

    def record(self) -> dict[str, Any]:
        """What the answer-or-decline decision rests on, as recorded in the run."""
        record: dict[str, Any] = {"features": self.features}
        if self.recorded is not None:
            record["units"] = self.recorded
        return record


@dataclass(frozen=True)
class UnitVectors:
    """The question's, its parts' and the units' embeddings (a zero row: unit not embedded)."""

    query: np.ndarray
    parts: np.ndarray
    matrix: np.ndarray
    alignment: np.ndarray  # each unit's `retrieval.alignment` with the question (0: not embedded, or no token states)
    heading: np.ndarray  # the same for the heading each unit sits under
    focus: np.ndarray | None = None  # the question's focus, when it differs from the question

    def similarity(self, vector: np.ndarray) -> np.ndarray:
        """Cosine of every unit to `vector` (0 for units that were not embedded)."""
        result: np.ndarray = self.matrix @ vector
        return result
