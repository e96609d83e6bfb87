"""A page of a long list, the same way on every page that has one.

A list that grows with the club's history (finished games, the register of
players, finished tournaments, a player's games) is shown a page at a time:
a count and one slice, two queries whatever the club's size. A page past the
end shows the last; a page that is not a whole number shows the first.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django.http import HttpRequest


@dataclass(frozen=True)
class Page:
    items: list
    number: int
    pages: int
    total: int
    query: str = ""  # the rest of the page's query string, to keep in the pager's links

    @property
    def previous(self) -> int | None:
        return self.number - 1 if self.number > 1 else None

    @property
    def next(self) -> int | None:
        return self.number + 1 if self.number < self.pages else None

    def link(self, number: int) -> str:
        return "?" + "&".join(part for part in (self.query, f"page={number}") if part)

    @property
    def previous_link(self) -> str:
        return self.link(self.previous) if self.previous else ""

    @property
    def next_link(self) -> str:
        return self.link(self.next) if self.next else ""


def page_number(request: HttpRequest, name: str = "page") -> int:
    """The page asked for: a whole number from 1, else 1."""
    raw = request.GET.get(name, "1")
    return int(raw) if raw.isascii() and raw.isdigit() and 0 < len(raw) < 7 and int(raw) > 0 else 1


def kept_query(request: HttpRequest, *drop: str) -> str:
    """The request's query string without ``page`` (and ``drop``): what a pager link keeps."""
    dropped = {"page", "version", *drop}
    return urlencode([(key, value) for key, value in request.GET.items() if key not in dropped])


def page_of(queryset, number: int, per_page: int, query: str = "") -> Page:
    """One page of ``queryset`` (already ordered): its count and its slice."""
    total = queryset.count()
    pages = max(1, -(-total // per_page))
    number = min(max(number, 1), pages)
    offset = (number - 1) * per_page
    return Page(list(queryset[offset : offset + per_page]), number, pages, total, query)
