"""A page's form as a browser sends it: its hidden fields, the one-time key among them.

Tests that press a button post what the page rendered, so a confirmation is the real
form with its own fresh key (club.games.idempotency), not a dict the test made up.
"""

from __future__ import annotations

import html
import re

FORM = re.compile(r"<form\b([^>]*)>(.*?)</form>", re.S | re.I)
HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')


def form_posting_to(page: str, action: str) -> dict[str, list[str]]:
    """The hidden fields of the page's one form that posts to ``action``."""
    found = [
        body
        for attributes, body in FORM.findall(page)
        if 'method="post"' in attributes and f'action="{action}"' in attributes
    ]
    assert len(found) == 1, f"{len(found)} forms post to {action}"
    data: dict[str, list[str]] = {}
    for name, value in HIDDEN.findall(found[0]):
        data.setdefault(name, []).append(html.unescape(value))
    return data
