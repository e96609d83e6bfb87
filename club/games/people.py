"""Who plays: a player, the identifier that travels with them, and the identifiers they
were known by before two records of them were merged.

A player's identifier is a UUID made when the player is first created, on the club's site
or on the venue's laptop, and kept for ever: a results file names each player with it
(the archive's ``players`` list), so the same person is found on every site that has
them, whatever name they were written under. Merging two records keeps the folded one's
identifier as an :class:`PlayerAlias` of the one kept, so a later file with it still
finds the right person.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from club.clubs import known


class Player(models.Model):
    name = models.CharField(_("name"), max_length=80)
    nickname = models.CharField(_("nickname"), max_length=80, blank=True)
    member_number = models.CharField(_("member number"), max_length=30, blank=True)
    identifier = models.UUIDField(_("identifier"), default=uuid.uuid4, unique=True, editable=False)
    active = models.BooleanField(_("active"), default=True)
    created_at = models.DateTimeField(_("added"), auto_now_add=True)

    class Meta:
        app_label = "games"
        verbose_name = _("player")
        verbose_name_plural = _("players")
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(Lower("name"), name="player_name_unique_ignoring_case"),
            models.UniqueConstraint(
                fields=["member_number"],
                condition=~models.Q(member_number=""),
                name="player_member_number_unique",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("leaderboards:player", args=[self.pk])


class PlayerAlias(models.Model):
    """An identifier a player was also known by: a merged record's, or a file's that an
    organiser said was this player. Never a player's own identifier."""

    identifier = models.UUIDField(_("identifier"), unique=True)
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="aliases", verbose_name=_("player")
    )
    added_at = models.DateTimeField(_("added"), auto_now_add=True)

    class Meta:
        app_label = "games"
        verbose_name = _("earlier identifier")
        verbose_name_plural = _("earlier identifiers")

    def __str__(self) -> str:
        return str(self.identifier)


def with_identifier(identifiers) -> dict:
    """{identifier: Player} for those of ``identifiers`` this site knows, as a player's own
    or as an earlier one of theirs (two queries, whatever the number)."""
    wanted = list(identifiers)
    found: dict = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        found.update({p.identifier: p for p in Player.objects.filter(identifier__in=chunk)})
        for alias in PlayerAlias.objects.filter(identifier__in=chunk).select_related("player"):
            found.setdefault(alias.identifier, alias.player)
    return found


class Membership(models.Model):
    """A player a club knows: registered there, or seated at one of its games. Players are
    the site's; a club's players pages, boards and lists show its members."""

    club = models.ForeignKey(
        "clubs.Club", on_delete=models.CASCADE, related_name="memberships", verbose_name=_("club")
    )
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="memberships", verbose_name=_("player")
    )
    since = models.DateTimeField(_("since"), auto_now_add=True)

    class Meta:
        app_label = "games"
        verbose_name = _("member")
        verbose_name_plural = _("members")
        constraints = [
            models.UniqueConstraint(fields=["club", "player"], name="membership_once_per_club")
        ]
        indexes = [models.Index(fields=["player", "club"], name="membership_player_club")]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.club_id}"


def join(club_id: int | None, player_ids) -> None:
    """Make the players members of the club (those already members stay as they were); a
    club of None is the home club."""
    if club_id is None:
        club_id = known.home_id()
    Membership.objects.bulk_create(
        [Membership(club_id=club_id, player_id=pk) for pk in sorted(player_ids)],
        ignore_conflicts=True,
    )
