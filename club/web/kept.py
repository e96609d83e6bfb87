"""What a phone may keep of a page: the scorers' app obeys the server's headers.

Clubs hand one phone round the table, and the organiser logs in on it too. The
service worker (club/templates/sw.js) keeps a copy of the pages opened so that
the table can read them with no network; what it keeps is decided here, by the
answer's own headers, never by a list of addresses in the worker:

- ``Cache-Control: private`` or ``no-store``: never kept. Every answer to a
  logged-in account (an organiser's page, the admin, a page that shows scorer
  links) is sent ``private, no-store`` by :class:`KeptPagesMiddleware`, and a
  page that shows another table's scorer link is ``no-store`` whoever reads it.
- ``Club-Scorer-Page``: the link holder's own scorer page. The worker keeps it
  apart from the other pages, so browsing elsewhere never pushes it out, and
  an organiser logging out on the same phone leaves it, with its deals waiting.
- ``Club-Page-Query``: the query parameters that shape the page, as its view
  declares them with :func:`page_query` (none unless declared). Two addresses
  that differ only in other parameters (``/rules/?x=1``) are one kept page.

Logging out (:class:`LogoutView`) answers with ``Clear-Site-Data: "cache"``:
the browser drops its own cache of the site, and the worker drops the pages it
kept, but never a scorer's page or a deal still waiting to be sent (those live
in IndexedDB, which "cache" does not touch; the logout button warns first
when deals are waiting: static/js/offline.js).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse
from django.utils.cache import add_never_cache_headers

PAGE_QUERY = "Club-Page-Query"
SCORER_PAGE = "Club-Scorer-Page"


def page_query(*names: str):
    """Declare the query parameters that change what the view's page shows.

    ``tests/web/test_kept_pages.py`` reads every page with a parameter of every
    name the club's views read, and fails for a view that reads one it does not
    declare: an undeclared one would make the phone's offline copy the wrong page.
    """

    def decorator(view):
        view.page_query = tuple(sorted(names))
        return view

    return decorator


def scorer_page(response: HttpResponse) -> HttpResponse:
    """Mark ``response`` as a link holder's own scorer page: the phone keeps it."""
    response[SCORER_PAGE] = "1"
    return response


def _signed_in(request: HttpRequest) -> bool:
    # The session is read only when there is one: an anonymous visitor costs no query.
    if settings.SESSION_COOKIE_NAME not in request.COOKIES:
        return False
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_authenticated)


class KeptPagesMiddleware:
    """Tells the phone what it may keep of each answer (see the module's docstring)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if _signed_in(request):
            # An organiser's or an admin's page: their name, forms and secrets. Nobody
            # after them on a shared phone may read it, with or without the network.
            add_never_cache_headers(response)
        match = request.resolver_match
        if (
            request.method == "GET"
            and match is not None
            and response.get("Content-Type", "").startswith("text/html")
            and PAGE_QUERY not in response
        ):
            response[PAGE_QUERY] = " ".join(getattr(match.func, "page_query", ()))
        return response


class LogoutView(auth_views.LogoutView):
    """Log out, and leave nothing of what was opened on this browser."""

    template_name = "registration/logged_out.html"

    def get_success_url(self) -> str:
        # Always the page that says so, never a redirect: the next person holding the
        # phone sees that the organiser is logged out, and the worker reads this answer's
        # headers (a redirect's are hidden from it).
        return self.request.get_full_path()

    def post(self, request, *args, **kwargs):
        response = super().post(request, *args, **kwargs)
        # "cache", not "storage": storage would take the deals still waiting on the phone.
        response["Clear-Site-Data"] = '"cache"'
        add_never_cache_headers(response)
        return response
