"""Each form of play speaks its own words: a points sheet counts points, a kodi night
places by kodis, a table game by the tables held (club.games.words decides them)."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse
from django.utils.html import escape

from club.archive.tournament_export import export_tournament_csv
from club.games import services
from club.games.services import Deal, TeamEntry, create_game
from club.scoring import rules as core
from tests.factories import deal, start_game
from tests.tournaments.test_forms_of_play import contract, first_sitting, game_of, international

pytestmark = pytest.mark.django_db


def points_game():
    game = create_game(
        label="Sheet",
        teams=[TeamEntry("Anu", "Biju", "", "Chitra"), TeamEntry("Dev", "Esha", "", "Farid")],
        first_dealer=0,
        rules=core.preset_rules(core.Preset.INTERNATIONAL),
    )
    anu = 0  # her seat, in play order
    entry = Deal(points={0: 30, 1: 26}, declarer=anu, bid=28, trump="hearts")
    services.record_deal(game=game, number=1, entry=entry)  # made: Anu's team scores 1
    return game


def scoreboard(page: str) -> str:
    return page[page.index('<section class="scoreboard"') : page.index("</section>")]


def test_a_points_sheet_counts_points_and_a_table_game_tables(organiser_client):
    sheet = organiser_client.get(points_game().get_absolute_url()).text
    assert '<span class="unit">point</span>' in scoreboard(sheet)  # 1 point
    assert '<span class="unit">points</span>' in scoreboard(sheet)  # 0 points
    assert "The higher total wins, equal totals share a place." in sheet  # calling time
    assert "placed by the tables they hold" not in sheet

    table = start_game(2, rules=core.Rules(tables_per_team=2))
    services.record_deal(game=table, number=1, entry=deal(table, {0: 30, 1: 26}, "Anu", 28))
    page = organiser_client.get(table.get_absolute_url()).text
    assert '<span class="unit">table</span>' in scoreboard(page)  # 1 table left
    assert '<span class="unit">tables</span>' in scoreboard(page)  # 3 tables
    assert escape("Teams still playing are placed by the tables they hold.") in page


def test_a_kodi_night_is_placed_by_its_kodis_when_time_is_called(organiser_client):
    game = start_game(2, rules=core.preset_rules(core.Preset.KODI, 4))
    services.record_deal(game=game, number=1, entry=deal(game, {0: 30, 1: 26}, "Anu", 28))
    page = organiser_client.get(game.get_absolute_url()).text
    assert escape("End the game now? Fewest kodis first, then most tables held.") in page


def test_time_called_on_a_points_sitting_says_how_points_place_the_teams(organiser_client):
    tournament = international()
    sitting = first_sitting(tournament)
    for team in ("Anu & Biju & Chitra", "Gita & Hari & Indu"):  # a deal at each table
        game = game_of(sitting, team)
        services.record_deal(game=game, number=1, entry=contract(game, team, 28, 30))
    sitting_page = organiser_client.get(
        reverse("tournaments:sitting", args=[tournament.pk, sitting.number])
    ).text
    assert "End every game of this sitting still being played? The higher total wins" in (
        sitting_page
    )
    answer = organiser_client.post(
        reverse("tournaments:call_time", args=[tournament.pk, sitting.number]), follow=True
    )
    assert "Time called: 2 games ended; the higher total wins, equal totals share a place." in (
        answer.text
    )


def test_a_points_tournaments_deals_csv_names_its_column_points_after():
    tournament = international()
    sitting = first_sitting(tournament)
    game = game_of(sitting, "Anu & Biju & Chitra")
    services.record_deal(game=game, number=1, entry=contract(game, "Anu & Biju & Chitra", 28, 30))
    header = next(csv.reader(io.StringIO(export_tournament_csv(tournament, "deals"))))
    assert "points_after" in header and "tables_after" not in header
    rows = list(csv.DictReader(io.StringIO(export_tournament_csv(tournament, "deals"))))
    mine = next(row for row in rows if row["team"] == "Anu & Biju & Chitra")
    assert mine["points_after"] == "1"


def test_a_score_sheet_heads_each_teams_count_by_its_form(organiser_client):
    printed = organiser_client.get(reverse("games:sheet", args=[points_game().pk])).text
    assert "Points after" in printed and "Tables after" not in printed
    game = start_game(2, first_dealer=0, label="A table game")
    printed = organiser_client.get(reverse("games:sheet", args=[game.pk])).text
    assert "Tables after" in printed and "Points after" not in printed
