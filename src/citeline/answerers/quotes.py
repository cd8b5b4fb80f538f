"""Quote selection: code gathers and ranks the evidence, a model picks which sentences answer.

Used by model answerers in their `quotes` mode (`local` by default, `openai:MODEL#quotes`). The
extractive answerer's search plan gathers the passages and its coverage gate declines when they
do not cover the question; the model then sees the best-ranked sentences, numbered, and replies
with the numbers of those that answer; they join the ranking's own confident picks and citeline
quotes them verbatim, so the answer is grounded by construction and a weak model can at worst add
a less relevant sentence. One short model turn
per question also keeps CPU-served models fast.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import numpy as np

from citeline.agent.actions import Action, FinalAnswer
from citeline.answerers import composition
from citeline.answerers.extractive import ExtractiveAnswerer
from citeline.answerers.layout import unit_text
from citeline.answerers.prompts import quote_messages
from citeline.answerers.ranking import Ranking

if TYPE_CHECKING:
    from citeline.agent.state import RunState

CANDIDATES = 8  # sentences offered to the model
_NUMBER = re.compile(r"\d+")


class QuoteTurn:
    """One question's selection turn: the messages to send and how to read the reply."""

    def __init__(self, planner: ExtractiveAnswerer, run: RunState, ranking: Ranking) -> None:
        self.planner, self.run, self.ranking = planner, run, ranking
        order = [int(i) for i in np.argsort(-ranking.overall, kind="stable")]
        prose = [i for i in dict.fromkeys(ranking.part_picks + order) if not ranking.units[i].is_code]
        self.candidates = prose[:CANDIDATES]
        offered = [(ranking.units[i].number, unit_text(ranking.units[i])) for i in self.candidates]
        self.messages = quote_messages(run, offered)

    def answer(self, reply: str) -> FinalAnswer:
        """The picked sentences quoted. A reply that is not the schema's JSON (a server without
        grammar support) is read for its numbers; numbers that were not offered are ignored."""
        try:
            numbers = [int(n) for n in json.loads(reply)["sentences"]]
        except (ValueError, KeyError, TypeError):
            numbers = [int(n) for n in _NUMBER.findall(reply)[:3]]
        chosen = [self.candidates[n - 1] for n in numbers if 1 <= n <= len(self.candidates)]
        # The model adds to the ranking's confident sentences but cannot drop them: a small model's
        # pick is often worse than the ranking (measured on the httpx eval set).
        picked = list(dict.fromkeys([self.ranking.lead, *chosen, *composition.confident(self.ranking)]))
        return self.planner.render(self.run, self.ranking, picked)


def next_step(planner: ExtractiveAnswerer, run: RunState) -> Action | QuoteTurn:
    """The plan's next tool call, a decline, or the selection turn once the evidence is in."""
    step = None if run.force_final else planner.next_tool(run)
    if step is not None:
        return step
    ranking = planner.rank(run)
    if isinstance(ranking, FinalAnswer):  # the passages do not cover the question
        return ranking
    return QuoteTurn(planner, run, ranking)
