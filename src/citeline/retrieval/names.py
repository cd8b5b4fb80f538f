"""The names reference documentation gives the things it describes, and the names a question writes.

A reference titles an entry by the name of what it describes ("`cache-dir`", "[run] branch",
"`-e`/`--extend-css`: extend rustdoc's CSS"); a question asking about that thing writes the name
("What does the --test flag do?"). Matching the two finds the entry that is about the very thing
asked, however many other entries share more of the question's words.
"""

from __future__ import annotations

import re

from citeline.text import fold

# A section titled by the name of what it describes: "[run] branch" (coverage.py's settings), "`cache-dir`",
# "follow_imports", "gc.autoPackLimit", or by the name (or its short and long forms) and what it does
# ("`-e`/`--extend-css`: extend rustdoc's CSS"). A title in words ("Automatic retries") names no such thing.
_NAME_TITLE = re.compile(r"^\s*(?:(\[[\w.:-]+\]\s+`?[\w.-]+`?)|(`[^`\s]+`(?:/`[^`\s]+`)*)(?:\s*(?::|\s[-–—])\s+\S.*)?"
                         r"|([A-Za-z_][\w-]*(?:[_.][\w-]+)+|[a-z]+[A-Z]\w*|--?[a-z][\w-]*))\s*$")


# The name a signature declares: the identifier called ("JSON_EXPORT int json_object_put (struct …",
# "def addCallback(self, …"), else the one given type parameters or a type ("pub fn parse<T: Parse>",
# "toUpper :: Char -> Char").
_CALLED = re.compile(r"([A-Za-z_][\w.$]*[!?]?)\s*\(")
_TYPED = re.compile(r"([A-Za-z_][\w$]*)\s*(?:<|::\s)")


def declared_name(signature: str) -> str | None:
    """The name an API entry's signature declares (`toUpper` of "toUpper :: Char -> Char"), or None
    when the label is no signature (a name alone, words)."""
    if not any(mark in signature for mark in ("(", "::", "<")):
        return None
    match = _CALLED.search(signature) or _TYPED.search(signature)
    return match.group(1) if match else None


def titled_name(title: str) -> str | None:
    """The name a section title gives its section, when it is a name and not words."""
    match = _NAME_TITLE.match(title)
    return next((group for group in match.groups() if group), None) if match else None


# A name as a question writes it: an option ("--test"), a dotted, slashed or joined identifier
# ("build.jobs", "max_age", "disallowed-methods"), or anything in backticks. A hyphenated word
# ("built-in") reads as one too: it only matters where an entry is titled by it.
_ASKED_NAME = re.compile(r"`([^`\s]+)`|(?<![\w-])(--?[a-zA-Z][\w-]*|[A-Za-z_][\w-]+(?:[._/][\w-]{2,})+"
                         r"|[a-z]+_[\w]+|[a-z][a-z0-9]*(?:-[a-z0-9]+)+)")


def asked_names(question: str) -> frozenset[str]:
    """The names a question writes, folded ("What does the --test flag do?": "--test")."""
    return frozenset(fold(a or b).rstrip(".") for a, b in _ASKED_NAME.findall(question))


def name_forms(name: str | None) -> frozenset[str]:
    """The names a described thing goes by, folded: "`-e`/`--extend-css`" is "-e" and "--extend-css",
    "[run] branch" is "branch"."""
    if not name:
        return frozenset()
    name = re.sub(r"^\[[\w.:-]+\]\s+", "", name)
    return frozenset(fold(part.strip("`")) for part in name.split("/") if part.strip("`"))


def titled_names(section: str | None) -> frozenset[str]:
    """The names a passage's own section is titled by (see `name_forms`); a title in words has none."""
    return name_forms(titled_name((section or "").rsplit(" > ", 1)[-1]))
