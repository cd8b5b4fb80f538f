"""The `extractive` answerer: code decides every action and the answer quotes the documents.

It searches the question (and its parts, and its key terms), opens the passages that cover the
question best, and writes the answer a person would: a lead sentence that answers directly (for
a value question, the sentence that holds the value), at most three supporting points, and for a
how-to question the one code example, whole. Every piece is a verbatim unit of the evidence — a
sentence, a whole list item or table row, a whole code block — and is cited. Which units are quoted
and how they read as an answer is `answerers.composition` (with `answerers.layout`); which sentence
leads, `answerers.lead_signals`; which code example is shown, `answerers.examples`; the signals the
decision to answer rests on, `answerers.gate_signals`.

Whether to answer at all is decided by the calibrated answerability model over signals that mean
the same on any corpus (`retrieval.answerability`): retrieval always returns *something*, so the
decision is made on what the passages actually contain.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from citeline.agent.actions import Action, FinalAnswer, ToolCall
from citeline.agent.answerer import Answerer, register_answerer
from citeline.agent.exits import DECLINE_MESSAGE
from citeline.agent.planning import key_term_query, split_parts, with_referent
from citeline.agent.state import RunState
from citeline.answerers import composition
from citeline.answerers.examples import block_under_named_tab, code_block, example_it_introduces
from citeline.answerers.gate_signals import dense_lift, gate_signals, value_unstated
from citeline.answerers.injection import is_instruction
from citeline.answerers.layout import (
    code_intro,
    is_command_line,
    needs_its_example,
    only_hands_over,
    only_labels_code,
    outside_named_tabs,
)
from citeline.answerers.lead_signals import (
    asked_about,
    lead_fitness,
    lead_signals,
    model_lead,
    rules_lead,
)
from citeline.answerers.ranking import Ranking, UnitVectors
from citeline.config import Settings
from citeline.index.embedder import Embedder, EmbedsTokens
from citeline.index.store import Passage
from citeline.retrieval import Retriever
from citeline.retrieval.alignment import alignment
from citeline.retrieval.answer_types import (
    asked_attribute,
    asked_in_words,
    asks_for_command,
    asks_for_shaped_value,
    asks_how_to,
    expected_types,
    kind_asked,
    tells_how,
)
from citeline.retrieval.answerability import AnswerabilityModel, shipped_model
from citeline.retrieval.evidence import (
    RARE_WEIGHT,
    Coverage,
    KeyTerm,
    answer_type_terms,
    credit,
    everyday,
    key_terms,
    passage_text,
    present,
    vocabulary,
)
from citeline.retrieval.focus import question_focus
from citeline.retrieval.lead import lead_model_from, shipped_lead_model
from citeline.retrieval.names import titled_names
from citeline.retrieval.opposites import opposed
from citeline.retrieval.units import (
    Unit,
    evidence_units,
    listed_under_see_also,
    only_points,
    under_see_also,
)

MAX_OPEN = 3
SEARCH_TOP_K = 8  # a wider net than the default: coverage is judged on what comes back
MAX_PART_SEARCHES = 2
# What a passage found only by the key-term search scores, relative to one found by the question
# itself, when choosing what to open: the reformulation finds passages worded unlike the question,
# and also passages about its rarer words alone.
FALLBACK_SEARCH_WEIGHT = 0.8
MAX_EMBEDDED = 20  # prose units embedded per answer (the lexically closest ones)
# A unit's relevance mixes its cosine to the question with its weighted share of the question's
# terms. Chosen with leave-one-corpus-out over the development sets (0.45-0.75 tried): every
# held-out set's best share on the other three was this one.
_COSINE_SHARE = 0.65
_PART_CONTEXT = 0.3  # share of a part's sentence score that comes from the whole question
# A part's pick must keep this share of the best sentence's relevance to the whole question: a
# sentence that matches the part's words alone answers another question ("what is the most it can
# be raised to?" under ATTACH is not "pow(X,Y) - Compute X raised to the power Y.").
_PART_FLOOR = 0.15


class ExtractiveAnswerer(Answerer):
    """Code decides every action; the answer quotes the documents verbatim."""

    name = "extractive"

    def __init__(self, settings: Settings, embedder: Embedder) -> None:
        self.settings = settings
        self.embedder = embedder
        self._fingerprint: str | None = None

    @property
    def fingerprint(self) -> str:
        """The name and the fitted models the answer is decided by: answers cached under a lead or
        answerability model are not served once another one (a refit, `lead_model`) is in use."""
        if self._fingerprint is None:
            gate = shipped_model() if self.settings.answerer.answerability == "model" else None
            models = [model.to_json() if model else None for model in (self._lead_model(), gate)]
            digest = hashlib.sha256(json.dumps(models).encode()).hexdigest()[:16]
            self._fingerprint = f"{self.name}:{digest}"
        return self._fingerprint

    # --- actions -------------------------------------------------------------------------
    def decide(self, run: RunState) -> Action:
        """The next search or open the question still needs, then the composed answer (at once when
        the budget is spent)."""
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
        # which leaves budget to open a passage per part. A single question is also searched by
        # its key terms, which finds passages worded unlike the question.
        if len(parts) > 1:
            wanted = [with_referent(part, parts[i - 1] if i else None) for i, part in enumerate(parts[:MAX_PART_SEARCHES])]
        else:
            wanted = [question]
        reformulated = key_term_query(question)
        if len(parts) == 1 and reformulated and reformulated.casefold() != question.casefold():
            wanted.append(reformulated)
        while len(wanted) < run.constraints.min_searches and len(wanted) < len(parts) + 1:
            wanted.append(parts[len(wanted) - 1])
        done = set(run.queries_tried)
        for query in wanted:
            # Compared as the search tool records a query (stripped): a search is never repeated.
            if query.strip() not in done and run.tool_budget_left > 1:
                return ToolCall("search_docs", {"query": query, "top_k": SEARCH_TOP_K})
        opened = {(p.document_id, p.chunk_id) for p in run.opened}
        want_open = max(run.constraints.min_open_citations, MAX_OPEN)
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
        found = _search_scores(run, key_term_query(question))

        def rank(keys: list[KeyTerm]) -> list[Passage]:
            weights = coverage.weights(keys)
            total = sum(weights.values()) or 1.0
            scored = []
            for index, passage in enumerate(pool):
                covered = sum(weights[k.term] * coverage.credit(k.term, index) for k in keys) / total
                score = found.get((passage.document_id, passage.chunk_id), passage.score)
                scored.append((0.6 * covered + 0.4 * score, passage))
            scored.sort(key=lambda pair: -pair[0])
            return [p for _, p in scored]

        whole = rank(key_terms(question))
        # The entry titled by the name of the thing asked about is about that very thing ("What does the
        # --test flag do?": the section "`--test`: run code examples as tests"), however many passages
        # on `--test-args` or `--test-builder` share more of its words.
        names = asked_about(question)
        if names:
            whole.sort(key=lambda passage: not names & titled_names(passage.section))
        chosen: list[Passage] = []
        for ranked in [whole] + [rank(key_terms(part)) for part in parts if len(parts) > 1]:
            for passage in ranked[:2]:
                if passage not in chosen:
                    chosen.append(passage)
                    break
        chosen.extend(passage for passage in whole if passage not in chosen)
        return chosen

    # --- the decision ----------------------------------------------------------------------
    def compose(self, run: RunState) -> FinalAnswer:
        """The answer from the evidence gathered so far, or a decline saying what is missing; also the
        grounded fallback the graph uses when a model's answer cannot be used."""
        ranking = self.rank(run)
        if isinstance(ranking, FinalAnswer):
            return ranking
        return self.render(run, ranking, composition.confident(ranking))

    def _answerable(self, ranking: Ranking) -> tuple[bool, float | None]:
        gate = self.settings.answerer.answerability
        if gate == "off":
            return True, None
        model = shipped_model() if gate == "model" else None
        if model is None:
            return ranking.features["coverage_passage"] >= self.settings.answerer.answer_threshold, None
        probability = model.probability(ranking.features, self.embedder.name)
        return probability >= model.threshold, round(probability, 4)

    def _lead_model(self) -> AnswerabilityModel | None:
        """The model that picks the lead sentence, or None to pick it by the hand-written rules."""
        chosen = self.settings.answerer
        if chosen.lead != "model":
            return None
        return lead_model_from(chosen.lead_model) if chosen.lead_model else shipped_lead_model()

    # --- ranking -------------------------------------------------------------------------
    def rank(self, run: RunState) -> Ranking | FinalAnswer:
        """The evidence's units scored against the question, or a decline."""
        evidence = run.evidence()
        pool = run.retrieved()
        question = run.standalone_query or run.question
        keys = key_terms(question)
        if not evidence or not pool:
            return self._decline(run, keys, pool)
        pool_coverage = Coverage(pool)
        parts = split_parts(question)
        # A follow-up's rewrite carries the previous question's words for searching; what is asked
        # is still the follow-up's own sentence ("and what about its environment variables?").
        focus = question_focus(run.question)
        how_to = asks_how_to(focus.text)
        units = _quotable_units(evidence, question, focus.text, how_to)
        if not any(not u.is_code for u in units):
            return self._decline(run, keys, pool)
        sections = [evidence[u.number - 1].section or "" for u in units]
        scorer = _UnitScorer(units, sections, vocabulary(question))
        lexical, score, novelty = scorer.lexical, scorer.score, scorer.novelty

        # Units are scored against what the question asks: terms it names only as what it does
        # not want ("instead of asyncio") earn nothing, and its asking sentence counts as much
        # as the whole question with its scene-setting.
        wanted = focus.keep(keys)
        asked_keys = focus.keep(key_terms(focus.text))
        focused = focus.differs_from(question)
        # For choosing sentences, the answer-type words ("default", "limit") matter too.
        question_lexical = lexical(wanted + answer_type_terms(question))
        unit_vecs = self._unit_vectors(units, question_lexical, parts, question, focus.text if focused else None,
                                       sections)
        cosine = unit_vecs.similarity(unit_vecs.query)

        overall = score(cosine, question_lexical)
        if unit_vecs.focus is not None:
            overall = 0.5 * overall + 0.5 * score(unit_vecs.similarity(unit_vecs.focus),
                                                  lexical(asked_keys + answer_type_terms(focus.text)))
        if how_to:
            # A how-to answer is an instruction: "You can ... by passing `x`", "Use ...".
            overall = overall * np.array([1.1 if not u.is_code and tells_how(u.text) else 1.0 for u in units])
        # A multi-part question leads with its first part's answer: the kind of value asked
        # there ("how many threads … and what do I set?": a number) is the one to lead with.
        asking = parts[0] if len(parts) > 1 else focus.text
        answer_type, attribute = expected_types(asking), asked_attribute(asking)
        prose = [i for i, u in enumerate(units) if not u.is_code]
        fitness = lead_fitness(units, answer_type, wanted, focus.text)
        # Likewise whether the lead should be something to do: "Is that a known limitation, and
        # what should I write instead?" leads with the limitation, the how-to part gets its point.
        lead_how_to = asks_how_to(parts[0]) if len(parts) > 1 else how_to
        lead_scores = overall * fitness
        lead = rules_lead(units, lead_scores, prose, answer_type, lead_how_to)
        signals = lead_signals(units, overall, cosine, unit_vecs.alignment, unit_vecs.heading, question_lexical,
                               lexical(asked_keys), novelty, fitness, lead, answer_type, wanted, focus.text, lead_how_to)
        # The rules' pick is one of the model's signals: it learns when the other signals should overrule it.
        lead_model = self._lead_model()
        if lead_model is not None:
            lead, lead_scores = model_lead(lead_model, signals, units, overall, prose, question, parts,
                                           lead_how_to, answer_type, attribute)

        def part_relevance(part_vec: np.ndarray, part_keys: list[KeyTerm]) -> np.ndarray:
            return score(unit_vecs.similarity(part_vec), lexical(focus.keep(part_keys)))

        part_picks, insufficiencies = self._part_picks(run, parts, unit_vecs.parts, part_relevance, pool_coverage,
                                                       units, overall, prose)
        code = _example_shown(units, evidence, overall, lead, question_lexical, question, focus.text, how_to)
        command_intro = (code_intro(units, code) if code is not None and asks_for_command(focus.text)
                         and is_command_line(units[code]) else None)
        ranking = Ranking(units, overall, part_picks, insufficiencies, lead_scores, lead, answer_type, code,
                          command_intro, cosine=cosine, shares=lead_model is not None)
        # Whether to answer is judged on what the documents must hold (see `Coverage.held`).
        held_keys = pool_coverage.held(keys)
        ranking.features = gate_signals(held_keys, pool_coverage.held(asked_keys), pool, pool_coverage, ranking,
                                        lexical(held_keys))
        ranking.features["lead_probability"] = round(float(lead_scores[lead]), 4) if lead_model else 0.0
        unstated = value_unstated(units, evidence, answer_type, attribute)
        ranking.features["value_unstated"] = float(unstated)
        lift = dense_lift(run.searches)
        if lift is not None:
            ranking.features["dense_lift"] = round(lift, 4)
        if self.settings.answerer.record_signals:
            ranking.recorded = [{"text": units[i].text, "signals": {k: round(float(v[i]), 4) for k, v in signals.items()}}
                                for i in prose]
        ranking.opposite = opposed(focus.text, units[lead].text)
        ranking.value_missing = (asks_for_shaped_value(answer_type, asking) and ranking.features["type_missing"] == 1.0
                                 and ranking.features["lead_type"] == 0.0)
        lacking = (f"no passage gives {asked_in_words(asking, kind_asked(answer_type))}"
                   if unstated or ranking.value_missing else None)
        return self._gatekeep(run, ranking, keys, pool, lacking)

    def _gatekeep(self, run: RunState, ranking: Ranking, keys: Sequence[KeyTerm], pool: Sequence[Passage],
                  lacking: str | None) -> Ranking | FinalAnswer:
        """`ranking` when the evidence answers the question, else the decline saying why (`lacking`:
        what the documents were found to lack, when known)."""
        # The closest sentence speaking of the opposite ("the longest bridge" for "the shortest")
        # shows the answer is not there, whatever the other signals say.
        if ranking.opposite is not None and self.settings.answerer.answerability != "off":
            asked, said = ranking.opposite
            decision = {"answer": False, "opposite": [asked, said], **ranking.record()}
            return self._decline(run, keys, pool, decision,
                                 said=f"the closest passage says “{said}” where the question asks “{asked}”")
        # Asked for a number, a duration, a measure or a date, evidence stating none does not answer
        # ("What port does blackd listen on by default?" against "… the host and port it's listening on").
        if ranking.value_missing and self.settings.answerer.answerability != "off":
            decision = {"answer": False, "value_missing": True, **ranking.record()}
            return self._decline(run, keys, pool, decision, lacking=lacking)
        answer, probability = self._answerable(ranking)
        if not answer:
            decision = {"answer": False, "probability": probability, **ranking.record()}
            # Every word found but the value never stated: say so, rather than "no passage answers".
            return self._decline(run, keys, pool, decision, lacking=lacking)
        return ranking

    def _part_picks(self, run: RunState, parts: list[str], part_vecs: np.ndarray,
                    relevance: Callable[[np.ndarray, list[KeyTerm]], np.ndarray], pool_coverage: Coverage,
                    units: list[Unit], overall: np.ndarray, prose: list[int]) -> tuple[list[int], list[dict[str, Any]]]:
        """The best unit for each part of a multi-part question, and the parts no passage covers."""
        part_picks: list[int] = []
        insufficiencies: list[dict[str, Any]] = []
        if len(parts) < 2:
            return part_picks, insufficiencies
        best_overall = max((float(overall[i]) for i in prose), default=0.0)
        for part, part_vec in zip(parts, part_vecs, strict=True):
            part_keys = key_terms(part)
            part_cov, _ = pool_coverage.best(part_keys)
            if part_cov < self.settings.answerer.answer_threshold:
                insufficiencies.append({"section": part, "missing": f"no passage covers: {part}",
                                        "queries_tried": run.queries_tried})
                continue
            # A part leans on the rest of the question ("… and what do I pass to make uv respect
            # it?"): part of its score is the whole question's, so "it" stays what was asked about.
            part_scores = (1 - _PART_CONTEXT) * relevance(part_vec, part_keys) + _PART_CONTEXT * overall
            part_type = expected_types(part)
            best = rules_lead(units, part_scores * lead_fitness(units, part_type, part_keys, part), prose, part_type,
                              asks_how_to(part))
            if best not in part_picks and overall[best] >= _PART_FLOOR * best_overall:
                part_picks.append(best)
        return part_picks, insufficiencies

    def _unit_vectors(self, units: list[Unit], lexical: np.ndarray, parts: list[str], question: str,
                      focus: str | None, sections: list[str]) -> UnitVectors:
        """Embeddings of the question, its parts, its focus (when it differs) and the units worth embedding.

        Embedding is most of an answer's cost, so only the prose units that share most with the
        question lexically are embedded (all of them for short evidence). A code block takes the
        similarity of the prose just before it: code embeds poorly next to a question in
        English, and it is shown for what the sentence introducing it says. From an embedder that
        gives token states, the same pass also yields how each embedded unit, and the heading it sits
        under (`sections`), aligns with the question word by word (`retrieval.alignment`)."""
        prose = [i for i, u in enumerate(units) if not u.is_code]
        chosen = sorted(sorted(prose, key=lambda i: -lexical[i])[:MAX_EMBEDDED])
        asked = [question, *parts, *([focus] if focus else [])]
        texts = [*asked, *[units[i].words for i in chosen]]
        aligned = np.zeros(len(units))
        heading = np.zeros(len(units))
        if isinstance(self.embedder, EmbedsTokens):
            titles = sorted({sections[i] for i in chosen if sections[i]})
            vectors, states = self.embedder.embed_with_tokens([*texts, *titles])
            aligned[chosen] = alignment(states[0], states[len(asked) : len(texts)])
            by_title = dict(zip(titles, alignment(states[0], states[len(texts) :]), strict=True))
            heading[chosen] = [by_title.get(sections[i], 0.0) for i in chosen]
            vectors = vectors[: len(texts)]
        else:
            vectors = self.embedder.embed(texts)
        matrix = np.zeros((len(units), vectors.shape[1]), dtype=np.float32)
        matrix[chosen] = vectors[len(asked) :]
        for index, unit in enumerate(units):
            if unit.is_code:
                before = [j for j in chosen if j < index and units[j].number == unit.number
                          and unit.block - units[j].block <= 2]
                if before:
                    matrix[index] = matrix[before[-1]]
        return UnitVectors(vectors[0], vectors[1 : 1 + len(parts)], matrix, aligned, heading,
                        vectors[1 + len(parts)] if focus else None)

    def render(self, run: RunState, ranking: Ranking, picked: list[int]) -> FinalAnswer:
        """The answer quoting the `picked` units (see `composition.render`), or a decline when none fits."""
        answer = composition.render(run, ranking, picked)
        if answer is None:
            return self._decline(run, key_terms(run.standalone_query or run.question), run.retrieved())
        return answer

    def _decline(self, run: RunState, keys: Sequence[KeyTerm], pool: Sequence[Passage],
                 decision: dict[str, Any] | None = None, said: str | None = None,
                 lacking: str | None = None) -> FinalAnswer:
        """The canned decline, saying why (`said`, else which of the question's terms the documents
        lack, else `lacking`: what they were found to lack) and what the nearest passages were about."""
        vocab: set[str] = set().union(*(vocabulary(passage_text(p)) for p in pool)) if pool else set()
        absent = [k for k in keys if not present(k.term, vocab)]
        # "the passages found do not mention: Mac, fails, taken, though, nothing, mine, grabbing" buries
        # what is missing under the asker's phrasing: everyday words are named only when alone. When
        # what the documents lack is known, only rare words are named before it ("no passage gives
        # a default for …" says more than "do not mention: choose").
        # The asker's own code ("mylist.append" in "{{ mylist.append(1) }}") is theirs to have, not
        # something the documents lack.
        missing = [k.shown for k in absent if (not lacking or k.weight >= RARE_WEIGHT) and not k.optional]
        missing = [word for word in missing if not everyday(word)] or missing
        nearest = list(dict.fromkeys(_place(p) for p in sorted(pool, key=lambda p: -p.score)[:2]))
        if said is None:
            # Only what the searches found was read: a word missing there may still be elsewhere in
            # the documents ("PowerShell" on another page), so the claim is about the passages found.
            said = (f"the passages found do not mention: {', '.join(missing)}" if missing
                    else lacking or "no passage answers the question directly")
        if nearest:
            said += f"; nearest: {'; '.join(nearest)}"
        return FinalAnswer(DECLINE_MESSAGE, [{"section": "answer", "missing": said,
                                              "queries_tried": run.queries_tried}], decision)


def _example_shown(units: list[Unit], evidence: list[Passage], overall: np.ndarray, lead: int,
                   question_lexical: np.ndarray, question: str, focus: str, how_to: bool) -> int | None:
    """The code block the answer shows under its lead: for a how-to, the example of what to do;
    otherwise the one the lead introduces, or, asked about one platform, that platform's tab."""
    if how_to:
        return code_block(units, overall, lead, question_lexical, asks_for_command(focus), question,
                          composition.continued_in(evidence, units[lead]))
    code = example_it_introduces(units, lead)
    if code is None:
        code = block_under_named_tab(units, overall, lead, question_lexical, question, value=True)
    return code


def _quotable_units(evidence: list[Passage], question: str, focus: str, how_to: bool) -> list[Unit]:
    """The evidence's units that can be quoted to this question (code blocks always can).

    A unit only pointing elsewhere (a bare link, "See Also: `parse(String, String)`") or made only
    of the question's own words ("PREFERRED_URL_SCHEME" for "What is the default
    PREFERRED_URL_SCHEME?") tells a reader nothing as a point; nor does "For example, to set headers
    on every request:" or "… simply run:" when no example is shown (not a how-to); nor "Signature:
    `send_push_promise(path)`" when no value is asked ("What happens if …", "do I need to install
    anything?"); nor a unit under a tab for another platform than the one named, nor anything in a
    "See also" section, note or list, a command to run included ("info msgmerge")."""
    question_vocab = vocabulary(question)
    asks_no_value = not how_to and not expected_types(focus)
    units = evidence_units(evidence)
    elsewhere = outside_named_tabs(question, units, evidence)
    elsewhere |= {i for i, unit in enumerate(units) if under_see_also(evidence[unit.number - 1].section)
                  or under_see_also(unit.label) or listed_under_see_also(evidence[unit.number - 1], unit)}
    return [u for i, u in enumerate(units) if i not in elsewhere and (u.is_code or not (
        is_instruction(u.text) or only_points(u.text, question_vocab) or vocabulary(u.text) <= question_vocab
        or (not how_to and (only_hands_over(u.words) or needs_its_example(u.text, question)))
        or (asks_no_value and only_labels_code(u.text))))]


class _UnitScorer:
    """Scores units against the question's words and meaning: the per-unit parts of a unit's
    relevance that do not depend on which words are asked (its vocabulary, the heading's, its
    novelty, whether it is code)."""

    def __init__(self, units: list[Unit], sections: list[str], question_vocab: frozenset[str]) -> None:
        self.unit_vocab = [vocabulary(f"{u.label or ''} {u.words}") for u in units]
        # The heading a unit sits under says what it is about ("Basic authentication"): it earns
        # part of the lexical credit, so the sentence in the right section wins over a look-alike.
        self.section_vocab = [vocabulary(section) for section in sections]
        # A unit that only repeats the question (an error message quoted back) answers nothing.
        self.novelty = np.array([
            min(1.0, len([t for t in v if t not in question_vocab]) / max(1, len(v)) * 2) for v in self.unit_vocab
        ])
        self.code_penalty = np.array([0.85 if u.is_code else 1.0 for u in units])

    def lexical(self, query_keys: list[KeyTerm]) -> np.ndarray:
        """Each unit's weighted share of `query_keys`, partly credited by the heading it sits under."""
        total = sum(k.weight for k in query_keys) or 1.0
        own = np.array([sum(k.weight * credit(k.term, v) for k in query_keys) / total for v in self.unit_vocab])
        under = np.array([sum(k.weight * credit(k.term, v) for k in query_keys) / total for v in self.section_vocab])
        mixed: np.ndarray = 0.8 * own + 0.2 * np.maximum(own, under)
        return mixed

    def score(self, similarity: np.ndarray, lexical_scores: np.ndarray) -> np.ndarray:
        """Relevance: meaning and words mixed, weighed down for repeating the question and for code."""
        mixed = _COSINE_SHARE * similarity + (1 - _COSINE_SHARE) * lexical_scores
        scored: np.ndarray = mixed * (0.5 + 0.5 * self.novelty) * self.code_penalty
        return scored


def _place(passage: Passage) -> str:
    """Where a passage sits, for a decline: its document and the heading it is under (once, when
    the document is named after that heading)."""
    heading = passage.section.split(" > ")[-1] if passage.section else ""
    return f"{passage.document_name} › {heading}" if heading and heading != passage.document_name else passage.document_name


def _search_scores(run: RunState, fallback_query: str) -> dict[tuple[str, str], float]:
    """Each retrieved passage's best search score, a score from the key-term search counting at
    `FALLBACK_SEARCH_WEIGHT`. Every search's scores are scaled to its own best, so the fallback's
    top passage scores as high as the question's own even when it matches only the rarer half of
    the question ("tool put environments Linux" for "Where does uv tool install put tool
    environments by default on Linux?" tops with a passage about resolution environments)."""
    best: dict[tuple[str, str], float] = {}
    for record in run.searches:
        weight = FALLBACK_SEARCH_WEIGHT if record.query == fallback_query else 1.0
        for passage in record.passages:
            key = (passage.document_id, passage.chunk_id)
            best[key] = max(best.get(key, 0.0), weight * passage.score)
    return best


def _factory(argument: str, settings: Settings, retriever: Retriever) -> ExtractiveAnswerer:
    return ExtractiveAnswerer(settings, retriever.embedder)


register_answerer("extractive", _factory)
