"""Ratings follow finished games: rebuilt from scratch when one finishes or is corrected."""

from django.dispatch import receiver

from club.games.signals import game_changed


@receiver(game_changed, dispatch_uid="leaderboards-ratings")
def rebuild_ratings_for_game(sender, game, was_finished, **kwargs):
    if game.is_finished or was_finished:
        from club.leaderboards.services import rebuild_ratings

        rebuild_ratings()
