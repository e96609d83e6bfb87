"""A tournament's standings, derived from its finished games and stored a row a team.

Game results go through ``club.games.services``; this module only derives the
standings from them, under the tournament's lock, and bumps the tournament's
results version so its live pages refresh.
"""

from __future__ import annotations

from decimal import Decimal
from typing import NamedTuple

from django.db import transaction
from django.db.models import Count, F

from club.games.models import Game, GameTeam
from club.scoring import rules as core
from club.scoring import standings as ranking
from club.tournaments.models import STANDING_FIGURES, Standing, Tournament, TournamentTeam
from club.tournaments.writes import lock

CENT = Decimal("0.01")  # a standing's points are kept to two places


def scheme_of(tournament: Tournament) -> ranking.PointsScheme:
    """The tournament's points for each place, or the club's default scheme."""
    if not tournament.points_scheme:
        return ranking.DEFAULT_POINTS
    return ranking.PointsScheme(
        {int(count): tuple(points) for count, points in tournament.points_scheme.items()}
    )


def results_changed(game: Game, was_finished: bool = True) -> None:
    """A game changed: keep its tournament's standings in step, in the same transaction.

    Standings count finished games only, so a deal of a game still being played
    just bumps the tournament's version (live pages then refresh its tables).
    """
    of_game = Tournament.objects.filter(sittings__games__game=game)
    if game.is_finished or was_finished:
        tournament = of_game.select_for_update(of=("self",)).first()  # locked as lock() would
        if tournament is not None:
            rebuild_locked(tournament)
    else:
        of_game.update(results_version=F("results_version") + 1)  # none if not a tournament's


class Member(NamedTuple):
    """A team's result at one game (of the tournament; a season's club night's too)."""

    entry: int
    place: int | None
    tables: int
    score: int
    declared: int
    made: int


def game_results(
    tournament: Tournament, entry_of: dict[int, int] | None = None
) -> list[ranking.GameResult]:
    """The finished games of the tournament as the standings calculator reads them.

    Read from the tournament's sittings down: asking the database for finished
    games first would walk every finished game of the club (SQLite takes the
    status index), so which games are finished is decided here, not in SQL.
    """
    if entry_of is None:  # team id -> registered team id
        entry_of = dict(
            TournamentTeam.objects.filter(tournament=tournament)
            .order_by()
            .values_list("team_id", "id")
        )
    points = tournament.scoring == core.Scoring.POINTS  # every game is scored as its tournament
    return [
        game_result(game_id, tables_start, members, points)
        for game_id, (tables_start, members) in _finished_games(tournament, entry_of).items()
    ]


def _finished_games(
    tournament: Tournament, entry_of: dict[int, int]
) -> dict[int, tuple[int, list[Member]]]:
    """Each finished game of the tournament: the tables each team started with, its teams."""
    games: dict[int, tuple[int, list[Member]]] = {}
    for game_id, status, tables_start, team, place, tables, score, declared, made in (
        GameTeam.objects.filter(game__sitting_entry__sitting__tournament=tournament)
        .order_by("game_id", "position")
        .values_list(
            "game_id",
            "game__status",
            "game__tables_per_team",
            "team_id",
            "place",
            "tables",
            "score",
            "declared",
            "made",
        )
    ):
        if status == Game.Status.FINISHED:
            games.setdefault(game_id, (tables_start, []))[1].append(
                Member(entry_of[team], place, tables, score, declared, made)
            )
    return games


def game_result(
    game_id: int, tables_start: int, members: list[Member], points: bool
) -> ranking.GameResult:
    """One finished game as the standings calculator reads it (scores on a points sheet)."""
    return ranking.GameResult(
        game=game_id,
        teams=tuple(member.entry for member in members),
        places={member.entry: member.place or len(members) for member in members},
        tables_start=tables_start,
        tables_end={member.entry: member.tables for member in members},
        declared={member.entry: member.declared for member in members},
        made={member.entry: member.made for member in members},
        scores={member.entry: member.score for member in members} if points else None,
    )


def rebuild_standings(tournament: Tournament) -> None:
    """Derive the tournament's standings again from its finished games, under its lock."""
    with transaction.atomic():
        rebuild_locked(lock(tournament))


def standing_figures(row, byes: int) -> tuple:
    """A standings row's figures as a Standing stores them (points to the cent), in the
    order of its columns: what a rebuild compares with the stored row before writing it."""
    return (
        row.place,
        row.shared,
        (Decimal(row.points.numerator) / Decimal(row.points.denominator)).quantize(CENT),
        row.games,
        row.won,
        row.net_tables,
        row.score_difference,
        row.declared,
        row.made,
        byes,
    )


def rebuild_locked(tournament: Tournament) -> None:
    """Derive the standings from the finished games and store them (caller holds the lock)."""
    # The registered teams once, in the order of the register (by team name), with
    # their byes and the standing each has now.
    registered = list(
        tournament.entries.annotate(bye_count=Count("byes")).values_list(
            "id", "team_id", "bye_count", *(f"standing__{name}" for name in STANDING_FIGURES)
        )
    )
    entries = [entry for entry, *_ in registered]
    byes = {entry: count for entry, _team, count, *_ in registered}
    stored = {entry: tuple(now) for entry, _team, _count, *now in registered if now[0] is not None}
    results = game_results(tournament, {team: entry for entry, team, *_ in registered})
    table = ranking.standings(entries, results, scheme_of(tournament))
    _store_changed_rows(tournament, table, byes, stored)
    Tournament.objects.filter(pk=tournament.pk).update(results_version=F("results_version") + 1)
    tournament.results_version += 1


def _store_changed_rows(tournament: Tournament, table, byes: dict, stored: dict) -> None:
    """Write only the rows that changed (a game that ends moves a few teams), in place:
    an upsert on the entry, one row each."""
    changed = []
    for row in table:
        figures = standing_figures(row, byes.get(row.team, 0))
        if stored.get(row.team) != figures:
            changed.append(
                Standing(
                    tournament=tournament,
                    entry_id=row.team,
                    **dict(zip(STANDING_FIGURES, figures, strict=True)),
                )
            )
    if changed:
        Standing.objects.bulk_create(
            changed,
            update_conflicts=True,
            unique_fields=["entry"],
            update_fields=list(STANDING_FIGURES),
        )
