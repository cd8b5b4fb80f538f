"""What the HTML reader asks of an element wherever it stands: its classes, a table's own rows,
the heading levels."""

from __future__ import annotations

from typing import Any

HEADINGS = {f"h{level}": level for level in range(1, 7)}


def class_names(tag: Any) -> list[str]:
    """The classes an element is given, as a list however the parser stored them."""
    value = tag.get("class") or []
    return [str(name) for name in value] if isinstance(value, list) else str(value).split()


def own_rows(table: Any) -> list[Any]:
    """The rows of `table` itself, not of the tables nested in its cells."""
    return [row for row in table.find_all("tr") if row.find_parent("table") is table]
