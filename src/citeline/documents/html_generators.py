"""Readers of what one documentation generator alone writes in HTML: a groff manual page's tagged
paragraphs, a gtk-doc entry's fields, Haddock's entries and instances, pydoctor's entries, summaries
and field tables, TypeDoc's members and erl_docgen's functions. Each rewrites the parsed page in
place, before it is walked, into the plain structures the HTML loader reads (definition lists,
entries, field lists); the loader chooses them by the page's `<meta name="generator">`, and those of
generators that write none (Haddock, TypeDoc, erl_docgen) by a mark of theirs on the page. Their
class names are plain words other pages use, which is why they are read so on such pages only."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from citeline.documents.html_elements import HEADINGS, class_names, own_rows

_GROFF = re.compile(r"^\s*groff\b", re.IGNORECASE)
_PYDOCTOR = re.compile(r"^\s*pydoctor\b", re.IGNORECASE)
# A pydoctor page's summary of its members, one line each, and of those it inherits (see `_read_pydoctor_summary`).
_PYDOCTOR_SUMMARY = "splitTables"
# The tables of an entry's fields (parameters, return type, exceptions, ...) and of a constant's value.
_PYDOCTOR_FIELD_TABLES = ("fieldTable", "valueTable")
# Links to the class tree, a page pydoctor derives from the class pages ("View In Hierarchy").
_PYDOCTOR_HIERARCHY = re.compile(r"^classIndex\.html(?:#|$)")
_MARGIN = re.compile(r"margin-left:\s*(\d+(?:\.\d+)?)%")
_TERM_WORDS = 12  # an option and its argument, not a paragraph followed by an indented one
_GTKDOC = re.compile(r"^\s*GTK-Doc\b", re.IGNORECASE)
# gtk-doc's summary sections (the table of every function, type, property or signal, the details
# of which follow in sections named "….functions_details" and so on), and an entry's fields.
_GTKDOC_SUMMARY = re.compile(r"\.(?:functions|other|properties|signals|child-properties|style-properties)$")
_GTKDOC_FIELD = re.compile(r"\.(?:parameters|returns|members)$")
_GTKDOC_NAME_CELLS = frozenset(("parameter_name", "struct_member_name", "enum_member_name", "union_member_name"))
# A Haddock page: its package header holds the page's menu (Source, Contents, Index).
HADDOCK_PAGE = "div#package-header ul#page-menu"
# What of a Haddock page is not its document: the package's name and menu, the module's metadata table
# (copyright, licence, maintainer, stability: much the same on every module) with its name again, its
# table of contents, the "Description" caption over its description, the synopsis (every signature
# again, bare), the "Source" link after every signature, the labels its toggles show only where scripts
# do not run ("Expand", "Instances details"), the "Produced by Haddock" footer, and the body of every
# instance (`i:id:`, `i:ic:`, `i:if:`), folded on the page: where the instance is defined and its
# methods' signatures, which are the class's again. The instance's head stays: "Functor Maybe".
_HADDOCK_CHROME = ", ".join((
    "div#package-header", "div#module-header", "div#table-of-contents", "div#description > p.caption",
    "div#synopsis", ".src a.link", "summary.hide-when-js-enabled", "div#footer",
    '[id^="i:id:"]', '[id^="i:ic:"]', '[id^="i:if:"]',
))

# Sphinx's class of a described object (`.. describe::`): a definition list of that class is read as
# API entries, each term a signature and its definition the description, labelled with it.
_API_ENTRY = "describe"
# A TypeDoc page (TypeDoc writes no generator tag): the title over its content.
_TYPEDOC_PAGE = "div.tsd-page-title"
# TypeDoc's index of a page's members, and the hierarchy's heading ("Hierarchy (View Summary)").
_TYPEDOC_INDEX = ".tsd-index-group, .tsd-index-panel, details.tsd-index-content"
_TYPEDOC_HIERARCHY = ".tsd-hierarchy > h4"
_EMPTY_BRACKETS = re.compile(r"\s*\(\s*\)")
# The items of the lists of an entry's parameters, type parameters and an object type's members.
_TYPEDOC_PARAMETERS = "ul.tsd-parameter-list > li, ul.tsd-type-parameter-list > li, ul.tsd-parameters > li"
# What starts the next part of a page after a declaration's signature.
_TYPEDOC_SECTIONS = frozenset(("section", "details", *HEADINGS))
# The block of an entry's comment tags ("Example", "Deprecated"), after its return value.
_TYPEDOC_TAGS = frozenset(("tsd-comment",))
# An Erlang/OTP page made by erl_docgen (OTP 25 and before): its XSLT's namespace is left on the page.
_ERL_DOCGEN_PAGE = 'html[xmlns\\:erl="http://erlang.org"]'
_ERL_TYPES_TITLE = "h3.func-types-title"
_ERL_SINCE = ".title-since"


def _read_man_page(soup: Any, root: Any) -> None:
    """A manual page as groff writes it in HTML: its list of links to its own sections (`<a
    href="#NAME">NAME</a><br>` ...) is not read, and a tagged paragraph (an option, then its
    description in paragraphs indented further: `<p style="margin-left:11%">` then `22%`) is made a
    definition, so the description reads with its option rather than apart from it."""
    for link in root.find_all("a", href=True, recursive=False):
        if str(link["href"]).startswith("#"):
            following = link.next_sibling
            if following is not None and getattr(following, "name", None) == "br":
                following.decompose()
            link.decompose()
    for term in root.find_all("p"):
        margin = _margin(term)
        described = [] if margin is None else list(_indented_after(term, margin))
        if not described or len(term.get_text().split()) > _TERM_WORDS:
            continue
        entry, description = soup.new_tag("dl"), soup.new_tag("dd")
        term.insert_before(entry)
        term.name = "dt"
        entry.append(term.extract())
        entry.append(description)
        for paragraph in described:
            description.append(paragraph.extract())


def _read_gtkdoc(soup: Any, root: Any) -> None:
    """A gtk-doc reference page (GLib's, GTK's, ...) as a person reads it: no navigation bar, no
    summary tables repeating the entries below, the page's title out of its layout table, code
    listings without their column of line numbers, and an entry's parameters, members and return
    value read inside the entry (as "name - description" and "Returns: …") rather than as headings
    of their own, which cut the entry into passages that never name it and left its "Since:" line
    under the last of them."""
    for tag in root.find_all(["table", "td", "div"], class_=("navigation", "listing_lines", "refsect1", "refnamediv")):
        classes = set(class_names(tag))
        if classes & {"navigation", "listing_lines"}:
            tag.decompose()
        elif "refnamediv" in classes and (layout := tag.find("table")) is not None:
            layout.replace_with(*(layout.find("td") or layout).contents)
        elif "refsect1" in classes and _anchor_named(tag, _GTKDOC_SUMMARY):
            tag.decompose()
    for field in root.find_all("div", class_="refsect3"):
        heading = field.find("h4", recursive=False)
        if heading is None or not (anchor := _anchor_named(field, _GTKDOC_FIELD)):
            continue
        heading.decompose()
        if anchor.endswith(".returns") and (value := field.find("p", recursive=False)) is not None:
            value.insert(0, "Returns: ")
        for table in field.find_all("table"):
            _fields_as_definitions(soup, table)


def _anchor_named(section: Any, pattern: re.Pattern[str]) -> str | None:
    """The name of the anchor a gtk-doc section opens with, when it matches `pattern`."""
    anchor = section.find("a", attrs={"name": True}, recursive=False)
    name = str(anchor["name"]) if anchor is not None else ""
    return name if pattern.search(name) else None


def _fields_as_definitions(soup: Any, table: Any) -> None:
    """A table of parameters or members (name | description | annotations) made a definition list,
    so each description reads with its name ("key - a key to insert") and its annotations."""
    entries = soup.new_tag("dl")
    for row in table.find_all("tr"):
        cells = row.find_all("td", recursive=False)
        if not cells or not set(class_names(cells[0])) & _GTKDOC_NAME_CELLS:
            continue
        term, description = soup.new_tag("dt"), soup.new_tag("dd")
        term.extend(list(cells[0].contents))
        for cell in cells[1:]:
            description.extend([" ", *list(cell.contents)])
        entries.extend([term, description])
    if entries.contents:
        table.replace_with(entries)


def read_haddock(soup: Any, root: Any) -> None:
    """A Haddock page as a person reads it: its chrome and instance bodies dropped (`_HADDOCK_CHROME`);
    the headings inside an entry ("Examples" over its folded examples, "Instances" over its instance
    list) and Haddock's other folding subheadings made paragraphs, so that they do not start a section
    that runs on over the entries after them; and each method or associated type a class declares (a
    `p.src` defining a name, then its `div.doc`, one after another in the class's `div.subs`) made an
    entry of its own, so that its documentation reads under its signature, not the class's."""
    for tag in root.select(_HADDOCK_CHROME):
        tag.extract()  # not decomposed: an element inside one already dropped is only detached from it
    for heading in root.find_all(list(HEADINGS)):
        if "subheading" in class_names(heading) or heading.find_parent("div", class_="top") is not None:
            heading.name = "p"
    for signature in root.select("p.src"):
        if "top" in class_names(signature.parent) or signature.find("a", class_="def") is None:
            continue  # an entry's own signature, or a class's minimal complete definition
        documentation = signature.find_next_sibling()
        entry = soup.new_tag("div", attrs={"class": "top"})
        signature.replace_with(entry)
        entry.append(signature)
        if documentation is not None and documentation.name == "div" and "doc" in class_names(documentation):
            entry.append(documentation.extract())


def _heading_as_field(soup: Any, heading: Any, ends: frozenset[str] = frozenset()) -> None:
    """A heading labelling a part of an API entry ("Types", "Parameters", "Returns `this`", "Example")
    made a field of the entry, as Sphinx writes one: its leading words the field's name ("Returns:"),
    the rest of it and the elements after it up to the next heading (or an element of a class in
    `ends`) the field's value. A heading would open a section that runs on over the entries after it."""
    field = soup.new_tag("dl", attrs={"class": "field-list"})
    term, value = soup.new_tag("dt"), soup.new_tag("dd")
    contents = list(heading.contents)
    words = str(contents.pop(0)).strip() if contents and isinstance(contents[0], str) else ""
    if not words:  # no leading words to name it by: the whole heading is the name
        words, contents = heading.get_text(" ", strip=True), []
    term.append(words if words.endswith(":") else f"{words}:")
    following: list[Any] = []
    node = heading.next_sibling
    while node is not None and not _ends_field(node, ends):
        following.append(node)
        node = node.next_sibling
    value.extend(contents)
    if _words(contents) and _words(following):
        value.append(" - ")  # "Returns: this - `this` command for chaining"
    value.extend(following)
    field.extend((term, value))
    heading.replace_with(field)


def _words(nodes: list[Any]) -> bool:
    """Whether any of the elements or strings holds text."""
    return any((node.get_text() if hasattr(node, "get_text") else str(node)).strip() for node in nodes)


def _ends_field(node: Any, ends: frozenset[str]) -> bool:
    """Whether `node` ends the value of a field made of a heading: the next heading, or an element of a
    class in `ends`."""
    name = getattr(node, "name", None)
    return name is not None and (name in HEADINGS or bool(ends & set(class_names(node))))


def _read_typedoc(soup: Any, root: Any) -> None:
    """A TypeDoc page as a person reads it: its index of the page's members (links under "Constructors",
    "Properties", "Methods") and the "View Summary" link to the class tree are not read; a member's flags
    ("Optional", "Readonly") are words before its name, not code run into it; a code example keeps the
    language TypeDoc names it by; and each member reads as an API entry: each signature, then its
    description labelled with it, its parameters, return value and tags ("Example", "Deprecated") as
    fields of it rather than headings of their own, each parameter with its description."""
    for index in root.select(_TYPEDOC_INDEX):
        index.extract()  # not decomposed: an element inside one already dropped is only detached from it
    for heading in root.select(_TYPEDOC_HIERARCHY):
        for link in heading.find_all("a"):
            link.decompose()
        heading.string = _EMPTY_BRACKETS.sub("", heading.get_text())  # "Hierarchy (View Summary)"
    for flag in root.select("code.tsd-tag"):  # before the name ("Optional argChoices"), or after it
        flag.name = "span"
        flag.insert_before(" ")
        flag.insert_after(" ")
    for code in root.select("pre > code[class]"):
        languages = class_names(code)
        if len(languages) == 1:  # TypeDoc classes a fenced example by its language alone ("js")
            code["class"] = f"language-{languages[0]}"
    descriptions = [*_typedoc_signature_lists(soup, root), *_typedoc_declarations(soup, root)]
    for item in root.select(_TYPEDOC_PARAMETERS):
        _typedoc_parameter(item)
    inside = {id(description) for description in descriptions}
    for heading in root.find_all(list(HEADINGS)):
        if any(id(parent) in inside for parent in heading.parents):
            _heading_as_field(soup, heading, ends=_TYPEDOC_TAGS)


def _typedoc_signature_lists(soup: Any, root: Any) -> list[Any]:
    """A member's list of signatures (one, or its overloads) made an API entry of each: its signature,
    then its description (TypeDoc lays them out as `li > div.tsd-signature` and the rest of the item,
    or as an item `li.tsd-signature` then `li.tsd-description`, or before 0.23 as a second list,
    `ul.tsd-descriptions`). Returns the descriptions."""
    descriptions: list[Any] = []
    for signatures in root.find_all("ul", class_="tsd-signatures"):
        entries = soup.new_tag("dl", attrs={"class": _API_ENTRY})
        second = signatures.find_next_sibling()
        if second is not None and "tsd-descriptions" not in class_names(second):
            second = None
        apart = second.find_all("li", class_="tsd-description", recursive=False) if second is not None else []
        for item in signatures.find_all("li", recursive=False):
            classes = class_names(item)
            if "tsd-description" in classes:
                descriptions.append(_entry_part(soup, entries, "dd", item.contents))
            elif "tsd-signature" in classes:
                _entry_part(soup, entries, "dt", item.contents)
                if apart:
                    descriptions.append(_entry_part(soup, entries, "dd", apart.pop(0).contents))
            elif (signature := item.find(class_="tsd-signature", recursive=False)) is not None:
                _entry_part(soup, entries, "dt", signature.extract().contents)
                descriptions.append(_entry_part(soup, entries, "dd", item.contents))
        if second is not None:
            second.decompose()
        signatures.replace_with(entries)
    return descriptions


def _typedoc_declarations(soup: Any, root: Any) -> list[Any]:
    """A declaration's signature standing alone (a property's, a type alias', an interface's) made an
    API entry: its signature, then the elements after it up to the next section of the page (an
    interface's hierarchy, its members) as its description. Returns the descriptions."""
    descriptions: list[Any] = []
    for signature in root.find_all(class_="tsd-signature"):
        entry = soup.new_tag("dl", attrs={"class": _API_ENTRY})
        following: list[Any] = []
        for node in signature.next_siblings:
            if getattr(node, "name", None) in _TYPEDOC_SECTIONS:
                break
            following.append(node)
        signature.replace_with(entry)
        _entry_part(soup, entry, "dt", signature.contents)
        descriptions.append(_entry_part(soup, entry, "dd", following))
    return descriptions


def _entry_part(soup: Any, entry: Any, name: str, contents: list[Any]) -> Any:
    """A new term or definition of `entry` holding `contents` (moved there); returns it."""
    part = soup.new_tag(name)
    part.extend(list(contents))
    entry.append(part)
    return part


def _typedoc_parameter(item: Any) -> None:
    """A parameter, type parameter or member of an object type (a line naming it, a `span` or, for a
    member, an `h5`; then its comment) read as one item: "exitCode: number - suggested exit code …",
    not its name and type with the description apart."""
    first = item.find(True, recursive=False)
    if first is not None and first.name in HEADINGS:
        first.name = "span"
    comments = [comment for comment in item.find_all("div", class_="tsd-comment", recursive=False)
                if comment.get_text().strip()]
    if comments:
        comments[0].insert_before(" - ")
    for comment in comments:
        comment.unwrap()  # its paragraphs join the item's text


def _read_erl_docgen(soup: Any, root: Any) -> None:
    """An Erlang/OTP page as erl_docgen writes it: a function's "Types" title, an `h3` under the
    function's `h4` signature, made a field of the entry ("Types:", then the types labelled with it),
    so that the types and the description after them stay in the function's section instead of a
    "Types" section every function after it nests in; and the release a function came in ("OTP 17.0",
    floated right in its heading) read after the signature rather than run into it."""
    for title in root.select(_ERL_TYPES_TITLE):
        _heading_as_field(soup, title)
    for since in root.select(_ERL_SINCE):
        heading = since.find_parent(list(HEADINGS))
        if heading is not None:
            heading.insert_after(since.extract())


def _margin(tag: Any) -> float | None:
    match = _MARGIN.search(str(tag.get("style", "")))
    return float(match.group(1)) if match else None


def _indented_after(term: Any, margin: float) -> Iterator[Any]:
    """The paragraphs right after `term` that are indented further than it."""
    node = term.find_next_sibling()
    while node is not None and node.name == "p" and (_margin(node) or 0.0) > margin:
        yield node
        node = node.find_next_sibling()


def _read_pydoctor_page(soup: Any, root: Any) -> None:
    """An API page as pydoctor writes it: its link to the class tree, its "Undocumented" placeholders
    (where a docstring or a parameter's description would be) and its summary lines of the members
    documented on the page itself are not read, and each table of an entry's fields is made a field
    list, so that a parameter, a return type or a value reads with the field it is listed under."""
    summary = root.find(id=_PYDOCTOR_SUMMARY)
    if summary is not None:
        _read_pydoctor_summary(summary)
    for extras in root.find_all("div", class_="extrasDocstring"):
        for paragraph in extras.find_all("p", recursive=False):
            link = paragraph.find("a", href=_PYDOCTOR_HIERARCHY)
            if link is not None and paragraph.get_text().strip() == link.get_text().strip():
                paragraph.decompose()  # "View In Hierarchy"
    for placeholder in root.find_all(class_="undocumented"):
        placeholder.decompose()
    for table in root.find_all("table", class_=_PYDOCTOR_FIELD_TABLES):
        _field_table_as_field_list(soup, table)


def _read_pydoctor_summary(summary: Any) -> None:
    """pydoctor's summary of a page's members, a row of kind, name and first line each: the members
    documented further down the page, and those inherited (listed after "Inherited from …:", each
    documented on its own page), are not read again; a module's classes and a package's modules,
    documented on pages of their own, read as their name and first line ("`LoopingCall` - Call a
    function repeatedly."), as rustdoc's module item tables do, so that the page says what it holds."""
    for inherited in summary.find_all("p", class_="inheritedFrom", recursive=False):
        listing = inherited.find_next_sibling("table")
        if listing is not None:
            listing.decompose()
        inherited.decompose()
    for table in summary.find_all("table", recursive=False):
        for row in table.find_all("tr"):
            cells = row.find_all("td", recursive=False)
            link = cells[1].find("a", href=True) if len(cells) == 3 else None
            if link is None or str(link["href"]).startswith("#"):
                row.decompose()  # documented below (or no summary line of a member)
                continue
            cells[0].decompose()  # its kind: "Class", "Module", ...
            cells[1].name, cells[2].name = "dt", "dd"
            row.unwrap()
        table.name = "dl"


def _field_table_as_field_list(soup: Any, table: Any) -> None:
    """pydoctor's table of an entry's fields (a row naming the field: "Parameters", "Returns",
    "Raises", "Value", then a row for each parameter, type or value) made the field list Sphinx
    writes for the same fields: "Returns: `Deferred[_T]`", "Parameters:" then "coro: `Union[…]` - The
    coroutine object to schedule.", rather than rows apart from the name of their field."""
    rows = own_rows(table)
    if not rows or "fieldStart" not in class_names(rows[0]):
        return  # not laid out as pydoctor lays out fields: read as the table it is
    fields: list[tuple[Any, list[Any]]] = []  # each field's name row and its value rows
    for row in rows:
        if "fieldStart" in class_names(row):
            fields.append((row, []))
        else:
            fields[-1][1].append(row)
    field_list = soup.new_tag("dl", attrs={"class": "field-list"})
    for start, values in fields:
        term, description = soup.new_tag("dt"), soup.new_tag("dd")
        for cell in start.find_all(["td", "th"], recursive=False):
            term.extend(list(cell.contents))
        term.append(":")
        if len(values) == 1:
            description.extend(_field_value(values[0]))
        elif values:
            items = soup.new_tag("ul")
            for value in values:
                item = soup.new_tag("li")
                item.extend(_field_value(value))
                items.append(item)
            description.append(items)
        field_list.extend((term, description))
    table.replace_with(field_list)


def _field_value(row: Any) -> list[Any]:
    """The contents of one value row of a pydoctor field table: a parameter's name and type, then
    its description after a dash ("coro: `Union[…]` - The coroutine object to schedule.")."""
    nodes: list[Any] = []
    for cell in row.find_all(["td", "th"], recursive=False):
        if not cell.get_text().strip():
            continue  # an undocumented parameter's description
        for name in cell.find_all(class_="fieldArg"):
            name.append(" ")  # "coro:" stands right against its type
        nodes += [" - ", *cell.contents] if nodes else list(cell.contents)
    return nodes


# Readers of what one generator alone writes, chosen by the page's `<meta name="generator">`.
GENERATOR_READERS: tuple[tuple[re.Pattern[str], Callable[[Any, Any], None]], ...] = (
    (_GROFF, _read_man_page), (_GTKDOC, _read_gtkdoc), (_PYDOCTOR, _read_pydoctor_page),
)
# ... and of generators that write no such tag, chosen by a mark of theirs on the page (a CSS selector).
MARKED_READERS: tuple[tuple[str, Callable[[Any, Any], None]], ...] = (
    (_TYPEDOC_PAGE, _read_typedoc), (_ERL_DOCGEN_PAGE, _read_erl_docgen),
)
