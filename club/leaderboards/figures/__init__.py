"""The leaderboard figures, kept up to date instead of counted per request.

Every finished game has one :class:`PlayerGameFigures` row per player and one
:class:`TeamGameFigures` row per team, computed from its stored deals, ledger
and places (:mod:`.counting`), each filed under the game's club; every side that played
has a row of totals over all its games, the site's (the federation's figures), and one
at each club it played in, over that club's games (:mod:`.totals`).
:func:`refresh_game` rewrites a game's rows and its sides' totals; the scoring
services call it (through ``game_changed``) in the transaction of any change to
a game, so a board never shows a result without its figures. The cost is one
game's deals and the totals of its sides' own games, whatever the size of the
site's history.

:func:`rebuild_all` recomputes everything from the deals (``manage.py
rebuild_leaderboards``, :mod:`.setwise`), and :func:`drift` compares what is stored with
a recomputation, for the command's check and for the tests (:mod:`.checks`).

The figures are defined in :mod:`club.leaderboards.selectors`. A game is won by
the team it names its winner (``Game.winner``: the team placed first alone, as the
game's services decide); a level game, its first place shared, is played and won by
none. The three ways of counting here (a game at a time, the set-wise rebuild, and the
count from the deals the tests and the drift check hold them to) all read that winner.
"""

from __future__ import annotations

from collections.abc import Iterable

from club.games.models import Game, GameTeam, in_a_seat
from club.leaderboards.figures.checks import BATCH as BATCH
from club.leaderboards.figures.checks import drift as drift
from club.leaderboards.figures.counting import COUNTS as COUNTS
from club.leaderboards.figures.counting import FIELDS as FIELDS
from club.leaderboards.figures.counting import GAME_FIELDS as GAME_FIELDS
from club.leaderboards.figures.counting import SUMS as SUMS
from club.leaderboards.figures.counting import WON as WON
from club.leaderboards.figures.counting import games_figures
from club.leaderboards.figures.setwise import rebuild_all as rebuild_all
from club.leaderboards.figures.totals import add_to_totals, sum_again
from club.leaderboards.models import PlayerGameFigures, TeamGameFigures

REFRESH_AT_ONCE = 25  # games whose rows one pass reads and writes: its memory, its statement


def refresh_games(game_ids: list[int], *, had_rows: bool = True) -> None:
    """Rewrite the rows of these games (none for a game not finished) and their sides' totals.

    ``had_rows=False`` says none of the games was finished before this change
    (a game finishing now), so there are no old rows to look for.
    """
    if len(game_ids) > REFRESH_AT_ONCE:  # an import's thousands: a statement's worth at a time
        for start in range(0, len(game_ids), REFRESH_AT_ONCE):
            refresh_games(game_ids[start : start + REFRESH_AT_ONCE], had_rows=had_rows)
        return
    before_players: set[int] = set()
    before_teams: set[int] = set()
    if had_rows:
        before_players = set(
            PlayerGameFigures.objects.filter(game_id__in=game_ids).values_list(
                "player_id", flat=True
            )
        )
        before_teams = set(
            TeamGameFigures.objects.filter(game_id__in=game_ids).values_list("team_id", flat=True)
        )
        PlayerGameFigures.objects.filter(game_id__in=game_ids).delete()
        TeamGameFigures.objects.filter(game_id__in=game_ids).delete()
    players, teams = games_figures(game_ids)
    PlayerGameFigures.objects.bulk_create(players)
    TeamGameFigures.objects.bulk_create(teams)
    if not had_rows:
        add_to_totals(players, teams)
        return
    sum_again(
        before_players | {row.player_id for row in players},
        before_teams | {row.team_id for row in teams},
    )


def file_under_tournament(game_id: int, tournament_id: int | None) -> None:
    """The game's rows count for this tournament's boards (None: for no tournament). No
    totals move: they count every game, and the game's club is the tournament's."""
    for model in (PlayerGameFigures, TeamGameFigures):
        model.objects.filter(game_id=game_id).update(tournament_id=tournament_id)


def refresh_game(game: Game, *, was_finished: bool = True) -> None:
    refresh_games([game.pk], had_rows=was_finished)


def refresh_sides(players: Iterable[int]) -> None:
    """After seats move between players (a merge): rewrite the games of these players.

    Their totals are summed again with the games' other sides.
    """
    players = set(players)
    games = set(
        GameTeam.objects.filter(in_a_seat(players, lookup="__in")).values_list("game_id", flat=True)
    )
    refresh_games(sorted(games))


def forget_sides(players: Iterable[int], teams: Iterable[int]) -> None:
    """After games were deleted (their rows went with them): sum these sides again."""
    sum_again(players, teams)
