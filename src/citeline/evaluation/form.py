"""How an answer reads, measured: lead sentence, length, source markup, torn code, repeats.

These checks look only at the answer text, so they apply to any answerer. Fenced code blocks
and inline code spans are left out of the markup and length checks: code shown as code is the
intended presentation, while the same characters in prose are the source's syntax leaking.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCED = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?^[ \t]*\1[ \t]*$", re.MULTILINE | re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]+`")
_CITATION = re.compile(r"\s*\[\d{1,3}\]")
_LIST_MARK = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[`*_]*[A-Z0-9])|\n")

# Syntax of source formats and documentation generators that a reader should never be quoted.
MARKUP = {
    "mkdocs tab": re.compile(r'^\s*===\s*"', re.MULTILINE),
    "admonition": re.compile(r"^\s*(?:!!!|\?\?\?\+?)\s*\w", re.MULTILINE),
    "attribute list": re.compile(r"\{:\s*[^}]*\}"),
    "html comment": re.compile(r"<!--|-->"),
    "html tag": re.compile(r"</?(?:div|span|p|a|img|br|hr|table|tr|td|th|details|summary|kbd|pre|script|style|"
                           r"iframe|svg|button|figure|center|font|section)\b[^>]*>", re.IGNORECASE),
    "rst role": re.compile(r"(?<![\w`]):[\w.+-]+(?::[\w.+-]+)*:`"),
    "rst directive": re.compile(r"^\s*\.\.\s+[\w.:+-]+::", re.MULTILINE),
    "myst role": re.compile(r"(?<![\w`{])\{[\w.:+-]+\}`"),
    "myst directive": re.compile(r"^\s*(?:`{3,}|:{3,})\{[\w.:+-]+\}", re.MULTILINE),
    "myst target": re.compile(r"^\s*\([^()\s]+\)=\s*$", re.MULTILINE),
    "rst reference": re.compile(r"`[^`\n]+`__?(?!\w)"),
    "heading underline": re.compile(r"(?:^|\s)([=\-~^*#+\"'])\1{3,}\s*$", re.MULTILINE),
    # A reference link's text opens with a word: "[, action][, nargs]" is a signature's optional
    # arguments (`add_argument(name or flags...[, action][, nargs])`), not a link.
    "markdown link": re.compile(r"\[[^\]\n]+\]\((?:[^)\s]+)\)|\[[^\]\n,\s][^\]\n]*\]\[[^\]\n]*\]"),
    "markdown heading": re.compile(r"^\s*#{1,6}\s+\S", re.MULTILINE),
    "markdown table": re.compile(r"^\s*\|.*\|\s*$|\|\s*:?-{3,}", re.MULTILINE),
    "include directive": re.compile(r"--8<--|\{\*[^}]*\*\}|^\s*:::\s+[\w.]+", re.MULTILINE),
    "template tag": re.compile(r"\{%.*?%\}|\{\{.*?\}\}"),
    "pilcrow": re.compile(r"¶"),
    # An emoji shortcode a renderer would have drawn (":white_check_mark:"); names with an underscore,
    # so a colon-delimited word of prose ("see: note:") is not taken for one.
    "emoji shortcode": re.compile(r"(?<![\w:`]):[a-z0-9]+(?:_[a-z0-9]+)+:(?![\w:`])"),
    "source link": re.compile(r"\[source\]", re.IGNORECASE),
    # AsciiDoc: a macro with its target and brackets, a cross reference, a block attribute line.
    "asciidoc macro": re.compile(r"\b(?:xref|link|image|include|ifn?def|endif|kbd|btn|menu|footnote|pass):{1,2}"
                                r"[^\s\[\]]*\[[^\]\n]*\]"),
    "asciidoc cross reference": re.compile(r"<<[\w:./#-]+(?:,[^>\n]*)?>>"),
    "asciidoc block attribute": re.compile(r"^\s*\[(?:source|NOTE|TIP|IMPORTANT|WARNING|CAUTION|quote|verse|"
                                          r"cols=|options=)[^\]\n]*\]\s*$", re.MULTILINE),
    "pdf artefact": re.compile(r"\(continue[sd] (?:on|from) (?:next|previous) page\)|\.{5,}\s*\d+\s*$",
                               re.IGNORECASE | re.MULTILINE),
}
# 25 letters or more with no space: words whose spaces a text extractor lost ("thedefaultvalueis").
_RUN_TOGETHER = re.compile(r"(?<![\w/-])(?<!\w\.)[^\W\d_]{25,}(?![\w/-]|\.\w)")


def prose(answer: str) -> str:
    """The answer without fenced code blocks and inline code spans."""
    return _INLINE_CODE.sub(" ", _FENCED.sub("\n", answer))


def first_sentence(answer: str) -> str:
    """The answer's first sentence, after a leading list marker; citation markers removed."""
    text = _CITATION.sub("", answer).strip()
    text = _LIST_MARK.sub("", text, count=1)
    return _SENTENCE_END.split(text, maxsplit=1)[0].strip()


def words_outside_code(answer: str) -> int:
    """Words of the answer outside fenced code blocks, not counting citation markers."""
    return len(_CITATION.sub(" ", _FENCED.sub("\n", answer)).split())


# Markup made around code is looked for with each inline code span kept as an empty one: a role,
# reference or link is marked up around a code span ({ref}`x`, :func:`x`, `x`_, and a cross-reference
# mkdocs-autorefs resolves, [`MetaPreprocessor`][markdown.extensions.meta.MetaPreprocessor]), while a
# code span's own braces and brackets are code (`${API_TOKEN}`, `cup-{version}`, `x[0][1]`). A
# directive's fence is a line of its own.
_BACKQUOTED = frozenset({"rst role", "rst reference", "myst role", "markdown link"})
_DIRECTIVE_FENCE = frozenset({"myst directive"})


def markup_found(answer: str) -> list[str]:
    """Names of the kinds of source markup present in the answer outside code blocks."""
    outside_blocks = _FENCED.sub("\n", answer)
    spans_emptied = _INLINE_CODE.sub("`code`", outside_blocks)
    text = _INLINE_CODE.sub(" ", outside_blocks)
    found = []
    for name, pattern in MARKUP.items():
        searched = spans_emptied if name in _BACKQUOTED else outside_blocks if name in _DIRECTIVE_FENCE else text
        if pattern.search(searched):
            found.append(name)
    return found


def has_run_together_words(answer: str) -> bool:
    """Whether the answer's prose has words whose spaces a text extractor lost ("thedefaultvalueis")."""
    return bool(_RUN_TOGETHER.search(prose(answer)))


def points(answer: str) -> list[str]:
    """The answer's lines outside code blocks, citation markers and list marks removed."""
    body = _FENCED.sub("\n", answer)
    result = []
    for line in body.splitlines():
        text = _LIST_MARK.sub("", _CITATION.sub("", line)).strip()
        if text:
            result.append(text)
    return result


def torn_code_points(answer: str) -> int:
    """Points that are nothing but one code span: a line torn out of a code example."""
    return sum(1 for point in points(answer) if re.fullmatch(r"`[^`]+`[.:;,]?", point))


def repeated_points(answer: str) -> int:
    """Points that repeat an earlier point of the same answer (compared without case or spacing)."""
    seen: set[str] = set()
    repeats = 0
    for point in points(answer):
        key = " ".join(point.casefold().split())
        repeats += key in seen
        seen.add(key)
    return repeats


@dataclass(frozen=True)
class AnswerForm:
    """The form checks of one answer."""

    words: int
    markup: list[str]
    run_together: bool
    torn_code: int
    repeats: int

    @classmethod
    def of(cls, answer: str) -> AnswerForm:
        """Run every form check on one answer."""
        return cls(words_outside_code(answer), markup_found(answer), has_run_together_words(answer),
                   torn_code_points(answer), repeated_points(answer))
