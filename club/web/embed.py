"""Pages a club's own website may show in an <iframe>: a tournament's standings
and a game's live card, each refreshing itself like the public pages.

Every other page keeps ``frame-ancestors 'none'`` and ``X-Frame-Options: DENY``:
no site may frame it. An embeddable page lets the origins of
``CLUB_EMBED_ORIGINS`` (``DJANGO_EMBED_ORIGINS``) frame it, and nobody else; with
none listed it is framed by nobody either, and is a plain page of its own. The
rest of its Content Security Policy is the site's.
"""

from __future__ import annotations

import functools

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.csp import CSP


def frame_policy() -> dict:
    """The site's Content Security Policy, with the listed origins as frame ancestors."""
    origins = list(getattr(settings, "CLUB_EMBED_ORIGINS", []))
    return {**settings.SECURE_CSP, "frame-ancestors": origins or [CSP.NONE]}


def embeddable(view):
    """Let the club's listed websites frame the view's answers, kept answers included."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        response = view(request, *args, **kwargs)
        response._csp_config = frame_policy()
        if getattr(settings, "CLUB_EMBED_ORIGINS", []):
            response.xframe_options_exempt = True  # frame-ancestors says who may
        return response

    return wrapped
