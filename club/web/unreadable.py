"""Text with a control character is refused before anything reads it.

PostgreSQL refuses a NUL in any text it is given (psycopg raises ``DataError``), and
no name, search or number the club keeps has any other control character in it
either. So one middleware looks at everything a request brings as text, before a
view, a form or a query sees it: the address itself (a scorer link's token is part
of it), the query string's names and values, and a posted form's field names and
values (not its files: Django drops what cannot be printed from a file's name, and
what a file holds is its form's to read). It refuses the C0 controls and
DEL; tab, line feed and carriage return stay (a textarea sends them).

The refusal names the part that holds the character: a 400 page in the site's
design for a page, the note alone for htmx, and for the API (``/api/``) a 422 in
the shape of the API's own refusals (club/api/schemas.py ``Invalid``).

A cookie is not the reader's to retype, so a cookie holding a control character is
forgotten instead, before the session, the CSRF check or the language read it: the
request goes on as if it had not been sent (a session cookie with a NUL would
otherwise be looked up, and fail, on every page). No view reads a JSON body (the
API is GET only), so there is none to check. Headers are left to the server in
front: gunicorn refuses control characters in them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse, UnreadablePostError
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.cache import add_never_cache_headers, patch_vary_headers
from django.utils.csp import CSP, build_policy
from django.utils.encoding import escape_uri_path
from django.utils.translation import gettext as _

from club.web.posts import page_sent_from

# C0 controls and DEL, except tab, line feed and carriage return.
CONTROLS = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f"
CONTROL = re.compile(f"[{CONTROLS}]")
READABLE_TEXT = f"^[^{CONTROLS}]*$"  # a text without them, as a schema's pattern says it
API_PREFIX = "/api/"  # club/urls.py mounts the API here
SHOWN_LENGTH = 40  # of a name shown back to the reader


@dataclass(frozen=True)
class Spot:
    """Where a control character was found: ``part`` is "path", "query", "query name",
    "form" or "form name"; ``name`` the parameter's or field's name."""

    part: str
    name: str = ""


def readable(text: str) -> bool:
    return CONTROL.search(text) is None


def shown(name: str) -> str:
    """A name as it can be shown back: its control characters as "�", and not too long."""
    name = CONTROL.sub("\ufffd", name)
    return name if len(name) <= SHOWN_LENGTH else name[: SHOWN_LENGTH - 1] + "…"


def _in_pairs(pairs, part: str) -> Iterator[Spot]:
    for name, values in pairs:
        if not readable(name):
            yield Spot(f"{part} name", name)
        elif not all(readable(value) for value in values):
            yield Spot(part, name)


def unreadable_spots(request: HttpRequest) -> Iterator[Spot]:
    """Every part of the request's text that holds a control character."""
    if not readable(request.path):
        yield Spot("path")
    yield from _in_pairs(request.GET.lists(), "query")
    if request.method != "POST":
        return
    try:
        posted, files = request.POST, request.FILES
    except UnreadablePostError:
        return  # the client went away while sending: there is nothing to read
    yield from _in_pairs(posted.lists(), "form")
    for name in files:  # a file's own name Django has already rid of what cannot print
        if not readable(name):
            yield Spot("form name", name)


def forget_unreadable_cookies(request: HttpRequest) -> None:
    for name, value in list(request.COOKIES.items()):
        if not (readable(name) and readable(value)):
            del request.COOKIES[name]


def message(spot: Spot) -> str:
    """What the reader is told, naming the part that holds the character."""
    name = shown(spot.name)
    if spot.part == "path":
        return _("The address holds a character that cannot be read. Remove it and try again.")
    if spot.part == "query":
        return _(
            "The address holds a character that cannot be read in “%(name)s”. "
            "Remove it and try again."
        ) % {"name": name}
    if spot.part == "query name":
        return _(
            "The address holds a character that cannot be read in the name “%(name)s”. "
            "Remove it and try again."
        ) % {"name": name}
    if spot.part == "form name":
        return _(
            "The form sent a field named “%(name)s”, which holds a character that cannot "
            "be read. Reload the form and send it again."
        ) % {"name": name}
    return _(
        "The form holds a character that cannot be read in “%(name)s”; text pasted from "
        "another program can carry one. Type that field again and send the form again."
    ) % {"name": name}


API_MESSAGE = (
    "Holds a control character, which cannot be read: remove it and try again "
    "(tab and line breaks are allowed)."
)
API_PLACE = {
    "path": "path",
    "query": "query",
    "query name": "query",
    "form": "form",
    "form name": "form",
}


def api_refusal(spots: list[Spot]) -> HttpResponse:
    """422, each part refused as the API refuses a parameter out of its bounds."""
    detail = [
        {
            "type": "control_character",
            "loc": [API_PLACE[spot.part], *([shown(spot.name)] if spot.name else [])],
            "msg": API_MESSAGE,
        }
        for spot in spots
    ]
    return with_site_headers(JsonResponse({"detail": detail}, status=422))


def _htmx_target(request: HttpRequest) -> str:
    """The element the htmx request would have swapped (by its id), else the page's main."""
    target = request.headers.get("HX-Target", "")
    return f"#{target}" if re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", target) else "main"


def page_refusal(request: HttpRequest, spot: Spot) -> HttpResponse:
    """400 in the reader's language, or the note alone for htmx."""
    sent = request.method == "POST"
    if sent:
        back = page_sent_from(request)
    else:
        back = escape_uri_path(request.path) if spot.part != "path" else "/"
    htmx = request.headers.get("HX-Request") == "true"
    language = translation.get_language_from_request(request)
    with translation.override(language):
        context = {"refused": message(spot), "back": back, "sent": sent}
        template = "unreadable.html#note" if htmx else "unreadable.html"
        body = render_to_string(template, context, request=request)
    response = HttpResponse(body, status=400)
    if htmx:
        # htmx swaps no 4xx answer (its responseHandling; club.js lets through only the
        # lost connection's 503), so the note goes as a 200 at the top of what the
        # request would have replaced, whatever part of an answer the request selects;
        # the form keeps what was typed, and the address with the character is not put
        # in the browser's history.
        response.status_code = 200
        response["HX-Retarget"] = _htmx_target(request)
        response["HX-Reswap"] = "afterbegin"
        response["HX-Reselect"] = ".unreadable"
        response["HX-Push-Url"] = "false"
    response["Content-Language"] = language
    patch_vary_headers(response, ("Accept-Language", "Cookie", "HX-Request"))
    return with_site_headers(response)


def with_site_headers(response: HttpResponse) -> HttpResponse:
    """A refusal answers before the middleware that puts the site's policy on every other
    answer (club/settings.py), so it puts it on itself; and it is never kept."""
    add_never_cache_headers(response)
    if settings.SECURE_CSP:
        response[str(CSP.HEADER_ENFORCE)] = build_policy(settings.SECURE_CSP)
    response["X-Frame-Options"] = settings.X_FRAME_OPTIONS
    return response


class UnreadableCharactersMiddleware:
    """Refuse a request whose text holds a control character before any view or query
    sees it; forget a cookie that holds one."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        forget_unreadable_cookies(request)
        if request.path_info.startswith(API_PREFIX):
            spots = list(unreadable_spots(request))
            if spots:
                return api_refusal(spots)
        else:
            spot = next(unreadable_spots(request), None)
            if spot is not None:
                return page_refusal(request, spot)
        return self.get_response(request)
