"""The one-time key every form that writes carries (club.games.idempotency keeps them)."""

from __future__ import annotations

import uuid

from django.http import HttpRequest
from django.utils.html import format_html

FIELD = "idempotency_key"


def new_key_input() -> str:
    """A hidden input with a fresh random key, one per rendered form."""
    return format_html('<input type="hidden" name="{}" value="{}">', FIELD, uuid.uuid4())


def key_of(request: HttpRequest) -> uuid.UUID | None:
    """The post's one-time key, or None when it has none (or not a well-formed one)."""
    if request.method != "POST":
        return None
    try:
        raw = request.POST.get(FIELD)
    except Exception:  # an unreadable body is the view's business, not ours
        return None
    if not raw or len(raw) > 64:
        return None
    try:
        return uuid.UUID(str(raw))
    except ValueError:
        return None
