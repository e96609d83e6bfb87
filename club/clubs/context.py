"""What every page's template knows of its club (settings: TEMPLATES context processors)."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext

from club.clubs import known
from club.clubs.models import language_codes
from club.web.auth import may_write


def club(request: HttpRequest) -> dict:
    """``club``: the page's club (None on the site's own pages of a site of several);
    ``several_clubs``: whether the site holds more than one (pages then name the club);
    ``club_organiser``: whether the reader may write in this club (asked only if shown);
    ``club_languages``: the languages the footer offers, the club's (the site's on its own
    pages)."""
    if not hasattr(request, "club"):  # answered before its club was read (a refusal): no query
        return {
            "club": None,
            "several_clubs": False,
            "club_languages": language_codes(),
            "club_organiser": False,
            "club_title": gettext("56 Club"),
        }
    club = request.club  # set by ClubAddressMiddleware
    several = known.clubs().several
    return {
        "club": club,
        "club_languages": club.languages if club is not None else language_codes(),
        "several_clubs": several,
        "club_organiser": SimpleLazyObject(lambda: may_write(request)),
        # What a tab's title ends with: the club's name on a site of several.
        "club_title": club.name if club is not None and several else gettext("56 Club"),
    }
