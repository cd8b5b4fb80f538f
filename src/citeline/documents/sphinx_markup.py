"""The Sphinx vocabulary both of its source syntaxes share: reStructuredText (`:func:`x``,
`.. note::`) and MyST Markdown (`{func}`x``, ```` ```{note} ````, `:::{note}`) name the same roles
and directives, and a reader of the built page sees the same text for either."""

from __future__ import annotations

import ast
import re
import textwrap

# Roles whose text is a name from the code (shown in a code font): their text keeps the
# backticks inline code has everywhere in stored text. Other roles become plain words.
CODE_ROLES = frozenset((
    "func", "meth", "class", "data", "attr", "exc", "obj", "mod", "const", "type", "member", "var",
    "macro", "struct", "union", "enum", "enumerator", "expr", "texpr", "envvar", "option", "program",
    "file", "samp", "command", "code", "kbd", "makevar", "mimetype", "regexp", "property",
    "setting", "confval", "cmdoption", "decorator", "exception", "function", "method", "attribute",
))
# Roles that read as a prefix and their text: {pep}`8` is "PEP 8" on the page. An issue tracker's
# (sphinx-issues, extlinks) shows the number after "#" or "issue"; the prefix keeps what the number is.
_PREFIXED_ROLES = {"pep": "PEP", "rfc": "RFC", "issue": "issue", "pr": "PR"}
_TITLE_AND_TARGET = re.compile(r"^(.*?)\s*<([^<>]*)>$", re.DOTALL)
# A reference to a page without a title of its own shows the page's title, which lives in another
# file; the page's name ("guide/standard-library") read as words is the nearest a single file
# gives. A section's label stays as written: it often spells the name of what the section is about
# ("config_report_exclude_also" for the `[report] exclude_also` setting), which words would lose.
_SHOWN_BY_TARGET_TITLE = frozenset(("doc",))
# Roles that are no cross-reference (a file's name, a key, a command, a formula): their text is shown
# as written, whatever it starts with (:file:`~/.docutils`, :file:`.htaccess`, :kbd:`!`).
_NOT_REFERENCES = frozenset((
    "file", "samp", "kbd", "command", "program", "makevar", "mimetype", "regexp", "mailheader", "newsgroup",
    "dfn", "abbr", "guilabel", "menuselection", "code", "math", "pep", "rfc",
))
# Cross-references to a page, a label, a term, an option or a directive (Sphinx's standard and rst
# domains): a `!` before one leaves it unlinked, but `~` and `.` are no marks there, only text.
_NAMED_REFERENCES = frozenset((
    "doc", "ref", "numref", "term", "keyword", "token", "option", "envvar", "confval", "download", "dir", "role",
))

# Directives whose content is not in the file (it is pulled from code or other files), or is
# not prose a reader sees (index entries, diagram sources, configuration of the build, the setup
# sphinx.ext.doctest runs around the examples but never shows).
DROPPED_DIRECTIVES = frozenset((
    "toctree", "literalinclude", "automodule", "autoclass", "autofunction", "automethod",
    "autoattribute", "autodata", "autoexception", "autodecorator", "autoproperty", "autosummary",
    "autoprogram", "autotypeddict", "automodapi", "autoapimodule", "autoapiclass", "autopydantic_model",
    "autopydantic_settings", "click", "argparse", "index", "highlight", "currentmodule", "module",
    "sectionauthor", "moduleauthor", "codeauthor", "graphviz", "graph", "digraph", "inheritance-diagram",
    "mermaid", "plantuml", "uml", "plot", "jinja", "tabularcolumns", "default-domain", "program",
    "only-latex", "todolist", "include-markdown", "mdinclude", "git_changelog", "changelog",
    "video", "youtube", "raw-html", "meta", "deprecated-removed-list", "testsetup", "testcleanup",
))
# (directive, the title a reader sees): version notes read "Changed in version 2.0".
VERSION_TITLES = {
    "versionadded": "Added in version", "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version", "versionremoved": "Removed in version",
}
# Admonitions Sphinx adds to docutils' own (note, warning, tip, ...), with their titles.
ADMONITION_TITLES = {"seealso": "See also", "todo": "Todo"}
CODE_DIRECTIVES = frozenset((
    "code", "code-block", "sourcecode", "testcode", "testoutput", "doctest", "ipython", "jupyter-execute",
    "productionlist", "prompt", "console", "terminal",
))
# sphinx.ext.doctest's shown directives, whose argument names a group of tests, not a language:
# the language each is highlighted in.
DOCTEST_LANGUAGES = {"doctest": "pycon", "testcode": "python", "testoutput": ""}
TAB_DIRECTIVES = frozenset(("tab", "group-tab", "tab-item", "code-tab"))
# Containers whose argument is a title for what they hold (collapsible blocks, cards).
TITLED_CONTAINERS = frozenset(("dropdown", "card", "grid-item-card", "details", "collapse", "spoiler"))


def role_text(name: str, text: str) -> tuple[str, bool]:
    """What a reader sees of a role, and whether it is shown as code: `title <target>` shows the
    title, `~a.b.c` shows `c`, `.a.b` shows `a.b`, `!a.b` shows `a.b`, {pep}`8` shows "PEP 8"."""
    objtype = name.lower().rsplit(":", 1)[-1]
    reference = objtype not in _NOT_REFERENCES
    # A cross-reference written with `!` is not linked, and Sphinx shows the rest as it is written:
    # the marks below steer the link, and there is none.
    unlinked = reference and text.startswith("!")
    if unlinked:
        text = text[1:]
    match = _TITLE_AND_TARGET.match(text)
    # Only a title before it makes `<...>` a target: `<name>` alone is a placeholder, shown whole.
    titled = bool(match and match.group(1).strip())
    if match and titled:
        text = match.group(1).strip()
    elif reference and not unlinked and objtype not in _NAMED_REFERENCES:
        text = _object_name(text)
    if objtype in {"guilabel", "menuselection"}:
        text = text.replace("&", "").replace("-->", ">")
    if objtype in _SHOWN_BY_TARGET_TITLE and not titled:
        return " ".join(re.split(r"[-_\s]+", text.rstrip("/").rsplit("/", 1)[-1])).strip(), False
    if objtype in _PREFIXED_ROLES:
        # A title replaces the whole of what is shown: {pep}`the style guide <8>` reads as its title.
        return text if titled else f"{_PREFIXED_ROLES[objtype]} {text}", False
    return text, objtype in CODE_ROLES


def _object_name(target: str) -> str:
    """What a cross-reference to an object in code shows of its target, as Sphinx's Python domain
    (and JavaScript's, and C's) writes it: a leading `.` only widens the search for the name and is
    not shown (`.Sphinx.add_css_file`); after a leading `~` only the last component is shown
    (`~queue.Queue.get` reads `get`, `~.Builder.name` reads `name`)."""
    shown = target.lstrip(".") or target  # dots alone (`...`) are no mark but the whole text
    if shown.startswith("~"):
        shown = shown[1:].rsplit(".", 1)[-1]
    return shown


# Statements only code makes: a sentence never parses as a definition, an import or an assignment.
_CODE_STATEMENTS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom, ast.Assign,
                    ast.AugAssign, ast.AnnAssign, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While, ast.Try)
_MAX_PARSED = 20_000


# A shell or interpreter session's first line: a prompt ("$", "%", ">>>", "C:\\>", "PS C:\\>"), then a command.
_SESSION = re.compile(r"\A\s*(?:\$|%|>>>|(?:PS\s+)?[A-Za-z]:\\[^>\n]*>)[ \t]+\S")


def example_language(text: str) -> str | None:
    """The language of a directive's content when the content is code an extension shows, not rst
    or Markdown to read: "python" (see `is_python`) or "console" for a session at a prompt
    (```` ```{pip-cli} ```` holding "$ pip install SomePackage"); None for prose."""
    if is_python(text):
        return "python"
    return "console" if _SESSION.match(text) else None


def is_python(text: str) -> bool:
    """Whether a directive's content is Python code: it parses, and holds a statement or call only
    code makes (prose that happens to parse is a bare name or string at most)."""
    if not text.strip() or len(text) > _MAX_PARSED:
        return False
    try:
        tree = ast.parse(textwrap.dedent(text))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return any(isinstance(node, _CODE_STATEMENTS) or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call))
               for node in tree.body)
