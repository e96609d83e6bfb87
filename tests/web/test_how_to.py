"""The short "How to" inside the app: the scorer's on the scorer's page while the game is
played, the organiser's beside the tournament's next step; in the reader's language."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

from club.games.links import issue_links
from club.games.services import end_game
from tests.factories import start_game
from tests.tournaments.helpers import make_tournament

pytestmark = pytest.mark.django_db


def test_the_scorer_finds_how_to_enter_a_deal_until_the_game_is_over(client):
    game = start_game(2, label="Friday table 1")
    [link] = issue_links(game=game)
    url = reverse("games:scorer", args=[link.token])
    page = client.get(url).text
    assert "How to enter a deal" in page
    assert "the deal waits on this phone" in page
    client.cookies["django_language"] = "ml"
    malayalam = client.get(url).text
    del client.cookies["django_language"]
    assert "How to enter a deal" not in malayalam
    with translation.override("ml"):
        assert translation.gettext("How to enter a deal") in malayalam
    end_game(game=game)
    assert "How to enter a deal" not in client.get(url).text


def test_the_organiser_finds_how_a_night_runs_beside_the_next_step(organiser_client):
    tournament = make_tournament(teams=0)
    page = organiser_client.get(tournament.get_absolute_url()).text
    assert "How a club night runs" in page
    # Open while the first step is registering the teams.
    assert '<details class="how-to" open>' in page
    organiser_client.logout()
    page = organiser_client.get(tournament.get_absolute_url()).text
    assert "How a club night runs" not in page
