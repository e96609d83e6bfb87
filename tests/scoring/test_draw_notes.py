"""Tests of how a draw is explained (club/scoring/draw_notes.py).

The property tests draw random tournaments (teams, points, earlier games, byes so
far, teams not checked in, games of 2, 3 and 4 teams) with ``propose_draw`` and
check every word of the explanation against the draw, by code written here.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from club.scoring.draw_notes import (
    adjusted,
    explain_draw,
    explain_stage,
    points_text,
    still_true,
)
from club.scoring.draws import Draw, propose_draw

SETTINGS = settings(max_examples=300, deadline=None)


def met_pairs(history):
    return {frozenset(pair) for game in history for pair in combinations(set(game), 2)}


@st.composite
def tournaments(draw):
    """A sitting about to be drawn: its teams, what the draw is given, and who is absent."""
    size = draw(st.sampled_from([2, 3, 4]))
    count = draw(st.integers(size, 22))
    teams = list(range(101, 101 + count))
    # Points: whole, halves and thirds (a place shared three ways), few values so that
    # groups of several teams are common.
    scores = {
        team: Fraction(draw(st.integers(0, 8)), draw(st.sampled_from([1, 1, 1, 2, 3])))
        for team in teams
    }
    tiebreak = draw(st.permutations(teams))
    ranking = sorted(teams, key=lambda team: (-scores[team], tiebreak.index(team)))
    history = draw(
        st.lists(st.lists(st.sampled_from(teams), min_size=2, max_size=4, unique=True), max_size=40)
    )
    byes_so_far = {team: draw(st.integers(0, 2)) for team in teams}
    absent = draw(st.lists(st.sampled_from(teams), unique=True, max_size=max(0, count - size)))
    swiss = draw(st.booleans())
    return {
        "size": size,
        "present": [team for team in teams if team not in absent],
        "ranking": [team for team in ranking if team not in absent] if swiss else None,
        "history": history,
        "byes_so_far": byes_so_far,
        "scores": scores,
        "absent": absent,
        "seed": draw(st.integers(0, 10**6)),
    }


def draw_and_explain(t):
    draw = propose_draw(
        t["present"],
        ranking=t["ranking"],
        history=t["history"],
        byes_so_far=t["byes_so_far"],
        game_size=t["size"],
        rng=random.Random(t["seed"]),
    )
    notes = explain_draw(
        draw,
        ranking=t["ranking"],
        history=t["history"],
        byes_so_far=t["byes_so_far"],
        scores=t["scores"],
        game_size=t["size"],
        absent=t["absent"],
    )
    return draw, notes


def check_groups(notes, draw, t):
    """Every drawn team is in exactly one group, with its real points; most points first."""
    drawn = [team for game in draw.games for team in game] + draw.byes
    listed = [team for group in notes["groups"] for team in group["teams"]]
    assert sorted(listed) == sorted(drawn)
    for group in notes["groups"]:
        assert {points_text(t["scores"][team]) for team in group["teams"]} == {group["score"]}
    values = [Fraction(group["score"]) for group in notes["groups"]]
    assert values == sorted(set(values), reverse=True)
    assert points_text(Fraction(4, 3)) == "1.33" and points_text(Fraction(6, 2)) == "3"


def seated_at_or_above(draw, t, score):
    return sum(
        1
        for game in draw.games
        for team in game
        if Fraction(points_text(t["scores"][team])) >= score
    )


def check_moved(notes, draw, t):
    """A team is moved exactly when it is at a table of another group than its own."""
    score = {team: Fraction(points_text(t["scores"][team])) for team in t["present"]}
    moved = {line["team"]: line for line in notes["moved"]}
    assert len(moved) == len(notes["moved"])
    seated_scores = {score[team] for game in draw.games for team in game}
    for table, game in enumerate(draw.games, start=1):
        tally = Counter(score[team] for team in game)
        most = max(tally.values())
        home = min(value for value, count in tally.items() if count == most)  # the lowest
        for team in game:
            if score[team] == home:
                assert team not in moved
                continue
            line = moved.pop(team)
            assert line["table"] == table
            assert any(score[other] != score[team] for other in game)
            assert Fraction(line["from"]) == score[team] and Fraction(line["to"]) == home
            assert line["way"] == ("down" if score[team] > home else "up")
            high, low = max(score[team], home), min(score[team], home)
            # The lines crossed: under each group with a team at a table, from the higher
            # of the two groups down to just above the lower.
            crossed = [value for value in seated_scores if high >= value > low]
            uneven = [v for v in crossed if seated_at_or_above(draw, t, v) % t["size"]]
            if line["why"] == "count":
                above = Fraction(line["above"])
                assert above in uneven
            else:
                assert line["why"] == "rematch" and not uneven
    assert not moved  # every team listed was at a table of another group


def check_rematches(notes, draw, t):
    met = met_pairs(t["history"])
    at_tables = {
        (table, frozenset(pair))
        for table, game in enumerate(draw.games, start=1)
        for pair in combinations(game, 2)
        if frozenset(pair) in met
    }
    listed = {(line["table"], frozenset(line["teams"])) for line in notes["rematches"]}
    assert listed == at_tables and len(notes["rematches"]) == len(listed)
    together = {frozenset(pair) for game in draw.games for pair in combinations(game, 2)}
    seated = {team for game in draw.games for team in game}
    for pair in notes.get("avoided", []):
        assert frozenset(pair) in met and frozenset(pair) not in together
        assert set(pair) <= seated


def check_out(notes, draw, t):
    byes = [line for line in notes["out"] if line["why"] == "bye"]
    absent = [line for line in notes["out"] if line["why"] == "absent"]
    assert len(byes) + len(absent) == len(notes["out"])
    assert [line["team"] for line in byes] == draw.byes
    assert sorted(line["team"] for line in absent) == sorted(t["absent"])
    had = t["byes_so_far"]
    playing = [team for game in draw.games for team in game]
    for line in byes:
        team = line["team"]
        assert line["byes"] == had[team]
        # Nobody playing has had fewer byes.
        assert all(had[other] >= had[team] for other in playing)
        if line["how"] == "lowest":
            ranking = t["ranking"]
            equal = [other for other in playing if had[other] == had[team]]
            assert all(ranking.index(other) < ranking.index(team) for other in equal)
        elif line["how"] == "rematch":
            assert line["instead"]
            for other in line["instead"]:
                assert other in playing and had[other] == had[team]
                assert t["ranking"].index(other) > t["ranking"].index(team)
        else:
            assert line["how"] == "random" and notes["method"] == "random"


@SETTINGS
@given(tournaments())
def test_the_explanation_is_true_of_the_draw(t):
    draw, notes = draw_and_explain(t)
    swiss = t["ranking"] is not None and any(t["history"])
    assert notes["method"] == ("swiss" if swiss else "random")
    assert notes["drawn"] == {"games": [list(g) for g in draw.games], "byes": draw.byes}
    check_rematches(notes, draw, t)
    check_out(notes, draw, t)
    if swiss:
        check_groups(notes, draw, t)
        check_moved(notes, draw, t)
        present = set(t["present"])
        met_here = {pair for pair in met_pairs(t["history"]) if pair <= present}
        if not met_here:
            # Nobody had met: the tables are cut in standings order, nothing avoided.
            assert all(line["why"] == "count" for line in notes["moved"])
            assert notes["avoided"] == [] and notes["rematches"] == []
    else:
        assert "groups" not in notes and "moved" not in notes


@st.composite
def adjustments(draw):
    t = draw(tournaments())
    swaps = draw(st.lists(st.tuples(st.integers(0, 99), st.integers(0, 99)), max_size=4))
    drop = draw(st.booleans())
    return t, swaps, drop


def adjust(draw, swaps, drop):
    """The director's changes: teams swapped between tables and byes, perhaps the last
    table dropped (its teams sit out)."""
    places = [team for game in draw.games for team in game] + list(draw.byes)
    for a, b in swaps:
        a, b = a % len(places), b % len(places)
        places[a], places[b] = places[b], places[a]
    size = len(draw.games[0]) if draw.games else 2
    seated = len(draw.games) * size
    games = [places[at : at + size] for at in range(0, seated, size)]
    byes = places[seated:]
    if drop and games:
        byes = byes + games.pop()
    return games, byes


@SETTINGS
@given(adjustments())
def test_a_draw_changed_by_hand_claims_only_what_is_true(case):
    t, swaps, drop = case
    draw, notes = draw_and_explain(t)
    games, byes = adjust(draw, swaps, drop)
    changed = adjusted(notes, games, byes, history=t["history"])
    assert changed["drawn"] == notes["drawn"]  # what the draw made is kept
    true = still_true(changed)
    same = [frozenset(g) for g in games] == [frozenset(g) for g in draw.games] and set(byes) == set(
        draw.byes
    )
    assert ("adjusted" not in changed) == same
    if not same:
        tables = changed["adjusted"]["tables"]
        for number in range(1, max(len(games), len(draw.games)) + 1):
            before = set(draw.games[number - 1]) if number <= len(draw.games) else set()
            after = set(games[number - 1]) if number <= len(games) else set()
            assert (number in tables) == (before != after)
    # Checked against the draw as played now: the tables and byes the director left.
    final = Draw(games=[tuple(g) for g in games], byes=list(byes), rematches=0)
    check_rematches(true, final, t)
    table_of = {team: n for n, game in enumerate(games, 1) for team in game}
    for line in true.get("moved", []):
        assert table_of[line["team"]] == line["table"]
        assert set(games[line["table"] - 1]) == set(draw.games[line["table"] - 1])
    out_byes = sorted(line["team"] for line in true["out"] if line["why"] == "bye")
    assert out_byes == sorted(byes)
    hand = {line["team"] for line in true["out"] if line.get("how") == "hand"}
    assert hand == set(byes) - set(draw.byes)
    assert sorted(line["team"] for line in true["out"] if line["why"] == "absent") == sorted(
        t["absent"]
    )


def test_a_sitting_drawn_before_explanations_stays_silent():
    assert adjusted({}, [[1, 2]], []) == {}
    assert still_true({}) == {}


# --- Worked by hand ---------------------------------------------------------------------------


def test_six_teams_one_moved_down_and_a_rematch_avoided():
    """After one sitting of 3 games (3 points a win, 1 a loss): A, C, E won; G, I, K lost.
    E had played G. In standings order the tables would be A-C, E-G, I-K: E and G met,
    so E plays I, and G plays K. E was moved down: three teams on 3 points cannot fill
    whole tables of two."""
    a, c, e, g, i, k = 1, 3, 5, 7, 9, 11
    history = [[a, k], [c, i], [e, g]]
    ranking = [a, c, e, g, i, k]
    scores = {a: 3, c: 3, e: 3, g: 1, i: 1, k: 1}
    draw = propose_draw(ranking, ranking=ranking, history=history, rng=random.Random(1))
    assert [set(game) for game in draw.games] == [{a, c}, {e, i}, {g, k}]
    notes = explain_draw(draw, ranking=ranking, history=history, scores=scores)
    assert notes["groups"] == [
        {"score": "3", "teams": [a, c, e]},
        {"score": "1", "teams": [g, i, k]},
    ]
    assert notes["moved"] == [
        {"team": e, "table": 2, "from": "3", "to": "1", "way": "down", "why": "count", "above": "3"}
    ]
    assert notes["avoided"] == [[e, g]]
    assert notes["rematches"] == [] and notes["out"] == []


def test_a_move_to_keep_apart_teams_that_met():
    """Four teams on 2 points, two on 0: tables of two fill each group, but A had met B,
    C had met D and A had met C... so a team crosses a line the numbers did not force."""
    a, b, c, d, e, f = range(1, 7)
    ranking = [a, b, c, d, e, f]
    scores = {a: 2, b: 2, c: 2, d: 2, e: 0, f: 0}
    history = [[a, b], [a, c], [a, d]]
    draw = propose_draw(ranking, ranking=ranking, history=history, rng=random.Random(1))
    notes = explain_draw(draw, ranking=ranking, history=history, scores=scores)
    assert [set(game) for game in draw.games] == [{a, e}, {b, c}, {d, f}]
    assert {line["team"]: line["why"] for line in notes["moved"]} == {a: "rematch", d: "rematch"}
    assert notes["avoided"] == [[a, b]]


def test_byes_lowest_placed_or_given_elsewhere_to_avoid_a_rematch():
    ranking = [1, 2, 3]
    draw = propose_draw(ranking, ranking=ranking, history=[[1, 2]], rng=random.Random(1))
    notes = explain_draw(draw, ranking=ranking, history=[[1, 2]], scores=dict.fromkeys(ranking, 1))
    # The bye would go to 3, leaving 1 and 2 to meet again: 2 sits out instead.
    assert draw.byes == [2]
    assert notes["out"] == [{"team": 2, "why": "bye", "how": "rematch", "byes": 0, "instead": [3]}]
    draw = propose_draw(ranking, ranking=ranking, history=[[1, 3]], rng=random.Random(1))
    notes = explain_draw(
        draw, ranking=ranking, history=[[1, 3]], scores=dict.fromkeys(ranking, 1), absent=[9]
    )
    assert notes["out"] == [
        {"team": 3, "why": "bye", "how": "lowest", "byes": 0},
        {"team": 9, "why": "absent"},
    ]


def test_a_stage_sitting_says_whose_opponent_is_missing():
    draw = Draw(games=[(1, 2)], byes=[5, 3], rematches=0)
    notes = explain_stage(
        draw,
        bracket=False,
        chart_games=[(1, 2), (3, 4)],
        chart_byes=[5],
        absent=[4],
    )
    assert notes["method"] == "chart"
    assert notes["out"] == [
        {"team": 5, "why": "bye", "how": "chart"},
        {"team": 3, "why": "bye", "how": "absent_opponent", "opponent": 4},
        {"team": 4, "why": "absent"},
    ]
    knockout = explain_stage(Draw(games=[(1, 2)], byes=[], rematches=0), bracket=True)
    assert knockout["method"] == "bracket" and knockout["out"] == []


def test_the_standings_must_be_by_points():
    with pytest.raises(ValueError, match="by points"):
        explain_draw(
            Draw(games=[(1, 2)], byes=[], rematches=0),
            ranking=[1, 2],
            history=[[1, 2]],
            scores={1: 0, 2: 3},
        )
