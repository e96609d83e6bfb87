"""What a backup of one club holds, table by table, and how its manifest says so.

A *club backup* is a backup (``club.ops.backup_format``, the same format and version)
of one club only, which its organisers take from its pages: its manifest carries
``"scope": {"club": "<slug>"}``, and its tables hold

- the club's own rows (``CLUB_PATHS``): the club, its organisers (who they are), its
  members, its games with everything under them (teams at the table, deals, piles,
  ledger, history, scorer links, waiting and rejected deals, calls for the director), its
  tournaments with everything under them, and its competitions with the tournaments each
  counts (its own: a circuit of the federation counts several clubs' tournaments, and is
  the site's);
- of the rows the site's clubs share (``SHARED``), those the club's rows name: its
  organisers' logins, its members and any other player its games name, their earlier
  identifiers, and the teams its games and tournaments seat;
- none of the site's ratings (``SITE_ONLY``): a rating counts every club's games, in
  the order they finished, so no club holds its part of it; a restore computes them
  again from the games the site then holds.

A login's rights on the site (staff, superuser) are the site's, not the club's: a club
backup writes every login without them, and the password of a login that has them is
not written at all (``login_row``), so that no organiser downloads an administrator's
password hash; nor is the password of an organiser who organises another club too. A
reference to a login not in the file (a site administrator who recorded a deal) is kept
by its user name, as every reference to a login is.
"""

from __future__ import annotations

import json

from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX
from django.db import models
from django.utils.translation import gettext as _

from club.clubs.models import Club
from club.games.models import Membership, Player, Team
from club.ops.backup_format import TABLES, BackupError

# The key of the manifest that marks a club backup, and its one field.
SCOPE = "scope"
SCOPE_CLUB = "club"

# The club's own rows: each table's path from a row to its club.
CLUB_PATHS = {
    "clubs.club": "pk",
    "clubs.club_organisers": "club",
    "games.membership": "club",
    "games.game": "club",
    "games.gameteam": "game__club",
    "games.round": "game__club",
    "games.pile": "round__game__club",
    "games.ledgerentry": "round__game__club",
    "games.scorerlink": "game__club",
    "games.change": "game__club",
    "games.pendingdeal": "game__club",
    "games.rejecteddeal": "game__club",
    "games.directorcall": "game__club",
    "tournaments.tournament": "club",
    "tournaments.tournamentteam": "tournament__club",
    "tournaments.checkin": "entry__tournament__club",
    "tournaments.substitution": "entry__tournament__club",
    "tournaments.stage": "tournament__club",
    "tournaments.sitting": "tournament__club",
    "tournaments.sittinggame": "sitting__tournament__club",
    "tournaments.bye": "sitting__tournament__club",
    "tournaments.standing": "tournament__club",
    "tournaments.tournamentevent": "tournament__club",
    # A circuit has no club: only the site's backup holds it.
    "competitions.competition": "club",
    "competitions.competition_events": "competition__club",
}
# Rows the site's clubs share: a club backup holds those its own rows name.
SHARED = ("auth.user", "games.player", "games.playeralias", "games.team")
# The site's rows, which no club backup holds, and why.
SITE_ONLY = {
    "leaderboards.playerrating": "a rating counts every club's games",
    "leaderboards.ratingchange": "a rating counts every club's games",
    "leaderboards.ratingsstate": "a rating counts every club's games",
}
# The tables whose rows are the club's, and are replaced whole by a restore over it.
OWNED = tuple(key for key in CLUB_PATHS if key not in ("clubs.club",))

_MODELS = dict(TABLES)


def club_of_manifest(manifest: dict) -> str | None:
    """The short name of the club a backup is of, or None for a backup of the whole site.

    Raises ``BackupError`` for a scope that names no club as a backup writes it.
    """
    if SCOPE not in manifest:
        return None
    scope = manifest[SCOPE]
    slug = scope.get(SCOPE_CLUB) if isinstance(scope, dict) else None
    if not isinstance(slug, str) or not slug or list(scope) != [SCOPE_CLUB]:
        raise BackupError(
            _(
                "The backup's manifest says it is of part of a site, but names no club "
                "(%(scope)s). Nothing was restored."
            )
            % {"scope": json.dumps(scope, ensure_ascii=False)[:80]}
        )
    return slug


def club_rows(key: str, club: Club) -> models.QuerySet:
    """The rows of the table ``key`` a backup of ``club`` holds, by id."""
    model = _MODELS[key]
    rows = model._base_manager.order_by("pk")
    if key in CLUB_PATHS:
        return rows.filter(**{CLUB_PATHS[key]: club.pk})
    if key in SITE_ONLY:
        return rows.none()
    if key == "auth.user":
        return rows.filter(pk__in=_organisers(club))
    if key == "games.team":
        return rows.filter(teams_named(club))
    if key == "games.player":
        return rows.filter(players_named(club))
    if key == "games.playeralias":
        return rows.filter(player__in=Player._base_manager.filter(players_named(club)))
    raise AssertionError(f"no club's rows of {key}")  # tests/ops: every table is placed


def _organisers(club: Club) -> models.QuerySet:
    return Club.organisers.through._base_manager.filter(club_id=club.pk).values("user")


def teams_named(club: Club) -> models.Q:
    """The teams the club's games and tournaments seat (one query's condition)."""
    at_games = club_rows("games.gameteam", club).order_by().values("team")
    registered = club_rows("tournaments.tournamentteam", club).order_by().values("team")
    return models.Q(pk__in=at_games) | models.Q(pk__in=registered)


def _player_columns(key: str) -> list[str]:
    model = _MODELS[key]
    return [
        field.attname
        for field in model._meta.concrete_fields
        if field.is_relation and field.related_model is Player
    ]


def players_named(club: Club) -> models.Q:
    """Who the club's rows name: its members, the players of the teams it seats, and any
    player a deal, a registration or a substitution of it names (one query's condition)."""
    named = models.Q(pk__in=Membership._base_manager.filter(club_id=club.pk).values("player"))
    teams = Team._base_manager.filter(teams_named(club))
    sources: list[tuple[models.QuerySet, list[str]]] = [(teams, _player_columns("games.team"))]
    for key in CLUB_PATHS:
        if key != "games.membership":
            sources.append((club_rows(key, club), _player_columns(key)))
    for rows, names in sources:
        for name in names:
            seated = rows.order_by().filter(**{f"{name}__isnull": False}).values(name)
            named |= models.Q(pk__in=seated)
    return named


def organising_elsewhere(club: Club) -> frozenset[int]:
    """The logins that organise another club than ``club`` too."""
    through = Club.organisers.through._base_manager
    return frozenset(through.exclude(club_id=club.pk).values_list("user_id", flat=True))


def login_row(row: dict, elsewhere: frozenset[int] = frozenset()) -> dict:
    """A login as a club backup writes it: without the site's rights, and without the
    password of one who holds them or who organises another club too (``elsewhere``):
    a hash cracked from the file would open what is not this club's. Django's mark of a
    login with no usable password stands in: a site administrator sets a new one,
    ``manage.py changepassword``."""
    had_rights = row["is_staff"] or row["is_superuser"] or row["id"] in elsewhere
    row = dict(row, is_staff=False, is_superuser=False)
    if had_rights:
        row["password"] = UNUSABLE_PASSWORD_PREFIX
    return row


def tables_of_a_club() -> frozenset[str]:
    """Every table a backup holds, each placed: the club's, shared, or the site's."""
    return frozenset(CLUB_PATHS) | frozenset(SHARED) | frozenset(SITE_ONLY)
