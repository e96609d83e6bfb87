"""A lost database connection answers with the truth about what was saved, never a 500.

On a venue's Wi-Fi, or when the database restarts, a view can lose its
connection in the middle of a write. The write runs in one transaction with
its one-time key (club.games.idempotency), so it was either committed whole, key
and all, or not at all. This turns ``OperationalError`` and ``InterfaceError``
raised by a view (or by what runs after it) into an answer that says which:

- the key is in the database: the write was committed (the connection was lost
  after the commit), and the answer it got is given again;
- the key is not: nothing was saved, and the scorer is asked to send it again
  (a 503 page, ``retry.html``, or for htmx a short note put at the top of the
  form that was sent, which keeps what was typed);
- the database cannot be asked: the scorer is told so, and that sending it
  again is safe (a deal that was recorded is never recorded twice).

A database that is out of disk space says so instead of "connection lost".
"""

from __future__ import annotations

import logging

from django.db import DatabaseError, InterfaceError, OperationalError, connection
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils.translation import gettext as _

from club.games.idempotency import answer_kept
from club.web.keys import key_of
from club.web.posts import page_sent_from, posted_deal_number

logger = logging.getLogger(__name__)

DEAL_VIEWS = {"record", "scorer_send"}  # url names of the forms that send a deal


def disk_is_full(error: BaseException) -> bool:
    """Whether the database refused the write for want of disk space."""
    cause = getattr(error, "__cause__", None) or error
    if getattr(cause, "sqlstate", None) == "53100":  # PostgreSQL's disk_full
        return True
    return "disk is full" in str(error).lower() or "no space left" in str(error).lower()


def retry_message(request: HttpRequest, *, checked: bool = True, full: bool = False) -> str:
    """What the scorer is told; ``checked``: the database said the write is not there."""
    match = request.resolver_match
    deal = match is not None and match.url_name in DEAL_VIEWS
    number = posted_deal_number(request) if deal else None
    if full:
        return _(
            "The score database has run out of disk space, so nothing was saved. "
            "Tell the organiser; keep the score sheet until it is fixed."
        )
    if request.method == "POST" and not checked:
        if number is not None:
            return _(
                "The connection to the score database was lost, and we could not check "
                "whether deal %(number)d was saved. Send it again when the connection is "
                "back: it will never be recorded twice."
            ) % {"number": number}
        return _(
            "The connection to the score database was lost, and we could not check "
            "whether this was saved. Send it again when the connection is back: it will "
            "never be saved twice."
        )
    if deal and number is not None:
        return _(
            "The connection to the score database was lost before deal %(number)d was "
            "saved. Nothing was recorded. Please send it again."
        ) % {"number": number}
    if deal:
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
    return page_sent_from(request)


def _kept_after_loss(request: HttpRequest) -> tuple[HttpResponse | None, bool]:
    """(the kept answer or None, whether the database could be asked)."""
    if key_of(request) is None:
        # No key: the write's transaction was rolled back, or was never begun.
        return None, True
    if not hasattr(request, "user"):
        # Lost before the log-in was read (the club of the address is read first): whose
        # post this is cannot be told, so neither whether its key is this sender's write.
        return None, False
    if not connection.in_atomic_block:
        connection.close()  # a fresh connection: the lost one cannot answer
    try:
        return answer_kept(request), True
    except DatabaseError as error:
        logger.warning("Could not check a lost write's key: %s", error)
        return None, False


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
        full = disk_is_full(exception)
        checked = True
        if request.method == "POST":
            # Even with a full disk: the write may have been committed before what
            # failed after it (a session saved, say); reading still works.
            kept, checked = _kept_after_loss(request)
            if kept is not None:
                return kept  # committed before the connection went: the truth is "saved"
        context = {
            "message": retry_message(request, checked=checked, full=full),
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
