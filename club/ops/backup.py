"""Backup and restore of the whole club: one JSON document, versioned, checksummed and signed.

A *backup* (format ``fiftysix-club-backup``, version ``VERSION``) holds every row of
every table the club keeps: its logins, players with their identifiers and the
identifiers of records merged into them, teams, games with their deals,
piles, ledger, history, scorer links and waiting deals, tournaments with their
entries, sittings, byes, standings and events, and the ratings. Rows keep
their primary keys, so every URL (``/games/<id>/``, ``/tournaments/<id>/``,
``/s/<secret>/``) still leads to the same page after a restore. References to
a login are written as its user name; every other reference is the row's id.

The file is a single JSON document rather than a zip: the club's data is
small (years of club nights fit in a few megabytes), one text file can be
read, searched and compared with any tool, and nothing but the standard
library is needed to check it. Each row is written on its own line, tables in
a fixed order and rows by id, so two backups of the same club differ only in
``created_at`` and the signature.

The manifest is signed (version 3 on): an HMAC-SHA256, keyed by the server's
``SECRET_KEY``, of every other field of the manifest, which holds every
table's checksum; see ``sign``. The checksums alone prove only that the file
was not damaged: whoever can edit the file can recompute them. The signature
proves that the server (or one sharing its secret key) wrote it as it is.

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
"""

from __future__ import annotations

import datetime
import hashlib
import importlib.metadata
import json
import os
import tempfile
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.color import no_style
from django.db import DatabaseError, connection, models, transaction
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.translation import gettext as _

from club.db import one_snapshot
from club.games.models import (
    Change,
    Game,
    GameTeam,
    HouseRules,
    LedgerEntry,
    PendingDeal,
    Pile,
    Player,
    PlayerAlias,
    Players,
    RejectedDeal,
    Round,
    ScorerLink,
    Scoring,
    Team,
)
from club.games.services import recount_contracts
from club.games.versions import new_generation
from club.leaderboards import figures
from club.leaderboards.models import PlayerRating, RatingChange, RatingsState
from club.leaderboards.services import catch_up, rebuild_ratings
from club.ops import restore_checks
from club.ops.backup_versions import MISSING_IN, TABLE_SINCE
from club.scoring.messages import Refusal
from club.scoring.standings import StandingsError
from club.tournaments.captains import first_player_captains
from club.tournaments.models import (
    Bye,
    CheckIn,
    Sitting,
    SittingGame,
    Stage,
    Standing,
    Substitution,
    Tournament,
    TournamentEvent,
    TournamentTeam,
)
from club.tournaments.services import rebuild_standings

FORMAT = "fiftysix-club-backup"
VERSION = 9
# Versions this code can read. A change to any backed-up model changes the
# columns (tests/test_backup.py pins them): bump VERSION and teach restore to
# read the older versions still in the clubs' cupboards.
READABLE_VERSIONS = frozenset({1, 2, 3, 4, 5, 6, 7, 8, 9})
# Versions 1 and 2 carry no signature; every later version does.
FIRST_SIGNED_VERSION = 3
SIGNATURE_ALGORITHM = "hmac-sha256"
# Separates this use of the secret key from every other (sessions, password
# reset links, signed cookies each derive their own key with their own salt).
SIGNATURE_SALT = "club.backup"

# Login fields kept; groups and per-user permissions are not (organisers are
# staff accounts, and the app uses nothing else).
USER_FIELDS = (
    "id",
    "username",
    "first_name",
    "last_name",
    "email",
    "is_staff",
    "is_superuser",
    "is_active",
    "password",
    "date_joined",
    "last_login",
)


def _tables() -> tuple[tuple[str, type[models.Model]], ...]:
    # Parents before children, so that a restore inserts in this order; the one
    # loop (a game's winner is one of its teams) is covered by the foreign keys
    # being checked at the end of the transaction.
    ordered = (
        get_user_model(),
        Player,
        PlayerAlias,
        Team,
        Game,
        GameTeam,
        Round,
        Pile,
        LedgerEntry,
        ScorerLink,
        Change,
        PendingDeal,
        RejectedDeal,
        Tournament,
        TournamentTeam,
        CheckIn,
        Substitution,
        Stage,
        Sitting,
        SittingGame,
        Bye,
        Standing,
        TournamentEvent,
        PlayerRating,
        RatingChange,
        RatingsState,
    )
    return tuple((model._meta.label_lower, model) for model in ordered)


TABLES = _tables()

# Tables of the club's apps a backup leaves out on purpose, and why.
NOT_BACKED_UP = {
    # The cached pages' token (club.games.versions): a restored club gets a new one.
    "games.clubversion": "the cached pages' change token, made new on restore",
    # One-time keys of forms already answered, kept a week against a phone
    # sending a form twice (clear_submitted_forms); a restored club starts with none.
    "games.submittedform": "answers to resent forms, kept only for a week",
    # The leaderboard figures are sums over the games' deals; a restore
    # recomputes them (club.leaderboards.figures.rebuild_all).
    "leaderboards.playergamefigures": "derived from the deals, recomputed on restore",
    "leaderboards.teamgamefigures": "derived from the deals, recomputed on restore",
    "leaderboards.playertotals": "derived from the deals, recomputed on restore",
    "leaderboards.teamtotals": "derived from the deals, recomputed on restore",
    # Work an answer left for after it was sent; a backup is taken once it is done.
    "leaderboards.owedgame": "work owed to the boards, done before a backup is read",
}


class BackupError(Refusal):
    """The backup could not be written, or the file cannot be restored; ``message`` says why."""


@dataclass(frozen=True)
class RestoreSummary:
    counts: dict[str, int]
    created_at: str
    app_version: str
    # False when the file's signature did not verify (or it had none) and the
    # caller accepted it all the same.
    signed: bool = True


def _is_user_model(model) -> bool:
    return model is get_user_model()


# A table's column order is part of the format: a restore refuses a row whose
# columns come in another order. It is the model's field order, except for the
# user (the login fields only) and the models whose fields partly come from an
# abstract model (the house rules of games.models.HouseRules, the players of
# games.models.Players), which Django places first: those fields go where the
# format has always had them, after the column named here.
ABSTRACT_FIELDS_AFTER = {
    "games.game": (HouseRules, "first_dealer_seat"),
    "tournaments.tournament": (HouseRules, "is_final"),
    "games.team": (Players, "name"),
    "games.gameteam": (Players, "position"),
}


# Columns a backup leaves out at every version: counts derived from the rows it
# holds, counted again on restore (like the leaderboards' figures).
DERIVED = {"games.gameteam": ("declared", "made")}


def fields_of(model: type[models.Model]) -> list[models.Field]:
    """The columns a backup writes for ``model``, in the format's order."""
    if _is_user_model(model):
        return [model._meta.get_field(name) for name in USER_FIELDS]
    derived = DERIVED.get(model._meta.label_lower, ())
    fields = [field for field in model._meta.concrete_fields if field.name not in derived]
    placed = ABSTRACT_FIELDS_AFTER.get(model._meta.label_lower)
    if placed is not None:
        abstract, after = placed
        names = {field.name for field in abstract._meta.local_fields}
        moved = [field for field in fields if field.name in names]
        fields = [field for field in fields if field.name not in names]
        at = [field.name for field in fields].index(after) + 1
        fields[at:at] = moved
    return fields


def tables_of(version: int = VERSION) -> tuple[tuple[str, type[models.Model]], ...]:
    """The tables a backup of ``version`` holds, in restore order."""
    return tuple((key, model) for key, model in TABLES if TABLE_SINCE.get(key, 1) <= version)


def columns(version: int = VERSION) -> dict[str, list[str]]:
    """Every table's column names, as written into a backup of ``version``."""
    missing = MISSING_IN.get(version, {})
    return {
        key: [field.name for field in fields_of(model) if field.name not in missing.get(key, ())]
        for key, model in tables_of(version)
    }


def _points_to_user(field: models.Field) -> bool:
    return field.is_relation and _is_user_model(field.related_model)


def app_version() -> str:
    """The project's version: its pyproject.toml in a checkout, else the installed package's."""
    try:
        with open(Path(settings.BASE_DIR) / "pyproject.toml", "rb") as handle:
            return str(tomllib.load(handle)["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        pass
    try:
        return importlib.metadata.version("fiftysix-club")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _canonical(value: Any) -> str:
    # Key order is kept as stored (never sorted): JSON held in a column, such
    # as a change's deal before and after, must come back exactly as it was.
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _to_json(field: models.Field, value: Any) -> Any:
    if value is None or isinstance(field, models.JSONField):
        return value
    if isinstance(value, datetime.datetime | datetime.date):
        return value.isoformat()
    if isinstance(value, datetime.timedelta | bytes | memoryview):  # no such column yet
        raise BackupError(_("The backup cannot write the column %(field)s.") % {"field": field})
    if isinstance(value, int | float | bool | str):
        return value
    return str(value)  # Decimal, UUID: exact as text


def _table_rows(model: type[models.Model], usernames: dict[int, str]) -> Iterator[dict]:
    fields = fields_of(model)
    query = model._base_manager.order_by("pk").values_list(*(f.attname for f in fields))
    for values in query.iterator(chunk_size=2000):
        row = {}
        for field, value in zip(fields, values, strict=True):
            if _points_to_user(field) and value is not None:
                value = usernames[value]
            row[field.name] = _to_json(field, value)
        yield row


def _checksum(canonical_rows: list[str]) -> str:
    payload = "[" + ",".join(canonical_rows) + "]"
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def signed_content(manifest: dict) -> bytes:
    """What the signature covers: every field of the manifest but the signature, as one text.

    Compact JSON with the keys sorted (at every level), UTF-8: the signature
    is of the manifest's content, not of its layout in the file, so a backup
    re-indented by a JSON tool still verifies. The manifest holds the format,
    version, ``created_at``, ``app_version``, every table's row count and
    every table's SHA-256, so the signature covers every row: a changed row
    changes its table's checksum, and a changed checksum breaks the signature.
    Raises ``ValueError`` for a number JSON cannot write (a manifest read from
    a file may hold ``NaN``).
    """
    content = {key: value for key, value in manifest.items() if key != "signature"}
    return json.dumps(
        content, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False
    ).encode("utf-8")


def sign(manifest: dict, secret: str | bytes | None = None) -> str:
    """The signature of ``manifest``: HMAC-SHA256 of ``signed_content``, hexadecimal.

    Keyed by ``secret``, by default the server's ``SECRET_KEY``, through
    ``django.utils.crypto.salted_hmac`` with the fixed salt ``SIGNATURE_SALT``:
    the HMAC key is SHA-256(salt + secret), so a backup's signature is of no
    use as any other token the key makes, and no other token passes for a
    backup's signature. ``salted_hmac`` rather than ``django.core.signing``:
    a ``Signer`` makes ``value:signature`` tokens (base64, for cookies and
    links), whereas a backup wants a detached signature in its manifest, over
    checksums computed before the file is written, so the file stays plain
    readable JSON written table by table; and ``salted_hmac`` is nothing but
    ``hmac`` and ``hashlib``, so a backup can be checked with Python alone::

        key = hashlib.sha256(b"club.backup" + SECRET_KEY.encode()).digest()
        hmac.new(key, signed_content(manifest), hashlib.sha256).hexdigest()
    """
    return salted_hmac(
        SIGNATURE_SALT, signed_content(manifest), secret=secret, algorithm="sha256"
    ).hexdigest()


def signature_verifies(manifest: dict) -> bool:
    """Whether the manifest's signature was made with this server's secret key.

    The keys of ``SECRET_KEY_FALLBACKS`` are tried too, as Django does for its
    own signatures: a backup written before the key was rotated still verifies
    while the old key is kept there.
    """
    signature = manifest.get("signature")
    if not isinstance(signature, dict) or signature.get("algorithm") != SIGNATURE_ALGORITHM:
        return False
    value = signature.get("value")
    if not isinstance(value, str):
        return False
    try:
        return any(
            constant_time_compare(sign(manifest, secret), value)
            for secret in [settings.SECRET_KEY, *settings.SECRET_KEY_FALLBACKS]
        )
    except ValueError:  # NaN or infinity in the manifest: not what any server signed
        return False


@dataclass(frozen=True)
class Backup:
    manifest: dict
    text: str


def _render(manifest: dict, tables: dict[str, list[str]]) -> Iterator[str]:
    # One row a line, so that two backups compare line by line with diff.
    yield '{"manifest": ' + json.dumps(manifest, ensure_ascii=False, indent=1) + ",\n"
    yield '"tables": {\n'
    for index, (key, rows) in enumerate(tables.items()):
        yield json.dumps(key) + ": ["
        for number, row in enumerate(rows):
            yield ("\n" if number == 0 else ",\n") + row
        yield ("\n]" if rows else "]") + (",\n" if index < len(tables) - 1 else "\n")
    yield "}}\n"


def make_backup(created_at: datetime.datetime | None = None) -> Backup:
    """The whole club as one backup document, read from one consistent snapshot."""
    created_at = created_at or timezone.now()
    catch_up()  # the ratings as of every finished game (club.leaderboards.owed)
    # Read every table as of one moment: a deal recorded meanwhile must not
    # leave a round in the backup without its piles and ledger.
    with one_snapshot():
        usernames = dict(get_user_model()._base_manager.values_list("pk", "username"))
        tables = {}
        for key, model in TABLES:
            try:
                tables[key] = [_canonical(row) for row in _table_rows(model, usernames)]
            except ValueError:  # NaN or infinity: JSON has no way to write them
                raise BackupError(
                    _("The table %(table)s holds a number that is not finite.") % {"table": key}
                ) from None
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "created_at": created_at.isoformat(),
        "app_version": app_version(),
        "counts": {key: len(rows) for key, rows in tables.items()},
        "sha256": {key: _checksum(rows) for key, rows in tables.items()},
    }
    # Signed before anything is rendered: the checksums are all it needs of the rows.
    manifest["signature"] = {"algorithm": SIGNATURE_ALGORITHM, "value": sign(manifest)}
    return Backup(manifest=manifest, text="".join(_render(manifest, tables)))


def default_filename(created_at: datetime.datetime) -> str:
    return f"fiftysix-club-backup-{created_at:%Y%m%d-%H%M%S}.json"


def write_backup(path: str | os.PathLike) -> dict:
    """Write the backup to ``path``, readable by its owner only (it holds secrets); the manifest.

    The file appears whole or not at all: it is written beside its final name
    and renamed into place, so an interrupted backup never looks like one.
    """
    backup = make_backup()
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


# --- restore -----------------------------------------------------------------


def _fail(message: str, **values) -> BackupError:
    return BackupError(message % values if values else message)


def _read(path: str | os.PathLike) -> dict:
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


def _check_manifest(manifest: dict) -> None:
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


def _unproved(manifest: dict) -> tuple[str, str] | None:
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


def _check_tables(document: dict) -> dict[str, list[dict]]:
    """The tables of the backup, each row checked against its version's columns."""
    manifest = document["manifest"]
    tables = document.get("tables")
    if not isinstance(tables, dict):
        raise _fail(_("The backup has no tables."))
    expected = [key for key, _model in tables_of(manifest["version"])]
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
    all_columns = columns(manifest["version"])
    for key in expected:
        rows = tables[key]
        if not isinstance(rows, list):
            raise _fail(_("The backup's table %(table)s is not a list of rows."), table=key)
        count = manifest["counts"][key]
        if count != len(rows) or type(count) is not int:
            raise _fail(
                _(
                    "The backup's table %(table)s holds %(rows)d rows, "
                    "but its manifest says %(count)s."
                ),
                table=key,
                rows=len(rows),
                count=json.dumps(count),
            )
        try:
            checksum = _checksum([_canonical(row) for row in rows])
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
        wanted = all_columns[key]
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
    # The tables of a later version than the backup's: none of their rows existed then.
    return {key: tables[key] if key in expected else [] for key, _model in TABLES}


def _objects(model, rows: list[dict], user_ids: dict[str, int], key: str) -> list:
    fields = fields_of(model)
    objects = []
    for index, row in enumerate(rows):
        instance = model()
        for field in fields:
            if (
                field.name not in row
            ):  # a column the backup's version lacks: as its migration left it
                setattr(instance, field.attname, field.get_default())
                continue
            value = row[field.name]
            try:
                if value is None or isinstance(field, models.JSONField):
                    pass
                elif _points_to_user(field):
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


def _refuse(problems) -> None:
    refusal = restore_checks.refusal(list(problems))
    if refusal is not None:
        raise BackupError(refusal)


def club_is_empty() -> bool:
    return not any(model._base_manager.exists() for _key, model in TABLES)


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
    a count or checksum fails, or the club already holds any login, player,
    game, tournament or other row of a backed-up table.

    With ``accept_unsigned`` a file whose signature does not verify, or that
    has none, is restored all the same (every other check still holds), and
    ``warn`` is first given a warning saying that its integrity cannot be
    proved: for a club moving to a server with another secret key. Such a file
    is refused, naming them, when it gives any login organiser or admin rights,
    unless ``with_organisers``; and when its results disagree with a replay of
    its deals (``club.ops.restore_checks``). Its ratings are computed again.
    """
    document = _read(path)
    manifest = document["manifest"]
    _check_manifest(manifest)
    unproved = _unproved(manifest)
    if unproved is not None:
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
    tables = _check_tables(document)
    if unproved is not None:  # every login named before anything is written
        warning, refused = restore_checks.check_organisers(
            document, with_organisers=with_organisers
        )
        if warning is not None and warn is not None:
            warn(warning)
        if refused is not None:
            raise BackupError(refused)
    user_ids = {row["username"]: row["id"] for row in tables[get_user_model()._meta.label_lower]}
    prepared = [(model, _objects(model, tables[key], user_ids, key)) for key, model in TABLES]
    try:
        with transaction.atomic():
            if not club_is_empty():
                raise _fail(
                    _(
                        "The database already holds club data (logins, players, games or "
                        "tournaments). A backup is restored into an empty database only: "
                        "create a new database, run “manage.py migrate”, and restore into it "
                        "before making any login. Nothing was restored."
                    )
                )
            for model, objects in prepared:
                fields = fields_of(model)
                for start in range(0, len(objects), 500):
                    # raw=True keeps the stored values of auto_now and
                    # auto_now_add columns (bulk_create would stamp them now).
                    model._base_manager._insert(
                        objects[start : start + 500],
                        fields=fields,
                        raw=True,
                        using=connection.alias,
                    )
            connection.check_constraints(
                table_names=[model._meta.db_table for _key, model in TABLES]
            )
            # Rows came in with their ids: move each id sequence past them so
            # the next game or player gets a fresh id (PostgreSQL; SQLite does it itself).
            with connection.cursor() as cursor:
                for statement in connection.ops.sequence_reset_sql(
                    no_style(), [model for _key, model in TABLES]
                ):
                    cursor.execute(statement)
            # What the backup leaves out is derived from what it holds; and the club is a
            # new one under the same ids: no page cached before may be served after.
            new_generation()
            recount_contracts()
            if unproved is not None:  # before anything is derived from the results
                _refuse(restore_checks.game_problems())
            figures.rebuild_all()
            missing = MISSING_IN.get(manifest["version"], {})
            if unproved is not None or missing.get("leaderboards.ratingchange"):
                rebuild_ratings()
            if "captain" in missing.get("tournaments.tournamentteam", ()):
                first_player_captains()
            if missing.get("tournaments.standing"):
                # A points tournament's standings rank by the score difference, which
                # the older file does not hold: derived again from its games.
                for tournament in Tournament.objects.filter(scoring=Scoring.POINTS):
                    try:
                        rebuild_standings(tournament)
                    except StandingsError as error:  # games the rules cannot rank
                        raise _fail(
                            _(
                                "The backup does not fit the database (%(reason)s). "
                                "Nothing was restored."
                            ),
                            reason=error.message,
                        ) from None
            if unproved is not None:
                _refuse(restore_checks.standing_problems())
            if missing.get("games.scorerlink"):
                # Links of games already over expired with them (an undo must not
                # revive them), as migrating an older club's database does.
                ScorerLink.objects.filter(
                    game__status=Game.Status.FINISHED, expired_at__isnull=True
                ).update(expired_at=timezone.now())
    except DatabaseError as error:
        raise _fail(
            _("The backup does not fit the database (%(reason)s). Nothing was restored."),
            reason=str(error).strip().splitlines()[0]
            if str(error).strip()
            else type(error).__name__,
        ) from None
    return RestoreSummary(
        counts={key: len(tables[key]) for key, _model in TABLES},
        created_at=str(manifest.get("created_at")),
        app_version=str(manifest.get("app_version")),
        signed=unproved is None,
    )
