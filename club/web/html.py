"""Rows of HTML written in Python, for the few lists a template would make slow.

A page's long lists (the deals of a game, a sitting's games, the standings, a
leaderboard's rows) cost more through the template engine than the rest of
their page together: a variable lookup, a localisation and an ``if`` per cell.
Their template tags write the same markup here instead, in one style:

- constant markup in an f-string, and every value that comes from the club
  (names, labels, translated words, URLs) through :func:`text`, which escapes
  it exactly as the template's autoescape would (``&``, ``<``, ``>``, ``"``
  and ``'``) and leaves markup already marked safe as it is;
- whole numbers the code computed may go in bare;
- :func:`safe_join` joins the lines into the one safe string the tag returns.

Where a list costs under about 2 ms through its template, it stays a template
(docs/developers/where-things-are.md names the tags and their measured saving).
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from django.utils.safestring import SafeData, SafeString, mark_safe


def text(value: object) -> str:
    """``value`` escaped as a template's autoescape would, without its safe-string wrapper."""
    if isinstance(value, SafeData):
        return str(value)
    return escape(str(value))


def safe_join(lines: Iterable[str], separator: str = "") -> SafeString:
    """The lines, each written with :func:`text` for its values, as one safe string."""
    return mark_safe(separator.join(lines))  # noqa: S308 (every value went through text())
