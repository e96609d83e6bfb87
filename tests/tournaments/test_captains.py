"""A captain for each registered team: chosen at registration (the first player named
unless another is), shown on the standings, the seats page and the score sheets, and
carried by the archive when it is not the first player."""

from __future__ import annotations

import json
import re

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse

from club.games.models import Player
from club.tournaments import services
from club.tournaments.captains import NOT_A_PLAYER, set_captain
from club.tournaments.models import Tournament, TournamentEvent, TournamentTeam
from club.tournaments.services.teams import HAS_PLAYED
from tests.archive.test_tournament_archive import export, import_text, refused, wipe
from tests.tournaments.helpers import make_tournament
from tests.tournaments.test_forms_of_play import international

pytestmark = pytest.mark.django_db

MARK = ' <abbr class="captain" title="captain">(c)</abbr>'


def captains(tournament) -> dict[str, str]:
    return {
        entry.team.name: entry.captain.name
        for entry in TournamentTeam.objects.filter(tournament=tournament).select_related(
            "team", "captain"
        )
    }


def test_the_first_player_named_is_the_captain_unless_another_is():
    tournament = international(teams=[])
    services.register_team(tournament=tournament, first="Anu", second="Biju", third="Chitra")
    services.register_team(
        tournament=tournament, first="Dev", second="Esha", third="Farid", captain="esha"
    )
    assert captains(tournament) == {"Anu & Biju & Chitra": "Anu", "Dev & Esha & Farid": "Esha"}


def test_a_captain_who_does_not_play_for_the_team_is_refused_and_nothing_is_stored():
    tournament = international(teams=[])
    before = (TournamentTeam.objects.count(), TournamentEvent.objects.count())
    message = NOT_A_PLAYER % {"player": "Gita", "team": "Dev & Esha & Farid"}
    with pytest.raises(services.TournamentError, match=re.escape(message)) as refusal:
        services.register_team(
            tournament=tournament, first="Dev", second="Esha", third="Farid", captain="Gita"
        )
    assert refusal.value.field == "captain"
    assert (TournamentTeam.objects.count(), TournamentEvent.objects.count()) == before


def test_the_captain_is_chosen_on_the_registration_form_and_changed_on_the_edit_form(
    organiser_client,
):
    tournament = international(teams=[])
    page = organiser_client.get(tournament.get_absolute_url()).text
    assert '<select name="captain"' in page and '<option value="third">' in page
    assert '<option value="fourth">' not in page  # teams of three
    response = organiser_client.post(
        reverse("tournaments:register", args=[tournament.pk]),
        {"first": "Usha", "second": "Vinod", "third": "Wilson", "name": "", "captain": "third"},
    )
    assert response.status_code == 302
    entry = TournamentTeam.objects.get()
    assert entry.captain.name == "Wilson"
    url = reverse("tournaments:team_edit", args=[tournament.pk, entry.pk])
    assert '<option value="third" selected>' in organiser_client.get(url).text
    response = organiser_client.post(
        url, {"first": "Usha", "second": "Vinod", "third": "Wilson", "name": "", "captain": "first"}
    )
    assert response.status_code == 302
    assert TournamentTeam.objects.get().captain.name == "Usha"


def test_a_pasted_list_marks_its_captains_with_c_or_a_star(organiser_client):
    tournament = international(teams=[])
    url = reverse("tournaments:register_list", args=[tournament.pk])
    response = organiser_client.post(url, {"teams": "Anu, Biju (c), Chitra\nDev, Esha*, Farid*\n"})
    assert response.status_code == 200
    assert "Line 2: this line marks 2 captains; a team has one." in response.text
    assert not TournamentTeam.objects.exists()
    response = organiser_client.post(
        url, {"teams": "Anu, Biju (c), Chitra\nAces: Dev, Esha, Farid*\nGita, Hari, Indu\n"}
    )
    assert response.status_code == 302
    assert captains(tournament) == {
        "Anu & Biju & Chitra": "Biju",
        "Aces": "Farid",
        "Gita & Hari & Indu": "Gita",
    }
    # The names are stored without their marks.
    assert not Player.objects.filter(name__contains="*").exists()
    assert not Player.objects.filter(name__contains="(c)").exists()


def test_the_standings_seats_and_score_sheets_mark_the_captain(client):
    tournament = make_tournament(teams=4)
    entry = TournamentTeam.objects.get(team__name="Chitra & Dev")
    set_captain(entry=entry, captain="Dev")
    standings = client.get(tournament.get_absolute_url()).text
    assert f">Dev</a>{MARK}" in standings and f">Anu</a>{MARK}" in standings
    assert f">Chitra</a>{MARK}" not in standings
    sitting = services.propose_sitting(tournament=tournament)
    services.confirm_sitting(sitting=sitting)
    seats = client.get(reverse("tournaments:seats", args=[tournament.pk])).text
    assert f">Dev</a>{MARK}" in seats and f">Chitra</a>{MARK}" not in seats
    sheets = client.get(reverse("tournaments:sitting_sheets", args=[tournament.pk, 1])).text
    assert f"Dev{MARK}" in sheets and f"Chitra{MARK}" not in sheets
    assert sheets.count(MARK) == 4  # one a team, four teams at two tables


def test_the_archive_names_a_captain_who_is_not_the_first_player_and_reads_it_back(tmp_path):
    tournament = make_tournament(name="Captains Cup", teams=4)
    set_captain(entry=TournamentTeam.objects.get(team__name="Esha & Farid"), captain="Farid")
    first = export("--tournament", "Captains Cup")
    teams = json.loads(first)["tournament"]["teams"]
    assert [team.get("captain") for team in teams] == [None, None, "Farid", None]
    wipe()
    import_text(tmp_path, first)
    assert export("--tournament", "Captains Cup") == first
    imported = Tournament.objects.get()
    assert imported.pk != tournament.pk
    assert captains(imported)["Esha & Farid"] == "Farid"
    assert captains(imported)["Anu & Biju"] == "Anu"  # named by no key: the first player


def test_a_captain_the_team_does_not_have_is_refused_by_the_import(tmp_path):
    make_tournament(name="Captains Cup", teams=2)
    document = json.loads(export("--tournament", "Captains Cup"))
    wipe()
    document["tournament"]["teams"][1]["captain"] = "Anu"
    message = refused(tmp_path, document)
    assert "the captain of team 2, Anu, is not one of its players" in message


@pytest.mark.django_db(transaction=True)
def test_teams_registered_before_captains_have_their_first_player_as_captain():
    tournament = make_tournament(teams=3)
    executor = MigrationExecutor(connection)
    executor.migrate([("tournaments", "0009_stages")])
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert captains(tournament) == {
        "Anu & Biju": "Anu",
        "Chitra & Dev": "Chitra",
        "Esha & Farid": "Esha",
    }


def test_the_captain_changes_after_the_team_has_played_and_the_team_itself_does_not():
    tournament = make_tournament(teams=2)
    sitting = services.propose_sitting(tournament=tournament)
    services.confirm_sitting(sitting=sitting)
    entry = TournamentTeam.objects.get(team__name="Chitra & Dev")
    services.edit_team(entry=entry, players=["Chitra", "Dev"], name="Chitra & Dev", captain="Dev")
    assert captains(tournament)["Chitra & Dev"] == "Dev"
    refusal = HAS_PLAYED % {"team": "Chitra & Dev"}
    with pytest.raises(services.TournamentError, match=re.escape(refusal)):
        services.edit_team(entry=entry, players=["Chitra", "Gita"], captain="Gita")
    assert captains(tournament)["Chitra & Dev"] == "Dev"


def test_merging_the_captain_into_another_name_keeps_the_captain():
    from club.leaderboards.merge import merge_players

    tournament = make_tournament(teams=2)
    entry = TournamentTeam.objects.get(team__name="Chitra & Dev")
    set_captain(entry=entry, captain="Dev")
    kept = Player.objects.create(name="Devan")
    merge_players(keep=kept, fold=Player.objects.get(name="Dev"))
    assert captains(tournament)["Chitra & Dev"] == "Devan"


def test_the_admin_keeps_the_captain_one_of_the_teams_players(admin_client):
    tournament = make_tournament(teams=2)
    entry = TournamentTeam.objects.get(team__name="Chitra & Dev")
    url = reverse("admin:tournaments_tournamentteam_change", args=[entry.pk])
    anu = Player.objects.get(name="Anu")
    response = admin_client.post(
        url, {"team": entry.team_id, "captain": anu.pk, "tournament": tournament.pk}
    )
    assert response.status_code == 200
    assert "The captain is one of the team&#x27;s players." in response.text
    assert captains(tournament)["Chitra & Dev"] == "Chitra"
    # An export with a captain set by other means than these forms still writes.
    TournamentTeam.objects.filter(pk=entry.pk).update(captain=anu)
    document = json.loads(export("--tournament", tournament.name))
    assert "captain" not in document["tournament"]["teams"][1]
