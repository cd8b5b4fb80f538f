"""Composing the `extractive` answer from a ranking of the evidence's units.

Which units to quote (`confident`: the lead, each part's best, then the sentences likeliest to hold
the answer) and how they read (`render`: the lead paragraph, up to three supporting points in
reading order, and for a how-to question the one code example, whole). Every piece is a verbatim,
cited unit; `answerers.layout` holds the rules for how each piece reads on its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from citeline.agent.actions import FinalAnswer
from citeline.agent.state import RunState
from citeline.answerers.layout import (
    MAX_POINTS,
    closed,
    code_intro,
    code_language,
    completion,
    exempt_from_budget,
    fit_to_budget,
    is_description,
    is_fragment,
    lead_paragraph,
    needs_its_example,
    premise,
    says_same,
    shows_the_prose,
    unit_text,
    untied,
)
from citeline.answerers.lead_signals import CONTENDER
from citeline.answerers.ranking import Ranking
from citeline.documents.builder import item_name
from citeline.index.store import Passage
from citeline.retrieval.answer_types import AnswerType, AnswerTypes, holds, states_default
from citeline.retrieval.evidence import present, vocabulary
from citeline.retrieval.names import declared_name, name_forms
from citeline.retrieval.units import VERSION_NOTE, Unit, is_a_name, item_sentences, shows_code
from citeline.text import code_fence, collapse_ws, fold, terms

_MAX_NAME_CHARS = 40  # a described thing's name short enough to lead its value's sentence
# A sentence speaking of the thing it describes without naming it ("if this flag is set", "This setting …").
_REFERS_TO_ITS_THING = re.compile(
    r"\bthis\s+(?:flag|option|setting|variable|parameter|argument|attribute|field|key|value|command|switch|lint"
    r"|rule|check|hook|directive|function|method|class|macro|decorator|property|filter|fixture|marker)\b",
    re.IGNORECASE)
# A sentence opening as a verb would after its subject ("Convert a letter …", "Returns the index …"):
# not with an article, a pronoun, a conjunction or a preposition, which a sentence with its own
# subject or a clause before it starts with.
_SUBJECTLESS = re.compile(
    r"(?!(?:the|a|an|this|these|that|those|it|its|they|you|we|if|when|while|for|in|on|at|by|with|as|since|"
    r"to|from|of|and|or|but|not|no|all|each|every|some|any|there|here|note|see|however|also|only|unlike|"
    r"use|default|defaults)\b)[A-Z][a-z]+s?\b(?![^\s]*[(:=])", re.IGNORECASE)
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


def confident(ranking: Ranking) -> list[int]:
    """The units to quote: the lead, each part's best, then the units likeliest after the lead to
    hold the answer while the answer stays short. Code is added by `render`, never as a point.

    Asked which command to run, a reader wants the command: a block from a passage no point quotes
    is shown only under the sentence introducing it, so that sentence comes first after the lead and
    the parts' picks (before a point it may say the same as)."""
    picked = _likeliest(ranking)
    intro, code = ranking.command_intro, ranking.code
    if intro is None or code is None or intro in picked or any(
            ranking.units[i].number == ranking.units[code].number for i in picked):
        return picked
    fixed = 1 + sum(1 for i in picked[1:] if i in ranking.part_picks)
    return [*picked[:fixed], intro, *picked[fixed:]][: MAX_POINTS + 1]


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


def render(run: RunState, ranking: Ranking, picked: list[int]) -> FinalAnswer | None:
    """The lead paragraph, the supporting points (in reading order) and the code example; None when
    no picked unit fits the answer's word budget."""
    units = ranking.units
    question = run.standalone_query or run.question
    exempt = exempt_from_budget(units, picked, ranking.part_picks, ranking.answer_type, question)
    contender = close_contender(ranking, picked)
    if contender is not None:
        exempt.append(contender)
    if ranking.command_intro in picked:
        exempt.append(ranking.command_intro)
    chosen, items = fit_to_budget(units, picked, exempt, ranking.code)
    if not chosen:
        return None  # nothing fits: the caller declines
    lead = chosen[0]
    continued = continued_in(run.evidence(), units[lead])
    shown = ranking.code if ranking.code is not None and (
        shows_the_prose(units[ranking.code], [units[i] for i in chosen])
        or (continued is not None and units[ranking.code].number == continued[0])) else None
    if shown is not None and any(shows_code(units[i], units[shown]) for i in chosen):
        shown = None  # a sentence quoted already shows it as a code span
    intro = code_intro(units, shown)

    def said(index: int, text: str) -> str:
        # A colon leading to nothing shown leaves the reader hanging: the sentence ends where its statement does.
        return text if items.get(index) or index == intro else closed(text)

    def opening(unit: Unit) -> str:
        return _under_its_name(unit, unit_text(unit), ranking.answer_type) or unit_text(unit)

    paragraph, used = lead_paragraph(units, lead, said(lead, lead_text(units[lead], ranking.answer_type)),
                                     ranking.answer_type, opening)
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
    if ranking.value_missing:  # likewise
        decision["value_missing"] = True
    return FinalAnswer(answer, ranking.insufficiencies, decision)


def lead_text(unit: Unit, answer_type: AnswerTypes) -> str:
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
    signature is no name to read first, but the name it declares is, where a sentence of the
    entry's description starts without a subject ("Convert a letter to the corresponding upper-case
    letter." under `toUpper :: Char -> Char` reads "toUpper - Convert a letter …")."""
    name = unit.described
    subjectless = bool(name and unit.first_in_block and _SUBJECTLESS.match(text))
    if subjectless and name and (entry := declared_name(name)) and \
            not present(entry.rsplit(".", 1)[-1].lower(), vocabulary(text)):
        return f"{entry} - {text}"  # not in backticks: those would be a quote, and the name is the label's
    if not name or len(name) > _MAX_NAME_CHARS or _names(name, text):
        return None
    values = tuple(t for t in answer_type if t not in (AnswerType.NAME, AnswerType.PLACE))
    if ((values and holds(values, text)) or _REFERS_TO_ITS_THING.search(text)
            or ((is_fragment(text) or is_description(text) or VERSION_NOTE.match(text)) and is_a_name(name))):
        return f"{name} - {text}"
    # So does an option's or a setting's ("Distribute the build over N processes in parallel." under
    # `-j N, --jobs N`): the sentence says what to do, the name how to ask for it. As the label has it,
    # not as a quote: the passage may not hold the label's text.
    if subjectless and is_a_name(name):
        return f"{name.strip('`')} - {text}"
    return None


def _names(name: str, text: str) -> bool:
    """Whether `text` names the thing called `name`. An option is named only as written: "This flag
    will run your code examples as tests." does not name `--test` (the word "tests" does not), nor
    does "See also `--test-args`"."""
    options = [form.split()[0] for form in name_forms(name) if form.startswith("-")]
    if options:
        return any(re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", fold(text)) for option in options)
    return any(present(term, vocabulary(text)) for term in terms(name) if len(term) >= 3)


def continued_in(evidence: Sequence[Passage], unit: Unit) -> tuple[int, int] | None:
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
