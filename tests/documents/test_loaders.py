from pathlib import Path

import pytest

from citeline.documents.loaders import TextLoader, sanitize
from citeline.documents.markdown_loader import MarkdownLoader
from citeline.documents.registry import loader_for
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
