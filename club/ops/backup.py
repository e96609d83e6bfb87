"""Writing a backup of the whole site, or of one club of it: one JSON document, versioned,
checksummed and signed.

The format (its tables and columns at each version, checksums, signature) is
``club.ops.backup_format``; what a club's backup holds, ``club.ops.backup_scope``;
restoring a backup, ``club.ops.restore`` (and ``club.ops.restore_one_club``). A backup
is read from one consistent snapshot of the database, signed before it is
rendered, and written beside its final name then renamed into place, readable
by its owner only: it holds password hashes and the scorer links' secrets.
"""

from __future__ import annotations

import datetime
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext as _

from club.clubs.models import Club
from club.db import one_snapshot
from club.leaderboards.services import catch_up
from club.ops.backup_format import (
    FORMAT,
    SIGNATURE_ALGORITHM,
    TABLES,
    VERSION,
    BackupError,
    app_version,
    canonical_json,
    fields_of,
    points_to_user,
    sign,
    table_checksum,
)
from club.ops.backup_scope import (
    SCOPE,
    SCOPE_CLUB,
    club_rows,
    login_row,
    organising_elsewhere,
)

USERS = get_user_model()._meta.label_lower


def _to_json(field: models.Field, value: Any) -> Any:
    """``value`` of ``field`` as the backup writes it: JSON's own types, or exact text."""
    if value is None or isinstance(field, models.JSONField):
        return value
    if isinstance(value, datetime.datetime | datetime.date):
        return value.isoformat()
    if isinstance(value, datetime.timedelta | bytes | memoryview):  # no such column yet
        raise BackupError(_("The backup cannot write the column %(field)s.") % {"field": field})
    if isinstance(value, int | float | bool | str):
        return value
    return str(value)  # Decimal, UUID: exact as text


def _table_rows(rows: models.QuerySet, usernames: dict[int, str]) -> Iterator[dict]:
    """Every row of ``rows`` by id, as the backup writes it (a login by its user name)."""
    fields = fields_of(rows.model)
    query = rows.order_by("pk").values_list(*(f.attname for f in fields))
    for values in query.iterator(chunk_size=2000):
        row = {}
        for field, value in zip(fields, values, strict=True):
            if points_to_user(field) and value is not None:
                value = usernames[value]
            row[field.name] = _to_json(field, value)
        yield row


@dataclass(frozen=True)
class Backup:
    """A backup: its manifest, and the whole document as text."""

    manifest: dict
    text: str


def _render(manifest: dict, tables: dict[str, list[str]]) -> Iterator[str]:
    """The document's text, piece by piece: one row a line, so two backups compare with diff."""
    yield '{"manifest": ' + json.dumps(manifest, ensure_ascii=False, indent=1) + ",\n"
    yield '"tables": {\n'
    for index, (key, rows) in enumerate(tables.items()):
        yield json.dumps(key) + ": ["
        for number, row in enumerate(rows):
            yield ("\n" if number == 0 else ",\n") + row
        yield ("\n]" if rows else "]") + (",\n" if index < len(tables) - 1 else "\n")
    yield "}}\n"


def _rows_of(key: str, model: type[models.Model], club: Club | None) -> models.QuerySet:
    """The rows of the table ``key`` the backup holds: all of them, or ``club``'s."""
    return model._base_manager.all() if club is None else club_rows(key, club)


def make_backup(created_at: datetime.datetime | None = None, *, club: Club | None = None) -> Backup:
    """The whole site, or one ``club`` of it (club.ops.backup_scope), as one backup
    document, read from one consistent snapshot."""
    created_at = created_at or timezone.now()
    if club is None:  # a club's backup holds no ratings
        catch_up()  # the ratings as of every finished game (club.leaderboards.owed)
    # Read every table as of one moment: a deal recorded meanwhile must not
    # leave a round in the backup without its piles and ledger.
    with one_snapshot():
        usernames = dict(get_user_model()._base_manager.values_list("pk", "username"))
        tables = {}
        for key, model in TABLES:
            rows = _table_rows(_rows_of(key, model, club), usernames)
            if club is not None and key == USERS:
                elsewhere = organising_elsewhere(club)
                rows = (login_row(row, elsewhere) for row in rows)
            try:
                tables[key] = [canonical_json(row) for row in rows]
            except ValueError:  # NaN or infinity: JSON has no way to write them
                raise BackupError(
                    _("The table %(table)s holds a number that is not finite.") % {"table": key}
                ) from None
    manifest: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "created_at": created_at.isoformat(),
        "app_version": app_version(),
    }
    if club is not None:
        manifest[SCOPE] = {SCOPE_CLUB: club.slug}
    manifest["counts"] = {key: len(rows) for key, rows in tables.items()}
    manifest["sha256"] = {key: table_checksum(rows) for key, rows in tables.items()}
    # Signed before anything is rendered: the checksums are all it needs of the rows.
    manifest["signature"] = {"algorithm": SIGNATURE_ALGORITHM, "value": sign(manifest)}
    return Backup(manifest=manifest, text="".join(_render(manifest, tables)))


def default_filename(created_at: datetime.datetime, club: Club | None = None) -> str:
    """The name ``backup_club`` gives a backup taken at ``created_at``: of the site, or
    of ``club`` (its short name in it)."""
    name = "club" if club is None else club.slug
    return f"fiftysix-{name}-backup-{created_at:%Y%m%d-%H%M%S}.json"


def write_backup(path: str | os.PathLike, *, club: Club | None = None) -> dict:
    """Write the backup (of the site, or of ``club``) to ``path``, readable by its owner
    only (it holds secrets); the manifest.

    The file appears whole or not at all: it is written beside its final name
    and renamed into place, so an interrupted backup never looks like one.
    """
    backup = make_backup(club=club)
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    try:
        handle, temporary = tempfile.mkstemp(
            dir=directory, prefix=f".{target.name}.", suffix=".part"
        )  # created with mode 0600
        try:
            with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
                out.write(backup.text)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        os.chmod(target, 0o600)
    except OSError as error:
        raise BackupError(
            _("Cannot write %(file)s: %(reason)s.")
            % {"file": path, "reason": error.strerror or error}
        ) from None
    return backup.manifest


def users_with_extra_permissions() -> int:
    """How many logins have groups or single permissions, which a backup does not keep."""
    users = get_user_model()._base_manager
    return (
        users.filter(models.Q(groups__isnull=False) | models.Q(user_permissions__isnull=False))
        .distinct()
        .count()
    )
