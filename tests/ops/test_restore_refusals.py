"""A bad file is refused and nothing is written: a file damaged, forged, of another format or
version, or not JSON; and any file, into a club that already holds data.
"""

from __future__ import annotations

import hashlib
import re

import pytest
from django.core.management.base import CommandError

from club.games.models import Game, Player
from club.games.services import TeamEntry, create_game
from club.ops import backup, backup_format
from club.ops.restore import club_is_empty
from tests.ops.backup_helpers import (
    SIGNATURE_FAILS,
    User,
    _give_an_eliminated_team_30_tables,
    _resigned,
    _restore,
    _retable,
    _set,
    _tamper,
    _unsigned_version_2,
    _without_created_at,
)
from tests.tournaments.helpers import make_tournament

BAD_FILES = {
    "unknown version": (
        lambda text: _tamper(text, lambda d: _set(d["manifest"], "version", 13)),
        "version 13 of the backup format",
    ),
    "version as text": (
        lambda text: _tamper(text, lambda d: _set(d["manifest"], "version", "1")),
        'version "1" of the backup format',
    ),
    "another format": (
        lambda text: _tamper(text, lambda d: _set(d["manifest"], "format", "fiftysix-results/1")),
        "its format is",
    ),
    "a tampered row": (
        lambda text: text.replace('"points":56', '"points":55', 1),
        "table games.pile fails its checksum",
    ),
    "a tampered password": (
        lambda text: re.sub(r'("username":"pat".*?"password":")\w+', r"\1md5", text, count=1),
        "table auth.user fails its checksum",
    ),
    "a forged row, its checksum and count recomputed": (
        lambda text: _tamper(text, _give_an_eliminated_team_30_tables),
        SIGNATURE_FAILS,
    ),
    "a forged password, its checksum recomputed": (
        lambda text: _tamper(
            text,
            lambda d: _retable(
                d, "auth.user", lambda rows: rows[0].__setitem__("password", "md5$x$0")
            ),
        ),
        SIGNATURE_FAILS,
    ),
    "a changed created_at": (
        lambda text: _tamper(text, lambda d: _set(d["manifest"], "created_at", "2020-01-01")),
        SIGNATURE_FAILS,
    ),
    "a signature of the unsigned content": (
        lambda text: _tamper(
            text,
            lambda d: _set(
                d["manifest"]["signature"],
                "value",
                hashlib.sha256(backup_format.signed_content(d["manifest"])).hexdigest(),
            ),
        ),
        SIGNATURE_FAILS,
    ),
    "another signature algorithm": (
        lambda text: _tamper(
            text, lambda d: _set(d["manifest"]["signature"], "algorithm", "hmac-sha1")
        ),
        SIGNATURE_FAILS,
    ),
    "a signature that is not an object": (
        lambda text: _tamper(text, lambda d: _set(d["manifest"], "signature", "yes")),
        SIGNATURE_FAILS,
    ),
    "a count that is not a number, signed": (
        lambda text: text.replace('"games.game": 27', '"games.game": NaN', 1),
        SIGNATURE_FAILS,
    ),
    "no signature": (
        lambda text: _tamper(text, lambda d: d["manifest"].pop("signature")),
        "no signature, though every backup of version 12 carries one",
    ),
    "an unsigned version 2": (
        lambda text: _tamper(text, _unsigned_version_2),
        "written before backups were signed",
    ),
    # Deals: the demo's 285, 2 left of the corrected game's 3, 1 sent through a
    # link, and 1 in each of the tournament's 2 games: 290.
    "a row too few": (
        lambda text: _tamper(text, lambda d: d["tables"]["games.round"].pop()),
        "table games.round holds 289 rows, but its manifest says 290",
    ),
    "a wrong count": (
        lambda text: _tamper(
            text, _resigned(lambda d: _set(d["manifest"]["counts"], "games.game", 99))
        ),
        "table games.game holds",
    ),
    "a missing table": (
        lambda text: _tamper(text, lambda d: d["tables"].pop("games.pendingdeal")),
        "missing games.pendingdeal",
    ),
    "an unknown table": (
        lambda text: _tamper(text, lambda d: _set(d["tables"], "games.extra", [])),
        "unknown games.extra",
    ),
    "a column too many": (
        lambda text: _tamper(
            text,
            _resigned(
                lambda d: _retable(
                    d, "games.player", lambda rows: rows[0].__setitem__("nickname2", "")
                )
            ),
        ),
        "games.player, row 1, does not have the columns",
    ),
    "an identifier that is not one": (
        lambda text: _tamper(
            text,
            _resigned(
                lambda d: _retable(
                    d, "games.player", lambda rows: rows[0].__setitem__("identifier", "Meera")
                )
            ),
        ),
        "games.player, row 1, column identifier",
    ),
    "two players with one identifier": (
        lambda text: _tamper(
            text,
            _resigned(
                lambda d: _retable(
                    d,
                    "games.player",
                    lambda rows: rows[1].__setitem__("identifier", rows[0]["identifier"]),
                )
            ),
        ),
        "does not fit the database",
    ),
    # Teams: the demo's 12, 2 in each of the 3 extra games, 5 in the tournament: 23.
    "a repeated id": (
        lambda text: _tamper(
            text,
            _resigned(lambda d: _retable(d, "games.team", lambda rows: rows.append(dict(rows[0])))),
        ),
        "games.team, row 24, has a missing or repeated id",
    ),
    "a reference to a missing player": (
        lambda text: _tamper(
            text,
            _resigned(
                lambda d: _retable(
                    d, "games.team", lambda rows: rows[-1].__setitem__("first_player", 9999)
                )
            ),
        ),
        "does not fit the database",
    ),
    "a value of the wrong type": (
        lambda text: _tamper(
            text,
            _resigned(
                lambda d: _retable(
                    d, "games.game", lambda rows: rows[0].__setitem__("created_at", "yesterday")
                )
            ),
        ),
        "games.game, row 1, column created_at",
    ),
    "truncated": (lambda text: text[: len(text) // 2], "not valid JSON"),
    "empty": (lambda text: "", "not valid JSON (line 1, column 1)"),
    "not JSON at all": (lambda text: "PK\x03\x04 zip?", "not valid JSON"),
    "a list": (lambda text: "[]", "has no manifest"),
    "no tables": (
        lambda text: _tamper(text, lambda d: d.pop("tables")),
        "The backup has no tables",
    ),
}


@pytest.mark.django_db
@pytest.mark.parametrize("fault", list(BAD_FILES))
def test_a_bad_file_is_refused_and_nothing_is_written(fault, good_backup, tmp_path):
    spoil, expected = BAD_FILES[fault]
    path = tmp_path / "bad.json"
    spoiled = spoil(good_backup)
    assert spoiled != good_backup
    path.write_text(spoiled, encoding="utf-8")
    with pytest.raises(CommandError) as refused:
        _restore(path)
    assert expected in str(refused.value)
    assert club_is_empty()


@pytest.mark.django_db
def test_a_file_that_is_not_utf8_or_missing_is_refused(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes('{"manifest": "café"}'.encode("latin-1"))
    with pytest.raises(CommandError, match="not UTF-8"):
        _restore(path)
    with pytest.raises(CommandError, match="Cannot read"):
        _restore(tmp_path / "nowhere.json")
    assert club_is_empty()


@pytest.mark.django_db
def test_the_good_file_restores(good_backup, tmp_path):
    # The refusals above are refusals of the faults, not of the file they start from.
    path = tmp_path / "good.json"
    path.write_text(good_backup, encoding="utf-8")
    _restore(path)
    assert Game.objects.filter(label="Backup night, table 2").exists()


@pytest.mark.django_db
@pytest.mark.parametrize("already", ["a login", "a player", "a game", "a tournament"])
def test_a_database_that_holds_club_data_is_refused(already, good_backup, tmp_path):
    if already == "a login":
        User.objects.create_user(username="admin")
    elif already == "a player":
        Player.objects.create(name="Early bird")
    elif already == "a game":
        create_game(label="Tonight", teams=[TeamEntry("A", "B"), TeamEntry("C", "D")])
    else:
        make_tournament(name="Early Cup", teams=0)
    held = backup.make_backup().text
    path = tmp_path / "club.json"
    path.write_text(good_backup, encoding="utf-8")
    with pytest.raises(CommandError, match="already holds club data.*Nothing was restored"):
        _restore(path)
    assert _without_created_at(backup.make_backup().text) == _without_created_at(held)
