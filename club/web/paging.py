"""A page of a long list, the same way on every page that has one.

A list that grows with the club's history (finished games, the register of
players, finished tournaments, a player's games) is shown a page at a time:
one slice with the list's count beside each row (a window), one query whatever
the club's size; two, the count and the slice, for a list of tuples or of
distinct rows, and three for a page past the end, which shows the last. A page
that is not a whole number shows the first.

A list without bound (the home page's finished games) counts no further than
``count_up_to``: beyond it the pager says "more than", and the count costs the
same on the thousandth night as on the hundredth.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django.db.models import Count, Window
from django.db.models.query import ModelIterable, ValuesIterable
from django.http import HttpRequest


@dataclass(frozen=True)
class Page:
    items: list
    number: int
    pages: int
    total: int
    query: str = ""  # the rest of the page's query string, to keep in the pager's links
    capped: bool = False  # ``total`` is where counting stopped: there are more

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


def _counted_page(queryset, number: int, per_page: int, query: str) -> Page | None:
    """The page with its count in one query (the count a window over the whole list, read
    with the page's rows); None when ``queryset`` cannot take one, or the page asked for
    is past the end (the count and the slice are read apart)."""
    query_of = queryset.query
    rows = queryset._iterable_class
    if rows not in (ModelIterable, ValuesIterable) or query_of.distinct:
        return None  # rows of tuples, or rows made distinct after the window would count
    if query_of.combinator:
        return None  # a union's parts take no annotation
    offset = (max(number, 1) - 1) * per_page
    items = list(counted(queryset)[offset : offset + per_page])
    return counted_page(items, number, per_page, query)


def counted(queryset):
    """``queryset`` with the count of its rows on each (``page_total``, a window over the
    whole list): rows of values take it as one more value (after values(), an annotation
    is)."""
    return queryset.annotate(page_total=Window(Count("*")))


def counted_page(items: list, number: int, per_page: int, query: str = "") -> Page | None:
    """Page ``number`` of a list whose rows, read with :func:`counted`, are ``items``;
    None when the page is past the end."""
    if not items:
        return Page([], 1, 1, 0, query) if number <= 1 else None
    models = not isinstance(items[0], dict)
    total = items[0].page_total if models else items[0]["page_total"]
    if not models:
        for row in items:
            del row["page_total"]
    return Page(items, max(number, 1), max(1, -(-total // per_page)), total, query)


def page_of(
    queryset, number: int, per_page: int, query: str = "", count_up_to: int | None = None
) -> Page:
    """One page of ``queryset`` (already ordered): its count and its slice."""
    if count_up_to is None:
        found = _counted_page(queryset, number, per_page, query)
        if found is not None:
            return found
        total, capped = queryset.count(), False
    else:
        total = queryset.order_by()[: count_up_to + 1].count()
        capped = total > count_up_to
        total = min(total, count_up_to)
    pages = max(1, -(-total // per_page))
    number = max(number, 1) if capped else min(max(number, 1), pages)
    offset = (number - 1) * per_page
    items = list(queryset[offset : offset + per_page])
    if capped:
        if not items:  # past the end of a list too long to count: its first page
            number, items = 1, list(queryset[:per_page])
        # How far it goes is not counted: there is a next page while this one is full.
        pages = max(pages, number + 1 if len(items) == per_page else number)
    return Page(items, number, pages, total, query, capped)
