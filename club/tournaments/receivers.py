"""Keep standings in step with the games: rebuilt in the same transaction as the result."""

from django.dispatch import receiver

from club.games.signals import game_changed
from club.tournaments.services import results_changed


@receiver(game_changed, dispatch_uid="tournaments-standings")
def rebuild_standings_for_game(sender, game, was_finished, **kwargs):
    results_changed(game, was_finished)
