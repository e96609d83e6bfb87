"""Resent forms get the first answer instead of writing twice.

Each form that writes carries a hidden ``idempotency_key`` (a fresh UUID per
rendered form, from the ``{% idempotency_key %}`` tag). The views that write
are wrapped in :func:`one_time`, *inside* their permission check and after
Django's CSRF check, so a key is only ever kept for a write that was allowed:
an anonymous or forged post stores nothing.

The key is claimed first, in the transaction of the write it belongs to, and
given the answer the view gave (status, the headers a resend needs, the body
compressed and bounded) before the commit. So the two are committed together
or not at all: no other connection ever sees a key "being saved", and after a
lost connection :func:`answer_kept` tells from the database alone whether the
write happened. A second send of the same key waits on the claim (the unique
index on PostgreSQL, the write lock on SQLite) until the first commits, is
refused before its view runs, and answers with the first's stored answer.

Answers of 5xx are not kept, so the resend is tried again. Keys are kept for
a week (``manage.py clear_submitted_forms``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import uuid
import zlib

from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, HttpResponseRedirect
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _

from club.games.models import SubmittedForm
from club.web.installable import DEAL_SENT
from club.web.keys import FIELD, key_of
from club.web.posts import page_sent_from

# A kept answer is a redirect or the fragment of the form that was sent: far
# below this once compressed. A bigger body is not kept; its resend is sent
# back to the page the form came from, which shows what was saved.
MAX_KEPT_BODY = 64 * 1024
KEPT_HEADERS = (
    "Content-Type",
    "Location",
    "HX-Redirect",
    "HX-Location",
    "HX-Refresh",
    "HX-Retarget",
    "HX-Reswap",
    "HX-Trigger",
    DEAL_SENT,
)


def _digest(request: HttpRequest) -> str:
    """What the form sent, but its CSRF token (fresh per page) and the key itself."""
    sent = sorted(
        (name, value)
        for name, values in request.POST.lists()
        if name not in ("csrfmiddlewaretoken", FIELD)
        for value in values
    )
    return hashlib.sha256(json.dumps(sent, ensure_ascii=False).encode()).hexdigest()


def _user_id(request: HttpRequest) -> int | None:
    user = getattr(request, "user", None)
    return user.pk if user is not None and user.is_authenticated else None


def _kept(request: HttpRequest, key: uuid.UUID, response: HttpResponse) -> SubmittedForm:
    headers = {name: response[name] for name in KEPT_HEADERS if response.has_header(name)}
    body = zlib.compress(response.content) if response.content else b""
    status = response.status_code
    if len(body) > MAX_KEPT_BODY:
        if getattr(request, "htmx", False):
            # htmx would swap a whole page into the fragment: have it reload instead.
            status, headers, body = 200, {"HX-Refresh": "true"}, b""
        else:
            status, headers, body = 303, {"Location": page_sent_from(request)}, b""
    return SubmittedForm(
        key=key,
        path=request.path,
        user_id=_user_id(request),
        status=status,
        headers=headers,
        body=body,
    )


def replay(seen: SubmittedForm) -> HttpResponse:
    """The answer kept for a key, given again."""
    body = zlib.decompress(bytes(seen.body)) if seen.body else b""
    if seen.status in (301, 302, 303) and not body:
        response: HttpResponse = HttpResponseRedirect(seen.headers.get("Location", "/"))
        response.status_code = seen.status
    else:
        response = HttpResponse(body, status=seen.status)
    for name, value in seen.headers.items():
        response[name] = value
    response["X-Idempotent-Replay"] = "true"
    add_never_cache_headers(response)  # an answer to one person's post, never cached
    return response


def _used_elsewhere() -> HttpResponse:
    return HttpResponseBadRequest(
        _("This form was already used for something else. Reload the page and try again.")
    )


def answer_kept(request: HttpRequest) -> HttpResponse | None:
    """The stored answer to this post's key, when its write was committed; else None.

    Only reads: used to answer a resend, and after a lost connection to find
    out whether the write before it was committed.
    """
    key = key_of(request)
    if key is None:
        return None
    seen = SubmittedForm.objects.filter(key=key).first()
    if seen is None:
        return None
    if (
        seen.path != request.path
        or seen.user_id != _user_id(request)
        or (seen.digest and seen.digest != _digest(request))
    ):
        return _used_elsewhere()
    return replay(seen)


def one_time(view):
    """Run a writing view at most once per one-time key; a resend gets the first answer.

    Put it below the view's permission decorator, so that only a write that
    was allowed keeps a key. Every post runs in one transaction, key or not,
    so a lost connection leaves either the whole write or nothing.
    """

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        key = key_of(request)
        if key is None:
            with transaction.atomic():
                return view(request, *args, **kwargs)
        try:
            with transaction.atomic():
                # Claim the key first: a second send of it waits here (PostgreSQL's
                # unique index; SQLite's write lock) for the first to commit, and is
                # then refused before its view runs, so it never writes, nor leaves
                # a message ("nothing was undone") for the person who sent it.
                claim = SubmittedForm.objects.create(
                    key=key,
                    path=request.path,
                    user_id=_user_id(request),
                    digest=_digest(request),
                    status=0,
                )
                response = view(request, *args, **kwargs)
                if response.status_code >= 500 or response.streaming:
                    # Not kept, and not written: the resend is tried again.
                    transaction.set_rollback(True)
                    return response
                kept = _kept(request, key, response)
                SubmittedForm.objects.filter(pk=claim.pk).update(
                    status=kept.status, headers=kept.headers, body=kept.body
                )
        except IntegrityError:
            # The key was committed by an earlier send, or one at the same moment.
            again = answer_kept(request)
            if again is None:
                raise
            return again
        return response

    return wrapped
