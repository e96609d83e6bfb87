"""``{% qr_svg url %}``: a QR code as inline SVG markup.

The SVG is drawn with presentation attributes (``stroke``), never a ``style``
attribute, so the strict Content Security Policy (``style-src 'self'``) lets
it show; its size comes from the page's CSS through the ``qr`` class.

A code is a pure function of its text and title, and drawing one takes about
a millisecond: each process keeps the last few hundred drawn, so a sitting's
score sheets (a code per table) are drawn once per link, not once per render.
"""

from __future__ import annotations

from functools import lru_cache

import segno
from django import template
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


@register.simple_tag
def qr_svg(data: str, title: str = "") -> SafeString:
    return mark_safe(_drawn(str(data), str(title or "")))  # noqa: S308


@lru_cache(maxsize=512)  # a few KB each: at most a couple of MB a process
def _drawn(data: str, title: str) -> str:
    # Error correction M survives a crease or a smudge on a printed sheet.
    code = segno.make(data, error="m", micro=False)
    markup = code.svg_inline(
        scale=1,
        border=2,
        omitsize=True,  # a viewBox only: CSS sets the size
        svgclass="qr",
        lineclass="qr-line",
        title=title or None,
        dark="#000",
        light="#fff",
    )
    # segno escapes the title; the rest is its own markup.
    return markup
