"""What every operation of the API shares: its rate per client, its pages, its kept answers."""

from __future__ import annotations

import functools
from urllib.parse import urlencode

from django.conf import settings
from django.core.cache import caches
from django.http import HttpRequest, JsonResponse
from django.utils import translation
from ninja import Field, Schema
from ninja.decorators import decorate_view
from ninja.throttling import SimpleRateThrottle

from club.api import schemas as out
from club.web.net import client_ip
from club.web.pages import cached_page

COUNT_LIMIT = 10_000


class ClientRate(SimpleRateThrottle):
    """``CLUB_API_RATE`` requests a client may make (by its address behind our proxies)."""

    scope = "api"
    cache_format = "club-api-%(scope)s-%(ident)s"

    def __init__(self) -> None:  # the rate is read per request: a setting tests may change
        self.history: list = []

    def allow_request(self, request: HttpRequest) -> bool:
        rate = settings.CLUB_API_RATE
        if not rate:
            return True
        self.cache = caches["api-rate"]
        self.rate = rate
        self.num_requests, self.duration = self.parse_rate(rate)
        return super().allow_request(request)

    def get_cache_key(self, request: HttpRequest) -> str:
        return self.cache_format % {"scope": self.scope, "ident": client_ip(request)}


def english(run):
    """The API's words are English whatever the client's language (its field names are the
    format's); its kept answers are one copy for every language."""

    @functools.wraps(run)
    def wrapped(request: HttpRequest, *args, **kwargs):
        request.LANGUAGE_CODE = "en"
        with translation.override("en"):
            return run(request, *args, **kwargs)

    return wrapped


def limited(run):
    """429 for a client past its rate, kept answers included (outermost)."""

    @functools.wraps(run)
    def wrapped(request: HttpRequest, *args, **kwargs):
        throttle = ClientRate()
        if not throttle.allow_request(request):
            response = JsonResponse({"detail": "Too many requests: wait a moment."}, status=429)
            wait = throttle.wait()
            if wait:
                response["Retry-After"] = str(max(1, round(wait)))
            return response
        return run(request, *args, **kwargs)

    return wrapped


def answered(version_of=None):
    """What every operation of the API is wrapped in, innermost first: its answer kept under
    ``version_of`` (a page's version function; none for a list that is not kept), in
    English, and counted against the client's rate (kept answers too)."""
    kept = [cached_page(version_of)] if version_of is not None else []
    return decorate_view(*kept, english, limited)


def by_id(version_of):
    """A page's version function for an answer whose path holds an id not yet checked (the
    answer is kept before the operation reads its parameters): an id that is not one is
    kept nowhere, and the operation refuses it (422)."""

    def version(request: HttpRequest, pk, **kwargs):
        text = str(pk)
        if not (text.isascii() and text.isdigit() and 0 < int(text) <= out.MAX_ID):
            return None
        return version_of(request, pk=int(text))

    return version


class Pages(Schema):
    page: int = Field(
        1,
        ge=1,
        le=out.MAX_PAGE,
        description="The page, from 1. Past the 10,000th item a page is empty: filter instead.",
    )
    page_size: int = Field(out.PAGE_SIZE, ge=1, le=out.MAX_PAGE_SIZE)


def paged(request: HttpRequest, queryset, pages: Pages) -> tuple[list, dict]:
    """One page of ``queryset`` (ordered), its count to COUNT_LIMIT and its neighbours."""
    total = queryset.order_by()[: COUNT_LIMIT + 1].count()
    capped = total > COUNT_LIMIT
    offset = (pages.page - 1) * pages.page_size
    # A page costs what it skips: none is read past where the list is counted.
    items = list(queryset[offset : offset + pages.page_size]) if offset < COUNT_LIMIT else []
    more = offset + len(items) < min(total, COUNT_LIMIT)

    def link(number: int) -> str:
        query = {**request.GET.dict(), "page": number}
        return f"{request.path}?{urlencode(query)}"

    return items, {
        "count": min(total, COUNT_LIMIT),
        "count_capped": capped,
        "page": pages.page,
        "page_size": pages.page_size,
        "next": link(pages.page + 1) if more else None,
        "previous": link(pages.page - 1) if pages.page > 1 else None,
    }
