"""What every page's template knows of its club (settings: TEMPLATES context processors)."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from club.clubs import known
from club.web.auth import may_write


def club(request: HttpRequest) -> dict:
    """``club``: the page's club (None on the site's own pages of a site of several);
    ``several_clubs``: whether the site holds more than one (pages then name the club);
    ``club_organiser``: whether the reader may write in this club (asked only if shown)."""
    return {
        "club": getattr(request, "club", None),
        "several_clubs": known.clubs().several,
        "club_organiser": SimpleLazyObject(lambda: may_write(request)),
    }
