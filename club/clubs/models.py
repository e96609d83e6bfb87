"""A club: its name, the short name of its address (``/clubs/<slug>/``), the languages
its pages offer, its time zone and its organisers.

A site holds any number of clubs. The first one made is the site's *home club*: the
club a one-club site (the venue's laptop, an install from before there were clubs)
serves at its short addresses, and the club that code and commands mean when they do
not name one. Players belong to the site, not to a club: a club knows the players
registered there or seated at its games (``club.games.people.Membership``).
"""

from __future__ import annotations

import zoneinfo

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

# An address the site keeps for itself may not be a club's short name.
SLUG_PATTERN = r"^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$"
slug_validator = RegexValidator(
    SLUG_PATTERN,
    _(
        "A club's short name is 1 to 40 small letters, digits and hyphens, "
        "starting and ending with a letter or a digit."
    ),
)


# Short names the site's own addresses use under /clubs/.
RESERVED_SLUGS = frozenset({"new"})


def validate_not_reserved(value: str) -> None:
    if value in RESERVED_SLUGS:
        raise ValidationError(
            _("“%(slug)s” is kept for the site's own pages: choose another short name."),
            params={"slug": value},
        )


def language_codes() -> list[str]:
    return [code for code, _name in settings.LANGUAGES]


def validate_languages(value) -> None:
    if not isinstance(value, list) or not value:
        raise ValidationError(_("Choose at least one language for the club's pages."))
    unknown = [code for code in value if code not in language_codes()]
    if unknown:
        raise ValidationError(
            _("The site has no language %(codes)s."), params={"codes": ", ".join(map(str, unknown))}
        )


def validate_time_zone(value: str) -> None:
    if value not in zoneinfo.available_timezones():
        raise ValidationError(
            _("%(zone)s is not a time zone; give one such as Asia/Kolkata or Europe/London."),
            params={"zone": value},
        )


def default_languages() -> list[str]:
    return language_codes()


def default_time_zone() -> str:
    return settings.TIME_ZONE


class Club(models.Model):
    name = models.CharField(_("name"), max_length=80, unique=True)
    slug = models.CharField(
        _("short name"),
        max_length=40,
        unique=True,
        validators=[slug_validator, validate_not_reserved],
        help_text=_("The club's address on the site: /clubs/<short name>/."),
    )
    languages = models.JSONField(
        _("languages"), default=default_languages, validators=[validate_languages]
    )
    time_zone = models.CharField(
        _("time zone"), max_length=64, default=default_time_zone, validators=[validate_time_zone]
    )
    organisers = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="clubs_organised",
        verbose_name=_("organisers"),
    )
    created_at = models.DateTimeField(_("added"), auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("club")
        verbose_name_plural = _("clubs")

    def __str__(self) -> str:
        return self.name

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        """The club's time zone: a game's day is the day it started there, whichever zone
        is active where the day is worked out (a request, a command, work after an answer)."""
        return zoneinfo.ZoneInfo(self.time_zone)

    def is_organised_by(self, user) -> bool:
        """Whether ``user`` is one of this club's organisers (who may write in it, with the
        site's administrators: club.web.auth.is_organiser)."""
        return self.organisers.filter(pk=user.pk).exists()
