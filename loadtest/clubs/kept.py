"""Each club's kept pages, after the nights, against a fresh render of each.

A visitor's page (no session) is kept in the shared Redis under its version
(``club.web.pages``). After the last write, each club's pages are read as a visitor from
both servers: both must answer the same bytes (one copy, kept for both: the second
server reads what the first kept, when the nights had not kept it already). Then this run's
kept pages are deleted from Redis, its keys only (the run's release name is in each),
and each page is read again, rendered afresh from the database: it must equal what was
kept. Pages whose copy was made during the nights (its key was in Redis before the
reads) are counted apart.
"""

from __future__ import annotations

import http.client
import time

from loadtest.clubs.browser import Answer, Browser
from loadtest.clubs.world import Site


def pages(site: Site) -> list[tuple[str, bool]]:
    """Each club's public pages: (path, as htmx asks for its live part)."""
    found = []
    for club in site.clubs:
        tournament = club.at(f"/tournaments/{club.tournament}/")
        found += [(club.at("/"), False), (tournament, False), (tournament + "live/", True)]
        found += [(club.at("/leaderboards/"), False)]
        for game in club.games:
            found += [(club.at(f"/games/{game}/"), False), (club.at(f"/games/{game}/"), True)]
    return found


def _read(browser: Browser, path: str, htmx: bool, port: int) -> Answer | None:
    for attempt in range(10):
        try:
            answer = browser.request("GET", path, htmx=htmx, port=port)
        except (OSError, http.client.HTTPException):
            answer = None
        if answer is not None and answer.status < 500:
            return answer
        time.sleep(0.2 * (attempt + 1))
    return None


def _keys(site: Site, redis_url: str) -> set[str]:
    import redis

    server = redis.Redis.from_url(redis_url)
    return {
        key.decode().rsplit(":", 1)[-1]
        for key in server.scan_iter(match=f"club-pages-{site.release}-*", count=1000)
    }


def forget_pages(site: Site, redis_url: str) -> int:
    """Delete this run's kept pages (and write counter) from Redis; how many keys."""
    import redis

    server = redis.Redis.from_url(redis_url)
    keys = list(server.scan_iter(match=f"club-pages-{site.release}-*", count=1000))
    for start in range(0, len(keys), 500):
        server.delete(*keys[start : start + 500])
    return len(keys)


def compare(site: Site, ports: list[int], redis_url: str, rng) -> tuple[int, int, list[str]]:
    """(pages compared, of them kept during the nights, differences)."""
    before = _keys(site, redis_url)
    browser = Browser(ports, rng)
    kept: dict[tuple[str, bool], Answer] = {}
    differ: list[str] = []
    during = 0
    for path, htmx in pages(site):
        answers = [_read(browser, path, htmx, port) for port in ports]
        if any(a is None or a.status != 200 for a in answers):
            differ.append(f"{path}: {[a and a.status for a in answers]}")
            continue
        if len({a.body for a in answers}) != 1:
            differ.append(f"{path} (htmx {htmx}): the two servers answered different pages")
            continue
        kept[(path, htmx)] = answers[-1]
        etag = answers[-1].header("ETag").removeprefix('W/"').rstrip('"')
        during += any(key.startswith(etag) for key in before) if etag else 0
    forget_pages(site, redis_url)
    for (path, htmx), answer in kept.items():
        fresh = _read(browser, path, htmx, ports[0])
        if fresh is None or fresh.body != answer.body:
            differ.append(f"{path} (htmx {htmx}): the kept page differs from a fresh render")
    return len(kept), during, differ
