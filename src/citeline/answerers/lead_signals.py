"""How the extractive answerer chooses the sentence to lead with: the hand-written rules' fitness of
each unit as a first sentence and their pick, each candidate's signals for the fitted lead model
(`retrieval.lead`), the model's pick, and the overrides applied when that model is unsure."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from citeline.answerers.layout import only_introduces
from citeline.retrieval.answer_types import (
    AnswerType,
    AnswerTypes,
    asks_for_value,
    asks_how_to,
    expected_types,
    holds,
    new_values,
    states_default,
    states_value,
    tells_how,
)
from citeline.retrieval.answerability import AnswerabilityModel
from citeline.retrieval.evidence import KeyTerm
from citeline.retrieval.lead import LEAD_SIGNALS, lead_shares
from citeline.retrieval.names import asked_names, name_forms
from citeline.retrieval.units import Unit
from citeline.text import fold, is_name, stem

_UNDECIDED = 0.8  # share of the lead's preference at which the lead model is taken to be undecided
CONTENDER = 0.5  # share of the lead's preference at which the runner-up is quoted however relevant
CHANGELOG_ENTRY = re.compile(r"\(?#\d{2,}\)?\.?\s*$")  # "Allow `Request.form()` as a context manager #1903."
_COUNTED = re.compile(r"\b\d[\d,.]*\s+([^\W\d_]+)")


def lead_fitness(units: Sequence[Unit], answer_type: AnswerTypes, keys: Sequence[KeyTerm],
                 question: str) -> np.ndarray:
    """How well each unit would read as the first sentence, beyond its relevance.

    - A sentence that only introduces what follows it (ends with a colon) or a release-notes entry
      ("… #1903") says less on its own.
    - When the question asks for something to name (not yes/no, not why, not a count or a
      duration), a sentence naming a concrete value the question does not already hold ("uv was
      installed into `~/.cargo/bin`") answers it, where one echoing the question's words only
      describes the topic. Asked how many times a job is retried, a row naming some other setting
      (`HARBOR_JOB_TIMEOUT`, `300`) is not the answer: the count is.
    - For a how-many question, a number counting the thing asked about ("40 threads") is the answer.
    """
    counted_terms = {k.term for k in keys}
    wants_value = asks_for_value(question)
    wants_number = _asks_count(answer_type)
    fitness = np.ones(len(units))
    for index, unit in enumerate(units):
        text = unit.text.strip()
        if only_introduces(text) or CHANGELOG_ENTRY.search(text):
            fitness[index] *= 0.85
        if wants_value and not wants_number and holds(answer_type, text) and new_values(text, question):
            fitness[index] *= 1.2
        if wants_number and _counts(text, counted_terms):
            fitness[index] *= 1.1
    return fitness


def _asks_count(answer_type: AnswerTypes) -> bool:
    """Whether the question asks how many, how long or how far (a number, a duration or a measure)."""
    return bool({AnswerType.NUMBER, AnswerType.COUNT, AnswerType.DURATION, AnswerType.MEASURE} & set(answer_type))


def _counts(text: str, terms: set[str]) -> bool:
    """Whether a number in `text` counts one of `terms` ("40 threads" for "how many threads")."""
    return any(stem(fold(m.group(1))) in terms or fold(m.group(1)) in terms for m in _COUNTED.finditer(text))


def unless_unsure(lead: int, kind: np.ndarray, preference: np.ndarray, overall: np.ndarray, prose: Sequence[int],
                  share: float) -> int:
    """`lead`, or, when it is not of the `kind` a reader wants (`kind[i]` true) and a unit of that kind
    has `share` of the lead's preference or more and half its relevance, the likeliest such unit."""
    if kind[lead]:
        return lead
    rivals = [i for i in prose if kind[i] and preference[i] >= share * preference[lead]
              and overall[i] >= CONTENDER * overall[lead]]
    return max(rivals, key=lambda i: preference[i], default=lead)


def spread(values: np.ndarray, where: Sequence[int], size: int) -> np.ndarray:
    """An array of `size` zeros with `values` put at the positions `where`."""
    result = np.zeros(size)
    result[list(where)] = values
    return result


def lead_signals(units: Sequence[Unit], overall: np.ndarray, cosine: np.ndarray, aligned: np.ndarray,
                 heading: np.ndarray, lexical: np.ndarray, focus_lexical: np.ndarray, novelty: np.ndarray,
                 fitness: np.ndarray, rules_pick: int,
                 answer_type: AnswerTypes, keys: Sequence[KeyTerm], question: str, how_to: bool) -> dict[str, np.ndarray]:
    """Each unit's lead signals (`citeline.retrieval.lead.LEAD_SIGNALS`), one array per signal."""
    count = len(units)
    prose = [i for i, u in enumerate(units) if not u.is_code]
    best = max((float(overall[i]) for i in prose), default=0.0) or 1.0
    order = np.empty(count)
    for place, index in enumerate(sorted(range(count), key=lambda i: (units[i].is_code, -overall[i]))):
        order[index] = place
    counted_terms = {k.term for k in keys}
    wants_value = asks_for_value(question)
    wants_number = _asks_count(answer_type)

    def each(rule: Any) -> np.ndarray:
        return np.array([float(rule(u)) for u in units])

    def neighbour(step: int) -> np.ndarray:
        near = np.zeros(count)
        for index in range(count):
            other = index + step
            if 0 <= other < count and units[other].number == units[index].number and not units[other].is_code:
                near[index] = overall[other] / best
        return near

    signals = {
        "relevance": overall,
        "relative": overall / best,
        "rank": 1.0 / (1.0 + order),
        "cosine": cosine,
        "alignment": aligned,
        "heading": heading,
        "lexical": lexical,
        "focus": focus_lexical,
        "novelty": novelty,
        "type_held": each(lambda u: bool(answer_type) and holds(answer_type, u.text)),
        "new_value": each(lambda u: wants_value and bool(new_values(u.text, question))),
        "counted": each(lambda u: wants_number and _counts(u.text, counted_terms)),
        "instruction": each(lambda u: how_to and tells_how(u.text)),
        "introduces": each(lambda u: only_introduces(u.text.strip())),
        "changelog": each(lambda u: bool(CHANGELOG_ENTRY.search(u.text.strip()))),
        "first": each(lambda u: u.first_in_block),
        "item": each(lambda u: u.kind in ("list_item", "table_row")),
        "passage": each(lambda u: 1.0 / u.number),
        "words": each(lambda u: np.log1p(len(u.text.split()))),
        "before": neighbour(-1),
        "after": neighbour(1),
        "fitness": np.log(fitness),
        "rules": np.array([float(i == rules_pick) for i in range(count)]),
    }
    assert tuple(signals) == LEAD_SIGNALS
    return signals


def rules_lead(units: list[Unit], overall: np.ndarray, prose: list[int], answer_type: AnswerTypes,
               how_to: bool = False) -> int:
    """The unit to lead with: the best-scoring prose unit, or — when the question asks for a
    kind of value — the best one close to it that holds such a value. A how-to question
    asking for no particular value wants something to do: a command, option or call."""
    def fits(text: str) -> bool:
        if answer_type or not how_to:
            return holds(answer_type, text)
        return tells_how(text) and not CHANGELOG_ENTRY.search(text)

    best = max(prose, key=lambda i: overall[i])
    if fits(units[best].text):
        return best
    close = [i for i in prose if overall[i] >= 0.7 * overall[best] and fits(units[i].text)]
    return max(close, key=lambda i: overall[i]) if close else best


def model_lead(lead_model: AnswerabilityModel, signals: dict[str, np.ndarray], units: list[Unit],
                overall: np.ndarray, prose: list[int], question: str, parts: list[str], lead_how_to: bool,
                answer_type: AnswerTypes, attribute: tuple[str, ...]) -> tuple[int, np.ndarray]:
    """The lead the model picks, unless a reader plainly wants another kind of sentence the model
    all but ties with it, and every unit's share of P(leads)."""
    lead_scores = spread(lead_shares(lead_model, {name: signals[name][prose] for name in LEAD_SIGNALS}),
                          prose, len(units))
    lead = max(prose, key=lambda i: lead_scores[i])
    # Asked for a value, a reader wants the sentence naming one the question lacks: when the model
    # all but ties (the runner-up has 0.8 of the top share or more) a sentence restating the
    # question with one naming a new value, the latter leads. At half the share (as for
    # instructions below), `make eval` on seven sets lost two leads on the PDF manual's set
    # and one on starlette for one gained on flask.
    lead = unless_unsure(lead, signals["new_value"], lead_scores, overall, prose, _UNDECIDED)
    # Asked how to do something, a reader wants to be told what to do: when the model is
    # unsure (an instruction has half the top share or more), the instruction leads.
    lead = unless_unsure(lead, signals["instruction"], lead_scores, overall, prose, CONTENDER)
    # Asked what a thing named is or does ("What does the --test flag do?"), a reader wants what
    # its own entry says, not a sentence of another entry mentioning it ("When this flag is used
    # with `--test`, …" under `--no-capture`): the likeliest of its own that is half as relevant
    # leads.
    names = asked_about(question) if len(parts) == 1 else frozenset()
    if names:
        own = np.array([u.kind == "sentence" and bool(names & name_forms(u.described)) for u in units])
        lead = unless_unsure(lead, own, lead_scores, overall, prose, 0.0)
    # Asked what a default is (not how to make something the default), a reader wants the
    # sentence saying what it is ("The default is 31 days."), not the one naming the setting
    # ("If set to `True` the session lives for `permanent_session_lifetime` seconds."): at half
    # the top share, as for instructions. Not a model signal: fitted on the seven fit sets it got
    # no weight (few of their default questions are led wrongly).
    if not lead_how_to:
        stated = np.array([states_default(answer_type, u.text) for u in units])
        lead = unless_unsure(lead, stated, lead_scores, overall, prose, CONTENDER)
        # Asked for a value of a name, its own entry's field stating one leads (see `_entry_stating_it`).
        lead = _entry_stating_it(units, prose, lead, lead_scores, answer_type, attribute)
    return lead, lead_scores


def asked_about(question: str) -> frozenset[str]:
    """The names of the things a question asks what they are or do ("What does the --test flag do?",
    "What do the SSL_CERT_FILE and SSL_CERT_DIR variables do?"). None when it asks something of them
    (how to, a value, yes or no): a name is then often where the asker works ("How do I turn warnings
    into errors from my pytest.ini?", "Should I commit uv.lock?"), not what they ask about."""
    if expected_types(question) or asks_how_to(question) or not asks_for_value(question):
        return frozenset()
    return asked_names(question)


def _entry_stating_it(units: Sequence[Unit], prose: Sequence[int], lead: int, shares: np.ndarray,
                      answer_type: AnswerTypes, attribute: tuple[str, ...]) -> int:
    """`lead`, or, asked for a value of a name ("the default value of build.jobs"), the likeliest unit
    of that name's own entry stating a value of the asked kind ("Default: number of logical CPUs"
    under the `build.jobs` heading) when the lead is not one: however few words it shares with the
    question, the reference says there what was asked."""
    # An option is asked with or without its dashes ("--wait-for-lock": the attribute drops them).
    names = {fold(t).lstrip("-") for t in attribute if is_name(t)}
    if not names or not answer_type:
        return lead

    def states_it(index: int) -> bool:
        described = units[index].described
        return (bool(names & {form.lstrip("-") for form in name_forms(described)})
                and states_value(answer_type, attribute, units[index].text, described or ""))

    if states_it(lead):
        return lead
    return max((i for i in prose if states_it(i)), key=lambda i: shares[i], default=lead)
