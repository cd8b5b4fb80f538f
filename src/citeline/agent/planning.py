"""Before acting: what the question demands (constraints), how to go about it (plan, strategy),
and what to search for (parts of a multi-part question, standalone follow-ups)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from citeline.retrieval.evidence import key_terms
from citeline.retrieval.focus import ASKING_WORD
from citeline.text import content_terms, fold, stem, terms

_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
_NUM = r"(\d+|" + "|".join(_NUMBER_WORDS) + r")"


def _number(token: str) -> int:
    return int(token) if token.isdigit() else _NUMBER_WORDS[token]


@dataclass
class Constraints:
    """Requirements stated in the question itself ("search at least 3 times", "quote exactly"):
    the run does not finish before meeting them, whichever answerer decides."""

    min_searches: int = 1
    min_open_citations: int = 0
    requires_exact_quote: bool = False
    exact_quote_indicators: list[str] = field(default_factory=list)
    requires_conflict_resolution: bool = False
    conflict_resolution_rule: str | None = None
    required_sections: list[str] = field(default_factory=list)
    requires_insufficiency_disclosure: bool = False
    disclosure_phrase: str = "Insufficient documentation"

    def as_dict(self) -> dict[str, Any]:
        """The constraints as plain values, for the trace and the plan event."""
        return dict(self.__dict__)


def analyze_constraints(question: str) -> Constraints:
    """Find the requirements a question states about how to answer it (searches, opened passages,
    exact quotes, conflict rules, sections, disclosure), so the run can be held to them."""
    q = question.casefold()
    found = Constraints()
    if (m := re.search(rf"at least {_NUM} (?:separate )?(?:tool )?(?:searches|search calls|tool calls)", q)) or (m := re.search(rf"{_NUM} separate (?:tool )?searches", q)):
        found.min_searches = _number(m.group(1))
    elif "separate tool searches" in q or "separate searches" in q:
        found.min_searches = max(2, len(split_parts(question)))
    if m := re.search(rf"open(?:_citation| citations?)?\b[^.]*?at least {_NUM}", q) or re.search(
        rf"at least {_NUM} (?:opened )?citations?", q
    ):
        found.min_open_citations = _number(m.group(1))
    elif "open_citation" in q or "read full text" in q or "read the full text" in q:
        found.min_open_citations = 1
    quote_patterns = [r"quote (?:one |an |the )?exact ([\w\s-]{2,30}?)(?:[.,;]|$| from| for)",
                      r"verbatim", r"exact (?:line|wording|text)", r"quote exactly"]
    for pattern in quote_patterns:
        if m := re.search(pattern, q):
            found.requires_exact_quote = True
            found.exact_quote_indicators.append(m.group(1).strip() if m.groups() else m.group(0))
    if re.search(r"newest(?: dated)? document|most recent document|latest document|resolve conflicts", q):
        found.requires_conflict_resolution = True
        found.conflict_resolution_rule = "newest_dated_document_wins"
    if m := re.search(r"sections?(?: titled| named| called)?:?\s*((?:[\"'][^\"']+[\"'][,\s]*(?:and\s*)?)+)", question,
                      re.IGNORECASE):
        found.required_sections = re.findall(r"[\"']([^\"']+)[\"']", m.group(1))
    if m := re.search(r"explicitly say ['\"]([^'\"]+)['\"]", question, re.IGNORECASE):
        found.requires_insufficiency_disclosure = True
        found.disclosure_phrase = m.group(1)
    elif "insufficient documentation" in q or "say what is missing" in q:
        found.requires_insufficiency_disclosure = True
    return found


# "…, and is that file encrypted?" asks again; "What continued southward and is also considered …?" and
# "… get their own layer and are not reinstalled …" go on with the same subject: an auxiliary starts
# a sub-question only when a subject, not an adverb or a participle, follows it.
_SPLIT = re.compile(r"\?\s+(?=\S)|;\s+|,?\s+and\s+(?=(?:how|what|which|when|where|why|who)\b"
                    r"|(?:is|are|does|do|can|should|will)\s+(?!(?:not|also|then|still|now|always|never|often|only|"
                    r"just|too|either|known|built|set|made|done|run|given|taken|shown|seen|\w+ed|\w+ly)\b))"
                    r"|,?\s+and\s+what about\s+", re.IGNORECASE)


# A sub-question asks something: it holds a question word or an auxiliary verb. "The Rhine and what
# other river were accepted …?" is one question whose subject is "The Rhine and what other river".


def split_parts(question: str) -> list[str]:
    """The sub-questions of a multi-part question ("Is X on by default, and how do I set it?")."""
    pieces: list[str] = []
    start = 0
    for separator in _SPLIT.finditer(question):
        # A piece that asks nothing is not a question of its own: it runs on into the next one.
        if ASKING_WORD.search(question[start : separator.start()]):
            pieces.append(question[start : separator.start()])
            start = separator.end()
    pieces.append(question[start:])
    parts = [p.strip(" ?.,") for p in pieces if p and p.strip(" ?.,")]
    meaningful = [p for p in parts if len(content_terms(p)) >= 1]
    return meaningful if len(meaningful) > 1 else [question.strip()]


# A question, or a part of one, that refers back to what came before ("and what about its timeout?",
# "… and what's its default value?") says too little to be searched alone. "that" and "there" are not
# read so: in a question they are mostly "the option that …" and "is there …".
_REFERS_BACK = re.compile(r"^\s*(?:and|also|what about|how about|then|so)\b|\b(?:it|its|they|them|their|this|these|"
                          r"those)\b", re.IGNORECASE)


def with_referent(text: str, previous: str | None) -> str:
    """`text` as a search that stands alone: when it refers back to `previous` (the question before a
    follow-up, the part before a part), the key terms of `previous` it does not already hold are added
    in brackets ("what's its default value (max_redirects httpx)"), so the search and the "Searches
    tried" line a declined asker reads both say what was looked for."""
    if not previous or not _REFERS_BACK.search(text):
        return text
    held = {stem(term) for term in terms(text)}
    carried = [word for word in key_term_query(previous).split() if stem(fold(word)) not in held]
    if not carried:
        return text
    # Inside the sentence, so that a follow-up stays one part when it is split.
    stripped = text.strip()
    end = "?" if stripped.endswith("?") else ""
    return f"{stripped.rstrip('?').rstrip()} ({' '.join(carried)}){end}"


def standalone_query(question: str, history: Sequence[Any]) -> str:
    """A follow-up ("and what about its timeout?") as a self-contained search query, carrying over the
    key terms of the previous user question."""
    previous = next((m.content for m in reversed(history) if getattr(m, "role", "") == "user"), None)
    return with_referent(question, previous)


def key_term_query(question: str) -> str:
    """The question reduced to its informative terms, as written: a second search that finds
    passages worded unlike the question (and a "searches tried" line a reader can act on)."""
    found = key_terms(question)
    keys = {k.term for k in found}
    # A word is kept as written, found by its stem ("job" in "jobs") or by itself: a stem may not
    # begin it ("retry" is the stem of "retries").
    # A term of two words ("VS Code") keeps both.
    written = {word for k in found for word in k.word.casefold().split()}
    words: list[str] = []
    for token in re.findall(r"[^\W_](?:[\w]|[._/=-](?=\w))*", question):
        folded = token.casefold()
        if (folded in written or any(k in folded for k in keys)) and token not in words:
            words.append(token)
    return " ".join(words)


def default_plan(question: str, constraints: Constraints) -> list[str]:
    """A short plan of steps for the question, shown in the trace and to the model: one search per
    part of the question, then open, then answer with citations."""
    parts = split_parts(question)
    plan = [f"Search the documents for: {part}" for part in parts[:3]]
    if constraints.min_searches > len(plan):
        plan.append(f"Run at least {constraints.min_searches} separate searches")
    opens = max(constraints.min_open_citations, 1)
    plan.append(f"Open the {opens if opens > 1 else 'most relevant'} passage{'s' if opens > 1 else ''} to read "
                "the full text")
    plan.append("Answer only from the opened passages, citing each claim with [n]")
    return plan[:5] if len(plan) >= 2 else [*plan, "Answer with citations"]


def parse_plan(text: str, fallback: list[str]) -> list[str]:
    """A 2-5 step plan from a JSON array, a numbered list or bullets; else the fallback."""
    steps: list[str] = []
    stripped = text.strip()
    try:
        data = json.loads(stripped[stripped.find("[") : stripped.rfind("]") + 1]) if "[" in stripped else None
        if isinstance(data, list):
            steps = [str(s).strip() for s in data if str(s).strip()]
    except json.JSONDecodeError:
        steps = []
    if not steps:
        steps = [m.group(1).strip() for m in re.finditer(r"^\s*(?:\d+[.)]|[-*•])\s+(.+)$", text, re.MULTILINE)]
    return steps[:5] if len(steps) >= 2 else fallback


_DEEP_HINTS = re.compile(r"\b(compare|difference|differences|versus|vs\.?|trade-?offs?|all|every|runbook|"
                         r"explain|why)\b", re.IGNORECASE)


def choose_strategy(question: str, constraints: Constraints) -> dict[str, Any]:
    """How deep to go for this question, judged from its shape (parts, comparisons, stated
    requirements): reported in the plan and the result so a reader sees why a run searched as
    much as it did."""
    parts = len(split_parts(question))
    words = len(question.split())
    demanding = (constraints.min_searches > 1 or constraints.min_open_citations > 1
                 or constraints.requires_exact_quote or constraints.requires_insufficiency_disclosure)
    if demanding or parts >= 3:
        name, depth, complexity, length, verify = "deep-research", "deep", "complex", "detailed", "extensive"
        reason = "the question states explicit requirements or has three or more parts"
    elif parts == 2 or _DEEP_HINTS.search(question) or words > 30:
        name, depth, complexity, length, verify = "multi-part", "medium", "moderate", "medium", "thorough"
        reason = "the question has several parts or asks for a comparison or explanation"
    else:
        name, depth, complexity, length, verify = "focused-lookup", "shallow", "simple", "short", "thorough"
        reason = "a single, direct question"
    return {
        "name": name, "retrieval_depth": depth, "reasoning_complexity": complexity,
        "citation_style": "detailed" if verify == "extensive" else "minimal", "response_length": length,
        "verification_level": verify, "confidence": 0.8 if name != "multi-part" else 0.7, "reasoning": reason,
    }
