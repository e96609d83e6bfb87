"""Reads for the tournament pages, each in a fixed number of queries.

The public pages poll for changes; :func:`live_version` is the cheap token
they compare, so an unchanged tournament costs one small query per poll.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal
from itertools import combinations

from django.db.models import Max, Prefetch

from club.games.models import Game, GameTeam, Player
from club.tournaments.models import (
    Bye,
    Sitting,
    SittingGame,
    Standing,
    Tournament,
    TournamentEvent,
    TournamentTeam,
)


def format_points(value: Decimal) -> str:
    """3.00 -> "3", 1.50 -> "1.5", 1.33 -> "1.33"."""
    return format(value.normalize(), "f")


@dataclass
class StandingRow:
    standing: Standing
    points: str
    made_percent: int | None


def live_version(tournament: Tournament) -> str:
    """Changes whenever the results change or a game in progress records anything."""
    newest = Game.objects.filter(
        sitting_entry__sitting__tournament=tournament, status=Game.Status.IN_PROGRESS
    ).aggregate(newest=Max("updated_at"))["newest"]
    stamp = int(newest.timestamp() * 1_000_000) if newest else 0
    return f"{tournament.results_version}.{stamp}"


def standing_rows(tournament: Tournament) -> list[StandingRow]:
    standings = Standing.objects.filter(tournament=tournament).select_related(
        "entry__team__first_player", "entry__team__second_player"
    )
    return [
        StandingRow(
            standing=row,
            points=format_points(row.points),
            made_percent=round(100 * row.made / row.declared) if row.declared else None,
        )
        for row in standings
    ]


def _game_prefetch():
    return Prefetch(
        "games",
        queryset=SittingGame.objects.select_related("game").prefetch_related(
            Prefetch(
                "game__teams",
                queryset=GameTeam.objects.select_related("team").order_by("position"),
            )
        ),
    )


def sittings_of(tournament: Tournament, *, confirmed_only: bool = True):
    sittings = tournament.sittings.order_by("-number").prefetch_related(
        _game_prefetch(),
        Prefetch("byes", queryset=Bye.objects.select_related("entry__team")),
    )
    if confirmed_only:
        sittings = sittings.filter(status=Sitting.Status.CONFIRMED)
    return list(sittings)


def live_context(tournament: Tournament) -> dict:
    """What the public, self-refreshing part of the tournament page shows."""
    sittings = sittings_of(tournament)
    in_progress = [
        entry
        for sitting in sittings
        for entry in sitting.games.all()
        if entry.game.status == Game.Status.IN_PROGRESS
    ]
    in_progress.sort(key=lambda entry: (entry.sitting_id, entry.position))
    return {
        "tournament": tournament,
        "standings": standing_rows(tournament),
        "sittings": sittings,
        "in_progress": in_progress,
        "live_version": live_version(tournament),
    }


def tournament_page(tournament: Tournament, *, organiser: bool = False) -> dict:
    context = live_context(tournament)
    if organiser:
        context["proposed"] = tournament.sittings.filter(status=Sitting.Status.PROPOSED).first()
        context["events"] = list(
            TournamentEvent.objects.filter(tournament=tournament).select_related("made_by")
        )
        context["player_names"] = list(
            Player.objects.filter(active=True).order_by("name").values_list("name", flat=True)
        )
        context["team_count"] = tournament.entries.count()
    return context


def met_pairs(tournament: Tournament, *, before: int | None = None) -> set[frozenset[int]]:
    """Pairs of registered teams (ids) that met in a game of an earlier sitting."""
    entry_of = dict(
        TournamentTeam.objects.filter(tournament=tournament).values_list("team_id", "id")
    )
    games = GameTeam.objects.filter(game__sitting_entry__sitting__tournament=tournament)
    if before is not None:
        games = games.filter(game__sitting_entry__sitting__number__lt=before)
    teams_of: dict[int, list[int]] = defaultdict(list)
    for game_id, team_id in games.values_list("game_id", "team_id"):
        if team_id in entry_of:
            teams_of[game_id].append(entry_of[team_id])
    return {
        frozenset(pair) for teams in teams_of.values() for pair in combinations(sorted(teams), 2)
    }


def rematches(sitting: Sitting, games: list[list[int]] | None = None) -> int:
    """How many pairs of teams in the (proposed) games have met before."""
    met = met_pairs(sitting.tournament, before=sitting.number)
    games = sitting.proposal if games is None else games
    return sum(
        1 for game in games for pair in combinations(sorted(game), 2) if frozenset(pair) in met
    )


def sitting_page(sitting: Sitting) -> dict:
    tournament = sitting.tournament
    entries = {
        entry.pk: entry
        for entry in tournament.entries.select_related(
            "team__first_player", "team__second_player"
        ).order_by("team__name")
    }
    context = {"tournament": tournament, "sitting": sitting, "entries": list(entries.values())}
    if sitting.status == Sitting.Status.PROPOSED:
        labels = [f"{number}" for number in range(1, len(sitting.proposal) + 1)]
        context["proposed_games"] = [
            {"number": label, "teams": [entries[e] for e in game if e in entries]}
            for label, game in zip(labels, sitting.proposal, strict=True)
        ]
        context["proposed_byes"] = [entries[e] for e in sitting.proposed_byes if e in entries]
        context["rematches"] = rematches(sitting)
    else:
        sitting = (
            Sitting.objects.filter(pk=sitting.pk)
            .prefetch_related(
                _game_prefetch(),
                Prefetch("byes", queryset=Bye.objects.select_related("entry__team")),
            )
            .get()
        )
        context["sitting"] = sitting
        context["games"] = list(sitting.games.all())
        context["byes"] = list(sitting.byes.all())
    return context


def tournament_lists() -> dict:
    tournaments = list(Tournament.objects.all())
    return {
        "running": [t for t in tournaments if t.status == Tournament.Status.RUNNING],
        "upcoming": [t for t in tournaments if t.status == Tournament.Status.DRAFT],
        "finished": [t for t in tournaments if t.status == Tournament.Status.FINISHED],
    }
