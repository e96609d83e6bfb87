"""Each team's own rating, from its results as a team.

A team that has played together is rated as one side of its games, by the same
model as the players (:func:`club.scoring.ratings.rate_teams`), in the order the
games finished: so the team board ranks a team that won three games out of three
above one that lost its only game, however good its players are with other
partners. The skill and the rating shown are kept on the team's totals
(:class:`TeamTotals`: ``mu``, ``sigma``, ``rated_games``, ``rating``), which the
board sorts on.

A game finishing after every other moves its own teams from their kept skill:
:func:`append_many`, a few rows whatever the club's history. Any other change to the
finished games' places or order (a correction, a deletion, a game finished out of
turn, a rebuild) rates every team again from the finished games: :func:`rebuild`,
one query and about 50 µs a game, written back only where a rating moved. The
players' ratings take the same two paths (``services``); the tests hold both ways
to a rating of every game from scratch.
"""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Q

from club.games.models import Game, GameTeam
from club.leaderboards.models import TeamTotals
from club.scoring import ratings

KEPT = ("mu", "sigma", "rated_games", "rating")


def _sides(games: Q) -> list[ratings.RatedGame]:
    """These finished games (a condition on GameTeam), in the rating order, as teams."""
    rows = (
        GameTeam.objects.filter(games, game__status=Game.Status.FINISHED)
        .order_by("game__finished_at", "game_id", "position")
        .values_list("game_id", "team_id", "place")
    )
    found: dict[int, list[tuple[int, int | None]]] = defaultdict(list)
    for game_id, team_id, place in rows.iterator(chunk_size=5000):
        found[game_id].append((team_id, place))
    return [
        ratings.RatedGame(
            game=game_id,
            teams=[[team] for team, _place in sides],
            places=[place or len(sides) for _team, place in sides],
        )
        for game_id, sides in found.items()
    ]


def _write(rated: dict[int, ratings.PlayerRating], rows: list[tuple]) -> None:
    """Store the ratings of ``rated`` on the teams' totals (``rows``: id, team and KEPT),
    a new team's where a team has none, and only where something moved."""
    moved = []
    for pk, team, *kept in rows:
        found = rated.get(team)
        now = (
            (ratings.MU, ratings.SIGMA, 0, 0.0)
            if found is None
            else (found.mu, found.sigma, found.games, found.rating)
        )
        if tuple(kept) != now:
            moved.append(TeamTotals(pk=pk, **dict(zip(KEPT, now, strict=True))))
    TeamTotals.objects.bulk_update(moved, list(KEPT), batch_size=500)


def append_many(game_ids: list[int]) -> None:
    """Rate the teams of these games, the last to finish (an import's), from their kept
    skill, in the order the games finished."""
    games = _sides(Q(game_id__in=game_ids))
    if not games:
        return
    teams = list({team for game in games for (team,) in game.teams})
    rows = list(TeamTotals.objects.filter(team_id__in=teams).values_list("id", "team_id", *KEPT))
    start = {
        team: ratings.PlayerRating(player=team, mu=mu, sigma=sigma, rating=rating, games=rated)
        for _pk, team, mu, sigma, rated, rating in rows
    }
    _write(ratings.rate_teams(games, start=start), rows)


def rebuild() -> None:
    """Rate every team again from every finished game, in the order they finished."""
    rated = ratings.rate_teams(_sides(Q()))
    rows = list(TeamTotals.objects.values_list("id", "team_id", *KEPT))
    _write(rated, rows)
