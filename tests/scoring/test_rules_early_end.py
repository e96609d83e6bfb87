"""Games a tournament stops early: GameState.places_by_tables and final_places.

Expected places are worked out by hand: teams still playing by tables held
(most first, equal tables share a place and skip the next: 1, 2, 2, 4), then
the teams already out in reverse order of going out.
"""

from club.scoring import rules as core
from club.scoring.rules import DEFAULT_RULES, Deal, GameState, Rules, final_places, replay


def state(tables, out_order=(), rules=DEFAULT_RULES):
    return GameState(
        rules=rules,
        team_count=len(tables),
        tables=list(tables),
        dealer=0,
        out_order=[tuple(group) for group in out_order],
    )


def test_no_deal_played_everyone_shares_first():
    # 3 teams on 12 tables each: all equal, all 1st.
    start = core.initial_state(3, 0)
    assert start.places_by_tables() == {0: 1, 1: 1, 2: 1}
    assert final_places(start) == {0: 1, 1: 1, 2: 1}


def test_stopped_after_one_deal_most_tables_first_and_equal_tables_share():
    # Dealer seat 0; seat 1 (team 1) bids 28 hearts and takes 30 of 56: made,
    # each other team pays 1 table. Tables: T0 12-1 = 11, T1 12+2 = 14, T2 11.
    deal = Deal(points={0: 10, 1: 30, 2: 16}, declarer=1, bid=28, trump="hearts")
    _settlements, after = replay(3, 0, [deal])
    assert after.tables == [11, 14, 11]
    # T1 alone on 14 is 1st; T0 and T2 share 2nd on 11; no 3rd.
    assert after.places_by_tables() == {1: 1, 0: 2, 2: 2}
    assert final_places(after) == {1: 1, 0: 2, 2: 2}
    # places() still reads the game as unfinished: everyone playing shares 1st.
    assert after.places() == {0: 1, 1: 1, 2: 1}


def test_four_way_shape_1_2_2_4_with_a_team_out():
    # T1 is out; of those playing T0 holds 20, T2 and T3 14 each (20+0+14+14 = 48).
    # T0 1st, T2 and T3 share 2nd, 3rd skipped, T1 (out) 4th.
    game = state([20, 0, 14, 14], out_order=[(1,)])
    assert game.places_by_tables() == {0: 1, 2: 2, 3: 2, 1: 4}


def test_teams_out_come_after_all_teams_playing_in_reverse_order_of_going_out():
    # T1 went out first, then T3. T2 holds just 1 table yet is still playing,
    # so it ranks above both (47 + 0 + 1 + 0 = 48 = 4 x 12). Playing: T0 (47)
    # 1st, T2 (1) 2nd; then T3 3rd (out later), T1 4th (out first).
    game = state([47, 0, 1, 0], out_order=[(1,), (3,)])
    assert game.places_by_tables() == {0: 1, 2: 2, 3: 3, 1: 4}


def test_teams_out_in_the_same_deal_share_their_place():
    # T2 and T3 went out together: playing T0 and T1 hold 24 each and share 1st;
    # T2 and T3 share 3rd (two places after the two teams playing).
    game = state([24, 24, 0, 0], out_order=[(2, 3)])
    assert game.places_by_tables() == {0: 1, 1: 1, 2: 3, 3: 3}


def test_replayed_four_team_game_stopped_after_two_deals():
    rules = Rules(tables_per_team=3)
    deals = [
        # Dealer seat 0. Seat 1 (T1) bids 40 and takes 50: made, band 40-47
        # moves 2 tables from each other team. T0 3-2 = 1, T1 3+6 = 9, T2 1, T3 1.
        Deal(points={0: 2, 1: 50, 2: 2, 3: 2}, declarer=1, bid=40, trump="spades"),
        # Dealer seat 1. Seat 2 (T2) bids 28 and takes 20: failed, owes 2 to each
        # of 3 teams but holds 1, so pays its 1 table shared evenly: 0 each with
        # 1 left over, which goes to the team seated after T2, i.e. T3.
        # T0 1, T1 9, T2 0 (out), T3 2.
        Deal(points={0: 10, 1: 10, 2: 20, 3: 16}, declarer=2, bid=28, trump="clubs"),
    ]
    _settlements, after = replay(4, 0, deals, rules)
    assert after.tables == [1, 9, 0, 2]
    assert not after.finished
    # Playing: T1 (9) 1st, T3 (2) 2nd, T0 (1) 3rd; T2 (out) 4th.
    assert after.places_by_tables() == {1: 1, 3: 2, 0: 3, 2: 4}
    assert final_places(after) == {1: 1, 3: 2, 0: 3, 2: 4}


def test_final_places_of_a_won_game_are_by_going_out():
    # 2 tables each, 3 teams. Dealer seat 0; seat 0 (T0) bids 40 and takes 44:
    # made, 2 tables from each other team, who each hold exactly 2: T1 and T2
    # both go out in this deal. T0 holds 6 and wins; T1 and T2 share 2nd.
    rules = Rules(tables_per_team=2)
    deal = Deal(points={0: 44, 1: 6, 2: 6}, declarer=0, bid=40, trump="no-trumps")
    _settlements, after = replay(3, 0, [deal], rules)
    assert after.finished
    assert after.tables == [6, 0, 0]
    assert final_places(after) == {0: 1, 1: 2, 2: 2}
    assert final_places(after) == after.places()


def test_final_places_of_a_won_game_with_teams_out_in_turn():
    # T1 out first, then T2; T0 left alone with all 36 tables.
    # Winner 1st, T2 2nd (out last), T1 3rd.
    game = state([36, 0, 0], out_order=[(1,), (2,)])
    assert game.finished
    assert final_places(game) == {0: 1, 2: 2, 1: 3}


def test_places_is_unchanged_by_the_addition():
    # The existing reading: teams still playing share 1st whatever they hold.
    game = state([20, 0, 14, 14], out_order=[(1,)])
    assert game.places() == {0: 1, 2: 1, 3: 1, 1: 4}
