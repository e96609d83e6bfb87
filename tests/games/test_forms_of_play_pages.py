"""The forms of play on the pages: the new-game presets, the deal form, the game."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from club.games.links import issue_links
from club.games.models import Game, Round
from club.games.services import TeamEntry, create_game, load_seating
from club.scoring import rules as core
from club.scoring.rules import Preset, Rules, Thani
from tests.factories import deal_form

pytestmark = pytest.mark.django_db

SETTINGS = {
    "tables_per_team": "12",
    "payout": "28-39: 1 2\n40-47: 2 3\n48-55: 3 4\n56-56: 4 5",
}


def three_a_side(**overrides) -> dict:
    data = {
        "label": "Three against three",
        "players": "6x3",
        "first_dealer": "0",
        "team1_player1": "Anu",
        "team1_player2": "Biju",
        "team1_player3": "Chitra",
        "team2_player1": "Dev",
        "team2_player2": "Esha",
        "team2_player3": "Farid",
        **SETTINGS,
        "preset": "international",
        "scoring": "points",
        "doubling_mode": "add",
        "double_factor": "1",
        "redouble_factor": "2",
        "all_pass": "no",
        "deal_limit": "18",
    }
    data.update(overrides)
    return data


def selected(html: str, name: str) -> str:
    select = re.search(rf'<select name="{name}".*?</select>', html, re.S).group(0)
    return re.search(r'<option value="([^"]*)"[^>]*selected', select).group(1)


def test_choosing_56_international_fills_the_form_with_its_settings(organiser_client):
    response = organiser_client.get(
        reverse("games:new"),
        {"preset": "international", "players": "4", "label": "Finals"},
        HTTP_HX_REQUEST="true",
        HTTP_HX_TRIGGER_NAME="preset",
    )
    html = response.text
    assert selected(html, "players") == "6x3"  # two teams of three
    assert selected(html, "scoring") == "points" and selected(html, "doubling_mode") == "add"
    assert selected(html, "all_pass") == "no"
    assert 'name="deal_limit" value="18"' in html
    assert 'name="team2_player3"' in html and 'name="team3_player1"' not in html
    assert 'value="Finals"' in html  # what was typed stays


def test_a_kodi_night_keeps_two_teams_of_half_the_table(organiser_client):
    html = organiser_client.get(
        reverse("games:new"), {"preset": "kodi", "players": "8", "apply": "1"}
    ).text
    assert selected(html, "players") == "8x4"
    assert 'name="tables_per_team" value="7"' in html
    assert re.search(r'name="kodi"[^>]*checked', html)


def test_a_56_international_game_started_from_the_form_is_played_on_the_sheet(organiser_client):
    response = organiser_client.post(reverse("games:new"), three_a_side())
    game = Game.objects.get()
    assert response.status_code == 302
    assert game.rules == core.preset_rules(Preset.INTERNATIONAL, 6)
    assert [p.name for p in load_seating(game).players] == [
        "Anu",
        "Dev",
        "Biju",
        "Esha",
        "Chitra",
        "Farid",
    ]
    page = organiser_client.get(game.get_absolute_url()).text
    assert "All passed" not in page  # the first bidder must open
    dev = load_seating(game).players[1]
    organiser_client.post(
        reverse("games:record", args=[game.pk]),
        deal_form(1, str(dev.pk), "40", "spades", "double", p0="10", p1="46"),
    )
    game.refresh_from_db()
    assert [t.score for t in game.teams.order_by("position")] == [0, 3]  # 2 + 1 doubled
    page = organiser_client.get(game.get_absolute_url()).text
    assert 'data-team-score="1">3<' in page and "points" in page
    # An all-pass deal is refused in the club's words, and nothing is saved.
    refused = organiser_client.post(
        reverse("games:record", args=[game.pk]), deal_form(2, "pass", p0="30", p1="26")
    )
    assert refused.status_code == 200
    assert Round.objects.filter(game=game).count() == 1


def test_a_points_sheet_without_a_deal_limit_is_refused_on_the_form(organiser_client):
    response = organiser_client.post(
        reverse("games:new"), three_a_side(deal_limit="", preset="custom")
    )
    assert response.status_code == 200
    assert "needs a deal limit" in response.text
    assert not Game.objects.exists()


def test_a_thani_is_recorded_and_corrected_from_the_deal_form(organiser_client):
    game = create_game(
        label="Thani night",
        teams=[TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev")],
        first_dealer=0,
        rules=Rules(thani=Thani(6, 8)),
    )
    chitra = load_seating(game).players[1]
    page = organiser_client.get(game.get_absolute_url()).text
    assert 'name="bid" value="thani"' in page  # the bid pad offers a thani
    # Sent as older pages sent it: the declarer "thani:<player>".
    post = {
        "number": "1",
        "declarer": f"thani:{chitra.pk}",
        "thani_made": "yes",
        "doubling": "none",
    }
    response = organiser_client.post(reverse("games:record", args=[game.pk]), post)
    assert response.status_code == 302
    round_ = Round.objects.get(game=game)
    assert round_.thani and round_.made and round_.bid is None
    assert [t.tables for t in game.teams.order_by("position")] == [6, 18]
    page = organiser_client.get(game.get_absolute_url()).text
    assert "Thani by Chitra" in page
    # Without saying made or failed, nothing is saved.
    missing = {**post, "number": "2", "thani_made": ""}
    response = organiser_client.post(reverse("games:record", args=[game.pk]), missing)
    assert "Say whether the thani was made or failed." in response.text
    assert Round.objects.filter(game=game).count() == 1
    edit = organiser_client.get(reverse("games:edit", args=[game.pk, 1])).text
    assert f'name="declarer" value="{chitra.pk}" data-team="1" checked>' in edit
    assert 'name="bid" value="thani" checked>' in edit
    assert 'name="thani_made" value="yes" checked>' in edit


def test_a_kodi_is_told_on_the_game_page(organiser_client):
    game = create_game(
        label="Kodi",
        teams=[TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev")],
        first_dealer=3,
        rules=core.preset_rules(Preset.KODI, 4),
    )
    anu = load_seating(game).players[0]
    organiser_client.post(
        reverse("games:record", args=[game.pk]),
        deal_form(1, str(anu.pk), "56", "spades", "redouble", p0="56", p1="0"),
    )
    page = organiser_client.get(game.get_absolute_url()).text
    assert "Chitra &amp; Dev ran out of tables and takes a kodi" in page
    assert "1 kodi" in page and "0 kodis" in page


def test_the_deal_of_a_kodi_names_the_team_that_takes_it_once(organiser_client):
    game = create_game(
        label="Kodi",
        teams=[TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev")],
        first_dealer=3,
        rules=core.preset_rules(Preset.KODI, 4),
    )
    anu = load_seating(game).players[0]
    organiser_client.post(
        reverse("games:record", args=[game.pk]),
        deal_form(1, str(anu.pk), "56", "spades", "redouble", p0="56", p1="0"),
    )
    page = organiser_client.get(game.get_absolute_url()).text
    settlement = re.search(r'<section class="card settlement.*?</section>', page, re.S).group(0)
    assert settlement.count("Chitra &amp; Dev") == 1
    assert settlement.count("Anu &amp; Biju") == 1
    assert 'Anu &amp; Biju: <b class="up">+6</b> → 6' in settlement
    assert (
        "Chitra &amp; Dev ran out of tables and takes a kodi: every team starts again with 6 "
        "tables." in settlement
    )


def test_a_kodi_boards_tile_names_a_team_once(client):
    """A team named after its players is not named again under its name; a team with a
    name of its own lists its players."""
    game = create_game(
        label="Kodi board",
        teams=[TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev", name="Night Owls")],
        first_dealer=3,
        rules=core.preset_rules(Preset.KODI, 4),
    )
    page = client.get(game.get_absolute_url()).text
    board = re.search(r'<section class="scoreboard".*?</section>', page, re.S).group(0)
    assert board.count("Anu") == 1 and board.count("Biju") == 1
    assert "Night Owls" in board and "Chitra · Dev" in board


def test_the_rules_page_says_how_a_game_is_played(client):
    game = create_game(
        label="Finals",
        teams=[
            TeamEntry("Anu", "Biju", third="Chitra"),
            TeamEntry("Dev", "Esha", third="Farid"),
        ],
        rules=core.preset_rules(Preset.INTERNATIONAL, 6),
    )
    page = client.get(reverse("games:rules") + f"?game={game.pk}").text
    assert "“Finals” is played as: 56 International" in page
    custom = create_game(
        label="Odd one",
        teams=[TeamEntry("Gita", "Hari"), TeamEntry("Indu", "Joby")],
        rules=Rules(doubling_mode="add", double_factor=1, redouble_factor=2),
    )
    page = client.get(reverse("games:rules") + f"?game={custom.pk}").text
    assert "Custom: Tables, doubling adds, teams of 2 players" in page


def test_a_thani_sent_through_a_teams_link_waits_and_is_confirmed_by_the_other(client):
    game = create_game(
        label="Linked thani",
        teams=[TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev")],
        first_dealer=0,
        rules=Rules(thani=Thani(6, 8)),
        require_confirmation=True,
    )
    ours, theirs = issue_links(game=game)
    chitra = load_seating(game).players[1]
    post = {"number": "1", "declarer": f"thani:{chitra.pk}", "thani_made": "no", "doubling": "none"}
    client.post(reverse("games:scorer_send", args=[theirs.token]), post)
    assert not Round.objects.exists()  # waiting for the other team
    client.post(reverse("games:scorer_confirm", args=[ours.token, 1]))
    round_ = Round.objects.get(game=game)
    assert round_.thani and not round_.made and round_.declarer == chitra
    assert [t.tables for t in game.teams.order_by("position")] == [20, 4]


def three_a_side_game(**rules) -> Game:
    return create_game(
        label="Sheet night",
        teams=[
            TeamEntry("Anu", "Biju", third="Chitra"),
            TeamEntry("Dev", "Esha", third="Farid"),
        ],
        first_dealer=5,
        rules=core.preset_rules(Preset.INTERNATIONAL, 6),
    )


def test_a_later_deal_of_a_points_sheet_can_be_corrected(organiser_client):
    """A team on 0 points is still at the table: the correction asks for every pile."""
    game = three_a_side_game()
    anu = load_seating(game).players[0]
    for number in (1, 2):
        organiser_client.post(
            reverse("games:record", args=[game.pk]),
            deal_form(number, str(anu.pk), "28", "hearts", p0="30", p1="26"),
        )
    edit = organiser_client.get(reverse("games:edit", args=[game.pk, 2])).text
    assert 'name="points_0"' in edit and 'name="points_1"' in edit
    response = organiser_client.post(
        reverse("games:edit", args=[game.pk, 2]),
        deal_form(2, str(anu.pk), "40", "hearts", p0="44", p1="12"),
    )
    assert response.status_code == 302
    assert [t.score for t in game.teams.order_by("position")] == [1 + 2, 0]


def test_the_score_sheet_and_printed_links_show_every_player_of_a_team(organiser_client):
    game = three_a_side_game()
    sheet = organiser_client.get(reverse("games:sheet", args=[game.pk]))
    assert sheet.status_code == 200
    assert "Anu &amp; Biju &amp; Chitra" in sheet.text
    assert "Points sheet: made scores" in sheet.text and "Doubled +1, redoubled +2." in sheet.text
    Game.objects.filter(pk=game.pk).update(require_confirmation=True)  # a link per team
    game.refresh_from_db()
    issue_links(game=game)
    printed = organiser_client.get(reverse("games:links_print", args=[game.pk])).text
    assert "Anu · Biju · Chitra" in printed


def test_three_long_names_make_a_team_name_that_fits(organiser_client):
    long = ["A" * 70, "B" * 70, "C" * 70]
    data = three_a_side(
        label="Long names",
        team1_player1=long[0],
        team1_player2=long[1],
        team1_player3=long[2],
    )
    response = organiser_client.post(reverse("games:new"), data)
    assert response.status_code == 302
    name = Game.objects.get().teams.get(position=0).team.name
    assert len(name) == 170 and name.endswith("…") and name.startswith("A" * 70 + " & ")
