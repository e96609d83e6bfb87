"""A backup of one club: what it holds (that club's rows, and of the site's shared rows
only those it names), and nothing of another club; signed as a site's backup is.

The site is the backup tests' two clubs (tests/ops/backup_helpers.py): the home club, the
demo and more, whose organiser olive is a site administrator too, and Gulf 56, whose
organiser rashid is no administrator; two players (Zara, Yusuf) play in both.
"""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction

from club.clubs import known
from club.clubs.models import Club
from club.games.models import (
    Change,
    DirectorCall,
    Game,
    GameTeam,
    Membership,
    PendingDeal,
    Player,
    RejectedDeal,
    Round,
    ScorerLink,
)
from club.ops import backup, backup_format
from club.ops.backup_scope import CLUB_PATHS, SHARED, SITE_ONLY, tables_of_a_club
from club.tournaments.models import Sitting, Standing, Tournament, TournamentTeam
from tests.ops.backup_helpers import User, _hmac, add_second_club, build_club

# Rows of a club looked for in the other club's backup, by table: the ids a club holds.
PRIVATE = {
    "games.game": Game,
    "games.gameteam": GameTeam,
    "games.round": Round,
    "games.scorerlink": ScorerLink,
    "games.change": Change,
    "games.pendingdeal": PendingDeal,
    "games.rejecteddeal": RejectedDeal,
    "games.directorcall": DirectorCall,
    "tournaments.tournament": Tournament,
    "tournaments.tournamentteam": TournamentTeam,
    "tournaments.sitting": Sitting,
    "tournaments.standing": Standing,
}


def _held(club: Club) -> dict:
    """The ids of each club's own rows, its members, and its organisers, as stored."""
    held = {
        key: set(
            model._base_manager.filter(**{CLUB_PATHS[key]: club.pk}).values_list("pk", flat=True)
        )
        for key, model in PRIVATE.items()
    }
    held["members"] = set(Membership.objects.filter(club=club).values_list("player", flat=True))
    held["tokens"] = set(ScorerLink.objects.filter(game__club=club).values_list("token", flat=True))
    return held


@pytest.fixture(scope="module")
def two_clubs(django_db_setup, django_db_blocker):
    """Each club's backup, and what each club holds, taken in a transaction then rolled back."""
    with django_db_blocker.unblock(), transaction.atomic():
        olive = build_club()
        home = known.home()
        home.organisers.add(olive)  # a site administrator who organises the home club too
        gulf = add_second_club()
        made = {
            "home": (backup.make_backup(club=home).text, _held(home)),
            "gulf": (backup.make_backup(club=gulf).text, _held(gulf)),
            "olive password": olive.password,
            "rashid password": User.objects.get(username="rashid").password,
            "ids": {"home": home.pk, "gulf": gulf.pk},
        }
        transaction.set_rollback(True)
    known.forget()
    return made


def test_every_table_is_the_clubs_shared_or_the_sites():
    """A table added to the backup must be placed: a club's own, shared, or the site's."""
    assert tables_of_a_club() == {key for key, _model in backup_format.TABLES}
    assert not set(CLUB_PATHS) & set(SHARED) and not set(SHARED) & set(SITE_ONLY)


@pytest.mark.parametrize(("club", "other"), [("gulf", "home"), ("home", "gulf")])
def test_a_clubs_backup_holds_its_own_rows_and_nothing_of_another_club(two_clubs, club, other):
    text, held = two_clubs[club]
    _other_text, others = two_clubs[other]
    tables = json.loads(text)["tables"]
    for key in PRIVATE:
        ids = {row["id"] for row in tables[key]}
        assert ids == held[key], key  # every row of the club's own ...
        assert not ids & others[key], key  # ... and none of the other club's
    assert held["games.game"] and held["tournaments.tournament"] and held["games.round"]
    # Its club, organisers and members only.
    assert [row["id"] for row in tables["clubs.club"]] == [two_clubs["ids"][club]]
    for key in ("clubs.club_organisers", "games.membership"):
        assert {row["club"] for row in tables[key]} == {two_clubs["ids"][club]}, key
    # The players it names are its members, and only they.
    assert {row["id"] for row in tables["games.player"]} == held["members"]
    assert {row["player"] for row in tables["games.membership"]} == held["members"]
    # Everything under a game or a tournament is of the club's games and tournaments.
    games, tournaments = held["games.game"], held["tournaments.tournament"]
    for key in ("games.gameteam", "games.round", "games.scorerlink", "games.change"):
        assert {row["game"] for row in tables[key]} <= games, key
    rounds = {row["id"] for row in tables["games.round"]}
    for key in ("games.pile", "games.ledgerentry"):
        assert {row["round"] for row in tables[key]} == rounds, key
    for key in ("tournaments.tournamentteam", "tournaments.sitting", "tournaments.standing"):
        assert {row["tournament"] for row in tables[key]} == tournaments, key
    # The other club's secrets are nowhere in the file.
    assert not any(token in text for token in others["tokens"])
    # No ratings: they count every club's games.
    assert all(tables[key] == [] for key in SITE_ONLY)


def test_a_shared_player_is_in_both_backups_as_a_player_with_one_clubs_membership(two_clubs):
    gulf = json.loads(two_clubs["gulf"][0])["tables"]
    home = json.loads(two_clubs["home"][0])["tables"]
    [zara_gulf] = [row for row in gulf["games.player"] if row["name"] == "Zara"]
    [zara_home] = [row for row in home["games.player"] if row["name"] == "Zara"]
    assert zara_gulf == zara_home  # the same person, identifier and all
    zara = zara_gulf["id"]
    assert [row["club"] for row in gulf["games.membership"] if row["player"] == zara] == [
        two_clubs["ids"]["gulf"]
    ]
    # Gulf's own players and names stay out of the home club's file, and the reverse.
    home_text, gulf_text = two_clubs["home"][0], two_clubs["gulf"][0]
    for name in ("Salma", "rashid", "Gulf 56", "Asia/Dubai"):
        assert name not in home_text
        assert name in gulf_text
    for name in ("Wanda", "അമ്മു", "olive", "Backup night · <b>table 1</b>"):
        assert name not in gulf_text
        assert name in home_text


def test_a_clubs_backup_says_whose_it_is_and_is_signed_as_a_sites(two_clubs):
    text = two_clubs["gulf"][0]
    manifest = json.loads(text)["manifest"]
    assert list(manifest) == [
        "format",
        "version",
        "created_at",
        "app_version",
        "scope",
        "counts",
        "sha256",
        "signature",
    ]
    assert manifest["format"] == "fiftysix-club-backup" and manifest["version"] == 12
    assert manifest["scope"] == {"club": "gulf"}
    assert manifest["signature"] == {"algorithm": "hmac-sha256", "value": _hmac(manifest)}
    assert backup_format.signature_verifies(manifest)
    assert manifest["counts"]["leaderboards.playerrating"] == 0


def test_a_clubs_backup_writes_logins_without_the_sites_rights(two_clubs):
    [rashid] = json.loads(two_clubs["gulf"][0])["tables"]["auth.user"]
    assert rashid["username"] == "rashid" and rashid["password"] == two_clubs["rashid password"]
    assert rashid["is_staff"] is False and rashid["is_superuser"] is False
    # The site administrator who organises the home club: no rights, and no password.
    [olive] = json.loads(two_clubs["home"][0])["tables"]["auth.user"]
    assert olive["username"] == "olive" and olive["is_staff"] is False
    assert olive["password"] == "!" != two_clubs["olive password"]
    # Who recorded the home club's deals is still said, by user name.
    changes = json.loads(two_clubs["home"][0])["tables"]["games.change"]
    assert "olive" in {row["made_by"] for row in changes}


@pytest.mark.django_db
def test_a_clubs_backup_writes_no_password_of_an_organiser_of_another_club_too():
    """A hash cracked from Gulf's file must not open the home club: an organiser of both
    is written without a password; one of Gulf alone keeps theirs."""
    gulf = Club.objects.create(name="Gulf 56", slug="gulf")
    both = User.objects.create_user(username="both", password="pw-of-both")
    alone = User.objects.create_user(username="alone", password="pw-of-alone")
    gulf.organisers.add(both, alone)
    known.home().organisers.add(both)
    logins = json.loads(backup.make_backup(club=gulf).text)["tables"]["auth.user"]
    passwords = {row["username"]: row["password"] for row in logins}
    assert passwords["both"] == "!"
    assert passwords["alone"] == User.objects.get(username="alone").password


@pytest.mark.django_db
def test_the_command_backs_up_one_club_under_its_name(tmp_path, monkeypatch):
    gulf = Club.objects.create(name="Gulf 56", slug="gulf")
    Membership.objects.create(club=gulf, player=Player.objects.create(name="Salma"))
    Player.objects.create(name="Somebody else")  # the site's, not Gulf's
    monkeypatch.chdir(tmp_path)
    out = StringIO()
    call_command("backup_club", "--club", "gulf", stdout=out)
    [written] = list(tmp_path.iterdir())
    assert re.fullmatch(r"fiftysix-gulf-backup-\d{8}-\d{6}\.json", written.name)
    assert "Wrote the backup of the club Gulf 56" in out.getvalue()
    assert "0 organisers' logins, 1 players, 0 games" in out.getvalue()
    assert "It holds no ratings" in out.getvalue()
    tables = json.loads(written.read_text(encoding="utf-8"))["tables"]
    assert [row["name"] for row in tables["games.player"]] == ["Salma"]
    with pytest.raises(CommandError, match="no club with the short name “nowhere”"):
        call_command("backup_club", "--club", "nowhere", stdout=StringIO())
