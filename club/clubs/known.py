"""The site's clubs as every request needs them, kept in this process without a query.

A request's club is found from its address on every page, so the list is kept in memory:
read once, forgotten when a club is saved or deleted in this process, and read again at
most :data:`KEEP_SECONDS` after another process (``manage.py add_club``, another app
server) changed it. A short name not in the list is looked up before the address is
refused, so a club just added answers at once everywhere.

The *home club* is the first club made: the club a one-club site serves at its short
addresses and the club code means when it names none. A site without any club (a new
database) makes it on first need, named by ``DJANGO_CLUB_NAME`` and
``DJANGO_CLUB_SLUG`` (by default "56 Club" at ``club``).
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from functools import cached_property

from django.db import transaction
from django.db.models.signals import m2m_changed, post_delete, post_save

from club.clubs.models import Club

KEEP_SECONDS = 30.0


@dataclass(frozen=True)
class Clubs:
    """The site's clubs, by short name, and its home club."""

    by_slug: dict[str, Club]
    home: Club
    read_at: float

    @cached_property
    def by_pk(self) -> dict[int, Club]:
        """The clubs by key, made once a reading: a page of 50 lines, each naming its
        player's clubs, asked for it 50 times (at 200 clubs, 10,000 entries a page)."""
        return {club.pk: club for club in self.by_slug.values()}

    @property
    def several(self) -> bool:
        return len(self.by_slug) > 1


_kept: Clubs | None = None
_lock = threading.Lock()
# Counts the forgettings: a reading begun before the clubs were forgotten (another thread's,
# while a club was saved or the database emptied) is not kept, as it may name a club gone.
_forgotten = 0
# Set when a club is saved or deleted in this process (the tests forget the clubs then).
changed = False


def forget(**_kwargs) -> None:
    """Read the clubs again on next need (a club was saved or deleted, or a test ended)."""
    global _kept, _forgotten
    _forgotten += 1
    _kept = None


def _changed(**_kwargs) -> None:
    global changed
    changed = True
    forget()


def _read() -> Clubs:
    clubs = list(Club.objects.order_by("pk"))
    if not clubs:
        clubs = [_make_home()]
    return Clubs({club.slug: club for club in clubs}, clubs[0], time.monotonic())


def _make_home() -> Club:
    with transaction.atomic():
        club, _made = Club.objects.get_or_create(
            slug=os.environ.get("DJANGO_CLUB_SLUG", "club").strip() or "club",
            defaults={"name": os.environ.get("DJANGO_CLUB_NAME", "56 Club").strip() or "56 Club"},
        )
    return club


def clubs() -> Clubs:
    """The site's clubs, read again when kept longer than :data:`KEEP_SECONDS`."""
    global _kept
    kept = _kept
    if kept is None or time.monotonic() - kept.read_at > KEEP_SECONDS:
        with _lock:
            began = _forgotten
            kept = _read()
            if began == _forgotten:
                _kept = kept
    return kept


def home() -> Club:
    """The site's home club (made on first need on a site without one)."""
    return clubs().home


def home_id() -> int:
    """The home club's key: the club of a game or tournament made without naming one."""
    return home().pk


def by_id(pk: int | None) -> Club:
    """The club with key ``pk`` (read again if this process does not know it yet); the home
    club for None."""
    if pk is None:
        return home()
    club = clubs().by_pk.get(pk)
    if club is None:
        forget()
        club = clubs().by_pk.get(pk)
    if club is None:
        raise Club.DoesNotExist(pk)
    return club


def named(pks) -> list[Club]:
    """The clubs of these keys that this process knows, by name (a page's list of them)."""
    kept = clubs().by_pk
    return sorted((kept[pk] for pk in set(pks) if pk in kept), key=lambda club: club.name)


def by_slug(slug: str) -> Club | None:
    """The club at ``/clubs/<slug>/``, or None; a short name not kept is looked up."""
    club = clubs().by_slug.get(slug)
    if club is None and Club.objects.filter(slug=slug).exists():
        forget()
        club = clubs().by_slug.get(slug)
    return club


post_save.connect(_changed, sender=Club, dispatch_uid="clubs-forget-saved")
post_delete.connect(_changed, sender=Club, dispatch_uid="clubs-forget-deleted")
m2m_changed.connect(
    _changed, sender=Club.organisers.through, dispatch_uid="clubs-forget-organisers"
)
