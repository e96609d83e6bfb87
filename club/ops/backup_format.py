"""The club's backup format: one JSON document, versioned, checksummed and signed.

A *backup* (format ``fiftysix-club-backup``, version ``VERSION``) holds every row of
every table the site keeps, for all its clubs: its logins, its clubs with their
organisers and their players (version 10), players with their identifiers and the
identifiers of records merged into them, teams, games with their club, deals,
piles, ledger, history, scorer links and waiting deals, tournaments with their
club, entries, sittings, byes, standings and events, the clubs' competitions and the
federation's circuits with the tournaments each counts (version 11; never their tables,
which are made from the games at each reading), how each sitting was drawn and its clock
(version 12), and the ratings. Rows keep
their primary keys and clubs their short names, so every URL (``/games/<id>/``,
``/clubs/<slug>/tournaments/<id>/``, ``/s/<secret>/``) still leads to the same page
after a restore. References to a login (an organiser of a club too) are written as
its user name; every other reference is the row's id.

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

This module is what writing (``club.ops.backup``) and restoring
(``club.ops.restore``) share: the tables and their columns at each version,
the rows' canonical JSON, the checksums and the signature.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import tomllib
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import models
from django.utils.crypto import constant_time_compare, salted_hmac

from club.clubs.models import Club
from club.competitions.models import Competition
from club.games.models import (
    Change,
    DirectorCall,
    Game,
    GameTeam,
    HouseRules,
    LedgerEntry,
    Membership,
    PendingDeal,
    Pile,
    Player,
    PlayerAlias,
    Players,
    RejectedDeal,
    Round,
    ScorerLink,
    Team,
)
from club.leaderboards.models import PlayerRating, RatingChange, RatingsState
from club.ops.backup_versions import MISSING_IN, TABLE_SINCE
from club.scoring.messages import Refusal
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

FORMAT = "fiftysix-club-backup"
VERSION = 12
# Versions this code can read. A change to any backed-up model changes the
# columns (tests/ops/test_backup_format.py pins them): bump VERSION and teach restore to
# read the older versions still in the clubs' cupboards.
READABLE_VERSIONS = frozenset({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
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
    # being checked at the end of the transaction. The clubs come before what they
    # hold (games, tournaments, members), their organisers after the logins.
    ordered = (
        get_user_model(),
        Club,
        Club.organisers.through,
        Player,
        PlayerAlias,
        Membership,
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
        DirectorCall,
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
        # After the clubs and the tournaments they count (a circuit's are several clubs').
        Competition,
        Competition.events.through,
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
    "leaderboards.playerclubtotals": "derived from the deals, recomputed on restore",
    "leaderboards.teamclubtotals": "derived from the deals, recomputed on restore",
    "leaderboards.playerformrating": "each form's ratings, rated again on restore",
    # Work an answer left for after it was sent; a backup is taken once it is done.
    "leaderboards.owedgame": "work owed to the boards, done before a backup is read",
}


class BackupError(Refusal):
    """The backup could not be written, or the file cannot be restored; ``message`` says why."""


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
DERIVED = {
    "games.gameteam": ("declared", "made"),
    # Each form of play's ratings, rated again from the games on restore
    # (club.leaderboards.services.ratings.keep_form_ratings).
    "leaderboards.ratingchange": ("form", "form_mu_after", "form_sigma_after"),
    "leaderboards.ratingsstate": ("forms_kept",),
}


def column(model: type[models.Model], name: str) -> models.Field:
    """The field ``name`` of ``model``, one of its own columns.

    ``get_field`` also finds the reverse side of a relation; the names asked for
    here are always the model's own columns, as every caller relies on.
    """
    field = model._meta.get_field(name)
    assert isinstance(field, models.Field), f"{model._meta.label}.{name} is not a column"
    return field


def fields_of(model: type[models.Model]) -> list[models.Field]:
    """The columns a backup writes for ``model``, in the format's order."""
    if _is_user_model(model):
        return [column(model, name) for name in USER_FIELDS]
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


def points_to_user(field: models.Field) -> bool:
    """Whether ``field`` refers to a login, which a backup writes as its user name."""
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


def canonical_json(value: Any) -> str:
    """``value`` as one line of compact JSON, as a backup writes a row and checksums it.

    Key order is kept as stored (never sorted): JSON held in a column, such
    as a change's deal before and after, must come back exactly as it was.
    """
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def table_checksum(canonical_rows: list[str]) -> str:
    """The SHA-256 of a table, its rows (as ``canonical_json`` writes them) in a JSON list."""
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
