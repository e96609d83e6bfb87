"""Tests of the tournament standings (club/scoring/standings.py).

Every expected value is worked out by hand in the comments from the default
points scheme: 2 teams 3/1, 3 teams 4/2/0, 4 teams 5/3/1/0. Shared places
split the points of the places they span. Team ids are deliberately not
0, 1, 2 ... so that nothing can pass by confusing ids with indexes.
"""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from club.scoring.standings import (
    DEFAULT_POINTS,
    GameResult,
    PointsScheme,
    Standing,
    StandingsError,
    head_to_head_points,
    points_for,
    standings,
)

A, B, C, D, E = 11, 22, 33, 44, 55


def game(gid, places, *, start=12, end=None, declared=None, made=None):
    """A game result; by default every team ends on the tables it started with."""
    teams = tuple(places)
    return GameResult(
        game=gid,
        teams=teams,
        places=dict(places),
        tables_start=start,
        tables_end=dict(end) if end is not None else dict.fromkeys(teams, start),
        declared=dict(declared or {}),
        made=dict(made or {}),
    )


def board(rows):
    """(team, place, points) of each row, in the order returned."""
    return [(row.team, row.place, row.points) for row in rows]


def row_of(rows, team):
    return next(row for row in rows if row.team == team)


# --- points_for --------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "place", "sharing", "expected"),
    [
        (4, 1, 1, Fraction(5)),  # 5
        (4, 4, 1, Fraction(0)),  # 0
        (2, 2, 1, Fraction(1)),  # 1
        (3, 2, 2, Fraction(1)),  # (2 + 0) / 2 = 1
        (3, 1, 2, Fraction(3)),  # (4 + 2) / 2 = 3
        (2, 1, 2, Fraction(2)),  # (3 + 1) / 2 = 2
        (4, 2, 3, Fraction(4, 3)),  # (3 + 1 + 0) / 3 = 4/3
        (4, 1, 2, Fraction(4)),  # (5 + 3) / 2 = 4
        (4, 3, 2, Fraction(1, 2)),  # (1 + 0) / 2 = 1/2
        (4, 1, 4, Fraction(9, 4)),  # (5 + 3 + 1 + 0) / 4 = 9/4
        (3, 1, 3, Fraction(2)),  # (4 + 2 + 0) / 3 = 2
    ],
)
def test_points_for_splits_shared_places(count, place, sharing, expected):
    assert points_for(DEFAULT_POINTS, count, place, sharing) == expected


@pytest.mark.parametrize(
    ("count", "place", "sharing"),
    [(5, 1, 1), (3, 3, 2), (2, 3, 1), (4, 0, 1), (4, 1, 0)],
)
def test_points_for_refuses_places_the_game_cannot_have(count, place, sharing):
    with pytest.raises(StandingsError):
        points_for(DEFAULT_POINTS, count, place, sharing)


# --- Each criterion in isolation ---------------------------------------------


def test_points_decide_before_games_won_and_net_tables():
    # Teams P=A, X=B, Q=C, Y=D; four teams, three sittings.
    # G1 (4 teams, stopped early; tables 30/16/2/0 of 48):
    #   A 1st 5, B 2nd 3, C 3rd 1, D 4th 0.   net A +18, B +4, C -10, D -12
    # G2 (D v A): D 1st 3, A 2nd 1; tables D 24, A 0.   net D +12, A -12
    # G3 (C v B): C 1st 3, B 2nd 1; tables C 24, B 0.   net C +12, B -12
    # G4 (4 teams, stopped early; tables 20/14/12/2 of 48):
    #   A 1st 5, B 2nd 3, C 3rd 1, D 4th 0.   net A +8, B +2, C 0, D -10
    # Points: A 5+1+5 = 11, B 3+1+3 = 7, C 1+3+1 = 5, D 0+3+0 = 3.
    # Won:    A 2 (G1, G4), B 0, C 1 (G3), D 1 (G2).
    # Net:    A 18-12+8 = 14, B 4-12+2 = -6, C -10+12+0 = 2, D -12+12-10 = -10.
    # B is 2nd on points although it won nothing and is behind C on net tables.
    results = [
        game(1, {A: 1, B: 2, C: 3, D: 4}, end={A: 30, B: 16, C: 2, D: 0}),
        game(2, {D: 1, A: 2}, end={D: 24, A: 0}),
        game(3, {C: 1, B: 2}, end={C: 24, B: 0}),
        game(4, {A: 1, B: 2, C: 3, D: 4}, end={A: 20, B: 14, C: 12, D: 2}),
    ]
    rows = standings([D, C, B, A], results)
    assert board(rows) == [(A, 1, 11), (B, 2, 7), (C, 3, 5), (D, 4, 3)]
    assert [(r.won, r.net_tables, r.games) for r in rows] == [
        (2, 14, 3),
        (0, -6, 3),
        (1, 2, 3),
        (1, -10, 3),
    ]
    assert not any(row.shared for row in rows)


def test_equal_points_games_won_decides_before_net_tables_and_contracts():
    # Five teams, two sittings of a 2-team and a 3-team game.
    # G1 (A v E): A 1st 3, E 2nd 1; tables A 13, E 11.         net A +1, E -1
    # G2 (C, B, D): C 4, B 2, D 0; tables C 20, B 16, D 0.     net C +8, B +4, D -12
    # G3 (C v B): C 1st 3, B 2nd 1; tables C 13, B 11.         net C +1, B -1
    # G4 (E, D, A): E 4, D 2, A 0; tables E 24, D 8, A 4.      net E +12, D -4, A -8
    # Points: A 3+0 = 3, B 2+1 = 3, C 4+3 = 7, D 0+2 = 2, E 1+4 = 5.
    # A and B level on 3 points; A won G1, B won nothing, so A is ahead although
    # B has the better net tables (B 4-1 = +3, A 1-8 = -7) and contract share
    # (B 2/2, A 0/3).
    results = [
        game(1, {A: 1, E: 2}, end={A: 13, E: 11}),
        game(
            2,
            {C: 1, B: 2, D: 3},
            end={C: 20, B: 16, D: 0},
            declared={B: 2},
            made={B: 2},
        ),
        game(3, {C: 1, B: 2}, end={C: 13, B: 11}),
        game(4, {E: 1, D: 2, A: 3}, end={E: 24, D: 8, A: 4}, declared={A: 3}, made={A: 0}),
    ]
    rows = standings([B, A, C, D, E], results)
    assert board(rows) == [(C, 1, 7), (E, 2, 5), (A, 3, 3), (B, 4, 3), (D, 5, 2)]
    a, b = row_of(rows, A), row_of(rows, B)
    assert (a.won, a.net_tables, a.made_share) == (1, -7, Fraction(0))
    assert (b.won, b.net_tables, b.made_share) == (0, 3, Fraction(1))


def test_equal_points_and_wins_net_tables_decide_before_contracts_and_head_to_head():
    # G1 (A v B): A 1st, B 2nd; tables A 14, B 10.   net A +2, B -2
    # G2 (C v D): C 1st, D 2nd; tables C 15, D 9.    net C +3, D -3
    # G3 (A v C): C 1st, A 2nd; tables C 24, A 0.    net C +12, A -12
    # G4 (B v D): B 1st, D 2nd; tables B 24, D 0.    net B +12, D -12
    # Points: A 3+1 = 4, B 1+3 = 4, C 3+3 = 6, D 1+1 = 2; won A 1, B 1.
    # Net: A 2-12 = -10, B -2+12 = +10: B ahead, although A beat B in G1 and
    # has the better contract share (A 4/4, B 1/4).
    results = [
        game(1, {A: 1, B: 2}, end={A: 14, B: 10}, declared={A: 2, B: 1}, made={A: 2}),
        game(2, {C: 1, D: 2}, end={C: 15, D: 9}),
        game(3, {C: 1, A: 2}, end={C: 24, A: 0}, declared={A: 2}, made={A: 2}),
        game(4, {B: 1, D: 2}, end={B: 24, D: 0}, declared={B: 3}, made={B: 1}),
    ]
    rows = standings([A, B, C, D], results)
    assert board(rows) == [(C, 1, 6), (B, 2, 4), (A, 3, 4), (D, 4, 2)]
    assert row_of(rows, B).net_tables == 10
    assert row_of(rows, A).net_tables == -10
    assert row_of(rows, A).made_share == Fraction(1)  # 4 / 4
    assert row_of(rows, B).made_share == Fraction(1, 4)  # 1 / 4


def test_equal_points_wins_and_net_contract_share_decides_and_none_declared_is_last():
    # Every game ends 13 / 11 tables for the winner / loser.
    # G1 (A v B): B 1st 3, A 2nd 1.   G2 (C v D): C 1st 3, D 2nd 1.
    # G3 (A v C): A 1st 3, C 2nd 1.   G4 (B v D): D 1st 3, B 2nd 1.
    # Points: every team 3+1 = 4, one win each; net: every team +1-1 = 0.
    # Contracts: A 3 of 4 = 3/4, B 1 of 2 = 1/2, C 1 of 4 = 1/4, D none (0).
    # So A, B, C, D, although B beat A head-to-head in G1.
    def won_lost(gid, winner, loser, **contracts):
        return game(gid, {winner: 1, loser: 2}, end={winner: 13, loser: 11}, **contracts)

    results = [
        won_lost(1, B, A, declared={A: 2, B: 1}, made={A: 1, B: 1}),
        won_lost(2, C, D, declared={C: 2}, made={C: 0}),
        won_lost(3, A, C, declared={A: 2, C: 2}, made={A: 2, C: 1}),
        won_lost(4, D, B, declared={B: 1}, made={B: 0}),
    ]
    rows = standings([D, C, B, A], results)
    assert board(rows) == [(A, 1, 4), (B, 2, 4), (C, 3, 4), (D, 4, 4)]
    assert [(r.declared, r.made, r.made_share) for r in rows] == [
        (4, 3, Fraction(3, 4)),
        (2, 1, Fraction(1, 2)),
        (4, 1, Fraction(1, 4)),
        (0, 0, None),
    ]
    assert all(r.net_tables == 0 and r.won == 1 for r in rows)


def test_no_contracts_declared_sorts_as_a_share_of_0_then_head_to_head_decides():
    # G1 (C v D): D 1st 3, C 2nd 1.   G2 (A v B): A 1st 3, B 2nd 1.
    # G3 (C v A): C 1st 3, A 2nd 1.   G4 (D v B): B 1st 3, D 2nd 1.
    # Points 4 each, one win each, net 0 each (tables unchanged).
    # Shares: A 1/1, B 1/2, C 0/3 = 0, D none = 0.
    # C and D are level on share (none counts as 0); D beat C in G1, so head-to-head
    # among {C, D}: D 3, C 1 and D is 3rd. Were "none" ranked below 0, C would be 3rd.
    results = [
        game(1, {D: 1, C: 2}, declared={C: 3}, made={C: 0}),
        game(2, {A: 1, B: 2}, declared={A: 1, B: 2}, made={A: 1, B: 1}),
        game(3, {C: 1, A: 2}),
        game(4, {B: 1, D: 2}),
    ]
    rows = standings([C, D, A, B], results)
    assert board(rows) == [(A, 1, 4), (B, 2, 4), (D, 3, 4), (C, 4, 4)]
    assert row_of(rows, C).made_share == Fraction(0)
    assert row_of(rows, D).made_share is None


def test_head_to_head_counts_places_among_the_tied_teams_only():
    # Four teams, two sittings; A has a bye in the second.
    # G1 (4 teams): C 1st 5, A 2nd 3, B 3rd 1, D 4th 0.
    # G2 (3 teams): C 1st 4, B 2nd 2, D 3rd 0.   A bye (scores nothing).
    # Points: A 3, B 1+2 = 3, C 5+4 = 9, D 0. A and B: 0 wins, net 0, nothing
    # declared. Head-to-head {A, B}: only G1 has both; among them A is 1st and
    # B 2nd, scored on the 2-team row: A 3, B 1 (G2 has only B, so it does not
    # count). A is ahead although listed after B.
    results = [
        game(1, {C: 1, A: 2, B: 3, D: 4}),
        game(2, {C: 1, B: 2, D: 3}),
    ]
    assert head_to_head_points([A, B], results) == {A: Fraction(3), B: Fraction(1)}
    rows = standings([B, A, C, D], results, byes={A: 1})
    assert board(rows) == [(C, 1, 9), (A, 2, 3), (B, 3, 3), (D, 4, 0)]
    assert (row_of(rows, A).games, row_of(rows, B).games) == (1, 2)
    assert not any(row.shared for row in rows)


def test_head_to_head_is_played_again_among_teams_it_leaves_level():
    # Teams X=A, Y=B, Z=C and D; three sittings of one 3-team game and a bye.
    # Ga (A, B, C; D bye): B 1st 4, C 2nd 2, A 3rd 0.
    # Gb (A, C, D; B bye): C 1st 4, A 2nd 2, D 3rd 0.
    # Gc (A, B, D; C bye): A 1st 4, B 2nd 2, D 3rd 0.
    # Points: A 0+2+4 = 6, B 4+2 = 6, C 2+4 = 6, D 0; one win each for A, B, C;
    # net 0 and nothing declared for all.
    # Head-to-head {A, B, C}:
    #   Ga has all three: 3-team row by their places: B 4, C 2, A 0.
    #   Gb has A and C: among them C 1st, A 2nd, 2-team row: C 3, A 1.
    #   Gc has A and B: A 1st, B 2nd: A 3, B 1.
    #   A 0+1+3 = 4, B 4+1 = 5, C 2+3 = 5: A is 3rd of the group; B and C level.
    # Again among {B, C} alone: only Ga has both: B 1st, C 2nd, 2-team row: B 3, C 1.
    # So B 1st, C 2nd, A 3rd, D 4th.
    results = [
        game(1, {B: 1, C: 2, A: 3}),
        game(2, {C: 1, A: 2, D: 3}),
        game(3, {A: 1, B: 2, D: 3}),
    ]
    assert head_to_head_points([A, B, C], results) == {A: 4, B: 5, C: 5}
    assert head_to_head_points([B, C], results) == {B: 3, C: 1}
    rows = standings([D, A, C, B], results, byes={D: 1, B: 1, C: 1})
    assert board(rows) == [(B, 1, 6), (C, 2, 6), (A, 3, 6), (D, 4, 0)]


def test_full_tie_shares_a_place_and_skips_the_next():
    # G1 (A v B): A 1st 3, B 2nd 1.   G2 (C v D): C 1st 3, D 2nd 1.
    # G3 (A v C): A 1st 3, C 2nd 1.   G4 (B v D): B 1st 3, D 2nd 1.
    # Points: A 6, B 4, C 4, D 2. B and C: one win each, net 0, shares none and
    # 0/3 (both 0), and they never met (head-to-head 0 each): they share 2nd.
    # Places 1, 2, 2, 4.
    results = [
        game(1, {A: 1, B: 2}),
        game(2, {C: 1, D: 2}, declared={C: 3}, made={C: 0}),
        game(3, {A: 1, C: 2}),
        game(4, {B: 1, D: 2}),
    ]
    rows = standings([C, D, B, A], results)
    # Equal teams keep the order they were entered in: C before B.
    assert board(rows) == [(A, 1, 6), (C, 2, 4), (B, 2, 4), (D, 4, 2)]
    assert [row.shared for row in rows] == [False, True, True, False]


def test_three_way_full_tie_including_head_to_head():
    # Three 4-team games; D always last (0).
    # G1: A 5, B 3, C 1.  G2: B 5, C 3, A 1.  G3: C 5, A 3, B 1.
    # Points 9 each, one win each. Head-to-head (3-team row in every game):
    # A 4+0+2 = 6, B 2+4+0 = 6, C 0+2+4 = 6. All level: 1, 1, 1, 4.
    results = [
        game(1, {A: 1, B: 2, C: 3, D: 4}),
        game(2, {B: 1, C: 2, A: 3, D: 4}),
        game(3, {C: 1, A: 2, B: 3, D: 4}),
    ]
    assert head_to_head_points([A, B, C], results) == {A: 6, B: 6, C: 6}
    rows = standings([A, B, C, D], results)
    assert board(rows) == [(A, 1, 9), (B, 1, 9), (C, 1, 9), (D, 4, 0)]
    assert [row.shared for row in rows] == [True, True, True, False]


# --- Shared places inside a game, byes, teams without games --------------------


def test_shared_places_in_a_game_split_the_points():
    # G1 (4 teams, stopped early; tables A 16, B 16, C 8, D 8 of 48):
    #   A and B share 1st: (5+3)/2 = 4 each; C and D share 3rd: (1+0)/2 = 1/2 each.
    #   net A +4, B +4, C -4, D -4
    # G2 (3 teams, stopped early; tables C 20, A 8, D 8 of 36; B bye):
    #   C 1st 4; A and D share 2nd: (2+0)/2 = 1 each.   net C +8, A -4, D -4
    # Points: A 4+1 = 5, B 4, C 1/2+4 = 9/2, D 1/2+1 = 3/2 (sum 15 = 9 + 6).
    # Won: A 0, B 0 (a shared 1st is no team's win: G1 has no winner), C 1, D 0;
    # files written before counted it for both (A 1, B 1).
    results = [
        game(1, {A: 1, B: 1, C: 3, D: 3}, end={A: 16, B: 16, C: 8, D: 8}),
        game(2, {C: 1, A: 2, D: 2}, end={C: 20, A: 8, D: 8}),
    ]
    rows = standings([A, B, C, D], results)
    assert board(rows) == [
        (A, 1, Fraction(5)),
        (C, 2, Fraction(9, 2)),
        (B, 3, Fraction(4)),
        (D, 4, Fraction(3, 2)),
    ]
    assert [(r.won, r.net_tables) for r in rows] == [(0, 0), (1, 4), (0, 4), (0, -8)]
    legacy = standings([A, B, C, D], results, shared_first_wins=True)
    assert board(legacy) == board(rows)  # points still decide
    assert [(r.won, r.net_tables) for r in legacy] == [(1, 0), (1, 4), (1, 4), (0, -8)]


def test_a_shared_first_is_no_win_so_a_real_win_ranks_ahead():
    # G1 (A v B) and G2 (A v D) end level: no winner, (3 + 1) / 2 = 2 points each.
    # G3 (C v B): C wins 3, B 1.   G4 (C v D): D wins 3, C 1.
    # Points: A 2+2 = 4, C 3+1 = 4, B 2+1 = 3, D 2+3 = 5. Won: A 0, C 1, B 0, D 1.
    # C is ahead of A on games won. Counted the old way A "won" twice and led C.
    results = [
        game(1, {A: 1, B: 1}),
        game(2, {A: 1, D: 1}),
        game(3, {C: 1, B: 2}),
        game(4, {D: 1, C: 2}),
    ]
    rows = standings([A, B, C, D], results)
    assert board(rows) == [(D, 1, 5), (C, 2, 4), (A, 3, 4), (B, 4, 3)]
    assert [row.won for row in rows] == [1, 1, 0, 0]
    legacy = standings([A, B, C, D], results, shared_first_wins=True)
    assert board(legacy) == [(D, 1, 5), (A, 2, 4), (C, 3, 4), (B, 4, 3)]


def test_teams_without_games_appear_with_zeros():
    rows = standings([A, B, C], [game(1, {A: 1, B: 2})])
    # A 3, B 1; C played nothing: 0 points, all counts 0, share None.
    assert board(rows) == [(A, 1, 3), (B, 2, 1), (C, 3, 0)]
    assert row_of(rows, C) == Standing(
        team=C,
        place=3,
        points=Fraction(0),
        games=0,
        won=0,
        net_tables=0,
        declared=0,
        made=0,
        made_share=None,
        shared=False,
    )


def test_nobody_has_played_everyone_shares_first():
    rows = standings([A, B, C], [])
    assert board(rows) == [(A, 1, 0), (B, 1, 0), (C, 1, 0)]
    assert all(row.shared for row in rows)


def test_byes_score_nothing_unless_the_tournament_awards_points():
    results = [game(1, {A: 1, B: 2})]  # A 3, B 1; C had a bye
    rows = standings([A, B, C], results, byes={C: 1})
    assert board(rows) == [(A, 1, 3), (B, 2, 1), (C, 3, 0)]
    # With 2 points a bye, C has 1 x 2 = 2 and passes B; C still played no game.
    rows = standings([A, B, C], results, byes={C: 1}, bye_points=Fraction(2))
    assert board(rows) == [(A, 1, 3), (C, 2, 2), (B, 3, 1)]
    assert row_of(rows, C).games == 0


# --- Validation ----------------------------------------------------------------


def test_a_valid_custom_scheme_is_used():
    scheme = PointsScheme({2: (2, 0), 3: (3, 1, 1), 4: (4, 2, 1, 0)})
    rows = standings([A, B, C], [game(1, {A: 1, B: 2, C: 3})], scheme)
    # 3-team row 3/1/1: B and C are level on 1 point, 0 wins, net 0, no contracts;
    # head-to-head {B, C} in G1 on the 2-team row 2/0: B 2, C 0.
    assert board(rows) == [(A, 1, 3), (B, 2, 1), (C, 3, 1)]


@pytest.mark.parametrize(
    "by_team_count",
    [
        {2: (3, 1), 3: (4, 2, 0)},  # no row for 4 teams
        {2: (3, 1), 3: (4, 2, 0), 4: (5, 3, 1, 0), 5: (6, 4, 2, 1, 0)},  # no such game
        {2: (3, 1), 3: (4, 2), 4: (5, 3, 1, 0)},  # too few places
        {2: (3, 1, 0), 3: (4, 2, 0), 4: (5, 3, 1, 0)},  # too many places
        {2: (1, 3), 3: (4, 2, 0), 4: (5, 3, 1, 0)},  # rising
        {2: (3, 1), 3: (4, 2, 0), 4: (5, 3, 1, -1)},  # negative
        {2: (3, 1), 3: (4, 2, 0.5), 4: (5, 3, 1, 0)},  # not whole
        {2: (3, 1), 3: (4, 2, 0), 4: (5, 3, Fraction(1), 0)},  # not an int
        {2: (True, False), 3: (4, 2, 0), 4: (5, 3, 1, 0)},  # booleans are not points
    ],
)
def test_invalid_schemes_are_refused(by_team_count):
    with pytest.raises(StandingsError) as caught:
        PointsScheme(by_team_count)
    assert caught.value.message == caught.value.template % caught.value.params


def test_scheme_error_messages_are_marked_for_translation():
    with pytest.raises(StandingsError) as caught:
        PointsScheme({2: (3, 1), 3: (4, 2, 0)})
    error = caught.value
    assert error.template == "The points scheme needs the points for a game of %(count)d teams."
    assert error.message == "The points scheme needs the points for a game of 4 teams."
    french = {error.template: "Le barème doit donner les points d'une partie à %(count)d équipes."}
    assert (
        error.translated(french.get) == "Le barème doit donner les points d'une partie à 4 équipes."
    )


@pytest.mark.parametrize(
    "results",
    [
        [game(1, {A: 1, E: 2})],  # E not entered
        [game(1, {A: 1, B: 1, C: 2})],  # places 1, 1, 2 (must be 1, 1, 3)
        [game(1, {A: 2, B: 3})],  # no 1st
        [game(1, {A: 1, B: 2}, end={A: 13, B: 12})],  # 25 tables from 24
        [game(1, {A: 1, B: 2}, declared={A: 1}, made={A: 2})],  # made more than declared
        [game(1, {A: 1, B: 2}, declared={C: 1})],  # contracts for a team not in the game
        [game(1, {A: 1, B: 2}), game(1, {A: 1, C: 2})],  # game 1 twice
        [game(1, {A: 1})],  # a game of one team
        [
            GameResult(1, (A, B), {A: 1}, 12, {A: 12, B: 12}, {}, {}),  # B has no place
        ],
    ],
)
def test_results_that_cannot_be_right_are_refused(results):
    with pytest.raises(StandingsError):
        standings([A, B, C, D], results)


def test_a_team_entered_twice_or_negative_byes_are_refused():
    with pytest.raises(StandingsError):
        standings([A, B, A], [])
    with pytest.raises(StandingsError):
        standings([A, B], [], byes={A: -1})
    with pytest.raises(StandingsError):
        standings([A, B], [], byes={C: 1})
    with pytest.raises(StandingsError):
        standings([A, B], [], byes={A: 1}, bye_points=Fraction(-1))


# --- Properties -----------------------------------------------------------------

# Sum of the default row for each number of teams, by hand: 3+1, 4+2+0, 5+3+1+0.
ROW_TOTAL = {2: 4, 3: 6, 4: 9}


@st.composite
def tournaments(draw):
    team_ids = draw(st.lists(st.integers(1, 500), min_size=2, max_size=6, unique=True))
    results = []
    for gid in range(draw(st.integers(0, 8))):
        size = draw(st.integers(2, min(4, len(team_ids))))
        teams = draw(st.permutations(team_ids))[:size]
        # A score per team; places are the competition ranking of the scores (higher better).
        scores = draw(st.lists(st.integers(0, 2), min_size=size, max_size=size))
        places = {
            t: 1 + sum(1 for o in scores if o > s) for t, s in zip(teams, scores, strict=True)
        }
        start = draw(st.integers(1, 12))
        # Tables conserved: move tables from team to team, never below 0.
        end = dict.fromkeys(teams, start)
        for _ in range(draw(st.integers(0, 6))):
            giver, taker = draw(st.permutations(teams))[:2]
            amount = draw(st.integers(0, end[giver]))
            end[giver] -= amount
            end[taker] += amount
        declared = {t: draw(st.integers(0, 3)) for t in teams}
        made = {t: draw(st.integers(0, declared[t])) for t in teams}
        results.append(GameResult(gid, tuple(teams), places, start, end, declared, made))
    return team_ids, results


@settings(max_examples=300, deadline=None)
@given(tournaments())
def test_standings_properties(tournament):
    team_ids, results = tournament
    rows = standings(team_ids, results)
    # A permutation of the teams entered.
    assert sorted(row.team for row in rows) == sorted(team_ids)
    # Places: competition ranking (1, 2, 2, 4 ...), non-decreasing.
    for index, row in enumerate(rows):
        if index == 0:
            assert row.place == 1
        elif row.place != rows[index - 1].place:
            assert row.place == index + 1
        assert row.place <= index + 1
    places = [row.place for row in rows]
    assert places == sorted(places)
    for row in rows:
        assert row.shared == (places.count(row.place) > 1)
    # Points never rise down the table, and add up to what the games awarded.
    assert all(a.points >= b.points for a, b in zip(rows, rows[1:], strict=False))
    assert sum(row.points for row in rows) == sum(ROW_TOTAL[len(r.teams)] for r in results)
    assert sum(row.games for row in rows) == sum(len(r.teams) for r in results)
    assert sum(row.net_tables for row in rows) == 0
    # Teams sharing a place are equal on every criterion.
    for a, b in zip(rows, rows[1:], strict=False):
        if a.place == b.place:
            assert (a.points, a.won, a.net_tables, a.made_share or 0) == (
                b.points,
                b.won,
                b.net_tables,
                b.made_share or 0,
            )


# --- points sheets: the score difference (docs/rules.md section D) --------------------


def sheet(gid, scores, **kwargs):
    """A points-sheet game: places by total, equal totals sharing (as final_places gives)."""
    places = {
        team: 1 + sum(other > score for other in scores.values()) for team, score in scores.items()
    }
    return GameResult(
        game=gid,
        teams=tuple(scores),
        places=places,
        tables_start=12,
        tables_end=dict.fromkeys(scores, 12),
        declared=kwargs.get("declared", {}),
        made=kwargs.get("made", {}),
        scores=dict(scores),
    )


def test_on_a_points_sheet_the_score_difference_decides_where_net_tables_would():
    # G1 (A v B): A 9 - 7 B (A +2).   G2 (C v D): C 11 - 4 D (C +7).
    # G3 (A v D): A 6 - 1 D (A +5).   G4 (C v B): B 8 - 5 C (B +3).
    # Points: A 3+3 = 6; C 3+1 = 4, B 1+3 = 4; D 1+1 = 2. Won: C 1, B 1.
    # Difference: C +7 - 3 = +4, B -2 + 3 = +1: C ahead although B beat C in G4
    # and made every contract it declared (B 2/2, C 0/1).
    results = [
        sheet(1, {A: 9, B: 7}),
        sheet(2, {C: 11, D: 4}),
        sheet(3, {A: 6, D: 1}),
        sheet(4, {C: 5, B: 8}, declared={B: 2, C: 1}, made={B: 2}),
    ]
    rows = standings([A, B, C, D], results)
    assert board(rows) == [(A, 1, 6), (C, 2, 4), (B, 3, 4), (D, 4, 2)]
    assert [row_of(rows, t).score_difference for t in (A, B, C, D)] == [7, 1, 4, -12]
    assert {row.net_tables for row in rows} == {0}


def test_a_game_of_three_on_a_points_sheet_counts_each_other_team():
    # A 6, B 4, C 2: A (6-4) + (6-2) = +6, B (4-6) + (4-2) = 0, C -4 - 2 = -6.
    rows = standings([A, B, C], [sheet(1, {A: 6, B: 4, C: 2})])
    assert [row_of(rows, t).score_difference for t in (A, B, C)] == [6, 0, -6]


@pytest.mark.parametrize("scores", [{A: 3}, {A: 3, B: -1}, {A: 3, B: True}, {A: 3, B: 1.5}])
def test_a_points_sheet_without_every_teams_whole_score_is_refused(scores):
    result = GameResult(1, (A, B), {A: 1, B: 2}, 12, {A: 12, B: 12}, {}, {}, scores=scores)
    with pytest.raises(StandingsError, match="score"):
        standings([A, B], [result])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(st.integers(min_value=0, max_value=90), min_size=2, max_size=4),
        min_size=1,
        max_size=12,
    ),
    st.randoms(use_true_random=False),
)
def test_score_differences_add_up_to_nothing_and_follow_the_totals(games, rng):
    teams = [A, B, C, D, E]
    results = []
    expected = dict.fromkeys(teams, 0)
    for gid, scores in enumerate(games, start=1):
        seated = rng.sample(teams, len(scores))
        results.append(sheet(gid, dict(zip(seated, scores, strict=True))))
        for team, score in zip(seated, scores, strict=True):
            expected[team] += sum(score - other for other in scores)
    rows = standings(teams, results)
    assert sum(row.score_difference for row in rows) == 0
    assert {row.team: row.score_difference for row in rows} == expected
    # Between teams equal on points and wins, a larger difference is never ranked lower
    # (unless the contract share or head-to-head, which come after, were needed).
    for better, worse in zip(rows, rows[1:], strict=False):
        if (better.points, better.won) == (worse.points, worse.won):
            assert better.score_difference >= worse.score_difference
