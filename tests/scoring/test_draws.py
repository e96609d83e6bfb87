"""Tests of the sitting draw generator (club/scoring/draws.py).

The property tests play whole tournaments: each sitting is drawn by
``propose_draw`` from the standings and the history of the sittings before it
(which were drawn by ``propose_draw`` too), and random results move the
standings on. Every draw is checked against the rules of the module docstring
by code written here, independently of the search.
"""

import random
import time
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from club.scoring.draws import Draw, DrawError, check_draw, propose_draw, table_labels

SETTINGS = settings(max_examples=100, deadline=None)


def met_pairs(history):
    return {frozenset(pair) for game in history for pair in combinations(set(game), 2)}


def count_rematches(games, history):
    before = met_pairs(history)
    return sum(frozenset(pair) in before for game in games for pair in combinations(game, 2))


def assert_valid(draw, teams, size, byes_so_far=None):
    """The shape every proposed draw must have."""
    check_draw(draw, teams, size)
    placed = [team for game in draw.games for team in game] + draw.byes
    assert sorted(placed) == sorted(teams)
    assert all(len(game) == size for game in draw.games)
    assert len(draw.byes) == len(teams) % size
    # Byes go to the teams with the fewest byes so far.
    byes_so_far = byes_so_far or {}
    if draw.byes:
        sitting_out = max(byes_so_far.get(team, 0) for team in draw.byes)
        playing = [byes_so_far.get(team, 0) for game in draw.games for team in game]
        assert sitting_out <= min(playing)


def play_tournament(count, size, sittings, seed):
    """Draw ``sittings`` sittings in turn, with random results; yield each draw."""
    results = random.Random(seed)
    rng = random.Random(seed + 1)
    teams = list(range(101, 101 + count))
    points = dict.fromkeys(teams, 0)
    history = []
    byes = Counter()
    for sitting in range(sittings):
        ranking = sorted(teams, key=lambda team: (-points[team], team))
        draw = propose_draw(
            teams,
            ranking=ranking if sitting else None,
            history=list(history),
            byes_so_far=dict(byes),
            game_size=size,
            rng=rng,
        )
        yield sitting, draw, list(history), dict(byes), ranking
        for game in draw.games:
            history.append(game)
            points[results.choice(game)] += 2
            points[results.choice(game)] += 1
        for team in draw.byes:
            byes[team] += 1
            points[team] += 1


# --- Table labels -------------------------------------------------------------------------


def test_table_labels():
    assert table_labels(3) == ["Table 1", "Table 2", "Table 3"]
    assert table_labels(2, prefix="Tisch") == ["Tisch 1", "Tisch 2"]
    assert table_labels(0) == []
    with pytest.raises(DrawError):
        table_labels(-1)


# --- Refusals -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("teams", "kwargs", "field"),
    [
        ([1], {}, "teams"),
        ([1, 2, 3], {"game_size": 4}, "teams"),
        ([1, 2, 3, 4], {"game_size": 5}, "game_size"),
        ([1, 2, 3, 4], {"game_size": 1}, "game_size"),
        ([1, 2, 2, 4], {}, "teams"),
        ([1, 2, 3, 4], {"ranking": [1, 2, 3]}, "ranking"),
        ([1, 2, 3, 4], {"ranking": [1, 2, 3, 5]}, "ranking"),
        ([1, 2, 3, 4], {"ranking": [1, 2, 3, 3]}, "ranking"),
        ([1, 2, 3, 4], {"ranking": [1, 2, 3, 4, 5]}, "ranking"),
    ],
)
def test_refuses_impossible_requests(teams, kwargs, field):
    with pytest.raises(DrawError) as caught:
        propose_draw(teams, **kwargs)
    assert caught.value.field == field
    assert isinstance(caught.value, ValueError)


def test_error_messages_are_templates_filled_in_and_translatable():
    with pytest.raises(DrawError) as caught:
        propose_draw([7, 8, 7])
    error = caught.value
    assert error.template == "Team %(team)s is listed more than once."
    assert error.params == {"team": 7}
    assert str(error) == "Team 7 is listed more than once."
    french = {"Team %(team)s is listed more than once.": "L'équipe %(team)s figure deux fois."}
    translated = error.translated(lambda text: french.get(text, text), team_names={7: "As"})
    assert translated == "L'équipe As figure deux fois."


# --- check_draw (a draw adjusted by hand) ---------------------------------------------------


def test_check_draw_accepts_a_proper_draw():
    check_draw(Draw(games=[(1, 2), (4, 3)], byes=[5], rematches=0), [1, 2, 3, 4, 5], 2)
    # Sitting out more teams than needed is the organiser's choice.
    check_draw(Draw(games=[(1, 2)], byes=[3, 4, 5], rematches=0), [1, 2, 3, 4, 5], 2)


@pytest.mark.parametrize(
    ("games", "byes", "message"),
    [
        ([(1, 2), (3, 1)], [5], "Team 1 is in the draw more than once."),
        ([(1, 2), (3, 4)], [4], "Team 4 is in the draw more than once."),
        ([(1, 2), (3, 4)], [], "Team 5 is missing from the draw: give it a game or a bye."),
        ([(1, 2), (3, 4, 5)], [], "Table 2 has 3 teams; each game must have 2."),
        ([(1, 2), (3, 4)], [9], "Team 9 is not taking part in this sitting."),
    ],
)
def test_check_draw_names_the_problem(games, byes, message):
    with pytest.raises(DrawError) as caught:
        check_draw(Draw(games=games, byes=byes, rematches=0), [1, 2, 3, 4, 5], 2)
    assert str(caught.value) == message
    assert caught.value.field == "games"


def test_check_draw_refuses_a_bad_game_size():
    with pytest.raises(DrawError) as caught:
        check_draw(Draw(games=[], byes=[1, 2], rematches=0), [1, 2], 5)
    assert caught.value.field == "game_size"


# --- First sitting: random ----------------------------------------------------------------


def test_first_sitting_is_repeatable_for_a_seed_and_differs_across_seeds():
    teams = list(range(1, 17))
    first = propose_draw(teams, rng=random.Random(42))
    again = propose_draw(teams, rng=random.Random(42))
    assert first == again
    others = {tuple(propose_draw(teams, rng=random.Random(seed)).games) for seed in range(10)}
    assert len(others) == 10


def test_a_ranking_without_history_is_still_a_first_sitting():
    teams = list(range(1, 9))
    draws = {
        tuple(frozenset(game) for game in propose_draw(teams, ranking=teams, rng=rng).games)
        for rng in (random.Random(seed) for seed in range(10))
    }
    assert len(draws) > 1


def test_first_sitting_byes_are_random_among_the_fewest_byes():
    teams = list(range(1, 8))
    byes = {tuple(propose_draw(teams, rng=random.Random(seed)).byes) for seed in range(40)}
    assert len(byes) > 3
    had_one = {team: 1 for team in teams if team != 4}
    for seed in range(20):
        draw = propose_draw(teams, byes_so_far=had_one, rng=random.Random(seed))
        assert draw.byes == [4]


@SETTINGS
@given(
    count=st.integers(2, 40),
    size=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 10**6),
)
def test_first_sitting_shape(count, size, seed):
    if count < size:
        return
    teams = list(range(1, count + 1))
    draw = propose_draw(teams, game_size=size, rng=random.Random(seed))
    assert_valid(draw, teams, size)
    assert draw.rematches == 0


# --- Swiss --------------------------------------------------------------------------------

# A history that keeps no game below from happening: these teams have left.
LEFT = [(98, 99)]


def as_sets(draw):
    return [set(game) for game in draw.games]


def test_swiss_puts_neighbours_in_the_standings_together_top_table_first():
    ranking = list(range(1, 9))
    draw = propose_draw(ranking, ranking=ranking, history=LEFT, rng=random.Random(1))
    assert as_sets(draw) == [{1, 2}, {3, 4}, {5, 6}, {7, 8}]
    assert draw.byes == [] and draw.rematches == 0

    teams = list(range(1, 13))
    draw = propose_draw(teams, ranking=teams, history=LEFT, game_size=3)
    assert as_sets(draw) == [{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {10, 11, 12}]
    draw = propose_draw(teams, ranking=teams, history=LEFT, game_size=4)
    assert as_sets(draw) == [{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}]


def test_swiss_follows_the_ranking_not_the_ids():
    ranking = [5, 3, 8, 1, 2, 7, 4, 6]
    draw = propose_draw(sorted(ranking), ranking=ranking, history=LEFT)
    assert as_sets(draw) == [{5, 3}, {8, 1}, {2, 7}, {4, 6}]


def test_swiss_bye_goes_to_the_lowest_ranked_team_with_fewest_byes():
    teams = list(range(1, 10))
    draw = propose_draw(teams, ranking=teams, history=LEFT)
    assert draw.byes == [9]
    assert as_sets(draw) == [{1, 2}, {3, 4}, {5, 6}, {7, 8}]
    draw = propose_draw(teams, ranking=teams, history=LEFT, byes_so_far={9: 1, 8: 1})
    assert draw.byes == [7]
    assert as_sets(draw) == [{1, 2}, {3, 4}, {5, 6}, {8, 9}]
    # Game size 4 with 11 teams: 3 byes, to the three lowest-ranked.
    teams = list(range(1, 12))
    draw = propose_draw(teams, ranking=teams, history=LEFT, game_size=4)
    assert draw.byes == [9, 10, 11]


def test_swiss_avoids_a_rematch_with_the_next_nearest_team():
    teams = [1, 2, 3, 4]
    draw = propose_draw(teams, ranking=teams, history=[(1, 2)])
    assert as_sets(draw) == [{1, 3}, {2, 4}]
    assert draw.rematches == 0


def test_swiss_backtracks_when_the_nearest_choice_is_a_dead_end():
    # 1 has met 2, so 1-3 is the nearest choice; but it leaves 2-4, who have
    # met too: the search must step back to 1-4, leaving 2-3.
    teams = [1, 2, 3, 4]
    draw = propose_draw(teams, ranking=teams, history=[(1, 2), (3, 4), (2, 4)])
    assert as_sets(draw) == [{1, 4}, {2, 3}]
    assert draw.rematches == 0


def test_swiss_moves_the_bye_rather_than_force_a_rematch():
    teams = [1, 2, 3]
    draw = propose_draw(teams, ranking=teams, history=[(1, 2)])
    assert draw.byes == [2] and as_sets(draw) == [{1, 3}] and draw.rematches == 0
    # ... but never to a team that has had more byes than another.
    draw = propose_draw(teams, ranking=teams, history=[(1, 2)], byes_so_far={2: 1, 1: 1})
    assert draw.byes == [3] and as_sets(draw) == [{1, 2}] and draw.rematches == 1


def test_unavoidable_rematches_are_kept_few_and_counted():
    teams = [1, 2, 3, 4]
    everyone = list(combinations(teams, 2))
    draw = propose_draw(teams, ranking=teams, history=everyone)
    assert as_sets(draw) == [{1, 2}, {3, 4}]
    assert draw.rematches == 2
    # Only 1 has met everyone: one rematch, for 1, is all that is needed.
    history = [(1, 2), (1, 3), (1, 4), (1, 5), (1, 6)]
    draw = propose_draw([1, 2, 3, 4, 5, 6], ranking=[1, 2, 3, 4, 5, 6], history=history)
    assert draw.rematches == 1
    assert as_sets(draw) == [{1, 2}, {3, 4}, {5, 6}]


def test_history_of_teams_not_taking_part_is_ignored():
    teams = [1, 2, 3, 4]
    draw = propose_draw(teams, ranking=teams, history=[(1, 9), (2, 9, 10), (3,)])
    assert as_sets(draw) == [{1, 2}, {3, 4}]


def test_seat_order_within_a_game_is_random_but_repeatable():
    teams = list(range(1, 9))
    orders = {
        propose_draw(teams, ranking=teams, history=LEFT, rng=random.Random(seed)).games[0]
        for seed in range(20)
    }
    assert orders == {(1, 2), (2, 1)}
    first = propose_draw(teams, ranking=teams, history=LEFT, rng=random.Random(3))
    assert first == propose_draw(teams, ranking=teams, history=LEFT, rng=random.Random(3))


def rematch_free_sittings(count, size):
    """How many sittings from the start are sure to have a rematch-free draw.

    Game size 2, 8+ teams: after two sittings each team has met at most 2 of
    the (at least 7) others playing, so the teams it has not met form a graph
    of minimum degree >= half its order, which has a Hamiltonian cycle (Dirac)
    and so a perfect matching. Game size k >= 3: the second sitting can take
    one team from each of k different first-sitting games when there are at
    least k games, which k * (k + 1) teams guarantee even with byes.
    """
    if size == 2:
        return 3 if count >= 8 else 1
    return 2 if count >= size * (size + 1) else 1


@SETTINGS
@given(
    count=st.integers(4, 40),
    size=st.sampled_from([2, 3, 4]),
    sittings=st.integers(1, 7),
    seed=st.integers(0, 10**6),
)
def test_swiss_tournaments(count, size, sittings, seed):
    sure = rematch_free_sittings(count, size)
    for sitting, draw, history, byes, _ranking in play_tournament(count, size, sittings, seed):
        teams = list(range(101, 101 + count))
        assert_valid(draw, teams, size, byes)
        assert draw.rematches == count_rematches(draw.games, history)
        if sitting < sure:
            assert draw.rematches == 0, (sitting, draw)


@SETTINGS
@given(
    count=st.integers(3, 25).filter(lambda n: n % 2),
    seed=st.integers(0, 10**6),
)
def test_no_second_bye_before_every_team_has_had_one(count, seed):
    had_bye = set()
    for _sitting, draw, _history, _byes, _ranking in play_tournament(count, 2, count + 3, seed):
        (team,) = draw.byes
        if len(had_bye) == count:
            had_bye = set()  # everyone has had one: a second round of byes begins
        assert team not in had_bye
        had_bye.add(team)


@SETTINGS
@given(
    count=st.integers(4, 24),
    size=st.sampled_from([3, 4]),
    seed=st.integers(0, 10**6),
)
def test_byes_stay_even_for_larger_games(count, size, seed):
    final = {}
    for _sitting, draw, _history, byes, _ranking in play_tournament(count, size, 8, seed):
        final = Counter(byes) + Counter(draw.byes)
        spread = [final.get(team, 0) for team in range(101, 101 + count)]
        assert max(spread) - min(spread) <= 1


def fair_bye_sets(teams, byes_so_far, count):
    """Every choice of ``count`` teams to sit out that the bye rule allows."""
    for chosen in combinations(teams, count):
        out = [byes_so_far.get(team, 0) for team in chosen]
        rest = [byes_so_far.get(team, 0) for team in teams if team not in chosen]
        if not out or not rest or max(out) <= min(rest):
            yield set(chosen)


def partitions(teams, size):
    if not teams:
        yield []
        return
    first, rest = teams[0], teams[1:]
    for others in combinations(rest, size - 1):
        remaining = [team for team in rest if team not in others]
        for tail in partitions(remaining, size):
            yield [(first, *others), *tail]


@SETTINGS
@given(data=st.data(), size=st.sampled_from([2, 3, 4]))
def test_fewest_rematches_matches_brute_force_on_small_draws(data, size):
    count = data.draw(st.integers(size, 9).filter(lambda n: n % size <= 2))
    teams = list(range(1, count + 1))
    ranking = data.draw(st.permutations(teams))
    history = data.draw(
        st.lists(st.lists(st.sampled_from(teams), min_size=2, max_size=size), min_size=1)
    )
    byes_so_far = data.draw(st.dictionaries(st.sampled_from(teams), st.integers(0, 2)))
    draw = propose_draw(
        teams, ranking=ranking, history=history, byes_so_far=byes_so_far, game_size=size
    )
    assert_valid(draw, teams, size, byes_so_far)
    assert draw.rematches == count_rematches(draw.games, history)
    best = min(
        count_rematches(games, history)
        for byes in fair_bye_sets(teams, byes_so_far, count % size)
        for games in partitions([team for team in teams if team not in byes], size)
    )
    assert draw.rematches == best


# --- Speed --------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [2, 3, 4])
def test_64_teams_six_sittings_take_under_a_second(size):
    started = time.perf_counter()
    draws = list(play_tournament(64, size, 6, seed=2024))
    elapsed = time.perf_counter() - started
    assert elapsed < 1.0
    assert all(draw.rematches == 0 for _sitting, draw, *_rest in draws)
