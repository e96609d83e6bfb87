"""Every figure of both leaderboards against hand counts on the club of conftest.py."""

import datetime

import pytest
from django.urls import reverse

from club.games.models import Team
from club.leaderboards.figures import FIELDS
from club.leaderboards.forms import END_BEFORE_START
from club.leaderboards.models import PlayerRating
from club.leaderboards.selectors import Filters, player_board, team_board
from club.scoring import ratings
from club.tournaments.models import Sitting, SittingGame, Tournament

# The figures of table games, which the club below plays: the hand counts' columns.
TABLE_FIGURES = tuple(
    name for name in FIELDS if not name.startswith(("points", "sessions", "kodis"))
)


def figures(rows):
    return {row.name: tuple(getattr(row, name) for name in TABLE_FIGURES) for row in rows}


# Over the finished games A, B and C (game D is in progress and never counts).
#            played won declared made dbl-won dbl-lost rdbl-won rdbl-lost net biggest
PLAYERS_ALL = {
    # A: won, declared 30♥ doubled and made (+2, then +2 from Dev's failed 40);
    # B: won (-2 on the all pass, then +6 from Chitra's failed redouble); C: out 2nd (-2).
    "Anu": (3, 2, 1, 1, 1, 0, 1, 0, 6, 30),
    # Anu's partner: the same seats and results, but declared nothing.
    "Biju": (3, 2, 0, 0, 1, 0, 1, 0, 6, None),
    # A: -2 -2; B: +2 -6; C: -2. Declared the failed redoubled 29♣ in B.
    "Chitra": (3, 0, 1, 0, 0, 1, 0, 1, -10, None),
    # Dev declared the failed 40♠ in A.
    "Dev": (3, 0, 1, 0, 0, 1, 0, 1, -10, None),
    # C only: Esha's 48 NT made, +2 from each of the two other teams.
    "Esha": (1, 1, 1, 1, 0, 0, 0, 0, 4, 48),
    "Farid": (1, 1, 0, 0, 0, 0, 0, 0, 4, None),
}
TEAMS_ALL = {
    # Declared: Anu's 30♥ (made) and B's all pass (contracted, failed); biggest bid made 30.
    "Anu & Biju": (3, 2, 2, 1, 1, 0, 1, 0, 6, 30),
    # Declared: Dev's 40♠ and Chitra's 29♣, both failed.
    "Chitra & Dev": (3, 0, 2, 0, 0, 1, 0, 1, -10, None),
    "Esha & Farid": (1, 1, 1, 1, 0, 0, 0, 0, 4, 48),
}


def test_player_figures_match_hand_counts(club):
    assert figures(player_board(Filters())) == PLAYERS_ALL


def test_team_figures_match_hand_counts(club):
    assert figures(team_board(Filters())) == TEAMS_ALL


def test_win_share_and_made_share(club):
    rows = {row.name: row for row in player_board(Filters())}
    assert rows["Anu"].win_share == pytest.approx(2 / 3)
    assert rows["Anu"].win_percent == 67
    assert rows["Chitra"].win_share == 0
    assert rows["Esha"].win_percent == 100
    teams = {row.name: row for row in team_board(Filters())}
    assert teams["Anu & Biju"].made_share == pytest.approx(1 / 2)


def test_tables_net_sums_to_zero(club):
    # Tables are never created or destroyed, so the teams' nets cancel out.
    assert sum(row.tables_net for row in team_board(Filters())) == 0


def test_ratings_are_the_stored_ones_and_teams_have_their_own(club):
    stored = {r.player.name: r.rating for r in PlayerRating.objects.select_related("player")}
    rows = {row.name: row for row in player_board(Filters())}
    assert {name: row.rating for name, row in rows.items()} == pytest.approx(stored)
    # Each team is rated as one side, in the order the games finished (A, B, C):
    # A and B, Anu & Biju first and Chitra & Dev second; C, Esha & Farid first and the
    # other two out together, second.
    ab, cd, ef = (Team.objects.get(name=name).pk for name in TEAMS_ALL)
    games = [
        ratings.RatedGame(game=1, teams=[[ab], [cd]], places=[1, 2]),
        ratings.RatedGame(game=2, teams=[[ab], [cd]], places=[1, 2]),
        ratings.RatedGame(game=3, teams=[[ab], [cd], [ef]], places=[2, 2, 1]),
    ]
    expected = ratings.rate_teams(games)
    teams = {row.name: row for row in team_board(Filters())}
    assert {name: row.rating for name, row in teams.items()} == pytest.approx(
        {name: expected[pk].rating for name, pk in zip(TEAMS_ALL, (ab, cd, ef), strict=True)}
    )
    # Two wins of three rank the pair above the pair that won its only game, and both
    # above the pair that won none; not the mean of the players' ratings any more.
    assert teams["Anu & Biju"].rating != pytest.approx((stored["Anu"] + stored["Biju"]) / 2)
    assert teams["Anu & Biju"].rating > teams["Esha & Farid"].rating > 0
    assert teams["Chitra & Dev"].rating < 0


def test_default_sort_is_by_rating_and_other_columns_sort(club):
    rows = player_board(Filters())
    assert [row.rating for row in rows] == sorted((row.rating for row in rows), reverse=True)
    assert [row.rank for row in rows] == list(range(1, 7))
    by_net = player_board(Filters(), sort="tables_net", descending=True)
    # Ties by name: Anu before Biju, Chitra before Dev.
    assert [row.name for row in by_net] == ["Anu", "Biju", "Esha", "Farid", "Chitra", "Dev"]
    by_name = player_board(Filters(), sort="name", descending=False)
    assert [row.name for row in by_name] == ["Anu", "Biju", "Chitra", "Dev", "Esha", "Farid"]
    teams = team_board(Filters(), sort="declared", descending=False)
    assert [row.name for row in teams] == ["Esha & Farid", "Anu & Biju", "Chitra & Dev"]


def test_period_filter_uses_the_games_start_date(club):
    # From 1 February: games B (10 Feb) and C (10 Mar); game A (10 Jan) is left out.
    rows = figures(player_board(Filters(start=datetime.date(2025, 2, 1))))
    assert rows["Anu"] == (2, 1, 0, 0, 0, 0, 1, 0, 2, None)  # B: +4; C: -2
    assert rows["Dev"] == (2, 0, 0, 0, 0, 0, 0, 1, -6, None)  # B: -4; C: -2
    # Up to 10 February, both days included: games A and B.
    rows = figures(team_board(Filters(end=datetime.date(2025, 2, 10))))
    assert rows == {
        "Anu & Biju": (2, 2, 2, 1, 1, 0, 1, 0, 8, 30),
        "Chitra & Dev": (2, 0, 2, 0, 0, 1, 0, 1, -8, None),
    }
    # Just 10 March: game C.
    day = datetime.date(2025, 3, 10)
    assert figures(team_board(Filters(start=day, end=day))) == {
        "Anu & Biju": (1, 0, 0, 0, 0, 0, 0, 0, -2, None),
        "Chitra & Dev": (1, 0, 0, 0, 0, 0, 0, 0, -2, None),
        "Esha & Farid": (1, 1, 1, 1, 0, 0, 0, 0, 4, 48),
    }
    # Nothing in 2024.
    assert player_board(Filters(end=datetime.date(2024, 12, 31))) == []


def _tournament(name, *games):
    tournament = Tournament.objects.create(name=name, starts_on=datetime.date(2025, 2, 1))
    sitting = Sitting.objects.create(
        tournament=tournament, number=1, status=Sitting.Status.CONFIRMED
    )
    for position, game in enumerate(games):
        SittingGame.objects.create(
            sitting=sitting, game=game, table_label=f"T{position + 1}", position=position
        )
    return tournament


def test_tournament_filter_counts_only_its_sittings_games(club):
    spring = _tournament("Spring cup", club["B"], club["C"])
    _tournament("Other cup", club["A"])
    rows = figures(player_board(Filters(tournament=spring.pk)))
    assert rows["Chitra"] == (2, 0, 1, 0, 0, 0, 0, 1, -6, None)  # B: -4; C: -2
    assert rows["Esha"] == (1, 1, 1, 1, 0, 0, 0, 0, 4, 48)
    teams = figures(team_board(Filters(tournament=spring.pk)))
    assert teams["Anu & Biju"] == (2, 1, 1, 0, 0, 0, 1, 0, 2, None)
    # With the period as well: only game C is in March.
    rows = figures(player_board(Filters(tournament=spring.pk, start=datetime.date(2025, 3, 1))))
    assert rows["Anu"] == (1, 0, 0, 0, 0, 0, 0, 0, -2, None)


def test_board_pages_show_the_figures_to_anyone(client, club):
    response = client.get(reverse("leaderboards:player_board"))
    assert response.status_code == 200
    rows = {row.name: row for row in response.context["rows"]}
    assert rows["Esha"].biggest_bid == 48
    assert b"Esha" in response.content
    response = client.get(reverse("leaderboards:team_board"), {"sort": "tables_net"})
    assert [row.name for row in response.context["rows"]] == [
        "Anu & Biju",
        "Esha & Farid",
        "Chitra & Dev",
    ]


def test_board_page_filters_and_bad_input(client, club):
    spring = _tournament("Spring cup", club["C"])
    response = client.get(
        reverse("leaderboards:team_board"), {"tournament": spring.pk, "sort": "played"}
    )
    assert [row.name for row in response.context["rows"]] == [
        "Anu & Biju",
        "Chitra & Dev",
        "Esha & Farid",
    ]
    # An end before the start is named, not a 500; all games are shown meanwhile.
    response = client.get(
        reverse("leaderboards:player_board"), {"start": "2025-03-01", "end": "2025-02-01"}
    )
    assert response.status_code == 200
    assert str(END_BEFORE_START) in response.content.decode()
    assert len(response.context["rows"]) == 6
    for bad in ({"start": "yesterday"}, {"tournament": "x"}, {"sort": "evil"}, {"order": "up"}):
        assert client.get(reverse("leaderboards:player_board"), bad).status_code == 200


def test_live_poll_answers_204_until_the_results_change(client, club):
    url = reverse("leaderboards:player_board")
    version = client.get(url).context["live_version"]
    assert client.get(url, {"version": version}, headers={"HX-Request": "true"}).status_code == 204
    from club.leaderboards.services.ratings import rebuild_ratings

    rebuild_ratings()
    response = client.get(url, {"version": version}, headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert b'data-live-url="' in response.content
    assert b"<html" not in response.content
