"""Each club's change token for cached pages: read in one query, moved with any rename.

Every cached page of a club holds its club's token in its key (club.web.pages), beside
its own object's version (a game's ``updated_at``, a tournament's results version ...):
a player renamed in the register, a team renamed, a tournament edited in the admin, or
the whole site restored from a backup then changes the key of every page of the clubs
that show them, so none is served as it was, and the other clubs' keys stay as they
were. Which clubs a change moves:

- a game deleted: its club's; a tournament, its teams, sittings or stages saved: the
  club the write is for (club.web.writes), every club's when none is known;
- a player saved: the clubs they are a member of (a new player is nobody's yet); a
  player deleted: every club's (their memberships are gone by then);
- a team saved or deleted: the clubs any of its players is a member of (a team shows
  only where its players play);
- an organiser's login saved (a rename shows in every game's history, and a site
  administrator writes in every club): every club's; a restore: every club's, anew.

A club's row is made with the club (and on first use, for a club that has none).

The federation's pages (no club) read :func:`every_club_version`, which moves with any
club's token.

A token is one row, and moving it locks that row until the change commits: a change
that moves it and then works on (an import of a large file, which adds players and
teams as it goes) would hold every other writer that moves it (a game, a player or a
team added in that club) until it commits. :func:`names_moved_once` keeps such a
change's moves until its end: one move, as its last statement.
"""

from __future__ import annotations

import hashlib
import threading
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db.models import F
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from club.clubs.models import Club
from club.db.prepared import prepared
from club.games.models import ClubVersion, Game, Membership, Player, Team
from club.web import writes


@prepared
def _version_of(club: int):
    return ClubVersion.objects.filter(club_id=club).values_list("generation", "names")[:1]


def club_version(club: Club) -> str:
    """``club``'s token, ``generation.names``; its row is made on first use (prepared:
    every kept page of the club reads it)."""
    found = _version_of(club.pk)
    row = found[0] if found else None
    if row is None:
        with writes.unseen():  # no page was kept under a row that was not there
            _make_rows({club.pk})
        return club_version(club)
    return f"{row[0]}.{row[1]}"


def every_club_version() -> str:
    """The token of the pages of no club (the federation's): it moves whenever any club's
    does, a club's row is made or goes (one query, a short row a club)."""
    rows = ClubVersion.objects.order_by("club_id").values_list("club_id", "generation", "names")
    return hashlib.sha256(repr(list(rows)).encode()).hexdigest()[:32]


def _make_rows(club_ids: set[int]) -> None:
    """Rows for these clubs (those made meanwhile by another request stay as they are)."""
    generation = uuid.uuid4().hex
    ClubVersion.objects.bulk_create(
        [ClubVersion(club_id=pk, generation=generation) for pk in sorted(club_ids)],
        ignore_conflicts=True,
    )


# Per thread, as Django's connections are: another request's writes move the tokens at once.
# Within names_moved_once: ``holding``, and the clubs ``owed`` a move (None: every club).
_held = threading.local()


def bump_names(clubs: Iterable[int] | None = None, *, every: bool = False) -> None:
    """A name or a detail the pages of ``clubs`` (their keys) show has changed: move their
    tokens, in the caller's transaction, so they move exactly when the change is
    committed. No clubs named: the club the write is for (club.web.writes), or every club
    when none is known; ``every``: every club's."""
    if every:
        chosen: set[int] | None = None
    elif clubs is not None:
        chosen = set(clubs)
    else:
        writing = writes.writing_club()
        chosen = None if writing is None else {writing}
    if getattr(_held, "holding", False):  # inside names_moved_once: one move at its end
        owed: set[int] | None = _held.owed
        _held.owed = None if owed is None or chosen is None else owed | chosen
        return
    _move(chosen)


def _move(clubs: set[int] | None) -> None:
    if clubs is None:
        clubs = set(Club.objects.values_list("pk", flat=True))
    if not clubs:
        return
    moved = ClubVersion.objects.filter(club_id__in=clubs).update(names=F("names") + 1)
    if moved < len(clubs):
        # A club with no row yet: made here, in this transaction, and moved, so a reader
        # that made it at the same moment cannot keep a page under it that misses this change.
        _make_rows(clubs)
        ClubVersion.objects.filter(club_id__in=clubs).update(names=F("names") + 1)
    writes.clubs_changed(clubs)


@contextmanager
def names_moved_once() -> Iterator[None]:
    """Inside a transaction: the tokens' moves asked for within the block are made once, as
    it ends without a fault, so their rows are locked only from then until the commit. A
    block inside another leaves the move to the outer one."""
    if getattr(_held, "holding", False):
        yield
        return
    _held.holding, _held.owed = True, set()
    try:
        yield
        owed: set[int] | None = _held.owed
    finally:
        _held.holding = False
    if owed is None or owed:
        _move(owed)


def new_generation(club_ids: Iterable[int] | None = None) -> None:
    """A new site under the same ids (a restore; of these clubs only, when named): no page
    of theirs cached before can match. A club with no row (every club, after a restore of
    the site) has one made anew on first use."""
    rows = ClubVersion.objects.all()
    if club_ids is not None:
        club_ids = set(club_ids)
        rows = rows.filter(club_id__in=club_ids)
    rows.update(generation=uuid.uuid4().hex, names=F("names") + 1)
    writes.clubs_changed(club_ids)


@receiver(post_save, sender=Club, dispatch_uid="club-version-new-club")
def club_made(sender, instance, created, raw=False, **kwargs) -> None:
    """A new club has its token with it: its first page reads it in one query. (A club
    loaded raw, by a restore or a fixture, has it made on first use.)"""
    if created and not raw:
        _make_rows({instance.pk})


@receiver(post_delete, sender=Game, dispatch_uid="club-version-game-gone")
def game_deleted(sender, instance, **kwargs) -> None:
    """A game deleted (in the admin): its club's games list no longer has it."""
    bump_names({instance.club_id})


@receiver(post_save, sender=Player, dispatch_uid="club-version-player")
def player_saved(sender, instance, created, raw=False, **kwargs) -> None:
    """A player renamed (or their details changed): the clubs they play in."""
    if raw or created:  # loaddata and restores write rows as they were; a new player shows nowhere
        return
    bump_names(Membership.objects.filter(player_id=instance.pk).values_list("club_id", flat=True))


@receiver(post_delete, sender=Player, dispatch_uid="club-version-player-gone")
def player_deleted(sender, **kwargs) -> None:
    """A player deleted (folded into another by a merge)."""
    bump_names(every=True)


@receiver(post_save, sender=Team, dispatch_uid="club-version-team")
@receiver(post_delete, sender=Team, dispatch_uid="club-version-team-gone")
def team_changed(sender, instance, raw=False, **kwargs) -> None:
    """A team saved or deleted: the clubs its players play in."""
    if raw:
        return
    players = Membership.objects.filter(player_id__in=instance.player_ids)
    bump_names(players.values_list("club_id", flat=True).distinct())


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="club-version-login")
def login_saved(sender, created=False, raw=False, update_fields=None, **kwargs) -> None:
    """An organiser's login saved: the name a game's history shows of who changed it."""
    if raw or created:  # a new login has changed nothing yet
        return
    if update_fields is not None and set(update_fields) <= {"last_login", "password"}:
        return  # a login, not a rename: no page shows it
    bump_names(every=True)
