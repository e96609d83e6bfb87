"""``{% qr_svg url %}``: a QR code as inline SVG markup.

The SVG is drawn with presentation attributes (``stroke``), never a ``style``
attribute, so the strict Content Security Policy (``style-src 'self'``) lets
it show; its size comes from the page's CSS through the ``qr`` class.
"""

from __future__ import annotations

import segno
from django import template
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


@register.simple_tag
def qr_svg(data: str, title: str = "") -> SafeString:
    # Error correction M survives a crease or a smudge on a printed sheet.
    code = segno.make(str(data), error="m", micro=False)
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
    return mark_safe(markup)  # noqa: S308
