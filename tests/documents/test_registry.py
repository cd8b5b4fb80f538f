"""Which loader reads a file: by its suffix, a markup source saved as text by its markup's, a web
page's language variant (`core.html.en`) as the page."""

from __future__ import annotations

from pathlib import Path

from citeline.documents.registry import loader_for, reading_suffix


def test_a_pages_language_variant_is_read_as_the_page() -> None:
    # Apache httpd's manual, and any site served by language negotiation, names pages so.
    assert reading_suffix(Path("mod/core.html.en")) == ".html"
    assert reading_suffix(Path("index.html.pt-br")) == ".html"
    assert reading_suffix(Path("Guide.HTM.FR")) == ".htm"
    html = loader_for(Path("index.html"))
    assert html is not None and loader_for(Path("mod/core.html.en")) is html


def test_other_double_suffixes_keep_their_own() -> None:
    assert reading_suffix(Path("notes.md")) == ".md"
    assert reading_suffix(Path("index.rst.txt")) == ".rst"
    assert reading_suffix(Path("page.html.md")) == ".md"  # a format's suffix is no language tag
    assert reading_suffix(Path("notes.txt.en")) == ".en"  # only a web page is negotiated by language
    assert reading_suffix(Path("page.html.backup")) == ".backup"
    assert loader_for(Path("notes.txt.en")) is None
