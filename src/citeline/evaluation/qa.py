"""The QA-set format `citeline eval` reads, and its validation.

One JSON object per line (`docs/eval.md` documents it). A line that lacks a required key, or
spells one differently (`answer` for `answers`), fails with the line number and the fix: a
misspelt key would otherwise score silently as zero and mislead whoever reads the figures.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citeline.errors import ConfigurationError
from citeline.jsonl import read_numbered_objects

REQUIRED = ("question", "answerable")
ANSWERABLE_REQUIRED = ("answers", "sources")
KNOWN = frozenset(
    {*REQUIRED, *ANSWERABLE_REQUIRED, "id", "tags", "note", "key_terms", "checked_absent", "canary",
     "injection_source", "injection_kind", "squad_id", "squad_plausible_answers"}
)


@dataclass(frozen=True)
class QAItem:
    """One question of a QA set, with what a correct answer must contain."""

    id: str
    question: str
    answerable: bool
    answers: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    canary: str | None = None
    distractors: list[str] = field(default_factory=list)


def _near(a: str, b: str) -> bool:
    """Whether two keys are one or two edits apart, or one is the other plus or minus an "s"."""
    if a == b:
        return False
    if a.rstrip("s") == b.rstrip("s"):
        return True
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1] <= 2 and min(len(a), len(b)) >= 5


def _problem(data: dict[str, Any], required: tuple[str, ...]) -> str | None:
    for key in required:
        if key in data:
            continue
        lookalike = next((k for k in data if k not in KNOWN and _near(k, key)), None)
        if lookalike is not None:
            return f"has `{lookalike}` where the format has `{key}`: rename the key to `{key}`"
        return f"lacks the required key `{key}`: add it (see docs/eval.md)"
    return None


def _strings(value: Any, key: str, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigurationError(f"{where}: `{key}` must be a list of strings")
    return list(value)


def load_qa(path: Path) -> list[QAItem]:
    """Read and validate a QA set; the first bad line fails with its number and the fix."""
    items: list[QAItem] = []
    for number, data in read_numbered_objects(path):
        where = f"{path}:{number} ({data.get('id', 'no id')})"
        problem = _problem(data, REQUIRED)
        if problem is None and data.get("answerable") is True:
            problem = _problem(data, ANSWERABLE_REQUIRED)
        if problem is not None:
            raise ConfigurationError(f"{where} {problem}")
        if not isinstance(data["question"], str) or not isinstance(data["answerable"], bool):
            raise ConfigurationError(f"{where}: `question` must be a string and `answerable` true or false")
        answers = _strings(data.get("answers", []), "answers", where)
        if data["answerable"] and not answers:
            raise ConfigurationError(f"{where}: an answerable item needs at least one string in `answers`")
        canary = data.get("canary")
        items.append(QAItem(
            id=str(data.get("id", number)), question=data["question"], answerable=data["answerable"],
            answers=answers, sources=_strings(data.get("sources", []), "sources", where),
            canary=canary if isinstance(canary, str) else None,
            distractors=_strings(data.get("squad_plausible_answers", []), "squad_plausible_answers", where),
        ))
    if not items:
        raise ConfigurationError(f"{path}: has no questions", hint="one JSON object per line; see docs/eval.md")
    return items
