"""HTML via BeautifulSoup: the page's main content, read as typed blocks.

A documentation page is mostly not its document: navigation, banners, sidebars, breadcrumbs,
"skip to content" links, header-link pilcrows and `[source]` links surround the text. The
loader keeps the main content (`<main>`, Sphinx's `div.body`, MkDocs' `.md-content`, ...) and
drops the chrome inside it. Elements hidden from a reader (`hidden`, `aria-hidden`, a hiding
inline style: see `documents.hidden`) and comments are dropped too — text a person cannot see is a classic way to
smuggle instructions to a model — and reported when they carry such instructions.

What stays becomes blocks: headings (sections), paragraphs, list items, `<pre>` code (with the
language Sphinx or a highlighter names), table rows with their header (DocBook's segmented lists
too), definition lists (Sphinx API entries: the signature, then its description labelled with it;
Doxygen's, RDoc's, Haddock's, pydoctor's and TypeDoc's entries alike) and admonitions labelled with their title. bs4 over lxml keeps no source positions, so HTML blocks have no source offsets.
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from citeline.documents.builder import Containers, DocumentBuilder, item_name
from citeline.documents.hidden import hidden_element
from citeline.documents.html_elements import HEADINGS, class_names, own_rows
from citeline.documents.html_generators import (
    GENERATOR_READERS,
    HADDOCK_PAGE,
    MARKED_READERS,
    page_generators,
    read_haddock,
)
from citeline.documents.loaders import decode_text, refuse_only_includes, sanitize
from citeline.documents.models import ADMONITION_KINDS, BlockKind, LoadedDocument
from citeline.documents.registry import register_loader
from citeline.errors import IngestError, NoTextOfItsOwn
from citeline.text import code_span

# Never content: code, styling, embedded objects, the document head.
_DROP = ("script", "style", "noscript", "noframes", "template", "iframe", "svg", "canvas", "object", "embed", "head",
         "button", "input", "select", "textarea", "form", "nav", "footer", "link", "meta")
# Fields of a described thing's own (Sphinx's field list under an option or function), not a parameter's.
_OWN_FIELDS = frozenset(("default", "type", "returns", "return type", "value", "values", "raises", "yields"))
# Page chrome by ARIA role.
_CHROME_ROLES = frozenset(("navigation", "banner", "contentinfo", "search", "complementary"))
# Page chrome by class, as documentation generators and themes name it (Sphinx and its themes,
# MkDocs Material, pydata, DocBook's navigation headers and footers, tables of contents and lists of
# figures, Doxygen's "◆" permalinks, RDoc's "click to toggle source" and the method source it
# unfolds, which the page keeps folded: an implementation, not its documentation; rustdoc's "source"
# and "[−]" links and its "Expand description" toggles; Nim's "Source Edit" links, folded pragmas and
# theme switch; pydoctor's "(source)" links and the "class documentation" line over every page;
# Docusaurus' table of contents and version badge, Starlight's
# "Section titled …" anchors, Jupyter Book's print-only header, Docsy's "Last modified" line, GitBook's
# search results, a site's top bar: erl_docgen's holds the page's name over the page; Texinfo's menu of
# a node's subsections, a list of their titles: `ul.section-toc`, makeinfo 7's `ul.mini-toc`, older
# makeinfo's `table.menu` or `div.menu`; DocBook's "[D]" link beside a figure to its long description,
# a page of its own). A plain `sidebar` class is left alone: it is docutils' sidebar directive, which is
# content.
_CHROME_CLASS = re.compile(
    r"^(?:.+sidebar.*|sidebar[-_].+|.*breadcrumbs?.*|.*banner.*|skip-?link|skip-to-content|md-skip|"
    r"headerlink|viewcode-(?:link|back)|related|relbar.*|md-header.*|md-footer.*|md-tabs.*|md-source-file|"
    r"md-content__button|md-clipboard|edit-?this-?page|prev-next.*|navbar.*|nav-?bar|top-?bar.*|toctree-wrapper|"
    r"bd-header.*|bd-footer.*|bd-toc.*|footer.*|header-?link|copybutton|linenos|lineno|announcement.*|"
    r"cookie.*|rst-footer-buttons|rst-versions|wy-nav-side|wy-nav-top|feedback.*|(?:main|sub|site|top|nav)?-?menu|"
    r"tagline|toc|list-of-(?:figures|tables|examples|equations|procedures)|nav(?:header|footer)|permalink|"
    r"method-click-advice|method-source-code|out-of-band|rightside|hideme|link-seesrc|pragmawrap|pragmadots|"
    r"theme-switch-wrapper|simple-toc|sourcelink|categoryheader|table-of-contents|theme-doc-toc-.+|"
    r"theme-doc-version-badge|sl-anchor-link|onlyprint|td-page-meta.*|search-results|footnote-back(?:ref)?|"
    r"section-toc|mini-toc|longdesc-link)$",
    re.IGNORECASE,
)
# A rustdoc module's item table: each row's name and one-line summary (see `_item_table_as_definitions`).
_ITEM_NAME = frozenset(("item-left", "item-name"))
_ITEM_SUMMARY = frozenset(("item-right", "desc", "docblock-short"))
# Chrome by id: rustdoc's trait implementations every type has (`impl<T> From<T> for T`: "Returns the
# argument unchanged."), by the ids of their lists and headings, and Nim's links to the other manuals
# and its search box. (Of a trait implemented for a type only the `impl Trait for Type` line is read:
# the methods under it, `.trait-impl`, repeat the trait's docs; see `_chrome`.)
_CHROME_IDS = frozenset(("synthetic-implementations", "synthetic-implementations-list", "blanket-implementations",
                         "blanket-implementations-list", "global-links", "searchInputDiv"))
# Where the main content is, most specific first: Sphinx (basic themes, then Read the Docs), MkDocs
# Material, then the HTML5 and ARIA landmarks; one `<article>` if nothing else names it.
_MAIN_RULES: tuple[tuple[str | None, str | None, tuple[str, str] | None], ...] = (  # (tag, class, attribute)
    ("div", "body", None), (None, None, ("itemprop", "articleBody")), ("div", "document", None),
    ("div", "rst-content", None), ("article", "md-content__inner", None), ("div", "md-content", None),
    ("main", None, None), (None, None, ("role", "main")),
)
# `<aside>` is chrome unless docutils used it for content (footnotes, sidebars, topics).
_CONTENT_ASIDES = frozenset(("sidebar", "admonition", "topic", "footnote", "footnote-list", "note", "warning",
                             "starlight-aside"))
_SKIP_LINK = re.compile(r"^\s*skip\s+to\s+(?:the\s+)?(?:main\s+)?content\s*$", re.IGNORECASE)
_PERMALINK_TEXT = frozenset(("¶", "#", "§", "🔗"))
# Texinfo's printed indexes (`@printindex`): tables of entries linking to the sections that mention
# them, and the "Jump to:" rows of initial letters above and below them. texi2html and makeinfo
# before 7 class the table by the index's name ("index-cp", "index-fn", or a manual's own "index-op");
# makeinfo 7 names it "cp-entries-printindex" inside a `div.printindex`.
_INDEX_TABLE = re.compile(r"^(?:index-[a-z]+|[a-z]+-entries-printindex|[a-z]+-letters-(?:header|footer)-printindex)$")
_INDEX_LETTER = re.compile(r"^summary-letter(?:-printindex)?$")
_GENERATOR_CREDIT = re.compile(r"(?:this (?:document|page|file|manual) was )?(?:generated|created|built) "
                               r"(?:by|on|using|with)\b", re.IGNORECASE)
_CREDIT_CHARS = 200
_EXTERNAL_LINK = re.compile(r"^https?://")
_REFRESH = re.compile(r"^\s*refresh\s*$", re.IGNORECASE)
_REDIRECT_TARGET = re.compile(r"url\s*=\s*['\"]?([^'\"]+)", re.IGNORECASE)
_REDIRECT_WORDS = 30  # "Redirecting to macro.parse_quote.html..." and a link or two: no page of its own
_FOOTNOTE_MARK = re.compile(r"\[?(?:\d{1,3}|[*†‡])\]?")
# Links and labels of a navigation bar (HTML's link types for a page's place in a sequence).
_NAVIGATION_RELS = frozenset(("next", "prev", "previous", "up", "contents", "index", "start", "first", "last", "top"))
_NAVIGATION_WORDS = frozenset(("next", "previous", "prev", "up", "contents", "index", "top", "home", "homepage",
                               "back", "forward", "jump", "to"))
_NAVIGATION_ARROWS = frozenset(("<", ">", "<<", ">>", "«", "»", "‹", "›", "←", "→", "↑", "?"))
_NAVIGATION_BLOCKS = frozenset(("div", "p", "table", "tr", "td", "span", "ul", "li", "small"))
_NAVIGATION_NODES = 120  # elements and strings a navigation bar stays within
_LINK_LIST_NODES = 20_000  # ... and a table of contents or an index
_WORD = re.compile(r"[^\W\d_]+")
_BLOCK_TAGS = frozenset((
    "p", "div", "section", "article", "main", "ul", "ol", "dl", "dt", "dd", "table", "thead", "tbody",
    "tfoot", "tr", "td", "th", "blockquote", "pre", "figure", "figcaption", "hr", "address", "details",
    "summary", "fieldset", "body", "html", "center", "header", "aside", "li", "caption", *HEADINGS,
))
_CODE_TAGS = frozenset(("code", "kbd", "samp", "tt"))
_OPEN_QUOTE, _CLOSE_QUOTE = "\u2018", "\u2019"  # ‘ ’


_LINE_BLOCKS = frozenset(("div", "p"))  # a line of code a highlighter lays out as a block
# Block elements met inside inline content (a list in a table cell): a space on either side.
_INLINE_BREAKS = frozenset(("p", "div", "ul", "ol", "dl", "dt", "dd", "blockquote", "table", "tr", "td", "th"))
_SITE_ADMONITIONS = frozenset(("theme-admonition", "custom-block"))
# Notes drawn as a box classed by their kind and opening with their title (see `_box_title`). An
# example's box is left out: DocBook titles it "Example 3. …" over the example, which is no note.
_BOX_KINDS = frozenset(ADMONITION_KINDS) - {"example", "quote", "abstract"}
_BOX_TITLE_CLASSES = frozenset(("label", "title"))
_BOX_TITLE_WORDS = 4  # "Note", "Warning": the note's kind or a short name, not a sentence
_SITE_ADMONITION_TITLE = re.compile(r"^(?:admonitionHeading.*|custom-block-title)$")
_VERSION_CLASSES = frozenset(("versionadded", "versionchanged", "deprecated", "versionremoved"))
# Sphinx marks API entries `dl.py.function`, `dl.py.class`, `dl.c.function`, ...
_DESCRIPTION_CLASSES = frozenset((
    "py", "c", "cpp", "js", "rst", "std", "http", "function", "class", "method", "classmethod",
    "staticmethod", "attribute", "property", "data", "exception", "describe", "object", "decorator",
    "envvar", "option", "cmdoption", "confval", "type", "member", "var", "macro",
))
_NAMED_ENTRIES = frozenset(("envvar", "confval", "option", "cmdoption", "globalvar"))
# What a table draws between its columns rather than writes in them (see `_drawn_columns`).
_DRAWN_CELLS = frozenset(("-", "\u2013", "\u2014", ":", "=", "->", "=>", "\u2192"))
# The kinds of entry pydoctor documents on its pages, as it classes them ("base" and the kind):
# functions and attributes (classes, modules and packages have pages of their own).
_PYDOCTOR_KINDS = ("method", "classmethod", "staticmethod", "function", "instancevariable", "classvariable",
                   "attribute", "property", "variable", "constant", "typevariable", "typealias", "schemafield")
# API entries laid out as a prototype, then its documentation: Doxygen's, RDoc's and pydoctor's (entry
# class: prototype class, documentation class; None: all the entry holds besides its prototype).
_MEMBER_PARTS: dict[str, tuple[str, str | None]] = {
    "memitem": ("memproto", "memdoc"), "method-detail": ("method-heading", "method-description"),
    **{f"base{kind}": ("functionHeader", "functionBody") for kind in _PYDOCTOR_KINDS},
}
# Haddock's entry (`div.top`) holds its signature (`p.src`), then its documentation (`div.doc`) and the
# constructors, fields, methods and instances it declares (`div.subs`): all read under the signature.
# Its class names are plain words other pages use, so they are read so on a Haddock page only.
_HADDOCK_MEMBER_PARTS = {**_MEMBER_PARTS, "top": ("src", None)}
# The spaces a prototype's table cells leave inside its brackets and before its commas.
_SIGNATURE_OPEN = re.compile(r"\(\s+")
_SIGNATURE_SPACES = re.compile(r"\s+([),])")
# pydoctor ends an attribute's line with "=" ("running: bool ="), its value, if any, shown in the
# documentation below: nothing follows it on the line.
_SIGNATURE_ASSIGNS = re.compile(r"\s*=$")
_LANGUAGE_CLASS = re.compile(r"^(?:highlight-|language-|lang-)([\w+#.-]+)$")


def _take_next_paragraph(tag: Any, stack: list[Any]) -> Any:
    """The paragraph right after `tag` (nothing but white space between), taken off the walk's stack
    so that it is read once, where the caller puts it; None if `tag` is not followed by one."""
    following = tag.find_next_sibling()
    if following is None or following.name != "p":
        return None
    for at in range(len(stack) - 1, -1, -1):
        entry = stack[at]
        if entry is following:
            del stack[at]
            return following
        if not isinstance(entry, str) or entry.strip():
            return None  # something else comes first (only white space may stand between)
    return None


# A documented parameter whose description is empty ("enable_async (bool) –", as Sphinx writes every
# type-hinted parameter nobody described): its name and type are in the signature above it already.
_UNDESCRIBED_FIELD = re.compile(r"^\s*[\w.*]+\s*(?:\(.*\))?\s*[\u2013\u2014-]\s*$", re.DOTALL)


def _undescribed(tag: Any) -> bool:
    """Whether a field list's entry (one parameter, or a list of them) holds only undescribed
    parameters."""
    items = tag.find_all("li") or [tag]
    return all(_UNDESCRIBED_FIELD.match(item.get_text()) for item in items)


def _chrome(tag: Any) -> bool:
    """Whether a tag inside the main content is page furniture rather than the document."""
    name = tag.name
    if name == "aside":
        return not (set(class_names(tag)) & _CONTENT_ASIDES)
    if name == "header":
        # An article's header holds its title; a site header holds a logo and links.
        return tag.find(list(HEADINGS)) is None
    if str(tag.get("role", "")).lower() in _CHROME_ROLES:
        return True
    classes = class_names(tag)
    if any(_CHROME_CLASS.match(class_name) for class_name in classes):
        return True
    if (name == "table" and _index_table(tag)) or (name in ("p", "div") and _generator_credit(tag)):
        return True
    if _line_numbers(tag, name, classes) or _language_label(tag, name, classes):
        return True
    if tag.get("id") in _CHROME_IDS or ("impl-items" in classes and tag.find(class_="trait-impl") is not None):
        return True
    if name == "a":
        text = tag.get_text().strip()
        return (text in _PERMALINK_TEXT or bool(_SKIP_LINK.match(text)) or text == "[source]"
                or _footnote_reference(tag, text))
    return _navigation_bar(tag) or _link_list(tag)


def _redirect_target(soup: Any) -> str | None:
    """Where a `<meta http-equiv="refresh">` sends the browser: a page that holds only that and a
    line saying so (rustdoc's, Sphinx's and MkDocs' redirects from old addresses) is no page."""
    refresh = soup.find("meta", attrs={"http-equiv": _REFRESH})
    target = _REDIRECT_TARGET.search(str(refresh.get("content", ""))) if refresh is not None else None
    return target.group(1).strip() if target else None


def _line_numbers(tag: Any, name: str, classes: list[str]) -> bool:
    """Hugo's (Chroma's) line numbers: a table cell holding only them beside the code's cell
    (`td.lntd` of `span.lnt`), or one set before each line of the code (`span.ln`)."""
    if name == "td" and "lntd" in classes:
        return tag.find(class_="lnt") is not None
    return name == "span" and bool({"ln", "lnt"} & set(classes)) and tag.find_parent("pre") is not None


def _tab_title(tag: Any) -> bool:
    """Whether `tag` is an ARIA tab's title: a button, as sphinx-tabs and Bootstrap write them, that
    is a tab is the title of its panel, not a control to drop."""
    return str(tag.get("role", "")).lower() == "tab"


def _holds_tablist(tag: Any) -> bool:
    """Whether a child or grandchild of `tag` is an ARIA tab list (asked of every block, so only
    that deep)."""
    from bs4.element import Tag

    for child in tag.contents:
        if isinstance(child, Tag) and (child.get("role") == "tablist" or any(
                isinstance(inner, Tag) and inner.get("role") == "tablist" for inner in child.contents)):
            return True
    return False


def _language_label(tag: Any, name: str, classes: list[str]) -> bool:
    """The language name VitePress shows over a code block (`div.language-bash > span.lang`): the
    code block is labelled with its language already."""
    return (name == "span" and "lang" in classes and tag.parent is not None
            and any(cls.startswith("language-") for cls in class_names(tag.parent)))


def _index_table(table: Any) -> bool:
    """A table of a Texinfo index, or its "Jump to:" row of letters: a listing of where words are
    mentioned, derived from the manual, which says nothing of them itself."""
    return (any(_INDEX_TABLE.match(name) for name in class_names(table))
            or table.find("a", class_=_INDEX_LETTER) is not None)


def _generator_credit(block: Any) -> bool:
    """A line crediting the program that made the page ("This document was generated by … on July,
    26 2020 using texi2html 1.78a.", YARD's `div#footer` "Generated by yard 0.9.28"), linking to the
    program's site: on every page, about none. Reads no further than a line's length, and a
    `<div>` only when the link is its own child: every paragraph and `<div>` of the page is asked,
    and a `<div>` may hold thousands of others."""
    if block.find("a", href=_EXTERNAL_LINK, recursive=block.name == "p") is None:
        return False
    text = ""
    for string in block.stripped_strings:
        text = f"{text} {string}" if text else string
        if len(text) > _CREDIT_CHARS:
            return False
    return bool(_GENERATOR_CREDIT.match(text))


def _footnote_reference(link: Any, text: str) -> bool:
    """A link to a footnote on the same page ("UTF-16LE¹"): read as part of the word before it
    ("UTF-16LE1"), and the footnote itself is kept where it is."""
    return (str(link.get("href", "")).startswith("#") and bool(_FOOTNOTE_MARK.fullmatch(text))
            and (link.find("sup") is not None or link.find_parent("sup") is not None
                 or any("footnote" in name for name in class_names(link))))


def _navigation_bar(tag: Any) -> bool:
    """A small block holding only next / previous / up links and their labels ("Next: Introduction,
    Previous: R FAQ, Up: R FAQ [Contents]"), as texinfo and other generators put above every section.
    Read without building the subtree's text: every block of the page is asked."""
    if tag.name not in _NAVIGATION_BLOCKS:
        return False
    from bs4.element import Tag  # after the name: every element of the page is asked

    links = 0
    stack: list[tuple[Any, bool]] = [(child, False) for child in tag.contents]
    for _ in range(_NAVIGATION_NODES):
        if not stack:
            return links > 0
        node, in_link = stack.pop()
        if isinstance(node, Tag):
            if node.name == "a":
                if not _navigation_link(node):
                    return False
                links, in_link = links + 1, True
            stack.extend((child, in_link) for child in node.contents)
        elif not in_link and any(word.lower() not in _NAVIGATION_WORDS for word in _WORD.findall(str(node))):
            return False
    return False  # too big to be a navigation bar


def _navigation_link(link: Any) -> bool:
    """A link to the next / previous / enclosing page: by its link type, or, where the generator
    gives none (texi2html's "[ << ] [ >> ] [Top] [Contents] [Index] [ ? ]"), by a label made only of
    arrows and navigation words."""
    if {str(rel).lower() for rel in link.get("rel") or ()} & _NAVIGATION_RELS:
        return True
    words = [word.strip("[]()|:").lower() for word in link.get_text().split()]
    return bool(words) and all(word in _NAVIGATION_WORDS or word in _NAVIGATION_ARROWS for word in words)


def _link_list(tag: Any) -> bool:
    """A list or table made of links into the page itself: a table of contents or an index, which
    repeats the page's headings and names without saying anything of them. Read only as far as it
    takes to see it is not one (a first link soon, hardly a word outside links): every list is asked."""
    if tag.name not in ("ul", "ol", "table", "dl"):
        return False
    from bs4.element import Tag  # after the name: every element of the page is asked

    links = linked = unlinked = 0
    stack: list[tuple[Any, bool]] = [(child, False) for child in tag.contents]
    for step in range(_LINK_LIST_NODES):
        if not stack:
            return links >= 5 and unlinked <= 0.1 * (linked + unlinked)
        if unlinked > 20 + 0.2 * (linked + unlinked) or (not links and step > 50):
            return False
        node, in_link = stack.pop()
        if isinstance(node, Tag):
            if node.name in ("th", "caption"):
                continue  # an index's column names and initial letters label it
            if node.name == "a" and str(node.get("href", "")).startswith("#"):
                links, in_link = links + 1, True
            stack.extend((child, in_link) for child in node.contents)
        elif in_link:
            linked += len(_WORD.findall(str(node)))
        else:
            unlinked += sum(word.lower() not in _NAVIGATION_WORDS for word in _WORD.findall(str(node)))
    return False  # read no further: a page's own lists are not this long


def _main_rule(tag: Any) -> int | None:
    """The rank of the first main-content rule `tag` satisfies."""
    classes: list[str] | None = None
    for rank, (name, class_name, attribute) in enumerate(_MAIN_RULES):
        if name is not None and tag.name != name:
            continue
        if class_name is not None:
            classes = class_names(tag) if classes is None else classes
            if class_name not in classes:
                continue
        if attribute is not None and str(tag.get(attribute[0], "")) != attribute[1]:
            continue
        return rank
    return None


def _prepare(soup: Any, builder: DocumentBuilder) -> Any:
    """One pass over the page: non-content elements dropped, comments and hidden elements
    reported and dropped; returns the main content element."""
    from bs4.element import Comment, Tag

    candidates: dict[int, list[Any]] = {}
    articles: list[Any] = []
    first_h1: Any = None
    # The elements holding each navigation landmark, by identity (bs4 tags compare equal by content);
    # taken before it is dropped, which cuts it from them.
    navigation: list[set[int]] = []
    # A walk that never enters a dropped element (asking bs4 whether an element was already
    # decomposed searches its subtree, which is quadratic on deeply nested markup).
    stack: list[Any] = list(reversed(soup.contents))
    while stack:
        node = stack.pop()
        if isinstance(node, Comment):
            builder.hidden(str(node), "HTML comment")
            node.extract()
            continue
        if not isinstance(node, Tag):
            continue
        if node.name == "nav" or str(node.get("role", "")).lower() == "navigation":
            navigation.append({id(parent) for parent in node.parents})
        if node.name in _DROP and not _tab_title(node):
            node.decompose()
            continue
        if hidden_element(node.attrs or {}):
            builder.hidden(node.get_text(" "), "hidden element")
            node.decompose()
            continue
        if node.name == "h1" and first_h1 is None and node.get_text().strip():
            first_h1 = node
        if node.name in ("div", "ul") and "item-table" in class_names(node):
            _item_table_as_definitions(node)
        rank = _main_rule(node)
        if rank is not None:
            candidates.setdefault(rank, []).append(node)
        elif node.name == "article":
            articles.append(node)
        stack.extend(reversed(node.contents))
    for rank in sorted(candidates):
        for found in candidates[rank]:
            if found.get_text().strip():
                return found
    if len(articles) == 1 and articles[0].get_text().strip():
        return _with_its_title(articles[0], first_h1, navigation, soup)
    return soup.body or soup


def _with_its_title(article: Any, h1: Any, navigation: list[set[int]], soup: Any) -> Any:
    """The content of a page read from its one `<article>`: the article, or, when the page's h1 stands
    before it outside it (JSDoc puts the title and a class's description before the article of its
    members: `div#main > h1`, `section > header + article`), the nearest element holding both, so
    that neither is lost; unless that element holds the page's navigation or is the whole page, when
    the h1 is the site's rather than the article's."""
    if h1 is None or any(parent is article for parent in h1.parents) or not _precedes(h1, article):
        return article
    h1_parents = {id(parent) for parent in h1.parents}
    common = next((parent for parent in article.parents if id(parent) in h1_parents), None)
    if common is None or common is soup or common.name in ("body", "html"):
        return article
    # A navigation landmark inside the article is its own (a table of contents); beside it, the site's.
    if any(id(common) in holders and id(article) not in holders for holders in navigation):
        return article
    return common


def _precedes(first: Any, second: Any) -> bool:
    """Whether `first` comes before `second` in the document (neither holding the other)."""
    return any(node is second for node in first.find_all_next(second.name))


def _item_table_as_definitions(table: Any) -> None:
    """rustdoc lists a module's items as rows of a name and its one-line summary (`div.item-row` of
    `div.item-left` and `div.item-right`, later `li` of `div.item-name` and `div.desc`): made the
    definition list newer rustdoc writes (`dl.item-table`), so each summary reads with its name."""
    table.name = "dl"
    for row in table.find_all(recursive=False):
        for cell in row.find_all(recursive=False):
            classes = set(class_names(cell))
            if classes & _ITEM_NAME:
                cell.name = "dt"
            elif classes & _ITEM_SUMMARY:
                cell.name = "dd"
        row.unwrap()


def _drop_chrome(root: Any) -> None:
    """Remove page furniture inside the main content, without entering what is removed."""
    from bs4.element import Tag

    stack: list[Any] = [child for child in reversed(root.contents) if isinstance(child, Tag)]
    while stack:
        tag = stack.pop()
        if _chrome(tag):
            tag.decompose()
        else:
            stack.extend(child for child in reversed(tag.contents) if isinstance(child, Tag))


def _language(pre: Any) -> str | None:
    """The language Sphinx (`div.highlight-python`) or a highlighter (`code.language-js`) names."""
    candidates = [pre, *pre.find_all("code", limit=1)]
    candidates.extend(pre.parents)
    for tag in candidates:
        if getattr(tag, "name", None) is None:
            continue
        for name in class_names(tag):
            match = _LANGUAGE_CLASS.match(name)
            if match and match.group(1).lower() not in {"default", "none", "text"}:
                return match.group(1)
    return None


def _terms_and_definitions(entries: Any) -> list[Any]:
    """A definition list's `<dt>` and `<dd>` elements in order, those HTML lets a `<div>` group
    (Nim's documentation wraps each entry so) included."""
    found: list[Any] = []
    for child in entries.find_all(["dt", "dd", "div"], recursive=False):
        found.extend(child.find_all(["dt", "dd"], recursive=False) if child.name == "div" else [child])
    return found


def _preformatted(pre: Any) -> str:
    """A `<pre>`'s text with the line breaks a highlighter writes as elements: a `<br>` (Docusaurus'
    Prism) or a block per line (Starlight's `div.ec-line`) ends a line, as its newline would."""
    from bs4.element import NavigableString, Tag

    parts: list[str] = []
    stack: list[Any] = [pre]
    while stack:
        node = stack.pop()
        if isinstance(node, str) and not isinstance(node, NavigableString):
            if parts and not parts[-1].endswith("\n"):
                parts.append("\n")  # the end of a line's block
        elif isinstance(node, Tag):
            if node.name == "br":
                parts.append("\n")
                continue
            if node is not pre and node.name in _LINE_BLOCKS:
                stack.append("end")
            stack.extend(reversed(node.contents))
        elif isinstance(node, NavigableString):
            parts.append(str(node))
    return "".join(parts)


def _unquote_code(root: Any) -> None:
    """Code set between single quotes and nothing else ("‘<samp>-c</samp>’", as Texinfo writes
    `@samp` and `@file`) read as the code alone: the code span marks the literal already, the quotes
    are the printed page's way of marking the same thing, and "‘`-c`’" is no text a reader sees.
    Code in a `<pre>` is the example's own text, and quotes with more between them are prose's."""
    from bs4.element import NavigableString, PreformattedString

    def plain(node: Any) -> bool:
        return isinstance(node, NavigableString) and not isinstance(node, PreformattedString)

    def code(node: Any) -> bool:
        return getattr(node, "name", None) in _CODE_TAGS

    for span in root.find_all(list(_CODE_TAGS)):
        before, after = span.previous_sibling, span.next_sibling
        if not (plain(before) and plain(after) and before.endswith(_OPEN_QUOTE) and after.startswith(_CLOSE_QUOTE)):
            continue
        left, right = str(before)[:-1], str(after)[1:]
        if left[-1:].isalnum() or right[:1].isalnum() or not span.get_text().strip():
            continue  # a quote inside a word ("‘<code>x</code>’s"), or nothing quoted
        if (not left and code(before.previous_sibling)) or (not right and code(after.next_sibling)):
            continue  # the quotes part it from other code, with which it would read as one span
        if span.find_parent(["pre", *_CODE_TAGS]) is not None:
            continue
        before.replace_with(left)
        after.replace_with(right)


def _box_cell(table: Any) -> Any:
    """The one cell of a table that has one row of one cell, else None.

    Such a table is a frame, not a table: Texinfo draws its "cartouche" boxes round an example this
    way and older pages lay content out with it. Read as a table row, an example inside loses its
    lines and runs on for pages as one "row".
    """
    rows = own_rows(table)
    if len(rows) != 1:
        return None
    cells = rows[0].find_all(["td", "th"], recursive=False)
    return cells[0] if len(cells) == 1 else None


_SITE_SEPARATOR = r"\s*[—–|·:-]+\s*"  # "Page — Site", "Site | Page", "Page - Site"


def _drawn_columns(rows: list[tuple[str, ...]]) -> set[int]:
    """The columns holding the same dash or arrow in every row ("i | - | the package will be
    installed."): drawn between the others, not written in the table."""
    if len(rows) < 2:
        return set()
    return {column for column, cell in enumerate(rows[0])
            if cell in _DRAWN_CELLS and all(column < len(row) and row[column] == cell for row in rows)}


def _heading_summary(summary: Any) -> bool:
    """Whether a `<details>`' summary holds a heading (or rustdoc's `.code-header` signature): the
    folded content is a section of the page under it, not a note titled by it."""
    return summary.find(list(HEADINGS)) is not None or summary.find(class_="code-header") is not None


def _box_title(tag: Any, classes: set[str]) -> Any:
    """The title of a note drawn as a box of its own kind (`div.note`, `div.warning`) that opens with
    it, as a heading (DocBook's `<h3 class="title">Note</h3>`) or a label (erl_docgen's `<div
    class="label">Note</div>`); None for any other element. Read as a heading, such a title opened a
    section that ran on over the page after the note."""
    if tag.name != "div" or not classes & _BOX_KINDS:
        return None
    first = next((child for child in tag.contents if getattr(child, "name", None)), None)
    if first is None or not (first.name in HEADINGS or _BOX_TITLE_CLASSES & set(class_names(first))):
        return None
    return first if len(first.get_text().split()) <= _BOX_TITLE_WORDS else None


def _template_title(soup: Any) -> str:
    """The title a page fragment gives its site's template in a comment opening it (`<!--{"Title":
    "The Go Programming Language Specification", …}-->`, as Go's documentation pages do), or ""."""
    from bs4.element import Comment

    first = next((node for node in soup.descendants if not (isinstance(node, str) and not isinstance(node, Comment)
                                                             and not node.strip())), None)
    if not isinstance(first, Comment):
        return ""
    try:
        fields = json.loads(str(first))
    except ValueError:
        return ""
    title = fields.get("Title") if isinstance(fields, dict) else None
    return " ".join(title.split()) if isinstance(title, str) else ""


# A code span as the walker writes it: "`functools`", or "`` %`command` ``" around a backtick.
_CODE_SPAN = re.compile(r"``\s(.+?)\s``|`([^`]+)`")


def _page_title(head: str, h1: str | None) -> str:
    """The page's own title: the `<title>` without the site's name that generators add to every
    page ("How to capture output — pytest documentation" over an h1 "How to capture output"), else
    the `<title>`, else the first h1. The site's name on every page says nothing of any one page.
    The `<title>` holds no markup, so an h1 with code in it ("`functools` — Higher-order functions",
    as Sphinx heads a module's page) is matched by its words, and the title is those words."""
    if h1:
        h1 = _CODE_SPAN.sub(lambda match: match.group(1) or match.group(2), h1)
    if h1 and head != h1 and (re.fullmatch(re.escape(h1) + _SITE_SEPARATOR + r".+", head)
                              or re.fullmatch(r".+" + _SITE_SEPARATOR + re.escape(h1), head)):
        return h1
    return head or h1 or ""


class _Action:
    """A step of the walk that runs when the walker reaches it, with the walk's stack."""

    __slots__ = ("run",)

    def __init__(self, run: Callable[[list[Any]], None]) -> None:
        self.run = run


class _Walker:
    """Walks the main content in reading order into a builder, without recursion (deeply nested
    markup must not hit the interpreter's recursion limit)."""

    def __init__(self, builder: DocumentBuilder,
                 members: dict[str, tuple[str, str | None]] = _MEMBER_PARTS) -> None:
        from bs4.element import NavigableString, PreformattedString, Tag

        self.builder = builder
        self.members = members  # the API entries read as a signature, then its documentation (`_member`)
        self.removed = 0
        self.parts: list[str] = []  # inline text of the paragraph being read
        self.context = Containers()
        self.first_h1: str | None = None
        self._string = NavigableString
        self._special_string = PreformattedString  # comments, CDATA, doctypes: never text
        self._tag = Tag

    # -- text ------------------------------------------------------------------------------
    def clean(self, raw: str) -> str:
        text, count = sanitize(raw)
        self.removed += count
        return text

    def inline(self, nodes: Iterable[Any], *, ticks: bool = True) -> str:
        """The words of inline content: code in backticks, links as their text, line breaks as spaces."""
        parts: list[str] = []
        stack: list[Any] = list(reversed(list(nodes)))
        items = False
        # Code elements that touch read as one span: DocBook sets `IP-address/mask-length` as three
        # (a placeholder, a literal "/", a placeholder), and "`IP-address``/``mask-length`" is no
        # text a reader sees. `touching` is the code of the span that ends `parts`, if one does.
        touching: str | None = None
        while stack:
            node = stack.pop()
            if isinstance(node, self._special_string):
                continue
            if isinstance(node, self._string):
                text = self.clean(str(node))
                if text:
                    touching = None
                parts.append(text)
            elif isinstance(node, str):  # a separator pushed below, after a block's contents
                touching = None
                parts.append(node)
            elif isinstance(node, self._tag):
                if node.name == "br":
                    touching = None
                    parts.append("\n")
                elif ticks and node.name in _CODE_TAGS:
                    raw = self.clean(node.get_text())
                    if not raw.strip():
                        continue
                    if touching is not None:
                        raw = touching + raw
                        while parts and not parts[-1]:
                            parts.pop()
                        parts.pop()
                    touching = raw
                    parts.append(code_span(" ".join(raw.split())))
                else:
                    # A list or paragraph inside a cell or item ("<td><ul><li>black .</li><li>isort
                    # .</li></ul>") reads apart, its items after a separator, not run together.
                    if node.name == "li":
                        touching = None
                        parts.append("; " if items else " ")
                        items = True
                    elif node.name in _INLINE_BREAKS:
                        parts.append(" ")
                        stack.append(" ")
                    stack.extend(reversed(node.contents))
        return "".join(parts)

    def flush(self) -> None:
        text = "".join(self.parts)
        self.parts.clear()
        if text.strip():
            self.builder.block(self.context.kind("paragraph"), text, label=self.context.label())

    # -- walk ------------------------------------------------------------------------------
    def walk(self, root: Any) -> None:
        """Emit the blocks of everything under `root`."""
        # Entries are nodes to read, or actions to run when reached (reading a list item after
        # the items before it, closing an admonition's context); an action may push more entries.
        stack: list[Any] = list(reversed(root.contents))
        while stack:
            entry = stack.pop()
            if isinstance(entry, _Action):
                entry.run(stack)
                continue
            if isinstance(entry, self._special_string):
                continue
            if isinstance(entry, self._string):
                self.parts.append(self.clean(str(entry)))
                continue
            if not isinstance(entry, self._tag):
                continue
            self._open(entry, stack)
        self.flush()

    def _within(self, stack: list[Any], label: str | None, kind: BlockKind | None, children: list[Any]) -> None:
        """Read `children` with a label and kind for their blocks (an admonition's, a tab's)."""
        def enter(_stack: list[Any]) -> None:
            self.flush()
            self.context.append((label, kind))

        def leave(_stack: list[Any]) -> None:
            self.flush()
            self.context.pop()

        stack.append(_Action(leave))
        stack.extend(reversed(children))
        stack.append(_Action(enter))

    def _open(self, tag: Any, stack: list[Any]) -> None:
        name = tag.name
        if name == "br":
            self.parts.append("\n")
            return
        if name in _CODE_TAGS:
            self.parts.append(self.inline([tag]))
            return
        if name not in _BLOCK_TAGS and "-" not in name:  # a custom element (`starlight-tabs`) is a block
            stack.extend(reversed(tag.contents))
            return
        self.flush()
        classes = set(class_names(tag))
        if name in HEADINGS:
            block = self.builder.heading(HEADINGS[name], self.inline(tag.contents))
            if block is not None and name == "h1" and self.first_h1 is None:
                self.first_h1 = block.section  # an h1 starts a path of its own: its title
        elif name in {"p", "figcaption", "caption", "summary"}:
            self.builder.block(self.context.kind("paragraph"), self.inline(tag.contents), label=self.context.label())
        elif name == "pre":
            self._code(tag, self.context.title())
        elif name in {"ul", "ol"}:
            self._list(tag, stack)
        elif name == "dl":
            self._definitions(tag, stack)
        elif name == "table":
            box = _box_cell(tag)
            if box is None:
                self._table(tag)
            else:  # a frame drawn round ordinary content: read the content
                stack.append(_Action(lambda _stack: self.flush()))
                stack.extend(reversed(box.contents))
        elif name == "blockquote":
            self._within(stack, None, "quote", list(tag.contents))
        elif "segmentedlist" in classes:
            self._segmented_list(tag, stack)
        elif self._footnote(tag, classes, stack) or self._member(tag, classes, stack) \
                or self._admonition(tag, classes, stack) \
                or self._tabs(tag, classes, stack) or self._titled_code(tag, classes, stack):
            pass
        else:
            stack.append(_Action(lambda _stack: self.flush()))
            stack.extend(reversed(tag.contents))

    # -- structures ------------------------------------------------------------------------
    def _leading(self, children: list[Any]) -> tuple[str, list[Any]]:
        """The opening inline text and paragraphs of a list item or definition, and the rest."""
        split = next((index for index, child in enumerate(children)
                      if isinstance(child, self._tag) and child.name in _BLOCK_TAGS and child.name != "p"),
                     len(children))
        # Inline content between paragraphs is read as one run: "a <a>partial index</a>." is one
        # sentence, not "a partial index ." with a space wherever an element ends.
        texts: list[str] = []
        run: list[Any] = []
        for child in children[:split]:
            if isinstance(child, self._tag) and child.name == "p":
                texts += [self.inline(run), self.inline(child.contents)]
                run = []
            else:
                run.append(child)
        texts.append(self.inline(run))
        return " ".join(text for text in texts if text), children[split:]

    def _titled(self, children: list[Any]) -> tuple[str, list[Any]]:
        """A list item opening with a paragraph of bold text only, then more ("<li><p><b>Maximum
        Number Of Columns</b></p><p>The SQLITE_MAX_COLUMN …"), or with bold text right before a
        block ("<li> <strong>Header line</strong> <p>We recommend …"), is a titled entry: the title names
        what follows, as a definition's term does, rather than running into its first sentence.
        Returns the title ("" if none) and the children after it."""
        def blank(node: Any) -> bool:
            return isinstance(node, self._special_string) or (isinstance(node, self._string) and not node.strip())

        def bold(node: Any) -> bool:
            return isinstance(node, self._tag) and node.name in ("b", "strong")

        filled = [index for index, child in enumerate(children) if not blank(child)]
        if len(filled) < 2:
            return "", children
        first, after = children[filled[0]], children[filled[1]]
        if isinstance(first, self._tag) and first.name == "p":
            inner = [child for child in first.contents if not blank(child)]
            first = inner[0] if len(inner) == 1 else None
        # "<li> <strong>Header line</strong> <p>We recommend …": a bold run before a block is its title;
        # before text it is the sentence's start ("<li><b>Note:</b> this …").
        elif not (isinstance(after, self._tag) and after.name in _BLOCK_TAGS):
            return "", children
        if not bold(first):
            return "", children
        title = " ".join(self.inline(first.contents).split())
        return (title, children[filled[0] + 1:]) if title else ("", children)

    def _list(self, tag: Any, stack: list[Any]) -> None:
        items = tag.find_all("li", recursive=False)
        ordered = tag.name == "ol"
        try:
            start = int(tag.get("start", 1))
        except ValueError:
            start = 1
        style = str(tag.get("type", "1"))
        entries: list[Any] = []
        for index, item in enumerate(items):
            marker = ""
            if ordered:
                number = start + index
                marker = (chr(ord(style) + number - 1) if style in {"a", "A"} and 1 <= number <= 26
                          else str(number)) + ". "
            entries.append(self._item_reader(item, marker, tag))
        stack.extend(reversed(entries))

    def _item_reader(self, item: Any, marker: str, group: Any,
                     label: str | None = None) -> _Action:
        def read(stack: list[Any]) -> None:
            title, children = self._titled(list(item.contents))
            text, rest = self._leading(children)
            if title and not text.strip():
                text = title
            elif title:
                text = f"{title} {text}" if title.endswith(":") else f"{title} - {text}"
            named = label or title.rstrip(":") or None  # what the item and the blocks under it are about
            if text.strip():
                self.builder.block("list_item", marker + text, label=named or item_name(text) or self.context.label(),
                                   group=group)
            if rest:  # nested lists, code, notes: blocks of their own after the item's
                self._within(stack, named, None, rest)

        return _Action(read)

    def _definitions(self, tag: Any, stack: list[Any]) -> None:
        classes = set(class_names(tag))
        # A setting, option or environment variable has a name, not a signature: it reads as a
        # definition ("`addopts` - Add the specified OPTS …"), so a quoted description keeps its name.
        description = bool(classes & _DESCRIPTION_CLASSES) and not classes & {"field-list", "simple", "footnote",
                                                                               "glossary", *_NAMED_ENTRIES}
        items = _terms_and_definitions(tag)
        # A term displayed as code (Nim's `<dt><pre>func align(s: string…`) is an entry's signature too.
        description = description or any(item.name == "dt" and item.find("pre", recursive=False) for item in items)
        entries: list[Any] = []
        # Several terms before one definition share it (a manual page's "-k", "--keep-index",
        # "--no-keep-index"): one entry named by all of them, not bare names and one described.
        terms: list[Any] = []
        last: tuple[list[Any], Any] | None = None  # the last definition's terms and its body
        for child in items:
            if child.name == "dt":
                terms.append(child)
            elif "field-list" in classes and _undescribed(child):
                terms = []  # the field and its name go
            else:
                if "field-list" in classes:  # the described parameters stay, the rest go
                    for item in child.find_all("li"):
                        if _undescribed(item):
                            item.decompose()
                entries.append(self._definition_reader(terms, list(child.contents), tag, description))
                terms, last = [], (terms, child)
        if classes & _DESCRIPTION_CLASSES and not terms and last is not None and not last[1].get_text().strip():
            # An entry whose body was not indented under it in the source is built empty, the body
            # following the list as a paragraph of its own (pytest's environment variables): a reader
            # of the page reads that paragraph as the entry's description, and so does the index.
            body = _take_next_paragraph(tag, stack)
            if body is not None:
                entries[-1] = self._definition_reader(last[0], [body], tag, description)
        entries.extend(self._definition_reader([term], [], tag, description) for term in terms)
        stack.extend(reversed(entries))

    def _definition_reader(self, terms: list[Any], children: list[Any], group: Any, description: bool) -> _Action:
        def read(stack: list[Any]) -> None:
            names = (" ".join(self.inline(term.contents, ticks=not description).split()) for term in terms)
            name = ", ".join(n for n in names if n)
            if description:
                # An API entry: the signature as its own paragraph, the description labelled with it.
                self.builder.block("paragraph", name)
                self._within(stack, name or None, None, children)
                return
            text, rest = self._leading(children)
            term = name.rstrip(":").strip()
            label = term or self.context.label()  # a term names its definition
            if "field-list" in class_names(group) and term.lower() in _OWN_FIELDS:
                # "Default: `normal`" in an option's description says the option's default.
                label = self.context.described() or label
            elif "field-list" in class_names(group):
                # "Parameters: stream – The stream …": the one parameter described is what it is about.
                label = item_name(text) or label
            if text.strip():
                joined = f"{name} {text}" if name.endswith(":") else f"{name} - {text}" if name else text
                self.builder.block("list_item", joined, label=label, group=group)
            elif name:
                self.builder.block(self.context.kind("paragraph"), name, label=self.context.label())
            if rest:
                self._within(stack, label, None, rest)

        return _Action(read)

    def _table(self, table: Any) -> None:
        for caption in table.find_all("caption", recursive=False):
            self.builder.block(self.context.kind("paragraph"), self.inline(caption.contents), label=self.context.label())
        read: list[tuple[Any, list[Any], tuple[str, ...]]] = []
        for row in own_rows(table):
            cells_tags = row.find_all(["td", "th"], recursive=False)
            read.append((row, cells_tags, tuple(" ".join(self.inline(cell.contents).split()) for cell in cells_tags)))
        drawn = _drawn_columns([cells for _, _, cells in read])
        header: tuple[str, ...] = ()
        for index, (row, cells_tags, all_cells) in enumerate(read):
            cells = tuple(cell for column, cell in enumerate(all_cells) if column not in drawn)
            if not any(cells):
                continue
            if not header and (row.find_parent("thead") is not None
                               or (index == 0 and all(cell.name == "th" for cell in cells_tags))):
                header = cells  # carried by every row's label and text, not stored alone
                continue
            self.builder.block("table_row", "", cells=cells, label=" | ".join(header) or None, group=table)

    def _member(self, tag: Any, classes: set[str], stack: list[Any]) -> bool:
        """A Doxygen, RDoc, Haddock or pydoctor API entry: its prototype as one signature line (Doxygen lays it
        out in a table's cells: "int json_object_put", "(", "struct json_object *", "obj", ")"), then
        its documentation labelled with it, as a Sphinx entry is read. False for any other element."""
        parts = next((self.members[name] for name in classes if name in self.members), None)
        prototype = tag.find(class_=parts[0]) if parts else None
        if parts is None or prototype is None:
            return False
        signature = " ".join(self.inline(prototype.contents, ticks=False).split())
        signature = _SIGNATURE_ASSIGNS.sub("", _SIGNATURE_SPACES.sub(r"\1", _SIGNATURE_OPEN.sub("(", signature)))
        self.builder.block("paragraph", signature)
        if parts[1] is None:
            documentation = [child for child in tag.contents if child is not prototype]
        else:
            found = tag.find(class_=parts[1])
            documentation = list(found.contents) if found else []
        self._within(stack, signature or None, None, documentation)
        return True

    def _segmented_list(self, tag: Any, stack: list[Any]) -> None:
        """DocBook's segmented list: entries of titled segments ("Option: X", "Default: false",
        "Description: …"), each read as a table row, its titles the header, so that an option's
        default stays with the option instead of standing alone among every other option's."""
        def entry(item: Any) -> _Action:
            def read(_stack: list[Any]) -> None:
                titles: list[str] = []
                values: list[str] = []
                for segment in item.find_all(class_="seg", recursive=False):
                    title = segment.find(class_="segtitle")
                    titles.append(" ".join(title.extract().get_text().split()).rstrip(":") if title else "")
                    values.append(" ".join(self.inline(segment.contents).split()))
                self.builder.block("table_row", "", cells=tuple(values), label=" | ".join(titles) or None, group=tag)
            return _Action(read)

        stack.append(_Action(lambda _stack: self.flush()))
        for child in reversed(tag.contents):
            is_entry = isinstance(child, self._tag) and "seglistitem" in class_names(child)
            stack.append(entry(child) if is_entry else child)

    def _footnote(self, tag: Any, classes: set[str], stack: list[Any]) -> bool:
        """A docutils footnote (`aside.footnote`: its mark in `span.label`, the links back to where
        it is cited in `span.backrefs`, then its text), read as the rst loader reads one: its text
        labelled with its mark ("[1]"), neither the mark nor the links back stored as a paragraph
        ("[1] (1,2)"), where an answer's "[1]" would pass for a citation. False for any other element."""
        if "footnote" not in classes or tag.name not in ("aside", "div"):
            return False
        mark = tag.find("span", class_="label", recursive=False)
        if mark is None:
            return False
        number = "".join(mark.get_text().split()).strip("[]")
        children = [child for child in tag.contents if child is not mark and not (
            isinstance(child, self._tag) and child.name == "span" and {"backrefs", "fn-backref"} & set(class_names(child)))]
        self._within(stack, f"[{number}]" if number else None, None, children)
        return True

    def _admonition(self, tag: Any, classes: set[str], stack: list[Any]) -> bool:
        title_tag = None
        if "admonition" in classes:
            title_tag = tag.find(class_="admonition-title", recursive=False)
        elif classes & _SITE_ADMONITIONS and tag.name != "details":  # Docusaurus', VitePress' notes
            title_tag = tag.find(class_=_SITE_ADMONITION_TITLE, recursive=False)
        elif tag.name == "details":
            title_tag = tag.find("summary", recursive=False)
            if title_tag is None or _heading_summary(title_tag):
                # Not a note: a folded section under its heading (rustdoc folds an item's documentation
                # under its signature, a `.code-header` heading; TypeDoc a group of members under "Methods"),
                # or a page's content under a toggle left out as chrome.
                stack.append(_Action(lambda _stack: self.flush()))
                stack.extend(reversed((title_tag.contents if title_tag else [])
                                      + [child for child in tag.contents if child is not title_tag]))
                return True
        elif classes & _VERSION_CLASSES:
            modified = tag.find(class_="versionmodified")
            title = modified.get_text().strip().rstrip(":").strip() if modified is not None else ""
            self._within(stack, title or None, "note", list(tag.contents))
            return True
        else:
            title_tag = _box_title(tag, classes)  # DocBook's and erl_docgen's notes
            if title_tag is None:
                return False
        title = " ".join(self.inline(title_tag.contents).split()) if title_tag is not None else ""
        if title.lower() in ADMONITION_KINDS:
            title = title.capitalize()  # "TIP", "note": the kind, as a title
        if not title:
            title = next((kind.capitalize() for kind in ADMONITION_KINDS if kind in classes), "Note")
        children = [child for child in tag.contents if child is not title_tag]
        self._within(stack, title, "note", children)
        return True

    def _titled_code(self, tag: Any, classes: set[str], stack: list[Any]) -> bool:
        """A code block under its title (Sphinx's caption, PyMdown's file name): the title labels
        the code, as a code fence's title does, rather than standing as a paragraph over it."""
        title_tag = None
        if "literal-block-wrapper" in classes:  # Sphinx: div.code-block-caption, then the code
            title_tag = tag.find(class_="code-block-caption", recursive=False)
        elif "highlight" in classes:  # PyMdown: span.filename over the pre, or over its table of line numbers
            title_tag = (tag.find("span", class_="filename", recursive=False)
                         or tag.select_one(":scope > table.highlighttable th.filename"))
        if title_tag is None:
            return False
        code = tag.select_one("td.code pre") or tag.find("pre")
        if code is None:
            return False
        title = " ".join(self.inline(title_tag.contents).replace("`", "").split())  # a name, not code in prose
        stack.append(_Action(lambda _stack: self._code(code, title or self.context.title())))
        stack.append(_Action(lambda _stack: self.flush()))
        return True

    def _code(self, pre: Any, label: str | None) -> None:
        self.builder.block("code", self.clean(_preformatted(pre)), label=label, preformatted=True,
                           language=_language(pre))

    def _tabs(self, tag: Any, classes: set[str], stack: list[Any]) -> bool:
        """Tab sets (MkDocs Material, sphinx-design, sphinx-tabs): each panel's blocks carry its
        tab's title."""
        if "tabbed-set" in classes:
            titles = tag.select(":scope > .tabbed-labels > label") or tag.find_all("label", recursive=False)
            panels = tag.select(":scope > .tabbed-content > .tabbed-block") or tag.select(":scope > .tabbed-content")
        elif "sd-tab-set" in classes:
            titles = tag.find_all("label", recursive=False)
            panels = tag.select(":scope > .sd-tab-content")
        elif "sphinx-tabs" in classes:
            titles = tag.select(".sphinx-tabs-tab")
            panels = tag.select(":scope > .sphinx-tabs-panel")
        elif _holds_tablist(tag):  # ARIA tabs: Docusaurus', Starlight's, Bootstrap's
            titles = tag.select(":scope > [role=tablist] [role=tab], :scope > * > [role=tablist] [role=tab]")
            panels = tag.select(":scope > [role=tabpanel], :scope > * > [role=tabpanel]")
        else:
            return False
        if not panels or len(titles) != len(panels):
            return False
        for title_tag, panel in reversed(list(zip(titles, panels, strict=True))):
            title = " ".join(self.inline(title_tag.contents).split())
            self._within(stack, title or None, "tab", list(panel.contents))
        return True


class HtmlLoader:
    """HTML pages: main content only, as headings, paragraphs, lists, code, tables and notes."""

    suffixes: tuple[str, ...] = (".html", ".htm", ".xhtml")

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        """Parse with lxml, drop chrome and hidden text, and lay the content out as blocks."""
        from bs4 import BeautifulSoup, XMLParsedAsHTMLWarning

        markup = decode_text(data, path)
        try:
            with warnings.catch_warnings():
                # XHTML (git's manual pages start with `<?xml …?>`) is read as HTML on purpose: the
                # HTML parser takes its markup as well, and forgives what an XML parser refuses.
                warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
                soup = BeautifulSoup(markup, "lxml")
        except Exception as exc:  # lxml recovers from almost anything; this is a last resort
            raise IngestError(f"{path.name}: could not be parsed as HTML ({exc})",
                              hint="check the file") from exc
        builder = DocumentBuilder()
        head_title = soup.title.get_text(" ", strip=True) if soup.title else _template_title(soup)
        metadata = self._metadata(soup)
        redirect = _redirect_target(soup)
        framed = [str(frame["src"]) for frame in soup.find_all("frame", src=True)]
        scripted = soup.find("script") is not None
        generators = page_generators(soup)
        # Whether the page shows any text at all, asked before its furniture is dropped: a site's
        # landing or section page that is only menus and links then says so, not "no text".
        shows_text = soup.body is not None and any(text.strip() for text in soup.body.strings)
        haddock = soup.select_one(HADDOCK_PAGE) is not None
        readers = [read for generator, read in GENERATOR_READERS if any(generator.match(name) for name in generators)]
        readers += [read for mark, read in MARKED_READERS if soup.select_one(mark) is not None]
        root = _prepare(soup, builder)
        if haddock:
            read_haddock(soup, root)
        _drop_chrome(root)
        for read in readers:
            read(soup, root)
        _unquote_code(root)

        walker = _Walker(builder, _HADDOCK_MEMBER_PARTS if haddock else _MEMBER_PARTS)
        walker.walk(root)
        title_clean, title_removed = sanitize(head_title)
        title = _page_title(" ".join(title_clean.split()), walker.first_h1) or path.stem
        document = builder.build(title=title, metadata=metadata, sanitized_chars=walker.removed + title_removed)
        # A frameset page (old Javadoc's and C# doc's index.html) shows other pages and has no text.
        refuse_only_includes(path.name, document, framed, how=("frames", "framed"))
        if scripted and not document.blocks:
            # Docsify's and other single-page apps' pages: an empty element their scripts fill in
            # the browser from the site's Markdown.
            raise NoTextOfItsOwn(f"{path.name}: holds no text: its scripts render the page in the browser",
                                 hint="ingest the site's Markdown sources instead")
        if redirect and len(document.text.split()) <= _REDIRECT_WORDS:
            raise NoTextOfItsOwn(f"{path.name}: only redirects to another page ({redirect})",
                                 hint="ingest the page it redirects to")
        if shows_text and not document.blocks:
            raise NoTextOfItsOwn(f"{path.name}: shows only page furniture (navigation, header, footer), "
                                 "no text of its own", hint="nothing to fix: ingest the pages it links to")
        return document

    @staticmethod
    def _metadata(soup: Any) -> dict[str, Any]:
        metadata: dict[str, Any] = {}
        for key in ("description", "author", "keywords"):
            tag = soup.find("meta", attrs={"name": key})
            if tag is not None and tag.get("content"):
                metadata[key] = sanitize(str(tag["content"]))[0][:500]
        html = soup.find("html")
        if html is not None and html.get("lang"):
            metadata["lang"] = str(html["lang"])[:20]
        return metadata


register_loader(HtmlLoader())
