"""Restoring a backup (``club.ops.backup_format``) into an empty club, after checking it whole.

``restore`` only writes into an empty club, in one transaction, after the
whole file has been checked: its format and version, its signature, every
table present and no other, every table's row count and SHA-256 checksum,
every row's columns. A signed file's derived rows (ledger, standings, ratings)
are restored as they were stored, not recomputed, so the pages read exactly
as before. A file whose signature does not verify, or an older unsigned one
(versions 1 and 2), is restored only when the caller accepts that
(``accept_unsigned``, ``restore_club --accept-unsigned``), after a warning;
and since nothing proves who wrote it, it is checked as the results import
checks a file (``club.ops.restore_checks``): its results against a replay of
its deals, its standings against standings derived again, its ratings
computed again, and its organisers' and admins' rights restored only when
the caller says they are the club's (``with_organisers``).

A backup holds the site's clubs (version 10 on), which come back as they were, under
their ids and short names, in place of the bare home club a new database has. An older
backup is of a site of one club: its games and tournaments go into the home club and its
players become its members, as upgrading the database did for the clubs it held.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.color import no_style
from django.db import DatabaseError, connection, models, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from club.clubs import known
from club.clubs.models import Club
from club.games.models import Game, Player, ScorerLink, Scoring
from club.games.people import join
from club.games.services import recount_contracts
from club.games.versions import new_generation
from club.leaderboards import figures
from club.leaderboards.services import rebuild_ratings
from club.leaderboards.services.ratings import keep_form_ratings
from club.ops import restore_checks
from club.ops.backup_format import (
    FIRST_SIGNED_VERSION,
    FORMAT,
    READABLE_VERSIONS,
    TABLES,
    BackupError,
    app_version,
    canonical_json,
    columns,
    fields_of,
    points_to_user,
    signature_verifies,
    table_checksum,
    tables_of,
)
from club.ops.backup_scope import club_of_manifest
from club.ops.backup_versions import CLUBS_SINCE, MISSING_IN
from club.scoring.standings import StandingsError
from club.tournaments.captains import first_player_captains
from club.tournaments.models import Tournament
from club.tournaments.services import rebuild_standings


@dataclass(frozen=True)
class RestoreSummary:
    """What a restore wrote: each table's row count; when, and by what app, the file was written."""

    counts: dict[str, int]
    created_at: str
    app_version: str
    # False when the file's signature did not verify (or it had none) and the
    # caller accepted it all the same.
    signed: bool = True


def _fail(message: str, **values) -> BackupError:
    """The refusal ``message``, its ``values`` filled in."""
    return BackupError(message % values if values else message)


def read_backup(path: str | os.PathLike) -> dict:
    """The JSON document at ``path``, refused unless it is UTF-8 JSON with a manifest."""
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise _fail(
            _("Cannot read %(file)s: %(reason)s."), file=path, reason=error.strerror or error
        ) from None
    try:
        document = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise _fail(_("%(file)s is not a club backup: it is not UTF-8 text."), file=path) from None
    except json.JSONDecodeError as error:
        raise _fail(
            _(
                "%(file)s is not a club backup: it is not valid JSON "
                "(line %(line)d, column %(col)d)."
            ),
            file=path,
            line=error.lineno,
            col=error.colno,
        ) from None
    except RecursionError:
        raise _fail(
            _("%(file)s is not a club backup: it is nested too deeply."), file=path
        ) from None
    if not isinstance(document, dict) or not isinstance(document.get("manifest"), dict):
        raise _fail(_("%(file)s is not a club backup: it has no manifest."), file=path)
    return document


def check_manifest(manifest: dict) -> None:
    """Refuse a manifest not of this format, of a version this app cannot read, or incomplete."""
    if manifest.get("format") != FORMAT:
        raise _fail(
            _("This is not a club backup: its format is %(found)s, not “%(format)s”."),
            found=json.dumps(manifest.get("format")),
            format=FORMAT,
        )
    version = manifest.get("version")
    if type(version) is not int or version not in READABLE_VERSIONS:
        raise _fail(
            _(
                "The backup is of version %(found)s of the backup format (written by the app "
                "version %(app)s); this app (version %(ours)s) reads version %(versions)s only. "
                "Restore it with the app version that wrote it."
            ),
            found=json.dumps(version),
            app=json.dumps(manifest.get("app_version")),
            ours=app_version(),
            versions=", ".join(str(v) for v in sorted(READABLE_VERSIONS)),
        )
    for part in ("counts", "sha256"):
        if not isinstance(manifest.get(part), dict):
            raise _fail(_("The backup's manifest has no “%(part)s”."), part=part)


def why_unproved(manifest: dict) -> tuple[str, str] | None:
    """Why nothing proves the file is as the server wrote it, or None when its signature verifies.

    The reason twice: as a refusal, and as the clause of the warning printed
    when the caller restores it all the same.
    """
    version = manifest["version"]
    if version < FIRST_SIGNED_VERSION:
        return (
            _(
                "The backup is of version %(version)d of the backup format, written before "
                "backups were signed: nothing proves that it was not changed after it was "
                "written. Nothing was restored. If you trust this file, restore it with "
                "--accept-unsigned."
            )
            % {"version": version},
            _("it is of version %(version)d, written before backups were signed")
            % {"version": version},
        )
    if "signature" not in manifest:
        return (
            _(
                "The backup has no signature, though every backup of version %(version)d "
                "carries one: it was changed after it was written. Nothing was restored. If "
                "you trust this file all the same, restore it with --accept-unsigned."
            )
            % {"version": version},
            _("it has no signature"),
        )
    if not signature_verifies(manifest):
        return (
            _(
                "The backup's signature does not match: the file was changed after it was "
                "written, or it was written by a server with a different secret key "
                "(DJANGO_SECRET_KEY). Nothing was restored. If the club is moving from a "
                "server with another secret key and you trust this file, restore it with "
                "--accept-unsigned."
            ),
            _("its signature does not match this server's secret key"),
        )
    return None


def check_tables(document: dict) -> dict[str, list[dict]]:
    """The tables of the backup, each row checked against its version's columns."""
    manifest = document["manifest"]
    tables = document.get("tables")
    if not isinstance(tables, dict):
        raise _fail(_("The backup has no tables."))
    expected = [key for key, _model in tables_of(manifest["version"])]
    _check_table_names(manifest, tables, expected)
    all_columns = columns(manifest["version"])
    for key in expected:
        _check_table(manifest, key, tables[key])
        _check_rows(key, tables[key], all_columns[key])
    # The tables of a later version than the backup's: none of their rows existed then.
    return {key: tables[key] if key in expected else [] for key, _model in TABLES}


def _check_table_names(manifest: dict, tables: dict, expected: list[str]) -> None:
    """Refuse a file whose tables, counts or checksums miss a table of its version or add one."""
    for where, keys in (
        (_("its tables"), tables),
        (_("its manifest's counts"), manifest["counts"]),
        (_("its manifest's checksums"), manifest["sha256"]),
    ):
        missing = [key for key in expected if key not in keys]
        unknown = sorted(key for key in keys if key not in expected)
        if missing or unknown:
            raise _fail(
                _("The backup does not hold the tables of this version in %(where)s: %(what)s."),
                where=where,
                what="; ".join(
                    part
                    for part in (
                        _("missing %(names)s") % {"names": ", ".join(missing)} if missing else "",
                        _("unknown %(names)s") % {"names": ", ".join(unknown)} if unknown else "",
                    )
                    if part
                ),
            )


def _check_table(manifest: dict, key: str, rows: object) -> None:
    """Refuse a table that is not a list of rows, or whose count or checksum fails."""
    if not isinstance(rows, list):
        raise _fail(_("The backup's table %(table)s is not a list of rows."), table=key)
    count = manifest["counts"][key]
    if count != len(rows) or type(count) is not int:
        raise _fail(
            _("The backup's table %(table)s holds %(rows)d rows, but its manifest says %(count)s."),
            table=key,
            rows=len(rows),
            count=json.dumps(count),
        )
    try:
        checksum = table_checksum([canonical_json(row) for row in rows])
    except ValueError:
        raise _fail(
            _("The backup's table %(table)s holds a number that is not finite."), table=key
        ) from None
    if checksum != manifest["sha256"][key]:
        raise _fail(
            _(
                "The backup's table %(table)s fails its checksum: the rows were changed or "
                "damaged after the backup was written. Nothing was restored."
            ),
            table=key,
        )


def _check_rows(key: str, rows: list, wanted: list[str]) -> None:
    """Refuse a row without the version's columns in their order, or without an id of its own."""
    ids = set()
    for index, row in enumerate(rows):
        if not isinstance(row, dict) or list(row) != wanted:
            raise _fail(
                _(
                    "The backup's table %(table)s, row %(row)d, does not have the columns "
                    "of this version (%(columns)s)."
                ),
                table=key,
                row=index + 1,
                columns=", ".join(wanted),
            )
        if type(row["id"]) is not int or row["id"] < 1 or row["id"] in ids:
            raise _fail(
                _("The backup's table %(table)s, row %(row)d, has a missing or repeated id."),
                table=key,
                row=index + 1,
            )
        ids.add(row["id"])


def objects_of(model, rows: list[dict], user_ids: dict[str, int], key: str) -> list:
    """The unsaved rows of ``model`` the file's ``rows`` make, each value read as stored."""
    fields = fields_of(model)
    objects = []
    for index, row in enumerate(rows):
        instance = model()
        for field in fields:
            if field.name not in row:  # a column the backup's version lacks
                setattr(instance, field.attname, _default(field))
                continue
            value = row[field.name]
            try:
                if value is None or isinstance(field, models.JSONField):
                    pass
                elif points_to_user(field):
                    value = user_ids[value]
                else:
                    value = field.to_python(value)
            except (ValidationError, KeyError, TypeError, ValueError):
                raise _fail(
                    _(
                        "The backup's table %(table)s, row %(row)d, column %(column)s: %(value)s "
                        "cannot be stored."
                    ),
                    table=key,
                    row=index + 1,
                    column=field.name,
                    value=json.dumps(value, ensure_ascii=False)[:80],
                ) from None
            setattr(instance, field.attname, value)
        objects.append(instance)
    return objects


def _default(field: models.Field):
    """A column an older backup lacks, as its migration left it. The club of a game or a
    tournament is the home club, read only once the restore writes (``_into_clubs``)."""
    if field.is_relation and field.related_model is Club:
        return None
    return field.get_default()


def _refuse(problems) -> None:
    """Refuse the file, naming ``problems``, when its results disagree with the rules."""
    refusal = restore_checks.refusal(list(problems))
    if refusal is not None:
        raise BackupError(refusal)


# The clubs of an empty database: ``migrate`` makes the home club, and a page makes it on
# need (club.clubs.known); they hold nothing while every other table is empty.
BARE_CLUBS = Club._meta.label_lower


def club_is_empty() -> bool:
    """Whether no backed-up table holds a row but bare clubs: the only database a backup is
    restored into (the clubs made before any login, player or game hold nothing)."""
    return not any(model._base_manager.exists() for key, model in TABLES if key != BARE_CLUBS)


def restore(
    path: str | os.PathLike,
    *,
    accept_unsigned: bool = False,
    with_organisers: bool = False,
    warn: Callable[[str], None] | None = None,
) -> RestoreSummary:
    """Check the backup at ``path`` whole, then write it into the empty club in one transaction.

    Raises ``BackupError`` and writes nothing when the file is not a backup of
    a version this app reads, its signature is missing or does not verify
    with this server's secret key (or it is of an unsigned version, 1 or 2),
    a count or checksum fails, or the database already holds any login, player,
    game, tournament or other row of a backed-up table (but clubs that hold nothing,
    such as the home club ``migrate`` makes).

    With ``accept_unsigned`` a file whose signature does not verify, or that
    has none, is restored all the same (every other check still holds), and
    ``warn`` is first given a warning saying that its integrity cannot be
    proved: for a club moving to a server with another secret key. Such a file
    is refused, naming them, when it gives any login organiser or admin rights,
    unless ``with_organisers``; and when its results disagree with a replay of
    its deals (``club.ops.restore_checks``). Its ratings are computed again.

    A backup of one club is refused: ``club.ops.restore_one_club`` restores it.
    """
    return restore_document(
        read_backup(path),
        accept_unsigned=accept_unsigned,
        with_organisers=with_organisers,
        warn=warn,
    )


def restore_document(
    document: dict,
    *,
    accept_unsigned: bool = False,
    with_organisers: bool = False,
    warn: Callable[[str], None] | None = None,
) -> RestoreSummary:
    """``restore`` of the backup ``document`` (as ``read_backup`` reads it)."""
    manifest = document["manifest"]
    check_manifest(manifest)
    club = club_of_manifest(manifest)
    if club is not None:
        raise _fail(
            _(
                "This is a backup of the club “%(club)s” only, not of a whole site: restore "
                "it as that club (manage.py restore_club restores either). Nothing was "
                "restored."
            ),
            club=club,
        )
    unproved = why_unproved(manifest)
    if unproved is not None:
        accept_unproved(document, unproved, accept_unsigned=accept_unsigned, warn=warn)
    tables = check_tables(document)
    if unproved is not None:  # every login named before anything is written
        check_organisers(document, with_organisers=with_organisers, warn=warn)
    user_ids = {row["username"]: row["id"] for row in tables[get_user_model()._meta.label_lower]}
    prepared = [(model, objects_of(model, tables[key], user_ids, key)) for key, model in TABLES]
    try:
        with transaction.atomic():
            _insert(prepared, manifest["version"])
            _derive(manifest["version"], proved=unproved is None)
    except DatabaseError as error:
        raise does_not_fit(error) from None
    finally:
        # This process keeps the clubs (club.clubs.known): those read before the restore,
        # or inside it if it was undone, are not the database's now.
        known.forget()
    return RestoreSummary(
        counts={key: len(tables[key]) for key, _model in TABLES},
        created_at=str(manifest.get("created_at")),
        app_version=str(manifest.get("app_version")),
        signed=unproved is None,
    )


def does_not_fit(error: DatabaseError) -> BackupError:
    """The refusal of a file the database would not take, naming the database's reason."""
    return _fail(
        _("The backup does not fit the database (%(reason)s). Nothing was restored."),
        reason=str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__,
    )


def accept_unproved(
    document: dict,
    unproved: tuple[str, str],
    *,
    accept_unsigned: bool,
    warn: Callable[[str], None] | None,
) -> None:
    """Refuse a file nothing proves unless the caller accepts it; warn that nothing does."""
    refusal, reason = unproved
    if not accept_unsigned:
        raise BackupError(refusal)
    if warn is not None:
        warn(
            _(
                "WARNING: the integrity of this backup cannot be proved: %(reason)s. Its "
                "results are checked against their deals and its ratings computed again, "
                "but its logins and password hashes are restored as the file holds them."
            )
            % {"reason": reason}
        )
    if (foreign := restore_checks.foreign_rights(document)) is not None:
        raise BackupError(foreign)


def check_organisers(
    document: dict, *, with_organisers: bool, warn: Callable[[str], None] | None
) -> None:
    """Name the organisers and admins of a file nothing proves; refuse them unless accepted."""
    warning, refused = restore_checks.check_organisers(document, with_organisers=with_organisers)
    if warning is not None and warn is not None:
        warn(warning)
    if refused is not None:
        raise BackupError(refused)


def _insert(prepared: list[tuple[type[models.Model], list]], version: int) -> None:
    """Write every table's rows, ids and all, into the empty club; then check their references."""
    if not club_is_empty():
        raise _fail(
            _(
                "The database already holds club data (logins, players, games or "
                "tournaments). A backup is restored into an empty database only: "
                "create a new database, run “manage.py migrate”, and restore into it "
                "before making any login. Nothing was restored."
            )
        )
    _into_clubs(prepared, version)
    for model, objects in prepared:
        fields = fields_of(model)
        for start in range(0, len(objects), 500):
            # raw=True keeps the stored values of auto_now and
            # auto_now_add columns (bulk_create would stamp them now).
            # QuerySet._insert, what Model.save() writes through, is private: no stub has it.
            model._base_manager._insert(  # type: ignore[attr-defined]  # private, no stub
                objects[start : start + 500],
                fields=fields,
                raw=True,
                using=connection.alias,
            )
    connection.check_constraints(table_names=[model._meta.db_table for _key, model in TABLES])
    _reset_sequences()


def _into_clubs(prepared: list[tuple[type[models.Model], list]], version: int) -> None:
    """Make room for the file's clubs, or put an older file's games and tournaments into the
    home club.

    A file of version 10 on holds its clubs, ids and short names and all: the bare clubs of
    the empty database (the home club ``migrate`` made) give way to them. An older file is
    of a site of one club: its games and tournaments go into the home club, as the migration
    that added clubs put them (the first club, or one made as club.clubs.known makes it),
    and its players become the club's in ``_derive``.
    """
    known.forget()  # the clubs kept before the restore may be gone (a flush) or stale
    if version >= CLUBS_SINCE:
        Club._base_manager.all().delete()
        return
    home = known.home_id()
    for model, objects in prepared:
        if model in (Game, Tournament):
            for instance in objects:
                instance.club_id = home


def _reset_sequences() -> None:
    """Move each id sequence past the restored rows, so the next game or player gets a new id.

    Rows came in with their ids; PostgreSQL needs its sequences moved, SQLite does it itself.
    """
    with connection.cursor() as cursor:
        for statement in connection.ops.sequence_reset_sql(
            no_style(), [model for _key, model in TABLES]
        ):
            cursor.execute(statement)


def _derive(version: int, *, proved: bool) -> None:
    """Derive what a backup of ``version`` leaves out; check a file nothing proves as it goes."""
    # What the backup leaves out is derived from what it holds; and the club is a
    # new one under the same ids: no page cached before may be served after.
    new_generation()
    if version < CLUBS_SINCE:  # a site of one club: everyone it knows is the home club's
        join(known.home_id(), Player.objects.values_list("pk", flat=True))
    recount_contracts()
    if not proved:  # before anything is derived from the results
        _refuse(restore_checks.game_problems())
    figures.rebuild_all()
    missing = MISSING_IN.get(version, {})
    if not proved or missing.get("leaderboards.ratingchange"):
        rebuild_ratings()
    keep_form_ratings()  # each form's list, from the ratings' order (files leave it out)
    if "captain" in missing.get("tournaments.tournamentteam", ()):
        first_player_captains()
    if missing.get("tournaments.standing"):
        _rebuild_points_standings()
    if not proved:
        _refuse(restore_checks.standing_problems())
        _refuse(restore_checks.competition_problems())
    if missing.get("games.scorerlink"):
        _expire_finished_links()


def _rebuild_points_standings() -> None:
    """Derive again the standings of every points tournament of a file without score difference.

    A points tournament's standings rank by the score difference, which the
    older file does not hold: derived again from its games.
    """
    for tournament in Tournament.objects.filter(scoring=Scoring.POINTS):
        try:
            rebuild_standings(tournament)
        except StandingsError as error:  # games the rules cannot rank
            raise _fail(
                _("The backup does not fit the database (%(reason)s). Nothing was restored."),
                reason=error.message,
            ) from None


def _expire_finished_links() -> None:
    """Expire the scorer links of games already over, as migrating an older club's database does.

    An undo must not revive them: they expired with their game.
    """
    ScorerLink.objects.filter(game__status=Game.Status.FINISHED, expired_at__isnull=True).update(
        expired_at=timezone.now()
    )
