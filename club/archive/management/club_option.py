"""The ``--club SLUG`` of the archive's commands: the club a file is imported into or
exported from (the home club without it)."""

from __future__ import annotations

from django.core.management.base import CommandError
from django.utils.translation import gettext as _

from club.clubs import known
from club.clubs.models import Club


def add_club_option(parser, what: str) -> None:
    parser.add_argument(
        "--club",
        metavar="SLUG",
        help=f"the club {what}, by its short name (without it, the site's home club)",
    )


def club_named(slug: str | None) -> Club | None:
    """The club of short name ``slug``, or None (the home club) when none is given; an
    unknown name is refused, naming it and the site's clubs."""
    if slug is None:
        return None  # found when needed: a file refused for its shape asks nothing
    club = known.by_slug(slug.strip())
    if club is None:
        slugs = ", ".join(Club.objects.order_by("slug").values_list("slug", flat=True))
        raise CommandError(
            _("There is no club with the short name “%(slug)s” (the clubs are: %(slugs)s).")
            % {"slug": slug, "slugs": slugs}
        )
    return club
