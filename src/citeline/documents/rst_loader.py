"""reStructuredText read as its built page reads: sections, paragraphs, lists, tables, notes, code.

The file is parsed by docutils (set up for Sphinx's roles and directives in `rst_docutils`) and
the document tree is walked in reading order into a `DocumentBuilder`. Nothing of the markup is
stored: heading underlines, role names, directive lines, link targets and comments are gone;
inline code keeps its backticks, a link keeps its text. Comments are reported when they carry
text aimed at an AI. Each block records the source lines it came from.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from pathlib import Path

from docutils import nodes

from citeline.documents.builder import Containers, DocumentBuilder, item_name
from citeline.documents.limits import check_line_lengths
from citeline.documents.loaders import decode_text, refuse_only_includes, sanitize
from citeline.documents.models import BlockKind, LoadedDocument
from citeline.documents.registry import register_loader
from citeline.errors import NoTextOfItsOwn
from citeline.text import code_span

_LINE_BREAK = re.compile(r"\r\n|[\r\n\x0c\u2028\u2029]")
_MARKUP_EDGES = re.compile(r"^[`*|_:]+|[`*|_:]+$")
# Footnote and citation marks are not read (a reader's "[1]" would pass for an answer's citation),
# nor a substitution the file does not define (its value is set where the file cannot show it).
_DROPPED_MARK = "\x01"
_BEFORE_DROPPED_MARK = re.compile(r"\s*\x01(?=[.,;:!?)])")
_SILENT = (nodes.system_message, nodes.target, nodes.substitution_definition, nodes.pending, nodes.raw,
           nodes.image, nodes.transition, nodes.footnote_reference, nodes.citation_reference)
# A line of one repeated punctuation character: a heading underline docutils did not accept
# (too short, inconsistent), which is left inside a paragraph.
_ADORNMENT_LINE = re.compile(r"""(?m)^[ \t]*([=\-~^"'`#*+<>:._])\1{2,}[ \t]*$""")
_TABLE_BORDER = re.compile(r"^[ \t]*[+=][-=+ \t]*$")
_OPTION_LINE = re.compile(r"^[ \t]*:[\w-]+:")
# An include directive's file: `.. include:: ../CHANGES.rst`, `.. literalinclude:: app.py`.
_INCLUDED = re.compile(r"^[ \t]*\.\.[ \t]+(?:include|literalinclude)::[ \t]*(\S+)", re.MULTILINE)
# Sphinx's autodoc directives, which fill the built page from the code's docstrings.
_AUTODOC = re.compile(r"^[ \t]*\.\.[ \t]+auto\w+::[ \t]*(\S+)", re.MULTILINE)
_BULLETS = re.compile(r"^[ \t]*(?:[*+-][ \t]+)+")
_PARAMETER_FIELDS = frozenset(("param", "parameter", "arg", "argument", "key", "keyword"))


class _Lines:
    """Source character offsets of docutils' 1-based line numbers."""

    def __init__(self, source: str) -> None:
        self.text = source
        self.starts = [0] + [match.end() for match in _LINE_BREAK.finditer(source)]
        self.length = len(source)

    def span(self, first: int, count: int) -> tuple[int, int]:
        first = min(max(first, 1), len(self.starts))
        last = min(first + max(count, 1), len(self.starts) + 1)
        end = self.starts[last - 1] if last - 1 < len(self.starts) else self.length
        return self.starts[first - 1], max(self.starts[first - 1], end)

    def line_of(self, offset: int) -> int:
        return bisect_right(self.starts, offset)


def _line(node: nodes.Node) -> int | None:
    current: nodes.Node | None = node
    while current is not None:
        line = getattr(current, "line", None)
        if line:
            return int(line)
        current = current.parent
    return None


def inline_text(node: nodes.Node) -> str:
    """The words of inline markup: literals in backticks, links as their text, markup gone."""
    parts: list[str] = []
    stack: list[nodes.Node] = [node]
    literal_at = -1  # where in `parts` the last inline literal is
    code = ""  # ... and the code it holds
    while stack:
        current = stack.pop()
        if isinstance(current, nodes.Text):
            if text := current.astext():  # without docutils' marks of backslash escapes (`\-\-include`)
                parts.append(text)
        elif isinstance(current, nodes.line):  # a line block's line ends where the page breaks it
            stack.extend([nodes.Text("\n"), *reversed(current.children)])
        elif isinstance(current, (nodes.footnote_reference, nodes.citation_reference)) or (
                isinstance(current, nodes.inline) and "citeline-undefined" in current["classes"]):
            parts.append(_DROPPED_MARK)
        elif isinstance(current, nodes.literal):
            if parts and literal_at == len(parts) - 1:
                # Literals written edge to edge (``'``:class:`X`\ ``'``, a quoted name) are one
                # span of code on the page, not `'``X``'`.
                code += current.astext()
                parts[-1] = code_span(code)
            else:
                code = current.astext()
                parts.append(code_span(code))
                literal_at = len(parts) - 1
        elif isinstance(current, nodes.problematic):
            # Broken markup: keep the words, not the stray backticks or asterisks around them.
            parts.append(_MARKUP_EDGES.sub("", current.astext()))
        elif isinstance(current, (*_SILENT, nodes.comment)):
            if isinstance(current, nodes.target) and current.children:
                stack.extend(reversed(current.children))
        elif isinstance(current, nodes.Element):
            stack.extend(reversed(current.children))
    # A dropped mark takes the space before it when punctuation follows ("a citation [X1]_.").
    return _BEFORE_DROPPED_MARK.sub("", "".join(parts)).replace(_DROPPED_MARK, "").rstrip("\n")


def _enumerator(kind: str, number: int) -> str:
    if kind in {"loweralpha", "upperalpha"} and 1 <= number <= 26:
        letter = chr(ord("a") + number - 1)
        return letter if kind == "loweralpha" else letter.upper()
    return str(number)


def _field(name: str) -> str:
    """What a field list entry is shown as, the way Sphinx shows `:param url:` or `:returns:`."""
    words = name.split()
    first = words[0].lower() if words else ""
    if first in _PARAMETER_FIELDS and len(words) > 1:
        return words[-1]
    if first == "type" and len(words) > 1:
        return f"{words[-1]} type"
    if first in {"returns", "return"}:
        return "Returns"
    if first == "rtype":
        return "Return type"
    if first in {"raises", "raise", "except", "exception"}:
        return " ".join(words[1:]) or "Raises"
    if first in {"var", "ivar", "cvar"} and len(words) > 1:
        return words[-1]
    return name


class _Walker:
    """Walks a docutils tree in reading order into a builder."""

    def __init__(self, builder: DocumentBuilder, lines: _Lines) -> None:
        self.builder = builder
        self.lines = lines
        self.context = Containers()  # (label, kind) of enclosing notes
        self.depth = 0
        self.metadata: dict[str, str] = {}

    # -- context ---------------------------------------------------------------------------
    def _source(self, node: nodes.Node, *, title: bool = False) -> tuple[int, int] | None:
        """The source lines of `node`, from docutils' line number and its raw text."""
        line = _line(node)
        if line is None:
            return None
        raw = getattr(node, "rawsource", "") or ""
        count = raw.count("\n") + 1 if isinstance(raw, str) and raw else 1
        if title:  # docutils reports a title's underline: the title is the line above
            return self.lines.span(max(line - 1, 1), 2)
        if isinstance(node, nodes.comment):  # ... and the line after a comment
            return self.lines.span(max(line - count, 1), count)
        return self.lines.span(line, count)

    def _within(self, label: str | None, kind: BlockKind | None, children: list[nodes.Node]) -> None:
        self.context.append((label, kind))
        for child in children:
            self.walk(child)
        self.context.pop()

    # -- nodes -----------------------------------------------------------------------------
    def walk(self, node: nodes.Node) -> None:
        """Emit the blocks of `node` and everything under it."""
        if isinstance(node, nodes.comment):
            self.builder.hidden(node.astext(), "rst comment", source=self._source(node))
        elif isinstance(node, nodes.system_message):
            self._recover(node)
        elif isinstance(node, _SILENT):
            return
        elif isinstance(node, nodes.section):
            self._section(node)
        elif isinstance(node, nodes.paragraph):
            self._paragraph(node)
        elif isinstance(node, (nodes.title, nodes.rubric, nodes.caption, nodes.attribution)):
            self._paragraph(node, prefix="— " if isinstance(node, nodes.attribution) else "")
        elif isinstance(node, (nodes.bullet_list, nodes.enumerated_list)):
            self._list(node)
        elif isinstance(node, nodes.definition_list):
            for item in node.children:
                if isinstance(item, nodes.definition_list_item):
                    self._definition(item, node)
        elif isinstance(node, nodes.field_list):
            for field in node.children:
                if isinstance(field, nodes.field):
                    self._field(field, node)
        elif isinstance(node, nodes.option_list):
            for item in node.children:
                self._option(item, node)
        elif isinstance(node, (nodes.literal_block, nodes.doctest_block, nodes.math_block)):
            self._code(node)
        elif isinstance(node, nodes.line_block):
            self._paragraph(node)
        elif isinstance(node, nodes.block_quote):
            self._within(None, "quote", list(node.children))
        elif isinstance(node, nodes.Admonition):
            self._admonition(node)
        elif isinstance(node, (nodes.topic, nodes.sidebar)):
            if "contents" not in node.get("classes", []):  # a generated table of contents
                self._admonition(node)
        elif isinstance(node, (nodes.footnote, nodes.citation)):
            labels = [child.astext() for child in node.children if isinstance(child, nodes.label)]
            rest = [child for child in node.children if not isinstance(child, nodes.label)]
            self._within(f"[{labels[0]}]" if labels else None, None, rest)
        elif isinstance(node, nodes.table):
            self._table(node)
        elif isinstance(node, nodes.docinfo):
            self._docinfo(node)
        elif isinstance(node, nodes.container) and node.get("citeline"):
            self._container(node)
        elif isinstance(node, nodes.Element):
            for child in node.children:
                self.walk(child)
        elif isinstance(node, nodes.Text) and str(node).strip():
            self.builder.block(self.context.kind("paragraph"), str(node), label=self.context.label(), source=self._source(node))

    def _section(self, node: nodes.section) -> None:
        self.depth += 1
        for child in node.children:
            if isinstance(child, nodes.title):
                self.builder.heading(self.depth, inline_text(child), source=self._source(child, title=True))
            else:
                self.walk(child)
        self.depth -= 1

    def _paragraph(self, node: nodes.Element, prefix: str = "") -> None:
        if "citeline-signature" in node.get("classes", []):
            self.builder.block("paragraph", inline_text(node), source=self._source(node))
            return
        text = _ADORNMENT_LINE.sub("", inline_text(node))
        self.builder.block(self.context.kind("paragraph"), prefix + text, label=self.context.label(), source=self._source(node))

    def _recover(self, message: nodes.Element) -> None:
        """Markup docutils could not read (a broken table, say) is kept as its words: an error
        message carries the offending source as a literal block."""
        if int(message.get("level", 0)) < 3:
            return
        for literal in message.findall(nodes.literal_block):
            lines = [line for line in literal.astext().split("\n") if line.strip()]
            if lines and lines[0].lstrip().startswith(".."):
                # A directive docutils refused (bad arguments, ragged list-table): its content
                # without the directive line, options and list bullets.
                lines = [_BULLETS.sub("", line) for line in lines[1:] if not _OPTION_LINE.match(line)]
                lines = [line for line in lines if line.strip()]
            if not lines:
                continue
            source = self._source(message)
            if _TABLE_BORDER.match(lines[0]) or lines[0].lstrip().startswith("|"):
                for line in lines:
                    if _TABLE_BORDER.match(line):
                        continue
                    cells = tuple(" ".join(cell.split()) for cell in line.strip().strip("|").split("|"))
                    if any(cells):
                        self.builder.block("table_row", "", cells=cells, source=source, group=literal)
            else:
                # A section title where none may stand (inside a directive's body) keeps its words,
                # not its underline.
                words = " ".join(line for line in lines if not _ADORNMENT_LINE.fullmatch(line))
                if words:
                    self.builder.block(self.context.kind("paragraph"), words, label=self.context.label(), source=source)

    def _item(self, item: nodes.Element, lead: str, group: nodes.Node, label: str | None,
              children: list[nodes.Node] | None = None) -> None:
        """One list item block: the lead plus the item's opening paragraphs; what follows them
        (nested lists, code, notes) is walked as blocks of its own, labelled like the item."""
        texts: list[str] = []
        rest: list[nodes.Node] = []
        for child in item.children if children is None else children:
            if isinstance(child, nodes.system_message):
                continue  # docutils' note on a role it had to guess ("data"), not the item's text
            if isinstance(child, nodes.paragraph) and not rest:
                texts.append(inline_text(child))
            else:
                rest.append(child)
        text = " ".join(texts)
        label = label or item_name(text)
        if lead and text:
            text = f"{lead} {text}" if lead[-1] in ".)" else f"{lead}{text}"
        self.builder.block("list_item", text or lead, label=label or self.context.label(), source=self._source(item),
                           group=group)
        self._within(label, None, rest)

    def _list(self, node: nodes.Element) -> None:
        enumerated = isinstance(node, nodes.enumerated_list)
        start = int(node.get("start", 1))
        items = [child for child in node.children if isinstance(child, nodes.list_item)]
        for index, item in enumerate(items):
            lead = ""
            if enumerated:
                number = _enumerator(str(node.get("enumtype", "arabic")), start + index)
                lead = f"{node.get('prefix', '')}{number}{node.get('suffix', '.')}"
            self._item(item, lead, node, None)

    def _definition(self, item: nodes.Element, group: nodes.Node) -> None:
        term = " ".join(inline_text(child) for child in item.children
                        if isinstance(child, (nodes.term, nodes.classifier)))
        body: list[nodes.Node] = []
        for child in item.children:
            if isinstance(child, nodes.definition):
                body.extend(child.children)
        term = " ".join(term.split())
        self._item(item, f"{term} - " if term and body else term, group, term or None, body)

    def _field(self, field: nodes.Element, group: nodes.Node) -> None:
        name = " ".join(inline_text(child) for child in field.children if isinstance(child, nodes.field_name))
        lead = _field(" ".join(name.split()))
        body: list[nodes.Node] = []
        for child in field.children:
            if isinstance(child, nodes.field_body):
                body.extend(child.children)
        # A field is named by its parameter ("url: ..."), as a list item is by the name it defines;
        # one saying something of the described thing itself (`:default:`, `:type:`, `:returns:`)
        # is labelled with that thing: "default: `normal`" under `follow_imports` is its default.
        words = name.split()
        names_own = len(words) > 1 and words[0].lower() in (*_PARAMETER_FIELDS, "type")
        label = lead if names_own else self.context.described() or lead
        self._item(field, f"{lead}: " if body else lead, group, label or None, body)

    def _option(self, item: nodes.Node, group: nodes.Node) -> None:
        if not isinstance(item, nodes.Element):
            return
        options = " ".join(child.astext() for child in item.children if isinstance(child, nodes.option_group))
        body: list[nodes.Node] = []
        for child in item.children:
            if isinstance(child, nodes.description):
                body.extend(child.children)
        self._item(item, f"{options} - " if body else options, group, options or None, body)

    def _code(self, node: nodes.Element) -> None:
        language = node.get("language") or ""
        if not language:
            classes = [name for name in node.get("classes", []) if name != "code"]
            language = classes[0] if classes else ""
        if isinstance(node, nodes.doctest_block):
            language = "pycon"
        elif isinstance(node, nodes.math_block):
            language = "math"
        self.builder.block("code", node.astext(), label=node.get("caption") or self.context.title(),
                           source=self._source(node), preformatted=True, language=language)

    def _admonition(self, node: nodes.Element) -> None:
        titles = [child for child in node.children if isinstance(child, nodes.title)]
        title = " ".join(inline_text(titles[0]).split()) if titles else node.tagname.replace("_", " ").capitalize()
        self._within(title, "note", [child for child in node.children if not isinstance(child, nodes.title)])

    def _container(self, node: nodes.Element) -> None:
        kind = node["citeline"]
        if kind == "describe" and _anchors_section(node):
            return
        label = " ".join(str(node.get("label", "")).split()) or None
        self._within(label, "tab" if kind == "tab" else None, list(node.children))

    def _table(self, table: nodes.Element) -> None:
        for child in table.children:
            if isinstance(child, nodes.title):
                self._paragraph(child)
        after = 0
        for group in table.findall(nodes.tgroup):
            header: list[str] = []
            for part in group.children:
                if not isinstance(part, (nodes.thead, nodes.tbody)):
                    continue
                for row in part.children:
                    if not isinstance(row, nodes.row):
                        continue
                    cells = tuple(" ".join(_cell_text(entry).split()) for entry in row.children
                                  if isinstance(entry, nodes.entry))
                    if not any(cells):
                        continue
                    source = self._row_source(row, cells, after)
                    after = source[1] if source else after
                    if isinstance(part, nodes.thead):
                        header = list(cells)  # carried by every row's label and text, not stored alone
                        continue
                    self.builder.block("table_row", "", label=" | ".join(header) or None, cells=cells,
                                       source=source, group=table)

    def _row_source(self, row: nodes.Element, cells: tuple[str, ...], after: int) -> tuple[int, int] | None:
        """The source line of a table row: rows carry no line number, and a csv-table's cells are
        parsed apart from the file, so the row's first cell is looked up from the table on."""
        first = next((cell for cell in cells if cell), "")
        start = max(after, self.lines.span(_line(row) or 1, 1)[0])
        found = self.lines.text.find(first, start) if first else -1
        if found < 0:
            return self.lines.span(_line(row) or 1, 1)
        return self.lines.span(self.lines.line_of(found), 1)

    def _docinfo(self, node: nodes.Element) -> None:
        for child in node.children:
            if isinstance(child, nodes.field):
                names = [c.astext() for c in child.children if isinstance(c, nodes.field_name)]
                bodies = [_shown_text(c) for c in child.children if isinstance(c, nodes.field_body)]
                if names and bodies:
                    self.metadata[names[0].lower()] = " ".join(bodies[0].split())[:500]
            elif isinstance(child, nodes.Element):
                self.metadata[child.tagname] = " ".join(_shown_text(child).split())[:500]


def _anchors_section(box: nodes.Element) -> bool:
    """Whether an object description is only a name placed right before a section title
    (`.. setting:: SESSION_COOKIE_AGE` above the section ``SESSION_COOKIE_AGE``): a target for
    links to that section, like `.. _label:`, which the built page does not show. Stored, the
    name ends the previous section's text, where it reads as part of that section."""
    if any(not (isinstance(child, nodes.paragraph) and "citeline-signature" in child.get("classes", []))
           for child in box.children):
        return False
    following = box.next_node(lambda node: not isinstance(node, (*_SILENT, nodes.comment)),
                              descend=False, siblings=True, ascend=True)
    return isinstance(following, nodes.section)


def _cell_text(node: nodes.Node) -> str:
    """The words of a table cell, read as its paragraphs are: what it holds besides (a list, a
    note) adds its own paragraphs' words, and what a page does not show (docutils' messages about
    the markup, comments, link targets) adds none."""
    if isinstance(node, (*_SILENT, nodes.comment)):
        return ""
    if isinstance(node, nodes.TextElement):
        return inline_text(node)
    if isinstance(node, nodes.Element):
        return " ".join(_cell_text(child) for child in node.children)
    return str(node.astext())


def _shown_text(node: nodes.Element) -> str:
    """The text of `node` without docutils' messages about its markup, which a page does not show."""
    shown = node.deepcopy()
    for message in list(shown.findall(nodes.system_message)):
        message.parent.remove(message)
    return str(shown.astext())


class RstLoader:
    """reStructuredText, Sphinx-flavoured: a document tree with sections, read as plain text."""

    suffixes: tuple[str, ...] = (".rst", ".rest")

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        """Parse with docutils and lay the tree out as stored text with typed blocks."""
        source = decode_text(data, path)
        text, removed = sanitize(source)
        check_line_lengths(text, path.name)
        builder = DocumentBuilder()
        metadata: dict[str, str] = {}
        try:
            from citeline.documents.rst_docutils import parse

            walker = _Walker(builder, _Lines(source))
            walker.walk(parse(text))
            metadata = walker.metadata
        except Exception as exc:
            # docutils recursing past the interpreter's limit on deeply nested input, or failing
            # on markup it has no rule for, must not lose the file: its paragraphs are kept as
            # plain text and the reason is recorded.
            builder = _paragraphs(text, _Lines(source))
            metadata = {"parse_error": f"{exc.__class__.__name__}: {str(exc)[:200]}"}
        document = builder.build(title=builder.first_heading or metadata.get("title") or path.stem,
                                 metadata=metadata, sanitized_chars=removed)
        refuse_only_includes(path.name, document, _INCLUDED.findall(text))
        documented = list(dict.fromkeys(_AUTODOC.findall(text)))
        if documented and all(block.kind == "heading" for block in document.blocks):
            # Not "no text could be extracted": the file is fine, its text lives in the code.
            shown = ", ".join(documented[:3]) + (", …" if len(documented) > 3 else "")
            raise NoTextOfItsOwn(f"{path.name}: only documents code with autodoc ({shown}), whose text Sphinx "
                                 "takes from the docstrings", hint="ingest the built HTML pages, which hold that text")
        return document


def _paragraphs(text: str, lines: _Lines) -> DocumentBuilder:
    """The file as plain paragraphs, for the rare input docutils itself cannot read."""
    builder = DocumentBuilder()
    for match in re.finditer(r"\S(?:.*?)(?=\n[ \t]*\n|\Z)", text, re.DOTALL):
        first = lines.line_of(match.start())
        builder.block("paragraph", match.group(0), source=lines.span(first, match.group(0).count("\n") + 1))
    return builder


register_loader(RstLoader())
