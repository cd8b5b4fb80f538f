"""The quotable units of retrieved passages: sentences of prose, whole list items, whole table
rows and whole code blocks.

An answer is assembled from these, so their boundaries decide what a reader sees: a list item
keeps the name that gives its sentences meaning ("`max_age` - ... Defaults to 2 weeks."), a
code example is never torn into single lines, and a table row stays a row. Passages stored with
typed blocks are cut along them; passages without (an index built by a third-party loader) fall
back to splitting the text into sentences and lines.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from citeline.documents.models import ChunkBlock
from citeline.index.store import Passage
from citeline.retrieval.evidence import english_word, vocabulary
from citeline.retrieval.names import titled_name
from citeline.text import content_terms, segments

# A list item longer than this is quoted sentence by sentence, like prose.
_MAX_ITEM_WORDS = 70
_MIN_UNIT_CHARS = 12
UnitKind = str  # "sentence" | "list_item" | "table_row" | "code"


@dataclass(frozen=True)
class Unit:
    """One quotable piece of the evidence: `text` is `passage.text[start:end]` of passage `number`."""

    number: int  # the passage's [n] in the evidence list
    kind: UnitKind
    text: str
    start: int
    end: int
    block: int  # index of the block within its passage: units of one block share it
    label: str | None = None  # the list item's name, the code block's language, the tab's title
    first_in_block: bool = True
    # Passage offsets of one-line code displays set inside this sentence ("… by using ⏎ make
    # uninstall ⏎ optionally specifying prefix."): shown in a reader's answer as code spans.
    inline_code: tuple[tuple[int, int], ...] = ()
    language: str | None = None  # a code block's language, apart from the title it may be labelled with
    # The name of the thing this unit describes, when it sits in that thing's description (an
    # option's or a setting's body, a list item and what continues it, a section titled by the name);
    # never a note's or a tab's title.
    described: str | None = None
    cut: bool = False  # a piece of a code block too long for one chunk: the rest is in another passage

    @property
    def words(self) -> str:
        """What the unit says, to match against a question: its text without the code displays it
        hands over to after a colon ("… the URL would look like: ⏎ https://user:…"). The display is
        shown with the sentence, but a command that echoes the question's own words ("hatch build …")
        says nothing about what the sentence answers."""
        pieces, at = [], self.start
        for start, end in self.inline_code:
            if self.text[: start - self.start].rstrip().endswith(":"):
                pieces.append(self.text[at - self.start : start - self.start])
                at = end
        return "".join(pieces) + self.text[at - self.start :]

    @property
    def is_code(self) -> bool:
        """Whether the unit is a code block (shown whole, never as a sentence)."""
        return self.kind == "code"

    @property
    def is_example(self) -> bool:
        """Whether the unit is a code block an answer can show: a whole one, not a piece torn from it."""
        return self.is_code and not self.cut


# A version note ("New in version 3.0.0: Replaces `contextfilter`.") speaks of the entry it sits under.
VERSION_NOTE = re.compile(r"(?:New|Added|Changed|Deprecated|Removed)\s+(?:in|since)\s+version\b", re.IGNORECASE)

# Blocks whose label names the thing they describe (a note's or a tab's names its box, a row's its columns).
_DESCRIBING = frozenset(("paragraph", "list_item"))


def _sentences(text: str, offset: int) -> list[tuple[str, int, int]]:
    return [(span.text, offset + span.start, offset + span.end) for span in segments(text) if not span.code]


def passage_units(number: int, passage: Passage) -> list[Unit]:
    """The units of one passage, in reading order."""
    text = passage.text
    if not passage.blocks:
        return [Unit(number, "code" if span.code else "sentence", span.text, span.start, span.end, index)
                for index, span in enumerate(segments(text)) if len(span.text) >= _MIN_UNIT_CHARS]
    units: list[Unit] = []
    resumed: dict[int, int] = {}  # block index: where its text goes on after a sentence taken into the one before
    titled = entry = titled_name((passage.section or "").rsplit(" > ", 1)[-1])
    for index, block in enumerate(passage.blocks):
        if block.kind == "heading":
            titled = entry = titled_name(text[block.start : block.end])
        if block.flags or block.kind == "heading":
            continue
        if block.kind in _DESCRIBING and _is_field(block.label):
            described = titled  # a field of the entry its heading names ("Default: 3" under `net.retry`)
        elif block.kind in _DESCRIBING:
            described = entry = block.label or titled
        else:  # a version note is about the entry it sits in, which its own label does not name
            described = entry if block.kind == "note" and VERSION_NOTE.match(block.label or "") else None
        body = text[block.start : block.end]
        if not body.strip():
            continue
        if block.kind == "code":
            if content_terms(body):
                units.append(Unit(number, "code", body, block.start, block.end, index, block.label,
                                  language=block.language, cut=block.cut))
                # A help listing's options are its items, each quotable on its own.
                units.extend(Unit(number, "list_item", text[start:end], start, end, index, name, first_in_block=False,
                                  described=name) for name, start, end in listed_options(body, block.start))
            continue
        if index in resumed:
            body, offset = text[resumed[index] : block.end], resumed[index]
            if not body.strip():
                continue
        else:
            offset = block.start
        if _only_code(body) and not (block.kind == "table_row" and len(_CODE_SPAN.findall(body)) >= 2):
            # A bare `name` in a list says nothing a reader can take away on its own; a table row
            # pairing two ("`dev`: `1.0.0.dev0`") says what one becomes, or defaults to.
            continue
        if block.kind in ("list_item", "table_row") and len(body.split()) <= _MAX_ITEM_WORDS:
            units.append(Unit(number, block.kind, body, block.start, block.end, index, block.label,
                              described=described))
            continue
        sentences = _sentences(body, offset)
        joined = (_through_displays(passage, index, sentences[-1])
                  if block.kind in ("paragraph", "note") and sentences else None)
        if joined is not None:
            end, displays, resume = joined
            sentences[-1] = (text[sentences[-1][1] : end], sentences[-1][1], end)
            resumed.update(resume)
        for position, (sentence, start, end) in enumerate(sentences):
            if len(sentence) >= _MIN_UNIT_CHARS:
                inline = displays if joined is not None and position == len(sentences) - 1 else ()
                units.append(Unit(number, "sentence", sentence, start, end, index, block.label,
                                  position == 0 and index not in resumed, inline, described=described))
    return units


_MAX_INLINE_CODE = 100  # characters of a one-line code display read as part of a sentence
_UNFINISHED = re.compile(r"[\w,)'\"’”:]\s*$")  # a sentence that stops without a full stop (a colon hands over)
_GOES_ON = re.compile(r"\s*\(?[a-z]")  # text that continues a sentence begun before ("where …", "(where …")


def _through_displays(passage: Passage, index: int, last: tuple[str, int, int]
                      ) -> tuple[int, tuple[tuple[int, int], ...], dict[int, int]] | None:
    """A paragraph's (or a note's) unfinished last sentence that goes on through a one-line code display
    ("To install to another tree, use ⏎ R CMD INSTALL -l lib pkg.tar.gz ⏎ where lib gives the
    path …", as manuals typeset from Texinfo set a command in a sentence), or hands over to one
    with a colon ("… the URL with credentials would look like: ⏎ https://user:he%2F%2Fo@…"): the
    display is what the sentence says, and a reader wants it in the sentence. Returns where the
    sentence ends, the displays inside it, and for a paragraph it ends in, where that paragraph
    goes on; None when the sentence is finished or no display follows it."""
    blocks, text = passage.blocks, passage.text
    box = blocks[index]

    def in_box(block: ChunkBlock) -> bool:
        # A note's sentence goes on only inside the same note: its blocks are labelled by its title.
        return box.kind != "note" or block.label == box.label

    sentence, end = last[0], last[2]
    displays: list[tuple[int, int]] = []
    resume: dict[int, int] = {}
    following = index + 1
    while _UNFINISHED.search(sentence) and following < len(blocks):
        display = blocks[following]
        code = text[display.start : display.end].strip()
        if (display.kind != "code" or display.flags or "\n" in code or "`" in code
                or not 0 < len(code) <= _MAX_INLINE_CODE or not in_box(display)):
            break
        displays.append((display.start, display.end))
        end = display.end
        after = blocks[following + 1] if following + 1 < len(blocks) else None
        if (after is None or after.kind != box.kind or not in_box(after) or after.flags
                or not _GOES_ON.match(text[after.start : after.end])):
            break
        # The sentence goes on in the next paragraph, to that paragraph's first sentence end; past
        # another display only if that sentence is the whole paragraph.
        first = _sentences(text[after.start : after.end], after.start)
        if not first:
            break
        sentence, end = first[0][0], first[0][2]
        resume[following + 1] = end
        if len(first) > 1:
            break
        following += 2
    return (end, tuple(displays), resume) if displays else None


_CODE_SPAN = re.compile(r"`[^`]*`")


def shows_code(unit: Unit, code: Unit) -> bool:
    """Whether a unit already shows (part of) a code block: a sentence holding it as a code span (a
    display set inside it), or an option's entry read out of the block's help listing."""
    if unit.number != code.number or unit.is_code:
        return False
    return (code.start, code.end) in unit.inline_code or (
        listed_entry(unit) is not None and code.start <= unit.start < code.end)


# One option's line of a command's help output ("  --pretty-print        Format the JSON for human
# readers.", "   -A ARGS...           run ".archive ARGS" and exit"): an indented flag with its
# argument, then two or more spaces and its description in words, or nothing, the description then
# on the lines under it, indented further.
_OPTION_LINE = re.compile(r"(?P<indent>[ \t]{1,12})(?P<name>-{1,2}[\w\[][^\s]*(?:,? -{0,2}[^\s-][^\s]*)*?)"
                          r"(?:[ \t]{2,}(?P<words>[A-Za-z\"'(].*))?[ \t]*$")
_MIN_LISTED = 3  # option lines with a description that make a block a help listing
_MAX_OPTION_NAME = 40


def listed_options(body: str, offset: int) -> list[tuple[str, int, int]]:
    """The options a code block lists when it is a command's help output (`--help` as the docs show
    it): each option's name and where its entry stands (passage offsets), from the name to the end
    of its description's last wrapped line. Asked which option does something, a reader wants that
    entry, not the whole listing; an ordinary example has no such lines (fewer than three)."""
    lines: list[tuple[int, str]] = []
    at = 0
    for line in body.split("\n"):
        lines.append((at, line))
        at += len(line) + 1
    found: list[tuple[str, int, int]] = []
    index = 0
    while index < len(lines):
        start, line = lines[index]
        match = _OPTION_LINE.fullmatch(line)
        index += 1
        if match is None or len(match["name"]) > _MAX_OPTION_NAME:
            continue
        indent = len(match["indent"])
        if match["words"]:
            column = match.start("words")
        elif index < len(lines) and _indent(lines[index][1]) > indent + 2 and lines[index][1].strip():
            column = _indent(lines[index][1])
            index += 1
        else:
            continue
        end = lines[index - 1][0] + len(lines[index - 1][1].rstrip())
        # The description goes on over the lines indented to its column.
        while index < len(lines) and lines[index][1].strip() and _indent(lines[index][1]) >= column:
            end = lines[index][0] + len(lines[index][1].rstrip())
            index += 1
        found.append((match["name"], offset + start + match.start("name"), offset + end))
    return found if len(found) >= _MIN_LISTED else []


def listed_entry(unit: Unit) -> tuple[str, str] | None:
    """An option's name and description when the unit is its entry in a help listing (see
    `listed_options`: the entry opens with the name, then the gap before the description), else None."""
    name = unit.described
    if unit.kind != "list_item" or not name or not unit.text.startswith(name):
        return None
    rest = unit.text[len(name) :]
    return (name, rest.strip()) if rest[:2].isspace() else None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _only_code(text: str) -> bool:
    """Whether the text is nothing but code spans and punctuation."""
    return not re.search(r"[^\W_]", _CODE_SPAN.sub("", text))


_BARE_LINK = re.compile(r"[\s*•-]*<?(?:https?://|www\.)\S+?>?[\s.]*")


def is_bare_link(text: str) -> bool:
    """Whether a unit is nothing but a link (a "see also" list item): it points at an answer, it is none."""
    return bool(_BARE_LINK.fullmatch(text))


# "See also - json_object_put()", "See `connect()`.", "Refer to the Timeouts section.": a pointer.
_POINTER = re.compile(r"^\s*(?:see(?:\s+also)?|refer\s+to|cf\.)(?=[\s:–—-])[\s:–—-]*", re.IGNORECASE)


_SEE_ALSO = re.compile(r"^\s*see\s+also\b", re.IGNORECASE)
_SEE_ALSO_SECTION = re.compile(r"^\s*see\s+also\s*:?\s*$", re.IGNORECASE)
# What a "See also" lists: names in code, calls, dotted or joined identifiers, and their separators.
_LISTED_NAME = re.compile(r"`[^`]*`|[\w.#:$-]+\([^()]*\)|\b\w+(?:[_.#:]\w+)+\b|\b(?:and|or)\b|[\s,;.]")


# Javadoc's note that a member is declared or overridden elsewhere: "Specified by: `timeout` in
# interface `Connection`".
_INHERITED = re.compile(r"^\s*(?:specified\s+by|overrides)\s*:?\s*`[^`]+`\s+in\s+(?:interface|class)\s+`[^`]+`\s*$",
                        re.IGNORECASE)


def only_points(text: str, question_vocab: frozenset[str]) -> bool:
    """Whether a unit only points elsewhere: a bare link, a "See also" listing names ("See Also:
    `parse(String, String)`"), where a member is declared ("Specified by: `timeout` in interface
    `Connection`"), or any pointer at what the question names ("See also - json_object_put()" to
    "What does json_object_put do?"). It sends the reader to an answer."""
    if is_bare_link(text) or _INHERITED.match(text):
        return True
    pointer = _POINTER.match(text)
    if pointer is None:
        return False
    rest = text[pointer.end():]
    listed = _SEE_ALSO.match(text) is not None and not _LISTED_NAME.sub("", rest)
    return listed or vocabulary(rest) <= question_vocab


def under_see_also(title: str | None) -> bool:
    """Whether a section (its path's last title) or a note is a "See also" (a manual page's SEE
    ALSO: "info msgmerge", "The full documentation for msgmerge is maintained as a Texinfo manual.";
    Sphinx's `seealso` note: "The `pythonpath` configuration variable."): everything under it points
    elsewhere, a command to run or a page to read included. Chunks never straddle sections, so a
    passage's section is every unit's."""
    return _SEE_ALSO_SECTION.match((title or "").rsplit(" > ", 1)[-1]) is not None


def listed_under_see_also(passage: Passage, unit: Unit) -> bool:
    """Whether a list item sits in a list that a "See also:" line introduces (Nim's entries: "See
    also:" over "alignLeft func for left alignment", ...): such a list points elsewhere."""
    if unit.kind != "list_item":
        return False
    block = unit.block - 1
    while block >= 0 and passage.blocks[block].kind == "list_item":
        block -= 1
    if block < 0:
        return False
    intro = passage.blocks[block]
    return under_see_also(passage.text[intro.start : intro.end])


def is_a_name(title: str) -> bool:
    """Whether a described thing's title is a name ("`network_stream`", "--concise", "NO_PROXY",
    "truststore") rather than words heading a section, a note or a field ("Implementation", "Note",
    "Default"): only a name says what a description that is no sentence is about."""
    return bool(re.search(r"[^\w\s]|[_\d]", title)) or not all(map(english_word, re.findall(r"[^\W\d_]+", title)))


def _is_field(label: str | None) -> bool:
    """Whether an item's label names a field of a reference entry ("Default", "Type", "Environment
    variable"): capitalised words, not a name. A lower-case word labels an attribute of that name
    (`permanent`, `modified`) as a name does."""
    return label is not None and label[:1].isupper() and not is_a_name(label)


def evidence_units(evidence: Sequence[Passage]) -> list[Unit]:
    """Every unit of the evidence, numbered by passage ([1] is the first passage)."""
    return [unit for number, passage in enumerate(evidence, 1) for unit in passage_units(number, passage)]


_ITEM_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[`\"'(\[*_]*[A-Z0-9`])")


def item_sentences(unit: Unit) -> list[str]:
    """The sentences of a list item or row (its text split at sentence ends)."""
    return text_sentences(unit.text)


def text_sentences(text: str) -> list[str]:
    """`text` split at sentence ends (as an item's sentences are)."""
    return [piece for piece in _ITEM_SENTENCE.split(text) if piece.strip()]
