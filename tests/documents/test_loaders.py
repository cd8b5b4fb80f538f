import time
from pathlib import Path

import pytest

from citeline.documents.loaders import sanitize
from citeline.documents.markdown_loader import MarkdownLoader
from citeline.documents.registry import loader_for
from citeline.documents.text_loader import TextLoader, looks_like_rst
from citeline.errors import IngestError

MD = """---
title: The Guide
owner: docs-team
---

Intro text before any heading.

# Top

Top body.

## Child

```python
# not a heading
x = 1
```

Child body.
"""


def test_markdown_sections_follow_headings_and_skip_code_fences() -> None:
    doc = MarkdownLoader().load(Path("guide.md"), MD.encode())
    assert doc.title == "The Guide"
    assert doc.metadata["owner"] == "docs-team"
    headings = [s.heading for s in doc.sections]
    assert headings == [None, "Top", "Top > Child"]
    child = doc.sections[-1]
    assert "Child body." in doc.text[child.start : child.end]
    assert "# not a heading" in doc.text[child.start : child.end]


def test_markdown_title_falls_back_to_heading_then_filename() -> None:
    assert MarkdownLoader().load(Path("a.md"), b"# Heading One\n\ntext").title == "Heading One"
    assert MarkdownLoader().load(Path("plain-name.md"), b"no heading here").title == "plain-name"


def test_binary_file_named_md_is_refused() -> None:
    with pytest.raises(IngestError, match="binary"):
        MarkdownLoader().load(Path("x.md"), b"\x89PNG\r\n\x00\x00\x00IHDR")


def test_non_utf8_text_fails_clearly() -> None:
    with pytest.raises(IngestError, match="UTF-8"):
        TextLoader().load(Path("x.txt"), "café".encode("latin-1"))


def test_invisible_characters_are_removed_and_counted() -> None:
    text, removed = sanitize("a\u202eb\u200bc\U000e0041d")
    assert (text, removed) == ("abcd", 3)


def test_registry_by_suffix() -> None:
    assert isinstance(loader_for(Path("X.MD")), MarkdownLoader)
    assert isinstance(loader_for(Path("notes.txt")), TextLoader)
    assert loader_for(Path("image.png")) is None


DJANGO_STYLE_TXT = """\
======================
How to use sessions
======================

.. module:: django.contrib.sessions
   :synopsis: Provides session management for Django projects.

Sessions are implemented via a piece of :doc:`middleware </ref/middleware>`.

.. setting:: SESSION_COOKIE_AGE

``SESSION_COOKIE_AGE``
----------------------

Default: ``1209600`` (2 weeks, in seconds)

The age of session cookies, in seconds. See :setting:`SESSION_EXPIRE_AT_BROWSER_CLOSE`.

.. versionadded:: 5.1
"""


def test_restructuredtext_saved_as_txt_is_read_as_rst(tmp_path: Path) -> None:
    # Django's documentation sources are rst in `.txt` files: read as plain text, every role,
    # directive and heading underline reached the answers, and the sections were lost.
    path = tmp_path / "sessions.txt"
    path.write_text(DJANGO_STYLE_TXT, encoding="utf-8")
    doc = loader_for(path).load(path, path.read_bytes())
    assert doc.title == "How to use sessions"
    assert [s.heading for s in doc.sections][-1] == "How to use sessions > `SESSION_COOKIE_AGE`"
    assert "Default: `1209600` (2 weeks, in seconds)" in doc.text
    assert "See `SESSION_EXPIRE_AT_BROWSER_CLOSE`." in doc.text
    for markup in (":setting:", ":doc:", ".. ", "``", "-----", "===="):
        assert markup not in doc.text


def test_plain_text_with_underlines_or_stray_colons_stays_plain(tmp_path: Path) -> None:
    notes = ("Meeting notes\n=============\n\nTime: 10:00 .. see the list below\n\n"
             "Actions\n-------\n\n* ask about :timeout: values\n* run `make` .. done\n")
    one_directive = "Readme\n======\n\n.. note:: only one rst mark here\n\nPlain words.\n"
    for name, text in (("notes.txt", notes), ("readme.txt", one_directive)):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        doc = loader_for(path).load(path, path.read_bytes())
        assert doc.text == text
        assert doc.title == path.stem
        assert len(doc.sections) == 1


def test_telling_rst_from_plain_text_is_linear_on_hostile_input() -> None:
    hostile = [":a" * 200_000, ".:a" * 150_000, ".. _" + "a" * 400_000, ".. " + "a." * 200_000,
               "T\n" + "=" * 400_000 + "\n", ":a:`" * 100_000, "x\n-\n" * 100_000]
    for text in hostile:
        started = time.process_time()  # this process's CPU time: other work cannot make it fail
        looks_like_rst(text)
        assert time.process_time() - started < 2, text[:20]
