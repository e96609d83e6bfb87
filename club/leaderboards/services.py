"""Ratings are rebuilt from scratch from every finished game, so a correction never drifts."""

from __future__ import annotations

from collections import defaultdict

from django.db import transaction
from django.utils import timezone

from club.games.models import Game, GameTeam
from club.leaderboards.models import PlayerRating, RatingChange, RatingsState
from club.scoring import ratings


def rated_games() -> list[ratings.RatedGame]:
    """Finished games in the order they finished, as the rating model reads them."""
    order = list(
        Game.objects.filter(status=Game.Status.FINISHED)
        .order_by("finished_at", "id")
        .values_list("id", flat=True)
    )
    teams: dict[int, list[tuple[tuple[int, int], int]]] = defaultdict(list)
    for game_id, first, second, place in (
        GameTeam.objects.filter(game__status=Game.Status.FINISHED)
        .order_by("game_id", "position")
        .values_list("game_id", "first_player_id", "second_player_id", "place")
    ):
        teams[game_id].append(((first, second), place))
    games = []
    for game_id in order:
        members = teams[game_id]
        games.append(
            ratings.RatedGame(
                game=game_id,
                teams=[pair for pair, _ in members],
                places=[place or len(members) for _, place in members],
            )
        )
    return games


@transaction.atomic
def rebuild_ratings() -> int:
    """Recompute every player's rating and history; returns the number of games rated."""
    state, _ = RatingsState.objects.get_or_create(pk=1)
    # Two games finishing at once each rebuild; the lock makes them take turns.
    state = RatingsState.objects.select_for_update().get(pk=state.pk)
    games = rated_games()
    players, changes = ratings.rate_games(games)
    RatingChange.objects.all().delete()
    PlayerRating.objects.all().delete()
    PlayerRating.objects.bulk_create(
        PlayerRating(
            player_id=rating.player,
            mu=rating.mu,
            sigma=rating.sigma,
            rating=rating.rating,
            games=rating.games,
        )
        for rating in players.values()
    )
    position = {game.game: index for index, game in enumerate(games)}
    RatingChange.objects.bulk_create(
        RatingChange(
            game_id=change.game,
            player_id=change.player,
            before=change.before,
            after=change.after,
            position=position[change.game],
        )
        for change in changes
    )
    state.rebuilt_at = timezone.now()
    state.games = len(games)
    state.save(update_fields=["rebuilt_at", "games"])
    return len(games)
