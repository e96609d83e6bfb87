"""The club's change token for cached pages: read in one query, moved with any rename.

Every cached page's key holds it (club.web.pages), beside its own object's
version (a game's ``updated_at``, a tournament's results version ...): a
player renamed in the register, a team renamed, a tournament edited in the
admin, or a whole club restored from a backup then changes the key of every
page, so none is served as it was.

The token is one row, and moving it locks that row until the change commits: a
change that moves it and then works on (an import of a large file, which adds
players and teams as it goes) would hold every other writer that moves it (a
game, a player or a team added anywhere) until it commits.
:func:`names_moved_once` keeps such a change's moves until its end: one move, as
its last statement.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from club.games.models import ClubVersion, Game, Player, Team


def club_version() -> str:
    """``generation.names``; the row is made on first use."""
    row = ClubVersion.objects.filter(pk=1).values_list("generation", "names").first()
    if row is None:
        new_generation()
        return club_version()
    return f"{row[0]}.{row[1]}"


# Per thread, as Django's connections are: another request's writes move the token at once.
_held = threading.local()


def bump_names() -> None:
    """A name or a detail every page may show has changed: move the token (in the
    caller's transaction, so it moves exactly when the change is committed)."""
    if getattr(_held, "owed", None) is not None:
        _held.owed = True
        return
    if not ClubVersion.objects.filter(pk=1).update(names=F("names") + 1):
        new_generation()


@contextmanager
def names_moved_once() -> Iterator[None]:
    """Inside a transaction: the token's moves asked for within the block are made once, as
    it ends without a fault, so its row is locked only from then until the commit. A block
    inside another leaves the move to the outer one."""
    if getattr(_held, "owed", None) is not None:
        yield
        return
    _held.owed = False
    try:
        yield
        owed = _held.owed
    finally:
        _held.owed = None
    if owed:
        bump_names()


def new_generation() -> None:
    """A new club under the same ids (a restore): no page cached before can match."""
    try:
        with transaction.atomic():
            ClubVersion.objects.update_or_create(pk=1, defaults={"generation": uuid.uuid4().hex})
    except IntegrityError:  # made at the same moment by another request: it is there now
        pass


@receiver(post_delete, sender=Game, dispatch_uid="club-version-game-gone")
@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="club-version-login")
@receiver(post_save, sender=Player, dispatch_uid="club-version-player")
@receiver(post_delete, sender=Player, dispatch_uid="club-version-player-gone")
@receiver(post_save, sender=Team, dispatch_uid="club-version-team")
@receiver(post_delete, sender=Team, dispatch_uid="club-version-team-gone")
def names_changed(sender, **kwargs) -> None:
    """A player, a team or an organiser's login saved, or a game deleted (in the admin)."""
    if kwargs.get("raw"):  # loaddata and restores write rows as they were
        return
    if sender is not Player and sender is not Team and sender is not Game:
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and set(update_fields) <= {"last_login", "password"}:
            return  # a login, not a rename: no page shows it
    bump_names()
