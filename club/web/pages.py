"""Public pages kept under their version: never stale, because the key says what they show.

A page anyone may read (a game, a tournament's standings, its live fragment)
is rendered once per version and kept in the ``pages`` cache (local memory, or
a shared Redis by ``DJANGO_CACHE_URL``). The key holds everything that changes
its bytes: the path and query (but the live poll's ``version``), the version
the view's ``version_of`` reads from the database (the object's own token and
the club's, club.games.versions), the language, and whether htmx asked for a
fragment. A write that changes what a page shows moves its version in the same
transaction, so the next request builds a new key: a cached page is exact by
construction, and nothing needs deleting.

Only visitors without a session or a message waiting are served from it: an
organiser's or a signed-in player's page has their name, forms and one-time
keys in it, and is rendered for them. The cached pages carry no CSRF token
(base.html leaves it out when ``request.cached_page`` is set; the language
switch is a plain GET).

A reload that already holds the page gets 304 Not Modified from its ETag, the
same token. A kept page is gzipped once, when it is kept, not at every read.
One render per key per process: a burst of readers of a new version waits for
the first to render it rather than rendering it too.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import threading

from django.conf import settings
from django.core.cache import caches
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils.cache import patch_vary_headers

ALIAS = "pages"
TIMEOUT = 6 * 3600  # a version no longer asked for ages out; an exact key needs no expiry
_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


def _lock(key: str) -> threading.Lock:
    with _locks_guard:
        if len(_locks) > 4096:  # keys of old versions: their renders are long done
            _locks.clear()
        return _locks.setdefault(key, threading.Lock())


def served_from_cache(request: HttpRequest) -> bool:
    """A visitor whose page is everyone's: no session (no login), no message waiting."""
    return (
        request.method in ("GET", "HEAD")
        and settings.SESSION_COOKIE_NAME not in request.COOKIES
        and "messages" not in request.COOKIES  # django.contrib.messages' cookie storage
    )


def _key(request: HttpRequest, version: str) -> str:
    query = sorted((k, v) for k, v in request.GET.items() if k != "version")
    parts = [
        request.path,
        repr(query),
        version,
        getattr(request, "LANGUAGE_CODE", ""),
        # The views answer a fragment to htmx and to a poll (?version=): so does the key.
        "fragment" if getattr(request, "htmx", False) or "version" in request.GET else "page",
    ]
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


def _headers(response: HttpResponse, etag: str) -> None:
    response["ETag"] = etag
    response["Cache-Control"] = "no-cache"  # a browser asks again, with the ETag
    patch_vary_headers(response, ("Cookie", "Accept-Language", "Accept-Encoding", "HX-Request"))


def cached_page(version_of):
    """Keep the view's 200 answers for anonymous visitors under their version.

    ``version_of(request, **kwargs)`` returns ``(own, rest)``: ``own`` the page's poll
    token (a live poll holding it gets 204 at once, as the view would answer), and
    ``rest()`` the remaining parts of the key, read only when the page is served; or
    None not to keep this answer (a page that does not exist).
    """

    def decorator(view):
        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if not served_from_cache(request):
                return view(request, *args, **kwargs)
            found = version_of(request, *args, **kwargs)
            if found is None:
                return view(request, *args, **kwargs)
            own, rest = found
            if request.GET.get("version") == own:
                return HttpResponse(status=204)  # a live poll that shows this version already
            key = _key(request, f"{own}|{rest()}")
            etag = f'W/"{key[:32]}"'  # weak: the gzipped and the plain copy are one page
            if etag in request.headers.get("If-None-Match", ""):
                response = HttpResponseNotModified()
                _headers(response, etag)
                return response
            cache = caches[ALIAS]
            try:
                kept = cache.get(key)
            except Exception:  # the shared cache is down: render, as if nothing were kept
                return view(request, *args, **kwargs)
            if kept is None:
                with _lock(key):
                    kept = cache.get(key)
                    if kept is None:
                        request.cached_page = True  # base.html: no CSRF token, no session
                        response = view(request, *args, **kwargs)
                        if response.status_code != 200 or response.streaming:
                            return response
                        # Compressed once, with the page: a kept page holds no secret, so
                        # the random padding against BREACH (GZipMiddleware) is not needed.
                        packed = gzip.compress(response.content, compresslevel=6, mtime=0)
                        kept = (response.content, response["Content-Type"], packed)
                        cache.set(key, kept, TIMEOUT)
            content, content_type, packed = kept
            if "gzip" in request.headers.get("Accept-Encoding", ""):
                response = HttpResponse(packed, content_type=content_type)
                response["Content-Encoding"] = "gzip"  # GZipMiddleware leaves it as it is
            else:
                response = HttpResponse(content, content_type=content_type)
            _headers(response, etag)
            return response

        return wrapped

    return decorator
