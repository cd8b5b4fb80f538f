"""An element is hidden from a reader by what its own attributes say."""

from __future__ import annotations

import pytest

from citeline.documents.hidden import hidden_element, hidden_opening_tag, hidden_style, opens_element


@pytest.mark.parametrize(("tag", "hidden"), [
    ('<span style="display:none">', True),
    ("<span style='font-size: 0px'>", True),
    ("<div hidden>", True),
    ('<p aria-hidden="true">', True),
    ('<span style="color:#FFF; background-color: #fff">', True),
    ('<span style="color:#333">', False),
    ('<span class="hidden-xs">', False),  # a class name is a stylesheet's business, not the element's
    ('<img style="display:none" />', False),  # self-closing: it opens nothing
    ('<img hidden src="logo.png">', False),  # a void element: it hides the image, not what follows
    ("</span>", False),
    ("<br>", False),
])
def test_an_opening_tag_is_hidden_by_its_own_attributes(tag: str, hidden: bool) -> None:
    assert hidden_opening_tag(tag) is hidden


@pytest.mark.parametrize(("style", "hidden"), [
    ("opacity:0", True), ("opacity: 0.5", False), ("opacity:0.05", False),
    ("font-size:0", True), ("font-size:0.8em", False), ("font-size:10px", False),
    ("position:absolute;left:-9999px", True), ("margin-left:-20px", False),
    ("height:0;overflow:hidden", True), ("height:0", False), ("line-height:0", False),
    ("color: white; background: white", True), ("color:#333;background:#fff", False),
])
def test_an_inline_style_hides_text_only_when_a_reader_cannot_see_it(style: str, hidden: bool) -> None:
    assert hidden_style(style) is hidden


@pytest.mark.parametrize(("tag", "opens"), [
    ("<span>", True), ('<div class="x">', True), ("</span>", False), ("<br>", False), ("<img src=x>", False),
    ("<span/>", False), ("text", False),
])
def test_only_a_tag_that_a_later_closing_tag_ends_opens_an_element(tag: str, opens: bool) -> None:
    assert opens_element(tag) is opens


def test_a_tab_panel_not_shown_until_clicked_is_not_hidden() -> None:
    assert not hidden_element({"role": "tabpanel", "hidden": ""})
    # hidden by its style, or a hidden element of another role, it is hidden
    assert hidden_element({"role": "tabpanel", "hidden": "", "style": "display: none"})
    assert hidden_element({"role": "note", "hidden": ""})
