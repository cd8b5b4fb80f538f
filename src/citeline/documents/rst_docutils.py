"""docutils set up to read Sphinx-flavoured reStructuredText the way its built page reads.

docutils knows only its own roles and directives; documentation written for Sphinx uses dozens
more (`:func:`, `:ref:`, `.. versionchanged::`, `.. py:function::`, `.. code-block::` with
Sphinx options, extension directives). Left alone, each becomes an error message plus the raw
markup. Here every role resolves to its text, and every directive to the nodes a reader would
see (or to nothing, when its content lives in another file). docutils is run without reading
configuration files, inserting files, passing raw output through, or writing anything to the
console.
"""

from __future__ import annotations

import io
import re
import textwrap
import threading
import warnings
from typing import Any, ClassVar

from docutils import nodes, utils
from docutils.core import publish_doctree
from docutils.parsers.rst import Directive, Parser, directives, roles
from docutils.parsers.rst.directives.misc import Class
from docutils.parsers.rst.languages import en
from docutils.parsers.rst.states import Inliner
from docutils.transforms import Transform

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

# Object descriptions (Sphinx domains): the signature is shown, then the description.
_DESCRIPTIONS = frozenset((
    "function", "class", "method", "classmethod", "staticmethod", "attribute", "property", "data",
    "exception", "decorator", "decoratormethod", "type", "member", "var", "macro", "struct", "union",
    "enum", "enumerator", "concept", "directive", "role", "option", "cmdoption", "envvar", "confval",
    "describe", "object", "setting", "templatetag", "templatefilter", "django-admin", "fixture",
))
# A directive name as docutils' own explicit-markup pattern reads it.
_DIRECTIVE_NAME = re.compile(
    r"^[ \t]*\.\.[ \t]+((?:(?!_)\w)+(?:[-._+:](?:(?!_)\w)+)*)[ \t]?::(?=[ \t]|$)", re.MULTILINE)
# A role as docutils' inline pattern reads it (`:func:`, `:py:meth:`), the backtick after it.
_ROLE_NAME = re.compile(r"(?<![\w`]):((?:(?!_)\w)+(?:[-._+:](?:(?!_)\w)+)*):`")
# The autodoc directives that document one object: content written under one is shown by Sphinx
# after the object's docstring (`.. attribute::` entries of its members, notes), so it is read.
_AUTODOC_OBJECTS = frozenset(f"auto{objtype}" for objtype in (
    "module", "class", "exception", "data", "newtypedata", "function", "decorator", "method",
    "attribute", "property", "newvarattribute"))
# Names registered for one file at most: a file inventing thousands of directive names gets the
# rest reported by docutils (and dropped) instead of growing the registry without bound.
_MAX_NEW_NAMES = 500

_SETTINGS: dict[str, Any] = {
    "_disable_config": True,  # never read docutils.conf from the working directory or home
    "report_level": 5,
    "halt_level": 5,
    "file_insertion_enabled": False,
    "raw_enabled": False,
    "doctitle_xform": False,  # the first title stays a section heading
    "sectsubtitle_xform": False,
    "syntax_highlight": "none",
    "input_encoding": "unicode",
    "line_length_limit": 1_000_000,
    "traceback": True,  # a docutils bug raises instead of exiting the process
}

_lock = threading.Lock()


class _AnyOptions(dict[str, Any]):
    """An option spec that accepts every option: Sphinx adds options docutils does not know
    (`:linenos:`, `:caption:`, `:emphasize-lines:`), and an unknown option would otherwise make
    docutils throw the whole directive away."""

    def __missing__(self, key: str) -> Any:
        return directives.unchanged


def _any_options() -> _AnyOptions:
    spec = _AnyOptions()
    spec["class"] = directives.unchanged  # non-empty: docutils only parses options if the spec is truthy
    return spec


class _Base(Directive):  # type: ignore[misc]
    """Common shape: any argument text, any options, optional content."""

    required_arguments = 0
    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec: ClassVar[dict[str, Any]] = _any_options()

    def argument(self) -> str:
        return self.arguments[0].strip() if self.arguments else ""

    def parsed_content(self, into: nodes.Element) -> nodes.Element:
        if self.content:
            self.state.nested_parse(self.content, self.content_offset, into)
        return into

    def example_block(self, code: str | None = None) -> nodes.literal_block | None:
        """The content (or `code`) as a code block when it is code (`example_language`): an
        extension's example directive (`.. click:example::`) holds code that, read as rst, would
        become paragraphs of torn code."""
        code = "\n".join(self.content) if code is None else code
        language = example_language(code)
        if language is None:
            return None
        block = nodes.literal_block(code, code)
        block["language"] = language
        block.line = self.content_offset + 1
        return block

    def inline_paragraph(self, text: str) -> nodes.paragraph:
        inline, _messages = self.state.inline_text(text, self.lineno)
        # The directive's own source lines: the text given as its argument may run over several.
        paragraph = nodes.paragraph(self.block_text, "", *inline)
        paragraph.line = self.lineno
        return paragraph


class _Dropped(_Base):
    """Content that lives elsewhere (autodoc, includes, toctrees) or is not prose."""

    def run(self) -> list[nodes.Node]:
        return []


class _Version(_Base):
    """`versionchanged:: 2.0 Explanation`: a note whose first paragraph reads "Changed in version
    2.0: Explanation", as Sphinx renders it."""

    def run(self) -> list[nodes.Node]:
        # Text on the lines right after the directive line belongs to its argument: the
        # version, then the explanation.
        version, _, explanation = " ".join(self.argument().split()).partition(" ")
        title = f"{VERSION_TITLES[self.name.lower()]} {version}".strip()
        note = nodes.admonition("", nodes.title(title, title), classes=["citeline-version"])
        note.line = self.lineno
        if explanation.strip():
            note += self.inline_paragraph(explanation.strip())
        self.parsed_content(note)
        first = note.children[1] if len(note.children) > 1 else None
        if isinstance(first, nodes.paragraph):
            first.insert(0, nodes.Text(f"{title}: "))
        else:
            paragraph = nodes.paragraph("", f"{title}.")
            paragraph.line = self.lineno
            note.insert(1, paragraph)
        return [note]


class _TitledAdmonition(_Base):
    """Sphinx admonitions docutils lacks (`seealso`, `todo`); the argument, if any, is content."""

    def run(self) -> list[nodes.Node]:
        title = ADMONITION_TITLES[self.name.lower()]
        note = nodes.admonition("", nodes.title(title, title))
        note.line = self.lineno
        if self.argument():
            note += self.inline_paragraph(self.argument())
        return [self.parsed_content(note)]


class _Code(_Base):
    """A code block with Sphinx's options; the argument is the language."""

    def run(self) -> list[nodes.Node]:
        code = "\n".join(self.content)
        language = self.argument().split()[0] if self.argument() else ""
        if self.name.lower() in DOCTEST_LANGUAGES:
            if "hide" in self.options:  # run by sphinx.ext.doctest, not shown on the page
                return []
            language = DOCTEST_LANGUAGES[self.name.lower()]
        block = nodes.literal_block(code, code)
        block["language"] = language
        if caption := " ".join(str(self.options.get("caption") or "").split()):
            # the file name or title a built page shows over the code, its inline markup read
            inline, _messages = self.state.inline_text(caption, self.lineno)
            block["caption"] = "".join(node.astext() for node in inline)
        block.line = self.content_offset + 1 if self.content else self.lineno
        return [block] if code.strip() else []


def _container(kind: str, label: str, line: int | None) -> nodes.container:
    box = nodes.container()
    box["citeline"] = kind
    box["label"] = label
    box.line = line
    return box


# An object description's options a built page shows beside it (the rest, `:noindex:`, `:module:`,
# only steer the build).
_SHOWN_OPTIONS = ("type", "value", "default", "options")


class _Description(_Base):
    """An object description (`py:function:: get(url)`): its signatures, then its body, which is
    labelled with the first signature."""

    # Whether an extension's directive of this kind may hold an example right under its name.
    examples: ClassVar[bool] = True

    def run(self) -> list[nodes.Node]:
        signatures = [line.strip() for line in self.argument().split("\n") if line.strip()]
        if not signatures and self.examples and (code := self.example_block()):
            return [code]
        if signatures and self.examples and self.name.lower().rsplit(":", 1)[-1] not in _DESCRIPTIONS and (code := self.example_block(
                textwrap.dedent("\n".join(self.block_text.split("\n")[1:])).strip("\n"))):
            # An extension's example written right under its name (`.. click:example::` with no
            # blank line): docutils takes its first lines for signatures, Sphinx's extension for code.
            return [code]
        box = _container("describe", signatures[0] if signatures else "", self.lineno)
        for signature in signatures:
            paragraph = nodes.paragraph(signature, signature, classes=["citeline-signature"])
            paragraph.line = self.lineno
            box += paragraph
        if fields := self.shown_options():
            box += fields
        return [self.parsed_content(box)]

    def shown_options(self) -> nodes.field_list | None:
        """The options Sphinx shows with the entry (`:type: str`, `:default: 'alabaster'` of a
        `confval`), as the field list a page writes in the body: the default a reader asks for is
        often only there."""
        fields = nodes.field_list()
        for name in _SHOWN_OPTIONS:
            value = self.options.get(name)
            if isinstance(value, str) and value.strip():
                inline, _messages = self.state.inline_text(" ".join(value.split()), self.lineno)
                fields += nodes.field("", nodes.field_name(name, name), nodes.field_body("", nodes.paragraph("", "", *inline)))
        if not fields.children:
            return None
        fields.line = self.lineno
        return fields


class _Autodoc(_Description):
    """An autodoc directive (`.. autoclass:: FileStorage`): the docstring lives in the code, but the
    content written under it is on the page, after the docstring; it is read as a description of
    the object. Without content of its own (only options, or only more autodoc), nothing."""

    examples = False

    def run(self) -> list[nodes.Node]:
        described = super().run()
        box = described[0] if described else None
        if not isinstance(box, nodes.container) or not any(
                "citeline-signature" not in child.get("classes", []) for child in box.children
                if isinstance(child, nodes.Element)):
            return []
        return described


class _SphinxClass(_Description):
    """`.. class:: OrderedMultiDict`: in a Sphinx document a Python class described by hand (Sphinx
    renames docutils' directive to `rst-class`), whose name a built page shows above its
    description; in plain reStructuredText, docutils' directive that sets the classes of what
    follows."""

    def run(self) -> list[nodes.Node]:
        if getattr(self.state.document.settings, "citeline_sphinx", False):
            return super().run()
        if not self.arguments:
            return []
        classed = Class(self.name, self.arguments, self.options, self.content, self.lineno, self.content_offset,
                        self.block_text, self.state, self.state_machine)
        return list(classed.run())


class _Tab(_Base):
    """A tab (sphinx-tabs, sphinx-design): its blocks carry the tab's title."""

    def run(self) -> list[nodes.Node]:
        if self.name.lower() == "code-tab":
            code = "\n".join(self.content)
            block = nodes.literal_block(code, code)
            block["language"] = self.argument().split()[0] if self.argument() else ""
            block.line = self.content_offset + 1
            box = _container("tab", self.argument(), self.lineno)
            box += block
            return [box]
        return [self.parsed_content(_container("tab", self.argument(), self.lineno))]


class _Generic(_Base):
    """Any other directive: its content is read as rst; a title-like argument labels it."""

    def run(self) -> list[nodes.Node]:
        if code := self.example_block():
            return [code]
        label = self.argument() if self.name.lower() in TITLED_CONTAINERS else ""
        box = _container("generic", label, self.lineno)
        if self.name.lower() == "centered" and self.argument():
            box += self.inline_paragraph(self.argument())
        return [self.parsed_content(box)]


def _directive_for(name: str) -> type[Directive]:
    """The directive class a (lower-case) directive name is read with."""
    objtype = name.rsplit(":", 1)[-1]
    if name == "class":
        return _SphinxClass
    if objtype in _AUTODOC_OBJECTS:
        return _Autodoc
    if name in DROPPED_DIRECTIVES or objtype in DROPPED_DIRECTIVES or objtype.startswith("auto"):
        return _Dropped
    if name in VERSION_TITLES:
        return _Version
    if name in ADMONITION_TITLES:
        return _TitledAdmonition
    if name in CODE_DIRECTIVES:
        return _Code
    if name in TAB_DIRECTIVES:
        return _Tab
    if objtype in _DESCRIPTIONS or (":" in name and objtype not in en.directives):
        return _Description
    return _Generic


def _register(name: str) -> None:
    directives.register_directive(name, _directive_for(name))


_known: set[str] = set()


def _register_built_in() -> None:
    names = (set(DROPPED_DIRECTIVES) | set(VERSION_TITLES) | set(ADMONITION_TITLES) | set(CODE_DIRECTIVES)
             | set(TAB_DIRECTIVES) | set(TITLED_CONTAINERS) | {"centered", "glossary", "hlist", "only",
                                                                  "tabs", "tab-set", "rst-class", "cssclass"})
    names |= {f"py:{objtype}" for objtype in _DESCRIPTIONS} | {objtype for objtype in _DESCRIPTIONS
                                                               if objtype not in en.directives} | {"class"}
    for name in names:
        _register(name)
    _known.update(names)
    _known.update(en.directives)


def _register_names_in(source: str) -> None:
    """Register every directive name the file uses that docutils would not know."""
    new = 0
    for match in _DIRECTIVE_NAME.finditer(source):
        name = match.group(1).lower()
        if name in _known:
            continue
        if new >= _MAX_NEW_NAMES:
            break
        _register(name)
        _known.add(name)
        new += 1


def _role_text(name: str, text: str) -> nodes.Node:
    """What a reader sees of a role (`sphinx_markup.role_text`), as a node."""
    shown, is_code = role_text(name, text)
    return nodes.literal(shown, shown) if is_code else nodes.Text(shown)


# The role single backticks are read with: the conf.py that sets a project's is not read.
_DEFAULT_ROLE = "obj"
# A name as code is written: dotted, underscored, called, shortened (`~a.b`) or in camel case.
_CODE_SHAPED = re.compile(r"[._()~]|[a-z][A-Z]")


def _generic_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
                  options: dict[str, Any] | None = None,
                  content: list[str] | None = None) -> tuple[list[nodes.Node], list[nodes.system_message]]:
    return [_role_text(name, utils.unescape(text))], []


class _ForgivingInliner(Inliner):  # type: ignore[misc]
    """Inline markup where a role docutils does not know reads as its text, not as an error, and
    text in single backticks reads as a Sphinx cross-reference."""

    def interpreted(self, rawsource: str, text: str, role: str,
                    lineno: int) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        if not role:
            # The default role: docutils' is a title reference, which shows `post_load
            # <marshmallow.decorators.post_load>` whole. Sphinx projects mostly set one that links to
            # code (`default_role = "py:obj"`, or "any"); without their conf.py, a reference with a
            # target or a name shaped as code reads as that role shows it, in a code font, and other
            # text (`CN`, a book's title) as the words it is, as Sphinx's own default shows it.
            unescaped = utils.unescape(text)
            shown, _ = role_text(_DEFAULT_ROLE, unescaped)
            if unescaped.rstrip().endswith(">") or _CODE_SHAPED.search(unescaped):
                return [nodes.literal(shown, shown)], []
            return [nodes.Text(shown)], []
        role_fn, messages = roles.role(role, self.language, lineno, self.reporter)
        if role_fn is None:
            # docutils' messages are the trail of its failed look-up ("No role entry for "meth" ...
            # Trying "meth" as canonical role name."): the role is read all the same, so there is
            # nothing to report, and a message left in the tree is text wherever a tree is read whole.
            role_fn, messages = _generic_role, []
        result, more = role_fn(role, rawsource, text, lineno, self)
        return result, messages + more


# docutils builds its inline patterns from `vars(self.__class__)`, i.e. from the attributes of the
# exact class: a subclass must carry the pattern pieces itself.
for _name, _value in vars(Inliner).items():
    if not _name.startswith("__") and isinstance(_value, str):
        setattr(_ForgivingInliner, _name, _value)


class _UndefinedSubstitutions(Transform):  # type: ignore[misc]
    """Marks the substitutions a file uses but does not define as read as nothing: Sphinx defines
    `|version|` and `|release|` from conf.py, a project others in `rst_prolog`, and neither is
    read, so the value a reader sees is unknown. docutils would leave the reference's name in the
    text, glued to the word before it when written `v\\ |version|` ("Release vversion"). The mark
    (an inline of class `citeline-undefined`) lets the loader drop it as it drops a footnote's."""

    default_priority = 219  # just before docutils' own Substitutions transform replaces the rest

    def apply(self) -> None:
        document = self.document
        for reference in list(document.findall(nodes.substitution_reference)):
            name = reference["refname"]
            if name in document.substitution_defs or name.lower() in document.substitution_names:
                continue
            # `|name|_` is a link around it, whose only text it is: a link with no words is gone too.
            link = reference.parent
            gone = link if isinstance(link, nodes.reference) and len(link.children) == 1 else reference
            gone.replace_self(nodes.inline(classes=["citeline-undefined"]))


class _Parser(Parser):  # type: ignore[misc]
    """docutils' reStructuredText parser, with undefined substitutions marked as read as nothing."""

    def get_transforms(self) -> list[type[Transform]]:
        """docutils' transforms plus `_UndefinedSubstitutions`."""
        return [*super().get_transforms(), _UndefinedSubstitutions]


def _sphinx_flavoured(source: str) -> bool:
    """Whether the file is written for Sphinx: it uses a directive or a role docutils lacks."""
    return (any(match.group(1).lower() not in en.directives for match in _DIRECTIVE_NAME.finditer(source))
            or any(match.group(1).lower() not in en.roles for match in _ROLE_NAME.finditer(source)))


def parse(source: str) -> nodes.document:
    """The document tree of `source`, quietly: problems become nodes, never output or exits."""
    with _lock:
        if not _known:
            _register_built_in()
        _register_names_in(source)
    settings = dict(_SETTINGS, warning_stream=io.StringIO(), citeline_sphinx=_sphinx_flavoured(source))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        document = publish_doctree(source, parser=_Parser(inliner=_ForgivingInliner()),
                                   settings_overrides=settings)
    return document


__all__ = ["parse"]
