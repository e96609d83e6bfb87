"""The ``--club SLUG`` of the archive's commands: the club a file is imported into or
exported from (the home club without it)."""

from __future__ import annotations

import json

from django.core.management.base import CommandError
from django.utils.translation import gettext as _

from club.clubs import known
from club.clubs.models import Club
from club.games.models import Game
from club.tournaments.models import Tournament


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


def adopt_files_club(path: str) -> str | None:
    """A site that has played nothing yet (the venue's laptop before its first night) becomes
    the club a file names (its ``club``): the home club takes its name and short name, so
    the night it sends back is that club's. What it says, or None when nothing changed (a
    site that has played keeps its club, and the import refuses a file of another)."""
    try:
        with open(path, encoding="utf-8") as handle:
            named = json.load(handle).get("club")
    except (OSError, ValueError, AttributeError):
        return None  # the import says what is wrong with the file
    if not isinstance(named, dict) or not all(
        isinstance(named.get(key), str) and named[key].strip() for key in ("name", "slug")
    ):
        return None
    home = known.home()
    if home.slug == named["slug"] or Game.objects.exists() or Tournament.objects.exists():
        return None
    home.name, home.slug = named["name"].strip(), named["slug"].strip()
    home.full_clean()
    home.save(update_fields=["name", "slug"])
    return _("This site is now %(name)s's (/clubs/%(slug)s/), as the file says.") % {
        "name": home.name,
        "slug": home.slug,
    }
