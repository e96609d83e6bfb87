"""Restoring a backup of one club over the same club on its own site, and refused, with
nothing written, whenever it would touch another club's rows (onto a new site:
tests/ops/test_club_restore_new_site.py).

The site is the backup tests' two clubs (tests/ops/backup_helpers.py), the home club and
Gulf 56, who share the players Zara and Yusuf (and the first tournament's players).
"""

from __future__ import annotations

import json
import uuid

import pytest
from django.core.management.base import CommandError
from django.db import transaction
from django.test import override_settings

from club.clubs import known
from club.clubs.models import Club
from club.games.models import Game, Membership, Player
from club.games.services import TeamEntry, create_game, record_deal
from club.leaderboards.models import RatingChange
from club.ops.backup_format import BackupError
from club.ops.restore import restore
from club.ops.restore_one_club import restore_any
from club.tournaments.models import Tournament
from tests.ops.backup_helpers import (
    User,
    _deal,
    _give_an_eliminated_team_30_tables,
    _resigned,
    _restore,
    _restore_warned,
    _retable,
    _tamper,
    add_second_club,
    build_club,
    club_backup,
    same_backup,
    written,
)
from tests.test_permissions import every_row


def _tables(text: str) -> dict:
    return json.loads(text)["tables"]


# --- over the same club on its site ----------------------------------------------------


@pytest.fixture(scope="module")
def site_kept(django_db_setup, django_db_blocker):
    """The two clubs and Gulf's backup, made once for the module in a transaction of its
    own; each test runs in a savepoint inside it."""
    with django_db_blocker.unblock():
        kept = transaction.atomic()
        kept.__enter__()
        build_club()
        add_second_club()
        made = {"gulf": club_backup("gulf"), "home": club_backup("club")}
    yield made
    with django_db_blocker.unblock():
        transaction.set_rollback(True)
        kept.__exit__(None, None, None)
    known.forget()


@pytest.fixture
def site(db, site_kept):
    return site_kept


def test_a_restore_over_the_club_brings_it_back_and_leaves_the_other_club_alone(site, tmp_path):
    gulf = Club.objects.get(slug="gulf")
    rashid = User.objects.get(username="rashid")
    # After the backup: a deal, a new game with a new player, a player renamed, a shared
    # player renamed by the site's administrator, and another organiser instead of rashid.
    game = Game.objects.get(club=gulf, label="Backup night, table 2")
    record_deal(game=game, number=2, entry=_deal(game, 0, [30, 26]), user=rashid)
    create_game(
        label="After the backup",
        teams=[TeamEntry("Newcomer", "Salma"), TeamEntry("Rashid", "Yusuf")],
        club=gulf,
        first_dealer=0,
    )
    Player.objects.filter(name="Salma").update(name="Salma K")
    Player.objects.filter(name="Zara").update(name="Zara Q")
    gulf.organisers.remove(rashid)
    gulf.organisers.add(User.objects.create_user(username="hamid"))
    home_before = club_backup("club")

    out = _restore(written(tmp_path, site["gulf"]))
    assert "over the club of the same short name" in out
    assert "kept as the site has them because another club knows them" in out
    # The club as the file has it: but Zara, whom the home club knows too, keeps the name
    # the site gave her.
    again = club_backup("gulf")
    assert "Zara Q" in again and "Salma K" not in again
    assert _tables(again.replace("Zara Q", "Zara")) == _tables(site["gulf"])
    assert not Game.objects.filter(label="After the backup").exists()
    assert list(gulf.organisers.values_list("username", flat=True)) == ["rashid"]
    assert Game.objects.get(pk=game.pk).deals_played == 1
    # The new player stays the site's, a member of no club.
    assert not Membership.objects.filter(player__name="Newcomer").exists()
    # Nothing of the home club changed, and the ratings count both clubs' games again.
    assert same_backup(club_backup("club"), home_before)
    assert RatingChange.objects.filter(game__club=gulf).exists()
    assert RatingChange.objects.exclude(game__club=gulf).exists()


def test_a_site_backup_refuses_a_clubs_and_the_command_restores_either(site, tmp_path):
    path = written(tmp_path, site["gulf"])
    with pytest.raises(BackupError, match="backup of the club “gulf” only"):
        restore(path)
    assert type(restore_any(path)).__name__ == "ClubRestoreSummary"


# --- refused, nothing written ----------------------------------------------------------


def _refused(path, *options: str) -> str:
    """The refusal of the restore of ``path``, having checked it wrote nothing."""
    before, home = every_row(), club_backup("club")
    with pytest.raises(CommandError) as refusal:
        _restore(path, *options)
    assert every_row() == before
    assert same_backup(club_backup("club"), home)
    return str(refusal.value)


def test_ids_held_by_another_clubs_rows_are_refused_naming_them(site, tmp_path):
    gulf = Club.objects.get(slug="gulf")
    [tournament] = Tournament.objects.filter(club=gulf).values_list("pk", flat=True)
    # Gulf gone from the site, and its tournament's id another club's.
    Tournament.objects.filter(club=gulf).delete()
    Game.objects.filter(club=gulf).delete()
    gulf.delete()
    Tournament.objects.create(
        pk=tournament, club=known.home(), name="Taken", starts_on="2026-01-01"
    )
    message = _refused(written(tmp_path, site["gulf"]))
    assert "cannot be restored here" in message
    assert f"tournaments {tournament} ({known.home().name}'s)" in message


def test_a_name_of_another_club_is_refused(site, tmp_path):
    Club.objects.filter(slug="gulf").update(slug="gulf-old")
    message = _refused(written(tmp_path, site["gulf"]))
    assert "this site's club at /clubs/gulf-old/ has that name" in message


def test_a_player_who_is_another_person_here_is_refused_naming_them(site, tmp_path):
    # The site's Salma is not the file's: another identifier.
    Player.objects.filter(name="Salma").update(identifier=uuid.uuid4())
    message = _refused(written(tmp_path, site["gulf"]))
    assert "Salma (this site's Salma is another player)" in message


def test_an_organiser_whose_user_name_is_another_account_here_is_refused(site, tmp_path):
    User.objects.filter(username="rashid").update(date_joined="2020-01-01T00:00:00Z")
    message = _refused(written(tmp_path, site["gulf"]))
    assert "organisers whose user names are other accounts on this site: rashid" in message


@pytest.mark.parametrize(
    ("change", "refusal"),
    [
        # A deal's team pointed at the home club's game.
        ("gameteam of home", "is not whole: teams in games"),
        # A game of the file given to the home club.
        ("game of home", "holds games of other clubs"),
        # A club that is no id at all.
        ("a list for a club", "holds games of other clubs ([1])"),
        # A second club slipped into the file.
        ("another club", "but holds the clubs gulf, elsewhere"),
        # A login that organises nothing.
        ("a stranger login", "holds logins that are not its organisers (mallory)"),
    ],
)
def test_a_file_that_reaches_beyond_its_club_is_refused(site, tmp_path, change, refusal):
    home_game = Game.objects.filter(club=known.home()).order_by("pk").first().pk
    home_club = known.home().pk

    def reach(document):
        tables = document["tables"]
        if change == "gameteam of home":
            _retable(document, "games.gameteam", lambda rows: rows[0].update(game=home_game))
        elif change == "a list for a club":
            _retable(document, "games.game", lambda rows: rows[0].update(club=[1]))
        elif change == "game of home":
            _retable(document, "games.game", lambda rows: rows[0].update(club=home_club))
        elif change == "another club":
            stray = dict(tables["clubs.club"][0], id=999, name="Elsewhere", slug="elsewhere")
            _retable(document, "clubs.club", lambda rows: rows.append(stray))
        else:
            stray = dict(tables["auth.user"][0], id=999, username="mallory")
            _retable(document, "auth.user", lambda rows: rows.append(stray))

    # Signed again with the server's own key: what only the server could write.
    text = _tamper(site["gulf"], _resigned(reach))
    assert refusal in _refused(written(tmp_path, text))


def test_a_clubs_backup_from_a_server_with_another_key_is_restored_only_when_accepted(
    site, tmp_path
):
    with override_settings(SECRET_KEY="the club's old server's key, another one"):
        path = written(tmp_path, club_backup("gulf"))
    assert "signature does not match" in _refused(path)
    message = _refused(path, "--accept-unsigned")
    assert "gives organiser or admin rights to rashid (organiser of Gulf 56)" in message
    out, err = _restore_warned(path, "--accept-unsigned", "--with-organisers")
    assert "integrity of this backup cannot be proved" in err
    assert "over the club of the same short name" in out
    # Its results were checked against their deals: a forged one is refused.
    forged = json.loads(path.read_text(encoding="utf-8"))
    _give_an_eliminated_team_30_tables(forged)
    message = _refused(
        written(tmp_path, json.dumps(forged), "forged.json"),
        "--accept-unsigned",
        "--with-organisers",
    )
    assert "results do not agree with their deals" in message


def test_a_restore_over_the_club_rates_the_site_once_not_once_a_game(site, tmp_path, monkeypatch):
    """The club's games go out with their rating changes at once: a game deleted with its
    own would re-rate every game of the site after it, each in turn."""
    from club.leaderboards.services import ratings

    gulf_games = Game.objects.filter(club__slug="gulf", status=Game.Status.FINISHED).count()
    assert gulf_games >= 1
    rerated = []
    real = ratings._rerate_from
    monkeypatch.setattr(
        ratings, "_rerate_from", lambda *args, **kwargs: (rerated.append(1), real(*args, **kwargs))
    )
    _restore(written(tmp_path, site["gulf"]))
    assert rerated == []
    assert RatingChange.objects.filter(game__club__slug="gulf").exists()
