"""The maintained figures and the step-by-step ratings against recomputation from the deals.

Every write that touches a finished game keeps the leaderboard figures and the
ratings up to date in its own transaction. These tests take the club through
finishing, correcting, undoing, ending early, merging and deleting, and after
every step compare what is stored with a recomputation from scratch: the
board counted straight from the deals (correlated subqueries), and the
ratings rated afresh from every finished game in order.
"""

import datetime

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from club.clubs.models import Club
from club.games.models import Game, GameTeam, Player, Team
from club.games.services import (
    Deal,
    TeamEntry,
    create_game,
    edit_deal,
    end_game,
    record_deal,
    undo_last_deal,
)
from club.leaderboards import figures, profile, selectors
from club.leaderboards.merge import merge_players
from club.leaderboards.models import PlayerRating, PlayerTotals, RatingChange, TeamTotals
from club.leaderboards.selectors import Filters, player_board, team_board
from club.leaderboards.services.ratings import rated_games
from club.scoring import ratings
from club.scoring import rules as core
from club.tournaments.models import Sitting, SittingGame, Tournament
from tests.factories import seat

from .conftest import play
from .form_checks import assert_form_ratings_in_step
from .test_boards import FIELDS


def _from_deals(kind: str, filters: Filters, club: Club | None = None) -> dict:
    """The board counted from the deals, the way it was before figures were kept: ``club``'s
    (its members, or its teams, over its games alone), or every club's when None."""
    if kind == "players":
        queryset, annotations = Player.objects.all(), selectors.player_figures(filters, club)
        if club is not None:
            queryset = queryset.filter(memberships__club=club)
    else:
        queryset, annotations = Team.objects.all(), selectors.team_figures(filters, club)
    return {
        subject.name: tuple(getattr(subject, name) for name in FIELDS)
        for subject in queryset.annotate(**annotations).filter(played__gt=0)
    }


def _kept(kind: str, filters: Filters, club: Club | None = None) -> dict:
    """The club's board (the home club's when None), as the page shows it."""
    board = player_board if kind == "players" else team_board
    return {
        row.name: tuple(getattr(row, name) for name in FIELDS) for row in board(filters, club=club)
    }


def _site(kind: str) -> dict:
    """The federation's figures kept: every side's totals over every club's games."""
    side = "player" if kind == "players" else "team"
    totals = PlayerTotals if kind == "players" else TeamTotals
    return {
        getattr(row, side).name: tuple(getattr(row, name) for name in FIELDS)
        for row in totals.objects.select_related(side).filter(played__gt=0)
    }


FILTERS = [
    Filters(),
    Filters(start=datetime.date(2000, 1, 1)),
    Filters(end=datetime.date(2000, 1, 1)),
]


def _assert_team_ratings_are_a_rating_from_scratch() -> None:
    games = [
        ratings.RatedGame(game=game.game, teams=[[team] for team in teams], places=game.places)
        for game, teams in zip(rated_games(), _teams_of(rated_games()), strict=True)
    ]
    expected = ratings.rate_teams(games)
    stored = {row.team_id: row for row in TeamTotals.objects.all()}
    assert stored.keys() == expected.keys()
    for team, rating in expected.items():
        found = stored[team]
        assert (found.mu, found.sigma, found.rated_games, found.rating) == pytest.approx(
            (rating.mu, rating.sigma, rating.games, rating.rating)
        )


def _teams_of(games) -> list[list[int]]:
    seats = {}
    for game_id, team_id in GameTeam.objects.order_by("position").values_list("game_id", "team_id"):
        seats.setdefault(game_id, []).append(team_id)
    return [seats[game.game] for game in games]


def assert_in_step(extra_filters=()):
    """Stored figures and ratings, the players' and the teams', equal a recomputation from
    the deals: every club's boards its own games', and the federation's every club's."""
    assert figures.drift() == []
    for club in Club.objects.all():
        for filters in (*FILTERS, *extra_filters):
            for kind in ("players", "teams"):
                assert _kept(kind, filters, club) == _from_deals(kind, filters, club), (
                    kind,
                    filters,
                    club.slug,
                )
    for kind in ("players", "teams"):
        assert _site(kind) == _from_deals(kind, Filters()), kind
    _assert_team_ratings_are_a_rating_from_scratch()
    assert_form_ratings_in_step()
    expected, changes = ratings.rate_games(rated_games())
    stored = {r.player_id: (r.mu, r.sigma, r.rating, r.games) for r in PlayerRating.objects.all()}
    assert stored.keys() == expected.keys()
    for player, rating in expected.items():
        assert stored[player] == pytest.approx(
            (rating.mu, rating.sigma, rating.rating, rating.games)
        )
    rows = RatingChange.objects.order_by("position", "game_id", "player_id")
    assert sorted((r.game_id, r.player_id) for r in rows) == sorted(
        (c.game, c.player) for c in changes
    )
    by_key = {(c.game, c.player): c for c in changes}
    order = [game.game for game in rated_games()]
    for row in rows:
        change = by_key[(row.game_id, row.player_id)]
        assert row.position == order.index(row.game_id)
        assert (row.before, row.after) == pytest.approx((change.before, change.after))
        assert (row.mu_after, row.sigma_after) == pytest.approx(
            (change.mu_after, change.sigma_after)
        )


def _win(game, number: int, position: int, declarer: str) -> None:
    """Deal ``number``: the team at ``position`` declares 56 and takes every point."""
    points = dict.fromkeys(range(game.teams.count()), 0)
    points[position] = 56
    record_deal(
        game=game,
        number=number,
        entry=Deal(points=points, declarer=seat(game, declarer), bid=56, trump="spades"),
    )


def turn_game_b(club) -> None:
    """A correction of an older finished game that changes its winner (game B's last deal:
    Chitra's redoubled 29 made), so every game rated after it is rated again."""
    edit_deal(
        game=club["B"],
        number=2,
        entry=Deal(
            points={0: 26, 1: 30},
            declarer=seat(club["B"], "Chitra"),
            bid=29,
            trump="clubs",
            doubling="redouble",
        ),
    )


def test_every_kind_of_change_keeps_figures_and_ratings_in_step(club):
    assert_in_step()
    # Game D finishes: rated on top of the current ratings.
    _win(club["D"], 2, 0, "Biju")
    assert Game.objects.get(pk=club["D"].pk).is_finished
    assert_in_step()

    turn_game_b(club)
    assert Game.objects.get(pk=club["B"].pk).winner.team.name == "Chitra & Dev"
    assert_in_step()

    # Undoing the last deal of a finished game takes it out of the ratings (game A).
    undo_last_deal(game=club["A"], number=2)
    assert not Game.objects.get(pk=club["A"].pk).is_finished
    assert_in_step()
    # ... and calling time on it puts it back, last in the order now.
    end_game(game=club["A"])
    assert rated_games()[-1].game == club["A"].pk
    assert_in_step()

    # A new game with new players, and a merge of one of them into Anu.
    game = create_game(
        label="Game F", teams=[TeamEntry("Anu Menon", "Gita"), TeamEntry("Hari", "Indu")]
    )
    play(game, Deal(points={0: 56, 1: 0}, declarer=seat(game, "Gita"), bid=56, trump="hearts"))
    for number in range(2, 20):
        if Game.objects.get(pk=game.pk).is_finished:
            break
        _win(game, number, 0, "Gita")
    assert_in_step()
    merge_players(keep=Player.objects.get(name="Anu"), fold=Player.objects.get(name="Anu Menon"))
    assert_in_step()
    assert PlayerTotals.objects.get(player__name="Anu").played == 5

    # Deleting a rated game re-rates the games after it; its figures go.
    Game.objects.get(pk=club["B"].pk).delete()
    assert_in_step()
    # Several at once leave gaps in the order; the games after them are rated again.
    Game.objects.filter(pk__in=[club["C"].pk, club["D"].pk]).delete()
    assert_in_step()


def test_a_correction_that_keeps_the_places_rewrites_no_rating(club):
    before = list(RatingChange.objects.order_by("pk").values_list("pk", "after"))
    # Game C's only deal: Esha's 48 no-trumps still made, with 3 more points to spare.
    edit_deal(
        game=club["C"],
        number=1,
        entry=Deal(
            points={0: 0, 1: 3, 2: 53}, declarer=seat(club["C"], "Esha"), bid=48, trump="no-trumps"
        ),
    )
    assert list(RatingChange.objects.order_by("pk").values_list("pk", "after")) == before
    assert_in_step()


def test_finishing_a_game_costs_the_same_however_many_games_went_before(club):
    """The deal that ends a game, with the figures and ratings it moves, at two sizes of club."""
    counts = []
    for size in (0, 6):
        for index in range(size):
            earlier = create_game(
                label=f"Earlier {size}-{index}",
                teams=[TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev")],
                rules=core.Rules(tables_per_team=2),
            )
            _win(earlier, 1, index % 2, "Anu" if index % 2 == 0 else "Chitra")
            assert Game.objects.get(pk=earlier.pk).is_finished
        game = create_game(
            label=f"Measured {size}",
            teams=[TeamEntry("Anu", "Biju"), TeamEntry("Esha", "Farid")],
            rules=core.Rules(tables_per_team=2),
        )
        with CaptureQueriesContext(connection) as captured:
            _win(game, 1, 0, "Anu")
        assert Game.objects.get(pk=game.pk).is_finished
        counts.append(len(captured))
    assert counts[0] == counts[1], counts
    assert_in_step()


def test_tournament_filter_and_pages_read_the_kept_figures(client, club):
    tournament = Tournament.objects.create(name="Spring cup", starts_on=datetime.date(2025, 2, 1))
    sitting = Sitting.objects.create(
        tournament=tournament, number=1, status=Sitting.Status.CONFIRMED
    )
    SittingGame.objects.create(sitting=sitting, game=club["B"], table_label="T1", position=0)
    assert_in_step([Filters(tournament=tournament.pk)])
    SittingGame.objects.filter(game=club["B"]).delete()
    assert_in_step([Filters(tournament=tournament.pk)])
    assert player_board(Filters(tournament=tournament.pk)) == []


def test_the_board_is_paged_and_ranks_run_on(client, club, monkeypatch):
    monkeypatch.setattr(selectors, "PER_PAGE", 4)
    url = reverse("leaderboards:player_board")
    first = client.get(url, {"sort": "name", "order": "asc"})
    second = client.get(url, {"sort": "name", "order": "asc", "page": 2})
    names = [row.name for row in first.context["rows"]] + [
        row.name for row in second.context["rows"]
    ]
    assert names == ["Anu", "Biju", "Chitra", "Dev", "Esha", "Farid"]
    assert [row.rank for row in second.context["rows"]] == [5, 6]
    page = second.content.decode()
    assert "Page 2 of 2 (6 in all)" in page
    assert 'rel="prev"' in page and 'rel="next"' not in page
    # A page past the end shows the last page; a page that is not a number, the first.
    assert client.get(url, {"page": 99}).context["board"].page == 2
    assert client.get(url, {"page": "x"}).context["board"].page == 1
    # The team board names each pair, linked, joined by one escaped ampersand.
    teams = client.get(reverse("leaderboards:team_board")).content.decode()
    anu = Player.objects.get(name="Anu")
    assert f'<a href="{anu.get_absolute_url()}">Anu</a> &amp; <a href=' in teams


def test_sorting_breaks_ties_by_name_in_both_directions(club):
    for descending in (True, False):
        rows = player_board(Filters(), sort="played", descending=descending)
        keys = [(row.played, row.name) for row in rows]
        expected = sorted(keys, key=lambda key: key[1])
        expected.sort(key=lambda key: key[0], reverse=descending)
        assert keys == expected


def test_rebuild_leaderboards_command_checks_and_repairs(club, capsys):
    call_command("rebuild_leaderboards", "--check")
    assert "The figures match the deals" in capsys.readouterr().out
    PlayerTotals.objects.filter(player__name="Anu").update(won=99)
    with pytest.raises(CommandError, match="1 stored figures differ"):
        call_command("rebuild_leaderboards", "--check")
    call_command("rebuild_leaderboards")
    assert "Figures of 3 finished games" in capsys.readouterr().out
    assert PlayerTotals.objects.get(player__name="Anu").won != 99
    assert_in_step()


def test_profile_lists_the_latest_games_only(client, club, monkeypatch):
    monkeypatch.setattr(profile, "PROFILE_GAMES", 2)
    anu = Player.objects.get(name="Anu")
    response = client.get(anu.get_absolute_url())
    assert len(response.context["games"]) == 2
    assert response.context["games_count"] == 4
    assert "Page 1 of 2 (4 in all)" in response.content.decode()
    second = client.get(anu.get_absolute_url(), {"page": "2"})
    assert len(second.context["games"]) == 2 and second.context["games_page"].number == 2
    assert second.context["form"] == response.context["form"]  # the latest, on every page
    assert response.context["figures"].played == 3
