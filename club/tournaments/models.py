"""Tournaments: registered teams, sittings of games played at the same time, standings.

A *sitting* is the set of games a tournament plays at the same time (the word
*round* stays reserved for a deal). The app proposes a sitting's draw; the
organiser may adjust it, then confirms it, which starts its games with the
tournament's house rules. Standings are derived from the games' results and
stored, rebuilt whenever a result of the tournament changes.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from club.clubs import known
from club.clubs.addresses import reverse_in
from club.games.models import Game, HouseRules, Player, Team


class Tournament(HouseRules):
    """An event of sittings; its house rules (HouseRules) are every game's."""

    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")

    # The club that holds it (club.clubs); the home club when code names none.
    club = models.ForeignKey(
        "clubs.Club",
        on_delete=models.PROTECT,
        related_name="tournaments",
        default=known.home_id,
        verbose_name=_("club"),
    )
    name = models.CharField(_("name"), max_length=120)
    starts_on = models.DateField(_("first day"))
    ends_on = models.DateField(_("last day"), null=True, blank=True)
    venue = models.CharField(_("venue"), max_length=200, blank=True)
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.DRAFT
    )
    is_final = models.BooleanField(_("results are final"), default=False)
    deal_limit = models.PositiveIntegerField(_("deals per game"), null=True, blank=True)
    # Tournament points by place, per number of teams in a game: {"2": [3, 1], ...}.
    points_scheme = models.JSONField(_("points by place"), default=dict, blank=True)
    require_confirmation = models.BooleanField(
        _("deals from scorer links need another team's confirmation"), default=False
    )
    # Teams check in before each sitting, and only the teams checked in are drawn.
    check_in = models.BooleanField(_("teams check in before each sitting"), default=False)
    # How many substitutions a team may make in the event (docs/rules.md section E, "Who plays
    # for a team"): one in an emergency, as the 56 International allows.
    substitutions = models.PositiveSmallIntegerField(_("substitutions a team may make"), default=1)
    # Bumped in the same transaction as any change to the tournament's results,
    # so pages can tell cheaply whether anything changed.
    results_version = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("created by"),
    )

    class Meta(HouseRules.Meta):
        verbose_name = _("tournament")
        verbose_name_plural = _("tournaments")
        ordering = ["-starts_on", "-id"]
        constraints = [
            *HouseRules.Meta.constraints,
            models.UniqueConstraint(
                "club", Lower("name"), name="tournament_name_unique_in_club_ignoring_case"
            ),
            models.CheckConstraint(
                condition=models.Q(deal_limit__isnull=True) | models.Q(deal_limit__gte=1),
                name="tournament_deal_limit_positive",
            ),
            # A points sheet is a set number of deals (docs/rules.md section D).
            models.CheckConstraint(
                condition=models.Q(scoring="tables") | models.Q(deal_limit__isnull=False),
                name="tournament_points_need_a_deal_limit",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse_in(
            known.by_id(self.club_id or known.home_id()), "tournaments:detail", args=[self.pk]
        )


class TournamentTeam(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    team = models.ForeignKey(Team, on_delete=models.PROTECT, related_name="tournament_entries")
    registered_at = models.DateTimeField(_("registered"), auto_now_add=True)
    # A team that has withdrawn gets no new games; its results stay in the standings.
    withdrawn_at = models.DateTimeField(_("withdrawn"), null=True, blank=True)
    # One of the team's players, named at registration (the first named unless marked).
    # The secret of the captain's page (the QR code on the team's card), made when a card
    # is first printed; a new one makes the old card stop working.
    captain_key = models.CharField(max_length=64, null=True, blank=True, unique=True)
    captain = models.ForeignKey(
        Player,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("captain"),
    )

    class Meta:
        verbose_name = _("registered team")
        verbose_name_plural = _("registered teams")
        ordering = ["tournament", "team__name"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "team"], name="tournamentteam_team_once_per_tournament"
            ),
        ]

    def __str__(self) -> str:
        return self.team.name


class Stage(models.Model):
    """A part of the tournament played one way (docs/rules.md section E), its sittings in turn.

    A group stage or a round robin draws its whole chart when it is added; a
    knockout its seeds, from the standings so far. While ``PROPOSED`` the
    organiser may adjust and print it; once ``CONFIRMED`` its sittings are
    drawn from it one by one (club.tournaments.stages). A tournament with no
    stage plays Swiss sittings, as it always did.
    """

    class Kind(models.TextChoices):
        SITTINGS = "sittings", _("Swiss sittings")
        GROUPS = "groups", _("Groups A and B")
        ROUND_ROBIN = "round_robin", _("Round robin")
        KNOCKOUT = "knockout", _("Knockout")

    class Status(models.TextChoices):
        # A stage's own words: some languages say them of a stage unlike a sitting's.
        PROPOSED = "proposed", pgettext_lazy("stage", "Proposed")
        CONFIRMED = "confirmed", pgettext_lazy("stage", "Confirmed")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="stages")
    number = models.PositiveSmallIntegerField(_("stage"))
    kind = models.CharField(_("kind"), max_length=12, choices=Kind.choices)
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.PROPOSED
    )
    # Every game of the stage is played to this many deals (the tournament's when empty).
    deal_limit = models.PositiveIntegerField(_("deals per game"), null=True, blank=True)
    # A knockout's tie rule: extra deals when a match is level at its limit,
    # then one deal at a time until the totals differ.
    tie_deals = models.PositiveSmallIntegerField(_("extra deals on a tie"), null=True, blank=True)
    # Groups A and B: {"a": [TournamentTeam ids], "b": [...]}.
    groups = models.JSONField(_("groups"), default=dict, blank=True)
    # Groups and round robin: the sittings drawn ahead, [{"games": [[a, b], ...], "byes": [...]}].
    chart = models.JSONField(_("chart"), default=list, blank=True)
    # Knockout: TournamentTeam ids, the first seed first.
    seeds = models.JSONField(_("seeds"), default=list, blank=True)
    created_at = models.DateTimeField(_("drawn"), auto_now_add=True)
    confirmed_at = models.DateTimeField(_("confirmed"), null=True, blank=True)

    class Meta:
        verbose_name = _("stage")
        verbose_name_plural = _("stages")
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="stage_one_per_number"),
            models.CheckConstraint(
                condition=models.Q(deal_limit__isnull=True) | models.Q(deal_limit__gte=1),
                name="stage_deal_limit_positive",
            ),
            models.CheckConstraint(
                condition=models.Q(kind__in=["sittings", "groups", "round_robin", "knockout"]),
                name="stage_kind_known",
            ),
        ]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("tournaments:stage", args=[self.tournament_id, self.number])

    @property
    def title(self) -> str:
        return _("Stage %(number)d: %(kind)s") % {
            "number": self.number,
            "kind": self.get_kind_display(),
        }

    @property
    def charted(self) -> bool:
        """Whether the stage's sittings are drawn ahead, in its chart."""
        return self.kind in (self.Kind.GROUPS, self.Kind.ROUND_ROBIN)


class Sitting(models.Model):
    class Status(models.TextChoices):
        PROPOSED = "proposed", _("Proposed")
        CONFIRMED = "confirmed", _("Confirmed")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="sittings")
    number = models.PositiveSmallIntegerField(_("sitting"))
    # The stage it was drawn in; none for the Swiss sittings of a tournament without stages.
    stage = models.ForeignKey(
        Stage,
        null=True,
        blank=True,
        on_delete=models.CASCADE,  # only a proposed stage is discarded: it has no sittings
        related_name="sittings",
        verbose_name=_("stage"),
    )
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.PROPOSED
    )
    game_size = models.PositiveSmallIntegerField(_("teams per game"), default=2)
    # The draw while it is only proposed: lists of TournamentTeam ids per table,
    # and the ids sitting out. Confirming turns it into games and byes.
    proposal = models.JSONField(_("proposed games"), default=list, blank=True)
    proposed_byes = models.JSONField(_("proposed byes"), default=list, blank=True)
    # With check-in: the TournamentTeam ids left out of the draw, not checked in. They
    # play no game and have no bye in this sitting: they score nothing for it.
    absent = models.JSONField(_("not checked in"), default=list, blank=True)
    created_at = models.DateTimeField(_("drawn"), auto_now_add=True)
    confirmed_at = models.DateTimeField(_("confirmed"), null=True, blank=True)
    # How the draw was made, as the draw saw it when it was made (the standings and the
    # earlier games change afterwards): kept with the sitting, shown on its pages.
    explained = models.JSONField(_("how it was drawn"), default=dict, blank=True)
    # The sitting's clock: the length the director set, and the moment it runs out (the
    # server's time; the phones show what is left of it).
    minutes = models.PositiveSmallIntegerField(_("length in minutes"), null=True, blank=True)
    ends_at = models.DateTimeField(_("time is up at"), null=True, blank=True)

    class Meta:
        verbose_name = _("sitting")
        verbose_name_plural = _("sittings")
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="sitting_one_per_number"),
            models.CheckConstraint(
                condition=models.Q(game_size__gte=2, game_size__lte=4),
                name="sitting_game_size_2_to_4",
            ),
        ]

    def __str__(self) -> str:
        return self.title(self.number)

    @staticmethod
    def title(number: int) -> str:
        return _("Sitting %(number)d") % {"number": number}


class CheckIn(models.Model):
    """A team is present for a sitting: checked in by the director or its captain."""

    entry = models.ForeignKey(TournamentTeam, on_delete=models.CASCADE, related_name="check_ins")
    number = models.PositiveSmallIntegerField(_("sitting"))
    at = models.DateTimeField(_("checked in"), auto_now_add=True)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("checked in by"),
    )
    # Checked in through the captain's own page, not by the director.
    by_captain = models.BooleanField(_("by the captain"), default=False)

    class Meta:
        verbose_name = _("check-in")
        verbose_name_plural = _("check-ins")
        ordering = ["number", "at"]
        constraints = [
            models.UniqueConstraint(fields=["entry", "number"], name="checkin_once_per_sitting"),
        ]

    def __str__(self) -> str:
        return f"{self.entry}: {self.number}"


class Substitution(models.Model):
    """A player of a registered team replaced from a sitting on, and perhaps back later.

    The team's line-up at a sitting is its registered players with the substitutions
    covering that sitting applied: sittings ``first_sitting`` up to the one before
    ``returned_from`` (to the end while the starter has not returned).
    """

    entry = models.ForeignKey(
        TournamentTeam, on_delete=models.CASCADE, related_name="substitutions"
    )
    player_out = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="+", verbose_name=_("player out")
    )
    player_in = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="+", verbose_name=_("substitute")
    )
    first_sitting = models.PositiveSmallIntegerField(_("from sitting"))
    # The sitting the starting player plays again from; none while away.
    returned_from = models.PositiveSmallIntegerField(_("back from sitting"), null=True, blank=True)
    made_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("by"),
    )
    made_at = models.DateTimeField(_("when"), auto_now_add=True)

    class Meta:
        verbose_name = _("substitution")
        verbose_name_plural = _("substitutions")
        ordering = ["entry", "first_sitting", "id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(first_sitting__gte=1), name="substitution_from_a_sitting"
            ),
            models.CheckConstraint(
                condition=models.Q(returned_from__isnull=True)
                | models.Q(returned_from__gt=models.F("first_sitting")),
                name="substitution_back_after_it_began",
            ),
            models.CheckConstraint(
                condition=~models.Q(player_out=models.F("player_in")),
                name="substitution_of_another_player",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.entry}: {self.player_in} for {self.player_out}"

    def covers(self, number: int) -> bool:
        """Whether the substitute sits in sitting ``number``."""
        return self.first_sitting <= number and (
            self.returned_from is None or number < self.returned_from
        )

    @property
    def last_sitting(self) -> int | None:
        """The substitute's last sitting, or None while the starter is away."""
        return None if self.returned_from is None else self.returned_from - 1


class SittingGame(models.Model):
    sitting = models.ForeignKey(Sitting, on_delete=models.CASCADE, related_name="games")
    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="sitting_entry")
    table_label = models.CharField(_("table"), max_length=40)
    position = models.PositiveSmallIntegerField(_("order"))

    class Meta:
        verbose_name = _("game of a sitting")
        verbose_name_plural = _("games of sittings")
        ordering = ["sitting", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["sitting", "table_label"], name="sittinggame_table_once_per_sitting"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.sitting}: {self.table_label}"


class Bye(models.Model):
    sitting = models.ForeignKey(Sitting, on_delete=models.CASCADE, related_name="byes")
    entry = models.ForeignKey(TournamentTeam, on_delete=models.CASCADE, related_name="byes")

    class Meta:
        verbose_name = _("bye")
        verbose_name_plural = _("byes")
        constraints = [
            models.UniqueConstraint(fields=["sitting", "entry"], name="bye_once_per_sitting"),
        ]

    def __str__(self) -> str:
        return f"{self.sitting}: {self.entry}"


# A standing's figures: what the standings derive for each team, and pages read.
STANDING_FIGURES = (
    "place",
    "shared",
    "points",
    "games",
    "won",
    "net_tables",
    "score_difference",
    "declared",
    "made",
    "byes",
)


class Standing(models.Model):
    """A team's line in the standings: derived from results, rebuilt when they change."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="standings")
    entry = models.OneToOneField(TournamentTeam, on_delete=models.CASCADE, related_name="standing")
    place = models.PositiveSmallIntegerField(_("place"))
    shared = models.BooleanField(_("shared place"), default=False)
    points = models.DecimalField(_("points"), max_digits=8, decimal_places=2)
    games = models.PositiveSmallIntegerField(_("games"))
    won = models.PositiveSmallIntegerField(_("won"))
    net_tables = models.IntegerField(_("net tables"))
    # On a points sheet, where nothing moves (club.scoring.standings).
    score_difference = models.IntegerField(_("score difference"), default=0, db_default=0)
    declared = models.PositiveIntegerField(_("contracts declared"))
    made = models.PositiveIntegerField(_("contracts made"))
    byes = models.PositiveSmallIntegerField(_("byes"), default=0)

    class Meta:
        verbose_name = _("standing")
        verbose_name_plural = _("standings")
        ordering = ["tournament", "place", "entry__team__name"]
        indexes = [
            # The standings table: one tournament's lines in place order.
            models.Index(fields=["tournament", "place"], name="standing_tournament_place"),
        ]

    def __str__(self) -> str:
        return f"{self.place}. {self.entry}"

    @property
    def made_share(self):
        return self.made / self.declared if self.declared else None


class TournamentEvent(models.Model):
    """What the organisers did to a tournament, and when: the audit trail."""

    class Action(models.TextChoices):
        CREATED = "created", _("Created")
        STARTED = "started", _("Started")
        DRAWN = "drawn", _("Sitting drawn")
        ADJUSTED = "adjusted", _("Draw adjusted")
        CONFIRMED = "confirmed", _("Sitting confirmed")
        TIME_CALLED = "time", _("Time called")
        FINISHED = "finished", _("Finished")
        FINALISED = "finalised", _("Results made final")
        REOPENED = "reopened", _("Reopened")
        DISCARDED = "discarded", _("Draw discarded")
        REGISTERED = "registered", _("Team registered")
        EDITED = "edited", _("Team changed")
        WITHDRAWN = "withdrawn", _("Team withdrawn")
        REINSTATED = "reinstated", _("Team back in")
        LINKS = "links", _("Scorer links issued")
        STAGE_ADDED = "stage", _("Stage drawn")
        STAGE_ADJUSTED = "stage_adj", _("Stage adjusted")
        STAGE_CONFIRMED = "stage_ok", _("Stage confirmed")
        STAGE_DISCARDED = "stage_del", _("Stage discarded")
        SUBSTITUTED = "sub", _("Player substituted")
        RETURNED = "sub_back", _("Player back")
        SUBSTITUTION_UNDONE = "sub_undo", _("Substitution undone")
        # The sitting's clock (club.tournaments.clock): the note holds the minutes.
        CLOCK_SET = "clock", _("Clock set, in minutes")
        CLOCK_ADDED = "clock_add", _("Minutes added to the clock")
        CLOCK_STOPPED = "clock_stop", _("Clock stopped")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="events")
    action = models.CharField(_("action"), max_length=10, choices=Action.choices)
    # The sitting concerned, by number; kept as data so the history reads in
    # whichever language the reader has chosen.
    sitting_number = models.PositiveSmallIntegerField(_("sitting"), null=True, blank=True)
    # The stage concerned, by number, likewise.
    stage_number = models.PositiveSmallIntegerField(_("stage"), null=True, blank=True)
    # What the organiser wrote (the reason for reopening), shown as written.
    note = models.TextField(_("note"), blank=True)
    made_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("by"),
    )
    made_at = models.DateTimeField(_("when"), auto_now_add=True)

    class Meta:
        verbose_name = _("tournament event")
        verbose_name_plural = _("tournament events")
        ordering = ["-made_at", "-id"]

    def __str__(self) -> str:
        return f"{self.get_action_display()} ({self.made_at:%Y-%m-%d %H:%M})"
