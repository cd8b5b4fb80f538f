"""The fitting script's choice of sets."""

from __future__ import annotations

import pytest

from citeline.evaluation.fit import chosen_sets


def test_every_set_found_is_fitted_on_unless_some_are_named() -> None:
    assert chosen_sets(["httpx", "uv", "git"], []) == ["httpx", "uv", "git"]
    assert chosen_sets(["httpx", "uv", "git"], ["uv", "httpx"]) == ["httpx", "uv"]


def test_a_set_named_but_not_found_is_an_error_naming_what_was_found() -> None:
    with pytest.raises(SystemExit, match=r"no set named gti; found: git, httpx"):
        chosen_sets(["httpx", "git"], ["git", "gti"])
