"""Every file the package reads at run time ships in its wheel, not only in a source checkout.

An editable install reads data files straight from `src/`, so a file missing from package-data
works in development and is absent for a user who installs the wheel: the lead model was once
shipped that way, and answers from a wheel chose their lead without it.
"""

from __future__ import annotations

import tomllib
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "citeline"


def test_every_data_file_of_the_package_is_in_package_data() -> None:
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["citeline"]
    data = [path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*")
            if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts]
    assert "retrieval/lead.json" in data  # the check sees the data files it is about
    missing = [name for name in data if not any(fnmatch(name, pattern) for pattern in patterns)]
    assert missing == [], f"not in [tool.setuptools.package-data] of pyproject.toml: {missing}"
