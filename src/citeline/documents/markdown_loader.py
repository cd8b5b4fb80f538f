"""Markdown, including the MkDocs and Material extensions documentation sites use, as typed blocks.

The source is parsed by markdown-it-py (CommonMark, tables, front matter, admonitions) and walked
token by token; the stored text is what a reader of the rendered page sees. What is the
generator's machinery rather than the page's content never becomes prose:

* admonitions (`!!! note "Title"`, collapsible `???`/`???+`) and content tabs (`=== "macOS"`)
  become the blocks inside them, labelled with their title;
* snippet includes (`--8<--`), `{* file *}` includes, `::: module.name` autodoc stubs with their
  options, Jinja/template tags, attribute lists (`{: .class }`, `{#id}`) are dropped;
* raw HTML blocks are dropped, and inline HTML tags (their text stays, except inside an element hidden
  from a reader: `documents.hidden`); hidden text and comments that carry instructions are reported;
* MyST (Markdown for Sphinx): roles (`{func}`attrs.field``) read as their text, directive fences
  (```` ```{note} ````, `:::{warning}`) as the blocks inside them, labelled with their title, code
  directives (and an extension's example holding Python) as code; directives whose content lives
  elsewhere (`{toctree}`, `{include}`) are dropped;
* Docusaurus and VitePress admonitions (`:::tip Title`, `::: warning`), GitHub alerts (`> [!NOTE]`) and
  Obsidian callouts (`> [!tip]- Title`) read like MkDocs admonitions; MDX module statements (`import …`,
  `export …`) go;
* the rendered preview under an extension's example (`/// html | div.result`) goes, but for the output
  code it shows: it repeats the example's markup, which only the extension renders;
* links keep their text (the URL is metadata), images are dropped (and a parenthesis they leave empty),
  a link that is only an icon goes, emphasis markers go;
* a paragraph that is one short bold phrase ("**Establishing the connection**") is the heading
  of what follows, one level below the page's last heading;
* a list item or table row is one block, so "Defaults to 2 weeks." stays with the `max_age`
  it describes, and an ordered list's item keeps its number as the page shows it; code blocks are stored whole, without fences, labelled with their language;
* a definition list's entry (a term line, then `: definition` paragraphs: MyST's and Python-Markdown's
  `deflist`) and a MyST glossary's entry are one block, "term - definition", labelled with the term,
  as an rst definition list's are; a doctest's hidden setup and cleanup (```` ```{testsetup} ````,
  `:hide:`) go, its shown examples are code in the language they are written in.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.admon import admon_plugin
from mdit_py_plugins.deflist import deflist_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin
from mdit_py_plugins.tasklists import tasklists_plugin

from citeline.documents.builder import DocumentBuilder, item_name
from citeline.documents.hidden import hidden_opening_tag, opens_element
from citeline.documents.limits import check_line_lengths
from citeline.documents.loaders import decode_text, refuse_only_includes, sanitize
from citeline.documents.models import BlockKind, LoadedDocument
from citeline.documents.registry import register_loader
from citeline.documents.sphinx_markup import (
    ADMONITION_TITLES,
    CODE_DIRECTIVES,
    DOCTEST_LANGUAGES,
    DROPPED_DIRECTIVES,
    TAB_DIRECTIVES,
    TITLED_CONTAINERS,
    VERSION_TITLES,
    example_language,
    role_text,
)
from citeline.text import FOOTNOTE_MARK, code_span

# A paragraph that is one bold span, "**…**" or "__…__", with no emphasis marker inside it.
_BOLD_LINE = re.compile(r"\*\*([^*\n]+)\*\*|__([^_\n]+)__")
_BOLD_HEADING_WORDS = 10

# MkDocs Material content tabs share the admonition's shape (a marker line, then a body indented
# by four spaces), so they are rewritten into admonitions of type `tab` before parsing. The
# rewrite keeps every line where it was: line maps still point at the source.
_TAB = re.compile(r'^([ \t]*)===[+!]?[ \t]+"([^"\n]*)"[ \t]*$', re.MULTILINE)
_COLLAPSIBLE_OPEN = re.compile(r"^([ \t]*)\?\?\?\+", re.MULTILINE)
# Lines that only drive the site generator: snippet and file includes, autodoc stubs, template
# tags on their own line, abbreviation definitions (`*[HTML]: Hyper Text...`, shown as tooltips),
# MyST reference targets (`(labels/line-length)=`, the anchor a cross-reference points at),
# VitePress' `[[toc]]` and code imports (`<<< @/snippets/snippet.js{2}`).
_MACHINERY_LINE = re.compile(
    r"^[ \t]*(?:-{1,2}8<-{1,2}.*|\{\*.*\*\}[ \t]*|:::[ \t]+[\w.:-]+.*|\{%-?.*-?%\}[ \t]*|\{#.*#\}[ \t]*"
    r"|\*\[[^\]\n]+\]:.*|\([^()\s]+\)=[ \t]*|\[\[toc\]\][ \t]*|<<<[ \t]+\S.*)$",
    re.MULTILINE,
)
# Inside code only the lines a generator replaces are machinery: snippet includes and Liquid's
# `{% raw %}` / `{% endraw %}` guards; any other template tag there is the example's own text.
_CODE_MACHINERY_LINE = re.compile(r"^[ \t]*(?:-{1,2}8<-{1,2}.*|\{\*.*\*\}|\{%-?[ \t]*(?:end)?raw[ \t]*-?%\})[ \t]*$",
                                  re.MULTILINE)
# What a snippet or file include names: `--8<-- "CONTRIBUTING.md"`, `{* ../docs_src/app.py *}`.
_INCLUDED = re.compile(r"""^[ \t]*(?:-{1,2}8<-{1,2}[ \t]*["']?([^"'\n-][^"'\n]*?)["']?|\{\*[ \t]*(\S+)[^}\n]*\*\})[ \t]*$""",
                       re.MULTILINE)
# A MyST include directive's file: ```` ```{include} ../CHANGES.md ````, ``:::{literalinclude} app.py``.
_MYST_INCLUDED = re.compile(r"^[ \t]*(?:`{3,}|~{3,}|:{3,})[ \t]*\{(?:include|literalinclude)\}[ \t]+(\S+)", re.MULTILINE)
# Inline leftovers of generators and extensions, removed from rendered prose.
_INLINE_NOISE = re.compile(
    r"\{:[^}\n]*\}"          # attribute list {: .class style="..."}
    r"|\{[ \t]*[#.][A-Za-z_][^}\n]*\}"  # element attributes {#anchor .class}, { #anchor }, { .annotate }
    r"|\{#.*?#\}"             # Jinja comments
    r"|\{/\*.*?\*/\}"           # MDX comments
    r"|:(?:material|octicons|fontawesome|simple)-[a-z0-9-]+:"  # Material icon shortcodes
    r"|\{%-?.*?-?%\}"        # Jinja statements
    r"|\{\{.*?\}\}"          # Jinja expressions
    r"|--8<--[^\n]*"         # inline snippet markers
    # A wiki's footnote marks, which no link resolves: "Latin Rhenus.[note 3]", "in 1815,[12]"; after
    # a word only one that cannot be an index ("river[citation needed]", not "arr[2]").
    rf"|(?<=[.,;:!?\"')]){FOOTNOTE_MARK}"
    r"|(?<=[a-z])\[(?:(?:note|nb)\s\d{1,3}|citation needed)\]"
    # HTML the parser did not take for HTML (a malformed attribute): still presentation
    r"|</?(?:a|span|div|img|br|kbd|sup|sub|small|strong|em|b|i|u|code|p|font|center)\b[^<>\n]*>"
)
# A full or collapsed reference link whose label the page does not define, which the parser leaves as
# text: a cross-reference a plugin resolves on the built site (mkdocs-autorefs and mkdocstrings:
# "[`MetaPreprocessor`][markdown.extensions.meta.MetaPreprocessor]", "[markdown.Markdown][]"), or a
# link to a definition in an included file ("[PEP 517][]"). A reader sees its text, code spans kept.
# Matched on an inline's text with each code span as a placeholder (NUL, its index, SOH: control
# characters no loaded text holds), so a span's own brackets are never read. Not a link: brackets
# after a word, a bracket, a parenthesis or a code span (`matrix[i][j]`, `data["a"]["b"]`).
_CODE_PLACEHOLDER = re.compile(r"\x00(\d+)\x01")
_UNRESOLVED_REFERENCE = re.compile(r"(?<![\w\])\\\x01])\[((?:[^\[\]\n\x00\x01]|\x00\d+\x01)+)\]\[([^\[\]\n\x00\x01]*)\]")
# A link's text opens with a word, a code span, a quote or a name's leading character; one opening
# otherwise is not a link's: a signature's optional arguments ("[, action][, nargs]"), a command's
# options ("[-h][-v]").
_LINK_TEXT_START = re.compile(r"[\w\x00\"'\u201c\u2018(.@$~/#]")
# Nor is a footnote mark ("[1][2]") or a character class ("[a-z][0-9]").
_NOT_LINK_TEXT = re.compile(r"\d+|(?:\w-\w)+")
# A code span in an inline's Markdown.
_SOURCE_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)", re.DOTALL)
# A link whose address was a template expression, gone with it (`[the docs]({{< ref "x.md" >}})`,
# which CommonMark does not take for a link): keep its text.
_EMPTIED_LINK = re.compile(r"\[([^\[\]\n]+)\]\(\s*\)")
# Options of an autodoc stub (`    options:` and deeper) would otherwise parse as a code block;
# the stub itself may sit inside an admonition ("??? abstract" wrapping an API reference).
_AUTODOC = re.compile(r"^([ \t]*):::[ \t]+[\w.:-]+[ \t]*\n(?:(?:\1[ \t]+[^\n]*|[ \t]*)\n)*", re.MULTILINE)


# Colon fences — MyST's `:::{note}`, the `:::tip Title` / `::: warning` admonitions of Docusaurus and
# VitePress — closed by a line of as many colons or more. Each becomes a backtick fence longer than
# any code fence it holds (n colons, n + 3 backticks), which CommonMark reads as one fenced block.
_COLON_OPEN = re.compile(r"^([ \t]*)(:{3,})[ \t]*(?:\{([\w.:+-]+)\}(.*)|(note|tip|info|warning|danger|caution|"
                         r"important|details)\b[ \t]*\[?(.*?)\]?[ \t]*)$", re.IGNORECASE)
_COLON_CLOSE = re.compile(r"^([ \t]*)(:{3,})[ \t]*$")
# A MyST directive's fence info: `{name} argument`.
_DIRECTIVE = re.compile(r"^\{([\w.:+-]+)\}[ \t]*(.*)$")
# A directive's options at the top of its body: `:key: value` lines, or a `---` YAML block.
_DIRECTIVE_OPTIONS = re.compile(r"\A(?:[ \t]*:[\w-]+:.*\n)+|\A---[ \t]*\n(?:.*\n)*?---[ \t]*\n")
# A doctest directive's `:hide:` option: Sphinx runs the example but leaves it off the page.
_HIDE_OPTION = re.compile(r"^[ \t]*:hide:", re.MULTILINE)
# A role right before a code span: "{func}" of {func}`attrs.field`.
_ROLE_BEFORE = re.compile(r"\{([\w.:+-]+)\}$")
# A callout's marker, first in its block quote: GitHub's alerts (`> [!NOTE]`, five types, alone on their
# line) and Obsidian's callouts, which PyMdown's Quotes writes too: any type, then more classes after
# `|` (`[!warning | inline]`), a fold sign (`[!tip]-` starts folded) and a title on the marker's line.
_CALLOUT = re.compile(r"\[!([A-Za-z][\w-]*)[ \t]*(?:\|[^\]\n]*)?\][+-]?(?=[ \t]|\n|\Z)[ \t]*")
# A title written as a heading (`> [!note] ### Header in Title`) shows as the title alone.
_TITLE_HEADING = re.compile(r"\A#{1,6}[ \t]+")
# Admonition kinds titled by their name (`.. note::` and ```` ```{note} ```` read "Note").
_ADMONITIONS = frozenset(("note", "warning", "tip", "caution", "important", "danger", "hint", "attention",
                          "error", "admonition", "info", "details"))
# MyST directives whose body is another file or another syntax (Sphinx's own, such as a doctest's
# hidden setup, are `DROPPED_DIRECTIVES`).
_MYST_DROPPED = frozenset(("include", "eval-rst", "eval-md", "raw", "figure", "image"))


# MDX's module statements (`import Tabs from '@theme/Tabs';`, `export const meta = {...};`) are the
# page's code, not its text: the paragraph each starts at the margin is dropped.
_MDX_MODULE = re.compile(r"^(?:import\s+(?:[\w*{}\s,]+\s+from\s+)?['\"][^'\"\n]+['\"]|export\s+(?:const|let|var|default|"
                         r"function|async\s+function|class)\b)[^\n]*(?:\n(?![ \t]*[#<])[^\n]*\S[^\n]*)*", re.MULTILINE)


def _parser() -> MarkdownIt:
    return (MarkdownIt("commonmark", {"html": True}).enable("table").use(front_matter_plugin).use(admon_plugin)
            .use(footnote_plugin).use(tasklists_plugin).use(deflist_plugin))


_MD = _parser()


def _blank_out(match: re.Match[str]) -> str:
    """The matched text with every character but newlines turned into spaces: structure dropped,
    line numbers (and so source offsets) unchanged."""
    return re.sub(r"[^\n]", " ", match.group(0))


# Two blank lines end an admonition for the parser but not for MkDocs, which keeps reading the
# indented body ("=== \"csh\"", two blank lines, then the tab's code block).
_BLANK_RUN = re.compile(r"\n((?:[ \t]*\n){2,})(?=([ \t]{4,})\S)")


def _indent_blank_run(match: re.Match[str]) -> str:
    """A run of blank lines given the indentation of the line after it: still blank to
    CommonMark, but no longer the end of the indented body it sits in."""
    lines = match.group(1).count("\n")
    return "\n" + f"{match.group(2)}\n" * lines


def prepare_source(text: str) -> str:
    """The MkDocs source rewritten so that CommonMark plus admonitions parses it, line for line.
    Code fences are left as they are, but for the include lines a generator fills them from: an
    example of a site generator's syntax (`:::note`, `{% include footer.html %}`) is what it shows."""
    blocks = _SlashBlocks()
    text = _without_previews(text)
    text = _outside_code(text, lambda part: _material_markers(blocks.rewrite(_generator_blocks(part))))
    text = _colon_fences(text)
    text = _BLANK_RUN.sub(_indent_blank_run, text)
    text = _AUTODOC.sub(_blank_out, text)
    return _outside_code(text, lambda part: _MACHINERY_LINE.sub(_blank_out, part),
                         lambda code: _CODE_MACHINERY_LINE.sub(_blank_out, code))


def _material_markers(text: str) -> str:
    """MkDocs Material's content tabs as admonitions of type `tab`, and its collapsible admonitions
    shown open (`???+`) as collapsible ones (code examples of them are left as they are)."""
    text = _TAB.sub(lambda m: f'{m.group(1)}!!! tab "{m.group(2)}"', text)
    return _COLLAPSIBLE_OPEN.sub(lambda m: f"{m.group(1)}???", text)


# Site generators' own block tags, rewritten line for line into what CommonMark and the colon fences
# read: Jekyll's `{% highlight ruby %}` … `{% endhighlight %}` and Hugo's `{{< highlight go "…" >}}` …
# `{{< /highlight >}}` as code fences; Hugo's `{{% note %}}`, `{{% notice warning "Title" %}}` and
# GitBook's `{% hint style="info" %}` as admonitions. (Left alone, the tags were dropped as template
# lines and the code between them read as prose.)
_HIGHLIGHT_OPEN = re.compile(r"^([ \t]*)(?:\{%-?[ \t]*highlight[ \t]+([\w+#.-]+)[^%\n]*-?%\}"
                             r"|\{\{[<%][ \t]*highlight[ \t]+([\w+#.-]+)[^\n]*?[>%]\}\})[ \t]*$")
_HIGHLIGHT_CLOSE = re.compile(r"^([ \t]*)(?:\{%-?[ \t]*endhighlight[ \t]*-?%\}|\{\{[<%][ \t]*/highlight[ \t]*[>%]\}\})[ \t]*$")
_NOTE_OPEN = re.compile(r"^([ \t]*)(?:\{\{[<%][ \t]*(?:notice[ \t]+)?(note|tip|info|warning|danger|caution|important)"
                        r"(?:[ \t]+\"([^\"\n]*)\")?[ \t]*[>%]\}\}"
                        r"|\{%[ \t]*hint[ \t]+style=\"(\w+)\"[ \t]*%\})[ \t]*$", re.IGNORECASE)
_NOTE_CLOSE = re.compile(r"^([ \t]*)(?:\{\{[<%][ \t]*/(?:notice|note|tip|info|warning|danger|caution|important)"
                         r"[ \t]*[>%]\}\}|\{%[ \t]*endhint[ \t]*%\})[ \t]*$", re.IGNORECASE)
_HINT_KINDS = {"success": "tip", "danger": "danger", "warning": "warning", "info": "info"}
# Docusaurus' and Starlight's tabs (`<TabItem value="macOS">` … `</TabItem>`, on lines of their own) as
# MyST tab items, so that what a tab holds is labelled with its title; `<Tabs>` lines go.
_TAB_ITEM_OPEN = re.compile(r"^([ \t]*)<TabItem\b([^>\n]*)>[ \t]*$")
_TAB_ITEM_CLOSE = re.compile(r"^([ \t]*)</TabItem>[ \t]*$")
_TABS_LINE = re.compile(r"^[ \t]*</?Tabs\b[^>\n]*>[ \t]*$")
_TAB_LABEL = re.compile(r'\blabel=["{]+([^"}\n]+)')  # the title shown; else the value, which is shown without one
_TAB_VALUE = re.compile(r'\bvalue=["{]+([^"}\n]+)')
# A code block's title: `title="app.py"` in its info, or VitePress' bracketed `[npm]`.
_FENCE_TITLE = re.compile(r'title="([^"]*)"|\[([^\[\]\n]+)\][ \t]*$')


def _generator_blocks(text: str) -> str:
    """Jekyll's, Hugo's and GitBook's code and note tags as code fences and colon fences, and
    Docusaurus' and Starlight's tab items as MyST tab items, line for line."""
    lines = text.split("\n")
    for number, line in enumerate(lines):
        if match := _HIGHLIGHT_OPEN.match(line):
            lines[number] = f"{match.group(1)}```{match.group(2) or match.group(3)}"
        elif match := _HIGHLIGHT_CLOSE.match(line):
            lines[number] = f"{match.group(1)}```"
        elif match := _NOTE_OPEN.match(line):
            kind = (match.group(2) or _HINT_KINDS.get(match.group(4).lower(), "info")).lower()
            lines[number] = f"{match.group(1)}:::{kind} {match.group(3) or ''}".rstrip()
        elif match := _NOTE_CLOSE.match(line):
            lines[number] = f"{match.group(1)}:::"
        elif (match := _TAB_ITEM_OPEN.match(line)) and (title := _TAB_LABEL.search(match.group(2))
                                                         or _TAB_VALUE.search(match.group(2))):
            lines[number] = f"{match.group(1)}:::{{tab-item}} {title.group(1)}"
        elif match := _TAB_ITEM_CLOSE.match(line):
            lines[number] = f"{match.group(1)}:::"
        elif _TABS_LINE.match(line):
            lines[number] = ""
    return "\n".join(lines)


# PyMdown's InlineHilite names a code span's language before it (`#!py3 True`, `#!tex $x$`); the
# page shows the code alone.
_INLINE_LANGUAGE = re.compile(r"\A#!\w[\w+#.-]*[ \t]+(?=\S)")
# PyMdown's generic blocks: `/// note | Title` … `///`, nested ones fenced by more slashes, options
# as indented `key: value` lines under the opening line.
_SLASH_OPEN = re.compile(r"^([ \t]*)(/{3,})[ \t]*([\w-]+)[ \t]*(?:\|[ \t]*(.*?))?[ \t]*$")
_SLASH_CLOSE = re.compile(r"^([ \t]*)(/{3,})[ \t]*$")
_SLASH_OPTION = re.compile(r"^[ \t]{4,}[\w-]+:")
# The blocks read as MyST's directives of the same name; the rest (`html`, `define`, `caption`)
# only shape what they hold, which reads as it stands.
_SLASH_DIRECTIVES = frozenset(("admonition", "details", "tab", "note", "attention", "caution", "danger", "error",
                               "hint", "important", "tip", "warning", "info", "abstract", "example", "question",
                               "quote", "success", "failure", "bug", "todo", "seealso"))


class _SlashBlocks:
    """Rewrites PyMdown's blocks line for line, across the parts of a page between its code
    fences (a block may hold code): a block read as a directive becomes a colon fence of as many
    colons as it has slashes, so nesting holds; the lines of the others and options go."""

    def __init__(self) -> None:
        self.open: list[tuple[int, bool]] = []  # each open block's slashes, and whether it is a fence
        self.options = False  # in the option lines right under an opening line

    def rewrite(self, text: str) -> str:
        """One part of the page (no code fence in it), rewritten."""
        lines = text.split("\n")
        for number, line in enumerate(lines):
            if self.options and _SLASH_OPTION.match(line):
                lines[number] = ""
                continue
            self.options = False
            if match := _SLASH_OPEN.match(line):
                kind, title = match.group(3).lower(), (match.group(4) or "").strip()
                fence = kind in _SLASH_DIRECTIVES
                if fence:
                    name = kind if kind in ("tab", "details") or not title else "admonition"
                    lines[number] = f"{match.group(1)}{':' * len(match.group(2))}{{{name}}} {title}".rstrip()
                else:
                    lines[number] = ""
                self.open.append((len(match.group(2)), fence))
                self.options = True
            elif (match := _SLASH_CLOSE.match(line)) and self.open and len(match.group(2)) >= self.open[-1][0]:
                slashes, fence = self.open.pop()
                lines[number] = f"{match.group(1)}{':' * slashes}" if fence else ""
        return "\n".join(lines)


# Documentation of Markdown extensions (PyMdown's, Python-Markdown's, MkDocs Material's) shows each
# syntax example rendered, in a block of class `result` under it: PyMdown Blocks' `/// html | div.result`
# … `///`, or the older `<div class="result" markdown>` … `</div>`. What it holds is the example's own
# markup again (`++ctrl+alt+delete++`, `==mark me==`), which only the extension renders; its text is the
# example's, already stored as its code. A code fence written directly in it stays: the output of a
# command or a program, which the example does not show.
_PREVIEW_BLOCK = re.compile(r"^[ \t]*(/{3,})[ \t]*html[ \t]*\|[ \t]*div(?:[#.][\w-]+|\[[^\]\n]*\])*?\.result(?![\w-])"
                            r"(?:[#.][\w-]+|\[[^\]\n]*\])*[ \t]*$")
_PREVIEW_DIV = re.compile(r"""^[ \t]*<div\b(?=[^>\n]*\bclass=["'](?:[^"'\n]*\s)?result["'\s])(?=[^>\n]*\smarkdown\b)"""
                          r"[^>\n]*>[ \t]*$")
_DIV_OPEN = re.compile(r"<div\b", re.IGNORECASE)
_DIV_CLOSE = re.compile(r"</div\s*>", re.IGNORECASE)


def _without_previews(text: str) -> str:
    """`text` with the rendered previews of its examples (see `_PREVIEW_BLOCK`) blanked out, line for
    line, but for the code fences written directly in them (one nested deeper, in a tab the preview
    shows, goes with it). A preview never closed is left as it is: it cannot be told from the rest
    of the page."""
    lines = text.split("\n")
    fences = _fence_indents(lines)
    reach = -1  # the last line of the preview being blanked
    indent = 0  # how far its opening line is indented
    for first, last in sorted(_previews(lines, fences)):
        if first <= reach:  # nested in the preview being blanked
            continue
        reach, indent = last, len(lines[first]) - len(lines[first].lstrip(" \t"))
        for number in range(first, last + 1):
            fence = fences[number]
            if fence is None or fence > indent:
                lines[number] = ""
    return "\n".join(lines)


def _previews(lines: list[str], fences: list[int | None]) -> list[tuple[int, int]]:
    """The first and last lines of each closed preview among `lines`, outside the code fences
    `fences` marks. A block closes at the first line of as many slashes or more that closes no block
    nested in it; a `<div>` at the `</div>` that matches it."""
    found: list[tuple[int, int]] = []
    blocks: list[tuple[int, int | None]] = []  # each open block's slashes, and its first line if a preview
    divs: list[tuple[int, int]] = []  # each open preview `<div>`: the depth of `<div>`s around it, its first line
    depth = 0
    for number, line in enumerate(lines):
        if fences[number] is not None:
            continue
        if match := _SLASH_OPEN.match(line):
            blocks.append((len(match.group(2)), number if _PREVIEW_BLOCK.match(line) else None))
        elif (match := _SLASH_CLOSE.match(line)) and blocks and len(match.group(2)) >= blocks[-1][0]:
            _, first = blocks.pop()
            if first is not None:
                found.append((first, number))
        if _PREVIEW_DIV.match(line):
            divs.append((depth, number))
        depth += len(_DIV_OPEN.findall(line)) - len(_DIV_CLOSE.findall(line))
        while divs and depth <= divs[-1][0]:
            found.append((divs.pop()[1], number))
    return found


def _fence_indents(lines: list[str]) -> list[int | None]:
    """For each of `lines` in a code fence (its own lines included), how far the fence's opening line
    is indented; None for a line outside code."""
    indents: list[int | None] = []
    fence, indent = "", 0
    for line in lines:
        if fence:
            indents.append(indent)
            if _closes(line, fence):
                fence = ""
        elif match := _FENCE_OPEN.match(line):
            fence, indent = match.group(1), len(line) - len(line.lstrip(" \t"))
            indents.append(indent)
        else:
            indents.append(None)
    return indents


# A code fence's opening line (any indentation: fences sit inside admonitions and list items).
_FENCE_OPEN = re.compile(r"^[ \t]*(`{3,}(?=[^`\n]*$)|~{3,})")


def _closes(line: str, fence: str) -> bool:
    """Whether `line` closes a code fence opened with `fence` (as many of its marks or more, alone)."""
    stripped = line.strip()
    return stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0])


def _code_parts(text: str) -> list[tuple[str, bool]]:
    """`text` cut into runs of lines outside and inside code fences (fence lines inside), in order."""
    parts: list[tuple[str, bool]] = []
    lines = text.split("\n")
    start, fence = 0, ""
    for number, line in enumerate(lines):
        if not fence and (match := _FENCE_OPEN.match(line)):
            if number > start:
                parts.append(("\n".join(lines[start:number]), False))
            start, fence = number, match.group(1)
        elif fence and _closes(line, fence):
            parts.append(("\n".join(lines[start : number + 1]), True))
            start, fence = number + 1, ""
    if start < len(lines):
        parts.append(("\n".join(lines[start:]), bool(fence)))
    return parts


def _outside_code(text: str, rewrite: Callable[[str], str],
                  rewrite_code: Callable[[str], str] = lambda code: code) -> str:
    """`text` with `rewrite` applied outside code fences and `rewrite_code` inside them; neither
    may add or remove a line."""
    return "\n".join(rewrite_code(part) if code else rewrite(part) for part, code in _code_parts(text))


def _shifted(tokens: list[Token], lines: int) -> list[Token]:
    """Tokens parsed from a part of the page, their line maps moved to where that part stands in it."""
    for token in tokens:
        if token.map is not None:
            token.map = [token.map[0] + lines, token.map[1] + lines]
    return tokens


def _colon_fences(text: str) -> str:
    """Colon fences rewritten as tilde fences, line for line; a closing line only closes a fence
    that is open (a stray `:::` stays text rather than opening a code block to the end of the page).
    Tildes, not backticks: a directive's argument may hold a code span (`:::{versionchanged} 14.0.0
    Return a {any}`dict`.`), and a backtick fence's info string may not hold a backtick."""
    lines = text.split("\n")
    opened: list[int] = []
    fence = ""  # the code fence the line is in: its lines are its code, colons and all
    for number, line in enumerate(lines):
        if fence:
            if _closes(line, fence):
                fence = ""
        elif code := _FENCE_OPEN.match(line):
            fence = code.group(1)
        elif match := _COLON_OPEN.match(line):
            indent, colons = match.group(1), match.group(2)
            if match.group(3):
                info = f"{{{match.group(3)}}}{match.group(4)}"
            else:  # a titled admonition keeps its title; an untitled one is titled by its kind
                title = match.group(6).strip()
                info = f"{{admonition}} {title}" if title else f"{{{match.group(5).lower()}}}"
            lines[number] = f"{indent}{'~' * (len(colons) + 3)}{info}"
            opened.append(len(colons))
        elif opened and (match := _COLON_CLOSE.match(line)) and len(match.group(2)) >= opened[-1]:
            lines[number] = f"{match.group(1)}{'~' * (len(match.group(2)) + 3)}"
            opened.pop()
        elif _COLON_CLOSE.match(line):
            lines[number] = ""  # the end of a container read as it stands (VitePress' `::: code-group`)
    return "\n".join(lines)


# Emoji shortcodes (GitHub's, and MkDocs Material's pymdownx.emoji) common in documentation, shown
# as the character a reader sees: a support table's "macOS: :white_check_mark:" is "macOS: ✅".
EMOJI_SHORTCODES = {
    "white_check_mark": "\u2705", "heavy_check_mark": "\u2714\ufe0f", "ballot_box_with_check": "\u2611\ufe0f",
    "x": "\u274c", "heavy_multiplication_x": "\u2716\ufe0f", "negative_squared_cross_mark": "\u274e",
    "no_entry": "\u26d4", "no_entry_sign": "\U0001f6ab", "warning": "\u26a0\ufe0f",
    "information_source": "\u2139\ufe0f", "question": "\u2753", "exclamation": "\u2757",
    "heavy_plus_sign": "\u2795", "heavy_minus_sign": "\u2796", "arrow_right": "\u27a1\ufe0f",
    "arrow_left": "\u2b05\ufe0f", "arrow_up": "\u2b06\ufe0f", "arrow_down": "\u2b07\ufe0f",
    "star": "\u2b50", "sparkles": "\u2728", "tada": "\U0001f389", "rocket": "\U0001f680", "bulb": "\U0001f4a1",
    "memo": "\U0001f4dd", "construction": "\U0001f6a7", "bug": "\U0001f41b", "lock": "\U0001f512",
    "zap": "\u26a1", "fire": "\U0001f525", "+1": "\U0001f44d", "-1": "\U0001f44e", "thumbsup": "\U0001f44d",
    "thumbsdown": "\U0001f44e", "heart": "\u2764\ufe0f", "snake": "\U0001f40d", "package": "\U0001f4e6",
    "wrench": "\U0001f527", "hammer": "\U0001f528", "gear": "\u2699\ufe0f", "link": "\U0001f517",
    "books": "\U0001f4da", "book": "\U0001f4d6", "pencil2": "\u270f\ufe0f", "eyes": "\U0001f440",
}
_EMOJI = re.compile(r"(?<![\w:]):(" + "|".join(re.escape(name) for name in EMOJI_SHORTCODES) + r"):(?![\w:])")


# Where an image was dropped from prose, until `_prose` has read what stood around it: a control
# character no loaded text holds (`sanitize` removes them).
_IMAGE_MARK = "\x02"
# The images standing together (apart by spaces at most): one mark. Each pattern starts on a mark or a
# parenthesis, so that a long run of spaces is scanned once.
_IMAGE_RUN = re.compile(r"\x02(?:[ \t\n]*\x02)*")
# A parenthesis that held only images ("EmojiOne (<img …> <img …>): …") shows nothing once they go, not
# even the space before it; one that opens or closes on an image ("like `:octocat:` <img …>)") is not
# left with a space inside it. `_DROP_SPACE_BEFORE` marks where the space before goes.
_DROP_SPACE_BEFORE = "\x03"
_IMAGES_IN_PARENTHESES = re.compile(r"\([ \t\n]*\x02[ \t\n]*\)")
_IMAGE_CLOSING = re.compile(r"\x02[ \t\n]*\)")
_IMAGE_OPENING = re.compile(r"\([ \t\n]*\x02[ \t\n]*")
# A link whose text is only an icon or an image, reference-style ("[:octicons-file-code-24:][_tabbed]",
# "[:material-github:][]") or a shortcut ("[:material-github:]"), its label defined in a file that is not
# read: on the page it is the icon, no text. Brackets after a word or a bracket are not a link's (nor
# those before a parenthesis: an inline link's, left to `_EMPTIED_LINK`).
_BRACKETS = re.compile(r"(?<![\w\]\\])\[([^\[\]\n]*)\](?:\[([^\[\]\n]*)\])?(?!\()")


def _prose(text: str) -> str:
    """A run of an inline's text between code spans as a reader sees it: emoji shortcodes as the emoji,
    generator noise removed, a link emptied of its address or of all its text read as what is left."""
    text = _EMOJI.sub(lambda m: EMOJI_SHORTCODES[m.group(1)], text)
    text = _without_images(_BRACKETS.sub(_unless_emptied, text))
    return _EMPTIED_LINK.sub(r"\1", _INLINE_NOISE.sub("", text))


def _without_images(text: str) -> str:
    """`text` without its image marks, and without the parentheses and spaces they leave
    (see `_IMAGES_IN_PARENTHESES`)."""
    if _IMAGE_MARK not in text:
        return text
    text = _IMAGE_RUN.sub(_IMAGE_MARK, text)
    text = _IMAGES_IN_PARENTHESES.sub(_DROP_SPACE_BEFORE, text)
    text = _IMAGE_CLOSING.sub(_DROP_SPACE_BEFORE + ")", text)
    text = _IMAGE_OPENING.sub("(", text).replace(_IMAGE_MARK, "")
    parts = text.split(_DROP_SPACE_BEFORE)
    return "".join([part.rstrip(" \t") for part in parts[:-1]] + parts[-1:])


def _unless_emptied(match: re.Match[str]) -> str:
    """Nothing, where `match` is a link whose text is only icons or images (see `_BRACKETS`); else the
    match as it stands. Brackets written empty ("[]", a list's "[ ]") hold nothing a reader lost."""
    text = match.group(1)
    shown = _INLINE_NOISE.sub("", text).replace(_IMAGE_MARK, "")
    return "" if text.strip() and not shown.strip() else match.group(0)


def _reference_text(match: re.Match[str], source: str) -> str:
    """An unresolved reference link's text, where it is one (see `_UNRESOLVED_REFERENCE`); else the
    match as it stands. The label must be written as such in `source`, the inline's Markdown, outside
    its code spans: brackets the author escaped (`\\[a\\]\\[b\\]`) are literal."""
    text, label = match.group(1), match.group(2)
    if not _LINK_TEXT_START.match(text) or _NOT_LINK_TEXT.fullmatch(text) or (label and not label.strip()):
        return match.group(0)
    if not re.search(r"(?<!\\)\]\[" + re.escape(label) + r"\]", _SOURCE_CODE_SPAN.sub(" ", source)):
        return match.group(0)
    return text


def _read_references(pieces: list[str], code: set[int], source: str) -> str:
    """The pieces of an inline joined (those numbered in `code` are code spans), its unresolved
    reference links read as their text; `source` is the inline's Markdown."""
    if "\x00" in source or "\x01" in source:  # not sanitized: a placeholder could not be told apart
        return "".join(pieces)
    marked = "".join(f"\x00{number}\x01" if number in code else piece for number, piece in enumerate(pieces))
    marked = _UNRESOLVED_REFERENCE.sub(lambda match: _reference_text(match, source), marked)
    return _CODE_PLACEHOLDER.sub(lambda match: pieces[int(match.group(1))], marked)


# Inline HTML that breaks the text ("`micro`<br>`patch`", "<ul><li>…</li><li>…</li></ul>" in a table
# cell): its pieces read apart, not run together ("black --check --diff .isort --check-only").
_LINE_BREAK = re.compile(r"</?(?:br|p|div|ul|ol|li|dl|dt|dd)\b[^>]*>", re.IGNORECASE)
_ITEM = re.compile(r"<li\b[^>]*>", re.IGNORECASE)
# Inline HTML marking code (`<code>flake8 .</code>`): shown as a code span, as Markdown's own would be.
_CODE_TAG = re.compile(r"<(/?)(?:code|samp|tt)\b[^>]*>", re.IGNORECASE)
# What a reader sees of the raw HTML a README is laid out with: a heading (`<h1 align="center">`) and
# a folded section's summary. An element's content stops at the next tag of its kind, so that an
# unclosed one is given up at the next and the block is scanned once.
_HTML_STRUCTURE = re.compile(r"<(h[1-6])\b([^>]*)>((?:[^<]|<(?!/?h[1-6]\b))*)</\1\s*>"
                             r"|<summary\b([^>]*)>((?:[^<]|<(?!/?summary\b))*)</summary\s*>", re.IGNORECASE)
_HTML_HEADING = re.compile(r"<h([1-6])\b[^>]*>((?:[^<]|<(?!/?h[1-6]\b))*)</h\1\s*>", re.IGNORECASE)
_IMAGE_TAG = re.compile(r"<img\b[^>]*>", re.IGNORECASE)
_IMAGE_ALT = re.compile(r"""<img\b[^>]*?\balt\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)


def render_inline(token: Token, hidden: list[str] | None = None) -> str:
    """An inline token's text as a reader sees it: code spans keep backquotes, links keep their
    text, images, HTML, footnote marks and emphasis markers go. Generator noise is removed from
    the prose between code spans only: a code span is literal (`mounts={...}`, `<br>`). Text inside
    inline HTML hidden from a reader (`<span style="display:none">…</span>`) is left out, and added to
    `hidden` when given."""
    pieces: list[str] = []
    code_pieces: set[int] = set()  # which of `pieces` are code spans
    run: list[str] = []
    in_code = items = False
    concealed = 0  # how many elements deep inside a hidden one
    for child in token.children or []:
        if concealed:
            if child.type == "html_inline" and child.content.lstrip().startswith("</"):
                concealed -= 1
            elif child.type == "html_inline" and opens_element(child.content):
                concealed += 1
            elif hidden is not None and child.type in ("text", "code_inline"):
                hidden.append(child.content)
            continue
        if child.type == "html_inline" and hidden_opening_tag(child.content):
            concealed = 1
            continue
        if child.type == "html_inline":
            tag = child.content.strip()
            code = _CODE_TAG.fullmatch(tag)
            if _IMAGE_TAG.fullmatch(tag) and not in_code:
                run.append(_IMAGE_MARK)
            if code and not code.group(1) and not in_code:
                pieces.append(_prose("".join(run)))
                run, in_code = [], True
            elif code and code.group(1) and in_code:
                code_pieces.add(len(pieces))
                pieces.append(code_span("".join(run).strip()))
                run, in_code = [], False
            elif _ITEM.fullmatch(tag):
                run.append("; " if items else " ")  # the second item of a list in a cell on: after a separator
                items = True
            elif _LINE_BREAK.fullmatch(tag) and not tag.lower().startswith("</li"):
                run.append(" ")
            continue
        if child.type == "image":
            if not in_code:
                run.append(_IMAGE_MARK)
            continue
        if child.type == "code_inline":
            before = "".join(run)
            role = _ROLE_BEFORE.search(before)
            content = child.content
            if role:  # a MyST role: {func}`~attrs.field` reads "`field`", {doc}`the guide <guide>` "the guide"
                before = before[: role.start()]
                content, is_code = role_text(role.group(1), content)
                if not is_code:
                    run = [before, content]
                    continue
            pieces.append(_prose(before))
            run = []
            code_pieces.add(len(pieces))
            pieces.append(code_span(_INLINE_LANGUAGE.sub("", content, count=1)))
        elif child.type in ("softbreak", "hardbreak"):
            run.append(" ")
        elif child.type == "text":
            run.append(child.content)
    pieces.append(_prose("".join(run)))
    return _read_references(pieces, code_pieces, token.content)


class _Walker:
    """Walks the token stream in order, keeping a stack of containers (admonitions, tabs, lists,
    quotes) whose titles label the blocks inside them."""

    def __init__(self, text: str, builder: DocumentBuilder) -> None:
        self.text = text
        self.builder = builder
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.containers: list[tuple[str, str | None]] = []  # (kind, title)
        self.links: list[str] = []

    def inline(self, token: Token) -> str:
        """`render_inline`, reporting the inline HTML hidden from a reader that it leaves out."""
        hidden: list[str] = []
        text = render_inline(token, hidden)
        if hidden:
            self.builder.hidden(" ".join(hidden), "hidden inline HTML", source=self.source(token))
        return text

    def source(self, token: Token) -> tuple[int, int] | None:
        if token.map is None:
            return None
        start_line, end_line = token.map
        start = self.line_starts[min(start_line, len(self.line_starts) - 1)]
        end = self.line_starts[end_line] - 1 if end_line < len(self.line_starts) else len(self.text)
        return start, max(start, end)

    def context(self) -> tuple[BlockKind, str | None]:
        """The kind a paragraph takes here and the label of its innermost titled container."""
        kind: BlockKind = "paragraph"
        label: str | None = None
        for container, title in self.containers:
            if container == "tab":
                kind, label = "tab", title
            elif container == "note":
                kind, label = "note", title
            elif container == "quote" and kind == "paragraph":
                kind = "quote"
            elif container == "term" and kind == "paragraph":  # a note's or tab's blocks keep its title
                label = title
        return kind, label

    def walk(self, tokens: list[Token]) -> None:
        index = 0
        while index < len(tokens):
            index = self.step(tokens, index)

    def step(self, tokens: list[Token], index: int) -> int:
        token = tokens[index]
        kind = token.type
        if kind == "heading_open":
            inline = tokens[index + 1]
            self.builder.heading(int(token.tag[1:]), self.inline(inline), source=self.source(token))
            return index + 3
        if kind == "admonition_open":
            container = "tab" if token.meta.get("tag") == "tab" else "note"
            title = (token.content or str(token.meta.get("tag", "")).title()).strip() or None
            self.containers.append((container, title))
            return index + 1
        if kind == "admonition_title_open":
            return _skip_to(tokens, index, "admonition_title_close") + 1
        if kind in ("admonition_close", "blockquote_close"):
            if self.containers:
                self.containers.pop()
            return index + 1
        if kind == "blockquote_open":
            title = self.callout(tokens, index)
            self.containers.append(("note", title) if title is not None else ("quote", None))
            return index + 1
        if kind == "paragraph_open":
            inline = tokens[index + 1]
            block_kind, label = self.context()
            text = self.inline(inline)
            if not text:
                return index + 3
            if not self.containers and _is_bold_heading(inline.content):
                self.builder.subheading(text, source=self.source(token))
            else:
                self.builder.block(block_kind, text, label=label, source=self.source(token))
            return index + 3
        if kind in ("bullet_list_open", "ordered_list_open"):
            return self.list_block(tokens, index)
        if kind == "dl_open":
            return self.definitions(tokens, index)
        if kind == "fence" and (directive := _DIRECTIVE.match(token.info.strip())):
            self.directive(token, directive.group(1).lower(), directive.group(2).strip())
            return index + 1
        if kind in ("fence", "code_block"):
            _, label = self.context()
            language = fence_language(token.info)
            titled = _FENCE_TITLE.search(token.info or "")
            self.builder.block("code", token.content, label=(titled.group(1) or titled.group(2) if titled else None) or label,
                               source=self.source(token), preformatted=True, language=language)
            return index + 1
        if kind == "table_open":
            return self.table(tokens, index)
        if kind == "html_block":
            self.html(token)
            return index + 1
        return index + 1

    def callout(self, tokens: list[Token], index: int) -> str | None:
        """The title of the callout the block quote opening at `index` is (`> [!NOTE]`, `> [!tip] Title`),
        None when it is a quotation. A callout reads as an admonition: titled by its title, else by
        its type, and its opening paragraph (in `tokens`) is replaced by the lines under the marker's,
        so neither the marker nor the title runs into its text. A callout that is its marker's line
        alone reads as that title, under its type."""
        if index + 2 >= len(tokens) or tokens[index + 1].type != "paragraph_open":
            return None
        opening = tokens[index + 2]
        children = opening.children or []
        marker = _CALLOUT.match(children[0].content) if children and children[0].type == "text" else None
        if opening.type != "inline" or marker is None:
            return None
        kind = marker.group(1).capitalize()
        first = children[0].copy(content=_TITLE_HEADING.sub("", children[0].content[marker.end():], count=1))
        breaks = [number for number, child in enumerate(children) if child.type in ("softbreak", "hardbreak")]
        end = breaks[0] if breaks else len(children)
        line, _, rest = opening.content.partition("\n")
        heading = opening.copy(children=[first, *children[1:end]], content=line)
        if not breaks and (index + 4 >= len(tokens) or tokens[index + 4].type == "blockquote_close"):
            tokens[index + 2] = heading  # nothing under the title: the title is what the callout says
            return kind
        title = " ".join(self.inline(heading).split())
        # The body: the opening paragraph's lines after the marker's, or the paragraphs that follow.
        tokens[index + 2] = opening.copy(children=children[end + 1:], content=rest)
        return title or kind

    def directive(self, token: Token, name: str, argument: str) -> None:
        """A MyST directive fence: code as code, an admonition or titled container as the blocks
        of its body (parsed as Markdown) under its title; a directive whose content lives in
        another file or syntax is dropped."""
        objtype = name.rsplit(":", 1)[-1]
        if name in DROPPED_DIRECTIVES or objtype in DROPPED_DIRECTIVES or objtype.startswith("auto") \
                or name in _MYST_DROPPED:
            return
        options = _DIRECTIVE_OPTIONS.match(token.content)
        body = token.content[options.end():] if options else token.content
        # The body's lines sit after the fence line and the options in the source.
        offset = (token.map[0] if token.map else 0) + 1 + (options.group(0).count("\n") if options else 0)
        known = name in VERSION_TITLES or name in ADMONITION_TITLES or name in _ADMONITIONS \
            or name in TITLED_CONTAINERS or name in TAB_DIRECTIVES or name == "glossary"
        example = None if known or name in CODE_DIRECTIVES else example_language(body)
        if name in CODE_DIRECTIVES or example:  # an extension's example is code
            _, label = self.context()
            language = (argument.split()[0] if argument else None) if name in CODE_DIRECTIVES else example
            if name in DOCTEST_LANGUAGES:
                if options and _HIDE_OPTION.search(options.group(0)):
                    return  # run by sphinx.ext.doctest, not shown on the page
                language = DOCTEST_LANGUAGES[name] or None
            source = self.source(token)
            self.builder.block("code", body, label=label, source=source, preformatted=True, language=language)
            return
        explanation = ""
        if name in VERSION_TITLES:
            # The version, then the explanation (```` ```{versionchanged} 14.0 Return a dict. ````),
            # which reads first.
            version, _, explanation = " ".join(argument.split()).partition(" ")
            title: str | None = f"{VERSION_TITLES[name]} {version}".strip()
        elif name in ADMONITION_TITLES:
            title = ADMONITION_TITLES[name]
        elif name == "admonition" or name in TITLED_CONTAINERS or name in TAB_DIRECTIVES:
            title = argument or None
        else:
            title = name.title() if name in _ADMONITIONS else None
        if name == "glossary":
            body = _glossary_as_definitions(body)
        inner = _shifted(_MD.parse(prepare_source(explanation)), offset - 1) if explanation else []  # the fence line
        inner += _shifted(_MD.parse(prepare_source(body)), offset)
        container = "tab" if name in TAB_DIRECTIVES else "note"
        if title:
            self.containers.append((container, title))
        self.walk(inner)
        if title:
            self.containers.pop()

    def list_block(self, tokens: list[Token], index: int) -> int:
        """Each item of the list is one block: its own paragraphs joined; nested lists and code
        blocks inside it follow as blocks of their own."""
        close = "bullet_list_close" if tokens[index].type == "bullet_list_open" else "ordered_list_close"
        depth = 0
        group = object()
        end = index
        for end in range(index, len(tokens)):
            if tokens[end].type == tokens[index].type:
                depth += 1
            elif tokens[end].type == close:
                depth -= 1
                if depth == 0:
                    break
        # An ordered list's items are numbered as the page shows them: from its start, one by one,
        # however the source numbers them ("1." on every line is a common way to write 1, 2, 3).
        number = int(tokens[index].attrGet("start") or 1) if tokens[index].type == "ordered_list_open" else None
        position = index + 1
        while position < end:
            token = tokens[position]
            if token.type != "list_item_open":
                position += 1
                continue
            item_end = _matching(tokens, position, "list_item_open", "list_item_close")
            own: list[str] = []
            rest: list[Token] = []
            cursor = position + 1
            while cursor < item_end:
                inner = tokens[cursor]
                if inner.type == "paragraph_open" and not rest:
                    own.append(self.inline(tokens[cursor + 1]))
                    cursor += 3
                    continue
                rest.append(inner)
                cursor += 1
            text = " ".join(piece for piece in own if piece.strip())
            _, label = self.context()
            name = item_name(text)
            if number is not None:
                text = f"{number}{token.markup or '.'} {text}".rstrip()
                number += 1
            self.builder.block("list_item", text, label=name or label,
                               source=self.source(token), group=group)
            if rest:
                self.walk(rest)
                group = object()  # items after a nested block start a new run of lines
            position = item_end + 1
        return end + 1

    def definitions(self, tokens: list[Token], index: int) -> int:
        """Each term of a definition list with its definitions is one block, "term - definition",
        labelled with the term: the opening paragraphs of all its definitions joined (several
        `: …` may follow one term). What follows them (code, nested lists, the paragraphs after
        those) is walked as blocks of their own, labelled with the term too; a note or tab among
        them keeps its own title."""
        end = _matching(tokens, index, "dl_open", "dl_close")
        group = object()
        position = index + 1
        while position < end:
            opening = tokens[position]
            if opening.type != "dt_open":
                position += 1
                continue
            term = " ".join(self.inline(tokens[position + 1]).split())
            position = _skip_to(tokens, position, "dt_close") + 1
            own: list[str] = []
            rest: list[Token] = []
            last = opening  # the last line of the block: the term's, or its last opening paragraph's
            while position < end and tokens[position].type == "dd_open":
                definition_end = _matching(tokens, position, "dd_open", "dd_close")
                cursor = position + 1
                while cursor < definition_end:
                    inner = tokens[cursor]
                    if inner.type == "paragraph_open" and not rest:
                        own.append(self.inline(tokens[cursor + 1]))
                        last = inner
                        cursor += 3
                        continue
                    rest.append(inner)
                    cursor += 1
                position = definition_end + 1
            definition = " ".join(piece for piece in own if piece.strip())
            # A term written with its colon ("**Code Blocks:**") reads on into its definition.
            joined = f"{term} {definition}" if term.endswith(":") else f"{term} - {definition}"
            text = joined if term and definition else term or definition
            name = term.rstrip(":").strip()
            first, final = self.source(opening), self.source(last)
            source = (first[0], max(first[0], final[1])) if first and final else first
            if text:
                self.builder.block("list_item", text, label=name or self.context()[1], source=source, group=group)
            if rest:
                self.containers.append(("term", name or None))
                self.walk(rest)
                self.containers.pop()
                group = object()  # terms after a nested block start a new run of lines
        return end + 1

    def table(self, tokens: list[Token], index: int) -> int:
        end = _skip_to(tokens, index, "table_close")
        header: tuple[str, ...] = ()
        group = object()
        position = index
        while position < end:
            if tokens[position].type == "tr_open":
                row_end = _skip_to(tokens, position, "tr_close")
                cells = tuple(
                    " ".join(self.inline(tokens[i]).split())
                    for i in range(position, row_end) if tokens[i].type == "inline"
                )
                is_header = any(tokens[i].type == "th_open" for i in range(position, row_end))
                if is_header and not header:
                    header = cells  # carried by every row's label and text, not stored alone
                else:
                    self.builder.block("table_row", "", label=" | ".join(header) or None, cells=cells,
                                       source=self.source(tokens[position]), group=group)
                position = row_end
            position += 1
        return end + 1

    def html(self, token: Token) -> None:
        """Raw HTML is presentation (terminal widgets, buttons, comments): dropped, but a comment
        or hidden element that carries an instruction is reported. What structures a README laid
        out in HTML is kept: its headings (`<h1 align="center">Yargs</h1>`, or the logo's alt text
        when the heading is only a logo), and the summary of a folded section (`<details>`: a
        header's reference, an FAQ's question), which heads the Markdown folded under it as a
        section one level below the heading it sits in. Only where the HTML holds nothing else to
        read: a heading inside a layout of boxes (a sponsor banner, a row of "67M+" figures over
        their captions) would head nothing kept, or name a figure without what it counts."""
        visible = re.sub(r"<!--.*?-->", " ", token.content, flags=re.DOTALL)  # comments: reported by the loader
        self.builder.hidden(re.sub(r"<[^>]*>", " ", visible), "raw HTML", source=self.source(token))
        if _html_text(_HTML_STRUCTURE.sub(" ", visible)):
            return
        for match in _HTML_STRUCTURE.finditer(visible):
            if match.group(1) and not hidden_opening_tag(f"<{match.group(1)}{match.group(2)}>"):
                self.html_heading(int(match.group(1)[1]), match.group(3), token)
            elif match.group(5) is not None and not hidden_opening_tag(f"<summary{match.group(4)}>"):
                heading = _HTML_HEADING.search(match.group(5))
                if heading:
                    self.html_heading(int(heading.group(1)), heading.group(2), token)
                else:
                    self.builder.subheading(_html_text(match.group(5)), source=self.source(token))

    def html_heading(self, level: int, content: str, token: Token) -> None:
        """A heading written in HTML: its text, or the alt text of the image it shows instead."""
        text = _html_text(content)
        if not text:
            text = " ".join(alt for pair in _IMAGE_ALT.findall(content) for alt in pair if alt.strip())
        self.builder.heading(level, text, source=self.source(token))


def _glossary_as_definitions(body: str) -> str:
    """A MyST glossary's body as a definition list, line for line: a term at the margin over its
    indented definition reads as the term and `: definition`, the definition's further lines and
    paragraphs (a nested note, code) indented as a definition's content is, so that they stay its
    prose rather than an indented code block. Several terms over one definition share it, on one
    line ("term, other term"), as a page's list of them reads."""
    lines = body.split("\n")
    terms: list[int] = []  # the term lines over the definition about to start
    indent = 0  # the indentation of the definition being read
    for number, line in enumerate(lines):
        stripped = line.lstrip(" \t")
        if not stripped:
            continue
        depth = len(line) - len(stripped)
        if not depth:
            # Only terms on consecutive lines share a definition; one left without is text.
            terms = [*terms, number] if terms and terms[-1] == number - 1 else [number]
        elif terms:
            names = [lines[term].strip() for term in terms]
            for earlier in terms[:-1]:
                lines[earlier] = ""
            lines[terms[-1]] = ", ".join(names)
            lines[number] = f": {stripped}"
            terms, indent = [], depth
        elif indent:
            lines[number] = f"  {stripped if line[:indent].strip() else line[indent:]}"
    return "\n".join(lines)


def _html_text(content: str) -> str:
    """The text an HTML fragment shows, tags dropped and entities read."""
    return " ".join(html.unescape(re.sub(r"<[^>]*>", " ", content)).split())


def _is_bold_heading(source: str) -> bool:
    """Whether a paragraph is a heading in all but markup: one bold phrase of a few words that does
    not end as a statement ("**Establishing the connection**"). Pages written before their generator
    had sub-sub-headings use these; read as paragraphs they would be quoted as points and would not
    name the text under them."""
    bold = _BOLD_LINE.fullmatch(source.strip())
    if bold is None:
        return False
    phrase = (bold.group(1) or bold.group(2)).strip()
    return len(phrase.split()) <= _BOLD_HEADING_WORDS and not phrase.endswith((".", "!"))


def _skip_to(tokens: list[Token], index: int, kind: str) -> int:
    for position in range(index, len(tokens)):
        if tokens[position].type == kind:
            return position
    return len(tokens) - 1


def _matching(tokens: list[Token], index: int, open_kind: str, close_kind: str) -> int:
    depth = 0
    for position in range(index, len(tokens)):
        if tokens[position].type == open_kind:
            depth += 1
        elif tokens[position].type == close_kind:
            depth -= 1
            if depth == 0:
                return position
    return len(tokens) - 1


def _front_matter(raw: str) -> dict[str, Any]:
    """Simple `key: value` YAML front matter (nested values are ignored)."""
    meta: dict[str, Any] = {}
    for line in raw.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() and not key.startswith((" ", "\t", "-")):
            meta[key.strip()] = value.strip().strip("'\"")
    return meta


def fence_language(info: str) -> str | None:
    """The language a code fence's info string names: its first word, without what some sites add
    to it (Pandoc's `{.python}`, VitePress's `python{1,3}` line marks, `js:line-numbers`). A fence
    whose info is only attributes (`title="app.py"`) names no language: the attribute is not one."""
    first = info.split()[0] if info.strip() else ""
    if "=" in first:
        return None
    name = re.match(r"[\w+#-]+", first.lstrip("{."))
    return name.group() if name else None


def read_markdown(text: str, builder: DocumentBuilder, source: str | None = None) -> dict[str, Any]:
    """Lay the blocks of Markdown `text` out in `builder`, in reading order, and return its front
    matter (empty without). `source` is what is parsed when it differs from `text` only inside
    lines (an MDX page with its module statements blanked out), so source offsets still hold.
    Shared with loaders of formats that hold Markdown (a notebook's Markdown cells)."""
    tokens = _MD.parse(prepare_source(text if source is None else source))
    metadata: dict[str, Any] = {}
    if tokens and tokens[0].type == "front_matter":
        metadata = _front_matter(tokens[0].content)
        tokens = tokens[1:]
    _Walker(text, builder).walk(tokens)
    for match in re.finditer(r"<!--(.*?)-->", text, re.DOTALL):
        builder.hidden(match.group(1), "HTML comment", source=(match.start(), match.end()))
    return metadata


def _readme_title(path: Path, builder: DocumentBuilder) -> str | None:
    """A README that does not open with a title of its own (its name is in a logo, or it starts at
    "## Install") is titled by its folder, the project it describes, as its repository and package
    pages show it, rather than by its first section's heading ("Table of contents")."""
    if path.stem.lower() != "readme" or builder.first_heading_level == 1 or not path.parent.name:
        return None
    return path.parent.name


class MarkdownLoader:
    """Markdown and MkDocs pages: typed blocks, heading sections, front matter as metadata."""

    suffixes: tuple[str, ...] = (".md", ".markdown", ".mdx")

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        """Parse the page and lay its blocks out as stored text."""
        text, removed = sanitize(decode_text(data, path))
        check_line_lengths(text, path.name)
        mdx = path.suffix.lower() == ".mdx"
        source = _outside_code(text, lambda part: _MDX_MODULE.sub(_blank_out, part)) if mdx else text
        builder = DocumentBuilder()
        metadata = read_markdown(text, builder, source)
        title = str(metadata.get("title") or "") or _readme_title(path, builder) or builder.first_heading or path.stem
        document = builder.build(title, metadata, removed)
        included = [m.group(1) or m.group(2) for m in _INCLUDED.finditer(source)]
        refuse_only_includes(path.name, document, included + _MYST_INCLUDED.findall(source))
        return document


register_loader(MarkdownLoader())
