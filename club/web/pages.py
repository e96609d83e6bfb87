"""Public pages kept under their version: never stale, because the key says what they show.

A page anyone may read (a game, a tournament's standings, its live fragment)
is rendered once per version and kept in the ``pages`` cache (local memory, or
a shared Redis by ``DJANGO_CACHE_URL``). The key holds everything that changes
its bytes: the address it was asked at (a page's link preview names itself
absolutely: club.web.preview), the path and query (but the live poll's
``version``), the version the view's ``version_of`` reads from the database (the
object's own token and the club's, club.games.versions), the language, and
whether htmx asked for a fragment. A write that changes what a page shows moves
its version in the same transaction, so the next request builds a new key: a
cached page is exact by construction, and nothing needs deleting.

Only visitors without a session or a message waiting are served from it: an
organiser's or a signed-in player's page has their name, forms and one-time
keys in it, and is rendered for them. The cached pages carry no CSRF token
(base.html leaves it out when ``request.cached_page`` is set; the language
switch is a plain GET).

A reload that already holds the page gets 304 Not Modified from its ETag, the
same token. A kept page is gzipped once, when it is kept, not at every read, and kept
only so: a reader that takes no gzip gets it unpacked.
One render per key per process: a burst of readers of a new version waits for
the first to render it rather than rendering it too.

With a shared cache (Redis), reading the key costs more than serving the page:
one to four queries. So the cache also holds *write counters* (club.web.writes),
moved after every committed transaction that wrote a row a page could show: a
club's counter by a write of that club's own rows, the site's by any other write,
every write's by all of them. A request reads the counters its page follows first
(a club's page: its club's and the site's; a page of no club, the federation's:
every write's), then the page's key from the database; that key is kept beside the
counters' values it read (a *memo*: the poll token, the ETag, the key and the version,
never the page), for a minute at most. The next visitor who reads the same values finds
the page through that memo, with no query at all: a deal in one club leaves the other
clubs' memos as they were. A process keeps the memos it has read, so a live poll that shows
its version reads the counters alone, and a page the counters and its one kept copy (the
gzipped one, as nearly every reader takes it), in one round trip. A write commits,
then moves its counters, before its own answer is sent: a request that starts after it
reads the new values, whichever server it reaches. Only a request that overlaps a
commit may still see the state just before it, as any read that races a write would.
In this process's own memory (the default) there are no counters: another gunicorn
worker's write would not reach it, so the key is read from the database on every
request.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import threading
import time

from django.conf import settings
from django.core.cache import caches
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils.cache import patch_vary_headers

from club.web.writes import ALIAS, EVERY, counters_of, counting

TIMEOUT = 6 * 3600  # a version no longer asked for ages out; an exact key needs no expiry
FORMAT = "kept-2"  # memos of a page's key and version; a page kept once, gzipped
MEMO_TIMEOUT = 60  # a memo outlives no write made with the counters; this bounds any other
_locks: dict[str, threading.Lock] = {}
# The counters' values as this process last read them, by the counters a page follows.
_seen: dict[tuple[str, ...], tuple[int, ...]] = {}
# The memos this process has read or made: (own, etag, key, version, when it ages out):
# the shared copy's age, so a memo read here late is not kept here longer than there.
_local: dict[str, tuple] = {}
_locks_guard = threading.Lock()


def forget() -> None:
    """Forget what this process read of the counters and the memos (a test's database
    that starts again)."""
    _seen.clear()
    _local.clear()
    _wheres.clear()


def key_lock(key: str) -> threading.Lock:
    """This process's lock for making what is kept under ``key``: one reader makes it,
    the others wait for it and find it kept."""
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


def of_every_club(version_of):
    """Marks the version function of a page that shows every club's rows (the federation's
    ranking): its memo follows every write, at the site's address or at a club's."""
    version_of.of_every_club = True
    return version_of


def _known(memo: str | None) -> tuple | None:
    """This process's copy of a memo, while it is young enough to be the shared one."""
    found = _local.get(memo) if memo is not None else None
    if found is None or found[4] < time.time():
        return None
    return found


def _know(memo: str, value: tuple) -> None:
    if len(_local) > 4096:  # memos of old counters: no request asks for them again
        _local.clear()
    _local[memo] = value


def _recall(
    cache, request: HttpRequest, counters: tuple[str, ...], polled: str | None
) -> tuple[str | None, tuple | None, tuple | None]:
    """The memo's key for the write counters as they are now, what it holds (or None),
    and the kept page it names when that was read with it (or None).

    One round trip when the counters have not moved since this process last read them:
    the counters are read with what the request still needs, in one MGET, one instant,
    and the memo counts only if the counters read beside it are the values it was kept
    under. A memo this process already holds costs nothing more: a poll that shows its
    version reads the counters alone, a page the counters and its one kept copy. (None,
    None, None) when a counter cannot be read: the key is read from the database.
    """
    guess = _seen.get(counters)
    guessed = _memo(request, guess) if guess is not None else None
    known = _known(guessed)
    if guessed is not None and known is None:
        extra = [guessed]  # the memo, to learn the page's key
    elif (
        known is not None
        and polled != known[0]
        and known[2] is not None
        and known[1] not in request.META.get("HTTP_IF_NONE_MATCH", "")
    ):
        extra = [known[2]]  # the page itself: its version is not the poll's, nor the reader's
    else:
        extra = []
    try:
        found = cache.get_many([*counters, *extra])
        values = []
        for counter in counters:
            value = found.get(counter)
            if value is None:
                # Evicted or never set: start past every value it had (no old memo matches).
                value = time.time_ns()
                if not cache.add(counter, value, None):
                    value = cache.get(counter)
                    if value is None:
                        return None, None, None
            values.append(value)
        now = tuple(values)
        if now == guess and known is not None:
            return guessed, known, found.get(known[2]) if extra else None
        memo = guessed if now == guess and guessed is not None else _memo(request, now)
        if now == guess:
            hit = found.get(memo)
        else:
            _seen[counters] = now
            hit = _known(memo) or cache.get(memo)
        if hit is not None:
            _know(memo, hit)
        return memo, hit, None
    except Exception:  # the shared cache is down: the key is read from the database
        return None, None, None


def _memo(request: HttpRequest, values: tuple[int, ...]) -> str:
    return f"{_where(request)}|memo|{'|'.join(map(str, values))}"


def _key(request: HttpRequest, version: str) -> str:
    return hashlib.sha256(f"{_where(request)}\x1f{version}".encode()).hexdigest()


# What each request's key is made of but its version, by the raw request parts it is made
# from: worked out once for each address, language and kind of answer a process is asked.
_wheres: dict[tuple, str] = {}
# A longer path and query is worked out at each request, never held: a crawler's made-up
# queries would fill the memory of every worker.
REMEMBERED_ADDRESS = 512


def _where(request: HttpRequest) -> str:
    """A digest of all a page's key holds but its version: the address it was asked at (a
    page's link preview names itself absolutely), the path and query (but the live poll's
    ``version``), the language, and whether htmx asked for a fragment."""
    meta = request.META
    fragment = meta.get("HTTP_HX_REQUEST") == "true" or "version" in request.GET
    query_string = meta.get("QUERY_STRING", "")
    raw = (
        request.scheme,
        # All request.get_host() reads: the same raw parts, the same host. The forwarded
        # headers only where the settings trust them (a client may send any).
        settings.USE_X_FORWARDED_HOST and meta.get("HTTP_X_FORWARDED_HOST"),
        settings.USE_X_FORWARDED_PORT and meta.get("HTTP_X_FORWARDED_PORT"),
        meta.get("HTTP_HOST"),
        meta.get("SERVER_NAME"),
        meta.get("SERVER_PORT"),
        request.path,
        query_string,
        getattr(request, "LANGUAGE_CODE", ""),
        fragment,
    )
    remembered = len(request.path) + len(query_string) <= REMEMBERED_ADDRESS
    found = _wheres.get(raw) if remembered else None
    if found is None:
        query = sorted((k, v) for k, v in request.GET.items() if k != "version")
        parts = [
            FORMAT,  # what is kept under it: a release that keeps another shape never meets it
            f"{request.scheme}://{request.get_host()}",
            request.path,
            repr(query),
            getattr(request, "LANGUAGE_CODE", ""),
            # The views answer a fragment to htmx and to a poll (?version=): so does the key.
            "fragment" if fragment else "page",
        ]
        found = hashlib.sha256("\x1f".join(parts).encode()).hexdigest()
        if remembered:
            if len(_wheres) > 4096:  # addresses of pages no longer read
                _wheres.clear()
            _wheres[raw] = found
    return found


VARY = ("Cookie", "Accept-Language", "Accept-Encoding", "HX-Request")


def _headers(response: HttpResponse, etag: str) -> None:
    response["ETag"] = etag
    response["Cache-Control"] = "no-cache"  # a browser asks again, with the ETag
    if response.has_header("Vary"):
        patch_vary_headers(response, VARY)
    else:  # the answer made here: the same header, without reading one first
        response["Vary"] = ", ".join(VARY)


class KeptPageRequest(HttpRequest):
    """A request to a page :func:`cached_page` keeps (club.web.requests): its
    ``cached_page`` is set True while the answer to be kept is rendered, and base.html
    then leaves out what is the reader's own (the CSRF token)."""

    cached_page: bool
    page_version: str


def cached_page(version_of):
    """Keep the view's 200 answers for anonymous visitors under their version.

    ``version_of(request, **kwargs)`` returns ``(own, rest)``: ``own`` the page's poll
    token (a live poll holding it gets 204 at once, as the view would answer), and
    ``rest()`` the remaining parts of the key, read only when the page is served; or
    None not to keep this answer (a page that does not exist).
    """

    # The write counters the page's memo follows: its club's and the site's, or every write's.
    every = getattr(version_of, "of_every_club", False)

    def decorator(view):
        @functools.wraps(view)
        def wrapped(request: KeptPageRequest, *args, **kwargs) -> HttpResponse:
            if not served_from_cache(request):
                return view(request, *args, **kwargs)
            cache = caches[ALIAS]
            # Read before the key: a write committed after this read moves them past.
            polled = request.GET.get("version")
            if counting():
                counters = (EVERY,) if every else counters_of(request)
                memo, hit, kept = _recall(cache, request, counters, polled)
            else:
                memo, hit, kept = None, None, None
            if hit is not None and polled == hit[0]:
                return HttpResponse(status=204)  # a live poll that shows this version
            if hit is not None and hit[1] is not None:
                own, etag, key, version, _ages = hit
                request.page_version = version
            else:
                found = version_of(request, *args, **kwargs)
                if found is None:
                    return view(request, *args, **kwargs)
                own, rest = found
                if polled == own:
                    if memo is not None and hit is None:
                        _remember(cache, memo, (own, None, None, None, _ages_out()))
                    return HttpResponse(status=204)
                version = f"{own}|{rest()}"
                # The page's link preview names its picture by it (club.web.preview).
                request.page_version = version
                key = _key(request, version)
                etag = f'W/"{key[:32]}"'  # weak: the gzipped and the plain copy are one page
                if memo is not None:
                    _remember(cache, memo, (own, etag, key, version, _ages_out()))
            if etag in request.META.get("HTTP_IF_NONE_MATCH", ""):
                response = HttpResponseNotModified()
                _headers(response, etag)
                return response
            made = kept or _kept(cache, key, request, lambda: view(request, *args, **kwargs))
            if isinstance(made, HttpResponse):  # not kept: answered as the view answered
                return made
            return _answer(request, made, etag)

        return wrapped

    return decorator


def _ages_out() -> float:
    return time.time() + MEMO_TIMEOUT


def _kept(cache, key: str, request: HttpRequest, render) -> tuple | HttpResponse:
    """The page kept under ``key``, rendered and kept first when it is not (one reader of
    this process renders it, the others wait for it); the view's own answer when it is not
    one to keep (not a 200, or streamed). A shared cache that cannot be read or written
    changes nothing the reader sees: the page is rendered, as if nothing were kept."""
    try:
        kept = cache.get(key)
    except Exception:  # the shared cache is down
        return render()
    if kept is not None:
        return kept
    with key_lock(key):
        try:
            kept = cache.get(key)
        except Exception:  # down since: rendered below
            kept = None
        if kept is not None:
            return kept
        request.cached_page = True  # type: ignore[attr-defined]  # base.html: no CSRF token
        response = render()
        if response.status_code != 200 or response.streaming:
            return response
        # Kept once, gzipped, as nearly every reader takes it. A kept page holds no secret,
        # so the random padding against BREACH (GZipMiddleware) is not needed.
        kept = (response["Content-Type"], gzip.compress(response.content, 6, mtime=0))
        try:
            cache.set(key, kept, TIMEOUT)
        except Exception:  # down since: answered all the same, kept by no one
            pass
        return kept


def _remember(cache, memo: str, value: tuple) -> None:
    """Keep the memo: small, the page's poll token, ETag, key, version and when it ages out,
    never the page."""
    _know(memo, value)
    try:
        cache.set(memo, value, MEMO_TIMEOUT)
    except Exception:  # the shared cache is down: the next request reads the key again
        pass


def _answer(request: HttpRequest, kept: tuple, etag: str) -> HttpResponse:
    content_type, packed = kept
    if "gzip" in request.META.get("HTTP_ACCEPT_ENCODING", ""):
        response = HttpResponse(packed, content_type=content_type)
        response["Content-Encoding"] = "gzip"  # GZipMiddleware leaves it as it is
    else:  # a reader that takes no gzip (a script, a checker): unpacked for it alone
        response = HttpResponse(gzip.decompress(packed), content_type=content_type)
    _headers(response, etag)
    return response
