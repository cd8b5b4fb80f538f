"""The line grammar of AsciiDoc: what each source line of a page is.

A line is a delimiter (`----`, `====`, `|===`), a section title (`== Title`, or a title underlined on
the next line), a list item (`*`, `.`, `1.`, `term::`, `<1>`), a block attribute line (`[source,java]`),
an anchor, a block title (`.Title`), an attribute entry (`:name: value`), a comment, a block macro
(`image::x.png[]`), a break, or text. The loader reads blocks from these answers; nothing here keeps
state. Preprocessor directives (`ifdef::`, `include::`) are handled on the raw lines first, as
Asciidoctor handles them, so also inside listings.

Every pattern is linear on a single hostile line: none nests quantifiers that can backtrack over the
same characters, and those that could (a block macro, callout marks) are only tried on lines that can
be one or on the last few characters of a line.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

# Preprocessor directives: handled on lines before anything is parsed (as Asciidoctor does), so
# also inside listings. Conditionals keep their content (the attributes a build would set are not
# known here, and dropping content a reader may see is worse than keeping both branches).
_CONDITIONAL = re.compile(r"^(\\?)(ifdef|ifndef|ifeval|endif)::([^\[\n]*)\[(.*)\][ \t]*$")
_INCLUDE = re.compile(r"^(\\?)include::([^\[\n]+)\[(.*)\][ \t]*$")

# Delimited blocks: the line that opens one is repeated, exactly, to close it.
DELIMITER = re.compile(r"^(?:-{4,}|\.{4,}|={4,}|\*{4,}|_{4,}|\+{4,}|/{4,}|--|[|!,:]={3,}|```.*)[ \t]*$")
FENCE = re.compile(r"^```[ \t]*([\w+#.-]*)[ \t]*(?:,.*)?$")
_KIND_BY_CHAR = {"-": "listing", ".": "literal", "=": "example", "*": "sidebar", "_": "quote", "+": "pass",
                 "/": "comment", "|": "table", "!": "table", ",": "table", ":": "table", "`": "fence"}

HEADING = re.compile(r"^(={1,6}|#{1,6})[ \t]+(\S(?:.*\S)?)[ \t]*$")
_SETEXT_TITLE = re.compile(r"^\w.*\S[ \t]*$")
_SETEXT_UNDERLINE = re.compile(r"^([=\-~^+])\1+[ \t]*$")
_SETEXT_LEVELS = {"=": 1, "-": 2, "~": 3, "^": 4, "+": 5}

# Lines that say something about the block after them, or about the document.
ANCHOR_LINE = re.compile(r"^\[\[([\w:][\w:.-]*)(?:,[ \t]*(.+?))?\]\][ \t]*$")
ATTRIBUTE_LINE = re.compile(r"^\[(|[\w.#%{,\"'].*)\][ \t]*$")
BLOCK_TITLE = re.compile(r"^\.([^\s.].*)$")
ATTRIBUTE_ENTRY = re.compile(r"^:(!?)(\w[\w-]*)(!?):(?:[ \t]+(.*))?$")
COMMENT_LINE = re.compile(r"^//(?!//)")
_BLOCK_MACRO = re.compile(r"^([a-z][\w-]*)::(\S*?)\[(.*)\][ \t]*$")
BREAK = re.compile(r"^(?:'{3,}|<{3,}|-{3}|\*{3}|_{3}|- - -|\* \* \*)[ \t]*$")
# A line of one repeated punctuation character that is no delimiter Asciidoctor knows (`~~~~`,
# `^^^^`): a rule drawn in the source, not words.
RULE = re.compile(r"^([~^#%=<>*_.+/-])\1{3,}[ \t]*$")
ADMONITION_PARAGRAPH = re.compile(r"^(NOTE|TIP|IMPORTANT|WARNING|CAUTION):[ \t]+")
MARKDOWN_QUOTE = re.compile(r"^>(?:[ \t]|$)")

# List items: the marker says which list (and so which level) an item belongs to.
_UNORDERED = re.compile(r"^[ \t]*(\*{1,5}|-)[ \t]+(\S.*)$")
_ORDERED = re.compile(r"^[ \t]*(\.{1,5})[ \t]+(\S.*)$")
_NUMBERED = re.compile(r"^[ \t]*(\d{1,9}\.|[a-zA-Z]\.|[ivxlcdmIVXLCDM]{1,9}\))[ \t]+(\S.*)$")
_CALLOUT_ITEM = re.compile(r"^<(?:\d{1,4}|\.)>[ \t]+(\S.*)$")
DESCRIPTION = re.compile(r"^(?!//)[ \t]*([^ \t]|[^ \t].*?[^ \t])(:{2,4}|;;)(?:[ \t]+(.*))?$")
CHECKBOX = re.compile(r"^\[[ xX*]\][ \t]+")

# Callout marks ending a code line (`<1>`, `<!--2-->`), and the line comment that may hold them
# (`// <1>`, `# <2>`, `-- <3>`): read from the end of the line, a few characters at a time.
_CALLOUT_MARK = re.compile(r"(?:<!--(?:\d{1,4}|\.)-->|<(?:\d{1,4}|\.)>)$")
_CALLOUT_COMMENT = re.compile(r"(?://|#|--|;;|%)$")

# Diagram sources an extension draws as an image: not text a reader sees (as rst's diagram directives).
DIAGRAMS = frozenset(("plantuml", "ditaa", "graphviz", "mermaid", "a2s", "blockdiag", "seqdiag", "actdiag",
                      "nwdiag", "svgbob", "vega", "vegalite", "wavedrom", "bytefield", "d2", "dbml", "pikchr",
                      "structurizr", "umlet", "erd", "nomnoml", "bpmn", "gnuplot", "meme", "symbolator", "tikz"))
CODE_STYLES = frozenset(("source", "listing", "literal"))
MATH_STYLES = frozenset(("stem", "latexmath", "asciimath"))


@dataclass
class Lines:
    """The source's lines after preprocessing, each with its offsets in the (sanitized) source,
    and indexes to find where a delimiter repeats and where the next section starts."""

    text: list[str]
    starts: list[int]
    ends: list[int]
    included: list[str] = field(default_factory=list)
    delimiters: dict[str, list[int]] = field(default_factory=dict)
    sections: list[int] = field(default_factory=list)

    def index(self) -> None:
        """Record every delimiter line and every section title a block can run into."""
        discrete = False
        for number, line in enumerate(self.text):
            if line.startswith("```"):
                self.delimiters.setdefault("```", []).append(number)
            elif DELIMITER.match(line):
                self.delimiters.setdefault(line.rstrip(), []).append(number)
            elif line.startswith("=") and HEADING.match(line) and not discrete:
                self.sections.append(number)
            discrete = line.rstrip() in ("[discrete]", "[float]")

    def next_of(self, positions: list[int], after: int) -> int | None:
        """The first of `positions` past line `after`."""
        found = bisect_right(positions, after)
        return positions[found] if found < len(positions) else None


def preprocess(text: str) -> Lines:
    """The lines without preprocessor directives: conditionals keep what they enclose, includes
    are recorded (their targets are not read) and dropped."""
    lines = Lines([], [], [])
    position = 0
    for raw in text.split("\n"):
        start, position = position, position + len(raw) + 1
        line: str | None = raw
        if raw.startswith(("if", "endif", "include::", "\\")):
            line = _directive(raw, lines.included)
        if line is not None:
            lines.text.append(line)
            lines.starts.append(start)
            lines.ends.append(start + len(raw))
    lines.index()
    return lines


def _directive(raw: str, included: list[str]) -> str | None:
    """What stays of a line that may be a preprocessor directive: None for a directive, a
    single-line conditional's text, an escaped directive without its backslash."""
    for pattern in (_CONDITIONAL, _INCLUDE):
        match = pattern.match(raw)
        if match is None:
            continue
        if match.group(1):
            return raw[1:]
        if pattern is _INCLUDE:
            included.append(match.group(2).strip())
            return None
        content = match.group(4)
        return content if match.group(2) in ("ifdef", "ifndef") and content.strip() else None
    return raw


def list_item(line: str) -> tuple[str, str] | None:
    """A list item's marker (`*`, `**`, `-`, `.`, `1.`, `a.`, `::`, `<>`) and text."""
    if not line or not line.strip():
        return None
    start = line.lstrip()[:1]
    if start in "*-" and (match := _UNORDERED.match(line)):
        return match.group(1), match.group(2)
    if start == "." and (match := _ORDERED.match(line)):
        return match.group(1), match.group(2)
    if start == "<" and (match := _CALLOUT_ITEM.match(line)):
        return "<>", match.group(1)
    if start.isalnum() and (match := _NUMBERED.match(line)):
        return _numbering(match.group(1)), match.group(2)
    if ("::" in line or ";;" in line) and not line.startswith(("[", "//", ":", "=")) \
            and (match := DESCRIPTION.match(line)) and block_macro(line) is None:
        return match.group(2), match.group(3) or ""
    return None


def _numbering(marker: str) -> str:
    """The kind of an explicit number (`3.` → `1.`, `b.` → `a.`, `iv)` → `i)`): items of one list
    have different numbers but one kind."""
    if marker[0].isdigit():
        return "1."
    if marker.endswith(")"):
        return "i)" if marker.islower() else "I)"
    return "a." if marker.islower() else "A."


def block_kind(delimiter: str, style: str) -> str:
    """What a delimited block is, by its delimiter and its style: an open block (`--`) takes the
    kind its style names (`[source]` makes it a listing, `[comment]` a comment)."""
    kind = "open" if delimiter == "--" else _KIND_BY_CHAR[delimiter[0]]
    if style == "comment":
        return "comment"
    if kind == "open" and style in CODE_STYLES | DIAGRAMS:
        return "listing"
    if kind == "open" and (style == "pass" or style in MATH_STYLES):
        return "pass"
    return kind


def block_macro(line: str) -> re.Match[str] | None:
    """A block macro line (`image::arch.png[Diagram]`); only lines that can be one are matched, so
    the pattern never backtracks over a long line that is not."""
    if "::" not in line or not line.rstrip().endswith("]") or not line[:1].isalpha():
        return None
    return _BLOCK_MACRO.match(line)


def atx_heading(line: str) -> tuple[int, str] | None:
    """A one-line section title (`== Title`, `## Title`): its level (1 for `=`) and its title,
    without the closing marks a symmetric title repeats (`== Title ==`); None for other lines."""
    if line[:1] not in "=#" or (match := HEADING.match(line)) is None:
        return None
    marks, title = match.group(1), match.group(2)
    closing = f" {marks}"
    if title.endswith(closing) and len(title) > len(closing):
        title = title[: -len(closing)].rstrip()
    return len(marks), title


def setext_level(line: str, underline: str) -> int:
    """The level of a two-line title (a line underlined by `=`, `-`, `~`, `^` or `+` of about its
    length), else 0."""
    if not _SETEXT_TITLE.match(line):
        return 0
    title, underline = line.rstrip(), underline.rstrip()
    marked = _SETEXT_UNDERLINE.match(underline)
    if marked is None or abs(len(title) - len(underline)) > 1 or list_item(title) is not None:
        return 0
    return _SETEXT_LEVELS[marked.group(1)]


def without_callouts(line: str) -> str:
    """`line` without the callout marks that end it. A mark counts after a blank or in a line
    comment (`x = 1  # <1>`), so a type argument (`List<1>`) stays."""
    end = len(line.rstrip())
    first: int | None = None
    while end and line[end - 1] == ">" and (mark := _CALLOUT_MARK.search(line, max(0, end - 12), end)):
        first = end = mark.start()
        while end and line[end - 1] in " \t":
            end -= 1
    if first is None:
        return line
    comment = _CALLOUT_COMMENT.search(line, max(0, end - 2), end)
    if comment and (comment.start() == 0 or line[comment.start() - 1] in " \t"):
        end = comment.start()
    elif end == first and end > 0:  # glued to a word: no callout
        return line
    return line[:end].rstrip()


def paragraph_break(line: str) -> bool:
    """A line starting with `[`, `//` or `+` that ends a paragraph: a block attribute or anchor
    line, a comment block's delimiter, a lone `+`."""
    if line.startswith("["):
        return bool(ANCHOR_LINE.match(line) or ATTRIBUTE_LINE.match(line))
    if line.startswith("//"):
        return bool(DELIMITER.match(line))
    return line.strip() == "+"


def generated_id(title: str, prefix: str, separator: str) -> str:
    """The id Asciidoctor gives a section: lower-cased words joined by the separator, after the prefix."""
    words = re.sub(r"[^\w \-.]", "", title.lower())
    if separator:
        words = re.sub(r"[ .\-]+", separator, words).strip(separator)
    else:
        words = re.sub(r"[ .\-]+", "", words)
    return f"{prefix}{words}"
