"""A lost database connection answers "send it again", never a 500.

On a venue's Wi-Fi, or when the database restarts, a view can lose its
connection in the middle of a write. The write runs in one transaction, so
nothing of it is kept; the scorer only needs to know that and send the form
again. This turns ``OperationalError`` and ``InterfaceError`` raised by a
view into a 503 page (``retry.html``) or, for htmx, a short note put at the
top of the form that was sent: the form keeps what was typed, ready to send
again. A resend is safe: a deal that did get recorded is answered "already
recorded", never stored twice.
"""

from __future__ import annotations

import logging

from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _

logger = logging.getLogger(__name__)

DEAL_VIEWS = {"record", "scorer_send"}  # url names of the forms that send a deal


def retry_message(request: HttpRequest) -> str:
    match = request.resolver_match
    if match is not None and match.url_name in DEAL_VIEWS:
        return _(
            "The connection to the score database was lost before the deal was saved. "
            "Nothing was recorded. Please send it again."
        )
    if request.method == "POST":
        return _(
            "The connection to the score database was lost before this was saved. "
            "Nothing was saved. Please send it again."
        )
    return _("The connection to the score database was lost. Please try again in a moment.")


def page_to_return_to(request: HttpRequest) -> str:
    """The page the form was sent from (same site only), or this page for a read."""
    if request.method != "POST":
        return request.get_full_path()
    referer = request.headers.get("Referer", "")
    if url_has_allowed_host_and_scheme(
        referer, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return referer
    return "/"


class DatabaseLostMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, (OperationalError, InterfaceError)):
            return None
        logger.warning(
            "Database connection lost during %s %s: %s", request.method, request.path, exception
        )
        context = {
            "message": retry_message(request),
            "back": page_to_return_to(request),
            "sent": request.method == "POST",
        }
        htmx = getattr(request, "htmx", False)
        if htmx:
            body = render_to_string("retry.html#retry", context, request=request)
        else:
            try:
                body = render_to_string("retry.html", context, request=request)
            except DatabaseError:
                # The page around the note needs the session or the user, and the database
                # is still away: the note alone says what matters.
                body = render_to_string("retry.html#retry", context, request=request)
        response = HttpResponse(body, status=503)
        response["Retry-After"] = "5"
        if htmx and request.method == "POST":
            # Put the note at the top of the form that was sent; the form keeps what was
            # typed (club.js lets htmx show this 503 answer).
            response["HX-Retarget"] = "this"
            response["HX-Reswap"] = "afterbegin"
            response["HX-Reselect"] = ".db-retry"
        return response
