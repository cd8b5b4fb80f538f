"""Whether an HTML element is hidden from a reader, judged from its attributes alone.

Text a person cannot see is a classic way to plant instructions (or false facts) for a program that
reads the page. Both the HTML reader and the Markdown reader (for the HTML inside Markdown) drop
such elements and report what they held; neither can compute styles from stylesheets, so only what
the element itself says counts: `hidden`, `aria-hidden="true"`, or an inline style that hides it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

# Styles that hide an element's text while it stays in the page: not displayed, invisible, zero-sized
# or transparent text, pushed far off the screen, or collapsed to no height with its overflow cut.
_HIDDEN_STYLE = re.compile(
    r"display\s*:\s*none|visibility\s*:\s*hidden"
    r"|(?:font-size|opacity)\s*:\s*(?:0+(?:\.0*)?|\.0+)(?:px|em|rem|pt|%)?\s*(?:;|!|$)"
    r"|(?:left|top|right|text-indent)\s*:\s*-\d{4,}(?:\.\d+)?(?:px|em|rem|pt)"
    r"|(?:^|;)\s*(?:max-)?height\s*:\s*0(?:px)?\s*(?:;|!|$)(?=.*overflow\s*:\s*hidden)",
    re.IGNORECASE)
# `color` and `background` set alike: text the colour of the page it is on ("color:#fff;background:#fff").
_COLOUR = re.compile(r"(?:^|;)\s*(background(?:-color)?|color)\s*:\s*([^;!]+)", re.IGNORECASE)
# One attribute of a tag as written: `hidden`, `style="…"`, `aria-hidden='true'`, `class=x`.
_ATTRIBUTE = re.compile(r"""([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?""")
_TAG = re.compile(r"<([A-Za-z][\w-]*)((?:\s[^>]*)?)>", re.DOTALL)
# Elements with no closing tag: `<img hidden>` hides the image, not the text after it.
_VOID = frozenset(("area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"))


def hidden_style(style: str) -> bool:
    """Whether an inline style hides the element's text from a reader."""
    if _HIDDEN_STYLE.search(style):
        return True
    colours: dict[str, str] = {}
    for prop, value in _COLOUR.findall(style):
        colours["color" if prop.lower() == "color" else "background"] = "".join(value.split()).lower()
    return "color" in colours and colours["color"] == colours.get("background")


def hidden_element(attrs: Mapping[str, object]) -> bool:
    """Whether an element with these attributes is hidden from a reader. A tab's panel that is not
    the one shown (`role="tabpanel" hidden`, as Docusaurus and Starlight write every other tab) is
    not: a reader opens it with a click."""
    if "hidden" in attrs and str(attrs.get("role", "")).lower() == "tabpanel":
        return hidden_style(str(attrs.get("style", "")))
    return ("hidden" in attrs or str(attrs.get("aria-hidden", "")).lower() == "true"
            or hidden_style(str(attrs.get("style", ""))))


def _opening(tag: str) -> re.Match[str] | None:
    """`tag` parsed, when it is one opening tag as written that a later closing tag ends (not `</p>`,
    `<br>` or `<span/>`)."""
    match = _TAG.fullmatch(tag.strip())
    if match is None or match.group(1).lower() in _VOID or match.group(2).rstrip().endswith("/"):
        return None
    return match


def opens_element(tag: str) -> bool:
    """Whether `tag` opens an element a later closing tag ends: how deep inline HTML nests."""
    return _opening(tag) is not None


def hidden_opening_tag(tag: str) -> bool:
    """Whether `tag`, one opening tag as written (`<span style="display:none">`), opens a hidden element."""
    match = _opening(tag)
    if match is None:
        return False
    attrs = {m.group(1).lower(): next((v for v in m.group(2, 3, 4) if v is not None), "")
             for m in _ATTRIBUTE.finditer(match.group(2))}
    return hidden_element(attrs)
