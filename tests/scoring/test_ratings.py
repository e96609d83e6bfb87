"""Tests of the skill ratings: club/scoring/ratings.py (pure Python, no database)."""

import random
import subprocess
import sys
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from club.scoring.ratings import (
    DISPLAY_SCALE,
    RatedGame,
    RatingChange,
    RatingsError,
    displayed,
    rate_games,
    rate_teams,
)
from club.scoring.rules import RulesError

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

POOL = range(1, 13)  # a club of 12 players


@st.composite
def rated_game(draw, game_id: int) -> RatedGame:
    count = draw(st.integers(min_value=2, max_value=4))
    seated = draw(st.permutations(POOL))[: 2 * count]
    teams = tuple((seated[2 * i], seated[2 * i + 1]) for i in range(count))
    places = tuple(draw(st.integers(min_value=1, max_value=count)) for _ in range(count))
    return RatedGame(game=game_id, teams=teams, places=places)


@st.composite
def game_lists(draw, min_size: int = 0, max_size: int = 12) -> list[RatedGame]:
    size = draw(st.integers(min_value=min_size, max_value=max_size))
    return [draw(rated_game(100 + number)) for number in range(size)]


def changes_of(changes: list[RatingChange], game: int) -> dict[int, float]:
    return {
        change.player: change.after - change.before for change in changes if change.game == game
    }


# --- the displayed rating -------------------------------------------------------------------------


def test_a_new_player_shows_zero():
    ratings, changes = rate_games([RatedGame(1, [(1, 2), (3, 4)], [1, 2])])
    assert displayed(25.0, 25.0 / 3) == 0.0
    assert [change.before for change in changes] == [0.0, 0.0, 0.0, 0.0]
    assert {change.player for change in changes} == {1, 2, 3, 4}
    assert all(rating.games == 1 for rating in ratings.values())


def test_no_games_no_ratings():
    assert rate_games([]) == ({}, [])


def test_displayed_rating_is_the_scaled_ordinal():
    ratings, _ = rate_games([RatedGame(1, [(1, 2), (3, 4)], [1, 2])])
    for rating in ratings.values():
        ordinal = rating.mu - 3 * rating.sigma
        assert rating.rating == pytest.approx(DISPLAY_SCALE * ordinal)


def test_ratings_count_games_and_end_where_the_changes_end():
    games = [
        RatedGame(1, [(1, 2), (3, 4)], [1, 2]),
        RatedGame(2, [(1, 3), (2, 5)], [2, 1]),
        RatedGame(3, [(1, 4), (6, 7), (2, 3)], [3, 1, 2]),
    ]
    ratings, changes = rate_games(games)
    assert {player: rating.games for player, rating in ratings.items()} == {
        1: 3,
        2: 3,
        3: 3,
        4: 2,
        5: 1,
        6: 1,
        7: 1,
    }
    assert len(changes) == 4 + 4 + 6
    last = {change.player: change.after for change in changes}
    assert {player: rating.rating for player, rating in ratings.items()} == last
    # Each player's "before" is their "after" from their previous game.
    previous: dict[int, float] = {}
    for change in changes:
        assert change.before == previous.get(change.player, 0.0)
        previous[change.player] = change.after


# --- what results do to ratings -------------------------------------------------------------------


def test_winners_rise_and_losers_fall_in_a_two_team_game():
    _, changes = rate_games([RatedGame(1, [(1, 2), (3, 4)], [2, 1])])
    moved = changes_of(changes, 1)
    assert moved[3] > 0 and moved[4] > 0
    assert moved[1] < 0 and moved[2] < 0
    assert moved[1] == moved[2] and moved[3] == moved[4]


def test_winners_rise_and_losers_fall_for_established_players():
    history = [
        RatedGame(1, [(1, 2), (3, 4)], [1, 2]),
        RatedGame(2, [(1, 3), (2, 4)], [2, 1]),
        RatedGame(3, [(1, 4), (2, 3)], [1, 2]),
    ]
    _, changes = rate_games([*history, RatedGame(4, [(1, 3), (2, 4)], [1, 2])])
    moved = changes_of(changes, 4)
    assert moved[1] > 0 and moved[3] > 0
    assert moved[2] < 0 and moved[4] < 0


def test_an_upset_moves_more_than_an_expected_win():
    strong_weak = [RatedGame(n, [(1, 2), (3, 4)], [1, 2]) for n in range(1, 6)]
    _, expected = rate_games([*strong_weak, RatedGame(9, [(1, 2), (3, 4)], [1, 2])])
    _, upset = rate_games([*strong_weak, RatedGame(9, [(1, 2), (3, 4)], [2, 1])])
    assert changes_of(upset, 9)[3] > changes_of(expected, 9)[1] > 0


def test_a_tie_leaves_equal_teams_equal():
    ratings, changes = rate_games([RatedGame(1, [(1, 2), (3, 4)], [1, 1])])
    assert len({rating.rating for rating in ratings.values()}) == 1
    assert len({rating.mu for rating in ratings.values()}) == 1
    # Equal teams tying teaches nothing about who is better: mu stays put.
    assert all(rating.mu == 25.0 for rating in ratings.values())


def test_a_tie_between_equally_rated_established_teams_keeps_them_equal():
    history = [
        RatedGame(1, [(1, 2), (5, 6)], [1, 2]),
        RatedGame(2, [(3, 4), (7, 8)], [1, 2]),
    ]
    before, _ = rate_games(history)
    assert before[1].rating == before[2].rating == before[3].rating == before[4].rating
    after, _ = rate_games([*history, RatedGame(3, [(1, 2), (3, 4)], [1, 1])])
    assert after[1].rating == after[2].rating == after[3].rating == after[4].rating
    assert after[1].mu == before[1].mu


def test_tied_teams_in_a_four_team_game_move_together():
    _, changes = rate_games([RatedGame(1, [(1, 2), (3, 4), (5, 6), (7, 8)], [1, 2, 2, 4])])
    moved = changes_of(changes, 1)
    assert moved[3] == moved[4] == moved[5] == moved[6]
    assert moved[1] > moved[3] > moved[7]


def test_a_four_team_game_orders_changes_by_place():
    teams = [(1, 2), (3, 4), (5, 6), (7, 8)]
    places = [3, 1, 4, 2]  # teams listed in seating order, not by place
    _, changes = rate_games([RatedGame(1, teams, places)])
    moved = changes_of(changes, 1)
    by_place = [moved[teams[places.index(place)][0]] for place in (1, 2, 3, 4)]
    assert by_place == sorted(by_place, reverse=True)
    assert len(set(by_place)) == 4
    assert by_place[0] > 0 > by_place[3]
    for first, second in teams:
        assert moved[first] == moved[second]


def test_a_three_team_game_orders_changes_by_place():
    _, changes = rate_games([RatedGame(1, [(1, 2), (3, 4), (5, 6)], [2, 3, 1])])
    moved = changes_of(changes, 1)
    assert moved[5] > moved[1] > moved[3]


# --- team rating ----------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [3, 4])
def test_teams_of_three_and_four_are_rated_every_partner_alike(size):
    first = tuple(range(1, size + 1))
    second = tuple(range(size + 1, 2 * size + 1))
    ratings_after, changes = rate_games([RatedGame(1, [first, second], [1, 2])])
    moved = changes_of(changes, 1)
    assert len(moved) == 2 * size
    assert len({moved[p] for p in first}) == 1 and moved[first[0]] > 0
    assert len({moved[p] for p in second}) == 1 and moved[second[0]] < 0
    assert {ratings_after[p].rating for p in first} == {ratings_after[1].rating}


def test_a_team_is_rated_by_its_own_results_not_its_players():
    # Team 7 lost its only game; team 8 won all three of its own, against other teams.
    games = [
        RatedGame(1, [[7], [9]], [2, 1]),
        RatedGame(2, [[8], [10]], [1, 2]),
        RatedGame(3, [[8], [11]], [1, 2]),
        RatedGame(4, [[8], [12]], [1, 2]),
    ]
    rated = rate_teams(games)
    assert rated[8].rating > rated[9].rating > 0 > rated[7].rating
    assert (rated[7].games, rated[8].games) == (1, 3)


def test_a_team_is_rated_as_a_player_alone_would_be():
    # The same model, prior and display: one side of one.
    games = [RatedGame(1, [[1], [2]], [1, 2]), RatedGame(2, [[1], [3], [2]], [3, 1, 1])]
    teams = rate_teams(games)
    with pytest.raises(RatingsError):  # players are rated in teams of two or more
        rate_games(games)
    start = rate_teams(games[:1])
    assert rate_teams(games[1:], start=start) == teams
    assert [teams[team].games for team in (1, 2, 3)] == [2, 2, 1]
    assert teams[3].rating > 0  # first, tied, in its only game


def test_a_team_in_two_places_of_one_game_is_refused():
    with pytest.raises(RatingsError, match="two seats"):
        rate_teams([RatedGame(1, [[1], [1]], [1, 2])])


# --- refused games --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "field", "message"),
    [
        (
            RatedGame(7, [(1, 2)], [1]),
            "teams",
            "A game needs at least 2 teams to be rated, not 1.",
        ),
        (RatedGame(7, [], []), "teams", "A game needs at least 2 teams to be rated, not 0."),
        (
            RatedGame(7, [(1, 2), (3,)], [1, 2]),
            "teams",
            "Each team must have 2 players; team 2 has 1.",
        ),
        (  # teams of three are rated, but every team of a game is one size
            RatedGame(7, [(1, 2, 5), (3, 4)], [1, 2]),
            "teams",
            "Each team must have 3 players; team 2 has 2.",
        ),
        (
            RatedGame(7, [(1, 2), (3, 1)], [1, 2]),
            "teams",
            "A player cannot take two seats in one game.",
        ),
        (
            RatedGame(7, [(1, 1), (3, 4)], [1, 2]),
            "teams",
            "A player cannot take two seats in one game.",
        ),
        (
            RatedGame(7, [(1, 2), (3, 4)], [1]),
            "places",
            "Each of the 2 teams needs a place, not 1 places.",
        ),
        (
            RatedGame(7, [(1, 2), (3, 4)], [1, 0]),
            "places",
            "The place of team 2 must be a whole number from 1 to 2.",
        ),
        (
            RatedGame(7, [(1, 2), (3, 4)], [3, 1]),
            "places",
            "The place of team 1 must be a whole number from 1 to 2.",
        ),
        (
            RatedGame(7, [(1, 2), (3, 4)], [1.5, 1]),
            "places",
            "The place of team 1 must be a whole number from 1 to 2.",
        ),
    ],
)
def test_games_that_cannot_be_rated_are_refused(game, field, message):
    good = RatedGame(1, [(1, 2), (3, 4)], [1, 2])
    with pytest.raises(RatingsError) as raised:
        rate_games([good, game])
    error = raised.value
    assert isinstance(error, RulesError) and isinstance(error, ValueError)
    assert error.game == 7
    assert error.field == field
    assert error.message == message
    assert str(error) == message


def test_the_same_game_twice_is_refused():
    game = RatedGame(5, [(1, 2), (3, 4)], [1, 2])
    with pytest.raises(RatingsError, match="Game 5 is listed twice.") as raised:
        rate_games([game, game])
    assert raised.value.game == 5


def test_refusal_messages_are_translatable_templates():
    with pytest.raises(RatingsError) as raised:
        rate_games([RatedGame(7, [(1, 2), (3,)], [1, 2])])
    error = raised.value
    assert error.template == "Each team must have %(size)d players; %(team)s has %(count)d."
    catalogue = {
        "Each team must have %(size)d players; %(team)s has %(count)d.": (
            "Chaque équipe doit avoir %(size)d joueurs ; %(team)s en a %(count)d."
        ),
    }
    shown = error.translated(lambda text: catalogue.get(text, text), ["Nord", "Sud"])
    assert shown == "Chaque équipe doit avoir 2 joueurs ; Sud en a 1."


def test_the_module_does_not_import_django():
    code = (
        "import sys; import club.scoring.ratings; "
        "sys.exit(any(name.split('.')[0] == 'django' for name in sys.modules))"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


# --- recomputation: deterministic, no drift -------------------------------------------------------


@SETTINGS
@given(games=game_lists())
def test_same_games_same_ratings(games):
    first = rate_games(games)
    second = rate_games(list(games))
    assert first == second
    ratings, changes = first
    assert len(changes) == sum(2 * len(game.teams) for game in games)
    assert set(ratings) == {player for game in games for team in game.teams for player in team}


@SETTINGS
@given(games=game_lists(), data=st.data())
def test_rating_n_games_then_m_more_equals_rating_all_at_once(games, data):
    n = data.draw(st.integers(min_value=0, max_value=len(games)), label="n")
    all_at_once = rate_games(games)

    earlier, earlier_changes = rate_games(games[:n])
    later, later_changes = rate_games(games[n:], start=earlier)
    assert later == all_at_once[0]
    assert earlier_changes + later_changes == all_at_once[1]

    # Without continuing, the first N games still rate exactly as within all N+M.
    assert earlier_changes == all_at_once[1][: len(earlier_changes)]


@SETTINGS
@given(games=game_lists(min_size=1), data=st.data())
def test_correcting_an_early_game_equals_a_fresh_computation(games, data):
    corrected_at = data.draw(st.integers(min_value=0, max_value=len(games) - 1), label="corrected")
    wrong = games[corrected_at]
    count = len(wrong.teams)
    new_places = data.draw(
        st.lists(st.integers(min_value=1, max_value=count), min_size=count, max_size=count),
        label="new places",
    )
    right = RatedGame(wrong.game, wrong.teams, tuple(new_places))
    corrected = [*games[:corrected_at], right, *games[corrected_at + 1 :]]

    before_correction = rate_games(games)
    recomputed = rate_games(corrected)
    # A fresh computation: new objects, nothing shared with the lists rated above.
    fresh = rate_games(
        [
            RatedGame(game.game, [list(team) for team in game.teams], list(game.places))
            for game in corrected
        ]
    )
    assert recomputed == fresh

    # Games before the corrected one are untouched by the correction.
    earlier = sum(2 * len(game.teams) for game in games[:corrected_at])
    assert recomputed[1][:earlier] == before_correction[1][:earlier]
    if tuple(new_places) == tuple(wrong.places):
        assert recomputed == before_correction

    # And undoing the correction restores the original ratings exactly.
    assert rate_games(games) == before_correction


@SETTINGS
@given(games=game_lists(min_size=1))
def test_decided_two_team_games_move_winners_up_and_losers_down(games):
    _, changes = rate_games(games)
    for game in games:
        if len(game.teams) != 2 or game.places[0] == game.places[1]:
            continue
        moved = changes_of(changes, game.game)
        winner, loser = (0, 1) if game.places[0] < game.places[1] else (1, 0)
        assert all(moved[player] > 0 for player in game.teams[winner])
        assert all(moved[player] < 0 for player in game.teams[loser])


# --- size -----------------------------------------------------------------------------------------


def test_timing_twenty_thousand_games_over_a_thousand_players():
    """Not a pass/fail check on speed: run with -s to see the time."""
    draw = random.Random(56)
    games = []
    for number in range(20_000):
        a, b, c, d = draw.sample(range(1, 1001), 4)
        games.append(RatedGame(number, [(a, b), (c, d)], draw.choice([[1, 2], [2, 1]])))
    started = time.perf_counter()
    ratings, changes = rate_games(games)
    elapsed = time.perf_counter() - started
    print(f"\nrate_games: 20,000 two-team games over 1,000 players in {elapsed:.2f} s")
    assert len(changes) == 80_000
    assert len(ratings) == 1_000
