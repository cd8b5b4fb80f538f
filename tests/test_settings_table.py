"""The README's settings table is generated from the settings tree and must match it."""

import subprocess
import sys
from pathlib import Path

import pytest

from citeline.config import setting_paths
from citeline.settings_table import BEGIN, END, REGENERATE, main, replace_table, settings_table_markdown

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_settings_table_is_generated_from_the_tree() -> None:
    text = README.read_text(encoding="utf-8")
    assert replace_table(text) == text, (
        f"README.md's settings table differs from the settings tree in src/citeline/config.py; "
        f"regenerate it with `{REGENERATE}`"
    )


def test_table_has_every_setting_with_both_names_and_its_default() -> None:
    table = settings_table_markdown()
    for path in setting_paths():
        row = next((line for line in table.splitlines() if line.startswith(f"| `{path.flat_env}`")), None)
        assert row is not None, path.dotted
        assert f"| `{path.dotted}` |" in row
    assert "| `CITELINE_CHUNK_TOKENS` | `index.chunk_tokens` | `200` | Target chunk size in word tokens. |" in table
    assert "| `CITELINE_API_AUTH` | `service.auth` | `true` |" in table
    assert "`CITELINE_OPENAI_API_KEY` (or `OPENAI_API_KEY`) | `answerer.openai_api_key` | unset |" in table
    assert "| `CITELINE_MAX_FILE_BYTES` | `index.max_file_bytes` | `52428800` (50 MiB) |" in table
    assert [line for line in table.splitlines() if line.startswith("**`[")] == [
        "**`[index]`** Where the index lives and how files are loaded, chunked and embedded into it.",
        "**`[retrieval]`** How passages are searched and ranked.",
        "**`[agent]`** Bounds, token budgets and the validation gate of a run.",
        "**`[answerer]`** Which answerer writes answers, its provider, and when to decline.",
        "**`[runs]`** The runs log.",
        "**`[service]`** Limits and switches of the HTTP service (`citeline serve`).",
    ]


def test_regenerating_rewrites_only_between_the_markers(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"# Title\n\nbefore\n\n{BEGIN}\n| stale | table |\n{END}\n\nafter\n", encoding="utf-8")
    assert main([str(readme), "--check"]) == 1
    done = subprocess.run([sys.executable, "-m", "citeline.settings_table", str(readme)],
                          capture_output=True, text=True, check=True)
    assert "rewritten" in done.stdout
    text = readme.read_text(encoding="utf-8")
    assert text.startswith("# Title\n\nbefore\n\n") and text.endswith(f"{END}\n\nafter\n")
    assert "stale" not in text and settings_table_markdown() in text
    assert main([str(readme), "--check"]) == 0


def test_missing_markers_are_an_error_that_says_the_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# no table here\n", encoding="utf-8")
    assert main([str(readme)]) == 2
    assert "markers are missing" in capsys.readouterr().err
    assert readme.read_text(encoding="utf-8") == "# no table here\n"
