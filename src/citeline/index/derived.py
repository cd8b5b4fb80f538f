"""Pages a documentation generator derives from the pages it documents, found while walking a folder.

A built documentation site holds, beside its pages, files made from them: Sphinx copies every
page's source into `_sources/` (the page again, with its markup) and, with viewcode, every
documented module's source into `_modules/`; Javadoc writes "Uses of Class" pages, an index of every
member, class trees and a page on how to read Javadoc; RDoc a table of contents of every class and
method; rustdoc a highlighted copy of every source file (`src/`), a list of every item of a crate
and its settings and help pages; gtk-doc and Nim an index of every symbol. Read, they answer beside or instead of the page they were made from, so that an answer
cites a page twice or quotes an index line. They are left out with the reason when the build that
made them is recognised by the files only it leaves; the same names outside such a build are the
user's own and read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

# Files only a Sphinx HTML build leaves at its root.
_SPHINX_MARKS = frozenset(("searchindex.js", "objects.inv", ".buildinfo"))
_SPHINX_SOURCES = "a Sphinx build's copy of its pages' sources (the built pages beside it are read)"
_SPHINX_MODULES = "a Sphinx build's highlighted module sources (the documentation pages are read)"
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
        return found


def _within(folder: Path, roots: list[Path]) -> bool:
    return any(folder == root or folder.is_relative_to(root) for root in roots)
