"""The API's players, teams and leaderboards (club/api/boards.py) say what the boards say.

Each answer is compared with the boards' own reads (club.leaderboards.selectors),
which the pages render: the same sides, figures, ratings and order, for every
filter and sort the page offers; a finished game's figures are there at once
(the work it owes the boards is done before any read); and the queries do not
grow with the club.
"""

from __future__ import annotations

import pytest

from club.games.models import Player, Team
from club.leaderboards import selectors
from club.leaderboards.figures import FIELDS
from club.leaderboards.models import PlayerTotals, TeamTotals
from tests.api.test_api import get
from tests.tournaments.helpers import make_tournament, night

pytestmark = pytest.mark.django_db


@pytest.fixture
def club():
    first = make_tournament("Monsoon Cup", teams=6)
    for seed in (1, 2):
        night(first, seed)
    second = make_tournament("Onam Cup", teams=4)
    night(second, 3)
    return {"first": first, "second": second}


@pytest.mark.parametrize("kind", ["players", "teams"])
@pytest.mark.parametrize("sort", ["rating", "name", "won", "win_share", "tables_net"])
@pytest.mark.parametrize("order", ["desc", "asc"])
def test_a_leaderboard_is_the_boards_own_ranking(client, club, kind, sort, order):
    answer = get(client, f"/api/v1/leaderboards/{kind}/?sort={sort}&order={order}")
    board = selectors.player_board if kind == "players" else selectors.team_board
    rows = board(selectors.Filters(), sort=sort, descending=order == "desc")
    assert [(row["rank"], row["id"], row["name"]) for row in answer["results"]] == [
        (row.rank, row.subject.pk, row.name) for row in rows
    ]
    for given, row in zip(answer["results"], rows, strict=True):
        assert given["rating"] == row.rating
        assert {name: given[name] for name in FIELDS} == {
            name: getattr(row, name) for name in FIELDS
        }
    assert answer["count"] == len(rows)


def test_a_leaderboard_filtered_by_tournament_counts_its_games_only(client, club):
    second = club["second"]
    answer = get(client, f"/api/v1/leaderboards/teams/?tournament={second.pk}")
    rows = selectors.team_board(selectors.Filters(tournament=second.pk))
    assert [row["name"] for row in answer["results"]] == [row.name for row in rows]
    assert len(rows) == 4
    assert sum(row["played"] for row in answer["results"]) == 4  # two games of two teams
    everyone = get(client, "/api/v1/leaderboards/teams/")
    assert everyone["count"] == 6  # the second cup's four pairs played the first too


def test_a_player_and_a_team_carry_their_totals_and_rating(client, club):
    anu = Player.objects.get(name="Anu")
    answer = get(client, f"/api/v1/players/{anu.pk}/")
    totals = PlayerTotals.objects.get(player=anu)
    assert {name: answer["figures"][name] for name in FIELDS} == {
        name: getattr(totals, name) for name in FIELDS
    }
    assert answer["rating"] == anu.rating.rating
    assert answer["games_count"] == 3
    assert [game["status"] for game in answer["games"]] == ["finished"] * 3
    team = Team.objects.get(name="Anu & Biju")
    given = get(client, f"/api/v1/teams/{team.pk}/")
    kept = TeamTotals.objects.get(team=team)
    assert given["players"] == ["Anu", "Biju"]
    assert given["figures"]["rating"] == kept.rating
    assert {name: given["figures"][name] for name in FIELDS} == {
        name: getattr(kept, name) for name in FIELDS
    }
    listed = get(client, "/api/v1/players/?search=anu")
    assert [player["name"] for player in listed["results"]] == ["Anu"]


def test_a_game_that_ends_is_on_the_board_at_once(client, club):
    before = get(client, "/api/v1/leaderboards/players/")
    night(club["second"], 4)
    after = get(client, "/api/v1/leaderboards/players/")
    played = lambda answer: sum(row["played"] for row in answer["results"])  # noqa: E731
    assert played(after) == played(before) + 8  # two more games, of two pairs each


def test_query_counts_do_not_grow_with_the_club(rendered_queries, club):
    anu = Player.objects.get(name="Anu").pk
    team = Team.objects.get(name="Anu & Biju").pk
    urls = [
        "/api/v1/players/",
        f"/api/v1/players/{anu}/",
        f"/api/v1/teams/{team}/",
        "/api/v1/leaderboards/players/",
        f"/api/v1/leaderboards/teams/?tournament={club['first'].pk}",
    ]
    small = [rendered_queries(url) for url in urls]
    for seed in (5, 6, 7):
        night(club["first"], seed)
    assert [rendered_queries(url) for url in urls] == small
    # A player: the key's (the player with the latest change to their games, the ratings'
    # state, the club's token), then the profile's, its page of games with its count and
    # their players' names by key (not the tournaments being played now, which only the
    # page shows); a team board, its page's players' names by key.
    assert small == [3, 8, 5, 5, 6]
