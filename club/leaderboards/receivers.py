"""Ratings and leaderboard figures follow finished games: in the transaction of the change,
or, for a change made through a page, once its answer has gone out (club.leaderboards.owed)."""

from django.db import transaction
from django.db.models.signals import post_delete, post_save, pre_delete
from django.dispatch import receiver

from club.games.models import Game, GameTeam
from club.games.signals import game_changed, games_written
from club.leaderboards import figures, owed
from club.leaderboards.models import RatingChange, RatingsState
from club.leaderboards.services.owed_work import catch_up
from club.leaderboards.services.ratings import keep_form_ratings, unrate_deleted_game
from club.tournaments.models import SittingGame


@receiver(game_changed, dispatch_uid="leaderboards-ratings")
def follow_game(sender, game, was_finished, **kwargs):
    if game.is_finished or was_finished:
        owed.follow(game, was_finished=was_finished)


@receiver(games_written, dispatch_uid="leaderboards-ratings-written")
def follow_written_games(sender, games, **kwargs):
    owed.follow_written(games)


@receiver(pre_delete, sender=Game, dispatch_uid="leaderboards-game-deleted-before")
def remember_deleted_game(sender, instance, **kwargs):
    catch_up()  # games left owed first: the ratings re-rated below are theirs too
    sides = list(
        GameTeam.objects.filter(game=instance).values_list(
            "team_id", "first_player_id", "second_player_id", "third_player_id", "fourth_player_id"
        )
    )
    instance._leaderboard_sides = (
        {player for _team, *players in sides for player in players if player is not None},
        {team for team, *_players in sides},
        RatingChange.objects.filter(game=instance)
        .order_by()
        .values_list("position", flat=True)
        .first(),
    )


@receiver(post_delete, sender=Game, dispatch_uid="leaderboards-game-deleted-after")
def forget_deleted_game(sender, instance, **kwargs):
    remembered = getattr(instance, "_leaderboard_sides", None)
    if remembered is None:
        return
    players, teams, position = remembered
    figures.forget_sides(players, teams)
    if position is not None:
        unrate_deleted_game(position, players)


@receiver(post_save, sender=SittingGame, dispatch_uid="leaderboards-game-in-sitting")
def file_game_under_tournament(sender, instance, **kwargs):
    # A game joins its sitting when created; an imported game joins after its deals.
    figures.file_under_tournament(instance.game_id, instance.sitting.tournament_id)


@receiver(post_delete, sender=SittingGame, dispatch_uid="leaderboards-game-out-of-sitting")
def unfile_game(sender, instance, **kwargs):
    figures.file_under_tournament(instance.game_id, None)


def rate_each_form_once(sender, using, apps=None, **kwargs) -> None:
    """After an upgrade, each form of play's ratings from the ratings' order, at once
    (``migrate``'s end; the apps connect it): at the first game after it, on a large
    site, the deal that ends it would wait for them. Only when the database is at the
    models of now (a migration back leaves it alone). A flush (a test's) sends no
    ``apps``: its database is at the models of now, and empties it."""
    if apps is None:
        return
    state = apps.get_model("leaderboards", "RatingsState")
    if "forms_kept" not in {field.name for field in state._meta.fields}:
        return
    owed_forms = RatingsState.objects.using(using).filter(forms_kept=False).exists()
    if owed_forms and RatingChange.objects.using(using).exists():
        with transaction.atomic(using=using):
            keep_form_ratings()
