"""The QA-set format: good files load, bad lines fail naming the line and the fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeline.errors import ConfigurationError
from citeline.evaluation.qa import load_qa


def _write(path: Path, *items: dict[str, object]) -> Path:
    path.write_text("\n".join(json.dumps(item) for item in items) + "\n", encoding="utf-8")
    return path


GOOD = {"id": "q-1", "question": "What is the default timeout?", "answerable": True,
        "answers": ["5 seconds"], "sources": ["timeouts.md"]}


def test_a_valid_set_loads_with_its_fields(tmp_path: Path) -> None:
    unanswerable = {"id": "q-2", "question": "Does it speak QUIC?", "answerable": False, "answers": [],
                    "sources": [], "canary": "CANARY-0000", "squad_plausible_answers": ["HTTP/2"]}
    items = load_qa(_write(tmp_path / "qa.jsonl", GOOD, unanswerable))
    assert [i.id for i in items] == ["q-1", "q-2"]
    assert items[0].answers == ["5 seconds"] and items[0].sources == ["timeouts.md"]
    assert items[1].canary == "CANARY-0000" and items[1].distractors == ["HTTP/2"]


def test_a_misspelt_key_names_the_line_and_the_right_key(tmp_path: Path) -> None:
    misspelt = {k: v for k, v in GOOD.items() if k != "answers"} | {"answer": ["5 seconds"]}
    path = tmp_path / "qa.jsonl"
    path.write_text(json.dumps(GOOD) + "\n\n" + json.dumps(misspelt) + "\n", encoding="utf-8")
    with pytest.raises(ConfigurationError) as error:
        load_qa(path)
    message = str(error.value)
    assert f"{path}:3" in message  # the file's line, blank lines counted
    assert "`answer`" in message and "rename the key to `answers`" in message


def test_a_missing_required_key_is_an_error_not_a_zero(tmp_path: Path) -> None:
    missing = {k: v for k, v in GOOD.items() if k != "answerable"}
    with pytest.raises(ConfigurationError, match=r"qa\.jsonl:1 .*lacks the required key `answerable`"):
        load_qa(_write(tmp_path / "qa.jsonl", missing))


def test_an_answerable_item_without_answers_is_refused(tmp_path: Path) -> None:
    empty = GOOD | {"answers": []}
    with pytest.raises(ConfigurationError, match="needs at least one string in `answers`"):
        load_qa(_write(tmp_path / "qa.jsonl", empty))


def test_wrong_types_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="`sources` must be a list of strings"):
        load_qa(_write(tmp_path / "qa.jsonl", GOOD | {"sources": "timeouts.md"}))
    with pytest.raises(ConfigurationError, match="`answerable` true or false"):
        load_qa(_write(tmp_path / "qa.jsonl", GOOD | {"answerable": "yes"}))


def test_an_empty_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "qa.jsonl"
    path.write_text("\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="has no questions"):
        load_qa(path)
