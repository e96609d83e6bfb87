"""The parts of a player's page that follow from their own history, kept by each process.

The page is kept whole under a key that holds the ratings' token, which moves with every
game finished anywhere (selectors.live_version): after each game of a club night every
player's page is rendered again, though only the players of that game have anything new.
What follows from the player's own history (their figures, ratings and chart, the first
page of their games, their latest night in review) is kept here under a key of theirs
alone, so such a render reads only the rest. It is kept for a player of one club, whose
every game is that club's; a player of several clubs is read afresh (their figures are
every club's, and each club's beside it). The key holds:

- their newest game at the club and anywhere (every change to a game moves its
  ``updated_at``);
- the highest id of their rating changes: a re-rating deletes every change from a
  position on and writes them again, so a player whose changes moved has new, higher
  ids, and a game deleted takes its changes with it;
- the club's token (a game deleted; a player or team renamed, merged or deleted; a
  restore: club.games.versions), the club's time zone (the night's days) and the
  language (the night's words).

A game's ``updated_at`` is the moment it was saved, not the moment its change was
committed: two changes to two of the player's games at once may commit in the other
order, the later stamp first, and the earlier one then leaves the newest stamp where it
was. So parts are kept, and read, only for a player whose latest change is
:data:`SETTLED` old: a change still uncommitted that long after it was stamped would have
to hold its transaction for minutes. A player playing tonight is read afresh, as their
page changes with every deal anyway.

They are kept in this process's memory, :data:`KEPT` players' at most, the least recently
read dropped first: never written to the database by a page's read (a write there moves
the club's write counter, and every kept page with it), never shared between processes (a
new release reads afresh). With ``PROFILE_PARTS_CHECK`` on (the test suite), every part
read here is compared with a fresh reading, and a difference raises: each writing path
the suite drives checks the key.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import OrderedDict
from collections.abc import Callable

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS
from django.db.models import Count, OuterRef, Subquery
from django.utils import timezone
from django.utils.translation import get_language

from club.clubs import known
from club.clubs.models import Club
from club.db.prepared import prepared
from club.games.models import Game, Player, in_a_seat
from club.games.people import Membership
from club.leaderboards.models import RatingChange
from club.leaderboards.selectors import newest_game

KEPT = 128  # players' parts a process keeps: each some tens of kilobytes
SETTLED = dt.timedelta(minutes=5)  # how old a player's latest change is before it is kept

_kept: OrderedDict[tuple, dict] = OrderedDict()
_lock = threading.Lock()
read_kept = 0  # parts read from what was kept, since the process started (the tests count)


class StaleParts(AssertionError):
    """Parts kept under a key that a change did not move (raised with the check on)."""


def own_versions() -> dict[str, Subquery]:
    """Annotations of a player (a queryset of players) for the key: their newest game at
    any club, and their latest rating change."""
    games = Game.objects.filter(in_a_seat(OuterRef("pk"), "teams__")).order_by("-updated_at")
    changes = RatingChange.objects.filter(player=OuterRef("pk")).order_by("-pk")
    return {
        "newest_anywhere": Subquery(games.values("updated_at")[:1]),
        "rated": Subquery(changes.values("pk")[:1]),
    }


# What the key's read of the player holds: their details, and besides them the rest.
DETAILS = tuple(field.attname for field in Player._meta.concrete_fields)
KEYED = ("clubs", "newest", "newest_anywhere", "rated")


@prepared
def _keyed(pk: int, club: int):
    clubs = Membership.objects.filter(player=OuterRef("pk")).order_by().values("player")
    return (
        Player.objects.filter(memberships__club=club, pk=pk)
        .annotate(
            clubs=Subquery(clubs.annotate(count=Count("*")).values("count")),
            newest=newest_game(OuterRef("pk"), club),
            **own_versions(),
        )
        .values(*DETAILS, *KEYED)[:1]
    )


def keyed_player(pk: int, club: Club) -> Player | None:
    """The club's player ``pk`` as their page's key reads them (club.leaderboards.views),
    None for a player who is not one of the club's: their details, and as attributes the
    count of their clubs, their newest game at the club and anywhere, their latest rating
    change. One query, prepared (club.db.prepared): every read of a profile asks it."""
    found = _keyed(pk, club.pk)
    if not found:
        return None
    row = found[0]
    player = Player.from_db(DEFAULT_DB_ALIAS, DETAILS, [row[name] for name in DETAILS])
    for name in KEYED:
        setattr(player, name, row[name])
    return player


def forget() -> None:
    """Drop every part kept (the benchmarks' first render after the player's own change)."""
    with _lock:
        _kept.clear()


def settled(player: Player) -> bool:
    """Whether ``player``'s parts may be kept: their latest change, at any club, is
    :data:`SETTLED` old (or they have none)."""
    newest = getattr(player, "newest_anywhere", None)
    return newest is None or timezone.now() - newest >= SETTLED


def parts(player: Player, club: Club, token: str, read: Callable[[], dict]) -> dict:
    """The parts ``read`` returns for ``player`` at ``club``, kept under their key: the
    player as the page's key read them (club.leaderboards.views.profile_version), the
    club's ``token`` (club.games.versions.club_version). Read afresh, and not kept, for a
    player whose latest change is not :func:`settled`. The parts hold no one's details
    the page shows of them (the player, their clubs): those are the request's own."""
    if not settled(player):
        return read()
    key = (
        player.pk,
        club.pk,
        get_language(),
        known.by_id(club.pk).time_zone,
        token,
        getattr(player, "newest", None),
        getattr(player, "newest_anywhere", None),
        getattr(player, "rated", None),
    )
    global read_kept
    with _lock:
        found = _kept.get(key)
        if found is not None:
            _kept.move_to_end(key)
            read_kept += 1
    checked = getattr(settings, "PROFILE_PARTS_CHECK", False)
    if found is not None and not checked:
        return found
    fresh = read()
    if found is not None:
        if found != fresh:
            differ = sorted(name for name in fresh if found.get(name) != fresh[name])
            raise StaleParts(f"player {player.pk}'s kept parts differ from a fresh read: {differ}")
        return found
    with _lock:
        _kept[key] = fresh
        while len(_kept) > KEPT:
            _kept.popitem(last=False)
    return fresh
