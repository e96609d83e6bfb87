"""What the club records: players, teams, games, their deals and the table ledger.

A *round* is the stored record of one deal. Its piles are what the scorer
reported; its dealer, declaring team, result and ledger entries are derived by
the rules core (``club.scoring.rules``) and rewritten by the services in
``club.games.services`` whenever a deal is recorded or corrected. Nothing
here is edited by hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from club.clubs import known
from club.clubs.addresses import reverse_in
from club.games import words
from club.games.people import Membership as Membership
from club.games.people import Player
from club.games.people import PlayerAlias as PlayerAlias  # the models of the app, one module
from club.games.records import ClubVersion as ClubVersion
from club.games.records import DirectorCall as DirectorCall
from club.games.records import PendingDeal as PendingDeal
from club.games.records import RejectedDeal as RejectedDeal
from club.games.records import ScorerLink as ScorerLink
from club.games.records import SubmittedForm as SubmittedForm
from club.scoring import rules as core

if TYPE_CHECKING:
    from club.games.services.seating import Seating

MIN_BID = core.DEFAULT_RULES.min_bid
MAX_BID = core.DEFAULT_RULES.max_bid


# The house rules' columns (club.games.house_rules), kept here for the apps that import them.
from club.games.house_rules import FORM_OF_PLAY_FIELDS as FORM_OF_PLAY_FIELDS  # noqa: E402
from club.games.house_rules import rules_fields as rules_fields  # noqa: E402
from club.games.house_rules import rules_from_fields as rules_from_fields  # noqa: E402
from club.games.house_rules import rules_from_values as rules_from_values  # noqa: E402


class Scoring(models.TextChoices):
    TABLES = core.Scoring.TABLES, _("Tables")
    POINTS = core.Scoring.POINTS, _("Points")


class DoublingMode(models.TextChoices):
    MULTIPLY = core.DoublingMode.MULTIPLY, _("Multiplies")
    ADD = core.DoublingMode.ADD, _("Adds")


class Trump(models.TextChoices):
    CLUBS = core.Trump.CLUBS, pgettext_lazy("trump", "Clubs")
    DIAMONDS = core.Trump.DIAMONDS, pgettext_lazy("trump", "Diamonds")
    HEARTS = core.Trump.HEARTS, pgettext_lazy("trump", "Hearts")
    SPADES = core.Trump.SPADES, pgettext_lazy("trump", "Spades")
    NO_TRUMPS = core.Trump.NO_TRUMPS, pgettext_lazy("trump", "No trumps")


class Doubling(models.TextChoices):
    NONE = core.Doubling.NONE, pgettext_lazy("doubling", "Not doubled")
    DOUBLE = core.Doubling.DOUBLE, pgettext_lazy("doubling", "Doubled")
    REDOUBLE = core.Doubling.REDOUBLE, pgettext_lazy("doubling", "Redoubled")


class Players(models.Model):
    """Two to four players in seat order: a team, or a team's seats at one game."""

    first_player = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="+", verbose_name=_("first player")
    )
    second_player = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="+", verbose_name=_("second player")
    )
    third_player = models.ForeignKey(
        Player,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("third player"),
    )
    fourth_player = models.ForeignKey(
        Player,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("fourth player"),
    )

    class Meta:
        abstract = True
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(first_player=models.F("second_player")),
                name="%(class)s_partners_differ",
            ),
            models.CheckConstraint(
                condition=models.Q(fourth_player__isnull=True)
                | models.Q(third_player__isnull=False),
                name="%(class)s_fourth_after_third",
            ),
            models.CheckConstraint(
                condition=models.Q(third_player__isnull=True)
                | (
                    ~models.Q(third_player=models.F("first_player"))
                    & ~models.Q(third_player=models.F("second_player"))
                ),
                name="%(class)s_third_differs",
            ),
            models.CheckConstraint(
                condition=models.Q(fourth_player__isnull=True)
                | (
                    ~models.Q(fourth_player=models.F("first_player"))
                    & ~models.Q(fourth_player=models.F("second_player"))
                    & ~models.Q(fourth_player=models.F("third_player"))
                ),
                name="%(class)s_fourth_differs",
            ),
        ]

    @property
    def players(self) -> list[Player]:
        """The players in seat order (two, three or four)."""
        return [
            player
            for player in (
                self.first_player,
                self.second_player,
                self.third_player,
                self.fourth_player,
            )
            if player is not None
        ]

    @property
    def player_ids(self) -> set[int]:
        return {
            pk
            for pk in (
                self.first_player_id,
                self.second_player_id,
                self.third_player_id,
                self.fourth_player_id,
            )
            if pk is not None
        }

    @property
    def player_ids_in_order(self) -> list[int]:
        return [
            pk
            for pk in (
                self.first_player_id,
                self.second_player_id,
                self.third_player_id,
                self.fourth_player_id,
            )
            if pk is not None
        ]

    @property
    def size(self) -> int:
        return 2 + (self.third_player_id is not None) + (self.fourth_player_id is not None)


PLAYER_FIELDS = ("first_player", "second_player", "third_player", "fourth_player")


def in_a_seat(player, prefix: str = "", *, lookup: str = "") -> models.Q:
    """Rows where ``player`` holds any of a team's (up to four) seats.

    ``player`` is a Player, an id or an OuterRef; ``prefix`` leads from the rows
    to their team or seats (``"team__"``, ``"game_team__"`` ...). For any of
    several players: ``in_a_seat(ids, lookup="__in")``.
    """
    found = models.Q()
    for name in PLAYER_FIELDS:
        found |= models.Q(**{f"{prefix}{name}{lookup}": player})
    return found


def seat_players(seats, fields: tuple[str, ...] = ()) -> None:
    """Give every seat in ``seats`` (rows with the four seats' keys: teams, a game's teams)
    its players, read in one query by their keys (only ``fields`` of them, when given).

    Instead of joining the players' table four times: PostgreSQL spent 6.6 ms planning a
    page of a player's games joined to its game, its team and its four players (1 ms to run
    it), where two queries of two tables each take well under one."""
    seats = list(seats)
    keys = {pk for seat in seats for pk in seat.player_ids_in_order}
    found = Player.objects.filter(pk__in=keys)
    if fields:
        found = found.only(*fields)
    players = {player.pk: player for player in found} if keys else {}
    for seat in seats:
        for name in PLAYER_FIELDS:
            pk = getattr(seat, f"{name}_id")
            descriptor = getattr(type(seat), name)
            descriptor.field.set_cached_value(seat, players.get(pk) if pk else None)


class Team(Players):
    """Partners (two, three or four): the same partners are the same team, whatever name a
    game or a file gives them; two teams of other players may have one name."""

    name = models.CharField(_("name"), max_length=170)

    class Meta:
        verbose_name = _("team")
        verbose_name_plural = _("teams")
        ordering = ["name"]
        constraints = [
            *Players.Meta.constraints,
        ]
        # A name is a label: two teams of other players may share it (a team is who plays
        # in it); it is still looked up by name, ignoring capitals.
        indexes = [models.Index(Lower("name"), name="team_name_ignoring_case")]

    def __str__(self) -> str:
        return self.name


class HouseRules(models.Model):
    """The house rules (docs/rules.md section C) a game is played by, declared once.

    Games keep them so that their results can always be recomputed, and
    tournaments so that every game of theirs starts with them. The constraints
    are named after the model (``game_tables_at_least_one``,
    ``tournament_tables_at_least_one``). Django places these fields before the
    model's own; the backup keeps its column order (club.ops.backup_format).
    """

    tables_per_team = models.PositiveSmallIntegerField(_("tables per team"), default=12)
    payout_bands = models.JSONField(_("payout schedule"), default=list, blank=True)
    double_factor = models.PositiveSmallIntegerField(_("doubling factor"), default=2)
    redouble_factor = models.PositiveSmallIntegerField(_("redoubling factor"), default=4)
    # The forms clubs play (docs/rules.md section D).
    team_size = models.PositiveSmallIntegerField(_("players in a team"), default=2, db_default=2)
    scoring = models.CharField(
        _("scoring"),
        max_length=10,
        choices=Scoring.choices,
        default=Scoring.TABLES,
        db_default=Scoring.TABLES,
    )
    doubling_mode = models.CharField(
        _("doubling"),
        max_length=10,
        choices=DoublingMode.choices,
        default=DoublingMode.MULTIPLY,
        db_default=DoublingMode.MULTIPLY,
    )
    all_pass = models.BooleanField(_("a deal may be passed out"), default=True, db_default=True)
    kodi = models.BooleanField(_("kodi"), default=False, db_default=False)
    thani_made = models.PositiveSmallIntegerField(_("a thani made moves"), null=True, blank=True)
    thani_failed = models.PositiveSmallIntegerField(
        _("a thani failed moves"), null=True, blank=True
    )
    small_deck = models.BooleanField(
        _("four players: J 9 A 10 only"), default=False, db_default=False
    )

    class Meta:
        abstract = True
        constraints = [
            models.CheckConstraint(
                condition=models.Q(tables_per_team__gte=1), name="%(class)s_tables_at_least_one"
            ),
            models.CheckConstraint(
                condition=models.Q(double_factor__gte=1, redouble_factor__gte=1),
                name="%(class)s_doubling_factors_positive",
            ),
            models.CheckConstraint(
                condition=models.Q(team_size__gte=2, team_size__lte=4),
                name="%(class)s_team_size_2_to_4",
            ),
            models.CheckConstraint(
                condition=models.Q(scoring__in=Scoring.values)
                & models.Q(doubling_mode__in=DoublingMode.values),
                name="%(class)s_scoring_and_doubling_known",
            ),
            models.CheckConstraint(
                condition=models.Q(kodi=False) | models.Q(scoring=Scoring.TABLES),
                name="%(class)s_kodi_in_tables_only",
            ),
            models.CheckConstraint(
                condition=models.Q(thani_made__isnull=True, thani_failed__isnull=True)
                | models.Q(thani_made__isnull=False, thani_failed__isnull=False),
                name="%(class)s_thani_made_and_failed",
            ),
        ]

    @property
    def rules(self) -> core.Rules:
        """The house rules for the rules core."""
        return rules_from_fields(self)


class Game(HouseRules):
    class Status(models.TextChoices):
        IN_PROGRESS = "in_progress", _("In progress")
        FINISHED = "finished", _("Finished")

    # The club that plays it (club.clubs); the home club when code names none.
    club = models.ForeignKey(
        "clubs.Club",
        on_delete=models.PROTECT,
        related_name="games",
        default=known.home_id,
        verbose_name=_("club"),
    )
    label = models.CharField(_("label"), max_length=120)
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.IN_PROGRESS
    )
    first_dealer_seat = models.PositiveSmallIntegerField(_("first dealer's seat"))
    # The club's settings for this game (HouseRules, above) are kept with it so
    # that its results can always be recomputed.
    # A tournament may end each game after a number of deals, or when the
    # organiser calls time; the game is then placed by tables held.
    deal_limit = models.PositiveIntegerField(_("deal limit"), null=True, blank=True)
    # A knockout game cannot end level: at its deal limit it plays this many
    # more deals, then one at a time until the totals differ (docs/rules.md section E).
    tie_deals = models.PositiveSmallIntegerField(_("extra deals on a tie"), null=True, blank=True)
    ended_early = models.BooleanField(_("ended by the organiser"), default=False)
    # Deals sent through a scorer link wait for a player of another team to confirm.
    require_confirmation = models.BooleanField(_("deals need confirming"), default=False)
    # Set while the game belongs to a tournament whose results are final.
    results_locked = models.BooleanField(_("results locked"), default=False)
    # Derived by the services from the deals; never edited by hand.
    deals_played = models.PositiveIntegerField(_("deals played"), default=0)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    dealer_seat = models.PositiveSmallIntegerField(_("next dealer's seat"), default=0)
    winner = models.ForeignKey(
        "GameTeam",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("winner"),
    )
    created_at = models.DateTimeField(_("started"), auto_now_add=True)
    updated_at = models.DateTimeField(_("last change"), auto_now=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("started by"),
    )

    class Meta(HouseRules.Meta):
        verbose_name = _("game")
        verbose_name_plural = _("games")
        ordering = ["-created_at", "-id"]
        constraints = [
            *HouseRules.Meta.constraints,
            # Two clubs may each have their "Table 1".
            models.UniqueConstraint(
                "club", Lower("label"), name="game_label_unique_in_club_ignoring_case"
            ),
            models.CheckConstraint(
                condition=models.Q(deal_limit__isnull=True) | models.Q(deal_limit__gte=1),
                name="game_deal_limit_positive",
            ),
            # A points sheet is a set number of deals (docs/rules.md section D).
            models.CheckConstraint(
                condition=models.Q(scoring=Scoring.TABLES) | models.Q(deal_limit__isnull=False),
                name="game_points_need_a_deal_limit",
            ),
        ]
        indexes = [
            # The games list: in-progress games first, newest first.
            models.Index(fields=["club", "status", "-created_at"], name="game_club_status_created"),
            # Ratings: finished games in the order they finished.
            models.Index(fields=["finished_at", "id"], name="game_finished_order"),
            # The home page's finished games, latest first, a page at a time: read in the
            # index's order (without it, every finished game of the club was sorted).
            models.Index(
                fields=["club", "status", "-finished_at", "-id"], name="game_club_status_finished"
            ),
            # The home page's key (club.web.pages): the newest change of any of its games.
            models.Index(fields=["club", "updated_at"], name="game_club_updated"),
            # The admin's list of games, newest first (the model's order), a page at a
            # time: without it, every game of the club was sorted for each page.
            models.Index(fields=["-created_at", "-id"], name="game_created_order"),
            models.Index(fields=["club", "-created_at", "-id"], name="game_club_created_order"),
        ]

    def __str__(self) -> str:
        return self.label

    def get_absolute_url(self) -> str:
        return reverse_in(
            known.by_id(self.club_id or known.home_id()), "games:detail", args=[self.pk]
        )

    @property
    def title(self) -> str:
        """The label in the reader's words (a sitting's game names its sitting and table
        in the reader's language): what pages show."""
        return words.game_title(self.label)

    @property
    def is_finished(self) -> bool:
        return self.status == self.Status.FINISHED

    @property
    def ends_level_if_called(self) -> bool:
        """Calling time now would end it level (docs/rules.md, B.6): it is being played and
        has no deal. A knockout's game never does: it cannot end level, so it plays on."""
        return not self.is_finished and self.deals_played == 0 and self.tie_deals is None


class GameTeam(Players):
    """A team's place at one game: its seats, and its tables (or points) and place so far.

    Its players (Players: first, second, third, fourth) are who sits in the
    first, second, third and fourth round of seats at this game.
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="teams")
    team = models.ForeignKey(Team, on_delete=models.PROTECT, related_name="game_entries")
    position = models.PositiveSmallIntegerField(_("order at the table"))
    # Not a column: a tournament's printed sheets mark its captain's seat (games/sheet.html).
    captain_pk: int | None
    # Derived by the services from the deals.
    tables = models.PositiveSmallIntegerField(_("tables"))
    place = models.PositiveSmallIntegerField(_("place"), null=True, blank=True)
    out_in_deal = models.PositiveIntegerField(_("out in deal"), null=True, blank=True)
    score = models.PositiveIntegerField(
        _("points"), default=0, db_default=0
    )  # points scoring: the total
    kodis = models.PositiveSmallIntegerField(_("kodis"), default=0, db_default=0)
    # The deals it declared (its declaring team's), and made: the standings count them.
    # Derived like the rest, so a backup leaves them out and restore counts them again.
    declared = models.PositiveIntegerField(_("contracts declared"), default=0, db_default=0)
    made = models.PositiveIntegerField(_("contracts made"), default=0, db_default=0)

    class Meta:
        verbose_name = _("team in a game")
        verbose_name_plural = _("teams in games")
        ordering = ["game", "position"]
        constraints = [
            *Players.Meta.constraints,
            models.UniqueConstraint(fields=["game", "position"], name="gameteam_one_per_position"),
            models.UniqueConstraint(fields=["game", "team"], name="gameteam_team_once_per_game"),
        ]

    def __str__(self) -> str:
        return self.team.name

    @property
    def name(self) -> str:
        return self.team.name


class Round(models.Model):
    """One deal of a game, as reported by the scorer and settled by the rules."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveIntegerField(_("deal"))
    all_pass = models.BooleanField(_("all passed"), default=False)
    declarer = models.ForeignKey(
        Player,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("declarer"),
    )
    bid = models.PositiveSmallIntegerField(_("bid"), null=True, blank=True)  # none for a thani
    trump = models.CharField(_("trumps"), max_length=10, choices=Trump.choices, blank=True)
    doubling = models.CharField(
        _("doubling"), max_length=10, choices=Doubling.choices, default=Doubling.NONE
    )
    # Derived by the services.
    dealer = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="+", verbose_name=_("dealer")
    )
    declaring_team = models.ForeignKey(
        GameTeam, on_delete=models.CASCADE, related_name="+", verbose_name=_("declaring team")
    )
    made = models.BooleanField(_("made"))
    recorded_at = models.DateTimeField(_("recorded"), auto_now_add=True)
    # One player played every trick alone (docs/rules.md section D): the declarer
    # is that player, with no bid, trumps, doubling or piles.
    thani = models.BooleanField(_("thani"), default=False, db_default=False)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("recorded by"),
    )
    # Not a column: a deal just recorded carries the seating it was recorded with
    # (club.games.services.record_deal), so its caller need not load it again.
    seating: Seating

    class Meta:
        verbose_name = _("deal")
        verbose_name_plural = _("deals")
        ordering = ["game", "number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="round_one_per_number"),
            models.CheckConstraint(condition=models.Q(number__gte=1), name="round_number_from_1"),
            models.CheckConstraint(
                condition=models.Q(bid__gte=MIN_BID, bid__lte=MAX_BID)
                | models.Q(thani=True, bid__isnull=True),
                name="round_bid_in_range",
            ),
            models.CheckConstraint(
                condition=models.Q(trump__in=Trump.values) | models.Q(thani=True, trump=""),
                name="round_trump_known",
            ),
            models.CheckConstraint(
                condition=models.Q(doubling__in=Doubling.values), name="round_doubling_known"
            ),
            # Every deal has a declarer, unless all passed: then no doubling either.
            # A thani's declarer is its player, with no bid, trumps or doubling.
            models.CheckConstraint(
                condition=models.Q(all_pass=False, thani=False, declarer__isnull=False)
                | models.Q(
                    all_pass=False,
                    thani=True,
                    declarer__isnull=False,
                    bid__isnull=True,
                    trump="",
                    doubling=Doubling.NONE,
                )
                | models.Q(
                    all_pass=True,
                    thani=False,
                    declarer__isnull=True,
                    doubling=Doubling.NONE,
                    bid=MIN_BID,
                    trump=Trump.NO_TRUMPS,
                ),
                name="round_declarer_unless_all_pass",
            ),
        ]

    def __str__(self) -> str:
        return _("Deal %(number)d of %(game)s") % {"number": self.number, "game": self.game}


class Pile(models.Model):
    """The card points one team took in one deal."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="piles")
    game_team = models.ForeignKey(GameTeam, on_delete=models.CASCADE, related_name="piles")
    points = models.PositiveSmallIntegerField(_("card points"))

    class Meta:
        verbose_name = _("pile")
        verbose_name_plural = _("piles")
        constraints = [
            models.UniqueConstraint(fields=["round", "game_team"], name="pile_one_per_team"),
            models.CheckConstraint(
                condition=models.Q(points__gte=0, points__lte=core.TOTAL_POINTS),
                name="pile_points_0_to_56",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.game_team}: {self.points}"


class LedgerEntry(models.Model):
    """How one deal moved one team's tables, or on a points sheet what it scored.

    Derived from the deals, never edited. With tables, ``change`` is the
    tables moved and ``balance`` what the team holds when the next deal starts
    (after a kodi's restart); on a points sheet ``change`` is what the team
    scored in the deal and ``balance`` its total after it.
    """

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="ledger")
    game_team = models.ForeignKey(GameTeam, on_delete=models.CASCADE, related_name="ledger")
    change = models.IntegerField(_("change"))
    balance = models.PositiveIntegerField(_("tables after"))

    class Meta:
        verbose_name = _("ledger entry")
        verbose_name_plural = _("ledger entries")
        ordering = ["round__number", "game_team__position"]
        constraints = [
            models.UniqueConstraint(fields=["round", "game_team"], name="ledger_one_per_team"),
            models.CheckConstraint(
                condition=models.Q(balance__gte=0), name="ledger_balance_not_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.game_team}: {self.change:+d} → {self.balance}"


class Change(models.Model):
    """Who recorded, corrected or undid a deal, when, and the deal before and after."""

    class Action(models.TextChoices):
        RECORDED = "recorded", _("Recorded")
        EDITED = "edited", _("Corrected")
        UNDONE = "undone", _("Undone")
        PROPOSED = "proposed", _("Sent for confirmation")
        REJECTED = "rejected", _("Rejected")
        REPLACED = "replaced", _("Replaced by the organiser's entry")
        ENDED = "ended", _("Ended by the organiser")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="changes")
    number = models.PositiveIntegerField(_("deal"))
    action = models.CharField(_("action"), max_length=10, choices=Action.choices)
    before = models.JSONField(_("before"), null=True, blank=True)
    after = models.JSONField(_("after"), null=True, blank=True)
    made_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("by"),
    )
    scorer_link = models.ForeignKey(
        "ScorerLink",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("through scorer link"),
    )
    # Why, in the words of whoever did it (a deal rejected from a phone).
    note = models.CharField(_("note"), max_length=200, blank=True, default="", db_default="")
    made_at = models.DateTimeField(_("when"), auto_now_add=True)

    class Meta:
        verbose_name = _("change")
        verbose_name_plural = _("changes")
        ordering = ["-made_at", "-id"]
        indexes = [
            # The game page's history: a game's changes, newest first.
            models.Index(fields=["game", "-made_at"], name="change_game_made_at"),
        ]

    def __str__(self) -> str:
        return f"{self.get_action_display()} {self.number}"
