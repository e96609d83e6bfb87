"""Club-wide skill ratings, recomputed from all finished games so they never drift."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from club.games.models import Game, Player, Team


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
        indexes = [
            # The federation's ranking, highest first, a page at a time: read in the
            # index's order (without it, every rated player of every club was sorted).
            models.Index(fields=["-rating"], name="playerrating_ranking"),
        ]

    def __str__(self) -> str:
        return f"{self.player}: {self.rating:.1f}"


class PlayerFormRating(models.Model):
    """A player's rating in one form of play, from the rated games of that form alone."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="form_ratings")
    form = models.CharField(_("form of play"), max_length=6)
    mu = models.FloatField()
    sigma = models.FloatField()
    rating = models.FloatField(_("rating"))
    games = models.PositiveIntegerField(_("rated games"))

    class Meta:
        verbose_name = _("player's rating in a form of play")
        verbose_name_plural = _("players' ratings in a form of play")
        constraints = [
            models.UniqueConstraint(fields=["player", "form"], name="playerformrating_once"),
        ]
        indexes = [
            # The ranking of one form of play, highest first.
            models.Index(fields=["form", "-rating"], name="playerformrating_ranking"),
        ]

    def __str__(self) -> str:
        return f"{self.player} ({self.form}): {self.rating:.1f}"


class RatingChange(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rating_changes")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="rating_changes")
    before = models.FloatField(_("rating before"))
    after = models.FloatField(_("rating after"))
    position = models.PositiveIntegerField()  # order in which the games were rated
    # The skill estimate after the game, so a later game can be rated from here
    # without replaying the history before it. Empty on rows from before it was kept.
    mu_after = models.FloatField(null=True, blank=True)
    sigma_after = models.FloatField(null=True, blank=True)
    # The game's form of play (tables, points or kodi: club.games.words) and the player's
    # skill in that form alone after it: each form is rated as its own list too
    # (PlayerFormRating), from its games only. Empty on rows from before it was kept.
    form = models.CharField(max_length=6, blank=True, default="", db_default="")
    form_mu_after = models.FloatField(null=True, blank=True)
    form_sigma_after = models.FloatField(null=True, blank=True)

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
            # Re-rating from one game on: the games from that position, in order.
            models.Index(fields=["position"], name="ratingchange_position"),
        ]

    def __str__(self) -> str:
        return f"{self.player}: {self.before:.1f} → {self.after:.1f}"


class RatingsState(models.Model):
    """One row, locked while ratings are rebuilt so two rebuilds never interleave."""

    rebuilt_at = models.DateTimeField(null=True, blank=True)
    games = models.PositiveIntegerField(default=0)
    # Whether the ratings of each form of play are kept with the rating changes. False on
    # a site rated before they were: the first rating after the upgrade rates everything.
    forms_kept = models.BooleanField(default=False, db_default=False)

    class Meta:
        verbose_name = _("ratings state")
        verbose_name_plural = _("ratings state")

    def __str__(self) -> str:
        return str(_("Ratings over %(games)d games") % {"games": self.games})


# --- Maintained figures ------------------------------------------------------------
#
# The leaderboards and profiles read these instead of counting deals per request:
# one row per side per finished game, and one row of totals per side. They are
# written in the same transaction as the result they follow
# (:mod:`club.leaderboards.figures`), and ``manage.py rebuild_leaderboards``
# recomputes them from the deals and says whether anything had drifted.


class Figures(models.Model):
    """What the boards count, for one side over some games (see the selectors' docstring)."""

    played = models.PositiveIntegerField(_("played"), default=0)
    won = models.PositiveIntegerField(_("won"), default=0)
    declared = models.PositiveIntegerField(_("declared"), default=0)
    made = models.PositiveIntegerField(_("made"), default=0)
    doubles_won = models.PositiveIntegerField(default=0)
    doubles_lost = models.PositiveIntegerField(default=0)
    redoubles_won = models.PositiveIntegerField(default=0)
    redoubles_lost = models.PositiveIntegerField(default=0)
    tables_net = models.IntegerField(_("tables net"), default=0)
    # A points sheet's figures: the side's totals and its opponents', at points games;
    # sessions won are the points games it won.
    points_for = models.PositiveIntegerField(_("points for"), default=0, db_default=0)
    points_against = models.PositiveIntegerField(_("points against"), default=0, db_default=0)
    sessions_won = models.PositiveIntegerField(_("sessions won"), default=0, db_default=0)
    # A kodi night's: the kodis the side took, and those the other teams took.
    kodis_taken = models.PositiveIntegerField(_("kodis taken"), default=0, db_default=0)
    kodis_given = models.PositiveIntegerField(_("kodis given"), default=0, db_default=0)
    biggest_bid = models.PositiveSmallIntegerField(_("biggest bid made"), null=True, blank=True)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"{self.played} / {self.won} / {self.tables_net:+d}"


class GameFigures(Figures):
    """One side's figures at one finished game, with what the board filters on."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    tournament = models.ForeignKey(
        "tournaments.Tournament", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    played_on = models.DateField()  # the game's start date, in the club's time zone
    # The game's form of play, for a board of one form (Form): tables, points or kodi.
    form = models.CharField(max_length=6, default="tables", db_default="tables")
    # The game's club: its boards count its own games (the indexes below lead with it).
    club = models.ForeignKey(
        "clubs.Club", on_delete=models.CASCADE, related_name="+", db_index=False
    )

    class Meta:
        abstract = True


class PlayerGameFigures(GameFigures):
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")

    class Meta:
        verbose_name = _("player's figures at a game")
        verbose_name_plural = _("players' figures at games")
        constraints = [
            models.UniqueConstraint(fields=["game", "player"], name="playergamefigures_once"),
        ]
        indexes = [
            # The player board filtered by tournament: that tournament's rows only.
            models.Index(fields=["tournament", "player"], name="playergamefigures_tournament"),
            # A club's player board filtered by period: the club's rows of the period only.
            models.Index(fields=["club", "played_on", "player"], name="playergamefigures_club_day"),
            # A player's totals, the site's and each club's, summed from the player's own rows.
            models.Index(fields=["player", "played_on"], name="playergamefigures_player"),
            # A club's player board of one form of play.
            models.Index(fields=["club", "form", "player"], name="playergamefigures_club_form"),
        ]


class TeamGameFigures(GameFigures):
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="+")

    class Meta:
        verbose_name = _("team's figures at a game")
        verbose_name_plural = _("teams' figures at games")
        constraints = [
            models.UniqueConstraint(fields=["game", "team"], name="teamgamefigures_once"),
        ]
        indexes = [
            # The team board filtered by tournament.
            models.Index(fields=["tournament", "team"], name="teamgamefigures_tournament"),
            # A club's team board filtered by period.
            models.Index(fields=["club", "played_on", "team"], name="teamgamefigures_club_day"),
            # A team's totals, the site's and each club's, summed from the team's own rows.
            models.Index(fields=["team", "played_on"], name="teamgamefigures_team"),
            # A club's team board of one form of play; the forms a club has played.
            models.Index(fields=["club", "form", "team"], name="teamgamefigures_club_form"),
        ]


class PlayerTotals(Figures):
    """A player's figures over every finished game of every club, the federation's: the
    profile's."""

    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="totals")

    class Meta:
        verbose_name = _("player's totals")
        verbose_name_plural = _("players' totals")


class TeamTotals(Figures):
    """A team's figures over every finished game of every club, with its one rating."""

    team = models.OneToOneField(Team, on_delete=models.CASCADE, related_name="totals")
    # The team's own rating, from its results as a team (club.leaderboards.team_ratings):
    # its skill estimate, the rating shown, and the games rated. Kept with the totals so
    # the board can sort on it.
    rating = models.FloatField(_("rating"), default=0.0)
    mu = models.FloatField(default=25.0, db_default=25.0)
    sigma = models.FloatField(default=25.0 / 3, db_default=25.0 / 3)
    rated_games = models.PositiveIntegerField(default=0, db_default=0)

    class Meta:
        verbose_name = _("team's totals")
        verbose_name_plural = _("teams' totals")


class PlayerClubTotals(Figures):
    """A player's figures over the finished games of one club: that club's unfiltered board
    and the player's line for the club on their page."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="club_totals")
    club = models.ForeignKey(
        "clubs.Club", on_delete=models.CASCADE, related_name="player_totals", db_index=False
    )

    class Meta:
        verbose_name = _("player's totals at a club")
        verbose_name_plural = _("players' totals at clubs")
        constraints = [
            # Also the club's unfiltered player board: the club's rows, by player.
            models.UniqueConstraint(fields=["club", "player"], name="playerclubtotals_once"),
        ]


class TeamClubTotals(Figures):
    """A team's figures over the finished games of one club: that club's unfiltered team
    board. Its rating is the team's one rating (TeamTotals)."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="club_totals")
    club = models.ForeignKey(
        "clubs.Club", on_delete=models.CASCADE, related_name="team_totals", db_index=False
    )

    class Meta:
        verbose_name = _("team's totals at a club")
        verbose_name_plural = _("teams' totals at clubs")
        constraints = [
            # Also the club's unfiltered team board: the club's rows, by team.
            models.UniqueConstraint(fields=["club", "team"], name="teamclubtotals_once"),
        ]


class OwedGame(models.Model):
    """A game whose figures and rating are owed: it finished, or changed after finishing,
    in a request that sent its answer first (club.web.after). Written in the change's own
    transaction; ``services.catch_up`` does the work and deletes the row, after the
    answer or before any reader of the figures or ratings, whichever comes first."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="+")

    def __str__(self) -> str:
        return str(self.game_id)
