"""Keep standings in step with the games: rebuilt in the same transaction as the result."""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from club.games.signals import game_changed
from club.games.versions import bump_names
from club.tournaments.models import Tournament
from club.tournaments.services import results_changed


@receiver(game_changed, dispatch_uid="tournaments-standings")
def rebuild_standings_for_game(sender, game, was_finished, **kwargs):
    results_changed(game, was_finished)


@receiver(post_save, sender=Tournament, dispatch_uid="club-version-tournament")
@receiver(post_delete, sender=Tournament, dispatch_uid="club-version-tournament-gone")
def tournament_saved(sender, **kwargs):
    """A tournament's name, dates or status shows on pages beyond its own: move the token."""
    if not kwargs.get("raw"):
        bump_names()
