"""The language switch at the foot of every page: a plain link-like GET, no form token.

Django's ``set_language`` takes a POST with a CSRF token, which would put a
token in every page and keep pages from being cached for everyone
(club.web.pages). Choosing the language one reads in changes nothing of the
club's, only a cookie of the reader's, so a GET does it: the chosen language
is checked against the site's, and ``next`` against the site's own host.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe


@never_cache
@require_safe
def choose_language(request: HttpRequest) -> HttpResponse:
    """Set the language cookie and go back to the page the reader was on."""
    target = request.GET.get("next", "/")
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = "/"
    response = HttpResponseRedirect(target)
    code = request.GET.get("language", "")
    if code in dict(settings.LANGUAGES):
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            code,
            max_age=settings.LANGUAGE_COOKIE_AGE,
            path=settings.LANGUAGE_COOKIE_PATH,
            domain=settings.LANGUAGE_COOKIE_DOMAIN,
            secure=settings.LANGUAGE_COOKIE_SECURE,
            httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
            samesite=settings.LANGUAGE_COOKIE_SAMESITE,
        )
    return response
