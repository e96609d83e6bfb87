"""A page offers only what can be done: a game whose tournament's results are final shows
no Undo and no Correct (the services refuse them), and a finished game no deal form."""

from __future__ import annotations

import pytest

from club.games import services
from club.tournaments import services as tournament_services
from tests.archive.test_tournament_archive import build
from tests.factories import deal, start_game

pytestmark = pytest.mark.django_db


def offers(client, game) -> dict[str, bool]:
    page = client.get(game.get_absolute_url()).content.decode()
    return {
        "undo": "Undo deal" in page,
        "correct": f"/games/{game.pk}/deals/1/edit/" in page,
        "record": "Record deal" in page,
    }


def test_a_final_tournaments_games_offer_no_undo_and_no_correction(organiser_client):
    tournament = build()
    game = tournament.sittings.order_by("number").first().games.order_by("pk").first().game
    tournament_services.finish_tournament(tournament=tournament)
    assert offers(organiser_client, game) == {"undo": True, "correct": True, "record": False}

    tournament_services.make_final(tournament=tournament)
    assert offers(organiser_client, game) == {"undo": False, "correct": False, "record": False}


def test_a_game_in_play_offers_everything_and_a_finished_one_no_deal_form(organiser_client):
    game = start_game(2)
    services.record_deal(game=game, number=1, entry=deal(game, {0: 30, 1: 26}, "Anu", 28))
    assert offers(organiser_client, game) == {"undo": True, "correct": True, "record": True}
    services.end_game(game=game)
    assert offers(organiser_client, game) == {"undo": True, "correct": True, "record": False}
