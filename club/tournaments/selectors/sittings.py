"""A sitting's page: its proposed draw (the teams it may seat, the rematches in it) or its
confirmed games and byes.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations

from django.db.models import Prefetch

from club.games.models import PLAYER_FIELDS, GameTeam
from club.tournaments.models import Bye, Sitting, SittingGame, Tournament, TournamentTeam


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


def draw_entries(sitting: Sitting) -> list[TournamentTeam]:
    """The teams a proposed draw may seat, by name: every team of the tournament, or for a
    stage's sitting the teams its chart or bracket gave it."""
    entries = sitting.tournament.entries.select_related(
        *(f"team__{seat}" for seat in PLAYER_FIELDS)
    ).order_by("team__name")
    if sitting.stage_id is not None:
        drawn = {team for game in sitting.proposal for team in game} | set(sitting.proposed_byes)
        entries = entries.filter(pk__in=drawn)
    if sitting.absent:  # not checked in: not theirs to seat
        entries = entries.exclude(pk__in=sitting.absent)
    return list(entries)


def sitting_page(sitting: Sitting) -> dict:
    tournament = sitting.tournament
    entries = {entry.pk: entry for entry in draw_entries(sitting)}
    context = {"tournament": tournament, "sitting": sitting, "entries": list(entries.values())}
    # Left out of the draw for not checking in (a query only when some were).
    context["absent"] = (
        list(
            TournamentTeam.objects.filter(pk__in=sitting.absent)
            .select_related("team")
            .order_by("team__name")
        )
        if sitting.absent
        else []
    )
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
            .select_related("stage")
            .prefetch_related(
                _game_prefetch(),
                Prefetch("byes", queryset=Bye.objects.select_related("entry__team")),
            )
            .get()
        )
        context["sitting"] = sitting
        games = list(sitting.games.all())
        context["games"] = games
        context["byes"] = list(sitting.byes.all())
        # Calling time then asks on a page that names those tables, not in a dialog first
        # (club.tournaments.calling_time: a knockout's game is never one).
        context["no_deal_yet"] = any(entry.game.ends_level_if_called for entry in games)
    return context
