"""What kind of answer a question asks for, and whether a piece of text holds one.

"How long does the cookie last?" wants a duration; "how many retries?" a number; "which
environment variable?" a name in code; "who?" a person; "when?" a date. A sentence that holds a
value of the asked type is the one a reader wants first, and evidence without any such value is
a reason to doubt that the documents answer the question. The patterns are English question
words and value shapes, nothing about a particular corpus.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import Enum
from functools import lru_cache

from citeline.retrieval.evidence import english_word, present, vocabulary
from citeline.retrieval.focus import ASKING_WORD
from citeline.text import content_terms, is_name, name_parts


class AnswerType(Enum):
    """The shape of value a question asks for (NONE: an explanation, not a value)."""

    DURATION = "duration"
    MEASURE = "measure"  # a length, width, height, depth, distance, area or size: a number with its unit
    NUMBER = "number"
    COUNT = "count"  # "how many …": a number, and not a version ("Click 2.0" counts nothing)
    NAME = "name"  # an identifier, option, variable, command, file, directory or setting
    DEFAULT = "default"  # "what is the default ...": a stated default, whatever its shape
    PERSON = "person"
    DATE = "date"
    PLACE = "place"
    PRECEDENCE = "precedence"  # of two settings or sources given together, which one is used
    MAXIMUM = "maximum"  # the most something may be or take ("the largest value", "at most", "is there a limit")
    MINIMUM = "minimum"  # the least something may be or take ("the minimum version", "at least")
    NONE = "none"


# "What is the …", "which …": what follows heads what is asked (a word may come between: "the default").
_WHAT_IS_THE = r"\b(?:what|which)(?:'s|\s+is|\s+are|\s+was|\s+were)?\s+(?:the\s+|its\s+|their\s+)?(?:[\w-]+\s+)?"
# A word naming a bound, in lower case or opening the question ("Max line length?"), not in a name,
# where it heads what is asked ("What is the maximum …", "which max size …"), not where it only
# describes the thing another "what" asks about ("… the minimum time required by what?").
_BOUND_WORD = rf"(?:{_WHAT_IS_THE}(?<![\w`.-])(?-i:{{0}})|(?:^\s*|(?<=[.?!]\s)){{0}})(?![\w`-])"
# A superlative of a value heading what is asked ("What is the largest value …", "the lowest supported
# version"), not of a thing ("the largest city").
_EXTREME_VALUE = (rf"{_WHAT_IS_THE}(?:{{0}})\s+(?:possible\s+|allowed\s+|permitted\s+|supported\s+|accepted\s+)?"
                  r"(?:[\w-]+\s+)?(?:value|number|size|length|amount|count|version)s?\b")

_QUESTION_TYPES: tuple[tuple[AnswerType, re.Pattern[str]], ...] = (
    (AnswerType.DURATION, re.compile(
        r"\bhow\s+long\b|\bhow\s+much\s+time\b|\bhow\s+many\s+(?:seconds|minutes|hours|days|weeks)\b"
        # "How often does it poll?" asks for an interval; "…, in seconds, …" names the unit one is given in.
        r"|\bhow\s+(?:often|frequently)\b|\bin\s+(?:milli|micro)?(?:seconds|minutes|hours|days|weeks)\b(?!\s+(?:of|after|before)\b)"
        r"|\b(?:default|what(?:'s|\s+is)(?:\s+the)?)\s+(?:\w+\s+){0,2}(?:timeout|expiry|lifetime|ttl|duration|interval|delay)\b"
        r"|\b(?:timeout|expiry|lifetime|ttl|duration|interval|delay)\s+(?:\w+\s+){0,2}(?:by\s+)?default\b",
        re.IGNORECASE)),
    # "How long is the Rhine?" asks for a length as readily as "how long is the timeout?" for a
    # duration: a "how long" followed by a form of "be" takes either; "how wide/deep/tall" a measure.
    (AnswerType.MEASURE, re.compile(
        r"\bhow\s+long\s+(?:is|are|was|were)\b|\bhow\s+(?:wide|deep|tall|high|far|thick|broad)\b"
        r"|\b(?:what|which)(?:'s|\s+is|\s+was|\s+are|\s+were)?\s+(?:the\s+)?(?:\w+\s+)?"
        r"(?:length|width|height|depth|distance|area|elevation|altitude|breadth)s?\b",
        re.IGNORECASE)),
    # "If I don't pass --app, which module …?", "… if I never configure logging?", "without naming a
    # tokenizer", "if I leave checkpoint_timeout alone": what happens when nothing is chosen is the
    # default, whether or not the word is used.
    (AnswerType.DEFAULT, re.compile(
        r"\bdefaults?\b|\bby\s+default\b|\bout[\s-]+of[\s-]+the[\s-]+box\b"
        r"|\bif\s+(?:i|you|we|one)\s+(?:don'?t|do\s+not|never|didn'?t|did\s+not)\s+(?:\w+\s+)?"
        r"(?:pass|set|give|specify|configure|provide|supply|choose|pick|select|name|declare|add|change)\b"
        r"|\bwithout\s+(?:passing|setting|giving|specifying|configuring|providing|supplying|choosing|picking|"
        r"selecting|naming|declaring)\b"
        r"|\bif\s+(?:i|you|we|one)\s+leave\s+(?:[\w.-]+\s+){0,3}?(?:alone|unset|untouched|empty|blank|as\s+it\s+is)\b",
        re.IGNORECASE)),
    # The kind word heads what is asked: "which port does …", "what version of …", not "which version
    # source plugin …" (a plugin) or "what command limits the checkout" (a verb).
    (AnswerType.COUNT, re.compile(r"\bhow\s+many\b", re.IGNORECASE)),
    (AnswerType.NUMBER, re.compile(
        # An exit code is a number ("exits with 125"), as is the largest value an option takes. (A status
        # code is asked as a name too: "`416 Range Not Satisfiable`", `HTTP_404_NOT_FOUND`.)
        r"\b(?:what|which)\s+(?:\w+\s+){0,2}(?:exit|return)\s+(?:codes?|status)\b|\bexit\s+status\b"
        r"|\b(?:largest|smallest|highest|lowest|biggest)\s+(?:possible\s+|allowed\s+|permitted\s+)?(?:value|number)s?\b"
        r"|\bhow\s+(?:much|big|large|old)\b|\b(?:what|which)\s+(?:\w+\s+)?(?:number|percentage|size|port|version|limit)s?\b"
        r"(?=\s+(?:is|are|was|were|be|does|do|did|can|could|will|would|should|shall|may|might|must|has|have|had|of|for|"
        r"in|on|at|to|by|from|that|which|i|you|we|they|it|first|last|\w+ly)\b|\s*[?,;:.)]|\s*$)"
        r"|\b(?:maximum|minimum|max|min)\b",
        re.IGNORECASE)),
    # "When was it built?" asks for a date; "when does the code after yield run?" for a condition.
    (AnswerType.DATE, re.compile(r"^\s*when\s+(?:was|were|did|had)\b|\b(?:what|which)\s+(?:year|century|decade|date|month|day)\b|\bsince\s+when\b",
                                 re.IGNORECASE)),
    (AnswerType.PERSON, re.compile(r"^\s*(?:who|whom)\b|\b(?:who|whom)\s+(?:is|was|were|did|does)\b", re.IGNORECASE)),
    (AnswerType.PLACE, re.compile(r"^\s*where\b|\b(?:what|which)\s+(?:city|country|river|place|region|town|state)\b",
                                  re.IGNORECASE)),
    # "… given both in a uv.toml file and in an environment variable, which one wins?", "I have a pytest.ini
    # and a pyproject.toml table. Which one does pytest read?": of two sources, the one that is used.
    (AnswerType.PRECEDENCE, re.compile(
        r"\bwhich\s+(?:one\s+|of\s+(?:them|the\s+two)\s+)?(?:wins|takes\s+precedence|has\s+priority|overrides|applies)\b"
        r"|\bwhich\s+(?:one|of\s+(?:them|the\s+two))\s+(?:does|will|is)\s+(?:\w+\s+)?(?:read|used?|pick|load|honou?r|respect)\b",
        re.IGNORECASE)),
    # A bound asked for is a number stated as one: "exceeding 100 characters" or "one or more clauses" holds
    # a number and answers no "largest value …?". Not a name's part (`max_connections`, "--soft-error-limit",
    # "the Last Glacial Maximum"), nor a superlative of a thing ("the largest city", "the longest river").
    (AnswerType.MAXIMUM, re.compile(
        rf"{_BOUND_WORD.format('maximum|max')}|\bat\s+most\b|\bthe\s+most\s+(?:it|they|you|i|one|we)\b"
        rf"|{_EXTREME_VALUE.format('largest|biggest|highest|longest|greatest')}"
        r"|\b(?:(?:is|are)\s+there|(?:has|have)(?:\s+(?:it|they))?)\s+(?:a|an|any)\s+(?:[\w-]+\s+){0,2}?"
        r"(?:limit|maximum|max|cap|ceiling|upper\s+bound)s?\b"
        r"|\b(?:what|which)(?:'s|\s+is|\s+are)?\s+(?:the\s+|its\s+|their\s+)?(?:[\w-]+\s+){0,3}?limits?"
        r"(?=\s*[?,;]|\s*$|\s+(?:is|of|for|on|it|that)\b)",
        re.IGNORECASE)),
    (AnswerType.MINIMUM, re.compile(
        rf"{_BOUND_WORD.format('minimum|min')}|\bat\s+least\b|\bthe\s+least\s+(?:it|they|you|i|one|we)\b"
        rf"|{_EXTREME_VALUE.format('smallest|lowest|shortest|oldest|earliest')}",
        re.IGNORECASE)),
    (AnswerType.NAME, re.compile(
        r"\b(?:what|which)\s+(?:\w+\s+){0,2}(?:function|class|method|option|flag|variable|setting|argument|parameter|"
        r"command|subcommand|header|field|attribute|module|package|keyword|key|name|exception|error|hook|endpoint|"
        r"status\s+code|property|extra|backend|file|director(?:y|ie)|folder|path)s?\b|\bwhat\s+is\s+(?:it|the\s+\w+)\s+called\b|\bwhat\s+do\s+i\s+(?:set|pass|use|run)\b",
        re.IGNORECASE)),
)

_DURATION = re.compile(
    r"\b\d+(?:[.,]\d+)?\s*(?:ms|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?)\b"
    r"|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|thirty|sixty)\s+"
    r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?)\b|\b(?:forever|indefinitely|no\s+timeout)\b"
    # An interval given by how often: "hourly", "every day", "once a week".
    r"|\b(?:hourly|daily|weekly|monthly|yearly|nightly)\b|\b(?:every|once\s+(?:a|an|per|every))\s+(?:other\s+)?"
    r"(?:second|minute|hour|day|week|month|year)\b",
    re.IGNORECASE)
_MEASURE = re.compile(
    r"\d(?:[\d,.]*\d)?\s*(?:km|kilomet(?:er|re)s?|m|met(?:er|re)s?|mi|miles?|ft|feet|foot|cm|mm|inch(?:es)?|yards?|"
    r"(?:km|m)[2²]|sq|square|hectares?|ha|acres?|[kmgt]i?b|bytes?)\b", re.IGNORECASE)
# A digit inside a name is not a number: "sqlite3_limit", "utf8", "Jinja2" name things, while "a4",
# "v1" or "x86" (one letter, then digits) are themselves the values asked for. Nor is the section of
# a manual page cited after its name ("see git-repack(1)", "printf(3)").
_NUMBER = re.compile(r"(?<![\w-]\()\b[^\W\d_]?\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|hundred|thousand|million|once|twice)\b",
                     re.IGNORECASE)
# A count given by what it follows rather than as a figure ("Defaults to the number of CPUs in the
# system", "one worker per core"); not a mention of the number ("You can limit the number of workers").
_COUNT_IN_WORDS = re.compile(r"\b(?:defaults?\s+to|(?:is|are)\s+(?:set\s+to\s+|equal\s+to\s+)?|equals?|equal\s+to|"
                             r"matches|as\s+many\s+as)\s+the\s+number\s+of\b|\bone\s+(?:per|for\s+each)\s+\w+",
                             re.IGNORECASE)
# A version: three dotted parts ("1.4.2"), or a number after "version", "v" or a name mid-sentence
# ("starting with Click 2.0", "Python 3.12"), unless a quantity word follows ("1.5 million").
_VERSION = re.compile(r"\bv?\d+(?:\.\d+){2,}\b|(?:\b(?:[Vv]ersions?|[Rr]eleases?|v)\s?|(?<![.!?]\s)(?<!^)\b[A-Z][\w-]+\s)"
                      r"\d+(?:\.\d+)+\b(?!\s*(?:%|percent|hundred|thousand|million|billion)\b)")
# A dotted name has a word on each side ("request.client", "os.path"), so "e.g." and "3.14" are not names.
# A word joined by underscores names an identifier in any case ("trim_blocks", "MAX_AGE"), with its
# code markup or without it (prose converted from HTML often drops it).
_NAME = re.compile(r"`[^`\n]+`|\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*[A-Za-z0-9]\b|\b\w+\(\)|--[a-z][\w-]+|\b[A-Za-z_]\w+(?:\.\w{2,})+\b")
# A signature giving a parameter's default in the language's own notation, as API references show
# one above its description: "class jinja2.MemcachedBytecodeCache(client, prefix='jinja2/bytecode/')",
# "truncate(s: str, length: int = 255) → str". The whole text is the signature: a call in a sentence
# ("`Client(timeout=10.0)` sets …") is an example, not the default.
_SIGNATURE_DEFAULT = (r"^\s*(?:(?:class|def|async\s+def)\s+)?[A-Za-z_][\w.-]*\s*\([^()]*?\b[A-Za-z_]\w*\s*(?::\s*[^=,()]+?)?"
                      r"\s*=\s*[^\s,()](?=.*\)\s*(?:(?:->|\u2192)\s*[^()]+?)?\s*$)")
_DEFAULT = re.compile(r"\bdefaults?\b|\bby\s+default\b|\bunless\b|\bif\s+not\s+(?:set|given|specified)\b|"
                      + _SIGNATURE_DEFAULT, re.IGNORECASE | re.DOTALL)
# A time before the present is a date ("~74,000 (BP = Before Present)", "22,000 years ago"), as is a
# decade ("in the 1050s"). A year of the first millennium is a date when marked as one ("AD 14",
# "12 BC") or said to be when something happened ("began in 911 as a fiefdom"; not "in 300 ships").
_DATE = re.compile(r"\b(?:AD|BC|BCE|CE)\s+\d{1,4}\b|\b\d{1,4}\s+(?:AD|BC|BCE|CE)\b"
                   # Software dates a change by its release: "New in version 2.3", "BracketSpan is new in 12.0".
                   r"|\b(?:new|added|introduced|changed|deprecated|removed|dropped)\s+(?:since\s+|in\s+)(?:version\s+)?v?\d+(?:\.\d+)+\b"
                   r"|\bversion\s+v?\d+(?:\.\d+)+\b"
                   r"|\bin\s+\d{3}(?=\s*(?:[,.;:)]|$)|\s+(?:as|and|or|when|by|under|with|to|the|after|before|until|at|on|in)\b)"
                   r"|\b\d[\d,.]*\s*\(?(?:BP|B\.P\.|BCE?)\b|\b\d[\d,.]*\s+(?:(?:thousand|million|billion)\s+)?years?\s+ago\b"
                   r"|\b1\d{3}s?\b|\b20\d{2}s?\b|\b\d{2,3}0s\b|\b(?:January|February|March|April|May|June|July|August|September|October|"
                   r"November|December)\b|\b\d{1,2}(?:st|nd|rd|th)\s+century\b|\bcentur(?:y|ies)\b", re.IGNORECASE)
_PRECEDENCE = re.compile(r"\b(?:precedence|priority|prioriti[sz]ed?|overrid(?:e|es|den|ing)|wins|win\s+over|"
                         r"first\s+match|takes?\s+effect|in\s+favou?r\s+of|supersedes?)\b", re.IGNORECASE)
_PROPER = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]{2,}(?:\s+[A-Z][a-z]+)*")
# A bound stated: a number with a word making it one ("limited to 5 MiB", "the maximum is 2000", "up to
# 125", "3.9 or later", ">= 3.11"), or that there is none ("no limit", "unlimited", "any number of").
_UNBOUNDED = (r"|\b(?:no|without\s+(?:a|any))\s+(?:[\w-]+\s+)?(?:limit|maximum|minimum|upper\s+bound|lower\s+bound)s?\b"
              r"|\bunlimited\b|\bnot\s+limited\b|\barbitrar(?:y|ily)\b|\bany\s+number\s+of\b")


def _bound(words: str) -> re.Pattern[str]:
    """A number stated as a bound by one of `words`, before it or just after it, or no bound at all."""
    return re.compile(rf"(?:{words}).{{0,80}}?(?:{_NUMBER.pattern})|(?:{_NUMBER.pattern}).{{0,40}}?(?:{words}){_UNBOUNDED}",
                      re.IGNORECASE | re.DOTALL)


_MAXIMUM = _bound(r"(?<![\w`-])(?:maxim(?:um|al|ally)|max)(?![\w`-])|\blimit(?:s|ed)?\b|\bat\s+most\b|\bup\s+to\b"
                  r"|\bupper\s+bound\b|\bno\s+(?:more|larger|greater|longer|bigger)\s+than\b"
                  r"|\b(?:cannot|can't|must\s+not|may\s+not|not)\s+exceed\b|\bceiling\b|\bcapped\b|\bcap\s+(?:of|at)\b"
                  r"|\b(?:or|and)\s+(?:fewer|less|lower|below|earlier|older|smaller)\b|<=?|\u2264"
                  # a setting named for the bound, given a value: `max_files=1000`, "maxsize: 128", "limit = 5"
                  r"|\b(?:max(?:imum)?[_-]?\w*|\w+[_-]max(?:imum)?|\w*limit\w*)\s*[=:]")
_MINIMUM = _bound(r"(?<![\w`-])(?:minim(?:um|al|ally)|min)(?![\w`-])|\blimit(?:s|ed)?\b|\bat\s+least\b|\blower\s+bound\b"
                  r"|\bno\s+(?:less|fewer|smaller|shorter|lower)\s+than\b|\bonwards?\b"
                  r"|\b(?:or|and)\s+(?:later|newer|higher|above|up|greater|more|larger)\b"
                  r"|\brequires?\b|\d\s*\+|>=?|\u2265"
                  r"|\b(?:min(?:imum)?(?:[_-]\w+)?|\w+[_-]min(?:imum)?|\w*limit\w*)\s*[=:]")
_VALUE_BY_TYPE: dict[AnswerType, re.Pattern[str]] = {
    AnswerType.DURATION: _DURATION,
    AnswerType.MEASURE: _MEASURE,
    AnswerType.NUMBER: _NUMBER,
    AnswerType.COUNT: re.compile(f"{_NUMBER.pattern}|{_COUNT_IN_WORDS.pattern}", re.IGNORECASE),
    AnswerType.NAME: _NAME,
    AnswerType.DEFAULT: _DEFAULT,
    AnswerType.DATE: _DATE,
    AnswerType.PERSON: _PROPER,
    AnswerType.PRECEDENCE: _PRECEDENCE,
    AnswerType.MAXIMUM: _MAXIMUM,
    AnswerType.MINIMUM: _MINIMUM,
    # A place in prose is a proper name; in software documentation it is a path or a location in code.
    AnswerType.PLACE: re.compile(f"{_PROPER.pattern}|{_NAME.pattern}"),
}


AnswerTypes = tuple[AnswerType, ...]

# Kinds of value with a shape of their own, which a passage either states or does not: asked for
# one, evidence holding none does not answer, however well it matches the question's words.
VALUE_KINDS = frozenset((AnswerType.DURATION, AnswerType.MEASURE, AnswerType.NUMBER, AnswerType.COUNT,
                         AnswerType.DATE, AnswerType.MAXIMUM, AnswerType.MINIMUM))
# A bound asked is the kind a value must be given as: any number does not answer "the largest value".
_BOUNDS = frozenset((AnswerType.MAXIMUM, AnswerType.MINIMUM))
# "Which wheel version should I pick …?": a version may be a name ("editable", "latest", "lts").
_VERSION_ASKED = re.compile(r"\b(?:what|which)\s+(?:[\w-]+\s+)?versions?\b", re.IGNORECASE)


def asks_for_shaped_value(answer_types: AnswerTypes, question: str) -> bool:
    """Whether the question asks for a value with a shape (a number, duration, measure or date),
    which a passage answering it must hold."""
    kinds = set(answer_types) & VALUE_KINDS
    if kinds == {AnswerType.NUMBER} and _VERSION_ASKED.search(question):
        return False
    return bool(kinds)


_KIND_IN_WORDS: dict[AnswerType, str] = {
    AnswerType.DURATION: "a duration", AnswerType.MEASURE: "a measure", AnswerType.NUMBER: "a number", AnswerType.COUNT: "a number",
    AnswerType.NAME: "a name", AnswerType.DEFAULT: "a default", AnswerType.PERSON: "a person",
    AnswerType.DATE: "a date", AnswerType.PLACE: "a place", AnswerType.PRECEDENCE: "an order of precedence",
    AnswerType.MAXIMUM: "a maximum", AnswerType.MINIMUM: "a minimum",
}


def kind_asked(answer_types: AnswerTypes) -> str:
    """The asked kind of value in words ("a number", "a duration or a measure" for "how long is
    …?"; the specific kinds over "a default"), for telling the asker what the documents lack."""
    bounds = [t for t in answer_types if t in _BOUNDS]  # "a maximum" says what "a number" does not
    kinds = [_KIND_IN_WORDS[t] for t in bounds or answer_types if t is not AnswerType.DEFAULT and t in _KIND_IN_WORDS]
    if not kinds:
        kinds = [_KIND_IN_WORDS[t] for t in answer_types if t in _KIND_IN_WORDS]
    return " or ".join(list(dict.fromkeys(kinds))[:2]) or "a value"


# "How do I change how long a job may run?" asks for the setting that decides the duration, not
# for a duration: a "how long/many/much" that is the object of a verb of adjusting names a name.
_ADJUSTED = re.compile(
    r"\b(?:change|set|increase|raise|lower|reduce|extend|shorten|limit|cap|configure|control|adjust|tune|"
    r"decide|choose|specify|override)\s+how\s+(?:long|many|much|often|far|big|large)\b", re.IGNORECASE)


# The words that decide which kind of value is asked. Typed in haste ("whats the defualt creation
# factor"), a question still asks for a default: a misspelling of one of them reads as the word.
_CUE_WORDS = frozenset(("default", "defaults", "maximum", "minimum", "timeout", "duration", "interval", "lifetime",
                        "length", "height", "distance", "number", "version", "percentage", "precedence", "priority"))


@lru_cache(maxsize=1024)  # asked of the same question for its focus, its parts and its asked phrase
def _mended(question: str) -> str:
    """The question with a misspelt cue word spelt right. A word that is English as written stays
    ("internal" is not a misspelt "interval"); `present` decides what a typo is, as for key terms."""
    def mend(match: re.Match[str]) -> str:
        word = match.group(0).casefold()
        if word in _CUE_WORDS or english_word(word):
            return match.group(0)
        return next((cue for cue in sorted(_CUE_WORDS) if present(word, frozenset((cue,)))), match.group(0))
    return re.sub(r"[^\W\d_]{5,}", mend, question)


def expected_types(question: str) -> AnswerTypes:
    """Every kind of value the question's wording asks for ("the default timeout": a default
    and a duration); empty when it asks for an explanation."""
    question = _mended(question)
    adjusted = bool(_ADJUSTED.search(question))
    asked = _ADJUSTED.sub(" ", question) if adjusted else question
    kinds = [t for t, pattern in _QUESTION_TYPES if pattern.search(asked) and not (adjusted and t is AnswerType.NAME)]
    if AnswerType.DEFAULT in kinds:
        # "Which one is used by default?" asks what is used when nothing is chosen, not which of two
        # given together wins.
        kinds = [t for t in kinds if t is not AnswerType.PRECEDENCE]
    if _HOW_TO.search(asked):
        # "How can I make uv resolve the lowest compatible versions?" asks for something to do, which
        # the bound describes: a bound is asked only by a question for a value.
        kinds = [t for t in kinds if t not in _BOUNDS]
    return (*kinds, AnswerType.NAME) if adjusted else tuple(kinds)


def holds(answer_types: AnswerTypes, text: str) -> bool:
    """Whether `text` contains a value of one of the types (always True when none is asked)."""
    # "Default" is the weakest kind: when a specific one is asked too ("the default timeout"),
    # the text must hold the specific value, not merely say "by default".
    specific: list[AnswerType] = [t for t in answer_types if t is not AnswerType.DEFAULT and t in _VALUE_BY_TYPE]
    # Likewise a bound asked for ("the largest value", "at most") is a number stated as a bound.
    specific = [t for t in specific if t in _BOUNDS] or specific
    wanted: list[AnswerType] = specific or [t for t in answer_types if t in _VALUE_BY_TYPE]
    if not wanted:
        return True
    return any(_VALUE_BY_TYPE[answer_type].search(_VERSION.sub(" ", text) if answer_type is AnswerType.COUNT else text)
               for answer_type in wanted)


# Words naming an extreme or the default of a value ("the *maximum* number of …", "the *largest* branch").
_EXTREMES = r"default|maximum|minimum|max|min|highest|largest|biggest|lowest|smallest"
# The thing whose value is asked, named between the question word and the verb: "how many
# *threads* does …", "what is the default *timeout* for …", "which *keyring* backend does …".
_ASKED_OF = re.compile(
    r"\bhow\s+(?:many|much)\s+((?:[\w-]+\s+){0,2}?[\w-]+)\s+(?:does|do|did|is|are|was|were|can|will|should|would|could|in|of)\b"
    rf"|\b(?:what|which)(?:'s|\s+is|\s+are)?\s+(?:the\s+|[\w-]+'s\s+)?(?:(?:{_EXTREMES}|most|fewest|least)\s+)?"
    r"((?:[\w-]+\s+){0,2}?[\w-]+)\s+(?:does|do|did|is|are|was|were|can|will|should|would|of|for)\b",
    re.IGNORECASE)
# Words naming the kind of value rather than what it is the value of ("what *year* …", "which
# *option* …"): a sentence giving the value rarely repeats them ("added in 1939", "pass `--port`").
_KIND_WORDS = frozenset(content_terms(
    "name names called value values kind kinds type types one ones two three four five both several thing things "
    "way number numbers percentage "
    "size sizes port ports version versions limit limits year years century decade date dates month day "
    "city country river place region town state length width height depth distance area elevation altitude "
    "breadth function class method option flag variable setting argument parameter command subcommand header "
    "field attribute module package keyword key exception error hook endpoint status code property extra "
    "backend file directory folder path config population"))


# Kinds of value with a shape of their own (a number, a measure, a stated value): "the *length* of
# X" asks it of X. Not "the *name* of X": in prose a name has no shape to look for.
_QUANTITIES = frozenset(content_terms(
    "value values number length width height depth distance area elevation altitude breadth size population "
    "percentage limit maximum minimum default"))
# "How long is *the Upper Rhine Plain*?": a measure asked of the subject that ends the question.
_MEASURE_OF = re.compile(
    r"\bhow\s+(?:long|wide|deep|tall|high|far|thick|broad|big|large|old)\s+(?:is|are|was|were)\s+"
    r"(?:the\s+|an?\s+)?((?:[\w-]+\s+){0,5}?[\w-]+)\s*(?:\?|$)", re.IGNORECASE)
# A word of a question, or a name written with dots or slashes ("build.jobs", "app/config.py"): the
# thing a value is asked of is often a key of a configuration reference.
_WORD = r"[\w-]+(?:[./:][\w-]+)*"
# "… the length of *the Old Rhine Bridge* at Constance?", "… the default value of *max_redirects*, and …":
# after a phrase that only names the kind of value, the thing follows "of", up to a clause's end.
_OF_THING = re.compile(rf"\s*(?:the\s+|an?\s+)?((?:{_WORD}\s+){{0,3}}?{_WORD})\s*(?:[?,;]|$|\s+(?:in|at|on|when|and|for|"
                       r"i|we|you|they)\b)",
                       re.IGNORECASE)


# "the maximum length, in characters, of …": an aside between commas that qualifies the kind of value.
_ASIDE = re.compile(r",\s*(?:in|as|per|at|for|with)\s+(?:[\w-]+\s+){0,2}?[\w-]+\s*,", re.IGNORECASE)
# "How long can *a parametrized test ID* get?": a measure asked of what may grow to it.
_GROWS = re.compile(
    r"\bhow\s+(?:long|big|large|many|much|high|deep|far)\s+(?:can|may|could|will|might|should)\s+(?:the\s+|an?\s+)?"
    r"((?:[\w-]+\s+){0,3}?[\w-]+)\s+(?:get|be|grow|become|go|reach)\b", re.IGNORECASE)
# "What's the maximum *request body* size Starlette accepts?": the thing before a word naming the
# kind of value, when no verb follows closely enough for `_ASKED_OF`.
_KIND_LAST = re.compile(
    rf"\b(?:what|which)(?:'s|\s+is|\s+are)?\s+(?:the\s+)?(?:{_EXTREMES})\s+((?:[\w-]+\s+){{0,2}}?[\w-]+)\s+"
    r"(?:size|number|length|value|limit|count|amount)s?\b(?!\s+of\b)",
    re.IGNORECASE)


# A name has no shape in prose ("What is the region called …"): its subject is no thing to check.
_NAMED = re.compile(r"\b(?:name[sd]?|called)\b", re.IGNORECASE)
# "What port does *the dev server* use?", "what directory does *R_LIBS_USER* point to?", "what year
# was *the bridge* built?": after a phrase naming only the kind of value, the subject is the thing,
# up to its verb (the word before a preposition, an article or the question's end). After a form of
# "be" only a subject with an article counts: in "which variable is read for …" none follows.
_SUBJECT_END = (r"\s+[\w-]+\s*(?:[?,;]|$|\s+(?:to|in|at|on|by|for|from|with|when|if|and|out|up|into|back|off|down|over|"
                r"before|after|until|without|first|the|an?|my|its|their|your)\b)")
_SUBJECT = re.compile(rf"\s*(?:the\s+|an?\s+)?((?:{_WORD}\s+){{0,3}}?{_WORD}){_SUBJECT_END}", re.IGNORECASE)
_ARTICLED_SUBJECT = re.compile(rf"\s*(?:the|an?)\s+((?:{_WORD}\s+){{0,3}}?{_WORD}){_SUBJECT_END}", re.IGNORECASE)
_SUBJECT_AFTER: dict[str, re.Pattern[str]] = {
    **dict.fromkeys(("does", "do", "did", "can", "will", "should", "would"), _SUBJECT),
    **dict.fromkeys(("is", "are", "was", "were"), _ARTICLED_SUBJECT),
}


def asked_phrase(question: str) -> str:
    """The words naming the thing whose value the question asks for, as written ("how many
    threads does Waitress use": "threads"; "what is the length of the Old Rhine Bridge": "Old
    Rhine Bridge"); empty when the question names none."""
    return _asked(question)[1]


_VAGUE_KINDS = frozenset(content_terms("value values kind kinds type types one ones thing things"))


def asked_in_words(question: str, kind: str) -> str:
    """What the question asks for, to tell the asker it was not found: the kind of value it names
    with what that is of ("the port of “blackd”" for "What port does blackd listen on?"), else
    `kind` (the kind of value in words, "a number") for the asked thing ("a number for “threads”")."""
    named, phrase = _asked(question)
    if phrase and set(content_terms(named)) - _VAGUE_KINDS:  # "the value of X" says less than "a default for X"
        return f"the {named.casefold()} of “{phrase}”"
    return f"{kind} for “{phrase}”" if phrase else kind


def _asked(question: str) -> tuple[str, str]:
    """(the words naming the kind of value when the thing it is of was named apart, the thing)."""
    question = _ASIDE.sub("", _mended(question))
    match = _ASKED_OF.search(question)
    if match is None:
        measured = _MEASURE_OF.search(question) or _GROWS.search(question) or _KIND_LAST.search(question)
        return "", measured.group(1) if measured else ""
    phrase = match.group(1) or match.group(2)
    verb = match.group(0).rsplit(None, 1)[-1].casefold()
    if verb == "of" and all(t in _QUANTITIES for t in content_terms(phrase)):
        thing = _OF_THING.match(question, match.end())
        return (phrase, thing.group(1)) if thing else ("", "")
    after = _SUBJECT_AFTER.get(verb)
    if after and all(t in _KIND_WORDS for t in content_terms(phrase)) and not _NAMED.search(phrase):
        subject = after.match(question, match.end())
        return (phrase, subject.group(1)) if subject else ("", "")
    return "", phrase


def asked_attribute(question: str) -> tuple[str, ...]:
    """The content terms of `asked_phrase`, without words naming the kind of value ("which keyring
    backend": keyring); empty when none is left. A name is asked whole: "--soft-error-limit" is
    stated where that name is, not where its parts are found apart."""
    found = content_terms(asked_phrase(question))
    parts = name_parts(found)
    return tuple(t for t in found if t not in _KIND_WORDS and (is_name(t) or t not in parts))


def states_value(answer_types: AnswerTypes, attribute: Iterable[str], text: str, *context: str) -> bool:
    """Whether `text` holds a value of the asked kind and it or its `context` (the sentence before,
    the section title) names the asked thing ("Waitress uses four threads" for "how many threads
    does Waitress use?"). A term is found as coverage finds it: stemmed, or within a typo.

    Asked for a default and nothing more specific, the text must say what the default is: "This has
    a default value (to see it, use …)" speaks of one without stating it."""
    only_default = set(answer_types) == {AnswerType.DEFAULT}
    stated = states_default(answer_types, text) if only_default else holds(answer_types, text)
    if not stated:
        return False
    # Each piece's vocabulary is cached on its own (sentences and titles recur across questions).
    found = vocabulary(text).union(*(vocabulary(piece) for piece in context))
    return all(present(term, found) for term in attribute)


# A sentence saying what the default is ("defaults to 2 weeks", "The default is 31 days.", "This is
# the default.", "Default directory is `.pytest_cache`", "By default `StaticFiles` will look for
# `statics`"), or giving it in a reference's notation ("default: `normal`", "(default: `64`)",
# "Default value: `true`", "(integer, default 99)", "timeout=5 (default=5)", "`function` (default)",
# "`function`: the default scope", a signature's "prefix='jinja2/bytecode/'"), not one that only
# mentions a default ("the default page cache that is built in honours …").
_STATES_DEFAULT = re.compile(
    r"\bdefaults?\s+(?:to|is|are|was|=|:)\s|\b(?:is|are|was|were|be)\s+(?:the|a|its)\s+default\b"
    r"|\bdefault\b(?:\s+(?!that\b|which\b)[\w-]+){0,4}?\s+(?:is|are|was|of|=)\s|\bby\s+default\b"
    r"|\bdefault(?:\s+value)?\s*[:=]\s*\S|[(,]\s*default\s+[^\s,;()]+\s*[),;]|\S\s+\(default\)|\S:\s+(?:the|its)\s+default\b|"
    + _SIGNATURE_DEFAULT,
    re.IGNORECASE | re.DOTALL)


def states_default(answer_types: AnswerTypes, text: str) -> bool:
    """Whether `text` answers a question asking for a default in its own words: it says what the
    default is, and holds a value of any more specific kind asked ("the default timeout": a duration)."""
    return AnswerType.DEFAULT in answer_types and bool(_STATES_DEFAULT.search(text)) and holds(answer_types, text)


# A concrete value in code: a code span, an ALL_CAPS name, a call, a flag or a dotted name.
_LITERAL = re.compile(r"`([^`\n]+)`|\b([A-Z][A-Z0-9]*_[A-Z0-9_]+)\b|(\b\w+\(\))|(--[a-z][\w-]+)|\b([A-Za-z_]\w+(?:\.\w{2,})+)\b")
# A question answered by yes or no, or by a reason: no particular value is wanted.
_NO_VALUE = re.compile(r"(?:^|[,;]\s)\s*(?:why|do|does|did|is|are|was|were|can|could|will|would|should|shall|has|have|had|"
                       r"may|might|must)\b", re.IGNORECASE)


def asks_for_value(question: str) -> bool:
    """Whether the question asks for something to name (what/which/where/how …), not yes/no or why."""
    return not _NO_VALUE.search(question)


def new_values(text: str, question: str) -> list[str]:
    """The concrete values in `text` (code spans, names in code, flags) that the question
    does not already contain: a sentence that names one tells the reader something specific, where
    one that only echoes the question's words describes the topic."""
    asked = question.casefold()
    found = (next(g for g in m.groups() if g) for m in _LITERAL.finditer(text))
    return [value for value in found if value.strip().casefold() not in asked]


# "what do I run …", "which script should we use …": a question asking what to do.
_WHAT_DO_I = r"\b(?:what|which)\b[^?]{0,40}?\b(?:do|should|can|must)\s+(?:i|we)\s+(?:need\s+to\s+)?"


def _asks_which(nouns: str) -> str:
    """A pattern for "which/what (is the) … NOUN", naming one of `nouns` ("what's the hatch version invocation");
    not "what does the … flag do": that asks what a named one does."""
    return rf"\b(?:what|which)(?:'s|\s+is|\s+are)?\s+(?!(?:do|does|did)\s)(?:the\s+)?(?:[\w-]+\s+){{0,3}}?(?:{nouns})s?\b"


_HOW_TO = re.compile(
    # At the start of the question or of a clause ("In a test, how can I check …?", "nested loops - how
    # can the inner one …?").
    r"(?:^|[,;:]\s*|\s[-\u2013\u2014]\s)\s*(?:how\s+(?:do|can|should|would|could|to)\b|how\s+(?:i|we|you)\s+(?:can|should|do)\b"
    r"|what(?:'s|\s+is)\s+the\s+(?:best\s+|right\s+|recommended\s+)?way\s+to\b|show\s+(?:me\s+)?(?:how|an?\s+example)\b"
    r"|(?:give|is\s+there)\s+(?:me\s+)?an?\s+example\b|example\s+of\b|(?:can|could)\s+(?:i|you)\s+\w+)"
    r"|\bexample\b|\bsnippet\b|\bin\s+code\b"
    # "what do I run …", "which script am I supposed to use": the answer is something to do.
    rf"|{_WHAT_DO_I}(?:run|set|use|pass|add|write|type|call|install|put)\b|\b(?:am|are)\s+(?:i|we)\s+supposed\s+to\b"
    # "which options turn off …": the example that uses them shows them (commands: `asks_for_command`).
    rf"|{_asks_which('option|flag')}(?!\s+(?:is|are|does|do)\b)"
    # Typed as into a search box, a request is an imperative: "disable ssl verification", "set a timeout".
    r"|^\s*(?:set|change|disable|enable|turn\s+(?:on|off)|configure|install|use|add|remove|upload|download|send|"
    r"stream|create|run|mock|test|retry|cancel|limit|increase|decrease|raise|lower|skip|ignore)\s+"
    r"(?!of\b)(?!\S+\s+(?:is|are|was|were)\b)"
    r"(?=[^?]*$)",
    re.IGNORECASE,
)


_KEYWORDS = 12  # a search box's query is a few words; more, without a sentence, is a question typed in haste


_COMMAND = re.compile(rf"{_asks_which('command|invocation|subcommand')}|{_WHAT_DO_I}(?:run|type)\b", re.IGNORECASE)


def asks_for_command(question: str) -> bool:
    """Whether the question asks for a command line to run ("what command serves the docs?")."""
    return bool(_COMMAND.search(question))


def is_keyword_query(question: str) -> bool:
    """Whether the question is typed as into a search box: a few words, no sentence (no "?", no word
    that asks, no full stop)."""
    stripped = question.strip()
    return ("?" not in stripped and not ASKING_WORD.search(stripped) and len(stripped.split()) <= _KEYWORDS
            and not re.search(r"[.!]\s", stripped))


def asks_how_to(question: str) -> bool:
    """Whether the question asks how to do something, or for the command that does it (a reader
    then wants the code example). A keyword query asking for no kind of value ("check response
    served http/2") is read as how to: a reader searching for a feature wants to see it used."""
    return (bool(_HOW_TO.search(question)) or asks_for_command(question)
            or (is_keyword_query(question) and not expected_types(question)))


# An instruction: "you can …", "X can be used to …", "to do Y, pass …", "use the `--flag`", or a
# sentence starting with an imperative verb.
_INSTRUCTION = re.compile(
    r"\byou\s+(?:can|may|should|need\s+to|must|will\s+need\s+to)\b|\bcan\s+be\s+(?:used|set|passed|enabled)\b"
    r"|\bto\s+\w+[^.,;]{0,60},\s+(?:use|pass|set|call|add|run)\b"
    r"|\b(?:use|pass|set|add|run|call|enable|install)\s+(?:the\s+|a\s+)?`"
    r"|^(?:use|pass|set|call|add|run|install|create|import|configure|enable|disable|wrap|include)\b",
    re.IGNORECASE)


def tells_how(text: str) -> bool:
    """Whether `text` is an instruction naming something to do (a command, option or call): what
    a how-to question wants to lead with, rather than a description of the behaviour asked about."""
    return bool(_INSTRUCTION.search(text.strip())) and bool(_VALUE_BY_TYPE[AnswerType.NAME].search(text))

