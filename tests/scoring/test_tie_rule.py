"""A knockout's tie rule in the rules core (docs/rules.md section E, Rules.tie_deals).

A game level at its deal limit plays the extra deals, then one deal at a time
until the totals differ; a game not level ends at its limit as any other.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from club.scoring import rules as core

RULES = core.Rules(tables_per_team=12, deal_limit=2)


def won_by(team: int) -> core.Deal:
    """Team ``team`` (seat ``team`` declares) bids 28 and makes it: one table moves."""
    return core.Deal(points={team: 30, 1 - team: 26}, declarer=team, bid=28, trump="hearts")


def play(rules, winners):
    state = core.initial_state(2, 0, rules)
    for team in winners:
        _, state = core.settle(state, won_by(team))
    return state


def test_without_a_tie_rule_a_level_game_ends_at_its_limit():
    state = play(RULES, [0, 1])
    assert state.leaders_level and state.limit_reached
    assert core.final_places(state) == {0: 1, 1: 1}


def test_a_level_game_plays_the_extra_deals_then_one_at_a_time():
    rules = core.Rules(tables_per_team=12, deal_limit=2, tie_deals=2)
    assert not play(rules, [0, 1]).limit_reached  # level at 2: play on
    assert not play(rules, [0, 1, 0]).limit_reached  # the extra deals are played out
    assert play(rules, [0, 1, 0, 0]).limit_reached  # 4 deals, not level: over
    level = play(rules, [0, 1, 0, 1])
    assert level.leaders_level and not level.limit_reached  # still level: one more
    decided = play(rules, [0, 1, 0, 1, 1])
    assert decided.limit_reached and core.final_places(decided) == {1: 1, 0: 2}
    with pytest.raises(core.GameOver, match="after 5 deals"):
        core.settle(decided, won_by(0))


def test_a_game_not_level_at_its_limit_ends_there():
    rules = core.Rules(tables_per_team=12, deal_limit=2, tie_deals=2)
    state = play(rules, [0, 0])
    assert state.limit_reached and core.final_places(state) == {0: 1, 1: 2}


def test_no_extra_deals_is_sudden_death_from_the_limit():
    rules = core.Rules(tables_per_team=12, deal_limit=2, tie_deals=0)
    assert not play(rules, [0, 1]).limit_reached
    assert play(rules, [0, 1, 1]).limit_reached


@given(st.lists(st.integers(0, 1), min_size=2, max_size=30), st.integers(0, 4))
def test_a_game_under_a_tie_rule_never_ends_level(winners, extra):
    rules = core.Rules(tables_per_team=40, deal_limit=2, tie_deals=extra)
    state = core.initial_state(2, 0, rules)
    for team in winners:
        if state.limit_reached:
            break
        _, state = core.settle(state, won_by(team))
    if state.limit_reached:
        assert not state.leaders_level
        assert state.deals_played >= 2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"deal_limit": 18, "tie_deals": -1}, "not -1"),
        ({"deal_limit": 18, "tie_deals": 25}, "0 to 24 extra deals"),
    ],
)
def test_a_tie_rule_needs_a_sensible_number(kwargs, message):
    with pytest.raises(core.RulesError, match=message):
        core.Rules(**kwargs)


def test_without_a_deal_limit_a_tie_rule_never_ends_the_game_by_itself():
    """A knockout on a tables sheet with no limit: the game ends when a team is out, and
    the rule only stops time being called on a level game (club.games.services)."""
    rules = core.Rules(tables_per_team=2, tie_deals=2)
    state = play(rules, [0, 1])
    assert state.leaders_level and not state.limit_reached
    assert play(rules, [0, 0]).finished
