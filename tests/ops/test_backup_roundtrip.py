"""Backup and restore: a restored club reads exactly as the one backed up, and the backup is
complete, deterministic and readable by its owner only.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import stat
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from club.clubs.models import Club
from club.games.models import Change, Game, Player, ScorerLink
from club.games.services import TeamEntry, create_game
from club.ops import backup, backup_format
from club.ops.restore import club_is_empty
from club.tournaments import services as tournaments
from club.tournaments.models import Tournament
from tests.ops.backup_helpers import (
    User,
    _contracts,
    _hmac,
    _restore,
    _without_created_at,
    add_second_club,
    build_club,
    clubs_held,
    everything_shown,
)

# --- the round trip ------------------------------------------------------------


# Without a test transaction around it, as on a real server: the backup reads
# one snapshot, flush empties the tables, the restore commits on its own.
@pytest.mark.django_db(transaction=True)
def test_a_restore_into_an_empty_database_reproduces_every_page_and_export(tmp_path):
    organiser = build_club()
    gulf = add_second_club()
    before = everything_shown(organiser)
    assert len(before) > 150
    assert "Backup night · &lt;b&gt;table 1&lt;/b&gt;" in before["anonymous /clubs/club/"]
    # The second club's pages are its own, at its address; its organiser writes there.
    assert "Gulf 56" in before["anonymous /"]
    assert "Backup night, table 2" in before["anonymous /clubs/gulf/"]
    assert "Backup night · &lt;b&gt;table 1&lt;/b&gt;" not in before["anonymous /clubs/gulf/"]
    gulf_game = Game.objects.get(club=gulf, label="Backup night, table 2")
    assert before[f"rashid /clubs/gulf/games/{gulf_game.pk}/"].startswith("200 ")
    assert "Record deal 2" in before[f"rashid /clubs/gulf/games/{gulf_game.pk}/"]
    held = clubs_held()
    assert len(held["clubs"]) == 2 and len(held["organisers"]) == 1
    path = tmp_path / "club.json"
    call_command("backup_club", "--output", str(path), stdout=StringIO())
    first = path.read_text(encoding="utf-8")
    ids = {
        "game": Game.objects.order_by("pk").last().pk,
        "player": Player.objects.order_by("pk").last().pk,
        "tournament": Tournament.objects.order_by("pk").last().pk,
        "user": User.objects.order_by("pk").last().pk,
        "club": gulf.pk,
    }

    contracts = _contracts()
    assert sum(declared for declared, _made in contracts.values()) > 0
    # Derived from the deals: left out of the file, and counted again on restore.
    assert not {"declared", "made"} & set(backup_format.columns()["games.gameteam"])

    call_command("flush", interactive=False, verbosity=0)
    assert club_is_empty()
    message = _restore(path)
    assert f"{Game.objects.count()} games" in message
    assert _contracts() == contracts
    # Both clubs, their organisers and members, and whose each game and tournament is.
    assert clubs_held() == held

    call_command("backup_club", "--output", str(tmp_path / "again.json"), stdout=StringIO())
    again = (tmp_path / "again.json").read_text(encoding="utf-8")
    assert again != first  # created_at differs ...
    assert _without_created_at(again) == _without_created_at(first)  # ... and nothing else

    after = everything_shown(User.objects.get(username="olive"))
    assert after.keys() == before.keys()
    differing = [key for key in before if before[key] != after[key]]
    assert differing == []

    # The ids go on from where they were, on PostgreSQL too (sequences reset).
    game = create_game(
        label="After the restore", teams=[TeamEntry("New", "Comer"), TeamEntry("Zara", "Yusuf")]
    )
    assert game.pk == ids["game"] + 1
    assert Player.objects.get(name="New").pk == ids["player"] + 1
    assert tournaments.create_tournament(name="Next", starts_on=datetime.date(2026, 3, 1)).pk == (
        ids["tournament"] + 1
    )
    assert User.objects.create_user(username="new").pk == ids["user"] + 1
    assert Club.objects.create(name="Third", slug="third").pk == ids["club"] + 1


@pytest.mark.django_db
def test_the_backup_is_complete_deterministic_and_private(tmp_path):
    organiser = build_club()
    path = tmp_path / "club.json"
    call_command("backup_club", "--output", str(path), stdout=StringIO())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # password hashes and link secrets
    assert [p.name for p in tmp_path.iterdir()] == ["club.json"]  # no part file left behind

    document = json.loads(path.read_text(encoding="utf-8"))
    manifest = document["manifest"]
    assert manifest["format"] == "fiftysix-club-backup"
    assert manifest["version"] == 12
    assert manifest["app_version"] == "0.1.0"
    assert datetime.datetime.fromisoformat(manifest["created_at"]) <= timezone.now()
    for key, model in backup_format.TABLES:
        rows = document["tables"][key]
        assert manifest["counts"][key] == model._base_manager.count() == len(rows)
        assert [row["id"] for row in rows] == sorted(
            model._base_manager.values_list("pk", flat=True)
        )
        payload = json.dumps(rows, ensure_ascii=False, separators=(",", ":"))
        assert manifest["sha256"][key] == hashlib.sha256(payload.encode()).hexdigest()
    # The signature, checked with nothing but Python, as the guide says (docs/deploying.md).
    assert list(manifest) == [
        "format",
        "version",
        "created_at",
        "app_version",
        "counts",
        "sha256",
        "signature",
    ]
    assert manifest["signature"] == {"algorithm": "hmac-sha256", "value": _hmac(manifest)}

    olive = next(u for u in document["tables"]["auth.user"] if u["username"] == "olive")
    assert olive["password"] == organiser.password and olive["is_staff"] is True
    pat = next(u for u in document["tables"]["auth.user"] if u["username"] == "pat")
    assert pat["last_login"] == "2026-01-02T03:04:05.678901+00:00"
    tokens = {row["token"] for row in document["tables"]["games.scorerlink"]}
    assert tokens == set(ScorerLink.objects.values_list("token", flat=True))
    edited = next(
        row for row in document["tables"]["games.change"] if row["action"] == Change.Action.EDITED
    )
    assert edited["made_by"] == "olive"  # a login is referred to by its user name
    assert edited["before"] and edited["after"]
    sent = next(row for row in document["tables"]["games.change"] if row["scorer_link"])
    assert sent["made_by"] is None

    second = backup.make_backup().text
    assert _without_created_at(second) == _without_created_at(path.read_text(encoding="utf-8"))
    # The signature is of the content: the same club at the same moment signs the same.
    moment = datetime.datetime(2026, 3, 1, 21, 30, tzinfo=datetime.UTC)
    assert backup.make_backup(moment).text == backup.make_backup(moment).text


@pytest.mark.django_db
def test_the_backup_says_what_it_leaves_out(tmp_path):
    from django.contrib.auth.models import Group

    user = User.objects.create_user(username="treasurer")
    user.groups.add(Group.objects.create(name="Committee"))
    out, err = StringIO(), StringIO()
    call_command("backup_club", "--output", str(tmp_path / "b.json"), stdout=out, stderr=err)
    assert "1 logins, 0 players, 0 games with 0 deals, 0 tournaments" in out.getvalue()
    assert "1 logins have groups or single permissions" in err.getvalue()


@pytest.mark.django_db
def test_an_unwritable_place_is_refused(tmp_path):
    with pytest.raises(CommandError, match="Cannot write"):
        call_command("backup_club", "--output", str(tmp_path / "no" / "b.json"), stdout=StringIO())
