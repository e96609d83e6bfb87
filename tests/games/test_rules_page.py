import pytest
from django.urls import reverse

from club.scoring import rules as core
from tests.factories import start_game

pytestmark = pytest.mark.django_db


def test_the_rules_page_shows_the_default_schedule(client):
    response = client.get(reverse("games:rules"))
    assert response.status_code == 200
    text = response.text
    assert "<td>28–39</td>" in text and "<td>56</td>" in text
    assert "Each team starts the game with 12 tables." in text
    assert "A doubled contract moves 2 times as many tables, a redoubled one 4 times" in text
    assert "J 9 A 10 K Q 8 7" in text  # the 8-player rank order


def test_the_rules_page_follows_a_games_house_rules(client):
    game = start_game(
        2,
        rules=core.Rules(
            tables_per_team=5,
            bands=(core.Band(28, 47, 1, 2), core.Band(48, 56, 3, 5)),
            double_factor=3,
            redouble_factor=9,
        ),
    )
    text = client.get(reverse("games:rules"), {"game": game.pk}).text
    assert "<td>28–47</td>" in text and "<td>48–56</td>" in text
    assert "Each team starts the game with 5 tables." in text
    assert "A doubled contract moves 3 times as many tables, a redoubled one 9 times" in text
    assert game.label in text


def test_the_game_page_links_to_its_rules(client):
    game = start_game(2)
    text = client.get(game.get_absolute_url()).text
    assert f"{reverse('games:rules')}?game={game.pk}" in text


def test_an_unknown_game_gives_the_default_rules(client):
    response = client.get(reverse("games:rules"), {"game": "999999"})
    assert response.status_code == 200
    assert "Each team starts the game with 12 tables." in response.text
