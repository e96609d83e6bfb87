"""Resent forms get the first answer instead of writing twice.

Each form that writes carries a hidden ``idempotency_key`` (a fresh UUID per
rendered form, from the ``{% idempotency_key %}`` tag). The middleware claims
the key before the view runs; a second post with the same key waits for the
first to finish and then receives the same answer (status, redirect, body).
Answers of 5xx (a lost database connection, say) are not kept, so the resend
is tried again. Keys are kept for a week (``manage.py clear_submitted_forms``).
"""

from __future__ import annotations

import time
import uuid

from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.utils.html import format_html
from django.utils.translation import gettext as _

from club.games.models import SubmittedForm

FIELD = "idempotency_key"
WAIT_SECONDS = 10
KEPT_HEADERS = (
    "Content-Type",
    "Location",
    "HX-Redirect",
    "HX-Location",
    "HX-Refresh",
    "HX-Retarget",
    "HX-Reswap",
    "HX-Trigger",
)


def new_key_input() -> str:
    return format_html('<input type="hidden" name="{}" value="{}">', FIELD, uuid.uuid4())


def _key(request: HttpRequest) -> uuid.UUID | None:
    if request.method != "POST":
        return None
    try:
        raw = request.POST.get(FIELD)
    except Exception:  # an unreadable body is the view's business, not ours
        return None
    if not raw:
        return None
    try:
        return uuid.UUID(str(raw))
    except ValueError:
        return None


def _replay(seen: SubmittedForm) -> HttpResponse:
    response = HttpResponse(bytes(seen.body), status=seen.status or 200)
    for name, value in seen.headers.items():
        response[name] = value
    response["X-Idempotent-Replay"] = "true"
    return response


class IdempotencyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        key = _key(request)
        if key is None:
            return self.get_response(request)
        user_id = (
            request.user.pk
            if getattr(request, "user", None) and request.user.is_authenticated
            else None
        )
        try:
            with transaction.atomic():
                claim = SubmittedForm.objects.create(key=key, path=request.path, user_id=user_id)
        except IntegrityError:
            return self._answer_again(request, key, user_id)
        try:
            response = self.get_response(request)
        except BaseException:
            SubmittedForm.objects.filter(pk=claim.pk).delete()
            raise
        if response.status_code >= 500 or response.streaming:
            SubmittedForm.objects.filter(pk=claim.pk).delete()
            return response
        SubmittedForm.objects.filter(pk=claim.pk).update(
            done=True,
            status=response.status_code,
            headers={name: response[name] for name in KEPT_HEADERS if response.has_header(name)},
            body=response.content,
        )
        return response

    def _answer_again(self, request: HttpRequest, key: uuid.UUID, user_id) -> HttpResponse:
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            seen = SubmittedForm.objects.filter(key=key).first()
            if seen is None:  # the first try failed and let go of the key: run it now
                return self.get_response(request)
            if seen.path != request.path or seen.user_id != user_id:
                return HttpResponseBadRequest(
                    _(
                        "This form was already used for something else. "
                        "Reload the page and try again."
                    )
                )
            if seen.done:
                return _replay(seen)
            if time.monotonic() > deadline:
                return HttpResponse(
                    _("This form is still being saved. Wait a moment, then reload the page."),
                    status=409,
                )
            time.sleep(0.1)
