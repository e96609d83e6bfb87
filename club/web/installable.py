"""The scorers' installable app: its manifest and its service worker.

A phone that opened a scorer link or a public page once can open it again with
no network: the service worker (``/sw.js``, served from the site's root so that
its scope is the whole site, under the same strict CSP as every page) keeps the
static files of this release and a copy of each page visited that the server
lets it keep (club.web.kept: never a logged-in account's page).
A deal sent while the network is down is kept on the phone with its one-time key
and sent by the page once the network is back (static/js/offline.js says how).

The worker's bytes name this release (club.web.release), so a deploy gives the
browser a new worker, which takes the new static files and drops the old ones.
"""

from __future__ import annotations

import json

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

from club.web.release import current

# What a page needs to be drawn with no network, kept when the worker is installed.
STATIC_FILES = (
    "css/club.css",
    "css/fonts.css",
    "js/club.js",
    "js/entry.js",
    "js/live.js",
    "js/offline.js",
    "js/queue.js",
    "js/rules.js",
    "js/share.js",
    "django_htmx/htmx-2.min.js",
    "django_htmx/django-htmx.js",
    "fonts/noto-sans-latin-400-normal.woff2",
    "fonts/noto-sans-latin-700-normal.woff2",
    "favicon.svg",
    "icons/icon-192.png",
    "icons/icon-512.png",
)
# On the answer to a deal form whose deal was written (recorded, or held for another
# team's confirmation): the phone's queue (offline.js) drops the entry on it, and on
# nothing else. Kept with the answer for a resend of the same one-time key.
DEAL_SENT = "Club-Deal-Sent"
THEME = "#14532d"
BACKGROUND = "#f7f7f2"


def deal_sent(response: HttpResponse, number: int) -> HttpResponse:
    """Mark ``response`` as the answer of a deal form whose deal ``number`` was written."""
    response[DEAL_SENT] = str(number)
    return response


@require_GET
@cache_control(no_cache=True)
def manifest(request: HttpRequest) -> HttpResponse:
    """The web app manifest, in the reader's language."""
    response = JsonResponse(
        {
            "name": _("56 club score keeper"),
            "short_name": _("56 Club"),
            "description": _("Record the deals of a game of 56 at the table, even offline."),
            "lang": get_language(),
            "start_url": "/",
            "scope": "/",
            "display": "standalone",
            "background_color": BACKGROUND,
            "theme_color": THEME,
            "icons": [
                {"src": static("icons/icon-192.png"), "sizes": "192x192", "type": "image/png"},
                {"src": static("icons/icon-512.png"), "sizes": "512x512", "type": "image/png"},
                {
                    "src": static("icons/icon-512.png"),
                    "sizes": "512x512",
                    "type": "image/png",
                    "purpose": "maskable",
                },
            ],
        },
        content_type="application/manifest+json",
        json_dumps_params={"ensure_ascii": False},
    )
    patch_vary_headers(response, ("Cookie", "Accept-Language"))
    return response


@require_GET
@cache_control(no_cache=True)
def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker, from the site's root: its scope is every page."""
    response = render(
        request,
        "sw.js",
        {
            "release": current(),
            "static_json": json.dumps([static(name) for name in STATIC_FILES]),
            "queue_js": json.dumps(static("js/queue.js")),
            "offline_url": reverse("offline"),
        },
        content_type="text/javascript; charset=utf-8",
    )
    response["Service-Worker-Allowed"] = "/"
    return response


@require_GET
def offline(request: HttpRequest) -> HttpResponse:
    """What a page never opened before shows with no network (kept when the worker installs)."""
    return render(request, "offline.html")
