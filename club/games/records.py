"""What the tables' phones and the pages leave beside the games: scorer links, deals
waiting for another team's confirmation or rejected by it, the director's calls, the
one-time keys of the forms sent, and the club's version that cached pages are kept under.

Models of the games app, as ``club.games.models`` holds them (it imports them from
here): their games and teams are named as the app's models, ``games.Game``.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _


class ScorerLink(models.Model):
    """A secret URL that lets whoever holds it record the deals of one game, without an account.

    With ``game.require_confirmation`` each team gets its own link, and a deal
    sent through one team's link waits for another team's link to confirm it.
    A link stops working when it is revoked or the game ends.
    """

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="scorer_links")
    game_team = models.ForeignKey(
        "games.GameTeam",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="scorer_links",
        verbose_name=_("team"),
    )
    token = models.CharField(_("secret"), max_length=64, unique=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("created by"),
    )
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)
    # Set when the game ends: an undo of the final deal opens the game again, not
    # its links; the organiser issues new ones.
    expired_at = models.DateTimeField(_("expired"), null=True, blank=True)

    class Meta:
        verbose_name = _("scorer link")
        verbose_name_plural = _("scorer links")
        ordering = ["game", "game_team__position", "-created_at"]

    def __str__(self) -> str:
        return _("Scorer link for %(game)s") % {"game": self.game}

    def get_absolute_url(self) -> str:
        return reverse("games:scorer", args=[self.token])


class PendingDeal(models.Model):
    """A deal sent through a scorer link, waiting for a player of another team to confirm it."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="pending_deals")
    number = models.PositiveIntegerField(_("deal"))
    entry = models.JSONField(_("deal as entered"))
    sent_by = models.ForeignKey(
        ScorerLink, on_delete=models.CASCADE, related_name="+", verbose_name=_("sent by")
    )
    sent_at = models.DateTimeField(_("sent"), auto_now_add=True)
    # The other team's phone sent deal ``number`` too, and differently: the
    # organiser chooses between the two (club.games.links.send_for_confirmation).
    counter_entry = models.JSONField(_("the other team's entry"), null=True, blank=True)
    counter_by = models.ForeignKey(
        ScorerLink,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("other entry sent by"),
    )
    counter_at = models.DateTimeField(_("other entry sent"), null=True, blank=True)

    class Meta:
        verbose_name = _("deal waiting for confirmation")
        verbose_name_plural = _("deals waiting for confirmation")
        constraints = [
            # One deal waits at a time: the next cannot be dealt before this one counts.
            models.UniqueConstraint(fields=["game"], name="pendingdeal_one_per_game"),
        ]

    def __str__(self) -> str:
        return _("Deal %(number)d of %(game)s, waiting") % {
            "number": self.number,
            "game": self.game,
        }


class RejectedDeal(models.Model):
    """A deal sent through a scorer link and rejected, kept for the team that sent it:
    its phone says who rejected it and why, and puts the entry back in its form."""

    game = models.OneToOneField(
        "games.Game", on_delete=models.CASCADE, related_name="rejected_deal"
    )
    number = models.PositiveIntegerField(_("deal"))
    entry = models.JSONField(_("deal as entered"))
    sent_by = models.ForeignKey(
        ScorerLink, on_delete=models.CASCADE, related_name="+", verbose_name=_("sent by")
    )
    reason = models.CharField(_("reason"), max_length=200, blank=True)
    # Who rejected it: a player of another team through their link, or an organiser.
    rejected_by_link = models.ForeignKey(
        ScorerLink,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("rejected through scorer link"),
    )
    rejected_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("rejected by"),
    )
    rejected_at = models.DateTimeField(_("rejected"), auto_now_add=True)

    class Meta:
        verbose_name = _("rejected deal")
        verbose_name_plural = _("rejected deals")

    def __str__(self) -> str:
        return _("Deal %(number)d of %(game)s, rejected") % {
            "number": self.number,
            "game": self.game,
        }


class DirectorCall(models.Model):
    """A table calling the director, from its scorer's page: open until the director marks
    it answered or the table takes it back (club.games.calls). A game has one open call at
    most: a second tap finds the first."""

    class Reason(models.TextChoices):
        # What a 56 table calls the director for (docs/at-the-table.md).
        MISDEAL = "misdeal", _("Misdeal")
        CARD_SHOWN = "card_shown", _("A card shown, or a revoke")
        BIDDING = "bidding", _("The bidding is disputed")
        SCORE = "score", _("The count or the score is disputed")
        LEAVING = "leaving", _("A player must leave the table")
        OTHER = "other", _("Something else")

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="director_calls")
    # The phone that called (a team's link, where each team has its own).
    scorer_link = models.ForeignKey(
        ScorerLink,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("called through scorer link"),
    )
    # Given after the call, with one more tap; none when the table gave none.
    reason = models.CharField(_("reason"), max_length=12, choices=Reason.choices, blank=True)
    made_at = models.DateTimeField(_("called at"))
    withdrawn_at = models.DateTimeField(_("taken back at"), null=True, blank=True)
    answered_at = models.DateTimeField(_("answered at"), null=True, blank=True)
    answered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("answered by"),
    )
    # Moves with every change (made, a reason, taken back, answered): the token of the
    # pages that show calls (the director's board, the organisers' calls) reads it.
    changed_at = models.DateTimeField(_("last change"))

    class Meta:
        verbose_name = _("director call")
        verbose_name_plural = _("director calls")
        ordering = ["made_at", "id"]
        constraints = [
            # One open call a game: a second tap, or a second phone of the table, finds it.
            models.UniqueConstraint(
                fields=["game"],
                condition=models.Q(answered_at__isnull=True, withdrawn_at__isnull=True),
                name="directorcall_one_open_per_game",
            ),
            models.CheckConstraint(
                condition=models.Q(answered_at__isnull=True) | models.Q(withdrawn_at__isnull=True),
                name="directorcall_answered_or_withdrawn",
            ),
        ]
        indexes = [
            # A game's latest call (its scorer's page), and a club's or a tournament's calls
            # open or changed lately (the board, the calls page): by game, newest change.
            models.Index(fields=["game", "-changed_at"], name="directorcall_game_changed"),
            # The calls a page shows, read from here and never from the club's games: the
            # calls open (answered and taken back both empty), and those answered since a
            # moment (a range of answered_at). Both a few rows, whatever the history.
            models.Index(fields=["answered_at", "withdrawn_at"], name="directorcall_shown"),
        ]

    def __str__(self) -> str:
        return _("Director called to %(game)s") % {"game": self.game}

    @property
    def is_open(self) -> bool:
        return self.answered_at is None and self.withdrawn_at is None


class SubmittedForm(models.Model):
    """A form post seen before, by its one-time key, with the answer it got.

    Every form that writes carries a fresh random key. When a phone on a
    venue's Wi-Fi loses the answer and sends the form again, the same key comes
    back and the first answer is given again instead of writing twice. A row is
    written in the transaction of the write it answers (club.games.idempotency), so
    it exists exactly when that write was committed.
    """

    key = models.UUIDField(unique=True)
    # Text, not a bounded column: a path of any length is compared, never refused.
    path = models.TextField()
    # SHA-256 of what the form sent (but its CSRF token): the same key with other
    # values is another form, refused, not answered with the first one's answer.
    digest = models.CharField(max_length=64, blank=True, default="")
    user_id = models.BigIntegerField(null=True, blank=True)
    status = models.PositiveSmallIntegerField()
    headers = models.JSONField(default=dict, blank=True)
    body = models.BinaryField(blank=True, default=b"")  # zlib-compressed, bounded
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("submitted form")
        verbose_name_plural = _("submitted forms")
        indexes = [
            # Clearing out old keys: by age.
            models.Index(fields=["created_at"], name="submittedform_created"),
        ]

    def __str__(self) -> str:
        return f"{self.path} {self.key}"


class ClubVersion(models.Model):
    """A club's own change token for its kept pages (club.web.pages): one row a club.

    ``names`` moves whenever a player, a team or a tournament the club's pages show is
    saved (a rename shows on every page that names them); ``generation`` is new after a
    restore, so no page cached before it can be served after it, whichever server cached
    it. The federation's pages read every club's row (club.games.versions).
    """

    club = models.OneToOneField(
        "clubs.Club", on_delete=models.CASCADE, related_name="+", verbose_name=_("club")
    )
    generation = models.CharField(max_length=32, default="")
    names = models.PositiveBigIntegerField(default=0)

    class Meta:
        verbose_name = _("club version")
        verbose_name_plural = _("club versions")

    def __str__(self) -> str:
        return f"{self.club_id}: {self.generation}.{self.names}"
