"""The `extractive` answerer: code decides every action and the answer quotes the documents.

It searches the question (and its parts, and its key terms), opens the passages that cover the
question best, and writes the answer a person would: a lead sentence that answers directly (for
a value question, the sentence that holds the value), at most three supporting points, and for a
how-to question the one code example, whole. Every piece is a verbatim unit of the evidence — a
sentence, a whole list item or table row, a whole code block — and is cited. How the picked units
are laid out as an answer is `answerers.layout`; which sentence leads, `answerers.lead_signals`; which
code example is shown, `answerers.examples`; the signals the decision to answer rests on,
`answerers.gate_signals`.

Whether to answer at all is decided by the calibrated answerability model over signals that mean
the same on any corpus (`retrieval.answerability`): retrieval always returns *something*, so the
decision is made on what the passages actually contain.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from citeline.agent.actions import Action, FinalAnswer, ToolCall
from citeline.agent.answerer import Answerer, register_answerer
from citeline.agent.exits import DECLINE_MESSAGE
from citeline.agent.planning import key_term_query, split_parts, with_referent
from citeline.agent.state import RunState
from citeline.answerers.examples import block_under_named_tab, code_block, example_it_introduces
from citeline.answerers.gate_signals import dense_lift, gate_signals, value_unstated
from citeline.answerers.injection import is_instruction
from citeline.answerers.layout import (
    MAX_POINTS,
    closed,
    code_intro,
    code_language,
    completion,
    exempt_from_budget,
    fit_to_budget,
    is_command_line,
    is_description,
    is_fragment,
    lead_paragraph,
    needs_its_example,
    only_hands_over,
    only_labels_code,
    outside_named_tabs,
    premise,
    says_same,
    shows_the_prose,
    unit_text,
    untied,
)
from citeline.answerers.lead_signals import (
    CONTENDER,
    asked_about,
    lead_fitness,
    lead_signals,
    model_lead,
    rules_lead,
)
from citeline.answerers.ranking import Ranking, UnitVectors
from citeline.config import Settings
from citeline.documents.builder import item_name
from citeline.index.embedder import Embedder, EmbedsTokens
from citeline.index.store import Passage
from citeline.retrieval import Retriever
from citeline.retrieval.alignment import alignment
from citeline.retrieval.answer_types import (
    AnswerType,
    AnswerTypes,
    asked_attribute,
    asked_phrase,
    asks_for_command,
    asks_how_to,
    expected_types,
    holds,
    kind_asked,
    states_default,
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
from citeline.retrieval.names import name_forms, titled_names
from citeline.retrieval.opposites import opposed
from citeline.retrieval.units import (
    VERSION_NOTE,
    Unit,
    evidence_units,
    is_a_name,
    is_bare_link,
    item_sentences,
    shows_code,
)
from citeline.text import code_fence, collapse_ws, fold, terms

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
_MAX_NAME_CHARS = 40  # a described thing's name short enough to lead its value's sentence
# A sentence speaking of the thing it describes without naming it ("if this flag is set", "This setting …").
_REFERS_TO_ITS_THING = re.compile(
    r"\bthis\s+(?:flag|option|setting|variable|parameter|argument|attribute|field|key|value|command|switch|lint"
    r"|rule|check|hook|directive|function|method|class|macro|decorator|property|filter|fixture|marker)\b",
    re.IGNORECASE)
# With the lead model, a supporting point has at least this share of the lead's share of P(holds
# the answer). 0.15 answered one question more over the ten development sets but lengthened the
# answers (median words httpx 32 → 38, starlette 40 → 46).
_POINT_SHARE = 0.2
# With the hand-written rules, a supporting point scores at least this share of the lead's relevance
# (0.65-0.85 tried: lower adds answers on every set and words to every answer) ...
_POINT_FLOOR = 0.75
# ... and at least this share of the lead's rule score: a sentence the rules all but rule out is
# filler, however many words it shares with the question.
_PREFERENCE_FLOOR = 0.1
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
        return self.render(run, ranking, self.confident(ranking))

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
        question_vocab = vocabulary(question)
        # A follow-up's rewrite carries the previous question's words for searching; what is asked
        # is still the follow-up's own sentence ("and what about its environment variables?").
        focus = question_focus(run.question)
        how_to = asks_how_to(focus.text)
        # A bare link, or a unit made only of the question's own words ("PREFERRED_URL_SCHEME" for
        # "What is the default PREFERRED_URL_SCHEME?"), tells a reader nothing as a point; nor does
        # "For example, to set headers on every request:" or "… simply run:" when no example is shown
        # (not a how-to); nor "Signature: `send_push_promise(path)`" when no value is asked ("What
        # happens if …", "do I need to install anything?").
        asks_no_value = not how_to and not expected_types(focus.text)
        units = evidence_units(evidence)
        elsewhere = outside_named_tabs(question, units, evidence)
        units = [u for i, u in enumerate(units) if i not in elsewhere and (u.is_code or not (
            is_instruction(u.text) or is_bare_link(u.text) or vocabulary(u.text) <= question_vocab
            or (not how_to and (only_hands_over(u.words) or needs_its_example(u.text, question)))
            or (asks_no_value and only_labels_code(u.text))))]
        if not any(not u.is_code for u in units):
            return self._decline(run, keys, pool)
        unit_vocab = [vocabulary(f"{u.label or ''} {u.words}") for u in units]
        # The heading a unit sits under says what it is about ("Basic authentication"): it earns
        # part of the lexical credit, so the sentence in the right section wins over a look-alike.
        sections = [evidence[u.number - 1].section or "" for u in units]
        section_vocab = [vocabulary(section) for section in sections]
        # A unit that only repeats the question (an error message quoted back) answers nothing.
        novelty = np.array([
            min(1.0, len([t for t in v if t not in question_vocab]) / max(1, len(v)) * 2) for v in unit_vocab
        ])
        code_penalty = np.array([0.85 if u.is_code else 1.0 for u in units])

        def lexical(query_keys: list[KeyTerm]) -> np.ndarray:
            total = sum(k.weight for k in query_keys) or 1.0
            own = np.array([sum(k.weight * credit(k.term, v) for k in query_keys) / total for v in unit_vocab])
            under = np.array([sum(k.weight * credit(k.term, v) for k in query_keys) / total for v in section_vocab])
            mixed: np.ndarray = 0.8 * own + 0.2 * np.maximum(own, under)
            return mixed

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

        def score(similarity: np.ndarray, lexical_scores: np.ndarray) -> np.ndarray:
            mixed = _COSINE_SHARE * similarity + (1 - _COSINE_SHARE) * lexical_scores
            scored: np.ndarray = mixed * (0.5 + 0.5 * novelty) * code_penalty
            return scored

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
        if how_to:
            code = code_block(units, overall, lead, question_lexical, asks_for_command(focus.text), question,
                              _continued_in(evidence, units[lead]))
        else:
            code = example_it_introduces(units, lead)
            if code is None:  # asked about one platform, the answer is often its tab's block
                code = block_under_named_tab(units, overall, lead, question_lexical, question, value=True)
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
        # The closest sentence speaking of the opposite ("the longest bridge" for "the shortest")
        # shows the answer is not there, whatever the other signals say.
        ranking.opposite = opposed(focus.text, units[lead].text)
        if ranking.opposite is not None and self.settings.answerer.answerability != "off":
            asked, said = ranking.opposite
            decision = {"answer": False, "opposite": [asked, said], **ranking.record()}
            return self._decline(run, keys, pool, decision,
                                 said=f"the closest passage says “{said}” where the question asks “{asked}”")
        answer, probability = self._answerable(ranking)
        if not answer:
            decision = {"answer": False, "probability": probability, **ranking.record()}
            # Every word found but the value never stated: say so, rather than "no passage answers".
            lacking = f"no passage gives {kind_asked(answer_type)} for “{asked_phrase(asking)}”" if unstated else None
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

    # --- the answer ----------------------------------------------------------------------
    @staticmethod
    def confident(ranking: Ranking) -> list[int]:
        """The units to quote: the lead, each part's best, then the units likeliest after the lead to
        hold the answer while the answer stays short. Code is added by `render`, never as a point.

        Asked which command to run, a reader wants the command: a block from a passage no point quotes
        is shown only under the sentence introducing it, so that sentence comes first after the lead and
        the parts' picks (before a point it may say the same as)."""
        picked = ExtractiveAnswerer._likeliest(ranking)
        intro, code = ranking.command_intro, ranking.code
        if intro is None or code is None or intro in picked or any(
                ranking.units[i].number == ranking.units[code].number for i in picked):
            return picked
        fixed = 1 + sum(1 for i in picked[1:] if i in ranking.part_picks)
        return [*picked[:fixed], intro, *picked[fixed:]][: MAX_POINTS + 1]

    @staticmethod
    def _likeliest(ranking: Ranking) -> list[int]:
        """The lead, each part's best, then the units likeliest to hold the answer (see `confident`)."""
        picked = [ranking.lead]
        for index in ranking.part_picks:
            if index not in picked:
                picked.append(index)
        preference = ranking.preference
        if ranking.shares:
            # The model's shares say how likely each sentence is to hold the answer: should the lead
            # be wrong, the next likeliest are. Chosen by relevance to the question instead, the
            # points were sentences sharing its words ("The `PERMANENT_SESSION_LIFETIME` config can be
            # an integer or `timedelta`.") and crowded out the one the model nearly led with ("The
            # default is 31 days."): over ten development sets, 10 questions gained and 2 lost, the
            # median answer within 3 words of before.
            floor = _POINT_SHARE * float(preference[ranking.lead])
            said = [unit_text(ranking.units[i]) for i in picked]
            for index in np.argsort(-preference, kind="stable"):
                if len(picked) > MAX_POINTS or preference[index] < floor:
                    break
                unit = ranking.units[int(index)]
                # A sentence saying what one picked says would be left out of the answer anyway
                # (`fit_to_budget`): it must not take the place of the next likeliest.
                if int(index) in picked or unit.is_code or any(says_same(unit_text(unit), text) for text in said):
                    continue
                picked.append(int(index))
                said.append(unit_text(unit))
            return picked
        overall = ranking.overall
        # A point must be nearly as relevant as the lead: a reader wants the answer, then only
        # what adds to it, not every sentence that shares a word with the question. Points are offered
        # in the rules' order and must be nearly as good as the lead by it too; the first offered,
        # the runner-up, needs no relevance floor when it all but ties the lead.
        floor = max(0.3, _POINT_FLOOR * float(overall[ranking.lead]))
        preference_floor = _PREFERENCE_FLOOR * float(preference[ranking.lead])
        runner_up = True
        for index in np.argsort(-preference, kind="stable"):
            if len(picked) > MAX_POINTS:
                break
            if int(index) in picked or ranking.units[int(index)].is_code:
                continue
            contender = runner_up and preference[index] >= CONTENDER * preference[ranking.lead]
            if (overall[index] >= floor or contender) and preference[index] >= preference_floor:
                picked.append(int(index))
            runner_up = False
        return picked

    @staticmethod
    def close_contender(ranking: Ranking, picked: Sequence[int]) -> int | None:
        """The point the lead model all but ties with the lead (half its share or more), which the word
        budget may not cut: after a long lead the budget would otherwise drop the likelier sentence and
        keep shorter, less likely ones. Over ten development sets this gained seven answers (a long
        lead from one passage, the answer in the runner-up from another) and lost none; the median
        answer grew by 0-6 words."""
        if not ranking.shares:
            return None
        preference = ranking.preference
        # (`confident` never picks code, so every candidate here is prose.)
        contender = max((i for i in picked[1:] if i not in ranking.part_picks), key=lambda i: preference[i], default=None)
        if contender is None or preference[contender] < CONTENDER * preference[ranking.lead]:
            return None
        return contender

    def render(self, run: RunState, ranking: Ranking, picked: list[int]) -> FinalAnswer:
        """The lead paragraph, the supporting points (in reading order) and the code example."""
        units = ranking.units
        question = run.standalone_query or run.question
        exempt = exempt_from_budget(units, picked, ranking.part_picks, ranking.answer_type, question)
        contender = self.close_contender(ranking, picked)
        if contender is not None:
            exempt.append(contender)
        if ranking.command_intro in picked:
            exempt.append(ranking.command_intro)
        chosen, items = fit_to_budget(units, picked, exempt, ranking.code)
        if not chosen:
            return self._decline(run, key_terms(question), run.retrieved())
        lead = chosen[0]
        continued = _continued_in(run.evidence(), units[lead])
        shown = ranking.code if ranking.code is not None and (
            shows_the_prose(units[ranking.code], [units[i] for i in chosen])
            or (continued is not None and units[ranking.code].number == continued[0])) else None
        if shown is not None and any(shows_code(units[i], units[shown]) for i in chosen):
            shown = None  # a sentence quoted already shows it as a code span
        intro = code_intro(units, shown)

        def said(index: int, text: str) -> str:
            # A colon leading to nothing shown leaves the reader hanging: the sentence ends where its statement does.
            return text if items.get(index) or index == intro else closed(text)

        paragraph, used = lead_paragraph(units, lead, said(lead, self._lead_text(units[lead], ranking.answer_type)),
                                         ranking.answer_type)
        # Each line of the answer starts afresh: "However, …" would answer a sentence the reader never saw.
        paragraph = untied(paragraph)
        listed = {i for under in items.values() for i in under}
        # A point whose object is an example not shown says nothing: "For one-time activation, use."
        points = sorted((i for i in chosen[1:] if i not in listed and i not in used
                         and (items.get(i) or i == intro or not needs_its_example(units[i].text, question))),
                        key=lambda i: (units[i].number, units[i].start))
        # A point the lead or another point shows whole says nothing new: the bare name of an option
        # whose description a point shows under that name ("--pretty" beside "--pretty - This flag …").
        shown_as = {i: _point_text(units[i], ranking.answer_type, units[lead].described)
                    for i in [*items[lead], *points]}
        points = [i for i in points if not any(j != i and shown_as[i] in shown_as[j] for j in points)
                  and shown_as[i] not in paragraph]
        # Once the lead states the asked value of what the question asks about, a point stating that kind
        # of value of another named thing is no answer to it ("How many times is a job retried by
        # default?" — "`HARBOR_JOB_TIMEOUT`: default 300"). A lead on another thing than the question
        # names may be the wrong one, and then such points are what a reader needs: they stay. Over
        # fifteen sets no answer lost its gold string; four answers lost a point (mypy my-002, pip
        # pip-034, sqlite sq-025 and the sample corpus's retry question).
        lead_thing = _thing(units[lead])
        if holds(_values(ranking.answer_type), paragraph) and (lead_thing is None or _named(lead_thing, question)):
            points = [i for i in points if not _value_of_another(units[i], ranking.answer_type, question, lead_thing)]
        # The sentence handing over to the example shown ("Set `ignore-vcs` to `true` to disable this
        # behavior:") comes right before it: the last point, or the lead with the example after it.
        example_after_lead = shown is not None and (intro == lead or intro in used)
        if intro in points:  # (intro is None when no example is shown)
            points.remove(intro)
            points.append(intro)
        # A point leaning on the sentence before it ("It replaces the `Flask.run` method …") is quoted
        # after that sentence, in one line: alone it would not say what it is about. A point led by a
        # name says what it is about; a point leaning on the point before it joins that one's line.
        quoted = {lead, *used, *points, *(i for under in items.values() for i in under)}
        # Only a point shown as it stands joins other sentences (one under a name is a line of its own).
        plain = {i for i in [*items[lead], *points] if shown_as[i] == unit_text(units[i])}
        premises = {i: premise(units, i, quoted - ({i - 1} & set(points))) if i in plain else None
                    for i in [*items[lead], *points]}
        follows = {i for i in points if premises[i] == i - 1 and i - 1 in points}
        points = [i for i in points if i not in follows]

        def point(index: int) -> str:
            before = premises[index]
            chain = [*([before] if before is not None else []), index]
            while chain[-1] + 1 in follows:
                chain.append(chain[-1] + 1)
            # A sentence completing the point's thought ("Otherwise, the string is returned.") follows
            # it, as one follows the lead.
            after = completion(units, chain[-1]) if index in plain else None
            if after is not None and after not in quoted:
                chain.append(after)
            said_as = [said(i, shown_as.get(i) or unit_text(units[i])) for i in chain]
            return " ".join(f"{untied(text) if k == 0 else text} [{units[i].number}]"
                            for k, (i, text) in enumerate(zip(chain, said_as, strict=True)))

        bullets = [(i, 0) for i in items[lead]]
        for index in points:
            bullets.append((index, 0))
            bullets.extend((i, 1) for i in items[index])
        example: list[str] = []
        if shown is not None:
            block = units[shown]
            # A note's kind or a tab's title is no language: the fence would read "```Note".
            fence = code_fence(block.text)
            example = ["", f"{fence}{code_language(block)}", block.text, fence, f"[{block.number}]"]
        lines = [paragraph, *(example if example_after_lead else [])]
        if bullets:
            lines.append("")
            lines.extend(f"{'  ' * depth}- {point(i) if depth == 0 else f'{unit_text(units[i])} [{units[i].number}]'}"
                         for i, depth in bullets)
        if not example_after_lead:
            lines.extend(example)
        answer = "\n".join(lines)
        run.event("token", text=answer)  # streamed whole; the validated `final` event stays authoritative
        decision: dict[str, Any] = {"answer": True, **ranking.record()}
        if ranking.opposite is not None:  # answered only because the gate is off: recorded for fitting
            decision["opposite"] = list(ranking.opposite)
        return FinalAnswer(answer, ranking.insufficiencies, decision)

    @staticmethod
    def _lead_text(unit: Unit, answer_type: AnswerTypes) -> str:
        """The lead as one sentence. A list item or row whose value sits in a later sentence
        leads with its name and that sentence ("`max_age` - Defaults to 2 weeks."; asked for a
        default, the sentence saying what the default is), so the asked value is in the first
        sentence a reader sees; a sentence stating the value of the thing it describes without
        naming it leads with that thing's name."""
        text = unit_text(unit)
        named = _under_its_name(unit, text, answer_type)
        if named is not None or not answer_type:
            return named or text
        if unit.kind not in ("list_item", "table_row"):
            return text
        sentences = item_sentences(unit)
        if len(sentences) < 2:
            return text
        # Asked for a default, the sentence saying what the default is answers ("The default value is
        # 50."), not the first one holding a number ("… consolidates them into one larger pack.").
        stating = [s for s in sentences if states_default(answer_type, s)]
        if stating and not states_default(answer_type, sentences[0]):
            holding: str | None = stating[0]
        elif holds(answer_type, sentences[0]):
            return text
        else:
            holding = next((s for s in sentences[1:] if holds(answer_type, s)), None)
        name = unit.label if unit.kind == "list_item" else _row_name(unit)
        if holding is None or not name:
            return text
        return f"{name} - {collapse_ws(holding)}" if name not in holding else collapse_ws(holding)

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


def _under_its_name(unit: Unit, text: str, answer_type: AnswerTypes = ()) -> str | None:
    """The unit's text led by the name of the thing it describes, when it says something of that
    thing without naming it, else None.

    "The default limit is -1." in the description of `--soft-error-limit N`, or "default: `normal`"
    in a setting's fields, says whose value it is only under that name ("--soft-error-limit N - The
    default limit is -1."), as does any sentence speaking of "this flag" ("This flag makes mypy raise
    an error instead." — which flag?), and a description that is no sentence ("Makes stubtest's
    output more concise, one line per error" — what does?) or a noun phrase only ("The server's
    hostname, which is used to confirm …" — of what?). Not a sentence whose value is a name of
    its own ("… use the `--strict` flag"): the described name would read as the answer. A long
    signature is no name to read first."""
    name = unit.described
    if not name or len(name) > _MAX_NAME_CHARS:
        return None
    values = tuple(t for t in answer_type if t not in (AnswerType.NAME, AnswerType.PLACE))
    if not ((values and holds(values, text)) or _REFERS_TO_ITS_THING.search(text)
            or ((is_fragment(text) or is_description(text) or VERSION_NOTE.match(text)) and is_a_name(name))):
        return None
    # An option is named only as written: "This flag will run your code examples as tests." does not
    # name `--test` (the word "tests" does not), nor does "See also `--test-args`".
    options = [form.split()[0] for form in name_forms(name) if form.startswith("-")]
    if options:
        if any(re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", fold(text)) for option in options):
            return None
    elif any(present(term, vocabulary(text)) for term in terms(name) if len(term) >= 3):
        return None
    return f"{name} - {text}"


def _continued_in(evidence: Sequence[Passage], unit: Unit) -> tuple[int, int] | None:
    """The [n] of the passage its document goes on with after `unit`'s passage, and how many blocks
    of `unit`'s passage come after it; None when that passage is not in the evidence or opens
    another section than a part of `unit`'s (the next section's example shows the next thing)."""
    passage = evidence[unit.number - 1]
    for number, other in enumerate(evidence, 1):
        if other.document_id == passage.document_id and other.chunk_index == passage.chunk_index + 1:
            within = (passage.section is None or other.section == passage.section
                      or (other.section or "").startswith(f"{passage.section} > "))
            return (number, max(len(passage.blocks) - 1 - unit.block, 0)) if within else None
    return None


def _point_text(unit: Unit, answer_type: AnswerTypes, lead_describes: str | None) -> str:
    """A supporting point as shown: its text, led by the name of the thing it describes when it
    states the asked kind of value or speaks of "this option" without naming it ("default: `True`"
    in the fields of another setting than the lead's says whose default only under its name). A
    point on the thing the lead describes needs no name: the lead's is the reader's context."""
    text = unit_text(unit)
    if unit.described == lead_describes:
        return text
    return _under_its_name(unit, text, answer_type) or text


_SECTION_PREFIX = re.compile(r"^\s*\[[^\]]*\]\s*")  # "[report] " before a setting's name
_ROW_SUBJECT = re.compile(r"^[^:;]{1,40}:\s*(`[^`]{1,80}`|[^;]{1,80}?);")


def _values(answer_type: AnswerTypes) -> AnswerTypes:
    """The kinds of value asked for, when the question asks for values and not for a name."""
    if AnswerType.NAME in answer_type:
        return ()
    return tuple(t for t in answer_type if t is not AnswerType.PLACE)


def _row_name(unit: Unit) -> str | None:
    """What a table row names: its first cell. A row's label is its table's header ("Variable |
    Default | Meaning"), and its text gives each cell under its column's name ("Variable:
    `HARBOR_JOB_TIMEOUT`; Default: `300`; …"); a two-column row reads "name: value"."""
    match = _ROW_SUBJECT.match(unit_text(unit)) if unit.label else None
    return match.group(1) if match else item_name(unit.text)


def _thing(unit: Unit) -> str | None:
    """The name of the thing a unit describes: the option or setting whose body it sits in, a row's first cell."""
    if unit.described is None and unit.kind == "table_row":
        return _row_name(unit)
    return unit.described


def _named(name: str, question: str) -> bool:
    """Whether the question names the thing (by the name's head: a signature's function, an option's
    flag, a setting's name after its file section: `precision` of "[report] precision")."""
    head = terms(_SECTION_PREFIX.sub("", name))[:1]
    return not head or present(head[0], vocabulary(question))


def _value_of_another(unit: Unit, answer_type: AnswerTypes, question: str, lead_thing: str | None) -> bool:
    """Whether a point states the asked kind of value of a named thing the question does not name."""
    values = _values(answer_type)
    if not values or not holds(values, unit_text(unit)):
        return False
    name = _thing(unit)
    return name is not None and name != lead_thing and not _named(name, question)


def _factory(argument: str, settings: Settings, retriever: Retriever) -> ExtractiveAnswerer:
    return ExtractiveAnswerer(settings, retriever.embedder)


register_answerer("extractive", _factory)
