"""The validator: grounding enforced in code, the gate every answer passes before it is shown.

A prompt can ask a model to cite; only this module decides what reaches the user. It strips
references to passages that were never retrieved, checks every cited sentence against the
passage it cites, checks quoted text verbatim, and removes what it cannot support.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from citeline.agent.planning import Constraints
from citeline.agent.result import Citation
from citeline.index.store import Passage
from citeline.retrieval.units import passage_units
from citeline.text import collapse_ws, content_terms, fold, name_parts, segments

CITE = re.compile(r"\s?\[(\d{1,3})\]")
# A code block in an answer: fenced, optionally followed by the [n] of the passage it comes from.
# A fenced block and the `[n]` after it. Its fence may be longer than three backticks (the block then
# holds three-backtick lines of its own: an example of Markdown) and closes with the same fence.
FENCED = re.compile(r"^[ \t]*(?P<fence>`{3,})[^\n]*\n(?P<body>.*?)\n[ \t]*(?P=fence)(?!`)[ \t]*"
                    r"(?:\n[ \t]*\[(?P<ref>\d{1,3})\])?", re.MULTILINE | re.DOTALL)
# Quoted text in an answer: a double-quoted phrase, or an inline code span. Every code span is matched,
# short ones too, so that the text between two short spans (`a` of map type `M`) is never taken for one.
_QUOTED = re.compile(r"[\"“]([^\"”\n]{8,}?)[\"”]|`([^`\n]+?)`")
_SHORTEST_CODE_QUOTE = 4  # shorter code (`a`, `nil`) is a name, checked with the sentence's terms
_SENTENCE = re.compile(r"[^\n]+?(?:[.!?](?:\s*\[\d{1,3}\])*(?=\s|$)|$)", re.MULTILINE)
_DECLINE = re.compile(
    r"(don't|do not|does not|doesn't) have enough information|insufficient documentation|"
    r"(is|are) not (covered|mentioned|documented)|(documentation|documents) (do|does) not (say|cover|mention)|"
    r"i don't know based on the provided documents",
    re.IGNORECASE,
)

Similarity = Callable[[str, str], float]


def is_decline(text: str) -> bool:
    """Whether the text says the documents do not answer the question (a decline needs no citation)."""
    return bool(_DECLINE.search(text))


@dataclass
class SentenceCheck:
    """The verdict on one sentence of an answer: the passages it cites, how well they support it, and
    why it was removed if it was."""

    text: str
    start: int
    end: int
    refs: list[int]
    support: float = 0.0
    supported: bool = True
    reason: str | None = None


@dataclass
class Validation:
    """Everything the validator found in one answer: the errors to show the model if it tries again,
    what was stripped or removed, and the answer that remains."""

    errors: list[str] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)
    stripped_refs: list[int] = field(default_factory=list)
    removed_sentences: list[str] = field(default_factory=list)
    cleaned_answer: str = ""
    grounded_answer: str = ""
    sentences: list[SentenceCheck] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether the answer passed with nothing to fix."""
        return not self.errors

    def fail(self, code: str, message: str) -> None:
        """Record one failure: a stable code for the trace and a message the model can act on."""
        self.codes.append(code)
        self.errors.append(message)


def _norm(text: str) -> str:
    return collapse_ws(fold(text.replace("`", "").replace("*", "")))


def support_score(claim: str, passage_text: str) -> float:
    """Share of the claim's content terms that occur in the passage (0-1)."""
    claim_terms = content_terms(CITE.sub("", claim))
    if not claim_terms:
        return 1.0
    source = set(content_terms(passage_text))
    return sum(1 for t in claim_terms if t in source) / len(claim_terms)


def _passage_context(passage: Passage) -> str:
    return f"{passage.document_name}\n{passage.section or ''}\n{passage.text}"


def split_sentences(answer: str) -> list[tuple[str, int, int]]:
    """Sentences of an answer with offsets. A piece with no words of its own (a stray "| [1]")
    belongs to the sentence before it, so a citation can never hide behind an empty sentence."""
    result: list[tuple[str, int, int]] = []
    for match in _SENTENCE.finditer(answer):
        text = match.group(0).strip()
        if not text:
            continue
        start = match.start() + match.group(0).find(text)
        end = start + len(text)
        if result and not content_terms(CITE.sub("", text)):
            previous_start = result[-1][1]
            result[-1] = (answer[previous_start:end], previous_start, end)
        else:
            result.append((text, start, end))
    return result


def _is_claim(sentence: str, question_terms: set[str]) -> bool:
    """A sentence states a technical claim when it says something the question did not."""
    bare = CITE.sub("", sentence)
    if is_decline(bare):
        return False
    novel = [t for t in content_terms(bare) if t not in question_terms]
    return len(novel) >= 2 or any(ch.isdigit() for ch in bare) or "`" in bare


def validate(
    answer: str,
    evidence: Sequence[Passage],
    *,
    question: str,
    constraints: Constraints,
    searches_done: int,
    opened_count: int,
    insufficiencies: Sequence[object] = (),
    threshold: float = 0.6,
    similarity: Similarity | None = None,
) -> Validation:
    """Check an answer against the passages of its run: strip citations of passages never retrieved,
    remove sentences their passages do not support, check quotes verbatim and the question's stated
    requirements. The returned `Validation` says what passed and what the model must fix."""
    result = Validation()
    if searches_done < constraints.min_searches:
        result.fail("MIN_SEARCHES_UNMET", f"Required at least {constraints.min_searches} separate searches, "
                    f"but only {searches_done} were performed.")
    if opened_count < constraints.min_open_citations:
        result.fail("MIN_OPEN_CITATIONS_UNMET", f"Required to open at least {constraints.min_open_citations} "
                    f"citation(s), but only {opened_count} were opened.")

    # Rule 1: references to passages that do not exist in this run are stripped.
    def strip_invalid(match: re.Match[str]) -> str:
        n = int(match.group(1))
        if 1 <= n <= len(evidence):
            return match.group(0)
        result.stripped_refs.append(n)
        return ""

    # Code keeps its brackets: `subprotocols[0]` in a quoted example is an index, not a reference.
    cleaned = _outside_code(answer, lambda prose: CITE.sub(strip_invalid, prose)).strip()
    result.cleaned_answer = cleaned
    question_terms = set(content_terms(question))
    kept: list[str] = []
    removed_spans: list[tuple[int, int]] = []
    any_citation = False
    # Code blocks are claims of their own: a block must stand verbatim in the passage it cites
    # (or in some passage when uncited). They are then masked out of the sentence checks, whose
    # lexical support is meant for prose.
    masked = cleaned
    for block in FENCED.finditer(cleaned):
        code, ref = block.group("body"), block.group("ref")
        sources = [evidence[int(ref) - 1]] if ref else list(evidence)
        if any(collapse_ws(code) in collapse_ws(p.text) for p in sources):
            any_citation = any_citation or bool(ref)
        else:
            removed_spans.append((block.start(), block.end()))
            result.removed_sentences.append(code[:160])
            result.fail("UNGROUNDED_CLAIM", f'Unsupported: code block "{code[:80]}" (not verbatim in the source).')
        masked = masked[: block.start()] + re.sub(r"[^\n]", " ", block.group(0)) + masked[block.end() :]
    for text, start, end in split_sentences(masked):
        refs = [int(n) for n in CITE.findall(_blank_inline_code(text))]
        check = SentenceCheck(text, start, end, refs)
        body = CITE.sub("", text)
        if refs:
            any_citation = True
            scores = [support_score(body, _passage_context(evidence[n - 1])) for n in refs]
            check.support = max(scores)
            if check.support < threshold and similarity is not None and check.support >= threshold - 0.2:
                # Rule 2's embedding half: a paraphrase with most terms present and close meaning.
                best = refs[scores.index(check.support)]
                if similarity(body, evidence[best - 1].text) >= 0.75:
                    check.support = threshold
            if check.support < threshold:
                check.supported, check.reason = False, "not supported by the cited passage"
        elif _is_claim(text, question_terms):
            best_support = max((support_score(body, _passage_context(p)) for p in evidence), default=0.0)
            check.support = best_support
            if best_support < threshold:
                check.supported, check.reason = False, "a claim with no citation and no supporting passage"
        # Rule 2, second half: quoted text must be verbatim in what the sentence cites.
        cited_texts = [_norm(evidence[n - 1].text) for n in refs] or [_norm(p.text) for p in evidence]
        for quoted in _quotes(body):
            if not any(quoted in source for source in cited_texts):
                check.supported, check.reason = False, f'quoted text "{quoted[:60]}" is not verbatim in the source'
        result.sentences.append(check)
        if check.supported:
            kept.append(text)
        else:
            removed_spans.append((start, end))
            result.removed_sentences.append(text)
            result.fail("UNGROUNDED_CLAIM", f'Unsupported: "{text[:160]}" ({check.reason}).')

    if constraints.requires_exact_quote:
        opened_norm = [_norm(p.text) for p in evidence]
        quotes = _quotes(cleaned)
        blocks = [_norm(b.group("body")) for b in FENCED.finditer(cleaned)]
        if not any(q and any(q in src for src in opened_norm) for q in quotes + blocks):
            result.fail("EXACT_QUOTE_MISSING", "The question requires an exact quote from an opened passage; "
                        "quote it verbatim in quotation marks or a code block.")
    if constraints.requires_insufficiency_disclosure and not insufficiencies:
        phrase = constraints.disclosure_phrase
        if phrase.casefold() not in cleaned.casefold():
            result.fail("INSUFFICIENCY_NOT_DISCLOSED", f'State "{phrase}" for any part the documents do not cover.')
    if evidence and not any_citation and not is_decline(cleaned):
        result.fail("NO_CITATIONS", "The answer cites no passage; cite each claim with [n].")
    if not evidence and not is_decline(cleaned) and any(
        _is_claim(text, question_terms) for text, _, _ in split_sentences(cleaned)
    ):
        result.fail("NO_EVIDENCE", "No passage was retrieved, so no claim can be supported.")
    result.grounded_answer = _without(cleaned, removed_spans) if removed_spans else cleaned
    return result


def _quotes(text: str) -> list[str]:
    """The quoted phrases and code spans of `text` that must stand verbatim in a source, normalised."""
    return [_norm(phrase) for match in _QUOTED.finditer(text)
            if (phrase := match.group(1) or match.group(2)) and (match.group(1) or len(phrase) >= _SHORTEST_CODE_QUOTE)]


def _without(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with the spans cut out, keeping its line layout (blank runs collapsed)."""
    pieces, cursor = [], 0
    for start, end in sorted(spans):
        pieces.append(text[cursor:start])
        cursor = max(cursor, end)
    pieces.append(text[cursor:])
    lines = [line.rstrip() for line in "".join(pieces).splitlines()]
    kept = [line for line in lines if line.strip() not in {"-", "*"}]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()


def best_quote(fragment: str, passage: Passage) -> tuple[str, float]:
    """The span of the passage that best supports a fragment, verbatim, with its support score."""
    best_text, best_score = passage.text[:300], -1.0
    terms = content_terms(CITE.sub("", fragment))
    # A name's parts are the name once, not three terms of their own: the claim "follow_imports -
    # default: `normal`" is supported by the field saying the default, not by the bare name above it.
    parts = name_parts(terms)
    fragment_terms = [t for t in terms if t not in parts]
    candidates = [unit.text for unit in passage_units(1, passage)] or [span.text for span in segments(passage.text)]
    said = _norm(fragment)
    best_key: tuple[float, bool, int] | None = None
    for candidate in candidates:
        span_terms = set(content_terms(candidate))
        if not fragment_terms or not span_terms:
            continue
        overlap = sum(1 for t in fragment_terms if t in span_terms) / len(fragment_terms)
        # Among equally supporting units the one the fragment says word for word is its quote (of
        # "`before`: … before built-in help" and "`after`: … after built-in help" the terms alone cannot
        # tell), else the shortest, the sentence that says it.
        key = (overlap, _norm(candidate) in said, -len(candidate))
        if best_key is None or key > best_key:
            best_text, best_score, best_key = candidate, overlap, key
    if best_score < 0:
        best_score = support_score(fragment, passage.text)
    return best_text, round(max(0.0, best_score), 4)


def build_citations(answer: str, evidence: Sequence[Passage]) -> list[Citation]:
    """One Citation per claim and passage it cites, in order of appearance: each sentence (or code
    block) carrying `[n]`, with the sentences of its line before it that carry none, gets its own
    quote from passage n, so three points citing [1] show the three sentences that support them (an
    `[n]` repeated within one claim counts once). A bracketed number inside code (`argv[1]`) is code,
    not a reference."""
    citations: list[Citation] = []
    # (fragment, start, its references: (passage number, where the [n] stands in the answer))
    claims: list[tuple[str, int, list[tuple[int, int]]]] = []
    masked = answer
    for block in FENCED.finditer(answer):
        if block.group("ref"):
            claims.append((block.group("body").strip(), block.start(),
                           [(int(block.group("ref")), block.start("ref") - 1)]))
        masked = masked[: block.start()] + re.sub(r"[^\n]", " ", block.group(0)) + masked[block.end() :]
    # A marker closing several sentences of one line vouches for all of them (a quoted list item:
    # "`-w N` - Output at most N columns. Note that this option is `-W` in `diff`. [2]"): the claim
    # is the line's text since the last marker, not its last sentence alone, whose words may be
    # another item's as well.
    uncited: list[str] = []
    line_end = 0
    for text, start, end in split_sentences(masked):
        if "\n" in masked[line_end:start]:
            uncited = []
        line_end = end
        prose = _blank_inline_code(text)
        refs = [(int(m.group(1)), start + m.start() + (1 if m.group(0).startswith(" ") else 0)) for m in CITE.finditer(prose)]
        said = _outside_code(text, lambda words: CITE.sub("", words)).strip()
        if not refs:
            uncited.append(said)
            continue
        claims.append((" ".join([*uncited, said]), start, refs))
        uncited = []
    claims.sort(key=lambda claim: claim[1])
    for fragment, _, refs in claims:
        seen: set[int] = set()
        for n, position in refs:
            if n in seen or not 1 <= n <= len(evidence):
                continue
            seen.add(n)
            passage = evidence[n - 1]
            quote, overlap = best_quote(fragment, passage)
            citations.append(Citation(
                id=n, document_id=passage.document_id, document_name=passage.document_name,
                source=passage.source, chunk_id=passage.chunk_id, chunk_index=passage.chunk_index,
                page=passage.page, section=passage.section, quote=quote, response_fragment=fragment,
                position_in_response=position,
                score=round(passage.score, 4), confidence=round(support_score(fragment, passage.text) * 0.5
                                                                 + overlap * 0.5, 4),
            ))
    return citations


_INLINE_CODE = re.compile(r"`[^`\n]*`")


def _blank_inline_code(text: str) -> str:
    """`text` with its inline code spans blanked (same length), so what is found in it stands where it did."""
    return _INLINE_CODE.sub(lambda span: " " * len(span.group(0)), text)


def _outside_code(text: str, change: Callable[[str], str]) -> str:
    """`text` with `change` applied to everything but the code: fenced blocks' bodies and inline code spans."""
    spans = sorted([(m.start("body"), m.end("body")) for m in FENCED.finditer(text)]
                   + [m.span() for m in _INLINE_CODE.finditer(text)])
    pieces, at = [], 0
    for start, end in spans:
        if start < at:  # a span inside a block already kept
            continue
        pieces += [change(text[at:start]), text[start:end]]
        at = end
    pieces.append(change(text[at:]))
    return "".join(pieces)
