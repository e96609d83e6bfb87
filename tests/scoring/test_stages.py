"""The draws of a tournament's stages (club.scoring.stages), property by property.

Groups A and B: every sitting seats each team once; each A team meets a
different B team in every sitting until it has met them all; byes (A one team
larger) go round in turn. Round robin: every pair meets exactly once. Knockout:
for 2 to 64 teams the bracket has the right byes, the top seeds get them, seeds
1 and 2 can meet only in the final, and winners go on until one champion.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from club.scoring import stages
from club.scoring.stages import StageError


@given(teams=st.integers(min_value=2, max_value=64), seed=st.integers(0, 10_000))
def test_groups_split_every_team_once_a_at_most_one_larger(teams, seed):
    group_a, group_b = stages.split_groups(range(1, teams + 1), rng=random.Random(seed))
    assert sorted(group_a + group_b) == list(range(1, teams + 1))
    assert len(group_a) - len(group_b) in (0, 1)


def test_seeded_groups_are_dealt_like_a_snake():
    group_a, group_b = stages.split_groups(range(1, 9), seeded=True)
    assert group_a == [1, 4, 5, 8]
    assert group_b == [2, 3, 6, 7]
    # Of equal strength: the seeds of each group add up to the same.
    assert sum(group_a) == sum(group_b)


@settings(max_examples=200)
@given(
    teams=st.integers(min_value=2, max_value=64),
    sittings=st.integers(min_value=1, max_value=40),
    seed=st.integers(0, 10_000),
)
def test_a_chart_seats_each_team_once_and_avoids_rematches_while_it_can(teams, sittings, seed):
    group_a, group_b = stages.split_groups(range(teams), rng=random.Random(seed))
    chart = stages.group_chart(group_a, group_b, sittings, rng=random.Random(seed))
    assert len(chart) == sittings
    met: Counter = Counter()
    byes: Counter = Counter()
    for row in chart:
        seated = [team for game in row.games for team in game] + list(row.byes)
        assert sorted(seated) == sorted(group_a + group_b)  # everyone, once
        for a, b in row.games:
            assert a in group_a and b in group_b  # always A against B
            met[(a, b)] += 1
        byes.update(row.byes)
        assert set(row.byes) <= set(group_a)
    for a in group_a:
        opponents = [b for (x, b) in met if x == a]
        played = sum(count for (x, _b), count in met.items() if x == a)
        # No rematch while the A team has B teams left to meet.
        assert len(opponents) == min(played, len(group_b))
        # Every A team plays every sitting but its turns sitting out.
        assert played + byes[a] == sittings
    if len(group_a) > len(group_b):  # the byes go round: nobody sits out twice before all once
        assert max(byes.values(), default=0) - min(byes[a] for a in group_a) <= 1
    else:
        assert not byes


@pytest.mark.parametrize(("a", "b"), [([1, 2], [3, 4, 5]), ([1, 2, 3], [4]), ([1], [])])
def test_groups_of_the_wrong_sizes_are_refused_with_their_sizes(a, b):
    with pytest.raises(StageError) as error:
        stages.group_chart(a, b, 2)
    assert f"they have {len(a)} and {len(b)} teams" in error.value.message


def test_a_team_in_both_groups_is_refused():
    with pytest.raises(StageError, match="both groups"):
        stages.group_chart([1, 2], [2, 3], 1)


@given(teams=st.integers(min_value=2, max_value=40))
def test_a_round_robin_meets_every_pair_exactly_once(teams):
    chart = stages.round_robin(range(teams))
    assert len(chart) == (teams if teams % 2 else teams - 1)
    pairs = Counter(frozenset(game) for row in chart for game in row.games)
    assert set(pairs) == {frozenset(pair) for pair in combinations(range(teams), 2)}
    assert set(pairs.values()) == {1}
    for row in chart:
        seated = [team for game in row.games for team in game] + list(row.byes)
        assert sorted(seated) == list(range(teams))
        assert len(row.byes) == teams % 2
    if teams % 2:  # each team sits out once
        assert sorted(team for row in chart for team in row.byes) == list(range(teams))


def test_seed_order_places_1_and_2_at_opposite_ends():
    assert stages.seed_order(2) == [1, 2]
    assert stages.seed_order(4) == [1, 4, 2, 3]
    assert stages.seed_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]


def _play_out(bracket_seeds, pick):
    """Play the bracket to its end, ``pick`` choosing each match's winner."""
    winners: dict = {}
    while True:
        bracket = stages.bracket(bracket_seeds, winners)
        number = bracket.round_to_play()
        if number is None:
            return bracket
        for match in bracket.rounds[number - 1]:
            if match.ready:
                winners[frozenset((match.first, match.second))] = pick(match)


@settings(max_examples=150)
@given(teams=st.integers(min_value=2, max_value=64), seed=st.integers(0, 10_000))
def test_a_knockout_bracket_for_2_to_64_teams(teams, seed):
    seeds = random.Random(seed).sample(range(100, 200), teams)  # team ids, best first
    size = stages.bracket_size(teams)
    assert size >= teams and size // 2 < teams and size & (size - 1) == 0
    bracket = stages.bracket(seeds)
    first = bracket.rounds[0]
    assert len(first) == size // 2
    assert len(bracket.rounds) == size.bit_length() - 1
    byes = [match for match in first if match.bye]
    assert len(byes) == size - teams
    # The byes go to the top seeds, and no match is two empty places.
    assert sorted(bracket.seeds[match.winner] for match in byes) == list(range(1, size - teams + 1))
    assert all(match.first is not None or match.second is not None for match in first)
    # Every team is in the first round once.
    placed = [team for match in first for team in (match.first, match.second) if team is not None]
    assert sorted(placed) == sorted(seeds)
    # The favourites win: seeds 1 and 2 meet in the final, and 1 is the champion.
    favourites = _play_out(seeds, lambda m: min((m.first, m.second), key=bracket.seeds.get))
    final = favourites.rounds[-1][0]
    assert {bracket.seeds[final.first], bracket.seeds[final.second]} == {1, 2}
    assert favourites.champion == seeds[0]
    if teams >= 4:  # and seeds 1 to 4 in the semi-finals
        semis = {bracket.seeds[t] for m in favourites.rounds[-2] for t in (m.first, m.second)}
        assert semis == {1, 2, 3, 4}
    # Upsets: the lowest seed wins every match it plays; the bracket still ends in one champion.
    upsets = _play_out(seeds, lambda m: max((m.first, m.second), key=bracket.seeds.get))
    assert upsets.champion is not None
    assert all(match.winner is not None for matches in upsets.rounds for match in matches)


def test_a_knockout_of_6_gives_the_top_two_a_bye():
    bracket = stages.bracket(["s1", "s2", "s3", "s4", "s5", "s6"])
    first = [(m.first, m.second, m.winner) for m in bracket.rounds[0]]
    assert first == [
        ("s1", None, "s1"),
        ("s4", "s5", None),
        ("s2", None, "s2"),
        ("s3", "s6", None),
    ]
    # Seed 1 waits in the semi-final for the winner of 4 against 5.
    semi = bracket.rounds[1][0]
    assert (semi.first, semi.second, semi.ready) == ("s1", None, False)
    bracket = stages.bracket(["s1", "s2", "s3", "s4", "s5", "s6"], {frozenset(("s4", "s5")): "s5"})
    assert bracket.rounds[1][0].ready and bracket.rounds[1][0].second == "s5"


def test_a_result_that_is_not_a_match_of_the_bracket_is_ignored():
    bracket = stages.bracket([1, 2, 3, 4], {frozenset((1, 2)): 1})
    assert all(match.winner is None for match in bracket.rounds[0])


@pytest.mark.parametrize("teams", [0, 1, 65])
def test_a_knockout_needs_2_to_64_teams(teams):
    with pytest.raises(StageError, match=f"not {teams}"):
        stages.bracket_size(teams)


def test_the_rounds_are_named_from_the_final_back():
    names = [stages.round_title(n, 4) for n in range(1, 5)]
    assert names == [
        ("Round of %(teams)d", {"teams": 16}),
        ("Quarter-finals", {}),
        ("Semi-finals", {}),
        ("Final", {}),
    ]
