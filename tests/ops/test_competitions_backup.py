"""The competitions in the backups (version 11): the site's backup holds every club's
competitions and the federation's circuits, with the tournaments each counts; a club's
backup its own only, never a circuit; each restores as it was, ids and all, and its table
(made at each reading, never stored) reads as before. An older backup restores with none.

The site: the home club, whose organiser olive keeps a season over its Monsoon Cup and a
season of all its games by players; Gulf 56, whose organiser rashid keeps a season over
its Gulf Cup; and a circuit of the federation over both cups.
"""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.db import transaction

from club.clubs import known
from club.clubs.models import Club
from club.competitions.models import Competition
from club.competitions.services import Terms, delete_competition, save_competition
from club.competitions.table import competition_table
from club.games.models import Player
from club.games.people import join
from club.ops.backup import make_backup
from club.ops.backup_format import BackupError
from club.ops.restore_one_club import restore_any
from club.scoring import seasons
from club.tournaments import services as tournaments
from club.tournaments.models import Tournament
from tests.ops.backup_helpers import (
    User,
    _resigned,
    _restore,
    _retable,
    _signed_as_version,
    _tamper,
    club_backup,
    written,
)
from tests.tournaments.helpers import make_tournament, night

pytestmark = pytest.mark.django_db


def terms(name: str, **changes) -> Terms:
    made = Terms(
        name=name,
        starts_on=dt.date(2025, 7, 1),
        ends_on=dt.date(2025, 9, 30),
        counts=Competition.Counts.EVENTS,
        ranks=Competition.Ranks.TEAMS,
        method=seasons.PLACES,
        place_points=(10, 6, 4, 2),
    )
    return Terms(**{**made.__dict__, **changes})


def a_final_cup(name: str, club: Club, user, seed: int) -> Tournament:
    cup = make_tournament(name=name, teams=4, user=user, club=club)
    night(cup, seed)
    tournaments.finish_tournament(tournament=cup, user=user)
    return tournaments.make_final(tournament=cup, user=user)


def the_site() -> dict[str, Competition]:
    home = known.home()
    gulf = Club.objects.create(name="Gulf 56", slug="gulf", time_zone="Asia/Dubai")
    olive = User.objects.create_user(username="olive", password="olive-organiser-pw")
    rashid = User.objects.create_user(username="rashid", password="rashid-organiser-pw")
    home.organisers.add(olive)
    gulf.organisers.add(rashid)
    monsoon = a_final_cup("Monsoon Cup", home, olive, 1)
    # The home club's players play at Gulf 56 too (a name typed at a club is not taken for
    # a player of other clubs only).
    join(gulf.pk, Player.objects.values_list("pk", flat=True))
    gulf_cup = a_final_cup("Gulf Cup", gulf, rashid, 2)
    everything = terms(
        "Everything",
        counts=Competition.Counts.ALL,
        ranks=Competition.Ranks.PLAYERS,
        method=seasons.MATCH_POINTS,
        place_points=(),
        best=2,
        minimum=0,
        final_within_days=7,
        late_counts=True,
    )
    return {
        "season": save_competition(
            club=home, terms=terms("Monsoon season"), events=[monsoon], user=olive
        ),
        "everything": save_competition(club=home, terms=everything, user=olive),
        "gulf": save_competition(
            club=gulf, terms=terms("Gulf season"), events=[gulf_cup], user=rashid
        ),
        "circuit": save_competition(
            club=None, terms=terms("Federation circuit"), events=[monsoon, gulf_cup]
        ),
    }


def held() -> list[tuple]:
    """Every competition as stored: its id, club, rule, moments, maker and events."""
    return [
        (
            competition.pk,
            competition.club.slug if competition.club else None,
            Terms.of(competition),
            competition.created_at,
            competition.updated_at,
            competition.created_by.username if competition.created_by else None,
            sorted(competition.events.values_list("pk", "name")),
        )
        for competition in Competition.objects.order_by("pk")
    ]


def tables() -> dict[str, list[tuple]]:
    """Each competition's table, by name: its lines' places, names and totals."""
    shown = {}
    for competition in Competition.objects.order_by("pk"):
        table = competition_table(competition)
        shown[competition.name] = [
            (line.place, table.names[line.line], line.total, len(line.counted))
            for line in table.lines
        ]
    return shown


def backed_up(*clubs: str) -> tuple[dict[str, str], list[tuple], dict]:
    """The site made, its backups taken (the site's, and each club's named), and the site
    undone: the database is empty again but for its bare home club."""
    with transaction.atomic():
        the_site()
        texts = {"site": make_backup().text} | {slug: club_backup(slug) for slug in clubs}
        rows, shown = held(), tables()
        transaction.set_rollback(True)
    known.forget()
    return texts, rows, shown


def rows_of(text: str, key: str) -> list[dict]:
    return json.loads(text)["tables"][key]


# --- the site's backup ----------------------------------------------------------------


def test_the_sites_backup_holds_every_competition_and_restores_each_as_it_was(tmp_path):
    texts, rows, shown = backed_up()
    assert [row["name"] for row in rows_of(texts["site"], "competitions.competition")] == [
        "Monsoon season",
        "Everything",
        "Gulf season",
        "Federation circuit",
    ]
    assert len(rows_of(texts["site"], "competitions.competition_events")) == 4
    assert all(lines for lines in shown.values()), shown

    _restore(written(tmp_path, texts["site"]))
    assert held() == rows
    assert tables() == shown


def test_a_version_10_backup_restores_with_no_competition(tmp_path):
    texts, _rows, _shown = backed_up()
    older = _tamper(texts["site"], _signed_as_version(10))
    assert "competitions.competition" not in json.loads(older)["tables"]
    _restore(written(tmp_path, older, "version-10.json"))
    assert not Competition.objects.exists()
    assert sorted(Tournament.objects.values_list("name", flat=True)) == ["Gulf Cup", "Monsoon Cup"]


# --- a club's backup ------------------------------------------------------------------


def test_a_clubs_backup_holds_its_own_competitions_and_never_a_circuit():
    texts, _rows, _shown = backed_up("club", "gulf")
    home = rows_of(texts["club"], "competitions.competition")
    assert [row["name"] for row in home] == ["Monsoon season", "Everything"]
    assert [row["name"] for row in rows_of(texts["gulf"], "competitions.competition")] == [
        "Gulf season"
    ]
    season = home[0]["id"]
    # The tournaments its competitions count: the season's cup, none of the circuit's.
    [counted] = rows_of(texts["club"], "competitions.competition_events")
    assert counted["competition"] == season
    held_cups = {row["id"] for row in rows_of(texts["club"], "tournaments.tournament")}
    assert counted["tournament"] in held_cups
    for text in (texts["club"], texts["gulf"]):
        assert "Federation circuit" not in text


def test_a_club_restored_over_itself_has_its_competitions_back_and_the_circuit_counts_its_cup(
    tmp_path,
):
    with transaction.atomic():
        made = the_site()
        rows, shown = held(), tables()
        path = written(tmp_path, club_backup("club"))
        # After the backup: a season deleted, one changed, one added.
        delete_competition(made["everything"])
        save_competition(
            club=known.home(),
            terms=terms("Monsoon season", place_points=(5,)),
            events=made["season"].events.all(),
            competition=made["season"],
        )
        save_competition(club=known.home(), terms=terms("Later", counts="all"))

        summary = restore_any(path)
        assert summary.how == "over"
        # The club's as the file has them, ids and all; Gulf's and the circuit as they
        # were, the circuit counting the club's cup again (the file brought it back).
        assert held() == rows
        assert tables() == shown
        transaction.set_rollback(True)


def test_a_club_restored_onto_a_new_site_brings_its_competitions_and_no_circuit(tmp_path):
    texts, rows, _shown = backed_up("club")
    summary = restore_any(written(tmp_path, texts["club"]))
    assert summary.how == "new site"
    assert held() == [row for row in rows if row[1] == "club"]
    # Its cup's one sitting: two games, their winners level first, their losers third.
    assert [line[0] for line in tables()["Monsoon season"]] == [1, 1, 3, 3]


def test_a_clubs_backup_holding_a_circuit_is_refused(tmp_path):
    texts, _rows, _shown = backed_up("club")

    def a_circuit(rows):
        rows[0]["club"] = None

    forged = _tamper(
        texts["club"],
        _resigned(lambda document: _retable(document, "competitions.competition", a_circuit)),
    )
    with pytest.raises(BackupError) as refused:
        restore_any(written(tmp_path, forged))
    assert refused.value.message == (
        "The backup of the club 56 Club holds competitions of other clubs (null). Nothing "
        "was restored."
    )
    assert not Competition.objects.exists()


def test_a_competitions_id_a_circuit_holds_now_stops_the_clubs_restore(tmp_path):
    with transaction.atomic():
        made = the_site()
        path = written(tmp_path, club_backup("gulf"))
        taken = made["gulf"].pk
        delete_competition(made["gulf"])
        Competition.objects.create(
            pk=taken,
            name="Second circuit",
            starts_on=dt.date(2025, 7, 1),
            ends_on=dt.date(2025, 9, 30),
            counts=Competition.Counts.EVENTS,
            ranks=Competition.Ranks.TEAMS,
            method=seasons.PLACES,
            place_points=[3, 2, 1],
        )
        before = held()
        with pytest.raises(BackupError) as refused:
            restore_any(path)
        assert f"competitions {taken} (of the federation's circuits)" in refused.value.message
        assert held() == before
        transaction.set_rollback(True)
