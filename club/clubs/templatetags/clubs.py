"""``{% site_url name %}``: the address of a page of the site itself (its home, the list
of clubs), which ``{% url %}`` on a club's page would make inside the club."""

from django import template
from django.conf import settings
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from club.clubs.addresses import reverse_in, site_reverse

register = template.Library()

# The offline words of each language, as written once by this process.
_offline_words: dict[str | None, SafeString] = {}


@register.simple_tag
def site_url(viewname: str, *args) -> str:
    return site_reverse(viewname, args=args)


@register.simple_tag
def club_url(club, viewname: str, *args) -> str:
    """The address of ``viewname`` on ``club``'s pages (a link from another club's page or
    from the site's)."""
    return reverse_in(club, viewname, args=args)


@register.simple_tag
def offline_words() -> SafeString:
    """The words the page's script shows of the deals a phone keeps with no network
    (``_offline_words.html``), in the page's language. They are the same on every page of
    a language, and their two dozen translations cost a page's first render about a
    millisecond: so they are written once a process for each language (each time while
    DEBUG is on, so an edit of the template shows at once)."""
    language = get_language()
    words = None if settings.DEBUG else _offline_words.get(language)
    if words is None:
        words = _offline_words[language] = mark_safe(render_to_string("_offline_words.html"))
    return words
