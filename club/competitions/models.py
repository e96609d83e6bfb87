"""A competition over a span of dates: a club's season, or a circuit of the federation's
that counts chosen events of several clubs (docs/rules.md section F).

Only its rule and what it counts are stored: its table is made from the games and
tournaments it counts whenever it is read (club.competitions.table), so a correction or
a late result anywhere in its span is in the next reading, and nothing can go stale.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

from club.clubs import known
from club.clubs.addresses import reverse_in, site_reverse
from club.scoring import seasons
from club.tournaments.models import Tournament


class Competition(models.Model):
    class Counts(models.TextChoices):
        ALL = "all", _("All the club's games and tournaments")
        FORM = "form", _("The games and tournaments of one form of play")
        EVENTS = "events", _("Chosen tournaments")

    class Ranks(models.TextChoices):
        TEAMS = "teams", _("Teams")
        PLAYERS = "players", _("Players")

    class Method(models.TextChoices):
        PLACES = seasons.PLACES, _("Points for each place")
        MATCH_POINTS = seasons.MATCH_POINTS, _("The sum of match points")

    # The club whose season it is; none for a circuit of the federation.
    club = models.ForeignKey(
        "clubs.Club",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="competitions",
        verbose_name=_("club"),
    )
    name = models.CharField(_("name"), max_length=120)
    starts_on = models.DateField(_("first day"))
    ends_on = models.DateField(_("last day"))
    counts = models.CharField(_("counts"), max_length=8, choices=Counts.choices)
    form = models.CharField(_("form of play"), max_length=8, blank=True)
    events = models.ManyToManyField(
        Tournament, blank=True, related_name="competitions", verbose_name=_("tournaments")
    )
    ranks = models.CharField(_("ranks"), max_length=8, choices=Ranks.choices)
    method = models.CharField(_("scored by"), max_length=12, choices=Method.choices)
    # Points for 1st, 2nd, ... place in a night: whole numbers, never rising.
    place_points = models.JSONField(_("points for each place"), default=list, blank=True)
    best = models.PositiveSmallIntegerField(_("best nights counted"), null=True, blank=True)
    minimum = models.PositiveSmallIntegerField(_("nights to be ranked"), default=1)
    # A night's results are due this many days after it; none: no deadline.
    final_within_days = models.PositiveSmallIntegerField(
        _("results due within days"), null=True, blank=True
    )
    late_counts = models.BooleanField(_("late results count"), default=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("last change"), auto_now=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("created by"),
    )

    class Meta:
        verbose_name = _("competition")
        verbose_name_plural = _("competitions")
        ordering = ["-ends_on", "name", "id"]
        indexes = [models.Index(fields=["club", "-ends_on"], name="competition_club_latest")]
        constraints = [
            models.UniqueConstraint("club", Lower("name"), name="competition_name_unique_in_club"),
            models.UniqueConstraint(
                Lower("name"),
                condition=models.Q(club__isnull=True),
                name="circuit_name_unique",
            ),
            models.CheckConstraint(
                condition=models.Q(ends_on__gte=models.F("starts_on")),
                name="competition_ends_after_it_starts",
            ),
            models.CheckConstraint(
                condition=models.Q(minimum__gte=0)
                & (models.Q(best__isnull=True) | models.Q(best__gte=1)),
                name="competition_counts_a_night",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        if self.club_id is None:
            return site_reverse("circuits:detail", args=[self.pk])
        return reverse_in(known.by_id(self.club_id), "competitions:detail", args=[self.pk])

    @property
    def is_circuit(self) -> bool:
        return self.club_id is None

    def rule(self) -> seasons.Rule:
        """The rule of its table (club.scoring.seasons)."""
        return seasons.Rule(
            self.method, tuple(self.place_points), best=self.best, minimum=self.minimum
        )
