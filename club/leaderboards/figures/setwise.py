"""Every game's figures and every side's totals, recomputed from the deals in a few
set-wise SQL statements: the path for a whole site (``manage.py rebuild_leaderboards``,
restores, generated data), where :func:`club.leaderboards.figures.refresh_games` does a
game at a time in Python. :func:`club.leaderboards.figures.drift` compares the two.
"""

from __future__ import annotations

import zoneinfo
from collections import defaultdict

from django.db import connection
from django.db.models import Case, When
from django.db.models.functions import TruncDate

from club.clubs import known
from club.clubs.models import Club
from club.games.models import Doubling, Game, GameTeam, LedgerEntry, Round
from club.games.words import KODI, POINTS, TABLES
from club.leaderboards import team_ratings
from club.leaderboards.figures.counting import COUNTS, FIELDS
from club.leaderboards.figures.totals import KINDS, table
from club.leaderboards.models import (
    PlayerClubTotals,
    PlayerGameFigures,
    PlayerTotals,
    TeamClubTotals,
    TeamGameFigures,
    TeamTotals,
)
from club.tournaments.models import Sitting, SittingGame


def _doubled_sql() -> list[str]:
    """The columns of a seat's doubles and redoubles won and lost, summed over its game's
    deals: declaring and made, or defending and the declarer failed, is a win."""
    doubled = []
    for doubling, name in ((Doubling.DOUBLE, "doubles"), (Doubling.REDOUBLE, "redoubles")):
        for outcome, test in (("won", "="), ("lost", "<>")):
            doubled.append(
                f"SUM(CASE WHEN r.doubling = '{doubling.value}' "
                f"AND (r.declaring_team_id = s.id) {test} r.made THEN 1 ELSE 0 END) "
                f"AS {name}_{outcome}"
            )
    return doubled


def _team_figures_sql() -> str:
    """What each column of a team's game row is, in the order of ``FIELDS`` and then the
    game, tournament, day, form, club and team: the SELECT list over the sources below."""
    points = "g.scoring = 'points'"
    kodi = "(g.scoring = 'tables' AND g.kodi)"
    return (
        "SELECT 1, CASE WHEN g.winner_id = s.id THEN 1 ELSE 0 END, "
        "COALESCE(d.declared, 0), COALESCE(d.made, 0), "
        "COALESCE(x.doubles_won, 0), COALESCE(x.doubles_lost, 0), "
        "COALESCE(x.redoubles_won, 0), COALESCE(x.redoubles_lost, 0), "
        # tables net counts tables: a points sheet's ledger holds points
        "CASE WHEN g.scoring = 'tables' THEN COALESCE(l.net, 0) ELSE 0 END, "
        # a points sheet's totals, and a kodi night's kodis, the side's and the others'
        f"CASE WHEN {points} THEN s.score ELSE 0 END, "
        f"CASE WHEN {points} THEN t.score - s.score ELSE 0 END, "
        f"CASE WHEN {points} AND g.winner_id = s.id THEN 1 ELSE 0 END, "
        f"CASE WHEN {kodi} THEN s.kodis ELSE 0 END, "
        f"CASE WHEN {kodi} THEN t.kodis - s.kodis ELSE 0 END, "
        "d.biggest, s.game_id, st.tournament_id, g.day, "
        f"CASE WHEN {points} THEN '{POINTS}' WHEN {kodi} THEN '{KODI}' ELSE '{TABLES}' END, "
        "g.club_id, s.team_id "
    )


def _team_sources_sql(games_sql: str) -> str:
    """Where a team's game row is read from: each seat ``s`` of a game ``g`` counted, the
    game's totals ``t``, the seat's declarations ``d``, ledger ``l`` and doubles ``x``, and
    its sitting's tournament ``st``."""
    seat, deal, ledger = table(GameTeam), table(Round), table(LedgerEntry)
    return (
        f"FROM {seat} s JOIN ({games_sql}) g ON g.id = s.game_id "
        f"JOIN (SELECT game_id, SUM(score) AS score, SUM(kodis) AS kodis FROM {seat} "
        "GROUP BY game_id) t ON t.game_id = s.game_id "
        "LEFT JOIN (SELECT declaring_team_id AS seat_id, COUNT(*) AS declared, "
        "SUM(CASE WHEN made THEN 1 ELSE 0 END) AS made, "
        "MAX(CASE WHEN made AND NOT all_pass THEN bid END) AS biggest "
        f"FROM {deal} WHERE declaring_team_id IS NOT NULL GROUP BY declaring_team_id) d "
        "ON d.seat_id = s.id "
        f"LEFT JOIN (SELECT game_team_id, SUM(change) AS net FROM {ledger} "
        "GROUP BY game_team_id) l ON l.game_team_id = s.id "
        f"LEFT JOIN (SELECT s.id AS seat_id, {', '.join(_doubled_sql())} FROM {seat} s "
        f"JOIN {deal} r ON r.game_id = s.game_id "
        "WHERE r.doubling <> %s AND r.declaring_team_id IS NOT NULL GROUP BY s.id) x "
        "ON x.seat_id = s.id "
        f"LEFT JOIN {table(SittingGame)} sg ON sg.game_id = s.game_id "
        f"LEFT JOIN {table(Sitting)} st ON st.id = sg.sitting_id"
    )


GAME_ROW_COLUMNS = ", ".join((*FIELDS, "game_id", "tournament_id", "played_on", "form", "club_id"))


def _day_at_its_club() -> Case:
    """A game's start date in its club's time zone: one branch a zone the clubs keep,
    whatever zone is active where the rebuild runs."""
    clubs_of_zone: dict[str, list[int]] = defaultdict(list)
    # Read here, not from this process's list: another process may have added a club.
    for pk, zone in Club.objects.order_by("pk").values_list("pk", "time_zone"):
        clubs_of_zone[zone].append(pk)
    return Case(
        *(
            When(club_id__in=pks, then=TruncDate("created_at", tzinfo=zoneinfo.ZoneInfo(zone)))
            for zone, pks in clubs_of_zone.items()
        ),
        default=TruncDate("created_at", tzinfo=known.home().zone),
    )


def _insert_team_rows(cursor) -> None:
    """Every finished game's team rows, in one statement."""
    # The games counted, with their start date in their club's time zone (the ORM
    # writes the time-zone arithmetic of each database).
    games_sql, games_params = (
        Game.objects.filter(status=Game.Status.FINISHED)
        .annotate(day=_day_at_its_club())
        .values("id", "day", "scoring", "kodi", "winner_id", "club_id")
        .query.sql_with_params()
    )
    cursor.execute(
        f"INSERT INTO {table(TeamGameFigures)} ({GAME_ROW_COLUMNS}, team_id) "
        + _team_figures_sql()
        + _team_sources_sql(games_sql),
        [*games_params, Doubling.NONE.value],
    )


def _insert_player_rows(cursor) -> None:
    """Every finished game's player rows, in one statement: their team's row, with their
    own declarations."""
    seat, deal = table(GameTeam), table(Round)
    team_figures = ", ".join(f"tf.{name}" for name in ("played", "won"))
    # Every count after a player's own declarations is their team's.
    same = ", ".join(f"tf.{name}" for name in COUNTS[COUNTS.index("made") + 1 :])
    cursor.execute(
        f"INSERT INTO {table(PlayerGameFigures)} ({GAME_ROW_COLUMNS}, player_id) "
        f"SELECT {team_figures}, COALESCE(d.declared, 0), COALESCE(d.made, 0), {same}, "
        "d.biggest, tf.game_id, tf.tournament_id, tf.played_on, tf.form, tf.club_id, p.player_id "
        f"FROM {table(TeamGameFigures)} tf JOIN ("
        f"SELECT game_id, team_id, first_player_id AS player_id FROM {seat} UNION ALL "
        f"SELECT game_id, team_id, second_player_id FROM {seat} UNION ALL "
        f"SELECT game_id, team_id, third_player_id FROM {seat} "
        "WHERE third_player_id IS NOT NULL UNION ALL "
        f"SELECT game_id, team_id, fourth_player_id FROM {seat} "
        "WHERE fourth_player_id IS NOT NULL) p "
        "ON p.game_id = tf.game_id AND p.team_id = tf.team_id "
        "LEFT JOIN (SELECT game_id, declarer_id, COUNT(*) AS declared, "
        "SUM(CASE WHEN made THEN 1 ELSE 0 END) AS made, "
        "MAX(CASE WHEN made THEN bid END) AS biggest "
        f"FROM {deal} WHERE declarer_id IS NOT NULL GROUP BY game_id, declarer_id) d "
        "ON d.game_id = tf.game_id AND d.declarer_id = p.player_id"
    )


def _insert_totals(cursor) -> None:
    """Every side's totals, the site's and each club's, summed from its game rows: one
    statement a table."""
    sums = ", ".join(f"SUM({name})" for name in COUNTS)
    for key, (model, totals, club_totals) in KINDS.items():
        extra = ", rating" if totals is TeamTotals else ""
        zero = ", 0" if totals is TeamTotals else ""
        cursor.execute(
            f"INSERT INTO {table(totals)} ({', '.join(FIELDS)}, {key}{extra}) "
            f"SELECT {sums}, MAX(biggest_bid), {key}{zero} FROM {table(model)} "
            f"GROUP BY {key}"
        )
        cursor.execute(
            f"INSERT INTO {table(club_totals)} ({', '.join(FIELDS)}, {key}, club_id) "
            f"SELECT {sums}, MAX(biggest_bid), {key}, club_id FROM {table(model)} "
            f"GROUP BY {key}, club_id"
        )


def rebuild_all() -> int:
    """Recompute every row and total, the site's and each club's, from the deals; returns
    the number of games."""
    for model in (
        PlayerGameFigures,
        TeamGameFigures,
        PlayerTotals,
        TeamTotals,
        PlayerClubTotals,
        TeamClubTotals,
    ):
        model.objects.all().delete()
    with connection.cursor() as cursor:
        _insert_team_rows(cursor)
        _insert_player_rows(cursor)
        _insert_totals(cursor)
    team_ratings.rebuild()
    return Game.objects.filter(status=Game.Status.FINISHED).count()
