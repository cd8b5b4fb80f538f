"""The `extractive` answerer: code decides every action and the answer quotes the documents.

It searches the question and its parts, opens the passages that cover the question best, and
answers with the most relevant sentences verbatim, each cited. It declines when the passages
do not cover the question's informative terms: retrieval always returns *something*, so the
decision to answer is made on what the passages actually contain.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from citeline.agent.actions import Action, FinalAnswer, ToolCall
from citeline.agent.answerer import Answerer, register_answerer
from citeline.agent.exits import DECLINE_MESSAGE
from citeline.agent.planning import split_parts
from citeline.agent.state import RunState
from citeline.answerers.injection import is_instruction
from citeline.config import Settings
from citeline.index.embedder import Embedder
from citeline.index.store import Passage
from citeline.retrieval import Retriever
from citeline.retrieval.evidence import (
    Coverage,
    KeyTerm,
    answer_type_terms,
    credit,
    key_terms,
    passage_text,
    present,
    vocabulary,
)
from citeline.text import Span, collapse_ws, segments

MAX_OPEN = 3
MAX_UNITS = 4  # sentences quoted in an answer (examples introduced by a sentence come along)
_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
SEARCH_TOP_K = 8  # a wider net than the default: coverage is judged on what comes back
MAX_PART_SEARCHES = 2


def unit_text(span: Span) -> str:
    """A sentence or list item as quoted in an answer (code in backticks, list marks dropped)."""
    if span.code and "`" not in span.text:
        return f"`{span.text}`"
    return collapse_ws(_LIST_MARK.sub("", span.text)).strip(" |")


@dataclass
class Ranking:
    units: list[tuple[int, Span]]  # (passage number [n], sentence)
    overall: np.ndarray  # each unit's relevance to the whole question
    part_picks: list[int]  # the best unit for each covered part of a multi-part question
    insufficiencies: list[dict[str, Any]]


class ExtractiveAnswerer(Answerer):
    """Code decides every action; the answer quotes the documents verbatim."""

    name = "extractive"

    def __init__(self, settings: Settings, embedder: Embedder) -> None:
        self.settings = settings
        self.embedder = embedder

    # --- actions -------------------------------------------------------------------------
    def decide(self, run: RunState) -> Action:
        if run.force_final:
            return self.compose(run)
        return self.next_tool(run) or self.compose(run)

    def next_tool(self, run: RunState) -> ToolCall | None:
        """The next search or open of the evidence-gathering plan, or None once it is done.

        Shared with model answerers that let code gather the evidence (see `local`).
        """
        question = run.standalone_query or run.question
        parts = split_parts(question)
        # A multi-part question is searched part by part (the whole question adds little then),
        # which leaves budget to open a passage per part.
        wanted = parts[:MAX_PART_SEARCHES] if len(parts) > 1 else [question]
        while len(wanted) < run.constraints.min_searches and len(wanted) < len(parts) + 1:
            wanted.append(parts[len(wanted) - 1])
        done = set(run.queries_tried)
        for query in wanted:
            if query not in done and run.tool_budget_left > 1:
                return ToolCall("search_docs", {"query": query, "top_k": SEARCH_TOP_K})
        opened = {(p.document_id, p.chunk_id) for p in run.opened}
        want_open = max(run.constraints.min_open_citations, min(MAX_OPEN, len(parts) + 1))
        for passage in self._choose(run, parts)[:want_open]:
            if (passage.document_id, passage.chunk_id) not in opened and run.tool_budget_left > 0:
                return ToolCall("open_citation", {"document_id": passage.document_id, "chunk_id": passage.chunk_id})
        return None

    def _choose(self, run: RunState, parts: list[str]) -> list[Passage]:
        """Passages to open: the best for the whole question, then the best for each part."""
        pool = run.retrieved()
        if not pool:
            return []
        coverage = Coverage(pool)
        question = run.standalone_query or run.question

        def rank(keys: list[KeyTerm]) -> list[Passage]:
            weights = coverage.weights(keys)
            total = sum(weights.values()) or 1.0
            scored = []
            for index, passage in enumerate(pool):
                covered = sum(weights[k.term] * coverage.credit(k.term, index) for k in keys) / total
                scored.append((0.6 * covered + 0.4 * passage.score, passage))
            scored.sort(key=lambda pair: -pair[0])
            return [p for _, p in scored]

        chosen: list[Passage] = []
        for keys in [key_terms(question)] + [key_terms(part) for part in parts if len(parts) > 1]:
            for passage in rank(keys)[:2]:
                if passage not in chosen:
                    chosen.append(passage)
                    break
        for passage in rank(key_terms(question)):
            if passage not in chosen:
                chosen.append(passage)
        return chosen

    # --- the answer ----------------------------------------------------------------------
    def uncovered(self, run: RunState) -> FinalAnswer | None:
        """A decline when the retrieved passages do not cover the question's informative terms.

        Also the gate in front of model answerers: a model asked to answer from passages that
        do not contain the answer tends to answer anyway.
        """
        question = run.standalone_query or run.question
        keys = key_terms(question)
        pool = run.retrieved()
        if not run.evidence() or not pool:
            return self._decline(run)
        pool_coverage = Coverage(pool)
        coverage, _ = pool_coverage.best(keys)
        if coverage < self.settings.answer_threshold:
            return self._decline(run, f"the documents do not mention: {self._missing(keys, pool)}")
        return None

    def compose(self, run: RunState) -> FinalAnswer:
        ranking = self.rank(run)
        if isinstance(ranking, FinalAnswer):
            return ranking
        return self.render(run, ranking, self.confident(ranking))

    @staticmethod
    def confident(ranking: Ranking) -> list[int]:
        """The units to quote: each part's best, then those close to the best overall."""
        picked = list(ranking.part_picks)
        overall = ranking.overall
        # Relative floor: keep sentences close to the best one, whatever the absolute scale.
        floor = max(0.25, 0.6 * float(overall.max()))
        for index in np.argsort(-overall, kind="stable"):
            if len(picked) >= MAX_UNITS:
                break
            if int(index) not in picked and overall[index] >= floor:
                picked.append(int(index))
        return picked

    def rank(self, run: RunState) -> Ranking | FinalAnswer:
        """The evidence's sentences scored against the question, or a decline."""
        declined = self.uncovered(run)
        if declined is not None:
            return declined
        evidence = run.evidence()
        question = run.standalone_query or run.question
        keys = key_terms(question)
        pool_coverage = Coverage(run.retrieved())
        parts = split_parts(question)
        units = self._units(evidence)
        if not units:
            return self._decline(run)
        vectors = self.embedder.embed([question, *parts, *[u[1].text for u in units]])
        q_vec, part_vecs, unit_vecs = vectors[0], vectors[1 : 1 + len(parts)], vectors[1 + len(parts) :]
        unit_vocab = [vocabulary(u[1].text) for u in units]

        question_vocab = vocabulary(question)
        # A unit that only repeats the question (an error message quoted back) answers nothing.
        novelty = np.array([
            min(1.0, len([t for t in v if t not in question_vocab]) / max(1, len(v)) * 2) for v in unit_vocab
        ])
        code_penalty = np.array([0.9 if u[1].code else 1.0 for u in units])

        def score(query_vec: np.ndarray, query_keys: list[KeyTerm]) -> np.ndarray:
            total = sum(k.weight for k in query_keys) or 1.0
            lexical = np.array([sum(k.weight * credit(k.term, v) for k in query_keys) / total for v in unit_vocab])
            base = 0.55 * (unit_vecs @ query_vec) + 0.45 * lexical
            scored: np.ndarray = base * (0.5 + 0.5 * novelty) * code_penalty
            return scored

        # For choosing sentences, the answer-type words ("default", "limit") matter too.
        overall = score(q_vec, keys + answer_type_terms(question))
        part_picks: list[int] = []
        insufficiencies: list[dict[str, Any]] = []
        if len(parts) > 1:
            for part, part_vec in zip(parts, part_vecs, strict=True):
                part_keys = key_terms(part)
                part_cov, _ = pool_coverage.best(part_keys)
                if part_cov < self.settings.answer_threshold:
                    insufficiencies.append({"section": part, "missing": f"no passage covers: {part}",
                                            "queries_tried": run.queries_tried})
                    continue
                for index in np.argsort(-score(part_vec, part_keys), kind="stable")[:2]:
                    if int(index) not in part_picks:
                        part_picks.append(int(index))
                        break
        return Ranking(units, overall, part_picks, insufficiencies)

    def render(self, run: RunState, ranking: Ranking, picked: list[int]) -> FinalAnswer:
        """The picked sentences verbatim, in document order, each cited."""
        units = ranking.units
        picked = self._with_followers(picked, units)
        lines = []
        for index in sorted(picked, key=lambda i: (units[i][0], units[i][1].start)):
            number, span = units[index]
            lines.append(f"- {unit_text(span)} [{number}]")
        if not lines:
            return self._decline(run)
        for line in lines:  # streamed as composed; the validated `final` event stays authoritative
            run.event("token", text=line + "\n")
        return FinalAnswer("\n".join(lines), ranking.insufficiencies)

    @staticmethod
    def _units(evidence: Sequence[Passage]) -> list[tuple[int, Span]]:
        units: list[tuple[int, Span]] = []
        for number, passage in enumerate(evidence, 1):
            for span in segments(passage.text):
                # An instruction planted in a document is never quoted (grounding rule 5).
                if len(span.text) >= 12 and not span.text.startswith(("```", "~~~")) and not is_instruction(span.text):
                    units.append((number, span))
        return units

    @staticmethod
    def _with_followers(picked: list[int], units: list[tuple[int, Span]]) -> list[int]:
        """A sentence that introduces an example ("...like so:") brings its first lines along."""
        result = list(picked)
        for index in picked:
            if units[index][1].text.rstrip().endswith((":", "...")):
                for follower in range(index + 1, min(index + 3, len(units))):
                    if units[follower][0] == units[index][0] and follower not in result:
                        result.append(follower)
        return result

    @staticmethod
    def _missing(keys: Sequence[KeyTerm], pool: Sequence[Passage]) -> str:
        vocab: set[str] = set().union(*(vocabulary(passage_text(p)) for p in pool))
        missing = [k.term for k in keys if not present(k.term, vocab)]
        return ", ".join(missing) or "a passage that answers the question"

    @staticmethod
    def _decline(run: RunState, missing: str = "a passage that answers the question") -> FinalAnswer:
        return FinalAnswer(DECLINE_MESSAGE, [{"section": "answer", "missing": missing,
                                              "queries_tried": run.queries_tried}])


def _factory(argument: str, settings: Settings, retriever: Retriever) -> ExtractiveAnswerer:
    return ExtractiveAnswerer(settings, retriever.embedder)


register_answerer("extractive", _factory)
