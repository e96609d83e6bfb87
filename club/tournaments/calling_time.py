"""Calling time on a sitting: every game of it still being played ends now.

A table with no deal recorded ends level (docs/rules.md, "A table with no deal"): its
teams share the first place and none of them wins. That is seldom what a director means
without a word (a table that never sat down, a phone that never sent a deal), so the
director's page names those tables and asks first; nothing ends until the director has
agreed to end exactly the tables with no deal, as they are when time is called.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import NamedTuple

from django.db import transaction
from django.utils.translation import ngettext_lazy

from club.games import services as scoring
from club.games.models import Game, GameTeam
from club.tournaments.models import Sitting, TournamentEvent
from club.tournaments.writes import TournamentError, check_editable, log

# What the director is told of tables with no deal, when calling time has not agreed to
# end them level.
NO_DEAL_YET = ngettext_lazy(
    "%(count)d table has no deal: agree that it ends level before time is called.",
    "%(count)d tables have no deal: agree that they end level before time is called.",
    "count",
)


class NoDealTable(NamedTuple):
    """A table of the sitting still being played, with no deal recorded."""

    game: int
    label: str  # as stored: "Table 3" (words.table_title shows it in the reader's words)
    teams: tuple[str, ...]


class TimeCalled(NamedTuple):
    ended: int  # games ended
    level: int  # of them, games with no deal, ended level


class NoDealYet(TournamentError):
    """Tables with no deal that the director has not agreed to end level; ``tables`` names
    every table with no deal, to agree to at once."""

    def __init__(self, tables: list[NoDealTable]):
        super().__init__(NO_DEAL_YET % {"count": len(tables)})
        self.tables = tables


def no_deal_tables(games: list[Game]) -> list[NoDealTable]:
    """Those of ``games`` (a sitting's) with no deal, in the sitting's order, with their
    teams' names. A knockout's game is not one: it cannot end level, so time leaves it be."""
    empty = [game.pk for game in games if game.ends_level_if_called]
    if not empty:
        return []
    teams: dict[int, list[str]] = {pk: [] for pk in empty}
    for game_id, name in (
        GameTeam.objects.filter(game_id__in=empty)
        .order_by("game_id", "position")
        .values_list("game_id", "team__name")
    ):
        teams[game_id].append(name)
    return [
        NoDealTable(game.pk, game.sitting_entry.table_label, tuple(teams[game.pk]))
        for game in sorted(games, key=lambda game: game.sitting_entry.position)
        if game.pk in teams
    ]


def playing(sitting: Sitting, *, lock: bool = False) -> list[Game]:
    """The games of ``sitting`` still being played, each with its table."""
    games = Game.objects.filter(sitting_entry__sitting=sitting, status=Game.Status.IN_PROGRESS)
    if lock:
        games = games.select_for_update(of=("self",))
    return list(games.select_related("sitting_entry").order_by("pk"))


def call_time(*, sitting: Sitting, user=None, agreed: Collection[int] | None = None) -> TimeCalled:
    """End every game of the sitting still being played.

    ``agreed``: the games with no deal that the director agreed to end level. When it is
    given, a game with no deal that is not among them refuses the whole call
    (:class:`NoDealYet`, naming them) and nothing ends. Code that needs no question asked
    (an import, a test) leaves it out.

    One transaction. Every game still being played is locked first, in one order, before
    the tournament (which ending a game locks, to rebuild the standings): a scorer who holds
    one game's lock then waits for nothing the director holds, and two directors calling
    time at once wait one for the other, so no one is deadlocked.
    """
    check_editable(sitting.tournament)
    with transaction.atomic():
        games = playing(sitting, lock=True)
        if agreed is not None:
            empty = no_deal_tables(games)
            if any(table.game not in agreed for table in empty):
                raise NoDealYet(empty)
        ended = level = 0
        for game in games:
            try:
                scoring.end_game(game=game, user=user)
            except scoring.ScoringError:
                # A knockout game still level plays on; without row locks (SQLite), a
                # game may also have ended by itself since it was read.
                continue
            ended += 1
            if game.deals_played == 0:
                level += 1
        log(sitting.tournament, TournamentEvent.Action.TIME_CALLED, user, sitting=sitting)
    return TimeCalled(ended, level)
