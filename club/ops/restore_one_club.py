"""Restoring a backup of one club (``club.ops.backup_scope``) into a site, as that club.

The file is checked whole first, as a site's backup is (``club.ops.restore``: format,
version, signature, tables, counts, checksums, columns), and then as one club's: it
holds one club, the one its manifest names; every game, tournament, member and organiser
of it is that club's; no rating; and every reference of the club's rows is to a row the
file holds (``_check_one_club``), so nothing written can reach another club's rows.
Then, in one transaction:

- on a *new site* (no player, game or tournament yet: a club moving to a server of its
  own), the clubs that hold nothing give way, as to a site's backup, and the club comes
  back with its ids, so its addresses still lead to the same pages;
- on a site that has a club of its short name (the same club, on the site it was taken
  from), the club's games, tournaments, competitions, members and organisers are replaced
  by the file's, ids and all; its name, languages and time zone are the file's; the
  federation's circuits, which no club's backup holds, count again those of its
  tournaments the file brings back;
- on a site without it, it is added beside the site's clubs, when its rows' ids are
  free.

The rows the site's clubs share (logins, players, teams) are matched with the site's
(``club.ops.restore_matching``): a player known by another club keeps the site's details.
Anything that would touch another club's rows is refused, naming the club and what
clashes: an id of the club's rows held by another club's, a name of another club, a
player's name or member number that is another person's on this site, a user name that
is another account. The site's figures and ratings are computed again afterwards, over
every club's games: a rating counts them all, in the order they finished.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import DatabaseError, connection, transaction
from django.utils.translation import gettext as _

from club.clubs import known
from club.clubs.models import Club
from club.competitions.models import Competition
from club.games.models import Game, Player, Team
from club.games.services import recount_contracts
from club.games.versions import new_generation
from club.leaderboards import figures
from club.leaderboards.models import RatingChange
from club.leaderboards.services import rebuild_ratings
from club.ops import restore_checks
from club.ops.backup_format import TABLES, BackupError, fields_of, points_to_user
from club.ops.backup_scope import CLUB_PATHS, OWNED, SITE_ONLY, club_of_manifest
from club.ops.backup_versions import CLUBS_SINCE
from club.ops.restore import (
    RestoreSummary,
    accept_unproved,
    check_manifest,
    check_organisers,
    check_tables,
    does_not_fit,
    objects_of,
    read_backup,
    restore_document,
    why_unproved,
)
from club.ops.restore_matching import (
    Players,
    add,
    add_rows,
    advance_sequence,
    insert,
    logins_named,
    match_aliases,
    match_logins,
    match_players,
    match_teams,
    remap,
    taken_ids,
)
from club.tournaments.models import Tournament

USERS = get_user_model()._meta.label_lower
# Tables whose rows name their club, and the column that does.
CLUB_COLUMNS = {key: path for key, path in CLUB_PATHS.items() if path == "club"}
# The club's rows that may come back under new ids (no address names them): their ids
# are kept where free, and may be another club's row's.
NEW_IDS = ("clubs.club_organisers", "games.membership", "competitions.competition_events")
# Ids of a clash named in a refusal; the rest are counted.
SHOWN_IDS = 5


@dataclass(frozen=True)
class ClubRestoreSummary:
    """What a club's restore wrote: the club, how it came (``"new site"``, ``"over"`` the
    club of its short name, ``"added"`` beside the site's), each table's row count, the
    players matched with the site's and of those kept as the site has them, and when, and
    by what app, the file was written."""

    club: str
    slug: str
    how: str
    counts: dict[str, int]
    players_matched: int
    players_kept: int
    created_at: str
    app_version: str
    signed: bool = True


def restore_any(
    path: str | os.PathLike,
    *,
    accept_unsigned: bool = False,
    with_organisers: bool = False,
    warn: Callable[[str], None] | None = None,
) -> RestoreSummary | ClubRestoreSummary:
    """Restore the backup at ``path``: a site's into the empty site (``club.ops.restore``),
    a club's as that club (``restore_club_backup``)."""
    document = read_backup(path)
    options = {"accept_unsigned": accept_unsigned, "with_organisers": with_organisers}
    manifest = document["manifest"]
    if isinstance(manifest, dict) and "scope" in manifest:
        return restore_club_backup(document, **options, warn=warn)
    return restore_document(document, **options, warn=warn)


def _fail(message: str, **values) -> BackupError:
    return BackupError(message % values if values else message)


def restore_club_backup(
    document: dict,
    *,
    accept_unsigned: bool = False,
    with_organisers: bool = False,
    warn: Callable[[str], None] | None = None,
) -> ClubRestoreSummary:
    """Check a club's backup ``document`` whole, then write it as that club, in one
    transaction; ``BackupError``, nothing written, when it cannot be."""
    manifest = document["manifest"]
    check_manifest(manifest)
    slug = club_of_manifest(manifest)
    if slug is None or manifest["version"] < CLUBS_SINCE:
        raise _fail(_("This is not a backup of one club. Nothing was restored."))
    unproved = why_unproved(manifest)
    if unproved is not None:
        accept_unproved(document, unproved, accept_unsigned=accept_unsigned, warn=warn)
    tables = check_tables(document)
    club_row = _check_one_club(tables, slug)
    if unproved is not None:  # every login named before anything is written
        check_organisers(document, with_organisers=with_organisers, warn=warn)
    try:
        with transaction.atomic():
            site_club, how, players = _write(tables, club_row)
            _derive(site_club.pk, proved=unproved is None)
    except DatabaseError as error:
        raise does_not_fit(error) from None
    finally:
        known.forget()  # the clubs this process keeps are not the database's now
    return ClubRestoreSummary(
        club=club_row["name"],
        slug=slug,
        how=how,
        counts={key: len(rows) for key, rows in tables.items()},
        players_matched=players.matched,
        players_kept=players.kept,
        created_at=str(manifest.get("created_at")),
        app_version=str(manifest.get("app_version")),
        signed=unproved is None,
    )


# --- the file is one club's --------------------------------------------------------------


def _check_one_club(tables: dict[str, list[dict]], slug: str) -> dict:
    """The file's club; refused unless the file holds that club's rows only, and every
    reference of them is to a row it holds."""
    clubs = tables["clubs.club"]
    if [row.get("slug") for row in clubs] != [slug]:
        raise _fail(
            _(
                "The backup says it is of the club “%(slug)s”, but holds the clubs %(found)s. "
                "Nothing was restored."
            ),
            slug=slug,
            found=", ".join(str(row.get("slug")) for row in clubs) or _("none"),
        )
    club = clubs[0]
    for key, column in CLUB_COLUMNS.items():
        others = [_shown(row[column]) for row in tables[key] if row[column] != club["id"]]
        if others:
            raise _fail(
                _(
                    "The backup of the club %(club)s holds %(table)s of other clubs "
                    "(%(ids)s). Nothing was restored."
                ),
                club=club["name"],
                table=_table_name(key),
                ids=", ".join(dict.fromkeys(others)),
            )
    for key in SITE_ONLY:
        if tables[key]:
            raise _fail(
                _(
                    "The backup of the club %(club)s holds %(table)s, which are the site's and "
                    "no club's backup holds. Nothing was restored."
                ),
                club=club["name"],
                table=_table_name(key),
            )
    _check_references(tables, club["name"])
    return club


def _shown(value: object) -> str:
    """A value of the file as a refusal names it (a forged file's may be of any shape)."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)[:80]


def _table_name(key: str) -> str:
    return str(dict(TABLES)[key]._meta.verbose_name_plural)


def _table_of(field) -> str | None:
    """The table ``field`` refers to, or None for a column that refers to none."""
    related = field.related_model if field.is_relation else None
    return None if related is None or isinstance(related, str) else related._meta.label_lower


def _check_references(tables: dict[str, list[dict]], club: str) -> None:
    """Refuse a row that names a row of the club's or a shared table the file does not
    hold, and a login that is not one of the club's organisers."""
    held = {key: {row["id"] for row in rows} for key, rows in tables.items()}
    users = {_shown(row["username"]) for row in tables[USERS]}
    organisers = {_shown(row["user"]) for row in tables["clubs.club_organisers"]}
    if users - organisers:
        raise _fail(
            _(
                "The backup of the club %(club)s holds logins that are not its organisers "
                "(%(names)s). Nothing was restored."
            ),
            club=club,
            names=", ".join(sorted(users - organisers)),
        )
    for key, model in TABLES:
        for field in fields_of(model):
            target = _table_of(field)
            if target is None or target not in held or target == USERS:
                continue
            for row in tables[key]:
                value = row[field.name]
                if value is not None and not (type(value) is int and value in held[target]):
                    raise _fail(
                        _(
                            "The backup of the club %(club)s is not whole: %(table)s %(id)s "
                            "names %(target)s %(value)s, which it does not hold; restoring it "
                            "would reach rows that are not the club's. Nothing was restored."
                        ),
                        club=club,
                        table=_table_name(key),
                        id=row["id"],
                        target=_table_name(target),
                        value=_shown(value),
                    )
    if not organisers <= users:
        raise _fail(
            _(
                "The backup of the club %(club)s makes organisers of logins it does not hold "
                "(%(names)s). Nothing was restored."
            ),
            club=club,
            names=", ".join(sorted(organisers - users)),
        )


# --- writing -----------------------------------------------------------------------------


def _write(tables: dict[str, list[dict]], club_row: dict) -> tuple[Club, str, Players]:
    """Write the file's club into the site; the site's club, how it came, and its players
    matched."""
    name = club_row["name"]
    logins = match_logins(objects_of(get_user_model(), tables[USERS], {}, USERS), name)
    user_ids = _Logins(logins | logins_named(_names_referred(tables) - set(logins)))
    built = {key: objects_of(model, tables[key], user_ids, key) for key, model in TABLES}
    site_club, how = _place_club(built["clubs.club"][0])
    players = match_players(built["games.player"], site_club.pk, name)
    match_aliases(built["games.playeralias"], players, name)
    teams = match_teams(built["games.team"], players)
    counted = _counted_by_circuits(site_club)
    _empty(site_club)  # the club's rows the file brings back (none, for a club it adds)
    _refuse_taken_ids(built, name)
    maps = {Club: {club_row["id"]: site_club.pk}, Player: players.ids, Team: teams}
    for key, model in TABLES:
        if key in OWNED:
            remap(model, built[key], maps)
            if key in NEW_IDS:
                add_rows(model, built[key])
            else:
                insert(model, built[key])
    connection.check_constraints(table_names=[model._meta.db_table for _key, model in TABLES])
    _advance_sequences()
    _count_again(counted, site_club)  # new rows: after the ids written under their own
    return site_club, how, players


class _Logins(dict):
    """{user name: the site's login}; a login neither the file nor the site has is none
    (the history's "by" of a deal recorded by a site administrator on another site)."""

    def __missing__(self, name):
        return None


def _names_referred(tables: dict[str, list[dict]]) -> set[str]:
    """The user names the file's rows refer to (who recorded, who started ...)."""
    names: set[str] = set()
    for key, model in TABLES:
        columns = [f.name for f in fields_of(model) if points_to_user(f)]
        for row in tables[key]:
            names.update(row[name] for name in columns if isinstance(row[name], str))
    return names


def _new_site() -> bool:
    """Whether the site has played nothing and knows no player: a new site (its
    administrator's login perhaps already made)."""
    return not (
        Player._base_manager.exists()
        or Game._base_manager.exists()
        or Tournament._base_manager.exists()
    )


def _place_club(club: Club) -> tuple[Club, str]:
    """The site's club the file's becomes, and how: ``"new site"``, ``"over"``, ``"added"``."""
    site_club = Club._base_manager.select_for_update().filter(slug=club.slug).first()
    how = "over" if site_club is not None else "added"
    if _new_site():
        # The clubs that hold nothing give way, as to a site's backup (migrate's home club).
        bare = Club._base_manager.filter(
            organisers__isnull=True, competitions__isnull=True
        ).exclude(slug=club.slug)
        bare.delete()
        how = "new site"
    named = Club._base_manager.filter(name=club.name).exclude(slug=club.slug).first()
    if named is not None:
        raise _fail(
            _(
                "The backup is of the club %(club)s (/clubs/%(slug)s/), but this site's club "
                "at /clubs/%(other)s/ has that name. Nothing was restored."
            ),
            club=club.name,
            slug=club.slug,
            other=named.slug,
        )
    if site_club is None:
        pk = add(Club, [club])[club.pk]
        return Club._base_manager.get(pk=pk), how
    for name in ("name", "languages", "time_zone", "created_at"):
        setattr(site_club, name, getattr(club, name))
    site_club.save(update_fields=["name", "languages", "time_zone", "created_at"])
    return site_club, how


def _counted_by_circuits(club: Club) -> list[tuple[int, int]]:
    """Which of the club's tournaments the federation's circuits count, (circuit,
    tournament): the site's rows, which a club's backup does not hold."""
    return list(
        Competition.events.through._base_manager.filter(
            competition__club__isnull=True, tournament__club=club
        ).values_list("competition_id", "tournament_id")
    )


def _count_again(counted: list[tuple[int, int]], club: Club) -> None:
    """The circuits count again those of the club's tournaments the file brought back
    (under their ids); one the file does not hold is no longer there to count."""
    back = set(
        Tournament._base_manager.filter(
            club=club, pk__in={tournament for _circuit, tournament in counted}
        ).values_list("pk", flat=True)
    )
    through = Competition.events.through
    through._base_manager.bulk_create(
        [
            through(competition_id=circuit, tournament_id=tournament)
            for circuit, tournament in counted
            if tournament in back
        ]
    )


def _empty(club: Club) -> None:
    """Take out the club's games, tournaments, competitions, members and organisers (what
    the file brings back); the site's players, teams, logins and circuits stay. The club's
    rating changes go first, all at once: each game deleted with its changes would re-rate
    every game of the site after it, and the restore rates the site again once at its end."""
    RatingChange.objects.filter(game__club=club).delete()
    Competition._base_manager.filter(club=club).delete()
    Tournament._base_manager.filter(club=club).delete()
    Game._base_manager.filter(club=club).delete()
    for key in ("games.membership", "clubs.club_organisers"):
        dict(TABLES)[key]._base_manager.filter(club=club).delete()


def _refuse_taken_ids(built: dict[str, list], club: str) -> None:
    """Refuse ids of the club's rows that the site's rows hold: they are another club's."""
    clashes = []
    for key, model in TABLES:
        if key not in OWNED or key in NEW_IDS:
            continue
        taken = sorted(taken_ids(model, [row.pk for row in built[key]]))
        if not taken:
            continue
        owners = model._base_manager.filter(pk__in=taken[:SHOWN_IDS])
        names = set(owners.values_list(f"{CLUB_PATHS[key]}__name", flat=True))
        clubs = sorted(name for name in names if name is not None)
        shown = ", ".join(map(str, taken[:SHOWN_IDS])) + ("…" if len(taken) > SHOWN_IDS else "")
        if None in names:  # a circuit of the federation, which is no club's
            clashes.append(
                _("%(table)s %(ids)s (of %(owners)s)")
                % {
                    "table": _table_name(key),
                    "ids": shown,
                    "owners": ", ".join([*clubs, _("the federation's circuits")]),
                }
            )
            continue
        clashes.append(
            _("%(table)s %(ids)s (%(clubs)s's)")
            % {"table": _table_name(key), "ids": shown, "clubs": ", ".join(clubs)}
        )
    if clashes:
        raise _fail(
            _(
                "The backup of the club %(club)s cannot be restored here: other clubs' rows "
                "on this site have the ids of its rows: %(clashes)s. Restore it into a new "
                "database, or over the same club on the site it was taken from. Nothing was "
                "restored."
            ),
            club=club,
            clashes="; ".join(clashes),
        )


def _advance_sequences() -> None:
    """Move PostgreSQL's id sequences past the rows written under their ids, never back
    (SQLite's counters only go up by themselves)."""
    for _key, model in TABLES:
        advance_sequence(model)


def _derive(club_id: int, *, proved: bool) -> None:
    """Derive what the file leaves out; check a file nothing proves as it goes."""
    new_generation()  # no page cached before may be served after
    recount_contracts(Game._base_manager.filter(club_id=club_id))
    if not proved:  # before anything is derived from the results
        _refuse(restore_checks.game_problems(club_id))
    figures.rebuild_all()
    rebuild_ratings()  # a rating counts every club's games, in the order they finished
    if not proved:
        _refuse(restore_checks.standing_problems(club_id))
        _refuse(restore_checks.competition_problems(club_id))


def _refuse(problems) -> None:
    refusal = restore_checks.refusal(list(problems))
    if refusal is not None:
        raise BackupError(refusal)
