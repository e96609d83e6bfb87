"""A competition's table (club.scoring.seasons; docs/rules.md section F)."""

from __future__ import annotations

from datetime import date, timedelta
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from club.scoring import seasons
from club.scoring.seasons import MATCH_POINTS, PLACES, Night, Result, Rule, SeasonError, table

DAY = date(2026, 1, 6)


def night(number: int, places: dict[int, int], points: dict[int, int] | None = None) -> Night:
    """Night ``number`` (a week apart), each line's place; sharing counted from places."""
    counts = {place: list(places.values()).count(place) for place in places.values()}
    return Night(
        key=f"n{number}",
        day=DAY + timedelta(weeks=number),
        results={
            line: Result(place, counts[place], Fraction((points or {}).get(line, 0)))
            for line, place in places.items()
        },
    )


def places_of(rows) -> dict[int, int | None]:
    return {row.line: row.place for row in rows}


def test_places_earn_the_rules_points_and_a_shared_place_splits_them():
    rule = Rule(PLACES, (10, 6, 4, 2))
    assert seasons.night_score(rule, Result(1)) == 10
    assert seasons.night_score(rule, Result(2, 2)) == 5  # (6 + 4) / 2
    assert seasons.night_score(rule, Result(4, 2)) == 1  # (2 + 0) / 2: past the table is 0
    assert seasons.night_score(rule, Result(9)) == 0


def test_best_n_of_m_drops_the_worst_nights_and_keeps_the_later_of_equals():
    nights = [night(1, {1: 1, 2: 2}), night(2, {1: 2, 2: 1}), night(3, {1: 2, 2: 1})]
    rows = table(nights, Rule(PLACES, (3, 1), best=2), [1, 2])
    first, second = rows
    assert (first.line, first.total, first.counted, first.dropped) == (2, 6, ("n2", "n3"), ("n1",))
    # Line 1: 3, 1, 1; best two are n1 (3) and the later of the two 1s (n3).
    assert (second.total, second.counted, second.dropped) == (4, ("n1", "n3"), ("n2",))


def test_a_line_under_the_minimum_is_listed_below_without_a_place():
    nights = [night(1, {1: 1, 2: 2}), night(2, {2: 1, 3: 2})]
    rows = table(nights, Rule(PLACES, (3, 1), minimum=2), [1, 2, 3])
    assert [(row.line, row.place) for row in rows] == [(2, 1), (1, None), (3, None)]


def test_level_totals_are_parted_by_nights_won_first():
    # 1 wins one night and is last in another; 2 is second twice: 4 points each.
    nights = [night(1, {1: 1, 2: 2, 3: 3}), night(2, {1: 3, 2: 2, 3: 1})]
    rows = table(nights, Rule(PLACES, (3, 2, 1)), [2, 1, 3])
    # All three have 4; 2 won no night. 1 and 3 met twice, one each: 3 won the later.
    assert [row.line for row in rows] == [3, 1, 2]
    assert [row.decided_by for row in rows] == [seasons.LATEST, seasons.LATEST, seasons.WON]


def test_then_head_to_head():
    # 1 and 2 each win once and are level on total; 1 placed above 2 in two of three meetings.
    nights = [
        night(1, {1: 1, 2: 2, 3: 3}),
        night(2, {2: 1, 3: 2, 1: 3}),
        night(3, {4: 1, 1: 2, 2: 3}),
    ]
    rows = table(nights, Rule(PLACES, (6, 4, 2, 1)), [2, 1, 3, 4])
    lines = {row.line: row for row in rows}
    assert lines[1].total == lines[2].total == 12
    assert [row.line for row in rows] == [1, 2, 4, 3]  # 4 won a night, 3 none
    assert lines[1].decided_by == lines[2].decided_by == seasons.HEAD_TO_HEAD


def test_then_the_latest_night_and_else_a_shared_place():
    # Four lines of 8 points and one win each; 1 and 3 met once each way, the others never:
    # the latest night puts 4 (first in it) before 2, then the night before 3 before 1.
    nights = [
        night(1, {1: 1, 3: 2}),
        night(2, {2: 1, 4: 2}),
        night(3, {3: 1, 1: 2}),
        night(4, {4: 1, 2: 2}),
    ]
    rows = table(nights, Rule(PLACES, (5, 3)), [1, 2, 3, 4])
    assert {row.total for row in rows} == {8}
    assert [(row.line, row.place, row.decided_by) for row in rows] == [
        (4, 1, seasons.LATEST),
        (2, 2, seasons.LATEST),
        (3, 3, seasons.LATEST),
        (1, 4, seasons.LATEST),
    ]
    twins = table([night(1, {1: 1, 2: 2}), night(2, {2: 1, 1: 2})], Rule(PLACES, (3, 1)), [2, 1])
    assert [(row.line, row.place, row.shared) for row in twins] == [(2, 1, False), (1, 2, False)]
    level = table([night(1, {1: 1, 2: 1})], Rule(PLACES, (3, 1)), [2, 1])
    assert [(row.line, row.place, row.shared, row.decided_by) for row in level] == [
        (2, 1, True, seasons.SHARED),
        (1, 1, True, seasons.SHARED),
    ]


def test_match_points_are_summed():
    nights = [night(1, {1: 1, 2: 2}, {1: 7, 2: 2}), night(2, {1: 2, 2: 1}, {1: 1, 2: 5})]
    rows = table(nights, Rule(MATCH_POINTS, ()), [1, 2])
    assert [(row.line, row.total) for row in rows] == [(1, 8), (2, 7)]


@pytest.mark.parametrize(
    ("rule", "field"),
    [
        ({"method": "wins"}, None),
        ({"place_points": ()}, "place_points"),
        ({"place_points": (3, 5)}, "place_points"),
        ({"place_points": (3, -1)}, "place_points"),
        ({"best": 0}, "best"),
        ({"minimum": -1}, "minimum"),
    ],
)
def test_a_rule_that_cannot_be_scored_is_refused_naming_its_field(rule, field):
    with pytest.raises(SeasonError) as refused:
        Rule(**rule)
    assert refused.value.field == field


def test_the_events_of_one_day_are_equally_late():
    # A circuit's two clubs hold their cups on one day: each cup's winner has 10 and a
    # night won alone, the two never met, and that day is their only one. Equally late and
    # equally placed, they share first, whichever cup is listed later.
    cups = [
        Night("home", DAY, {1: Result(1), 2: Result(2)}),
        Night("gulf", DAY, {3: Result(1), 4: Result(2)}, order=1),
    ]
    rows = table(cups, Rule(PLACES, (10, 6)), [1, 2, 3, 4])
    assert [(row.line, row.place, row.shared, row.decided_by) for row in rows] == [
        (1, 1, True, seasons.SHARED),
        (3, 1, True, seasons.SHARED),
        (2, 3, True, seasons.SHARED),
        (4, 3, True, seasons.SHARED),
    ]
    # A day later still counts first: line 2, second in the last cup, leads line 1.
    later = [*cups, Night("final", DAY + timedelta(days=1), {2: Result(1), 1: Result(2)})]
    rows = table(later, Rule(PLACES, (10, 6)), [1, 2, 3, 4])
    assert places_of(rows)[2] < places_of(rows)[1]


# --- properties -----------------------------------------------------------------------


@st.composite
def seasons_of(draw):
    lines = draw(st.integers(2, 7))
    count = draw(st.integers(1, 8))
    nights = []
    for number in range(count):
        playing = draw(st.lists(st.integers(1, lines), min_size=1, max_size=lines, unique=True))
        places = {line: draw(st.integers(1, len(playing))) for line in playing}
        ranked = {
            line: 1 + sum(1 for other in places.values() if other < place)
            for line, place in places.items()
        }
        nights.append(night(number, ranked, {line: draw(st.integers(0, 9)) for line in playing}))
    method = draw(st.sampled_from([PLACES, MATCH_POINTS]))
    rule = Rule(
        method,
        draw(st.sampled_from(list(seasons.PRESETS.values()))),
        best=draw(st.none() | st.integers(1, 8)),
        minimum=draw(st.integers(0, 4)),
    )
    return nights, rule, list(range(1, lines + 1))


@settings(max_examples=300, deadline=None)
@given(seasons_of())
def test_every_line_counts_its_best_nights_and_the_table_is_in_order(season):
    nights, rule, order = season
    rows = table(nights, rule, order)
    assert sorted(row.line for row in rows) == order
    for row in rows:
        played = set(row.scores)
        assert set(row.counted) | set(row.dropped) == played
        assert not set(row.counted) & set(row.dropped)
        assert len(row.counted) == (
            len(played) if rule.best is None else min(rule.best, len(played))
        )
        assert row.total == sum(row.scores[key] for key in row.counted)
        assert all(
            row.scores[kept] >= row.scores[gone] for kept in row.counted for gone in row.dropped
        )
        assert (row.place is None) == (row.nights < max(rule.minimum, 1))
    ranked = [row for row in rows if row.place is not None]
    assert all(a.total >= b.total for a, b in zip(ranked, ranked[1:], strict=False))
    assert all(row.place is None for row in rows[len(ranked) :])
    for at, row in enumerate(ranked):
        assert row.place == 1 + sum(1 for other in ranked if other.place < row.place)
        assert row.place <= at + 1


@settings(max_examples=200, deadline=None)
@given(seasons_of(), st.randoms())
def test_the_order_nights_and_lines_come_in_changes_no_place(season, shuffler):
    nights, rule, order = season
    before = {row.line: (row.place, row.total, row.shared) for row in table(nights, rule, order)}
    nights, order = nights[:], order[:]
    shuffler.shuffle(nights)
    shuffler.shuffle(order)
    after = {row.line: (row.place, row.total, row.shared) for row in table(nights, rule, order)}
    assert after == before


@settings(max_examples=200, deadline=None)
@given(seasons_of(), st.lists(st.integers(0, 2), min_size=8, max_size=8))
def test_the_order_of_one_days_nights_changes_no_place(season, days):
    # The season's nights moved onto three days: listing each day's nights the other way
    # round (their order and keys reversed) moves nobody.
    nights, rule, order = season
    on_days = [
        Night(n.key, DAY + timedelta(days=days[at]), n.results, order=at)
        for at, n in enumerate(nights)
    ]
    flipped = [Night(f"z{99 - at}", n.day, n.results, order=-at) for at, n in enumerate(on_days)]
    before = {row.line: (row.place, row.shared) for row in table(on_days, rule, order)}
    after = {row.line: (row.place, row.shared) for row in table(flipped, rule, order)}
    assert after == before


def test_lines_still_level_among_themselves_say_what_set_them_apart_from_the_rest():
    # Two pairs of partners, each pair always placed together: the four have 11 each, no
    # night won alone, one meeting each way; the latest night puts 3 and 4 first.
    nights = [night(1, {1: 1, 2: 1, 3: 3, 4: 3}), night(2, {3: 1, 4: 1, 1: 3, 2: 3})]
    rows = table(nights, Rule(PLACES, (10, 6, 4, 2)), [1, 2, 3, 4])
    assert [(row.line, row.place, row.shared, row.decided_by) for row in rows] == [
        (3, 1, True, seasons.LATEST),
        (4, 1, True, seasons.LATEST),
        (1, 3, True, seasons.LATEST),
        (2, 3, True, seasons.LATEST),
    ]
