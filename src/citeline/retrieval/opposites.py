"""Whether the best evidence says the opposite of what a question asks.

Asked for the *shortest* bridge, documents that only name the *longest* one do not answer, however
many words the two share; the sentence that matches best is then the best proof that the answer is
not there. The test is the question's own wording against the sentence: a graded or directional
word of the question is absent from the sentence, and its opposite is present (a comparative or
superlative counting as its plain word: "warmer" is contradicted by "cold"). The pairs are
English opposites of degree, direction (each compass point excludes the others), order ("first",
"last"), change and time (the words a question varies to ask something else); nothing about a
particular corpus. Words that name an event in time ("before", "start", "add") are left out: "what
runs after yield?" is often answered by a sentence saying what runs before. So are `un-`/`non-`
forms: asked how to *uninstall*, or to keep test ids *unescaped*, the sentence to answer with says
how things are *installed* or *escaped* by default (on eight development sets the negations
declined nothing, and such questions are common in documentation).

A question asking what is *not* so ("What is not an example of a complexity class?") is contradicted
the same way by a sentence stating, without any negation, the very thing it negates ("An example of a
complexity class is P."): that sentence answers the question without its "not". A negation in a
condition ("the default log level if I never configure logging") asks nothing of the sort.
"""

from __future__ import annotations

import re
from itertools import takewhile

_PAIRS = """
longest shortest; longer shorter; long short; largest smallest; larger smaller; large small; big small;
biggest smallest; highest lowest; higher lower; high low; most least; more less; more fewer; most fewest;
maximum minimum; max min; earliest latest; earlier later; oldest newest; older newer; ancient modern;
increase decrease; increased decreased; increases decreases; increasing decreasing; rise fall; rose fell;
strong weak; stronger weaker; strongest weakest; fast slow; faster slower; fastest slowest; upper lower;
north south; east west; north east; north west; south east; south west; northern southern; eastern western;
northern eastern; northern western; southern eastern; southern western; northwest southeast; northeast southwest;
northwest northeast; northwest southwest; northeast southeast; southwest southeast;
rise drop; rise drops; rise dropped; rises drops; rose dropped; risen dropped;
upstream downstream; deep shallow; wide narrow; wider narrower; warm cold; hot cold; wet dry; heavy light;
rich poor; major minor; former current; light dark; lighter darker; lightest darkest; clean dirty;
first last; first second; inner outer; top bottom; inside outside
"""

_OPPOSITES: dict[str, frozenset[str]] = {}
for _pair in _PAIRS.split(";"):
    _a, _b = _pair.split()
    _OPPOSITES[_a] = _OPPOSITES.get(_a, frozenset()) | {_b}
    _OPPOSITES[_b] = _OPPOSITES.get(_b, frozenset()) | {_a}

_WORD = re.compile(r"[a-z]+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.casefold()))


def _plain(word: str) -> str:
    """The word a comparative or superlative is made from, when that word has opposites ("warmer" →
    "warm", "wider" → "wide", "hotter" → "hot", "driest" → "dry"), else the word itself."""
    if word in _OPPOSITES:
        return word
    for ending in ("est", "er"):
        stem = word.removesuffix(ending)
        if stem == word or len(stem) < 3:
            continue
        doubled = stem[:-1] if stem[-1] == stem[-2] else stem
        for candidate in (stem, stem + "e", doubled, stem[:-1] + "y"):
            if candidate in _OPPOSITES:
                return candidate
    return word


def opposed(question: str, sentence: str) -> tuple[str, str] | None:
    """(the question's word, the sentence's opposite of it) when `sentence` speaks of the opposite
    of what `question` asks, else None. A question word the sentence also holds, even in a longer
    form ("warm" in "warmer"), is never a contradiction, nor is an opposite the question names itself
    ("where does the cold water meet the warm"; "changes from East to North" against "from West to
    North": "west" contradicts, "north" does not). A question asking what is not so is contradicted by
    a sentence stating it without negation (`unmet_negation`)."""
    asked, said = _words(question), _words(sentence)
    plain_asked = {_plain(w) for w in asked}
    plain_said = {_plain(w): w for w in sorted(said)}
    for word in sorted(asked - said):
        plain = _plain(word)
        if any(other.startswith((word, plain)) for other in said):
            continue
        if found := sorted(_OPPOSITES.get(plain, frozenset()) & plain_said.keys() - plain_asked):
            return word, plain_said[found[0]]
    return unmet_negation(question, sentence)


# A question asking for what is not so: a wh-word, then within its clause (no comma or condition
# between) a negation, then what it negates.
_ASKS_NEGATED = re.compile(r"^\s*(?:what|which|who|whom|whose|where|when|how\s+(?:many|much))\b([^?,;:]{0,80}?)"
                           r"\b(not|never|n't)\b([^?,;:]*)", re.IGNORECASE)
_CONDITION = re.compile(r"\b(?:if|when|unless|whether|once|because|but|so\s+that)\b", re.IGNORECASE)
# Any way a sentence can say that something is not so, or is so only in part: one holding any of
# these may answer a negated question in its own words ("excludes", "unsupported", "only").
_NEGATIVE = re.compile(r"\b(?:not|never|no|none|nothing|neither|nor|without|except\w*|only|cannot|instead|rather|"
                       r"lack\w*|fail\w*|unable|unlike|exclud\w*|ignor\w*|omit\w*|skip\w*|disabl\w*|missing|absent|"
                       r"un\w{3,}|non-?\w+)\b|n't\b", re.IGNORECASE)
# Words between a negation and what it negates ("not an example", "not usually defined").
_BETWEEN = frozenset("""a an the be been being to have has had always usually often commonly typically ever yet also
very most more generally necessarily really just even all any""".split())
_NAMED_WORD = re.compile(r"[A-Za-z][\w-]*")
_PUNCTUATION = ".,;:!?()[]\"'`*"


def unmet_negation(question: str, sentence: str) -> tuple[str, str] | None:
    """(what the question negates, where the sentence states it) when `question` asks what is not so
    and `sentence` states the negated thing with no negation of any kind, else None: "What is not
    an example of …?" against "An example of … is computation time." gives ("not an example",
    "An example of")."""
    asked = _ASKS_NEGATED.search(question)
    if asked is None or _CONDITION.search(asked.group(1)) or _NEGATIVE.search(sentence):
        return None
    after = _NAMED_WORD.findall(asked.group(3))
    negated = next((word for word in after if word.casefold() not in _BETWEEN), None)
    if negated is None:
        return None
    words = sentence.split()
    place = next((i for i, word in enumerate(words) if _same_word(word.strip(_PUNCTUATION), negated)), None)
    if place is None:
        return None
    phrase = " ".join(after[: after.index(negated) + 1])
    return f"{asked.group(2)} {phrase}", " ".join(words[max(0, place - 1): place + 3]).strip(_PUNCTUATION)


def _same_word(one: str, other: str) -> bool:
    """Whether two words are forms of one ("cross" and "crosses", "define" and "defined"): they
    share all but the last two letters of the shorter, and four letters at least."""
    one, other = one.casefold(), other.casefold()
    shared = sum(1 for _ in takewhile(lambda pair: pair[0] == pair[1], zip(one, other, strict=False)))
    return one == other or (shared >= 4 and shared >= min(len(one), len(other)) - 2)
