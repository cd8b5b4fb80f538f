"""Pages a documentation generator derives from the pages it documents, found while walking a folder.

A built documentation site holds, beside its pages, files made from them: Sphinx copies every
page's source into `_sources/` (the page again, with its markup) and, with viewcode, every
documented module's source into `_modules/`, and writes an index of every object, of every module
and a search page; Sphinx and MkDocs write a page saying a page was not found; Javadoc writes "Uses
of Class" pages, an index of every member, class trees and a page on how to read Javadoc; RDoc a table of contents of every class and
method; rustdoc a highlighted copy of every source file (`src/`), a list of every item of a crate
and its settings and help pages; gtk-doc and Nim an index of every symbol; Haddock an index of every
name (`doc-index*.html`), a highlighted copy of every module's source (`src/`) and a Hoogle database
of every signature (`<package>.txt`); pydoctor a list of every object field by field, indexes of its
names, classes and modules, a list of the undocumented ones, a help page and, where it cannot link
one to the other, its root package's page twice (`index.html` and `twisted.html`); YARD an index of
every class and module (`_index.html`, again as `index.html` where there is no README), the lists of
classes, methods and files its frame set shows beside a page, and the frame set; JSDoc a highlighted
copy of every source file (`lib_option.js.html`) and, with its template's scripts, their licence;
TypeDoc a list of every item (`modules.html`) and its class hierarchy; Erlang/OTP's documentation
build an index of every reference page (`man_index.html`). Read, they answer beside or instead of
the page they were made from, so that an answer cites a page twice or quotes an index line. They are
left out with the reason when the build that made them is recognised by the files only it leaves (or
the page by a mark of the build's in it); the same names outside such a build are the user's own and
read.
"""

from __future__ import annotations

import filecmp
import re
from dataclasses import dataclass, field
from pathlib import Path

# Files only a Sphinx HTML build leaves at its root.
_SPHINX_MARKS = frozenset(("searchindex.js", "objects.inv", ".buildinfo"))
_SPHINX_SOURCES = "a Sphinx build's copy of its pages' sources (the built pages beside it are read)"
_SPHINX_MODULES = "a Sphinx build's highlighted module sources (the documentation pages are read)"
# Its general index (one page, or one per letter with `html_split_index`), its domains' indexes
# (`py-modindex.html`) and its search page, whose text is written by its script.
_SPHINX_INDEX_PAGES = re.compile(r"^(?:genindex(?:-.+)?|[a-z]+-modindex|search)\.html$")
_SPHINX_DERIVED = "a Sphinx build's index or search page (the pages it lists are read)"
# A built site's page-not-found page (Sphinx's notfound extension, MkDocs, which leaves a sitemap at
# its root) says only that a page is missing.
_NOT_FOUND = "404.html"
_SITEMAP = "sitemap.xml"
_NOT_FOUND_DERIVED = "a site build's page-not-found page"
# A Javadoc build's root holds its list of packages and an index or tree of every class.
_JAVADOC_LISTS = frozenset(("element-list", "package-list"))
_JAVADOC_INDEXES = frozenset(("index-all.html", "allclasses-index.html", "allclasses.html", "overview-tree.html"))
_JAVADOC_FOLDERS = frozenset(("class-use", "index-files"))
_JAVADOC_PAGES = frozenset((
    "index-all.html", "overview-tree.html", "package-tree.html", "allclasses.html", "allclasses-index.html",
    "allclasses-frame.html", "allclasses-noframe.html", "allpackages-index.html", "overview-frame.html",
    "package-frame.html", "help-doc.html", "deprecated-list.html", "serialized-form.html", "search.html",
))
_JAVADOC_DERIVED = "a Javadoc build's index, tree, usage or help page (the class pages it is made from are read)"
# RDoc's Darkfish output: its script beside the pages, and a table of contents of every class and method.
_RDOC_SCRIPT = Path("js") / "darkfish.js"
_RDOC_CONTENTS = "table_of_contents.html"
_RDOC_DERIVED = "an RDoc build's table of contents (the class pages it lists are read)"
# rustdoc's output root: its crate list or source-file list, beside its search index or settings.
_RUSTDOC_LISTS = frozenset(("crates.js", "source-files.js", "src-files.js"))
_RUSTDOC_MARKS = frozenset(("search-index.js", "settings.html"))
_RUSTDOC_ROOT_PAGES = frozenset(("settings.html", "help.html"))
_RUSTDOC_SOURCES = "a rustdoc build's highlighted copy of the crates' sources (the documentation pages are read)"
_RUSTDOC_DERIVED = "a rustdoc build's list of all items, settings or help page (the item pages are read)"
# gtk-doc's book for Devhelp beside its pages, and its indexes of every symbol (all, deprecated, by version).
_GTKDOC_BOOK = ".devhelp2"
_GTKDOC_INDEX = "api-index-"
_GTKDOC_DERIVED = "a gtk-doc build's index of every symbol (the reference pages it lists are read)"
# Nim's documentation generator leaves its script beside the pages, and an index of every symbol.
_NIM_SCRIPT = "dochack.js"
_NIM_INDEX = "theindex.html"
_NIM_DERIVED = "a Nim documentation build's index of every symbol (the module pages it lists are read)"
# Haddock's output root: its index of every name beside its script (`haddock-util.js` before 2.19)
# or its quick-jump styles. Its Hoogle database, `<package>.txt`, opens with Haddock's line saying so.
_HADDOCK_INDEX = "doc-index.html"
_HADDOCK_MARKS = frozenset(("haddock-bundle.min.js", "haddock-util.js", "quick-jump.css"))
_HADDOCK_INDEX_PAGES = re.compile(r"^doc-index(?:-.+)?\.html$")  # doc-index-A.html, doc-index-All.html, ...
_HOOGLE_HEADER = b"-- Hoogle documentation, generated by Haddock"
_HADDOCK_SOURCES = "a Haddock build's highlighted copy of its modules' sources (the documentation pages are read)"
_HADDOCK_INDEX_DERIVED = "a Haddock build's index of every name (the module pages are read)"
_HOOGLE_DERIVED = "a Haddock build's Hoogle database of every signature (the module pages are read)"

# pydoctor's output root: its stylesheet and script beside the pages, its lists and indexes of the objects.
_PYDOCTOR_MARKS = frozenset(("apidocs.css", "pydoctor.js"))
_PYDOCTOR_PAGES = frozenset(("all-documents.html", "nameIndex.html", "classIndex.html", "moduleIndex.html",
                             "undoccedSummary.html", "apidocs-help.html"))
_PYDOCTOR_DERIVED = "a pydoctor build's list or index of its objects, or its help page (the object pages are read)"
# pydoctor writes its root package's page as `index.html` and links `<package>.html` to it (a link is
# read once, as the file it links to), or copies it where it cannot link (or the build was copied
# without its links): the page is then read once, by the package's name.
_PYDOCTOR_FRONT = "index.html"
_PYDOCTOR_COPY = "a pydoctor build's second copy of its root package's page (the one named by the package is read)"
# TypeDoc's output root: its script and search index beside the pages, which open with its toolbar;
# its list of every item and its class hierarchy.
_TYPEDOC_MARKS = (Path("assets") / "main.js", Path("assets") / "search.js")
_TYPEDOC_PAGES = ("hierarchy.html", "modules.html")
_TYPEDOC_TOOLBAR = b'class="tsd-page-toolbar"'
_TYPEDOC_DERIVED = "a TypeDoc build's list of every item or class hierarchy (the item pages are read)"
# The index of Erlang/OTP's reference pages, which says it is made by the build's otp_man_index.
_OTP_MAN_INDEX = "man_index.html"
_OTP_MAN_INDEX_MARK = b"generated by the otp_man_index"
_OTP_DERIVED = "an Erlang/OTP documentation build's index of its reference pages (the pages are read)"
_HEAD_BYTES = 16_384  # where a page's head and first lines are

# YARD's output root: its index of every class and module beside the script of its frame set's lists.
_YARD_INDEX = "_index.html"
_YARD_SCRIPT = Path("js") / "full_list.js"
_YARD_PAGES = frozenset((_YARD_INDEX, "class_list.html", "method_list.html", "file_list.html", "frames.html"))
_YARD_DERIVED = ("a YARD build's index, frame set or list of its classes, methods or files (the class and module "
                 "pages are read)")
# Without a README, YARD writes its index again as the front page.
_YARD_FRONT = "index.html"
_YARD_COPY = "a YARD build's second copy of its index (`_index.html`), its front page where there is no README"
# JSDoc's default template (and those made from it) leaves its scripts beside the pages: a highlighted
# copy of every source file is named after the file's path (`lib/option.js` as `lib_option.js.html`).
_JSDOC_MARKS = (Path("scripts") / "linenumber.js", Path("scripts") / "prettify" / "prettify.js")
_JSDOC_SOURCE_PAGE = re.compile(r"^.+\.(?:js|jsx|mjs|cjs|jsdoc|ts|tsx)\.html$")
_JSDOC_SOURCES = "a JSDoc build's highlighted copy of a source file (the documentation pages are read)"
_JSDOC_SCRIPTS = "a JSDoc build's template scripts and their licence"


@dataclass
class DerivedPages:
    """The documentation builds met so far in one top-down walk, and what of theirs to leave out."""

    _javadoc_roots: list[Path] = field(default_factory=list)
    _rustdoc_roots: list[Path] = field(default_factory=list)

    def left_out(self, folder: Path, dirnames: list[str], filenames: list[str]) -> list[tuple[str, str]]:
        """The names among `folder`'s subfolders and files that a recognised build derived from its
        pages, each with the reason it is left out."""
        names = set(filenames)
        found: list[tuple[str, str]] = []
        if _SPHINX_MARKS & names:
            found += [(name, reason) for name, reason in (("_sources", _SPHINX_SOURCES), ("_modules", _SPHINX_MODULES))
                      if name in dirnames]
            found += [(name, _SPHINX_DERIVED) for name in sorted(names) if _SPHINX_INDEX_PAGES.match(name)]
        if _NOT_FOUND in names and (_SPHINX_MARKS | {_SITEMAP}) & names:
            found.append((_NOT_FOUND, _NOT_FOUND_DERIVED))
        if _RDOC_CONTENTS in names and (folder / _RDOC_SCRIPT).is_file():
            found.append((_RDOC_CONTENTS, _RDOC_DERIVED))
        if _JAVADOC_LISTS & names and _JAVADOC_INDEXES & names:
            self._javadoc_roots.append(folder)
        if _within(folder, self._javadoc_roots):
            found += [(name, _JAVADOC_DERIVED) for name in sorted(_JAVADOC_FOLDERS & set(dirnames))]
            found += [(name, _JAVADOC_DERIVED) for name in sorted(_JAVADOC_PAGES & names)]
        if _RUSTDOC_LISTS & names and _RUSTDOC_MARKS & names:
            self._rustdoc_roots.append(folder)
            found += [("src", _RUSTDOC_SOURCES)] if "src" in dirnames else []
            found += [(name, _RUSTDOC_DERIVED) for name in sorted(_RUSTDOC_ROOT_PAGES & names)]
        if any(name.endswith(_GTKDOC_BOOK) for name in names):
            found += [(name, _GTKDOC_DERIVED) for name in sorted(names) if name.startswith(_GTKDOC_INDEX)]
        if _NIM_SCRIPT in names and _NIM_INDEX in names:
            found.append((_NIM_INDEX, _NIM_DERIVED))
        if "all.html" in names and _within(folder, self._rustdoc_roots):
            found.append(("all.html", _RUSTDOC_DERIVED))
        if _HADDOCK_INDEX in names and _HADDOCK_MARKS & names:
            found += [("src", _HADDOCK_SOURCES)] if "src" in dirnames else []
            found += [(name, _HADDOCK_INDEX_DERIVED) for name in sorted(names)
                      if _HADDOCK_INDEX_PAGES.match(name)]
            found += [(name, _HOOGLE_DERIVED) for name in sorted(names)
                      if name.endswith(".txt") and _opens_with(folder / name, _HOOGLE_HEADER)]
        if names >= _PYDOCTOR_MARKS:
            found += [(name, _PYDOCTOR_DERIVED) for name in sorted(_PYDOCTOR_PAGES & names)]
            found += [(_PYDOCTOR_FRONT, _PYDOCTOR_COPY)] if _root_package_copy(folder, names) else []
        if _YARD_INDEX in names and (folder / _YARD_SCRIPT).is_file():
            found += [(name, _YARD_DERIVED) for name in sorted(_YARD_PAGES & names)]
            found += [(_YARD_FRONT, _YARD_COPY)] if _same_file(folder, _YARD_FRONT, _YARD_INDEX) else []
        if all((folder / mark).is_file() for mark in _JSDOC_MARKS):
            found += [("scripts", _JSDOC_SCRIPTS)]
            found += [(name, _JSDOC_SOURCES) for name in sorted(names) if _JSDOC_SOURCE_PAGE.match(name)]
        typedoc_pages = [name for name in _TYPEDOC_PAGES if name in names]
        if typedoc_pages and all((folder / mark).is_file() for mark in _TYPEDOC_MARKS):
            found += [(name, _TYPEDOC_DERIVED) for name in typedoc_pages if _holds(folder / name, _TYPEDOC_TOOLBAR)]
        if _OTP_MAN_INDEX in names and _holds(folder / _OTP_MAN_INDEX, _OTP_MAN_INDEX_MARK):
            found.append((_OTP_MAN_INDEX, _OTP_DERIVED))
        return found


def _same_file(folder: Path, name: str, other: str) -> bool:
    """Whether `name` in `folder` holds the same bytes as `other` beside it (False if either cannot be read)."""
    try:
        return (folder / name).is_file() and filecmp.cmp(folder / name, folder / other, shallow=False)
    except OSError:
        return False


def _within(folder: Path, roots: list[Path]) -> bool:
    return any(folder == root or folder.is_relative_to(root) for root in roots)


def _head(path: Path, size: int) -> bytes:
    """The file's first `size` bytes (none if it cannot be read: it is then reported when read)."""
    try:
        with path.open("rb") as file:
            return file.read(size)
    except OSError:
        return b""


def _opens_with(path: Path, header: bytes) -> bool:
    """Whether the file begins with `header`."""
    return _head(path, len(header)) == header


def _holds(path: Path, mark: bytes) -> bool:
    """Whether the file's first bytes (its head, on a page) hold `mark`."""
    return mark in _head(path, _HEAD_BYTES)


def _root_package_copy(folder: Path, names: set[str]) -> bool:
    """Whether a pydoctor build's `index.html` holds the same page as its root package's page beside
    it (a top-level package's page is named by the package alone: `twisted.html`)."""
    if _PYDOCTOR_FRONT not in names:
        return False
    front = folder / _PYDOCTOR_FRONT
    return any(filecmp.cmp(front, folder / name, shallow=False) for name in sorted(names)
               if name.endswith(".html") and name.count(".") == 1 and name != _PYDOCTOR_FRONT
               and name not in _PYDOCTOR_PAGES and not (folder / name).is_symlink())
