"""Club-wide skill ratings, recomputed from all finished games so they never drift."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from club.games.models import Game, Player


class PlayerRating(models.Model):
    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="rating")
    mu = models.FloatField()
    sigma = models.FloatField()
    rating = models.FloatField(_("rating"))
    games = models.PositiveIntegerField(_("rated games"))

    class Meta:
        verbose_name = _("player rating")
        verbose_name_plural = _("player ratings")
        ordering = ["-rating"]

    def __str__(self) -> str:
        return f"{self.player}: {self.rating:.1f}"


class RatingChange(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rating_changes")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="rating_changes")
    before = models.FloatField(_("rating before"))
    after = models.FloatField(_("rating after"))
    position = models.PositiveIntegerField()  # order in which the games were rated

    class Meta:
        verbose_name = _("rating change")
        verbose_name_plural = _("rating changes")
        ordering = ["player", "position"]
        constraints = [
            models.UniqueConstraint(fields=["game", "player"], name="ratingchange_once_per_game"),
        ]
        indexes = [
            # A player's profile: the player's rating history in order.
            models.Index(fields=["player", "position"], name="ratingchange_player_position"),
        ]

    def __str__(self) -> str:
        return f"{self.player}: {self.before:.1f} → {self.after:.1f}"


class RatingsState(models.Model):
    """One row, locked while ratings are rebuilt so two rebuilds never interleave."""

    rebuilt_at = models.DateTimeField(null=True, blank=True)
    games = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = _("ratings state")
        verbose_name_plural = _("ratings state")

    def __str__(self) -> str:
        return str(_("Ratings over %(games)d games") % {"games": self.games})
