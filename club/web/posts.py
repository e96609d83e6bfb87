"""Reading a post: what every writing view, the one-time keys and the lost-connection
answer need of it alike; and a service's refusal shown on the form that was posted."""

from __future__ import annotations

from django.forms import Form
from django.http import HttpRequest
from django.utils.http import url_has_allowed_host_and_scheme

from club.scoring.messages import Refusal


def posted_deal_number(request: HttpRequest) -> int | None:
    """The deal number a deal form sent, or None. ``isdecimal``, not ``isdigit``:
    ``int()`` refuses "²"; and a short number, since 5,000 digits are not a deal."""
    number = request.POST.get("number", "") if request.method == "POST" else ""
    return int(number) if number.isdecimal() and len(number) < 6 else None


def page_sent_from(request: HttpRequest) -> str:
    """The page the form was sent from (its Referer, same site only), else the home page."""
    referer = request.headers.get("Referer", "")
    if url_has_allowed_host_and_scheme(
        referer, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return referer
    return "/"


def show_refusal(form: Form, refusal: Refusal) -> None:
    """A service's refusal on the form that was sent: at the field it names when the form
    has that field, else above the form."""
    form.add_error(refusal.field if refusal.field in form.fields else None, refusal.message)
