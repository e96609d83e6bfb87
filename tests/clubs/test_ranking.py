"""The federation's ranking: one rating list over every club's rated games, filtered by
club, with a minimum of rated games to be listed."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from club.clubs import known
from club.clubs.models import Club
from club.games.services import TeamEntry, create_game, end_game, record_deal
from club.leaderboards.models import PlayerRating
from tests.factories import deal


@pytest.fixture
def gulf(db):
    return Club.objects.create(name="Gulf 56", slug="gulf")


def _played(club, label: str, pairs, winner: str) -> None:
    game = create_game(
        label=label,
        teams=[TeamEntry(*pair) for pair in pairs],
        first_dealer=0,
        club=club,
        same_people={"anu"},  # one Anu plays at both clubs, as the organiser said
    )
    record_deal(game=game, number=1, entry=deal(game, {0: 30, 1: 26}, winner, 28))
    end_game(game=game)


@pytest.fixture
def federation(gulf, settings):
    settings.CLUB_RANKING_MIN_GAMES = 2
    home = known.home()
    for number in range(2):
        _played(home, f"Home {number}", [("Anu", "Biju"), ("Chitra", "Dev")], "Anu")
        _played(gulf, f"Gulf {number}", [("Anu", "Rashid"), ("Salim", "Tariq")], "Anu")
    _played(gulf, "Gulf once", [("Omar", "Yusuf"), ("Salim", "Tariq")], "Omar")
    return home, gulf


def _listed(client, **query) -> list[str]:
    response = client.get("/ranking/", query)
    assert response.status_code == 200
    return [row["player"].name for row in response.context["rows"]]


def test_the_ranking_is_every_clubs_rated_players_highest_first(client, federation):
    names = _listed(client)
    expected = list(
        PlayerRating.objects.filter(games__gte=2)
        .order_by("-rating", "player__name")
        .values_list("player__name", flat=True)
    )
    assert names == expected
    assert "Anu" in names and "Rashid" in names and "Chitra" in names
    assert "Omar" not in names  # one rated game: under the minimum
    # Anu plays in both clubs: one line, her rating counting every club's games.
    assert names.count("Anu") == 1
    assert PlayerRating.objects.get(player__name="Anu").games == 4


def test_the_ranking_of_one_club_is_its_players(client, federation):
    gulf_names = _listed(client, club="gulf")
    assert set(gulf_names) == {"Anu", "Rashid", "Salim", "Tariq"}
    home_names = _listed(client, club="club")
    assert set(home_names) == {"Anu", "Biju", "Chitra", "Dev"}
    assert _listed(client, club="nowhere") == _listed(client)  # an unknown club: every club


def test_the_ranking_costs_the_same_for_more_players(client, federation, settings):
    def queries() -> int:
        from django.core.cache import caches

        caches["pages"].clear()
        with CaptureQueriesContext(connection) as captured:
            assert client.get("/ranking/", {"club": "gulf"}).status_code == 200
        return len(captured)

    before = queries()
    for number in range(3):
        _played(known.home(), f"More {number}", [("Eve", "Fay"), ("Gus", "Hal")], "Eve")
        _played(known.home(), f"Again {number}", [("Eve", "Fay"), ("Gus", "Hal")], "Gus")
    assert queries() == before


def test_the_ranking_is_the_sites_page_on_a_site_of_several_clubs(client, federation):
    assert client.get("/ranking/").wsgi_request.club is None
    page = client.get("/ranking/").content.decode()
    assert 'href="/clubs/gulf/players/' in page  # a player of Gulf only links to Gulf's page


def test_the_api_serves_the_ranking(client, federation):
    answer = client.get("/clubs/gulf/api/v1/ranking/", {"club": "gulf"})
    assert answer.status_code == 200
    body = answer.json()
    assert body["minimum_games"] == 2
    assert {row["name"] for row in body["results"]} == {"Anu", "Rashid", "Salim", "Tariq"}
    anu = next(row for row in body["results"] if row["name"] == "Anu")
    assert sorted(anu["clubs"]) == ["club", "gulf"] and anu["games"] == 4
    assert [row["rank"] for row in body["results"]] == list(range(1, 5))
    everyone = client.get("/clubs/gulf/api/v1/ranking/").json()
    assert [row["name"] for row in everyone["results"]] == _listed(client)
    refused = client.get("/clubs/gulf/api/v1/ranking/", {"club": "Not A Slug!"})
    assert refused.status_code == 422


def test_a_clubs_menu_opens_the_ranking_of_its_players_with_the_way_back(client, federation):
    club_page = client.get("/clubs/gulf/").content.decode()
    assert 'href="/ranking/?club=gulf"' in club_page
    page = client.get("/ranking/", {"club": "gulf"}).content.decode()
    assert '<a href="/clubs/gulf/">Back to Gulf 56</a>' in page
    assert '<option value="gulf" selected>' in page
    # The federation's whole list is one choice away, and has no way back to a club.
    assert "Back to" not in client.get("/ranking/").content.decode()
