"""AsciiDoc's inline markup and attributes, read as the rendered page reads them.

A paragraph's text goes through the substitutions Asciidoctor applies, in its order, except that
each one removes its markup instead of writing HTML: passthroughs keep their text, monospace stays
a code span in backquotes (as inline code is stored everywhere), `{name}` references take their
attribute's value, macros (links, cross references, keys, buttons, menus, footnotes, images,
index terms) become the words a reader sees, emphasis marks go and `(C)`, `--` and `...` become
the characters they draw.

Every pattern is linear in its input: a constrained pair (`*bold*`, `_emphasis_`) is matched by a
single pass pairing each opening mark with the nearest closing mark after it, which is what
Asciidoctor's lazy patterns find, without their backtracking over a paragraph full of unmatched
marks; bracketed macro text is bounded in length.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from citeline.text import code_span

# Attributes Asciidoctor defines for characters that are otherwise markup or hard to type. Their
# values are literal: `{asterisk}` next to a word is an asterisk, never half of a bold pair.
CHARACTER_ATTRIBUTES: dict[str, str] = {
    "amp": "&", "apos": "'", "asterisk": "*", "backslash": "\\", "backtick": "`", "blank": "", "brvbar": "¦",
    "caret": "^", "cpp": "C++", "deg": "°", "empty": "", "endsb": "]", "gt": ">", "ldquo": "“", "lsquo": "‘",
    "lt": "<", "nbsp": "\u00a0", "plus": "+", "pp": "++", "quot": '"', "rdquo": "”", "rsquo": "’", "sp": " ",
    "startsb": "[", "tilde": "~", "two-colons": "::", "two-semicolons": ";;", "vbar": "|", "wj": "", "zwsp": "",
}

_PLACEHOLDER = re.compile("\x00(\\d+)\x01")
# `{name}`, `{set:name:value}`, `{counter:name}`; a backslash before the brace escapes it.
_REFERENCE = re.compile(r"(\\)?\{((?:set|counter2?):[^{}\n]{1,200}|\w[\w-]*)\}")
_HARD_BREAK = re.compile(r"[ \t]\+[ \t]*$", re.MULTILINE)
# What a backslash escapes: a mark, a replacement, or a macro name (`\https://x` stays a bare URL).
_ESCAPED = re.compile(
    r"\\(\*\*|__|##|``|[*_#`^~{\[<(+]|--|\.\.\.|"
    r"(?:https?|ftp|irc|mailto|link|xref|image|icon|kbd|btn|menu|footnote|footnoteref|pass|stem|latexmath|"
    r"asciimath|anchor|indexterm2?):)"
)
_TRIPLE_PLUS = re.compile(r"\+\+\+(.+?)\+\+\+", re.DOTALL)
# Opened and closed by different marks: bounded, or a run of unclosed openers would each scan to the end.
_LITERAL_MONOSPACE = re.compile(r"`\+(.{1,2000}?)\+`", re.DOTALL)
_DOUBLE_BACKTICK = re.compile(r"``(.+?)``", re.DOTALL)
# Curved quotes: "`double`" and '`single`' are drawn as “double” and ‘single’, not as code.
_CURVED_QUOTES = ((re.compile(r"\"`([^`\n]{1,500}?)`\""), "“", "”"), (re.compile(r"'`([^`\n]{1,500}?)`'"), "‘", "’"))
# A macro's bracketed text; bounded, as an unclosed `[` is scanned once per macro that opens it.
_BRACKETED = r"\[((?:\\.|[^\]\\]){0,1000})\]"
_PASS_MACRO = re.compile(r"pass:[a-z,]*" + _BRACKETED)
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>\n]{0,500}>")
_ENTITY = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#\d{1,7}|#[xX][0-9A-Fa-f]{1,6});")

_UNCONSTRAINED = (re.compile(r"\*\*(.+?)\*\*", re.DOTALL), re.compile(r"__(.+?)__", re.DOTALL),
                  re.compile(r"##(.+?)##", re.DOTALL))
# A role or id before a mark (`[.underline]#text#`, `[#id]*text*`): styling, not text.
_ROLE = re.compile(r"\[[.#%][\w.#%-]*\](?=[*_#`^~\x00])|\[[\w-]+\](?=##?\S)")
_SUPERSCRIPT = re.compile(r"\^([^\s^]{1,200})\^")
_SUBSCRIPT = re.compile(r"~([^\s~]{1,200})~")
_SUPERSCRIPT_DIGITS = str.maketrans("0123456789+-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻")
_SUBSCRIPT_DIGITS = str.maketrans("0123456789+-", "₀₁₂₃₄₅₆₇₈₉₊₋")

_REPLACEMENTS = (
    (re.compile(r"\(C\)"), "©"), (re.compile(r"\(R\)"), "®"), (re.compile(r"\(TM\)"), "™"),
    (re.compile(r"(?<=\w)--(?=\w)"), "—"),
    (re.compile(r"(?:(?<=\s)|^)--(?=\s|$)", re.MULTILINE), "—"),
    (re.compile(r"(?<!\.)\.\.\.(?!\.)"), "…"),
)

# Macros, in the order they are replaced: what each leaves of itself is kept from later passes.
_BIBLIOGRAPHY_ANCHOR = re.compile(r"\[\[\[([\w:][\w:.-]{0,200})(?:,[^\]\n]{0,200})?\]\]\]")
_INLINE_ANCHOR = re.compile(r"\[\[[\w:][\w:.-]{0,200}(?:,[^\]\n]{0,200})?\]\]|anchor:[^\s\[]{1,200}" + _BRACKETED)
_FOOTNOTE = re.compile(r"footnote(?:ref)?:([\w-]{0,200})" + _BRACKETED)
_IMAGE = re.compile(r"(?:image|icon):(?!:)[^\s\[]{0,1000}" + _BRACKETED)
_URL = re.compile(r"(?<![\w/\\])((?:https?|ftp|irc|file)://[^\s\[\]<>\"\x00\x01]{1,2000}|mailto:[^\s\[\]<>\"\x00\x01]{1,500})"
                  + _BRACKETED)
_BARE_URL = re.compile(r"(?<![\w/\\])(?:https?|ftp|irc)://[^\s\[\]<>\"\x00\x01]{1,2000}")
# A link whose target starts with an attribute the file does not define (a site's build defines
# `{url-docs}`): the reader of the built page sees its text.
_UNRESOLVED_LINK = re.compile(r"(?<![\w\\])\{[\w-]{1,100}\}[^\s\[\]<>\"\x00\x01]{0,2000}" + _BRACKETED)
_ANGLE_URL = re.compile(r"<((?:https?|ftp|irc)://[^\s<>]{1,2000})>")
_LINK = re.compile(r"link:([^\s\[]{1,2000})" + _BRACKETED)
_XREF = re.compile(r"xref:([^\s\[]{1,1000})" + _BRACKETED)
_ANGLE_XREF = re.compile(r"<<([^<>\n]{1,1000}?)>>")
_KBD = re.compile(r"kbd:" + _BRACKETED)
_BTN = re.compile(r"btn:" + _BRACKETED)
_MENU = re.compile(r"menu:([^\s\[]{1,500})" + _BRACKETED)
_STEM = re.compile(r"(?:stem|latexmath|asciimath):" + _BRACKETED)
_INDEX_TERM_SHOWN = re.compile(r"indexterm2:" + _BRACKETED + r"|(?<![\w(])\(\(([^()\n]{1,300})\)\)(?!\))")
_INDEX_TERM_HIDDEN = re.compile(r"indexterm:" + _BRACKETED + r"|\(\(\([^()\n]{1,300}\)\)\)")
# Any other inline macro (an extension's `javadoc:org.example.Type[]`): its text, else its target.
_OTHER_MACRO = re.compile(r"(?<![\w\\:/.-])[a-z][\w-]{0,50}:(?!//)([^\s\[\]:\x00\x01][^\s\[\]\x00\x01]{0,1000})?"
                          + _BRACKETED)
_NAMED_ATTRIBUTE = re.compile(r"^\s*[\w-]+\s*=")


@dataclass
class BlockAttributes:
    """A block attribute line (`[source,python,indent=0]`, `[NOTE]`, `[quote, Author]`) parsed:
    positional values, named values and the options of `%name` or `options=`."""

    positional: list[str] = field(default_factory=list)
    named: dict[str, str] = field(default_factory=dict)
    options: set[str] = field(default_factory=set)

    @property
    def style(self) -> str:
        """The first positional value without its `#id`, `.role` and `%option` shorthands, lower-cased."""
        first = self.positional[0] if self.positional else ""
        return re.split(r"[#.%]", first, maxsplit=1)[0].strip().lower()

    def merge(self, other: BlockAttributes) -> None:
        """Take the values of a further attribute line above the same block."""
        for index, value in enumerate(other.positional):
            if index >= len(self.positional):
                self.positional.append(value)
            elif value:
                self.positional[index] = value
        self.named.update(other.named)
        self.options |= other.options


def parse_attribute_list(text: str) -> BlockAttributes:
    """The values of an attribute list's text (what is between its brackets)."""
    attributes = BlockAttributes()
    for index, token in enumerate(_split_attribute_list(text)):
        name, equals, value = token.partition("=")
        if equals and re.fullmatch(r"\s*[\w-]+\s*", name):
            key = name.strip().lower()
            attributes.named[key] = _unquote(value.strip())
            if key in ("options", "opts"):
                attributes.options |= {part.strip().lower() for part in attributes.named[key].split(",") if part.strip()}
            continue
        value = _unquote(token.strip())
        attributes.positional.append(value)
        if index == 0:  # `source%nowrap`, `%header`: options given in the style's shorthand
            attributes.options |= {option.lower() for option in re.findall(r"%([\w-]+)", value)}
    return attributes


def _split_attribute_list(text: str) -> list[str]:
    """Comma-separated values; a value that starts with a quote (`"a, b"`, `subs="verbatim,quotes"`)
    runs to its closing quote, commas included."""
    tokens: list[str] = []
    current: list[str] = []
    quote = ""
    value_start = True  # no character of the current value seen yet (after a comma or `=`)
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char == ",":
            tokens.append("".join(current))
            current, value_start = [], True
            continue
        elif char in "\"'" and value_start:
            quote = char
        if not char.isspace():
            value_start = char == "="
        current.append(char)
    tokens.append("".join(current))
    return tokens


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def first_positional(text: str) -> str:
    """The words of a macro's bracketed text: its first value when it is an attribute list
    (`text,window=_blank`, `"a, b",role=x`), else all of it; a trailing `^` (new window) goes."""
    text = text.replace("\\]", "]")
    if "=" in text and ("," in text or _NAMED_ATTRIBUTE.match(text)):
        values = parse_attribute_list(text).positional
        text = values[0] if values else ""
    return text.strip().removesuffix("^").strip()


@dataclass
class Attributes:
    """The document's attributes: defined by `:name: value` entries, referenced as `{name}`.

    Names are case-insensitive. A reference to an attribute that is not defined is left as it is
    written, as Asciidoctor leaves it."""

    values: dict[str, str] = field(default_factory=dict)
    counters: dict[str, int] = field(default_factory=dict)

    def define(self, name: str, value: str) -> None:
        """Set an attribute; its value's own references are resolved now, as Asciidoctor does."""
        self.values[name.lower()] = self.substitute(value)

    def unset(self, name: str) -> None:
        """Remove an attribute (`:name!:`)."""
        self.values.pop(name.lower(), None)

    def get(self, name: str) -> str | None:
        """An attribute's value, or None when it is not defined."""
        name = name.lower()
        if name in self.values:
            return self.values[name]
        return CHARACTER_ATTRIBUTES.get(name)

    def substitute(self, text: str, literal: Callable[[str], str] | None = None) -> str:
        """`text` with its attribute references replaced. `literal` wraps a character attribute's
        value so that later substitutions leave it alone."""
        if "{" not in text:
            return text
        return _REFERENCE.sub(lambda match: self._reference(match, literal), text)

    def _reference(self, match: re.Match[str], literal: Callable[[str], str] | None) -> str:
        if match.group(1):
            return match.group(0)[1:]
        name = match.group(2)
        if ":" in name:
            return self._directive(name)
        lowered = name.lower()
        if lowered not in self.values and lowered in CHARACTER_ATTRIBUTES:
            character = CHARACTER_ATTRIBUTES[lowered]
            return literal(character) if literal else character
        value = self.values.get(lowered)
        return match.group(0) if value is None else value

    def _directive(self, text: str) -> str:
        """`{set:name:value}` and `{counter:name}`: the first sets and shows nothing, the second
        counts up and shows its value (`counter2` counts silently)."""
        kind, _, rest = text.partition(":")
        name, _, value = rest.partition(":")
        if kind == "set":
            if name.endswith("!"):
                self.unset(name[:-1])
            else:
                self.define(name, value)
            return ""
        count = self.counters.get(name.lower())
        count = (int(value) if value.isdigit() else 1) if count is None else count + 1
        self.counters[name.lower()] = count
        self.values[name.lower()] = str(count)
        return "" if kind == "counter2" else str(count)


class _Stash:
    """Finished pieces of text, replaced by placeholders so that later substitutions leave them
    alone (a code span's asterisks are not bold marks). NUL and SOH never survive `sanitize`, so
    a placeholder cannot be forged by the document."""

    def __init__(self) -> None:
        self.pieces: list[str] = []

    def put(self, text: str) -> str:
        self.pieces.append(self.restore(text))
        return f"\x00{len(self.pieces) - 1}\x01"

    def restore(self, text: str) -> str:
        if "\x00" not in text:
            return text
        return _PLACEHOLDER.sub(lambda match: self.pieces[int(match.group(1))], text)


def constrained_pairs(text: str, mark: str, before: str = ";:}", after: str = "") -> list[tuple[int, int]]:
    """Where a constrained pair of `mark` opens and closes (`*bold*`, not `2*3*4`).

    A mark opens after a character that is not a word character (nor one of `before`) and before a
    non-space; it closes after a non-space and before a character that is not a word character (nor
    one of `after`). Each opening mark pairs with the nearest closing mark after it that leaves the
    pair some content, as Asciidoctor's lazy pattern does; one pass over the marks finds them all."""
    width = len(mark)
    openers: list[int] = []
    closers: list[int] = []
    position = text.find(mark)
    while position >= 0:
        previous = text[position - 1] if position else " "
        following = text[position + width] if position + width < len(text) else " "
        if not _is_word(previous) and previous not in before and not following.isspace():
            openers.append(position)
        if position and not previous.isspace() and not _is_word(following) and following not in after:
            closers.append(position)
        position = text.find(mark, position + width)
    pairs: list[tuple[int, int]] = []
    cursor, last = 0, -1
    for opener in openers:
        if opener <= last:
            continue
        while cursor < len(closers) and closers[cursor] < opener + width + 1:
            cursor += 1
        if cursor == len(closers):
            break
        pairs.append((opener, closers[cursor]))
        last = closers[cursor] + width - 1
        cursor += 1
    return pairs


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _replace_pairs(text: str, mark: str, pairs: list[tuple[int, int]], replace: Callable[[str], str]) -> str:
    """`text` with each paired span (marks included) replaced by `replace(content)`."""
    if not pairs:
        return text
    width = len(mark)
    pieces: list[str] = []
    position = 0
    for opener, closer in pairs:
        pieces.append(text[position:opener])
        pieces.append(replace(text[opener + width : closer]))
        position = closer + width
    pieces.append(text[position:])
    return "".join(pieces)


def strip_quotes(text: str) -> str:
    """Emphasis marks removed: strong, emphasis and highlight (unconstrained `**x**` and constrained
    `*x*`), superscript and subscript (digits drawn raised or lowered, `2^10^` reads 2¹⁰)."""
    text = _ROLE.sub("", text)
    for pattern in _UNCONSTRAINED:
        text = pattern.sub(r"\1", text)
    for mark in "*_#":
        text = _replace_pairs(text, mark, constrained_pairs(text, mark), _unchanged)
    text = _SUPERSCRIPT.sub(lambda match: _shifted(match.group(1), _SUPERSCRIPT_DIGITS), text)
    return _SUBSCRIPT.sub(lambda match: _shifted(match.group(1), _SUBSCRIPT_DIGITS), text)


def _curved_quotes(text: str) -> str:
    if "`" not in text:
        return text
    for pattern, opening, closing in _CURVED_QUOTES:
        text = pattern.sub(rf"{opening}\1{closing}", text)
    return text


def _unchanged(content: str) -> str:
    return content


def _shifted(content: str, table: dict[int, int]) -> str:
    return content.translate(table) if re.fullmatch(r"[0-9+-]+", content) else content


def _replacements(text: str) -> str:
    for pattern, character in _REPLACEMENTS:
        text = pattern.sub(character, text)
    return _ENTITY.sub(lambda match: html.unescape(match.group(0)), text)


def _stash_matches(pattern: re.Pattern[str], words: Callable[[re.Match[str]], str], text: str, stash: _Stash) -> str:
    return pattern.sub(lambda match: stash.put(words(match)), text)


def readable_reference(target: str) -> str:
    """A cross reference's target as words, for a target whose title is unknown:
    `_getting_started` reads "getting started", `install.adoc#proxy-setup` "proxy setup"."""
    path, _, anchor = target.partition("#")
    name = anchor or re.sub(r"\.(?:adoc|asciidoc|asc|ad)$", "", path.rsplit("/", 1)[-1])
    return " ".join(re.split(r"[_\-]+", name)).strip() or target


class InlineRenderer:
    """Renders inline AsciiDoc as plain text against the document's attributes.

    `references` maps section and anchor ids to their titles, so `<<install>>` reads as the
    title of the section it points at. Footnotes are collected in `footnotes` (their marks are
    dropped from the text) for the loader to lay out after the text that cites them."""

    def __init__(self, attributes: Attributes, references: dict[str, str] | None = None) -> None:
        self.attributes = attributes
        self.references = references if references is not None else {}
        self.footnotes: list[str] = []

    def render(self, text: str) -> str:
        """The words a reader sees of `text`; whitespace is left for the builder to collapse."""
        stash = _Stash()
        text = _HARD_BREAK.sub("", text)
        text = self._passthroughs(text, stash)
        text = _ESCAPED.sub(lambda match: stash.put(match.group(1)), text)
        text = _curved_quotes(text)
        text = self._code_spans(text, stash)
        text = self.attributes.substitute(text, stash.put)
        text = self._macros(text, stash)
        text = strip_quotes(text)
        return stash.restore(_replacements(text))

    def code(self, text: str) -> str:
        """A code span's content: attribute references resolved, nothing else touched."""
        return self.attributes.substitute(text)

    def _passthroughs(self, text: str, stash: _Stash) -> str:
        """Text passed through without substitutions: `+literal+`, `++literal++`, `+++html+++`,
        `pass:[...]`; literal monospace (`` `+{not-an-attribute}+` ``) is a code span of its text."""
        if "+" not in text and "pass:" not in text:
            return text
        text = _LITERAL_MONOSPACE.sub(lambda match: stash.put(code_span(match.group(1))), text)
        text = _TRIPLE_PLUS.sub(lambda match: stash.put(_HTML_TAG.sub("", match.group(1))), text)
        text = _PASS_MACRO.sub(lambda match: stash.put(_HTML_TAG.sub("", match.group(1).replace("\\]", "]"))), text)
        for mark in ("++", "+"):  # `C++ and C++` is no passthrough: the marks need a boundary
            text = _replace_pairs(text, mark, constrained_pairs(text, mark, before=";:\\"), stash.put)
        return text

    def _code_spans(self, text: str, stash: _Stash) -> str:
        if "`" not in text:
            return text
        text = _DOUBLE_BACKTICK.sub(lambda match: stash.put(code_span(self.code(match.group(1)))), text)
        pairs = constrained_pairs(text, "`", before=";:\"'`}", after="\"'`")
        return _replace_pairs(text, "`", pairs, lambda content: stash.put(code_span(self.code(stash.restore(content)))))

    def _macros(self, text: str, stash: _Stash) -> str:
        """Macros replaced by their words, each kept from the passes after it."""
        for pattern, words in self._macro_table():
            text = _stash_matches(pattern, words, text, stash)
        return text

    def _macro_table(self) -> tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str]], ...]:
        return (
            (_BIBLIOGRAPHY_ANCHOR, lambda match: f"[{match.group(1)}]"),
            (_INLINE_ANCHOR, lambda match: ""),
            (_FOOTNOTE, self._footnote),
            (_IMAGE, lambda match: ""),
            (_URL, lambda match: self._text(match.group(2)) or match.group(1).removeprefix("mailto:")),
            (_ANGLE_URL, lambda match: match.group(1)),
            (_BARE_URL, lambda match: match.group(0)),  # kept whole: `_` or `#` in it are no marks
            (_UNRESOLVED_LINK, lambda match: self._text(match.group(1)) or match.group(0)),
            (_LINK, lambda match: self._text(match.group(2)) or match.group(1)),
            (_XREF, lambda match: self._text(match.group(2)) or self._reference_title(match.group(1))),
            (_ANGLE_XREF, self._angle_reference),
            (_KBD, lambda match: "+".join(key.strip() for key in re.split(r"(?<=\S)\s*[+,]\s*(?=\S)", match.group(1)))),
            (_BTN, lambda match: self._text(match.group(1))),
            (_MENU, self._menu),
            (_STEM, lambda match: match.group(1).replace("\\]", "]")),
            (_INDEX_TERM_SHOWN, lambda match: self._text(match.group(1) or match.group(2) or "")),
            (_INDEX_TERM_HIDDEN, lambda match: ""),
            (_OTHER_MACRO, lambda match: self._text(match.group(2)) or (match.group(1) or "")),
        )

    def _text(self, bracketed: str) -> str:
        """A macro's bracketed text rendered as prose (it may hold emphasis or code)."""
        words = first_positional(bracketed)
        return self.render(words) if words else ""

    def _footnote(self, match: re.Match[str]) -> str:
        text = self._text(match.group(2))
        if text:
            self.footnotes.append(text)
        return ""

    def _menu(self, match: re.Match[str]) -> str:
        items = [match.group(1), *re.split(r"\s*(?:>|,)\s*", match.group(2).replace("\\]", "]"))]
        return " > ".join(self.render(item).strip() for item in items if item.strip())

    def _angle_reference(self, match: re.Match[str]) -> str:
        target, _, text = match.group(1).partition(",")
        return self.render(text.strip()) if text.strip() else self._reference_title(target.strip())

    def _reference_title(self, target: str) -> str:
        anchor = target.partition("#")[2] if "#" in target else target
        return self.references.get(anchor) or readable_reference(target)
