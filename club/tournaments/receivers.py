"""Keep standings in step with the games: rebuilt in the same transaction as the result."""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from club.games.signals import game_changed
from club.games.versions import bump_names
from club.tournaments.models import Bye, Sitting, SittingGame, Stage, Tournament, TournamentTeam
from club.tournaments.services.standings import results_changed


@receiver(game_changed, dispatch_uid="tournaments-standings")
def rebuild_standings_for_game(sender, game, was_finished, **kwargs):
    results_changed(game, was_finished)


def tournament_saved(sender, **kwargs):
    """A tournament, its teams, sittings, tables, byes or stages saved (by a service or in
    the admin): what its pages and the players' profiles list may change, so the club's
    token for kept pages moves (club.games.versions)."""
    if not kwargs.get("raw"):
        bump_names()


for model in (Tournament, TournamentTeam, Sitting, SittingGame, Bye, Stage):
    post_save.connect(tournament_saved, sender=model, dispatch_uid=f"club-version-{model.__name__}")
    post_delete.connect(
        tournament_saved, sender=model, dispatch_uid=f"club-version-{model.__name__}-gone"
    )
