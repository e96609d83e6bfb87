"""A public page's link preview: what a messaging app shows when its address is shared.

Clubs share results in their messaging groups (WhatsApp, Telegram, Signal). A page
that names its result in Open Graph tags (``og:title``, ``og:description``, ``og:image``
and the rest, written by ``_preview.html`` in base.html) is shown there as a card with
a picture, instead of a bare link. Each page's view builds its :class:`Preview` with
its app's builder (``previews.py`` beside the app's views: the words of a game, a
tournament's standings, a sitting, a player, a season); what every page shares is
here:

- the picture's address carries the page's kept version (club.web.pages: the page's own
  token and its club's) as ``?v=``, and the page's language as ``?lang=``: a messaging
  app that keeps pictures by address fetches a new one once the result changes, and the
  picture speaks the page's language whoever fetches it;
- :func:`picture` makes the view that answers that address: the card the app's builder
  describes, drawn by club.web.cards, kept in the ``pages`` cache under the same version
  (a result that changed makes a new key: nothing is deleted, nothing is stale). Asked
  for by its current ``v`` it may be kept for a year by anyone (``immutable``); under
  any other ``v``, or none, it is the current picture, asked again each time (ETag).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import caches
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import npgettext
from django.views.decorators.http import require_safe

from club.web.cards import HEIGHT, WIDTH, Card, draw
from club.web.fonts import cut_points, shaping
from club.web.net import public_url
from club.web.pages import key_lock, served_from_cache
from club.web.release import current

ALIAS = "pages"  # the kept pages' cache: a picture is kept beside its page
TIMEOUT = 6 * 3600  # as a kept page: a version no longer asked for ages out
FOR_A_YEAR = "public, max-age=31536000, immutable"
DESCRIPTION_LENGTH = 200  # what the apps show of a description, and more
# Scripts a picture cannot be drawn in without Raqm (club.web.fonts): drawn in English.
SHAPED_LANGUAGES = {"ml", "mr", "th"}

VersionOf = Callable[..., tuple[str, Callable[[], object]] | None]


@dataclass(frozen=True)
class Preview:
    """What ``_preview.html`` writes in a page's head, and the Share button shares."""

    title: str
    description: str
    url: str  # the page's own address, absolute
    image: str  # the picture's, absolute, with its version and language
    image_alt: str
    site_name: str
    width: int = WIDTH
    height: int = HEIGHT
    type: str = "website"


def page_version(request: HttpRequest, version_of: VersionOf, **kwargs) -> str | None:
    """The page's kept version, ``own|rest``: as club.web.pages read it for this request
    (``request.page_version``), else read now; None for a page that does not exist.

    A signed-in reader's page is nobody else's, and no messaging app ever reads it (an
    app fetches a shared address with no session): its picture is named without a
    version ("") rather than read again for a head no app sees."""
    kept = getattr(request, "page_version", None)
    if kept is not None:
        return kept
    if not served_from_cache(request):
        return ""
    found = version_of(request, **kwargs)
    if found is None:
        return None
    own, rest = found
    return f"{own}|{rest()}"


def tag(version: str) -> str:
    """The picture's ``v``: the page's version and this release's (a release may draw the
    same result another way), short."""
    return hashlib.sha256(f"{current()}|{version}".encode()).hexdigest()[:16]


def drawn_in(language: str) -> str:
    """The language a picture is drawn in: the page's, unless its script needs shaping
    this server cannot do (no Raqm), when it is English."""
    if language in SHAPED_LANGUAGES and not shaping():
        return "en"
    return language


def _short(text: str, most: int = DESCRIPTION_LENGTH) -> str:
    """``text`` cut short at a word's end (a cluster's, in a script with no spaces)."""
    if len(text) <= most:
        return text
    cut = text[: most - 1]
    if " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    else:
        cut = cut[: max([0, *(at for at in cut_points(text) if at < most)])]
    return cut.rstrip(" ,;:·") + "…"


def place_of(row: dict) -> str:
    """A place as the standings and tables write it: "2=" when shared."""
    return f"{row['place']}=" if row["shared"] else str(row["place"])


def ranked_line(place: str, name: str, points: str) -> str:
    """One line of a ranking in a description: "1 Anu & Biju 9 pts"."""
    return _("%(place)s %(name)s %(points)s pts") % {"place": place, "name": name, "points": points}


def points_unit(points: str) -> str:
    """The word after a count of points on a card ("9 points", "1 point"), as a game's
    scoreboard writes it."""
    return npgettext("after a team's count", "point", "points", 1 if points == "1" else 2)


def site_name(request: HttpRequest) -> str:
    """The club's name on its pages; the site's own pages (the federation's circuits)
    are no club's."""
    club = getattr(request, "club", None)
    return club.name if club is not None else _("56 clubs")


def link_preview(
    request: HttpRequest,
    version_of: VersionOf,
    *,
    pk: int,
    title: str,
    said: Callable[[], str],
    image: str,
) -> Preview | None:
    """The preview of the page of object ``pk`` (None if the page does not exist):
    ``version_of`` is the page's kept version (:func:`page_version`), ``said()`` its
    result in a line, ``image`` the path of its picture's view (club-scoped, as
    ``reverse`` makes it)."""
    version = page_version(request, version_of, pk=pk)
    if version is None:
        return None
    description = said()
    named = {"v": tag(version)} if version else {}
    query = urlencode({**named, "lang": translation.get_language()})
    return Preview(
        title=title,
        description=_short(description),
        url=public_url(request, request.path),
        image=public_url(request, f"{image}?{query}"),
        image_alt=_short(f"{title}: {description}", 400),
        site_name=site_name(request),
    )


def _asked_language(request: HttpRequest) -> str | None:
    """The language the picture's address names, if it is one of the site's."""
    asked = request.GET.get("lang", "")
    return asked if asked in dict(settings.LANGUAGES) else None


def _language(request: HttpRequest) -> str:
    """The picture's language: its address's ``lang`` (the page's), else the reader's."""
    return drawn_in(_asked_language(request) or translation.get_language())


def _key(request: HttpRequest, version: str, language: str) -> str:
    """The picture's key: its view and the objects it shows (never the address as typed:
    ``/games/05/`` is ``/games/5/``, and may not make a second picture), its club, version
    and language."""
    match = request.resolver_match
    view = match.view_name if match is not None else request.path
    shown = sorted((name, str(value)) for name, value in (match.kwargs if match else {}).items())
    club = getattr(request, "club", None)
    parts = ("picture", view, repr(shown), str(club.pk if club else ""), version, language)
    return "picture|" + hashlib.sha256("\x1f".join((*parts, current())).encode()).hexdigest()


def _headers(request: HttpRequest, response: HttpResponse, etag: str, fresh: bool) -> None:
    response["ETag"] = etag
    # Asked for by its own version, the picture never changes; else it is the current one.
    response["Cache-Control"] = FOR_A_YEAR if fresh else "public, no-cache"
    if _asked_language(request) is None:  # the reader's language chose it
        patch_vary_headers(response, ("Accept-Language", "Cookie"))


def picture(version_of: VersionOf, card_of: Callable[..., Card]):
    """The view of a page's picture: ``version_of`` is the page's (club.web.pages: None
    for an object that is not the club's, which is then not found), ``card_of(request,
    **kwargs)`` describes the card in the active language (Http404 for no such page)."""

    @require_safe
    def view(request: HttpRequest, **kwargs) -> HttpResponse:
        found = version_of(request, **kwargs)
        if found is None:
            raise Http404
        own, rest = found
        version = f"{own}|{rest()}"
        language = _language(request)
        current_tag = tag(version)
        etag = f'"{current_tag}-{language}"'
        fresh = request.GET.get("v") == current_tag
        if etag in request.headers.get("If-None-Match", ""):
            response: HttpResponse = HttpResponseNotModified()
            _headers(request, response, etag, fresh)
            return response
        png = _kept_or_drawn(request, version, language, lambda: card_of(request, **kwargs))
        response = HttpResponse(png, content_type="image/png")
        _headers(request, response, etag, fresh)
        return response

    return view


def _kept_or_drawn(request: HttpRequest, version: str, language: str, card) -> bytes:
    """The picture kept under this version, or drawn now (and kept)."""
    cache = caches[ALIAS]
    key = _key(request, version, language)
    try:
        kept = cache.get(key)
    except Exception:  # the shared cache is down: draw it, as if nothing were kept
        kept = None
    if kept is not None:
        return kept
    with key_lock(key):  # readers of a new picture at once: one draws, the others find it
        try:
            kept = cache.get(key)
        except Exception:
            kept = None
        if kept is not None:
            return kept
        with translation.override(language):
            png = draw(card())
        try:
            cache.set(key, png, TIMEOUT)
        except Exception:  # the shared cache is down: the next reader draws it again
            pass
    return png
