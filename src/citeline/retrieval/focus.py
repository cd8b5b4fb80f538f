"""What a question is really asking: its asking sentence, without what the asker rules out.

"I activated another virtual environment, but uv sync keeps using .venv. How do I make uv use
the active environment?" — the first sentence sets the scene; the question sentence says what
is wanted, and the sentence that answers it is the one to lead with. "Run my tests on trio
instead of asyncio" names what the asker does *not* want: a sentence about asyncio answers
nothing. ("Besides X, what else …?" is different: the answer is often listed with X, so X stays.)
Both are the structure of English questions, nothing about a particular corpus.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from citeline.retrieval.evidence import CONTRASTING, KeyTerm
from citeline.text import collapse_ws, content_terms, plain_quotes, segments, stem, terms

# "instead of X", "rather than X" (`CONTRASTING`): X runs to the next clause boundary.
_CONTRAST = re.compile(rf"\b{CONTRASTING}\s+([^,;?!]+?)(?=\s*(?:[,;?!]|\.(?:\s|$)|$))", re.IGNORECASE)


@dataclass(frozen=True)
class Focus:
    """The part of a question an answer must address."""

    text: str  # the asking sentence(s), contrast clauses removed
    excluded: frozenset[str]  # terms the question names only as what it does not want

    def keep(self, keys: Sequence[KeyTerm]) -> list[KeyTerm]:
        """`keys` without the terms the question rules out."""
        return [k for k in keys if k.term not in self.excluded]

    def differs_from(self, question: str) -> bool:
        """Whether the focus says less than the whole question (so scoring against it adds something)."""
        return collapse_ws(self.text).casefold() != collapse_ws(question).strip().casefold()


# "After users are redirected to my login view, how does that view know …?": a clause opened by a
# conjunction of time, condition or cause sets the scene inside the asking sentence, as a sentence
# before it would; the question starts at the question word after its comma, or at the preposition
# before it ("…, in what order do they run?").
_SCENE_CLAUSE = re.compile(
    r"^\s*(?:after|when|whenever|once|if|since|because|although|though|while|before|given\s+that)\b[^,?]*,\s*"
    r"(?=(?:(?:in|at|on|for|from|to|by|with|under|into|through)\s+(?=(?:what|which|whose|whom)\b))?"
    r"(?:how|what|which|where|when|why|who|whom|whose|is|are|can|could|does|do|did|should|will|would)\b)",
    re.IGNORECASE)


_SENTENCE_START = re.compile(r"(?<=[.!?] )[a-z]")
# A word that asks: a question word or an auxiliary verb. A sentence opening with one asks something
# when none ends in "?"; a sub-question holds one (`agent.planning.split_parts`).
ASKING_WORD = re.compile(r"\b(?:how|what|which|when|where|why|who|whom|whose|is|are|was|were|does|do|did|can|"
                         r"could|should|will|would|has|have|had|may|might|must|shall)\b", re.IGNORECASE)


# Greetings and thanks are said to a person, not asked of the documents ("Hi! What does X measure?
# Thanks!"): searched, "Thanks!" became a sub-question of its own and "Thank you for being interested in
# contributing" a point of the answer. A greeting counts only before punctuation or a word that asks
# ("Hello world example" is no greeting); thanks only as the question's last words, and a phrase that
# could end a question ("…, help me please") only as a sentence of its own.
_GREETING = re.compile(
    r"^\s*(?:(?:hi|hello|hey|hiya|howdy|greetings|good\s+(?:morning|afternoon|evening)|dear\s+\w+)"
    r"(?:\s+(?:there|all|everyone|everybody|folks|team|guys))?"
    # A follow-up in a conversation often opens by thanking for the last answer: "Thanks! And how …?"
    r"|(?:(?:great|perfect|ok(?:ay)?|cool|nice|got\s+it)[,!.]?\s+)?(?:thanks|thank\s+you|thx)"
    r"(?:\s+(?:so\s+much|a\s+lot))?(?:\s+for\s+[^.!?,;]{1,40})?)"
    r"\s*(?:[,!.:;]+\s*|\s+(?=" + ASKING_WORD.pattern + "))",
    re.IGNORECASE)
_THANKS = re.compile(
    r"(?:(?:^|(?<=\s))(?:many\s+)?(?:thanks|thx|tia)(?:\s+(?:so\s+much|a\s+lot|very\s+much|in\s+advance|again))*"
    r"|(?:^|(?<=[.!?,;])|(?<=\s)(?=(?-i:[A-Z])))\s*"  # a sentence of its own, or one starting in capitals
    r"(?:thank\s+you(?:\s+(?:so\s+much|very\s+much|in\s+advance))?|cheers|much\s+appreciated"
    r"|(?:any\s+)?help\s+(?:is|would\s+be)\s+(?:much\s+|greatly\s+|really\s+)?appreciated"
    r"|(?:i\s+)?appreciate\s+(?:it|any\s+help|your\s+help)|please\s+help(?:\s+me)?|help\s+(?:me\s+)?please))"
    r"\s*[!.:)]*\s*$",
    re.IGNORECASE)


# The asker's framing of the question is not asked either: "Quick question:", "Newbie here.", "Sorry
# if this is a dumb question, but", "Can someone tell me" before the question word.
_FRAMING = re.compile(
    r"^(?:(?:quick|short|simple|small|stupid|dumb|silly|basic|noob|newbie|beginner)\s+)?question\s*[:,.!-]+\s*"
    r"|^sorry\s+if\s+this\s+is\s+[^,.?!]{0,30}\bquestion\s*[,.!]*\s*(?:but\s+)?"
    r"|^(?:newbie|noob|beginner|new\s+user)\s+here\s*[,.!:;-]+\s*"
    r"|^please\s+help(?:\s+me)?\s*[!.:,]+\s*"
    r"|^(?:(?:does|do|can|could|would|will)\s+(?:anyone|anybody|someone|somebody|you)\s+(?:please\s+)?"
    r"(?:know|tell\s+me|explain(?:\s+to\s+me)?|help\s+me\s+(?:understand|figure\s+out))"
    r"|i(?:\s+was|\s+am|'m)\s+(?:just\s+)?wondering|i(?:'d|\s+would)\s+like\s+to\s+know|i\s+(?:want|need)\s+to\s+know)"
    r"\s+(?=" + ASKING_WORD.pattern + ")",
    re.IGNORECASE)


def without_pleasantries(question: str) -> str:
    """`question` without a greeting or the asker's framing before it and thanks after it (as typed
    when nothing else is left)."""
    rest = question.strip()
    while (trimmed := _THANKS.sub("", rest).rstrip(" ,;")) != rest:  # "Thanks! Much appreciated."
        rest = trimmed
    rest = _GREETING.sub("", rest, count=1)
    while (trimmed := _FRAMING.sub("", rest, count=1)) != rest:  # "Newbie here. Quick question: …"
        rest = trimmed
    return rest if content_terms(rest) else question


def as_asked(question: str) -> str:
    """`question` as it is searched and analysed: plain quotes (a phone's "I’d" is "I'd"), no
    greeting, framing or thanks. The question shown and recorded stays as typed."""
    return without_pleasantries(plain_quotes(question))


def _without_scene(sentence: str) -> str:
    """`sentence` without its scene-setting clause, unless too little would be left to ask about
    ("If I pass both, what happens?")."""
    rest = _SCENE_CLAUSE.sub("", sentence)
    return rest if len(content_terms(rest)) >= 2 else sentence


def question_focus(question: str) -> Focus:
    """The asking sentences of `question` without its greeting and thanks (those ending in "?", else
    those opening with a question word, else the last sentence) without a scene-setting clause before the question word and with
    any "instead of / rather than …" clause taken out."""
    stripped = collapse_ws(as_asked(question)).strip()
    # Typed in haste, a question's sentences may start in lower case ("… the body. how do i …"), which
    # `segments` (for prose) does not take as a sentence start.
    shaped = _SENTENCE_START.sub(lambda m: m.group(0).upper(), stripped)
    sentences = [stripped[span.start : span.end] for span in segments(shaped) if span.text.strip()]
    asking = ([s for s in sentences if s.rstrip().endswith("?")]
              or [s for s in sentences if ASKING_WORD.match(s)])  # typed without its "?"
    # Typed without its "?" and opening with the scene ("after uv sync on windows, what do i run …"), the
    # last sentence is the asking one, its scene set before the question word all the same.
    chosen = " ".join(map(_without_scene, asking or sentences[-1:] or [stripped]))
    ruled_out = [m.group(1) for m in _CONTRAST.finditer(chosen)]
    # The space a removed clause leaves before punctuation goes, not the one before a name that
    # starts with a dot ("entries in .pytest_cache").
    kept = re.sub(r"\s+([?.!,;])(?=\s|$)", r"\1", collapse_ws(_CONTRAST.sub(" ", chosen))).strip(" ,;")
    if len(terms(kept)) < 2:  # nothing left to ask about: the clause was the question
        kept, ruled_out = chosen, []
    kept_terms = set(terms(kept))
    kept_terms |= {stem(t) for t in kept_terms}
    excluded = frozenset(form for clause in ruled_out for t in terms(clause) if t not in kept_terms
                         for form in (t, stem(t)) if form not in kept_terms)
    return Focus(kept, excluded)
