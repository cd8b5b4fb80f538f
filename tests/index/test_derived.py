"""Pages a documentation build derives from its pages are left out of a folder's ingest, with the reason."""

from __future__ import annotations

from pathlib import Path

from citeline.index.ingest import SkippedFile, discover


def _write(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("<html><body><p>text</p></body></html>" if name.endswith(".html") else "x", encoding="utf-8")


def _walk(root: Path) -> tuple[list[str], dict[str, str]]:
    skipped: list[SkippedFile] = []
    found, problems = discover([root], skipped=skipped)
    assert problems == []
    return ([str(path.relative_to(root)) for path in found],
            {str(Path(s.path).relative_to(root)): s.reason for s in skipped if "build" in s.reason})


def test_a_javadoc_builds_usage_index_tree_and_help_pages_are_left_out(tmp_path: Path) -> None:
    _write(tmp_path, "element-list", "index-all.html", "index.html", "help-doc.html", "constant-values.html",
           "org/jsoup/Jsoup.html", "org/jsoup/package-summary.html", "org/jsoup/package-tree.html",
           "org/jsoup/class-use/Jsoup.html")
    found, left_out = _walk(tmp_path)
    # The class, package and constant pages are the documentation.
    assert sorted(found) == ["constant-values.html", "index.html", "org/jsoup/Jsoup.html",
                             "org/jsoup/package-summary.html"]
    reason = "a Javadoc build's index, tree, usage or help page (the class pages it is made from are read)"
    assert left_out == {"help-doc.html": reason, "index-all.html": reason, "org/jsoup/class-use": reason,
                        "org/jsoup/package-tree.html": reason}


def test_a_sphinx_builds_sources_and_module_sources_are_left_out(tmp_path: Path) -> None:
    _write(tmp_path, "objects.inv", "index.html", "_sources/index.rst.txt", "_modules/httpx/_client.html")
    found, left_out = _walk(tmp_path)
    assert found == ["index.html"]
    assert left_out == {"_sources": "a Sphinx build's copy of its pages' sources (the built pages beside it are read)",
                        "_modules": "a Sphinx build's highlighted module sources (the documentation pages are read)"}


def test_an_rdoc_builds_table_of_contents_is_left_out(tmp_path: Path) -> None:
    _write(tmp_path, "js/darkfish.js", "index.html", "table_of_contents.html", "Asciidoctor/Block.html")
    found, left_out = _walk(tmp_path)
    assert sorted(found) == ["Asciidoctor/Block.html", "index.html"]  # the script is no document either
    assert left_out == {"table_of_contents.html": "an RDoc build's table of contents (the class pages it lists "
                                                  "are read)"}


def test_a_rustdoc_builds_sources_item_lists_settings_and_help_are_left_out(tmp_path: Path) -> None:
    _write(tmp_path, "crates.js", "search-index.js", "settings.html", "help.html", "src/syn/lib.rs.html",
           "syn/index.html", "syn/all.html", "syn/struct.LitStr.html", "syn/parse/index.html", "syn/parse/all.html")
    found, left_out = _walk(tmp_path)
    assert sorted(found) == ["syn/index.html", "syn/parse/index.html", "syn/struct.LitStr.html"]
    derived = "a rustdoc build's list of all items, settings or help page (the item pages are read)"
    assert left_out == {"src": "a rustdoc build's highlighted copy of the crates' sources (the documentation "
                               "pages are read)", "settings.html": derived, "help.html": derived,
                        "syn/all.html": derived, "syn/parse/all.html": derived}


def test_a_pydoctor_builds_lists_indexes_and_second_root_page_are_left_out(tmp_path: Path) -> None:
    _write(tmp_path, "apidocs.css", "pydoctor.js", "objects.inv", "all-documents.html", "nameIndex.html",
           "classIndex.html", "moduleIndex.html", "undoccedSummary.html", "index.html", "twisted.html",
           "twisted.internet.html", "twisted.internet.defer.Deferred.html")
    found, left_out = _walk(tmp_path)
    # `index.html` is the root package's page again: it is read once, by the package's name.
    assert sorted(found) == ["twisted.html", "twisted.internet.defer.Deferred.html", "twisted.internet.html"]
    derived = "a pydoctor build's list or index of its objects, or its help page (the object pages are read)"
    assert left_out == {"all-documents.html": derived, "nameIndex.html": derived, "classIndex.html": derived,
                        "moduleIndex.html": derived, "undoccedSummary.html": derived,
                        "index.html": "a pydoctor build's second copy of its root package's page (the one named by "
                                      "the package is read)"}


def test_a_pydoctor_builds_root_page_linked_to_or_of_its_own_is_read(tmp_path: Path) -> None:
    _write(tmp_path, "apidocs.css", "pydoctor.js", "index.html", "twisted.internet.html")
    (tmp_path / "twisted.html").symlink_to("index.html")  # as pydoctor links it: read once, as index.html
    assert _walk(tmp_path) == (["index.html", "twisted.internet.html"], {})
    (tmp_path / "twisted.html").unlink()
    (tmp_path / "twisted.html").write_text("<html><body><p>the root package</p></body></html>", encoding="utf-8")
    assert sorted(_walk(tmp_path)[0]) == ["index.html", "twisted.html", "twisted.internet.html"]


def test_the_same_names_outside_a_build_are_the_users_own(tmp_path: Path) -> None:
    # No package list beside the index, no Sphinx inventory: a folder of notes that happens to use the names.
    _write(tmp_path, "index-all.html", "help-doc.html", "notes/class-use/intro.html", "_sources/intro.rst.txt",
           "_modules/intro.html", "table_of_contents.html", "settings.html", "all.html", "src/intro.html",
           "nameIndex.html", "index.html", "intro.html")
    found, left_out = _walk(tmp_path)
    assert sorted(found) == ["_modules/intro.html", "_sources/intro.rst.txt", "all.html", "help-doc.html",
                             "index-all.html", "index.html", "intro.html", "nameIndex.html",
                             "notes/class-use/intro.html", "settings.html", "src/intro.html",
                             "table_of_contents.html"]
    assert left_out == {}
