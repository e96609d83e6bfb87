"""Where a club's pages are: ``/clubs/<slug>/`` on a site of several clubs, and the short
addresses of before on a site of one (the venue's laptop, an install from before clubs).

:class:`ClubAddressMiddleware` finds the club of every request from its address and
serves the club's pages with the very views and address names a one-club site has: the
``/clubs/<slug>`` part is moved from the path into the script prefix, so the views see the
short address and every link they make (``{% url %}``, ``reverse``) carries the club's
part. On a site of several clubs a short address of a club's page answers with a
redirect to the home club's page (the club an install had before it held more), and the
site's own pages (its home, the log-in, the admin, the phones' app files) are nobody's.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from contextvars import ContextVar

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.http.response import HttpResponseRedirectBase
from django.urls import get_script_prefix, reverse, set_script_prefix
from django.utils import timezone

from club.clubs import known
from club.clubs.models import Club

# The site's own addresses (first part of the path): served for no club on a site of
# several, and never taken for a club's page.
SITE_PARTS = frozenset(
    {
        "",
        "health",
        "sw.js",
        "manifest.webmanifest",
        "offline",
        "language",
        "admin",
        "accounts",
        "ranking",
        "circuits",
    }
)
# Only a name a club could have is looked up (club.clubs.models.SLUG_PATTERN).
_CLUB_PATH = re.compile(r"\A/clubs/(?P<slug>[a-z0-9-]{1,40})(?P<rest>/.*)?\Z", re.DOTALL)


class SentAgainRedirect(HttpResponseRedirectBase):
    """308: the same request, form and all, to the new address (encoded as every redirect)."""

    status_code = 308


# The script prefix of the site itself (where it is served, without a club's part).
_root: ContextVar[str] = ContextVar("club_site_root", default="/")


def club_of(request: HttpRequest) -> Club:
    """The club whose page this is: the address's, else the home club (code and tests
    that make requests without the middleware mean the home club)."""
    return getattr(request, "club", None) or known.home()


def part_of(club: Club) -> str:
    """The club's part of its addresses: none for the home club of a one-club site."""
    kept = known.clubs()
    if not kept.several and club.pk == kept.home.pk:
        return ""
    return f"clubs/{club.slug}/"


def _static_at_the_root() -> None:
    """Django keeps STATIC_URL with the script prefix of its first reading: it is read at
    the site's root before a club's part is put in the prefix, or a club's page read first
    would send every page's styles and scripts under that club's part, where nothing
    serves them."""
    settings.STATIC_URL  # noqa: B018  # read for its side effect


@contextmanager
def addresses_of(club: Club):
    """Within it, ``reverse`` and ``{% url %}`` make the addresses of ``club``'s pages."""
    previous = get_script_prefix()
    _static_at_the_root()
    set_script_prefix(_root.get() + part_of(club))
    try:
        yield
    finally:
        set_script_prefix(previous)


def site_reverse(viewname: str, *args, **kwargs) -> str:
    """``reverse`` for a page of the site itself (its home, its clubs), from any page."""
    previous = get_script_prefix()
    set_script_prefix(_root.get())
    try:
        return reverse(viewname, *args, **kwargs)
    finally:
        set_script_prefix(previous)


def reverse_in(club: Club, viewname: str, *args, **kwargs) -> str:
    """``reverse`` for a page of ``club``, from any page of any club or of the site.

    Made at the site's root, the club's part then put after the root: ``reverse`` checks
    its result against a pattern that begins with the prefix, and Python keeps only 512
    patterns, so a page that links every club (the site's list of 200 clubs) made one
    pattern per club and address, three a club, at every render."""
    root = _root.get()
    address = site_reverse(viewname, *args, **kwargs)
    return root + part_of(club) + address[len(root) :]


class ClubAddressMiddleware:
    """Sets ``request.club`` (None on the site's own pages of a site of several clubs)
    and serves a club's pages under its part of the address."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        root = get_script_prefix()
        match = _CLUB_PATH.match(request.path_info)
        if match:
            club = known.by_slug(match["slug"])
            if club is None:  # no such club: the address is no page (Django's 404)
                request.club = None  # type: ignore[attr-defined]  # the request's club
                return self.get_response(request)
            if match["rest"] is None:
                return HttpResponsePermanentRedirect(request.path + "/")
            request.path_info = match["rest"]
            return self._serve(request, club, root, root + f"clubs/{club.slug}/")
        kept = known.clubs()
        first = request.path_info.lstrip("/").split("/", 1)[0]
        if not kept.several:
            return self._serve(request, kept.home, root, root)
        if first in SITE_PARTS or first == "clubs":
            request.club = None  # type: ignore[attr-defined]  # the request's club
            return self.get_response(request)
        return self._to_home_club(request, root, kept.home)

    def _serve(self, request: HttpRequest, club: Club, root: str, prefix: str) -> HttpResponse:
        request.club = club  # type: ignore[attr-defined]  # the request's club
        _static_at_the_root()
        token = _root.set(root)
        set_script_prefix(prefix)
        timezone.activate(club.time_zone)
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
            set_script_prefix(root)
            _root.reset(token)

    @staticmethod
    def _to_home_club(request: HttpRequest, root: str, home: Club) -> HttpResponse:
        """A short address of a club's page, on a site that now holds several clubs: the
        page of the club the site had before (GET keeps it for good; a form sent to it
        is sent again, as it was, to the new address)."""
        query = request.META.get("QUERY_STRING", "")
        target = root + f"clubs/{home.slug}" + request.path_info + (f"?{query}" if query else "")
        if request.method in ("GET", "HEAD"):
            return HttpResponsePermanentRedirect(target)
        return SentAgainRedirect(target)
