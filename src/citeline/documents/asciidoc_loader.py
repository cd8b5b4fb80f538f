"""AsciiDoc (Asciidoctor) read as its built page reads: sections, paragraphs, lists, tables, notes, code.

The source is read line by line, in one pass, into a `DocumentBuilder`, producing the blocks the
Markdown loader produces for the same content. Nothing of the markup is stored:

* the header (`= Title`, the author and revision lines, `:name: value` entries) gives the title,
  metadata and attributes; `{name}` in text reads as its value (an unknown one is left as written);
* `==` … `======` (and `#` …) headings name sections by their path, as Markdown's do;
* delimited blocks: `----` listings, `....` literals and ```` ``` ```` fences are code, labelled
  with their language (`[source,java]`, `[,python]`) or title, callout marks (`<1>`) removed;
  `====` examples, `****` sidebars and `[NOTE]` blocks become the blocks inside them, labelled like
  an admonition; `____` quotes are quotes; `--` open blocks are what they hold; `[tabs]` are tabs;
* `NOTE:` (and `TIP:`, `IMPORTANT:`, `WARNING:`, `CAUTION:`) paragraphs are notes titled by kind;
* list items (`*`, `-`, `.`, `1.`, `term::`, `<1>`) are one block each, `+`-attached paragraphs
  joined to them; a description list's item reads "term - definition";
* table rows read as sentences labelled with the header (see `asciidoc_tables`);
* comments (`//`, `////`), passthrough HTML (`++++`), preprocessor lines (`ifdef::`, `include::`),
  block attribute lines (`[source]`, `[[id]]`) and breaks never become text. A comment that
  carries instructions is reported, never stored.

A delimited block ends at the first line that repeats its delimiter exactly, within the block
around it, as in Asciidoctor. One left open ends before the next section title (or with the
block around it), so a stray delimiter never swallows the rest of the document.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from citeline.documents.asciidoc_inline import (
    Attributes,
    BlockAttributes,
    InlineRenderer,
    parse_attribute_list,
    strip_quotes,
)
from citeline.documents.asciidoc_syntax import (
    ADMONITION_PARAGRAPH,
    ANCHOR_LINE,
    ATTRIBUTE_ENTRY,
    ATTRIBUTE_LINE,
    BLOCK_TITLE,
    BREAK,
    CHECKBOX,
    CODE_STYLES,
    COMMENT_LINE,
    DELIMITER,
    DESCRIPTION,
    DIAGRAMS,
    FENCE,
    MARKDOWN_QUOTE,
    MATH_STYLES,
    RULE,
    Lines,
    atx_heading,
    block_kind,
    block_macro,
    generated_id,
    list_item,
    paragraph_break,
    preprocess,
    setext_level,
    without_callouts,
)
from citeline.documents.asciidoc_tables import read_table
from citeline.documents.builder import Containers, DocumentBuilder, item_name
from citeline.documents.limits import check_line_lengths
from citeline.documents.loaders import decode_text, refuse_only_includes, sanitize
from citeline.documents.models import BlockKind, LoadedDocument
from citeline.documents.registry import register_loader

_VERBATIM = frozenset(("listing", "literal", "pass", "comment", "fence", "table"))
_ADMONITIONS = {"note": "Note", "tip": "Tip", "important": "Important", "warning": "Warning", "caution": "Caution"}
# Blocks nested deeper (delimited blocks in blocks, blocks attached to list items in lists) are read
# as if they were not nested: no real page nests so far, and each level is a few frames of recursion.
_MAX_DEPTH = 48
# Authors and revisions as the header's second and third lines give them.
_AUTHOR = re.compile(r"^\w[\w\-'.]*(?:[ \t]+\w[\w\-'.]*){0,2}(?:[ \t]+<[^>\s]+>)?$")
_REVISION = re.compile(r"^(?:v?(\d[^,:\s]*)[ \t]*(?:,[ \t]*([^:]+?))?|([^,:]*\d{4}[^,:]*))[ \t]*(?::[ \t]*(.*))?$")
_METADATA_ATTRIBUTES = ("description", "keywords")


@dataclass
class _Pending:
    """What the lines above a block say about it: its attributes and title, and where they are."""

    attributes: BlockAttributes = field(default_factory=BlockAttributes)
    attributes_line: int | None = None
    title: str | None = None
    title_line: int | None = None


class _Parser:
    """Reads the lines into the builder, block by block, within the extent of the delimited
    block being read (`end`)."""

    def __init__(self, lines: Lines, builder: DocumentBuilder, attributes: Attributes) -> None:
        self.lines = lines
        self.text = lines.text
        self.builder = builder
        self.attributes = attributes
        self.references: dict[str, str] = {}
        self.inline = InlineRenderer(attributes, self.references)
        self.index = 0
        self.end = len(lines.text)
        self.containers = Containers()
        self.styles: list[str] = []  # the styles of the delimited blocks being read, innermost last
        self.depth = 0  # how deeply the block being read is nested
        self.pending = _Pending()
        self.metadata: dict[str, str] = {}
        self.title: str | None = None

    # -- helpers -------------------------------------------------------------------------------
    def source(self, first: int, last: int) -> tuple[int, int]:
        """Source offsets from the start of line `first` to the end of line `last`."""
        last = max(first, min(last, len(self.text) - 1))
        return self.lines.starts[first], self.lines.ends[last]

    def take_pending(self) -> _Pending:
        """The block's attributes and title, which apply to this block only."""
        pending, self.pending = self.pending, _Pending()
        return pending

    def render(self, text: str) -> str:
        """Inline text as a reader sees it."""
        return self.inline.render(text)

    def emit(self, kind: BlockKind, text: str, first: int, last: int, *, label: str | None = None,
             group: object = None) -> None:
        """A prose block inside the current containers."""
        self.builder.block(self.containers.kind(kind) if kind == "paragraph" else kind, text,
                           label=label or self.containers.label(), source=self.source(first, last), group=group)

    def lead(self, pending: _Pending) -> None:
        """A block title (`.Title`) shown above a paragraph, list, table or image: a line of its own."""
        if pending.title and pending.title_line is not None:
            self.emit("paragraph", self.render(pending.title), pending.title_line, pending.title_line)

    def flush_footnotes(self) -> None:
        """Footnotes cited since the last heading, laid out at the end of that section."""
        footnotes = list(self.inline.footnotes)
        self.inline.footnotes.clear()
        for footnote in footnotes:
            self.builder.block("paragraph", footnote)

    def is_break(self, line: str) -> bool:
        """Whether `line` ends a paragraph or a list item's text: it is blank or starts another block."""
        if not line.strip():
            return True
        if line.startswith(("[", "//", "+")) and paragraph_break(line):
            return True
        return (bool(DELIMITER.match(line)) or (line[:1] == "=" and atx_heading(line) is not None)
                or list_item(line) is not None
                or block_macro(line) is not None)

    def read_lines(self) -> list[str]:
        """The lines of a paragraph from the current one: up to a blank line or a line that starts
        another block; comment lines inside are dropped."""
        taken = [self.text[self.index]]
        self.index += 1
        while self.index < self.end:
            line = self.text[self.index]
            if COMMENT_LINE.match(line):
                self.comment(line[2:], self.index, self.index)
            elif self.is_break(line):
                break
            else:
                taken.append(line)
            self.index += 1
        return taken

    def comment(self, text: str, first: int, last: int) -> None:
        """A comment: never stored, reported when it carries instructions."""
        self.builder.hidden(text, "AsciiDoc comment", source=self.source(first, last))

    # -- header --------------------------------------------------------------------------------
    def header(self) -> None:
        """The document header: title, author and revision lines, attribute entries."""
        while self.index < self.end and self.metadata_line(header=True):
            pass
        if self.index >= self.end:
            return
        first = self.index
        heading = atx_heading(self.text[first])
        if heading and heading[0] == 1:
            title, self.index = heading[1], first + 1
        elif self.setext_level(first) == 1:
            title, self.index = self.text[first].strip(), first + 2
        else:
            return
        self.take_pending()
        self.title = self.render(title).strip()
        self.attributes.define("doctitle", self.title)
        self.builder.heading(1, self.title, source=self.source(first, self.index - 1))
        self.author_and_revision()
        while self.index < self.end and self.header_entry():
            pass
        for name in _METADATA_ATTRIBUTES:
            if value := self.attributes.get(name):
                self.metadata[name] = value

    def author_and_revision(self) -> None:
        """The author line (`Ada Lovelace <ada@example.org>; Charles Babbage`) right under the title,
        and the revision line (`v2.1, 2024-05-01: Remark`) under it: metadata and attributes."""
        line = self.text[self.index].strip() if self.index < self.end else ""
        authors = [part.strip() for part in line.split(";") if part.strip()]
        if not authors or not all(_AUTHOR.match(author) for author in authors):
            return
        self.index += 1
        names = [re.sub(r"\s*<[^>]*>", "", author).replace("_", " ").strip() for author in authors]
        emails = re.findall(r"<([^>\s]+)>", line)
        self.attributes.define("author", names[0])
        self.attributes.define("authors", ", ".join(names))
        if emails:
            self.attributes.define("email", emails[0])
        self.metadata["author"] = "; ".join(names)
        line = self.text[self.index].strip() if self.index < self.end else ""
        revision = _REVISION.match(line) if line else None
        if revision is None:
            return
        self.index += 1
        date = revision.group(2) or revision.group(3)
        for name, value in (("revnumber", revision.group(1)), ("revdate", date), ("revremark", revision.group(4))):
            if value and value.strip():
                self.attributes.define(name, value.strip())
                self.metadata[name] = value.strip()

    def header_entry(self) -> bool:
        """One line of the header after the title and author lines: an attribute entry or a comment
        (a blank line or anything else ends the header)."""
        line = self.text[self.index]
        if not line.strip():
            return False
        if ATTRIBUTE_ENTRY.match(line) or COMMENT_LINE.match(line) or line.startswith("////"):
            return self.metadata_line(header=True)
        return False

    # -- references ----------------------------------------------------------------------------
    def collect_references(self) -> None:
        """Section titles by id (explicit, `[[id]]` or `[#id]`, or generated the way Asciidoctor
        generates them), so `<<id>>` reads as the title it points at; anchors' own reference text."""
        prefix = self.attributes.get("idprefix")
        separator = self.attributes.get("idseparator")
        counters = dict(self.attributes.counters)  # titles are rendered again when read
        explicit: list[str] = []
        for line in self.text:
            if line.startswith("[["):
                anchor = ANCHOR_LINE.match(line)
                if anchor:
                    explicit.append(anchor.group(1))
                    if anchor.group(2):
                        self.references[anchor.group(1)] = anchor.group(2).strip()
            elif line.startswith("[#") and (shorthand := re.match(r"^\[#([\w:][\w:.-]*)", line)):
                explicit.append(shorthand.group(1))
            elif heading := atx_heading(line):
                title = self.render(heading[1]).strip()
                generated = generated_id(title, "_" if prefix is None else prefix, "_" if separator is None else separator)
                for reference in (*explicit, generated):
                    self.references.setdefault(reference, title)
                explicit = []
            elif line.strip() and not line.startswith("["):
                explicit = []
        self.inline.footnotes.clear()
        self.attributes.counters = counters

    # -- blocks --------------------------------------------------------------------------------
    def blocks(self) -> None:
        """Every block up to the end of the current extent."""
        while self.index < self.end:
            self.step()

    def one_block(self) -> None:
        """The block attached to a list item by a `+` line (with its attribute lines and title)."""
        while self.index < self.end and self.text[self.index].strip():
            if self.step():
                return

    def step(self) -> bool:
        """Read what starts at the current line; True when that was a block (not a blank line,
        comment, attribute line or title, which only say something about the block after them)."""
        line = self.text[self.index]
        if not line.strip():
            self.index += 1
            return False
        if self.metadata_line():
            return False
        level = self.heading_level(self.index)
        if level:
            self.heading(level)
        elif DELIMITER.match(line):
            self.delimited(line.rstrip())
        elif (macro := block_macro(line)) is not None:
            self.block_macro(macro)
        elif BREAK.match(line) or RULE.match(line) or line.strip() == "+":
            self.take_pending()
            self.index += 1
        elif list_item(line) is not None:
            self.list_block()
        elif MARKDOWN_QUOTE.match(line):
            self.markdown_quote()
        elif line[0] in " \t":
            self.literal_paragraph()
        else:
            self.paragraph()
        return True

    def metadata_line(self, *, header: bool = False) -> bool:
        """A line that says something about what follows rather than being text: a comment, a
        comment block, an anchor, a block attribute line, a block title or an attribute entry."""
        line = self.text[self.index]
        if COMMENT_LINE.match(line):
            self.comment(line[2:], self.index, self.index)
            self.index += 1
        elif header and not line.strip():
            self.index += 1
        elif header and line.startswith("////") and DELIMITER.match(line):
            self.delimited(line.rstrip())
        elif ANCHOR_LINE.match(line):
            self.index += 1
        elif ATTRIBUTE_LINE.match(line) and not line.startswith("[["):
            self.pending.attributes.merge(parse_attribute_list(line.strip()[1:-1]))
            self.pending.attributes_line = self.index
            self.index += 1
        elif (title := BLOCK_TITLE.match(line)) and not DELIMITER.match(line):
            self.pending.title, self.pending.title_line = title.group(1), self.index
            self.index += 1
        elif entry := ATTRIBUTE_ENTRY.match(line):
            self.attribute_entry(entry)
        else:
            return False
        return True

    def attribute_entry(self, entry: re.Match[str]) -> None:
        """`:name: value` defines an attribute, `:name!:` unsets it; a value may go on over lines
        ending in a backslash."""
        value = (entry.group(4) or "").rstrip()
        self.index += 1
        while value.endswith("\\") and self.index < self.end:
            value = value[:-1].rstrip().removesuffix(" +") + " " + self.text[self.index].strip()
            self.index += 1
        if entry.group(1) or entry.group(3):
            self.attributes.unset(entry.group(2))
        else:
            self.attributes.define(entry.group(2), value)

    def heading_level(self, number: int) -> int:
        """The level of a section title starting at line `number` (1 for `=`), else 0."""
        heading = atx_heading(self.text[number])
        return heading[0] if heading else self.setext_level(number)

    def setext_level(self, number: int) -> int:
        """The level of a two-line title (a line underlined by `=`, `-`, `~`, `^` or `+` of about its
        length), else 0."""
        return setext_level(self.text[number], self.text[number + 1]) if number + 1 < self.end else 0

    def heading(self, level: int) -> None:
        """A section title; inside a delimited block (where sections cannot be) a paragraph."""
        first = self.index
        heading = atx_heading(self.text[first])
        title = heading[1] if heading else self.text[first].strip()
        self.index += 1 if heading else 2
        self.take_pending()
        if self.styles:
            self.emit("paragraph", self.render(title), first, first)
            return
        self.flush_footnotes()
        self.builder.heading(level, self.render(title), source=self.source(first, self.index - 1))

    # -- paragraphs ----------------------------------------------------------------------------
    def paragraph(self) -> None:
        """A paragraph, read by its style: a note, a quote, code, a comment or prose."""
        pending = self.take_pending()
        first = self.index
        lines = self.read_lines()
        last = self.index - 1
        style = pending.attributes.style
        if style in CODE_STYLES or style in MATH_STYLES or style in DIAGRAMS:
            self.code(lines, pending, (first, last), style=style)
            return
        if style == "comment":
            self.comment("\n".join(lines), first, last)
            return
        if style == "pass":
            self.builder.hidden(re.sub(r"<[^>]*>", " ", "\n".join(lines)), "raw HTML", source=self.source(first, last))
            return
        text = "\n".join(lines)
        prefix = ADMONITION_PARAGRAPH.match(text)
        if style in _ADMONITIONS or prefix:
            kind = prefix.group(1).lower() if prefix else style
            body = text[prefix.end():] if prefix else text
            label = self.render(pending.title).strip() if pending.title else _ADMONITIONS[kind]
            self.builder.block("note", self.render(body), label=label, source=self.source(first, last))
            return
        self.lead(pending)
        if style in ("quote", "verse"):
            self.containers.append((None, "quote"))
            self.emit("paragraph", self.render(text), first, last)
            self.attribution(pending)
            self.containers.pop()
            return
        self.emit("paragraph", self.render(text), first, last)

    def literal_paragraph(self) -> None:
        """Indented lines: shown as they are written, as code without a language."""
        pending = self.take_pending()
        first = self.index
        while self.index < self.end and self.text[self.index].strip():
            self.index += 1
        lines = textwrap.dedent("\n".join(self.text[first : self.index])).split("\n")
        if pending.attributes.style == "comment":
            self.comment("\n".join(lines), first, self.index - 1)
            return
        self.code(lines, pending, (first, self.index - 1), style=pending.attributes.style or "literal")

    def attribution(self, pending: _Pending) -> None:
        """A quote's author and source (`[quote, Author, Source]`), after its words."""
        who = ", ".join(self.render(value).strip() for value in pending.attributes.positional[1:3] if value.strip())
        if who and pending.attributes_line is not None:
            self.emit("paragraph", f"— {who}", pending.attributes_line, pending.attributes_line)

    def markdown_quote(self) -> None:
        """`> ` lines: a quote, each run of lines one paragraph."""
        pending = self.take_pending()
        self.lead(pending)
        first = self.index
        paragraph: list[str] = []
        self.containers.append((None, "quote"))
        while self.index < self.end and MARKDOWN_QUOTE.match(self.text[self.index]):
            content = re.sub(r"^(?:>[ \t]?)+", "", self.text[self.index])
            if content.strip():
                paragraph.append(content)
            elif paragraph:
                self.emit("paragraph", self.render("\n".join(paragraph)), first, self.index - 1)
                paragraph, first = [], self.index + 1
            self.index += 1
        if paragraph:
            self.emit("paragraph", self.render("\n".join(paragraph)), first, self.index - 1)
        self.containers.pop()

    # -- code ----------------------------------------------------------------------------------
    def code(self, lines: list[str], pending: _Pending, span: tuple[int, int], *, style: str,
             language: str | None = None) -> None:
        """A code block: callout marks removed, labelled with its title (or the note or tab it is
        in) and typed with its language. A diagram's source is not shown on the page: dropped.
        `span` is its first and last source line."""
        attributes = pending.attributes
        if style in DIAGRAMS:
            return
        if style in MATH_STYLES:
            language = "math"
        elif style not in ("listing", "literal"):
            # `[source,java]`, `[,java]`, and an extension's style (`[configprops,yaml]`) that shows code
            given = attributes.named.get("language") or (attributes.positional[1:2] or [""])[0]
            fallback = self.attributes.get("source-language") if style in ("", "source") else None
            language = given or language or fallback
        text = "\n".join(without_callouts(line) for line in lines)
        subs = attributes.named.get("subs", "")
        if "attributes" in subs and "-attributes" not in subs:
            text = self.attributes.substitute(text)
        if "quotes" in subs and "-quotes" not in subs:
            text = strip_quotes(text)
        if attributes.named.get("indent", "").isdigit():
            text = textwrap.indent(textwrap.dedent(text), " " * int(attributes.named["indent"]))
        label = self.render(pending.title).strip() if pending.title else self.containers.title()
        self.builder.block("code", text, label=label, source=self.source(*span), preformatted=True,
                           language=(language or "").strip() or None)

    # -- delimited blocks ----------------------------------------------------------------------
    def delimited(self, delimiter: str) -> None:
        """A delimited block: its extent found first (the next line repeating the delimiter within
        the block around it), then its content read by its kind and style."""
        pending = self.take_pending()
        kind = block_kind(delimiter, pending.attributes.style)
        delimiter = "```" if kind == "fence" else delimiter
        opening = self.index
        if kind not in _VERBATIM and self.depth >= _MAX_DEPTH:
            self.index += 1  # too deep to be a real page: read on as if the line were not there
            return
        closing = self.closing_line(delimiter, opening, verbatim=kind in _VERBATIM)
        end = closing if closing is not None else self.open_end(opening, kind)
        self.index = opening + 1
        if kind in _VERBATIM:
            last = closing if closing is not None else max(opening, end - 1)
            self.verbatim(kind, delimiter, pending, (opening, last), end)
        else:
            self.container(kind, pending, opening, end)
        self.index = end + 1 if closing is not None else end

    def closing_line(self, delimiter: str, opening: int, *, verbatim: bool) -> int | None:
        """The line that closes the block opened at `opening`, within the block around it. A
        container or table that would run past a section title is taken as left open (sections
        cannot be inside them); a listing may show a title as an example of AsciiDoc."""
        closing = self.lines.next_of(self.lines.delimiters.get(delimiter, []), opening)
        if closing is None or closing >= self.end:
            return None
        if not verbatim or delimiter[0] in "|!,:":
            section = self.lines.next_of(self.lines.sections, opening)
            if section is not None and section < closing:
                return None
        return closing

    def open_end(self, opening: int, kind: str) -> int:
        """Where a block left open ends: before the next section title, or at the end of the block
        around it; a table also where its cells stop after a blank line."""
        section = self.lines.next_of(self.lines.sections, opening)
        end = min(self.end, section if section is not None else self.end)
        if kind == "table":
            separator = self.text[opening][0]
            for number in range(opening + 1, end - 1):
                following = self.text[number + 1]
                if not self.text[number].strip() and following.strip() and not following.startswith(separator):
                    return number
        return end

    def verbatim(self, kind: str, delimiter: str, pending: _Pending, span: tuple[int, int], end: int) -> None:
        """A block whose lines are not AsciiDoc: code, a comment, raw HTML or a table. `span` is its
        first and last source line, `end` the line after its content."""
        opening = span[0]
        lines = self.text[opening + 1 : end]
        style = pending.attributes.style
        if kind == "comment":
            self.comment("\n".join(lines), *span)
        elif kind == "pass" and style not in MATH_STYLES:
            self.builder.hidden(re.sub(r"<[^>]*>", " ", "\n".join(lines)), "raw HTML", source=self.source(*span))
        elif kind == "table":
            self.table(lines, delimiter, pending, opening)
        elif kind == "fence":
            fence = FENCE.match(self.text[opening])
            self.code(lines, pending, span, style=style or "source", language=fence.group(1) if fence else None)
        else:  # a listing is source code in the document's `source-language`, a literal is not
            self.code(lines, pending, span, style=style or ("source" if kind == "listing" else "literal"))

    def container(self, kind: str, pending: _Pending, opening: int, end: int) -> None:
        """A block of blocks, read within its extent: an admonition, example or sidebar labels
        what it holds like a note, a quote makes quotes, `[tabs]` makes tabs."""
        style = pending.attributes.style
        saved_end, self.end = self.end, end
        self.styles.append(style or kind)
        self.depth += 1
        entry = self.container_entry(kind, style, pending)
        if entry is None:
            self.lead(pending)
        else:
            self.containers.append(entry)
        if style == "verse":
            self.verse(end)
        else:
            self.blocks()
        if kind == "quote" or style in ("quote", "verse"):
            self.attribution(pending)
        if entry is not None:
            self.containers.pop()
        self.depth -= 1
        self.styles.pop()
        self.end = saved_end

    def container_entry(self, kind: str, style: str, pending: _Pending) -> tuple[str | None, BlockKind | None] | None:
        """The (label, kind) a container gives the blocks in it, or None when it is transparent
        (an open block, `[abstract]`, `[tabs]`, whose items make their own tabs)."""
        title = self.render(pending.title).strip() or None if pending.title else None
        if style in _ADMONITIONS:
            return title or _ADMONITIONS[style], "note"
        if kind == "quote" or style in ("quote", "verse"):
            return title, "quote"
        if style == "tabs" or (kind == "open" and style not in ("example", "sidebar")):
            return None
        if kind == "sidebar" or style == "sidebar":
            return title or "Sidebar", "note"
        return title or ("Details" if "collapsible" in pending.attributes.options else "Example"), "note"

    def verse(self, end: int) -> None:
        """A verse block: its lines as written, one quote paragraph per stanza."""
        while self.index < end:
            if not self.text[self.index].strip():
                self.index += 1
                continue
            first = self.index
            while self.index < end and self.text[self.index].strip():
                self.index += 1
            self.emit("paragraph", self.render("\n".join(self.text[first : self.index])), first, self.index - 1)

    def table(self, lines: list[str], delimiter: str, pending: _Pending, opening: int) -> None:
        """A table's rows, each a block labelled with the header's cells."""
        table = read_table(lines, pending.attributes, delimiter, self.render)
        self.lead(pending)
        label = " | ".join(table.header) or None
        group = object()
        for row in table.rows:
            line = opening + 1 + row.line
            self.builder.block("table_row", "", label=label, cells=row.cells, source=self.source(line, line), group=group)

    def block_macro(self, macro: re.Match[str]) -> None:
        """`image::`, `video::`, `toc::` and the like: nothing to read, but an image's title is its
        caption, which the page shows."""
        pending = self.take_pending()
        if macro.group(1) == "image":
            self.lead(pending)
        self.index += 1

    # -- lists ---------------------------------------------------------------------------------
    def list_block(self) -> None:
        """A list, nested lists included: a marker not seen yet in the list starts a nested one, a
        marker seen before goes back to its level. Blank lines between items keep the list going.
        An item of a nested list without a name of its own is labelled like the item above it."""
        pending = self.take_pending()
        self.lead(pending)
        levels: list[tuple[str, object]] = []
        labels: list[str | None] = []  # the label of the latest item at each level
        tabs = bool(self.styles) and self.styles[-1] == "tabs"
        while self.index < self.end:
            line = self.text[self.index]
            item = list_item(line)
            if item is None:
                following = self.next_filled(self.index)
                if line.strip() or following is None or list_item(self.text[following]) is None:
                    return
                self.index = following
                continue
            marker, text = item
            group = _level_group(levels, marker)
            del labels[len(levels) :]
            parent = labels[len(levels) - 2] if len(levels) > 1 and len(labels) >= len(levels) - 1 else None
            self.index += 1
            label, attached = self.item(marker, text, group, tabs=tabs, parent=parent)
            labels[len(levels) - 1 :] = [label]
            if attached:  # the items after a block inside a list start a new run of lines
                levels[-1] = (levels[-1][0], object())

    def next_filled(self, number: int) -> int | None:
        """The first non-blank line from `number` within the current extent."""
        while number < self.end and not self.text[number].strip():
            number += 1
        return number if number < self.end else None

    def item(self, marker: str, text: str, group: object, *, tabs: bool,
             parent: str | None = None) -> tuple[str | None, bool]:
        """One list item: its text (its wrapped lines and `+`-attached paragraphs), then the blocks
        attached to it. Returns the item's label and whether any block followed its text."""
        first = self.index - 1
        term: str | None = None
        if marker in ("::", ":::", "::::", ";;"):
            term, text = self.definition(text)
        elif marker[0] in "*-":
            text = CHECKBOX.sub("", text)  # a checklist's box, as Markdown's task lists drop theirs
        own = [text] if text else []
        if self.index < self.end and text and not self.is_break(self.text[self.index]):
            own = self.read_continuation(own)
        while self.attached_paragraph_follows():
            self.index += 1
            own.append("\n".join(self.read_lines()))
        body = self.render("\n".join(own)).strip()
        last = self.index - 1
        if tabs and term is not None:
            return term, self.tab(term, body, first, last)
        label = term or item_name(body) or parent
        written = f"{term} - {body}" if term and body else term or body
        self.builder.block("list_item", written, label=label or self.containers.label(), source=self.source(first, last),
                           group=group)
        self.containers.append((label, None))
        attached = self.attached_blocks()
        self.containers.pop()
        return label, attached

    def definition(self, text: str) -> tuple[str, str]:
        """A description list item's term, and its definition: on the term's line, or on the lines
        after it (indented or not, blank lines between allowed)."""
        match = DESCRIPTION.match(self.text[self.index - 1])
        term = self.render(match.group(1)).strip() if match else text
        definition = (match.group(3) or "") if match else ""
        if not definition:
            following = self.next_filled(self.index)
            if following is not None and not self.is_break(self.text[following]) \
                    and list_item(self.text[following]) is None:
                self.index = following
                definition = "\n".join(line.strip() for line in self.read_lines())
        return term, definition

    def read_continuation(self, own: list[str]) -> list[str]:
        """The item's wrapped lines after its first. A comment line ends them: `//-` is how a
        writer keeps two lists apart."""
        while self.index < self.end:
            line = self.text[self.index]
            if COMMENT_LINE.match(line) or self.is_break(line):
                break
            own.append(line.strip())
            self.index += 1
        return own

    def attached_paragraph_follows(self) -> bool:
        """Whether a `+` line attaches a plain paragraph, which joins the item's own text."""
        if self.index + 1 >= self.end or self.text[self.index].strip() != "+":
            return False
        following = self.text[self.index + 1]
        if not following.strip() or following[0] in " \t" or self.is_break(following):
            return False
        special = (COMMENT_LINE, BLOCK_TITLE, ATTRIBUTE_ENTRY, ADMONITION_PARAGRAPH, MARKDOWN_QUOTE, BREAK, RULE)
        return not any(pattern.match(following) for pattern in special) and self.heading_level(self.index + 1) == 0

    def attached_blocks(self) -> bool:
        """The blocks a `+` line attaches to the item before it."""
        attached = False
        while self.index < self.end and self.text[self.index].strip() == "+":
            self.index += 1
            if self.depth >= _MAX_DEPTH:  # too deep to be a real page: what follows is read on, unnested
                return attached
            self.depth += 1
            self.one_block()
            self.depth -= 1
            attached = True
        return attached

    def tab(self, title: str, body: str, first: int, last: int) -> bool:
        """A tab of a `[tabs]` block: its title labels its text and the blocks attached to it."""
        self.containers.append((title, "tab"))
        if body:
            self.builder.block("tab", body, label=title, source=self.source(first, last))
        self.attached_blocks()
        self.containers.pop()
        return True


def _level_group(levels: list[tuple[str, object]], marker: str) -> object:
    """The group (run of lines) of the list level `marker` belongs to, nesting or returning."""
    for depth, (seen, _) in enumerate(levels):
        if seen == marker:
            if depth < len(levels) - 1:  # back from a nested list: a new run of lines
                del levels[depth + 1 :]
                levels[depth] = (marker, object())
            return levels[depth][1]
    levels.append((marker, object()))
    return levels[-1][1]


class AsciidocLoader:
    """AsciiDoc pages (Asciidoctor's syntax): typed blocks, heading sections, header as metadata."""

    suffixes: tuple[str, ...] = (".adoc", ".asciidoc")

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        """Parse the page and lay its blocks out as stored text."""
        text, removed = sanitize(decode_text(data, path))
        check_line_lengths(text, path.name)
        attributes = Attributes()
        attributes.define("docname", path.stem)
        attributes.define("docfilesuffix", path.suffix)
        lines = preprocess(text)
        builder = DocumentBuilder()
        parser = _Parser(lines, builder, attributes)
        parser.header()
        parser.collect_references()
        parser.blocks()
        parser.flush_footnotes()
        document = builder.build(parser.title or builder.first_heading or path.stem, dict(parser.metadata), removed)
        refuse_only_includes(path.name, document, [attributes.substitute(target) for target in lines.included])
        return document


register_loader(AsciidocLoader())
