"""The club's addresses, each worked out once a process.

Django finds a request's view by trying its patterns in turn, every include's
patterns inside it, at every request: a game's page (the last of the club's
includes) tries about fifty patterns and lists them: 25 µs of the worker's time, more
than half a kept page's whole read of Redis. The patterns never change while a process runs,
so :class:`RememberedRoutes` keeps what each path it was asked resolved to; an
address that is no page (a 404) is looked for again each time, as before. The root
makes each request's own match from the one kept (its arguments copied); only the
kept match's ``captured_kwargs`` are shared, which nothing here changes.
"""

from __future__ import annotations

from django.urls import URLResolver
from django.urls.resolvers import ResolverMatch, RoutePattern

REMEMBERED = 4096  # paths a process keeps: more are a crawl, and it starts again


class RememberedRoutes(URLResolver):
    """``patterns`` at the root of the address, each path's match kept once found."""

    def __init__(self, patterns: list) -> None:
        super().__init__(RoutePattern(""), patterns)
        self._found: dict[str, ResolverMatch] = {}

    def resolve(self, path: str) -> ResolverMatch:
        found = self._found.get(path)
        if found is None:
            found = super().resolve(path)  # Resolver404 for no page: never kept
            # The patterns tried before it (a debugging page's list) would be copied by
            # the root at every request: the one that matched is kept.
            found.tried = (found.tried or [])[-1:]
            if len(self._found) >= REMEMBERED:
                self._found.clear()
            self._found[path] = found
        return found
