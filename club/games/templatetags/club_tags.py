"""Labels for the stable codes kept in exports and the change history."""

from django import template

from club.games.models import Doubling, Trump

register = template.Library()


@register.filter
def trump_label(code: str) -> str:
    try:
        return Trump(code).label
    except ValueError:
        return code


@register.filter
def doubling_label(code: str) -> str:
    try:
        return Doubling(code).label
    except ValueError:
        return code


@register.simple_tag
def idempotency_key() -> str:
    """A hidden one-time key, so a resent form gets the first answer (club.idempotency)."""
    from club.idempotency import new_key_input

    return new_key_input()
