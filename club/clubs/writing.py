"""Whose writes a request makes: its club's, so that a deal moves only its club's pages.

The kept pages of each club are remembered beside its own write counter
(club.web.writes): a request at a club's address writes for that club. The site's own
pages write for no club, even at a club's address (the admin reaches every club's
rows), and so does any write made outside a request (a restore, a command without
``--club``, work left until after an answer): they move the counter every club's pages
follow.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from club.clubs.addresses import SITE_PARTS
from club.web.writes import writes_of


class ClubWritesMiddleware:
    """After ClubAddressMiddleware, which finds ``request.club``."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        club = getattr(request, "club", None)
        first = request.path_info.lstrip("/").split("/", 1)[0]
        if club is not None and first in SITE_PARTS and first:
            club = None  # the site's page (the admin), served at a club's address too
        with writes_of(club.pk if club is not None else None):
            return self.get_response(request)
