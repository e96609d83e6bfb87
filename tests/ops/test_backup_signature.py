"""The backup's signature: a file the server did not write as it is restores only when the
caller accepts it unsigned.

These tests forge files the way an attacker holding a backup would: edit rows,
recompute the table's checksum and count as the guide documents (docs/deploying.md),
and see that the signature, keyed by the server's secret key, still refuses them.
"""

from __future__ import annotations

import hashlib
import json

import pytest
from django.core.management.base import CommandError

from club.games.models import Game, GameTeam
from club.ops.management.commands.restore_club import Command as RestoreCommand
from club.ops.restore import club_is_empty
from tests.ops.backup_helpers import (
    SIGNATURE_FAILS,
    _give_an_eliminated_team_30_tables,
    _restore,
    _restore_warned,
    _tamper,
    _unsigned_version_2,
)

# --- the signature ------------------------------------------------------------------


# Without a test transaction around it: the command runs as from the shell, and
# exits as it would there.
@pytest.mark.django_db(transaction=True)
def test_the_forged_backup_of_issue_10_exits_non_zero_and_writes_nothing(
    good_backup, tmp_path, capsys
):
    forged = json.loads(_tamper(good_backup, _give_an_eliminated_team_30_tables))
    # The forger did what the guide documents: every checksum and count holds.
    for key, rows in forged["tables"].items():
        payload = json.dumps(rows, ensure_ascii=False, separators=(",", ":"))
        assert forged["manifest"]["sha256"][key] == hashlib.sha256(payload.encode()).hexdigest()
        assert forged["manifest"]["counts"][key] == len(rows)
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged, ensure_ascii=False), encoding="utf-8")

    with pytest.raises(SystemExit) as exited:
        RestoreCommand().run_from_argv(["manage.py", "restore_club", str(path)])
    assert exited.value.code != 0
    err = capsys.readouterr().err
    assert SIGNATURE_FAILS in err
    assert "or it was written by a server with a different secret key" in err
    assert "Nothing was restored" in err
    assert club_is_empty()
    assert not GameTeam.objects.filter(tables=30).exists()


@pytest.mark.django_db
def test_the_signed_backup_restores_and_says_nothing_of_integrity(good_backup, tmp_path):
    path = tmp_path / "good.json"
    path.write_text(good_backup, encoding="utf-8")
    out, err = _restore_warned(path)
    assert "Restored the backup" in out
    assert err == ""


@pytest.mark.django_db
def test_a_backup_of_a_server_with_another_secret_key_needs_accept_unsigned(
    good_backup, tmp_path, settings
):
    settings.SECRET_KEY = "the-new-server-" + "k" * 50
    path = tmp_path / "moved.json"
    path.write_text(good_backup, encoding="utf-8")
    with pytest.raises(CommandError) as refused:
        _restore(path)
    message = str(refused.value)
    assert SIGNATURE_FAILS in message
    assert "written by a server with a different secret key" in message
    assert "--accept-unsigned" in message
    assert club_is_empty()

    # The organiser olive is restored as one only when the command is told so.
    with pytest.raises(CommandError, match=r"olive \(staff\).*--with-organisers"):
        _restore_warned(path, "--accept-unsigned")
    assert club_is_empty()
    out, err = _restore_warned(path, "--accept-unsigned", "--with-organisers")
    assert "WARNING: the integrity of this backup cannot be proved" in err
    assert "its signature does not match this server's secret key" in err
    assert "gives organiser or admin rights to 1 login: olive (staff)" in err
    assert "Restored the backup" in out
    assert Game.objects.filter(label="Backup night, table 2").exists()


@pytest.mark.django_db
def test_a_backup_signed_before_the_key_was_rotated_verifies_with_the_old_key_kept(
    good_backup, tmp_path, settings
):
    settings.SECRET_KEY_FALLBACKS = [settings.SECRET_KEY]
    settings.SECRET_KEY = "the-rotated-key-" + "r" * 50
    path = tmp_path / "before-rotation.json"
    path.write_text(good_backup, encoding="utf-8")
    out, err = _restore_warned(path)
    assert "Restored the backup" in out and err == ""


@pytest.mark.django_db
def test_accept_unsigned_still_refuses_a_damaged_file(good_backup, tmp_path, settings):
    settings.SECRET_KEY = "the-new-server-" + "k" * 50
    path = tmp_path / "damaged.json"
    path.write_text(good_backup.replace('"points":56', '"points":55', 1), encoding="utf-8")
    with pytest.raises(CommandError, match="table games.pile fails its checksum"):
        _restore_warned(path, "--accept-unsigned")
    assert club_is_empty()


@pytest.mark.django_db
def test_an_unsigned_version_2_backup_needs_accept_unsigned(good_backup, tmp_path):
    path = tmp_path / "version-2.json"
    path.write_text(_tamper(good_backup, _unsigned_version_2), encoding="utf-8")
    with pytest.raises(CommandError) as refused:
        _restore(path)
    message = str(refused.value)
    assert "version 2 of the backup format, written before backups were signed" in message
    assert "restore it with --accept-unsigned" in message
    assert club_is_empty()

    out, err = _restore_warned(path, "--accept-unsigned", "--with-organisers")
    assert "WARNING: the integrity of this backup cannot be proved" in err
    assert "it is of version 2, written before backups were signed" in err
    assert Game.objects.filter(label="Backup night, table 2").exists()
    assert GameTeam.objects.count() == len(json.loads(good_backup)["tables"]["games.gameteam"])
