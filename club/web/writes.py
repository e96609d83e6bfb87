"""Which kept pages a write may change: the write counters of the shared pages cache.

A kept page (club.web.pages) is remembered beside the write counters it read, and a
transaction that commits a write moves the counters of the pages it may change: a
page read again under the same counters is served from the memo, with no query.
On a site of many clubs one club's deal must not send every other club's pages back
to the database, so there are three kinds of counter:

- a club's (``writes|<club id>``): a transaction that writes only rows of one club
  (its games, their deals and seats, its tournaments, its members, its token) *for*
  that club moves it. A write learns its club from :func:`writes_of`: the middleware
  of club.clubs.writing sets it for a request at the club's address, and a command
  given ``--club`` sets it around its work;
- the site's (``writes``): a write of a row no one club owns (a player, a team, the
  ratings and figures, a club, a login), or of any row with no club known (the admin,
  a restore, a command without ``--club``, work left until after an answer);
- every write's (``writes|every``): moved by every transaction that writes.

A club's page reads its club's counter and the site's (:func:`counters_of`, one MGET
with its memo); a page of no club (the federation's ranking and its API) reads every
write's. So a deal in one club leaves every other club's memos as they were, and a
rename of a player (who may play in several clubs) sends every club's pages to read
their keys again, which are new only where the player shows (club.games.versions).
A write whose effect on another club is known moves that club's counter too
(:func:`clubs_changed`: a club's token moved for it).

In this process's own memory (the default) there are no counters: another gunicorn
worker's write would not reach it (:func:`counting`).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.conf import settings
from django.core.cache import caches
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.backends.signals import connection_created
from django.http import HttpRequest

ALIAS = "pages"  # the cache the counters live in, beside the pages
WRITES = "writes"  # the site's counter (the one counter of before, under its old key)
EVERY = "writes|every"  # moved by every write: the pages of no club read it
# Rows no kept page shows: a session, a one-time key, a login attempt, a table's call for
# the director (shown on organisers' pages and the table's own, never kept).
UNSEEN = frozenset(
    {
        "django_session",
        "games_submittedform",
        "games_directorcall",
        "axes_accessattempt",
        "axes_accesslog",
        "axes_accessfailurelog",
    }
)
# Rows that belong to one club and show on its pages only (and on the pages of no
# club, which follow every write): its games and what hangs off them, its token, and
# every row of its tournaments. Any other row may show on every club's page: a member
# joining a club too (a player's page at each of their clubs names them all).
CLUB_TABLES = frozenset(
    {
        "games_game",
        "games_gameteam",
        "games_round",
        "games_pile",
        "games_ledgerentry",
        "games_change",
        "games_pendingdeal",
        "games_rejecteddeal",
        "games_scorerlink",
        "games_clubversion",
    }
)
CLUB_TABLE_PREFIXES = ("tournaments_", "competitions_")
# A login's own write: its time, which no page shows (a rename of the login is seen).
_LOGIN = re.compile(
    r'\s*UPDATE\s+"?auth_user"?\s+SET\s+"?last_login"?\s*=\s*%s\s+WHERE\b', re.IGNORECASE
)
_WRITE = re.compile(
    r"\s*(?:INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE|DELETE\s+FROM|REPLACE\s+INTO|TRUNCATE"
    r"|DELETE|INSERT|ALTER|DROP|CREATE)\b\s*(?:TABLE\s+)?(?:ONLY\s+)?\"?(\w*)",
    re.IGNORECASE,
)
logger = logging.getLogger(__name__)
# The club the writes of this request or command are for (None: no club known).
_club: ContextVar[int | None] = ContextVar("club_writes_of", default=None)
_unseen: ContextVar[bool] = ContextVar("club_writes_unseen", default=False)


def counting() -> bool:
    """Whether the write counters are kept: only in a cache every process shares."""
    chosen = getattr(settings, "PAGES_WRITE_COUNTER", None)
    if chosen is not None:
        return bool(chosen)
    backend = settings.CACHES.get(ALIAS, {}).get("BACKEND", "")
    return not backend.endswith(("LocMemCache", "DummyCache"))


def club_counter(club_id: int) -> str:
    return f"{WRITES}|{club_id}"


def counters_of(request: HttpRequest) -> tuple[str, ...]:
    """The counters a page's memo is valid under: its club's and the site's; every
    write's for a page of no club."""
    club = getattr(request, "club", None)
    return (club_counter(club.pk), WRITES) if club is not None else (EVERY,)


def writing_club() -> int | None:
    """The club the writes made now are for, if one is known."""
    return _club.get()


@contextmanager
def writes_of(club_id: int | None) -> Iterator[None]:
    """Within it, writes are ``club_id``'s (None: of no known club)."""
    token = _club.set(club_id)
    try:
        yield
    finally:
        _club.reset(token)


@contextmanager
def unseen() -> Iterator[None]:
    """Within it, writes change no page (a club's token row made on first use: no page
    was kept under a row that was not there), and move no counter."""
    token = _unseen.set(True)
    try:
        yield
    finally:
        _unseen.reset(token)


class _Moves:
    """The counters one transaction moves once it has committed."""

    def __init__(self, counters: set[str]) -> None:
        self.counters = counters

    def __call__(self) -> None:
        cache = caches[ALIAS]
        for counter in sorted(self.counters):
            _move(cache, counter)


def _move(cache, counter: str) -> None:
    try:
        try:
            cache.incr(counter)
        except ValueError:  # gone (evicted, or a new release): start past every old value
            if not cache.add(counter, time.time_ns(), None):
                cache.incr(counter)
    except Exception:
        logger.warning(
            "The pages cache's write counter %s could not be moved", counter, exc_info=True
        )


def _owe(connection, counters: set[str]) -> None:
    """The transaction on ``connection`` moves ``counters`` (and every write's) at its commit."""
    if connection.in_atomic_block:
        # Once per transaction: moves already waiting here, or in a block around this
        # one, run at the commit (those of a savepoint rolled back are gone).
        level = set(connection.savepoint_ids)
        for sids, func, _robust in connection.run_on_commit:
            if isinstance(func, _Moves) and set(sids) <= level:
                func.counters |= counters
                return
    transaction.on_commit(_Moves({EVERY, *counters}), using=connection.alias, robust=True)


def clubs_changed(club_ids: Iterable[int] | None) -> None:
    """What the pages of these clubs show changed in the transaction under way (None:
    every club's): their counters move at its commit, whatever club it writes for."""
    if not counting():
        return
    counters = {WRITES} if club_ids is None else {club_counter(pk) for pk in club_ids}
    if counters:
        _owe(connections[DEFAULT_DB_ALIAS], counters)


def _counter_for(table: str) -> str:
    club = _club.get()
    if club is not None and (table in CLUB_TABLES or table.startswith(CLUB_TABLE_PREFIXES)):
        return club_counter(club)
    return WRITES


def _writes(execute, sql, params, many, context):
    result = execute(sql, params, many, context)
    # The settings first: in a worker's own memory (the default) there is no counter.
    found = _WRITE.match(sql) if counting() and isinstance(sql, str) and not _unseen.get() else None
    if found:
        table = found.group(1).lower()
        if table not in UNSEEN and not (table == "auth_user" and _LOGIN.match(sql)):
            _owe(context["connection"], {_counter_for(table)})
    return result


def _watch(sender, connection, **kwargs) -> None:
    if _writes not in connection.execute_wrappers:
        connection.execute_wrappers.append(_writes)


def watch_writes() -> None:
    """Move the counters after each commit that wrote, on every connection made from now on
    (club.games' ready(): every process that loads the apps, commands included)."""
    connection_created.connect(_watch, dispatch_uid="club-pages-writes")
