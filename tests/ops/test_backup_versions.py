"""A backup of an older version restores as that version wrote it: what it lacks is given
as the migration that added it gave the rows it found, or derived again.
"""

from __future__ import annotations

import json
import random

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction
from django.test import Client

from club.clubs import known
from club.clubs.models import Club
from club.games.models import Game, GameTeam, Membership, Player, Round
from club.ops import backup
from club.tournaments.models import Standing, Tournament
from tests.ops.backup_helpers import (
    _restore,
    _restore_warned,
    _retable,
    _signed_as_version,
    _tamper,
    _without_forms_of_play,
    _without_link_expiry,
)


@pytest.mark.django_db
def test_a_substitution_and_the_limit_restore_and_a_version_7_backup_has_none(tmp_path):
    """Version 8 keeps the substitutions and the limit a team; a version 7 backup restores
    with the default limit, one, and no substitution."""
    from club.games.models import Player
    from club.tournaments import substitutions
    from club.tournaments.models import Substitution, Tournament, TournamentTeam
    from tests.tournaments.helpers import make_tournament, night

    with transaction.atomic():  # the club backed up, then gone: restores need an empty one
        cup = make_tournament(teams=4, substitutions=2)
        made = substitutions.substitute(
            entry=TournamentTeam.objects.get(team__name="Anu & Biju"),
            player_out=Player.objects.get(name="Biju"),
            player_in="Omana",
        )
        night(cup, 1)
        substitutions.bring_back(substitution=made)
        text = backup.make_backup().text
        transaction.set_rollback(True)

    def rows():
        return list(
            Substitution.objects.values_list(
                "entry__team__name",
                "player_out__name",
                "player_in__name",
                "first_sitting",
                "returned_from",
            )
        )

    path = tmp_path / "substitutions.json"
    path.write_text(text, encoding="utf-8")
    with transaction.atomic():
        _restore(path)
        assert rows() == [("Anu & Biju", "Biju", "Omana", 1, 2)]
        assert Tournament.objects.get().substitutions == 2
        transaction.set_rollback(True)

    older = tmp_path / "version-7.json"
    older.write_text(_tamper(text, _signed_as_version(7)), encoding="utf-8")
    _restore(older)
    assert rows() == []
    assert Tournament.objects.get().substitutions == 1


@pytest.mark.django_db
def test_identifiers_round_trip_and_a_version_8_backup_gives_each_player_a_new_one(tmp_path):
    """Version 9 keeps each player's identifier, which travels with their results, and the
    identifiers merged records were known by, exactly; a version 8 backup restores with
    each player given an identifier of their own, as the migration that added them gave
    them, and no earlier ones."""
    from club.games.people import PlayerAlias, with_identifier
    from club.leaderboards.merge import merge_players
    from tests.tournaments.helpers import make_tournament

    with transaction.atomic():  # the club backed up, then gone: restores need an empty one
        make_tournament(teams=3)
        meera = Player.objects.create(name="Meera")
        for twin in ("Meera K", "Meera Krishnan"):  # one person written down three times
            folded = Player.objects.create(name=twin)
            merge_players(keep=meera, fold=folded)
        identifiers = dict(Player.objects.values_list("name", "identifier"))
        aliases = list(
            PlayerAlias.objects.order_by("pk").values_list(
                "pk", "identifier", "player_id", "added_at"
            )
        )
        text = backup.make_backup().text
        transaction.set_rollback(True)
    assert len(identifiers) == 7 and len(aliases) == 2
    assert {player for _pk, _identifier, player, _at in aliases} == {meera.pk}

    path = tmp_path / "version-9.json"
    path.write_text(text, encoding="utf-8")
    with transaction.atomic():
        _restore(path)
        assert dict(Player.objects.values_list("name", "identifier")) == identifiers
        assert (
            list(
                PlayerAlias.objects.order_by("pk").values_list(
                    "pk", "identifier", "player_id", "added_at"
                )
            )
            == aliases
        )
        # A file naming a folded record still finds the person under the name kept.
        earlier = [identifier for _pk, identifier, _player, _at in aliases]
        assert {key: p.name for key, p in with_identifier(earlier).items()} == {
            identifier: "Meera" for identifier in earlier
        }
        transaction.set_rollback(True)

    older = tmp_path / "version-8.json"
    older.write_text(_tamper(text, _signed_as_version(8)), encoding="utf-8")
    _restore(older)
    given = dict(Player.objects.values_list("name", "identifier"))
    assert given.keys() == identifiers.keys()
    assert None not in given.values()
    assert len(set(given.values())) == len(given)  # each player their own
    assert not set(given.values()) & set(identifiers.values())  # the file held none of them
    assert not PlayerAlias.objects.exists()
    # The next player made gets one of their own too.
    assert Player.objects.create(name="Newcomer").identifier not in given.values()


@pytest.mark.django_db
def test_a_version_6_backup_restores_each_teams_first_player_as_captain(tmp_path):
    """Written before captains: a registered team's captain is its first player, as the
    migration that added captains made it."""
    from club.tournaments.models import TournamentTeam
    from tests.tournaments.helpers import make_tournament

    with transaction.atomic():  # the club backed up, then gone: restores need an empty one
        make_tournament(teams=3)
        entry = TournamentTeam.objects.get(team__name="Chitra & Dev")
        entry.captain = entry.team.second_player
        entry.save()
        text = backup.make_backup().text
        transaction.set_rollback(True)

    older = tmp_path / "version-6.json"
    older.write_text(_tamper(text, _signed_as_version(6)), encoding="utf-8")
    _restore(older)
    assert dict(TournamentTeam.objects.values_list("team__name", "captain__name")) == {
        "Anu & Biju": "Anu",
        "Chitra & Dev": "Chitra",
        "Esha & Farid": "Esha",
    }


@pytest.mark.django_db
def test_a_version_3_backup_restores_as_todays_game(good_backup, tmp_path):
    """Written before the forms of play: every game, team and tournament restores as the
    game of docs/rules.md sections A to C, teams of two, as the migration left the rows."""

    path = tmp_path / "version-3.json"
    path.write_text(_tamper(good_backup, _signed_as_version(3)), encoding="utf-8")
    _restore(path)
    before = json.loads(good_backup)["tables"]
    assert Game.objects.count() == len(before["games.game"])
    assert set(Game.objects.values_list("team_size", "scoring", "doubling_mode", "kodi")) == {
        (2, "tables", "multiply", False)
    }
    assert not GameTeam.objects.filter(third_player__isnull=False).exists()
    assert not Round.objects.filter(thani=True).exists()
    assert set(GameTeam.objects.values_list("score", "kodis")) == {(0, 0)}


@pytest.mark.django_db
def test_a_version_1_backup_still_restores_and_its_ratings_are_recomputed(good_backup, tmp_path):
    from club.leaderboards.models import PlayerRating, PlayerTotals, RatingChange

    def to_version_1(document):
        document["manifest"]["version"] = 1
        del document["manifest"]["signature"]
        _without_link_expiry(document)
        _without_forms_of_play(document)
        _retable(
            document,
            "leaderboards.ratingchange",
            lambda rows: [(row.pop("mu_after"), row.pop("sigma_after")) for row in rows],
        )

    path = tmp_path / "old.json"
    path.write_text(_tamper(good_backup, to_version_1), encoding="utf-8")
    with pytest.raises(CommandError, match="version 1 of the backup format, written before"):
        _restore(path)
    _out, err = _restore_warned(path, "--accept-unsigned", "--with-organisers")
    assert "it is of version 1, written before backups were signed" in err
    assert RatingChange.objects.exists()
    assert not RatingChange.objects.filter(mu_after__isnull=True).exists()
    restored = {r.player_id: round(r.rating, 9) for r in PlayerRating.objects.all()}
    before = json.loads(good_backup)["tables"]["leaderboards.playerrating"]
    assert restored == {row["id"] and row["player"]: round(row["rating"], 9) for row in before}
    # The leaderboard figures, left out of every backup, are recomputed from the deals.
    assert PlayerTotals.objects.filter(played__gt=0).count() == len(restored)


@pytest.mark.django_db(transaction=True)  # flush, as on a real server
def test_a_version_4_backup_of_a_points_tournament_restores_its_score_difference(tmp_path):
    """Version 4 kept no score difference: the standings of a points tournament are
    derived again from its games, so the tie-break reads as before the backup."""
    from tests.tournaments.test_forms_of_play import played_international

    played_international()
    before = sorted(Standing.objects.values_list("entry__team__name", "place", "score_difference"))
    assert {difference for _team, _place, difference in before} == {3, 2, -2, -3}

    path = tmp_path / "version-4.json"
    path.write_text(_tamper(backup.make_backup().text, _signed_as_version(4)), encoding="utf-8")
    call_command("flush", interactive=False, verbosity=0)
    _restore(path)
    after = sorted(Standing.objects.values_list("entry__team__name", "place", "score_difference"))
    assert after == before


@pytest.mark.django_db(transaction=True)  # flush, as on a real server
def test_a_tournament_in_stages_round_trips_and_a_version_5_backup_has_none(tmp_path):
    """Version 6 keeps the stages, the stage of each sitting and a knockout game's tie rule;
    a version 5 file restores as it was written: Swiss sittings, no tie rule."""
    from club.tournaments import stages
    from club.tournaments.models import Sitting, Stage
    from tests.tournaments.test_stages import event, next_sitting

    tournament = event(teams=4, tables_per_team=3)
    knockout = stages.add_stage(
        tournament=tournament, kind="knockout", qualifiers=4, deal_limit=4, tie_deals=2
    )
    stages.confirm_stage(stage=knockout)
    next_sitting(tournament)
    before = (
        list(Stage.objects.values_list("kind", "seeds", "deal_limit", "tie_deals", "status")),
        sorted(Sitting.objects.values_list("number", "stage__number")),
        sorted(Game.objects.values_list("label", "deal_limit", "tie_deals")),
    )
    text = backup.make_backup().text
    path = tmp_path / "version-6.json"
    path.write_text(text, encoding="utf-8")
    call_command("flush", interactive=False, verbosity=0)
    _restore(path)
    after = (
        list(Stage.objects.values_list("kind", "seeds", "deal_limit", "tie_deals", "status")),
        sorted(Sitting.objects.values_list("number", "stage__number")),
        sorted(Game.objects.values_list("label", "deal_limit", "tie_deals")),
    )
    assert after == before and before[2][0][2] == 2

    old = tmp_path / "version-5.json"
    old.write_text(_tamper(text, _signed_as_version(5)), encoding="utf-8")
    call_command("flush", interactive=False, verbosity=0)
    _restore(old)
    assert not Stage.objects.exists()
    assert set(Sitting.objects.values_list("stage", flat=True)) == {None}
    assert set(Game.objects.values_list("tie_deals", flat=True)) == {None}


def _a_club_night() -> str:
    """A backup of a club night (a tournament with a sitting played, and a game), taken in
    a transaction then undone: the database is as it was, and the file is of version 10."""
    from club.games.services import TeamEntry, create_game
    from club.tournaments import services as tournaments
    from tests.tournaments.helpers import make_tournament, play_sitting

    with transaction.atomic():
        tournament = make_tournament(teams=4)
        sitting = tournaments.propose_sitting(tournament=tournament, rng=random.Random(1))
        tournaments.confirm_sitting(sitting=sitting, rng=random.Random(2))
        play_sitting(sitting)
        create_game(
            label="Friday, table 1", teams=[TeamEntry("Anu", "Omana"), TeamEntry("Zara", "Yusuf")]
        )
        text = backup.make_backup().text
        transaction.set_rollback(True)
    return text


def _one_club_of_everyone() -> Club:
    """The one club of the site, holding every game and tournament, every player its member."""
    [club] = Club.objects.all()
    assert set(Game.objects.values_list("club", flat=True)) == {club.pk}
    assert set(Tournament.objects.values_list("club", flat=True)) == {club.pk}
    assert sorted(Membership.objects.values_list("club", "player")) == [
        (club.pk, pk) for pk in Player.objects.order_by("pk").values_list("pk", flat=True)
    ]
    return club


@pytest.mark.django_db(transaction=True)  # flush, as on a real server
def test_a_version_9_backup_restores_into_a_home_club_made_as_upgrading_makes_it(
    tmp_path, monkeypatch
):
    """Written before clubs: the site is of one club, made as the migration that added clubs
    made it (named by DJANGO_CLUB_NAME and DJANGO_CLUB_SLUG), every game and tournament its
    own and every player its member; its pages answer at the short addresses."""
    text = _a_club_night()
    path = tmp_path / "version-9.json"
    path.write_text(_tamper(text, _signed_as_version(9)), encoding="utf-8")
    players = len(json.loads(text)["tables"]["games.player"])
    # The club this process kept is gone with the flush: the restore reads the clubs again.
    assert known.home_id()
    call_command("flush", interactive=False, verbosity=0)
    monkeypatch.setenv("DJANGO_CLUB_NAME", "Kerala 56")
    monkeypatch.setenv("DJANGO_CLUB_SLUG", "kerala")
    _restore(path)
    club = _one_club_of_everyone()
    assert (club.name, club.slug) == ("Kerala 56", "kerala")
    assert known.home_id() == club.pk
    assert Membership.objects.count() == players > 8
    game = Game.objects.get(label="Friday, table 1")
    assert Client().get(f"/games/{game.pk}/").status_code == 200
    tournament = Tournament.objects.get()
    assert tournament.get_absolute_url() == f"/tournaments/{tournament.pk}/"
    assert Client().get(tournament.get_absolute_url()).status_code == 200


@pytest.mark.django_db
def test_a_version_9_backup_restores_into_the_home_club_a_new_database_has(tmp_path):
    """A migrated database has its home club: an older file's games, tournaments and
    players go into it, and no other club is made."""
    home = Club.objects.order_by("pk").first()
    assert home is not None and Club.objects.count() == 1  # made by migrate, holding nothing
    path = tmp_path / "version-8.json"
    path.write_text(_tamper(_a_club_night(), _signed_as_version(8)), encoding="utf-8")
    _restore(path)
    assert _one_club_of_everyone() == home


@pytest.mark.django_db
def test_the_clubs_of_a_backup_take_the_place_of_a_new_databases_home_club(tmp_path):
    """A file of version 10 holds its clubs: the bare home club of the database it is
    restored into gives way to them, ids, names and short names and all."""
    home = Club.objects.get()
    with transaction.atomic():
        Club.objects.filter(pk=home.pk).update(name="Kerala 56", slug="kerala")
        gulf = Club.objects.create(name="Gulf 56", slug="gulf", time_zone="Asia/Dubai")
        text = _a_club_night()
        clubs = list(Club.objects.order_by("pk").values_list("pk", "name", "slug", "time_zone"))
        transaction.set_rollback(True)
    known.forget()
    assert clubs == [
        (home.pk, "Kerala 56", "kerala", home.time_zone),
        (gulf.pk, "Gulf 56", "gulf", "Asia/Dubai"),
    ]
    path = tmp_path / "version-10.json"
    path.write_text(text, encoding="utf-8")
    assert Club.objects.get() == home and home.name != "Kerala 56"
    _restore(path)
    assert list(Club.objects.order_by("pk").values_list("pk", "name", "slug", "time_zone")) == (
        clubs
    )
    assert known.home().name == "Kerala 56" and known.clubs().several
    assert set(Game.objects.values_list("club", flat=True)) == {home.pk}
