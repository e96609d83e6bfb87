"""A stage's page: its groups and chart, its round robin, or its knockout's bracket as the
results so far make it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime

from django.db.models import Count, Prefetch
from django.utils.translation import gettext as _

from club.games.models import PLAYER_FIELDS, Game, GameTeam
from club.scoring import stages as charts
from club.tournaments.models import SittingGame, Stage, Tournament, TournamentTeam


def _registered(stage: Stage, entries: dict[int, TournamentTeam] | None = None):
    """Each registered team's entry id by its team, and the entries that withdrew: from
    the entries the caller has read already, else in one query."""
    rows: Iterable[tuple[int, int, datetime | None]]
    if entries is None:
        rows = TournamentTeam.objects.filter(tournament_id=stage.tournament_id).values_list(
            "team_id", "id", "withdrawn_at"
        )
    else:
        rows = [(entry.team_id, entry.pk, entry.withdrawn_at) for entry in entries.values()]
    entry_of, withdrawn = {}, set()
    for team_id, entry_id, withdrawn_at in rows:
        entry_of[team_id] = entry_id
        if withdrawn_at is not None:
            withdrawn.add(entry_id)
    return entry_of, withdrawn


def knockout_winners(stage: Stage, entry_of: dict[int, int]) -> dict[frozenset[int], int]:
    """The winner of each finished game of the stage, by its pair of registered teams."""
    games: dict[int, list[tuple[int, int | None]]] = defaultdict(list)
    for game_id, status, team_id, place in GameTeam.objects.filter(
        game__sitting_entry__sitting__stage=stage
    ).values_list("game_id", "game__status", "team_id", "place"):
        if status == Game.Status.FINISHED and team_id in entry_of:
            games[game_id].append((entry_of[team_id], place))
    winners = {}
    for members in games.values():
        first = [entry for entry, place in members if place == 1]
        if len(members) == 2 and len(first) == 1:
            winners[frozenset(entry for entry, _place in members)] = first[0]
    return winners


def bracket_of(stage: Stage, entries: dict[int, TournamentTeam] | None = None) -> charts.Bracket:
    """A knockout's bracket as the results so far make it; a withdrawn team's opponent
    goes through without playing. ``entries``: the tournament's, if read already."""
    entry_of, withdrawn = _registered(stage, entries)
    winners = knockout_winners(stage, entry_of)
    bracket = charts.bracket(stage.seeds, winners)
    for _round in bracket.rounds:
        walkovers = {
            frozenset((match.first, match.second)): (
                match.second if match.first in withdrawn else match.first
            )
            for matches in bracket.rounds
            for match in matches
            # (a match ready to play has both its teams: said again for the type checker)
            if match.ready
            and match.first is not None
            and match.second is not None
            and {match.first, match.second} & withdrawn
        }
        if not walkovers:
            break
        winners.update(walkovers)
        bracket = charts.bracket(stage.seeds, winners)
    return bracket


def entries_by_id(tournament: Tournament) -> dict[int, TournamentTeam]:
    """The tournament's registered teams with their players, by id."""
    return {
        entry.pk: entry
        for entry in tournament.entries.select_related(*(f"team__{seat}" for seat in PLAYER_FIELDS))
    }


def stage_lines(tournament: Tournament) -> list[dict]:
    """The tournament's stages for its page: each with its sittings played and what is next."""
    stages = list(tournament.stages.annotate(drawn=Count("sittings")).order_by("number"))
    lines = []
    for stage in stages:
        line = {"stage": stage, "drawn": stage.drawn}
        if stage.charted:
            line["planned"] = len(stage.chart)
        lines.append(line)
    return lines


def _chart_rows(stage: Stage, entries: dict[int, TournamentTeam]) -> list[dict]:
    """Each A team's opponent in each sitting of the chart (None: it sits out)."""
    rows = []
    for team in stage.groups.get("a", []):
        cells = []
        for row in stage.chart:
            opponent = next((b for a, b in row["games"] if a == team), None)
            cells.append(entries.get(opponent) if opponent is not None else None)
        rows.append({"entry": entries.get(team), "cells": cells})
    return rows


def _match_games(stage: Stage, entry_of: dict[int, int]) -> dict[frozenset[int], SittingGame]:
    """The game each pair of teams played (or plays) in the stage: the newest."""
    placed = (
        SittingGame.objects.filter(sitting__stage=stage)
        .select_related("game", "sitting")
        .prefetch_related(Prefetch("game__teams", queryset=GameTeam.objects.order_by("position")))
        .order_by("sitting__number", "position")
    )
    return {
        frozenset(entry_of[team.team_id] for team in placed_game.game.teams.all()): placed_game
        for placed_game in placed
    }


def stage_page(stage: Stage) -> dict:
    """What the stage's page shows: its groups and chart, or its bracket."""
    tournament = stage.tournament
    entries = entries_by_id(tournament)
    context = {"tournament": tournament, "stage": stage, "entries": entries}
    if stage.kind == Stage.Kind.GROUPS:
        context["group_a"] = [entries[e] for e in stage.groups.get("a", []) if e in entries]
        context["group_b"] = [entries[e] for e in stage.groups.get("b", []) if e in entries]
        context["chart_rows"] = _chart_rows(stage, entries)
        context["sittings"] = range(1, len(stage.chart) + 1)
    elif stage.kind == Stage.Kind.ROUND_ROBIN:
        context["rounds"] = [
            {
                "number": number,
                "games": [(entries.get(a), entries.get(b)) for a, b in row["games"]],
                "byes": [entries.get(team) for team in row["byes"]],
            }
            for number, row in enumerate(stage.chart, start=1)
        ]
    elif stage.kind == Stage.Kind.KNOCKOUT:
        context.update(_bracket_context(stage, entries))
    return context


def _bracket_context(stage: Stage, entries: dict[int, TournamentTeam]) -> dict:
    bracket = bracket_of(stage, entries)
    entry_of, _withdrawn = _registered(stage, entries)
    games = _match_games(stage, entry_of) if stage.status == Stage.Status.CONFIRMED else {}
    rounds = []
    for number, matches in enumerate(bracket.rounds, start=1):
        template, values = charts.round_title(number, len(bracket.rounds))
        cells = []
        for match in matches:
            placed = (
                games.get(frozenset((match.first, match.second)))
                if match.first is not None and match.second is not None
                else None
            )
            cells.append(
                {
                    "match": match,
                    "sides": [
                        {
                            "entry": entries.get(team) if team is not None else None,
                            "seed": bracket.seeds.get(team) if team is not None else None,
                            "won": team is not None and match.winner == team,
                            "lost": team is not None
                            and match.winner is not None
                            and match.winner != team,
                        }
                        for team in (match.first, match.second)
                    ],
                    "placed": placed,
                    "bye": match.bye,
                }
            )
        rounds.append({"number": number, "title": _(template) % values, "matches": cells})
    champion = bracket.champion
    return {
        "rounds": rounds,
        "champion": entries.get(champion) if champion is not None else None,
        "seed_rows": [
            {"seed": seed, "entry": entries.get(team)}
            for seed, team in enumerate(stage.seeds, start=1)
        ],
    }
