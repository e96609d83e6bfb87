"""The tournament pages of the forms clubs play: the new-tournament form's
presets, registering teams of three, and the standings that name the score difference."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils.html import escape

from club.games.models import Game
from club.scoring import rules as core
from club.tournaments.models import Tournament, TournamentTeam
from club.tournaments.services.draw import NOT_OF_THE_SIZE
from club.tournaments.services.teams import TEAM_OF_THREE
from tests.tournaments.test_forms_of_play import NAME, international, played_international
from tests.tournaments.test_views import new_tournament_post

pytestmark = pytest.mark.django_db
NEW = reverse("tournaments:new")


def international_post(**overrides):
    """What the form posts once the 56 International preset has filled it in."""
    data = new_tournament_post(
        name=NAME,
        preset="international",
        team_size="3",
        tables_per_team="12",
        scoring="points",
        doubling_mode="add",
        double_factor="1",
        redouble_factor="2",
        all_pass="no",
        deal_limit="18",
    )
    data.update(overrides)
    return data


def test_the_international_preset_fills_the_form(organiser_client):
    response = organiser_client.get(
        NEW, {"preset": "international", "team_size": "2"}, headers={"HX-Trigger-Name": "preset"}
    )
    form = response.context["form"]
    assert form.initial["team_size"] == 3 and form.initial["scoring"] == "points"
    assert form.initial["deal_limit"] == 18 and form.initial["all_pass"] == "no"
    assert form.initial["doubling_mode"] == "add" and form.initial["double_factor"] == 1
    page = response.text
    assert '<option value="3" selected>' in page  # teams of three
    assert 'name="deal_limit" value="18"' in page


def test_the_kodi_preset_for_teams_of_four_starts_each_with_seven_tables(organiser_client):
    response = organiser_client.get(NEW, {"preset": "kodi", "team_size": "4", "apply": "1"})
    initial = response.context["form"].initial
    assert initial["team_size"] == 4 and initial["kodi"] is True
    assert initial["tables_per_team"] == 7


def test_posting_the_international_settings_stores_them_as_settings(organiser_client):
    response = organiser_client.post(NEW, international_post())
    tournament = Tournament.objects.get()
    assert response.status_code == 302
    assert tournament.rules == core.preset_rules(core.Preset.INTERNATIONAL)
    assert tournament.team_size == 3


@pytest.mark.parametrize(
    "change, field, message",
    [
        ({"deal_limit": ""}, "deal_limit", "needs a deal limit"),
        ({"kodi": "on"}, "kodi", "Kodi is counted in tables"),
        ({"thani_made": "4"}, "thani_failed", "or neither"),
        ({"small_deck": "on"}, "small_deck", "The 32-card deal is for a game of four players"),
    ],
)
def test_a_points_tournament_refuses_settings_it_cannot_play(
    organiser_client, change, field, message
):
    response = organiser_client.post(NEW, international_post(**change))
    assert response.status_code == 200
    assert message in " ".join(response.context["form"].errors[field])
    assert not Tournament.objects.exists()


def test_the_page_of_a_points_tournament_names_its_form_and_the_score_difference(client):
    played_international()
    tournament = Tournament.objects.get()
    page = client.get(tournament.get_absolute_url()).text
    assert "Played as: 56 International, 18 deals a game" in page
    assert 'title="Score difference">Diff</th>' in page and "Net tables" not in page
    # Every player of a team, and each game's points (no one is out on a points sheet).
    # Each player links to their page in the tournament.
    assert re.search(
        r'<a href="[^"]+/players/\d+/">Gita</a> <abbr class="captain"[^>]*>\(c\)</abbr> · '
        r"<a [^>]+>Hari</a> · <a [^>]+>Indu</a>",
        page,
    )
    assert '<span class="game-team winner">Anu &amp; Biju &amp; Chitra <b>5</b></span>' in page
    assert '<span class="game-team">Jacob &amp; Kavya &amp; Latif <b>0</b></span>' in page
    printed = client.get(reverse("tournaments:print_standings", args=[tournament.pk])).text
    assert "Score difference" in printed and "Anu &amp; Biju &amp; Chitra" in printed
    assert "Ties are broken by games won, the score difference" in printed
    projector = client.get(reverse("tournaments:projector", args=[tournament.pk])).text
    assert "Diff" in projector


def test_an_organiser_registers_a_team_of_three_on_the_page(organiser_client):
    tournament = international(teams=[])
    page = organiser_client.get(tournament.get_absolute_url()).text
    assert 'name="third"' in page and 'name="fourth"' not in page
    assert '<option value="3"' not in page  # teams of three play two teams a game
    response = organiser_client.post(
        reverse("tournaments:register", args=[tournament.pk]),
        {"first": "Usha", "second": "Vinod", "third": "Wilson", "name": ""},
    )
    assert response.status_code == 302
    team = TournamentTeam.objects.get().team
    assert [player.name for player in team.players] == ["Usha", "Vinod", "Wilson"]


def test_a_team_without_its_third_player_is_refused_on_the_page(organiser_client):
    tournament = international(teams=[])
    response = organiser_client.post(
        reverse("tournaments:register", args=[tournament.pk]),
        {"first": "Usha", "second": "Vinod", "third": "", "name": ""},
    )
    assert response.status_code == 200
    assert response.context["register_form"].errors["third"]
    assert not TournamentTeam.objects.exists()


def test_a_draw_of_three_teams_a_game_is_refused_for_teams_of_three(organiser_client):
    tournament = international()
    response = organiser_client.post(
        reverse("tournaments:draw", args=[tournament.pk]), {"game_size": "3"}
    )
    assert response.status_code == 200
    assert response.context["draw_form"].errors["game_size"]
    assert not tournament.sittings.exists() and not Game.objects.exists()


def test_the_sitting_page_and_its_score_sheets_seat_teams_of_three(client):
    played_international()
    tournament = Tournament.objects.get()
    page = client.get(reverse("tournaments:sitting", args=[tournament.pk, 1])).text
    assert '<span class="game-team winner">Anu &amp; Biju &amp; Chitra <b>5</b></span>' in page
    assert '<span class="game-team">Dev &amp; Esha &amp; Farid <b>3</b></span>' in page
    sheets = client.get(reverse("tournaments:sitting_sheets", args=[tournament.pk, 1]))
    assert sheets.status_code == 200
    seats = sheets.text.split('<ol class="sheet-seats">')[1].split("</ol>")[0]
    # Seats go T1.p1, T2.p1, T1.p2, T2.p2, T1.p3, T2.p3 at the first table.
    assert [line.split(" <span")[0] for line in seats.strip().split("<li>")[1:]] == [
        "Anu",
        "Dev",
        "Biju",
        "Esha",
        "Chitra",
        "Farid",
    ]
    assert "points" in sheets.context["sheets"][0]["rules"].scoring


@pytest.mark.parametrize(
    "query", [{"preset": "kodi", "team_size": "abc"}, {"preset": "nonsense", "apply": "1"}]
)
def test_a_preset_asked_with_nonsense_still_shows_the_form(organiser_client, query):
    response = organiser_client.get(NEW, query, headers={"HX-Trigger-Name": "preset"})
    assert response.status_code == 200 and 'name="team_size"' in response.text


@pytest.mark.parametrize("team_size", ["9", "1", "three", "2.5"])
def test_a_team_size_the_game_does_not_have_is_refused(organiser_client, team_size):
    response = organiser_client.post(NEW, international_post(team_size=team_size))
    assert response.status_code == 200
    assert response.context["form"].errors["team_size"]
    assert not Tournament.objects.exists()


# --- The admin, where an organiser can type anything --------------------------------


def test_the_admin_refuses_house_rules_the_games_cannot_be_played_by(admin_client):
    from club.tournaments.admin import TournamentAdminForm

    tournament = international()
    url = reverse("admin:tournaments_tournament_change", args=[tournament.pk])
    page = admin_client.get(url)
    assert page.status_code == 200 and "Players in a team" in page.text  # shown, read-only
    base = {
        "name": tournament.name,
        "starts_on": "2026-08-29",
        "status": "draft",
        "tables_per_team": "12",
        "double_factor": "1",
        "redouble_factor": "2",
        "deal_limit": "18",
        "points_scheme": "{}",
    }
    for bands, message in (
        ("[[28, 30, 1, 1]]", "payout"),
        ('[["a", 30, 1, 1]]', "Line 1 of the payout schedule"),
        ("[[28, 39, 1, 2], [40, 56]]", "Line 2 of the payout schedule"),
        ('{"28": 1}', "Line 1 of the payout schedule"),
    ):
        form = TournamentAdminForm({**base, "payout_bands": bands}, instance=tournament)
        assert not form.is_valid()
        assert message in " ".join(form.non_field_errors())
    form = TournamentAdminForm(
        {**base, "payout_bands": "[]", "deal_limit": ""}, instance=tournament
    )
    assert not form.is_valid() and "needs a deal limit" in " ".join(form.non_field_errors())
    assert TournamentAdminForm({**base, "payout_bands": "[]"}, instance=tournament).is_valid()


def test_the_admin_adds_only_teams_of_the_tournaments_size():
    from club.games.models import Team
    from club.games.services import TeamEntry, find_or_add_player, find_or_add_team
    from club.tournaments.admin import TournamentTeamForm

    tournament = international()
    pair = find_or_add_team(TeamEntry("Usha", "Vinod"), *map(find_or_add_player, ("Usha", "Vinod")))
    form = TournamentTeamForm({"team": pair.pk}, instance=TournamentTeam(tournament=tournament))
    assert not form.is_valid()
    assert form.errors["team"] == [TEAM_OF_THREE]
    three = Team.objects.exclude(third_player=None).exclude(
        tournament_entries__tournament=tournament
    )
    assert not three.exists()  # every team of three is registered already


def test_a_team_of_another_size_slipped_in_is_named_when_the_sitting_is_drawn(organiser_client):
    from club.games.services import TeamEntry, find_or_add_player, find_or_add_team

    tournament = international()
    pair = find_or_add_team(TeamEntry("Usha", "Vinod"), *map(find_or_add_player, ("Usha", "Vinod")))
    TournamentTeam.objects.create(tournament=tournament, team=pair)  # as the admin once could
    response = organiser_client.post(
        reverse("tournaments:draw", args=[tournament.pk]), {"game_size": "2"}
    )
    assert response.status_code == 200
    assert escape(NOT_OF_THE_SIZE % {"team": "Usha & Vinod"}) in response.text
    assert not tournament.sittings.exists() and not Game.objects.exists()


def test_settings_the_rules_refuse_do_not_break_the_public_page(client):
    tournament = international()
    Tournament.objects.filter(pk=tournament.pk).update(payout_bands=[[28, 30, 1, 1]])
    page = client.get(tournament.get_absolute_url())
    assert page.status_code == 200 and "Played as" not in page.text
