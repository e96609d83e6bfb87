"""The API at a club's address is that club's (club/api).

Two clubs, each with a finished game and a tournament: the home club (Anu & Biju v
Chitra & Dev) and Gulf 56 (Anu & Esha v Gita & Hari); Anu is a player of both. At
/clubs/<slug>/api/v1/ every list holds the club's own games, tournaments, players and
boards' sides, and another club's game, tournament, player or team is 404 there, in the
same words as an id nobody has.
"""

from __future__ import annotations

import datetime

import pytest

from club.clubs import known
from club.clubs.addresses import reverse_in
from club.clubs.models import Club
from club.games.models import Game, Player, Team
from club.games.services import TeamEntry, create_game, end_game, record_deal
from club.tournaments.models import Tournament
from tests.api.test_api import get
from tests.factories import deal, start_game

pytestmark = pytest.mark.django_db

PLAYERS = {"home": ["Anu", "Biju", "Chitra", "Dev"], "gulf": ["Anu", "Esha", "Gita", "Hari"]}
TEAMS = {"home": ["Anu & Biju", "Chitra & Dev"], "gulf": ["Anu & Esha", "Gita & Hari"]}


def _finished(game, declarer: str) -> Game:
    record_deal(game=game, number=1, entry=deal(game, {0: 40, 1: 16}, declarer, 40))
    end_game(game=game)
    game.refresh_from_db()
    return game


@pytest.fixture
def clubs():
    home = known.home()
    gulf = Club.objects.create(name="Gulf 56", slug="gulf")
    gulf_game = create_game(
        label="Gulf table",
        teams=[TeamEntry("Anu", "Esha"), TeamEntry("Gita", "Hari")],
        first_dealer=0,
        club=gulf,
    )
    day = datetime.date(2025, 7, 5)
    return {
        "home": home,
        "gulf": gulf,
        "game": {
            "home": _finished(
                start_game(2, label="Home table", club=home, same_people={"anu"}), "Anu"
            ),
            "gulf": _finished(gulf_game, "Gita"),
        },
        "tournament": {
            "home": Tournament.objects.create(name="Onam Cup", starts_on=day, club=home),
            "gulf": Tournament.objects.create(name="Gulf Cup", starts_on=day, club=gulf),
        },
    }


def _url(clubs, club: str, name: str, **kwargs) -> str:
    return reverse_in(clubs[club], f"api:{name}", kwargs=kwargs or None)


OTHER = {"home": "gulf", "gulf": "home"}


def test_the_index_names_the_clubs_own_addresses(client, clubs):
    index = get(client, _url(clubs, "gulf", "index"))
    assert index["games"] == "/clubs/gulf/api/v1/games/"
    assert index["player_board"] == "/clubs/gulf/api/v1/leaderboards/players/"


@pytest.mark.parametrize("club", ["home", "gulf"])
def test_every_list_is_the_clubs_own(client, clubs, club):
    games = get(client, _url(clubs, club, "games"))["results"]
    assert [game["id"] for game in games] == [clubs["game"][club].pk]
    assert games[0]["page"] == reverse_in(clubs[club], "games:detail", args=[games[0]["id"]])
    tournaments = get(client, _url(clubs, club, "tournaments"))["results"]
    assert [t["name"] for t in tournaments] == [clubs["tournament"][club].name]
    players = get(client, _url(clubs, club, "players"))["results"]
    assert [player["name"] for player in players] == PLAYERS[club]
    board = get(client, _url(clubs, club, "player_board"))["results"]
    assert sorted(row["name"] for row in board) == PLAYERS[club]
    # Each club's board counts its own games: Anu played one at each club.
    assert next(row["played"] for row in board if row["name"] == "Anu") == 1
    teams = get(client, _url(clubs, club, "team_board"))["results"]
    assert sorted(row["name"] for row in teams) == TEAMS[club]


def test_a_player_of_both_clubs_is_at_each_with_that_clubs_games(client, clubs):
    anu = Player.objects.get(name="Anu").pk
    for club in ("home", "gulf"):
        answer = get(client, _url(clubs, club, "player", pk=anu))
        assert [game["game"] for game in answer["games"]] == [clubs["game"][club].pk]
        assert answer["games"][0]["url"] == _url(clubs, club, "game", pk=clubs["game"][club].pk)
        assert answer["figures"]["played"] == 2  # her own figures: every club's games


@pytest.mark.parametrize("club", ["home", "gulf"])
def test_another_clubs_objects_are_404_here(client, clubs, club):
    other = OTHER[club]
    stranger = Player.objects.get(name="Biju" if other == "home" else "Esha")
    their_team = Team.objects.get(name=TEAMS[other][1])
    missing = {
        "game": ({"pk": clubs["game"][other].pk}, "No game has this id."),
        "tournament": ({"pk": clubs["tournament"][other].pk}, "No tournament has this id."),
        "player": ({"pk": stranger.pk}, "No player has this id."),
        "team": ({"pk": their_team.pk}, "No team has this id."),
    }
    for name, (kwargs, words) in missing.items():
        for _again in range(2):  # a 404 is not kept
            response = client.get(_url(clubs, club, name, **kwargs))
            assert response.status_code == 404, name
            assert response.json() == {"detail": words}
        # ... and the same object is there at its own club's address.
        assert client.get(_url(clubs, other, name, **kwargs)).status_code == 200, name
    their_games = get(client, _url(clubs, club, "games") + f"?player={stranger.pk}")
    assert their_games["results"] == []


def test_a_board_filtered_by_another_clubs_tournament_counts_nothing(client, clubs):
    onam = clubs["tournament"]["home"]
    answer = get(client, _url(clubs, "gulf", "player_board") + f"?tournament={onam.pk}")
    assert (answer["count"], answer["results"]) == (0, [])


def test_a_clubs_answers_cost_what_the_home_clubs_do(rendered_queries, clubs):
    """The club's filter rides on the queries the answers make already (tests/api's
    counts hold at the home club's short addresses)."""
    anu = Player.objects.get(name="Anu").pk
    for name, kwargs in [
        ("games", {}),
        ("tournaments", {}),
        ("players", {}),
        ("player", {"pk": anu}),
        ("player_board", {}),
        ("team_board", {}),
        ("game", "game"),
        ("tournament", "tournament"),
    ]:
        counts = []
        for club in ("home", "gulf"):
            args = {"pk": clubs[kwargs][club].pk} if isinstance(kwargs, str) else kwargs
            counts.append(rendered_queries(_url(clubs, club, name, **args)))
        assert counts[0] == counts[1], name


def test_a_team_at_a_game_being_played_is_the_clubs_at_once(client, clubs):
    """Its answer is the club's from its first game there; the board lists it once a game
    of it is over (as the board's token moves then)."""
    create_game(
        label="Gulf table 2",
        teams=[TeamEntry("Esha", "Hari"), TeamEntry("Anu", "Gita")],
        first_dealer=0,
        club=clubs["gulf"],
    )
    team = Team.objects.get(name="Esha & Hari")
    assert get(client, _url(clubs, "gulf", "team", pk=team.pk))["players"] == ["Esha", "Hari"]
    assert client.get(_url(clubs, "home", "team", pk=team.pk)).status_code == 404
    board = get(client, _url(clubs, "gulf", "team_board"))["results"]
    assert sorted(row["name"] for row in board) == TEAMS["gulf"]
