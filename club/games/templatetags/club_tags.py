"""Labels for the stable codes kept in exports and the change history."""

from html import escape as html_escape

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

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


def _text(value) -> str:
    """A value escaped as a template's autoescape would, without its wrappers."""
    return html_escape(str(value))


@register.simple_tag
def deal_as_entered(deal: dict) -> SafeString:
    """A deal of the change history (``services.describe``) as one line of text.

    "Anu bid 32 Spades, Not doubled; piles: Anu & Biju 30, Chitra & Dev 26". Written
    here rather than as a template because the game page shows up to a hundred of
    them (before and after of fifty changes), and a template costs several times
    more. Values are escaped as a template would, the translated sentence is not;
    bids and piles are below 1000, so no locale writes them other than ``str``.
    """
    if deal.get("all_pass"):
        contract = _text(gettext("all passed"))
    else:
        contract = gettext("%(declarer)s bid %(bid)s %(trump)s, %(doubling)s") % {
            "declarer": _text(deal.get("declarer")),
            "bid": _text(deal.get("bid")),
            "trump": _text(trump_label(deal.get("trump"))),
            "doubling": _text(doubling_label(deal.get("doubling"))),
        }
    piles = ", ".join(
        f"{_text(team)} {_text(points)}" for team, points in deal.get("points", {}).items()
    )
    return mark_safe(f"{contract}; {_text(gettext('piles'))}: {piles}")


@register.simple_tag
def idempotency_key() -> str:
    """A hidden one-time key, so a resent form gets the first answer (club.idempotency)."""
    from club.idempotency import new_key_input

    return new_key_input()
