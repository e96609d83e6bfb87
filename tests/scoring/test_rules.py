"""Unit tests of the rules core (club/scoring/rules.py) against docs/rules.md.

Every expected number here was worked out by hand from docs/rules.md (sections A
and B, and C for the club settings); the comments show the working.

Seats in play order (docs/rules.md A): with teams T0..Tn-1 the seats are
``T0.first, T1.first, ..., Tn-1.first, T0.second, ...``, so seat ``s`` belongs
to team ``s % n``.
"""

import pytest

from club.scoring import rules as core
from club.scoring.rules import (
    DEFAULT_RULES,
    Band,
    Deal,
    DealError,
    GameOver,
    Rules,
    RulesError,
    card_setup,
    replay,
    seat_order,
    settle,
)


def new_state(teams=2, dealer=0, tables=None, rules=DEFAULT_RULES):
    state = core.initial_state(teams, dealer, rules)
    if tables is not None:
        state.tables = list(tables)
    return state


def bid(points, declarer, amount, trump="hearts", doubling="none"):
    return Deal(points=points, declarer=declarer, bid=amount, trump=trump, doubling=doubling)


# --- Seats and cards ---------------------------------------------------------


def test_seat_order_alternates_teams():
    assert seat_order(2) == [(0, 0), (1, 0), (0, 1), (1, 1)]
    assert seat_order(3) == [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)]
    assert seat_order(4) == [(0, 0), (1, 0), (2, 0), (3, 0), (0, 1), (1, 1), (2, 1), (3, 1)]


@pytest.mark.parametrize("teams", [2, 3, 4])
def test_partners_never_sit_together(teams):
    seats = seat_order(teams)
    for seat, (team, _partner) in enumerate(seats):
        neighbour = seats[(seat + 1) % len(seats)]
        assert neighbour[0] != team


@pytest.mark.parametrize(
    ("players", "removed", "used", "each", "ranks"),
    [
        (4, "2–8", 48, 12, ("J", "9", "A", "10", "K", "Q")),
        (6, "2–8", 48, 8, ("J", "9", "A", "10", "K", "Q")),
        (8, "2–6", 64, 8, ("J", "9", "A", "10", "K", "Q", "8", "7")),
    ],
)
def test_card_setup(players, removed, used, each, ranks):
    setup = card_setup(players)
    assert setup.players == players
    assert setup.removed == removed
    assert setup.cards_used == used
    assert setup.cards_each == each
    assert setup.ranks == ranks
    # Two packs of four suits of these ranks, dealt out evenly.
    assert len(ranks) * 4 * 2 == used == each * players
    # J=3, 9=2, A=1, 10=1: 7 a suit, 28 a pack, 56 in the two packs.
    assert dict(setup.points) == {"J": 3, "9": 2, "A": 1, "10": 1}
    assert sum(dict(setup.points).values()) * 4 * 2 == 56


@pytest.mark.parametrize("players", [0, 2, 3, 5, 7, 10])
def test_card_setup_refuses_other_tables(players):
    with pytest.raises(RulesError):
        card_setup(players)


def test_eight_players_become_six_when_a_team_goes_out():
    # 4 teams: T3 declares 28 and fails by one, holding just 1 table (docs/rules.md
    # B.2): it pays that one table to the team seated after it, T0, and is out.
    state = new_state(4, tables=[12, 12, 12, 1])
    assert card_setup(state.seated_players).cards_used == 64
    settlement, after = settle(state, bid({0: 10, 1: 10, 2: 9, 3: 27}, 3, 28))
    assert settlement.transfers == {0: 1, 1: 0, 2: 0, 3: -1}
    assert settlement.eliminated == (3,)
    assert after.seated_players == 6
    six = card_setup(after.seated_players)
    assert (six.cards_used, six.cards_each, six.removed) == (48, 8, "2–8")


def test_initial_state():
    state = core.initial_state(3, 4)
    assert state.tables == [12, 12, 12]
    assert state.dealer == 4
    assert state.first_bidder == 5
    assert state.deals_played == 0
    assert not state.finished
    assert state.places() == {0: 1, 1: 1, 2: 1}


@pytest.mark.parametrize("teams", [0, 1, 5])
def test_initial_state_refuses_wrong_number_of_teams(teams):
    with pytest.raises(RulesError):
        core.initial_state(teams, 0)


@pytest.mark.parametrize("dealer", [-1, 4, 9])
def test_initial_state_refuses_a_dealer_not_seated(dealer):
    with pytest.raises(RulesError) as caught:
        core.initial_state(2, dealer)
    assert caught.value.field == "first_dealer"


# --- The payout table ----------------------------------------------------------

# bid, doubling, tables moved when made, when failed (docs/rules.md A: the table,
# then x2 doubled and x4 redoubled). Both ends of every band are tested.
PAYOUTS = [
    (28, "none", 1, 2),
    (28, "double", 2, 4),
    (28, "redouble", 4, 8),
    (39, "none", 1, 2),
    (39, "double", 2, 4),
    (39, "redouble", 4, 8),
    (40, "none", 2, 3),
    (40, "double", 4, 6),
    (40, "redouble", 8, 12),
    (47, "none", 2, 3),
    (47, "double", 4, 6),
    (47, "redouble", 8, 12),
    (48, "none", 3, 4),
    (48, "double", 6, 8),
    (48, "redouble", 12, 16),
    (55, "none", 3, 4),
    (55, "double", 6, 8),
    (55, "redouble", 12, 16),
    (56, "none", 4, 5),
    (56, "double", 8, 10),
    (56, "redouble", 16, 20),
]

# Plenty of tables so that no team is short and the band alone decides.
RICH = Rules(tables_per_team=50)


@pytest.mark.parametrize(("amount", "doubling", "made", "failed"), PAYOUTS)
def test_made_contract_receives_from_each_other_team(amount, doubling, made, failed):
    # 3 teams; Dev (seat 4, team 1) declares and takes exactly the bid.
    rest = 56 - amount
    points = {0: rest // 2, 1: amount, 2: rest - rest // 2}
    settlement, after = settle(new_state(3, rules=RICH), bid(points, 4, amount, "spades", doubling))
    assert settlement.made is True
    assert settlement.declaring_team == 1
    assert settlement.transfers == {0: -made, 1: 2 * made, 2: -made}
    assert after.tables == [50 - made, 50 + 2 * made, 50 - made]
    assert settlement.eliminated == ()


@pytest.mark.parametrize(("amount", "doubling", "made", "failed"), PAYOUTS)
def test_failed_contract_pays_each_other_team(amount, doubling, made, failed):
    # One point short of the bid fails.
    rest = 56 - (amount - 1)
    points = {0: rest // 2, 1: amount - 1, 2: rest - rest // 2}
    settlement, after = settle(new_state(3, rules=RICH), bid(points, 4, amount, "spades", doubling))
    assert settlement.made is False
    assert settlement.transfers == {0: failed, 1: -2 * failed, 2: failed}
    assert after.tables == [50 + failed, 50 - 2 * failed, 50 + failed]


@pytest.mark.parametrize(
    ("points", "declarer", "amount", "tables"),
    [
        # Anu (seat 0, team 0) bids 28 and takes 30: made, Chitra & Dev pay 1.
        ({0: 30, 1: 26}, 0, 28, [13, 11]),
        # Biju (seat 2, team 0) bids 40 and takes 39: failed, pays 3.
        ({0: 39, 1: 17}, 2, 40, [9, 15]),
        # Dev (seat 3, team 1) bids 56 and takes all 56: made, receives 4.
        ({0: 0, 1: 56}, 3, 56, [8, 16]),
        # Chitra (seat 1, team 1) bids 48, takes 47: failed, pays 4.
        ({0: 9, 1: 47}, 1, 48, [16, 8]),
    ],
)
def test_two_team_deals_with_default_rules(points, declarer, amount, tables):
    _settlement, after = settle(new_state(2), bid(points, declarer, amount))
    assert after.tables == tables


def test_settlement_reports_the_deal():
    state = new_state(2, dealer=3)
    settlement, after = settle(state, bid({0: 20, 1: 36}, 1, 35, "diamonds", "double"))
    assert settlement.number == 1
    assert settlement.dealer == 3
    assert settlement.first_bidder == 0  # the seat after the last one wraps to seat 0
    assert settlement.declarer == 1
    assert settlement.declaring_team == 1
    assert settlement.all_pass is False
    assert settlement.bid == 35
    assert settlement.trump == core.Trump.DIAMONDS
    assert settlement.doubling == core.Doubling.DOUBLE
    assert settlement.points == {0: 20, 1: 36}
    assert settlement.made is True
    assert settlement.transfers == {0: -2, 1: 2}
    assert settlement.tables_after == (10, 14)
    assert after.deals_played == 1
    assert after.dealer == 0
    # settle does not touch the state it was given
    assert state.tables == [12, 12] and state.dealer == 3 and state.deals_played == 0


# --- All pass (docs/rules.md A and B.1) ------------------------------------------


@pytest.mark.parametrize(
    ("dealer", "first_bidder", "contracted"),
    [
        (0, 1, 1),  # Anu deals: Chitra bids first, Chitra & Dev are contracted
        (1, 2, 0),  # Chitra deals: Biju bids first
        (2, 3, 1),  # Biju deals: Dev bids first
        (3, 0, 0),  # Dev deals: Anu bids first (wrap-around)
    ],
)
def test_all_pass_with_two_teams_contracts_the_team_that_did_not_deal(
    dealer, first_bidder, contracted
):
    dealing_team = dealer % 2
    points = {contracted: 28, 1 - contracted: 28}
    settlement, after = settle(new_state(2, dealer=dealer), Deal(points))
    assert settlement.all_pass is True
    assert settlement.declarer is None
    assert settlement.first_bidder == first_bidder
    assert settlement.declaring_team == contracted != dealing_team
    assert settlement.bid == 28
    assert settlement.trump == core.Trump.NO_TRUMPS
    assert settlement.doubling == core.Doubling.NONE
    # 28 of 28 taken: made, the other team pays 1.
    assert settlement.made is True
    assert settlement.transfers == {contracted: 1, 1 - contracted: -1}


def test_all_pass_with_three_teams_contracts_the_first_bidders_team():
    # Esha (seat 2, team 2) deals; Biju (seat 3, team 0) bids first.
    points = {0: 27, 1: 15, 2: 14}
    settlement, after = settle(new_state(3, dealer=2), Deal(points))
    assert settlement.first_bidder == 3
    assert settlement.declaring_team == 0
    # 27 < 28: failed, pays 2 to each other team.
    assert settlement.made is False
    assert settlement.transfers == {0: -4, 1: 2, 2: 2}
    assert after.dealer == 3


def test_all_pass_accepts_the_implied_bid_and_trump():
    deal = Deal({0: 20, 1: 36}, declarer=None, bid=28, trump="no-trumps")
    settlement, _after = settle(new_state(2), deal)
    assert settlement.declaring_team == 1
    assert settlement.made is True


@pytest.mark.parametrize("doubling", ["double", "redouble"])
def test_all_pass_cannot_be_doubled(doubling):
    with pytest.raises(RulesError) as caught:
        settle(new_state(2), Deal({0: 28, 1: 28}, doubling=doubling))
    assert caught.value.field == "doubling"


def test_all_pass_cannot_name_another_bid():
    with pytest.raises(RulesError) as caught:
        settle(new_state(2), Deal({0: 28, 1: 28}, bid=30))
    assert caught.value.field == "bid"


def test_all_pass_cannot_name_a_trump():
    with pytest.raises(RulesError) as caught:
        settle(new_state(2), Deal({0: 28, 1: 28}, trump="hearts"))
    assert caught.value.field == "trump"


# --- Paying with too few tables (docs/rules.md B.2) -------------------------------


def test_made_contract_each_other_team_pays_what_it_can():
    # T0 bids 48 doubled and makes it: 6 owed by each other team. T1 holds only 2
    # and pays 2 (and is out); T2 pays 6 in full.
    state = new_state(3, tables=[20, 2, 14])
    settlement, after = settle(state, bid({0: 50, 1: 3, 2: 3}, 0, 48, "clubs", "double"))
    assert settlement.transfers == {0: 8, 1: -2, 2: -6}
    assert after.tables == [28, 0, 8]
    assert settlement.eliminated == (1,)


def test_made_contract_takes_everything_from_a_two_team_opponent():
    # 56 redoubled made: 16 owed, Chitra & Dev hold 12, they pay 12 and the game ends.
    settlement, after = settle(new_state(2), bid({0: 56, 1: 0}, 0, 56, "clubs", "redouble"))
    assert settlement.transfers == {0: 12, 1: -12}
    assert after.tables == [24, 0]
    assert after.finished and after.winner == 0
    assert after.places() == {0: 1, 1: 2}


def test_failed_contract_paying_exactly_everything_it_holds():
    # 28 failed owes 2 to each of two teams; T0 holds exactly 4: pays in full, out.
    state = new_state(3, tables=[4, 16, 16])
    settlement, after = settle(state, bid({0: 10, 1: 23, 2: 23}, 0, 28))
    assert settlement.transfers == {0: -4, 1: 2, 2: 2}
    assert settlement.eliminated == (0,)


@pytest.mark.parametrize(
    ("teams", "tables", "declarer", "amount", "transfers"),
    [
        # 3 teams, T0 holds 5 and fails 40 (3 owed to each, 6 in all): 5 shared
        # as 2 + 2, the remainder of 1 to T1, the team seated after T0.
        (3, [5, 15, 16], 0, 40, {0: -5, 1: 3, 2: 2}),
        # Same from T1: the remainder goes to T2.
        (3, [15, 5, 16], 1, 40, {0: 2, 1: -5, 2: 3}),
        # T2 is last in the order: the remainder wraps round to T0.
        (3, [15, 16, 5], 2, 40, {0: 3, 1: 2, 2: -5}),
        # 4 teams, T1 holds 2 and fails 48 (4 owed each): 2 shared among 3 is 0
        # each, remainder 2 to T2 then T3; T0 gets nothing.
        (4, [14, 2, 16, 16], 1, 48, {0: 0, 1: -2, 2: 1, 3: 1}),
        # 4 teams, T2 holds 5: 1 each, remainder 2 to T3 and then (wrapping) T0.
        (4, [14, 15, 5, 14], 2, 48, {0: 2, 1: 1, 2: -5, 3: 2}),
        # 4 teams, T3 holds 7: 2 each, remainder 1 to T0 (wrapping).
        (4, [13, 14, 14, 7], 3, 48, {0: 3, 1: 2, 2: 2, 3: -7}),
        # 4 teams, T3 holds 11: 3 each, remainder 2 to T0, T1.
        (4, [13, 12, 12, 11], 3, 48, {0: 4, 1: 4, 2: 3, 3: -11}),
    ],
)
def test_failed_contract_shares_what_it_holds(teams, tables, declarer, amount, transfers):
    state = new_state(teams, tables=tables)
    declaring_team = declarer % teams
    others = [team for team in range(teams) if team != declaring_team]
    points = dict.fromkeys(others, 0)
    points[declaring_team] = amount - 1
    points[others[0]] = 56 - (amount - 1)
    settlement, after = settle(state, bid(points, declarer, amount))
    assert settlement.made is False
    assert settlement.transfers == transfers
    assert after.tables[declaring_team] == 0
    assert settlement.eliminated == (declaring_team,)
    assert sum(after.tables) == sum(tables)


def test_failed_remainder_passes_over_teams_that_are_out():
    # 4 teams, T3 already out. T2 holds 5 and fails 48 (4 owed to T0 and T1):
    # 5 shared as 2 + 2, the remainder to the next team *in play* after T2,
    # which (T3 being out) wraps round to T0.
    state = new_state(4, tables=[20, 23, 5, 0])
    points = {0: 30, 1: 26, 2: 0}
    settlement, after = settle(state, bid(points, 2, 48))
    assert settlement.transfers == {0: 3, 1: 2, 2: -5, 3: 0}
    assert after.tables == [23, 25, 0, 0]
    assert after.finished is False


def test_failed_by_a_declarer_seated_in_the_second_half_uses_the_team_order():
    # Farid (seat 5, team 2 of 3) fails holding 5; the seat after him is
    # seat 0 (Anu, team 0), so the remainder goes to T0.
    state = new_state(3, tables=[15, 16, 5])
    settlement, _after = settle(state, bid({0: 30, 1: 26, 2: 0}, 5, 40))
    assert settlement.transfers == {0: 3, 1: 2, 2: -5}


# --- Going out, places and the dealer ---------------------------------------


def test_two_teams_going_out_in_the_same_deal_share_a_place():
    deals = [
        # Deal 1, Anu (seat 0) deals. Gita (seat 3, T3) bids 56 redoubled and
        # takes nothing: 20 owed to each of 3 teams, she holds 12, so 4 each.
        bid({0: 20, 1: 18, 2: 18, 3: 0}, 3, 56, "hearts", "redouble"),
        # Deal 2, Chitra (seat 1) deals. Anu (seat 0, T0) bids 56 redoubled and
        # makes it: 16 owed by T1 and T2, who hold 16 each: both are out.
        bid({0: 56, 1: 0, 2: 0}, 0, 56, "hearts", "redouble"),
    ]
    settlements, state = replay(4, 0, deals)
    assert settlements[0].tables_after == (16, 16, 16, 0)
    assert settlements[0].eliminated == (3,)
    assert settlements[1].dealer == 1
    assert settlements[1].tables_after == (48, 0, 0, 0)
    assert settlements[1].eliminated == (1, 2)
    assert state.finished and state.winner == 0
    assert state.places() == {0: 1, 1: 2, 2: 2, 3: 4}


def test_a_shared_place_earlier_in_the_game_skips_the_next_place():
    deals = [
        # Deal 1 (Anu deals): Gita (T3) makes 40 doubled: 4 from each team.
        bid({0: 5, 1: 5, 2: 5, 3: 41}, 3, 40, "clubs", "double"),
        # Deal 2 (Chitra deals): Anu (T0) makes 48 redoubled, 12 owed: T1 and
        # T2 pay their 8 and are out together, T3 pays 12.
        bid({0: 50, 1: 2, 2: 2, 3: 2}, 0, 48, "clubs", "redouble"),
        # Deal 3: Chitra's and Esha's teams are out, so the deal passes from
        # Chitra (seat 1) over Esha (seat 2) to Gita (seat 3); Biju (seat 4)
        # bids first. Biju (T0) makes 56 redoubled: T3 pays its 12 and is out.
        bid({0: 56, 3: 0}, 4, 56, "clubs", "redouble"),
    ]
    settlements, state = replay(4, 0, deals)
    assert [s.tables_after for s in settlements] == [
        (8, 8, 8, 24),
        (36, 0, 0, 12),
        (48, 0, 0, 0),
    ]
    assert [s.dealer for s in settlements] == [0, 1, 3]
    assert [s.first_bidder for s in settlements] == [1, 2, 4]
    assert state.places() == {0: 1, 3: 2, 1: 3, 2: 3}


def test_all_three_others_out_at_once():
    # 4 teams, Anu makes 56 redoubled at once: 16 owed, 12 held, all three out.
    settlements, state = replay(4, 0, [bid({0: 56, 1: 0, 2: 0, 3: 0}, 0, 56, "hearts", "redouble")])
    assert state.tables == [48, 0, 0, 0]
    assert state.places() == {0: 1, 1: 2, 2: 2, 3: 2}


def test_three_team_game_played_to_the_end():
    # Seats: 0 Anu (T0), 1 Chitra (T1), 2 Esha (T2), 3 Biju (T0), 4 Dev (T1),
    # 5 Farid (T2). Anu deals first.
    deals = [
        # 1. Anu deals, Chitra bids first. Esha (T2) bids 56 redoubled and
        #    takes nothing: 20 owed each, she holds 12: 6 each. T2 is out.
        bid({0: 30, 1: 26, 2: 0}, 2, 56, "spades", "redouble"),
        # 2. Chitra deals; Esha's seat is passed over, Biju (T0) bids first.
        #    All pass: T0 contracted to 28, takes 20, fails: pays 2.
        Deal({0: 20, 1: 36}),
        # 3. The deal passes over Esha to Biju (seat 3); Dev bids first. Dev
        #    (T1) makes 48 redoubled: 12 owed, T0 holds 16, pays 12.
        bid({0: 0, 1: 56}, 4, 48, "no-trumps", "redouble"),
        # 4. Dev (seat 4) deals; Farid's seat 5 is passed over, Anu bids first.
        #    Anu (T0) bids 28 doubled, takes 27: 4 owed, holds 4: out.
        bid({0: 27, 1: 29}, 0, 28, "clubs", "double"),
    ]
    settlements, state = replay(3, 0, deals)
    assert [s.dealer for s in settlements] == [0, 1, 3, 4]
    assert [s.first_bidder for s in settlements] == [1, 3, 4, 0]
    assert [s.declaring_team for s in settlements] == [2, 0, 1, 0]
    assert [s.made for s in settlements] == [False, False, True, False]
    assert [s.tables_after for s in settlements] == [
        (18, 18, 0),
        (16, 20, 0),
        (4, 32, 0),
        (0, 36, 0),
    ]
    assert [s.eliminated for s in settlements] == [(2,), (), (), (0,)]
    # Team 2, out, neither pays nor receives and reports no pile.
    assert all(s.transfers[2] == 0 for s in settlements[1:])
    assert all(2 not in s.points for s in settlements[1:])
    assert state.finished and state.winner == 1
    assert state.places() == {1: 1, 0: 2, 2: 3}
    assert state.out_order == [(2,), (0,)]
    assert state.deals_played == 4


def test_four_team_game_played_to_the_end():
    # Seats: 0 Anu T0, 1 Chitra T1, 2 Esha T2, 3 Gita T3, 4 Biju T0, 5 Dev T1,
    # 6 Farid T2, 7 Hari T3. Hari (seat 7) deals first.
    deals = [
        # 1. Hari deals, Anu bids first. Chitra (T1) bids 56 redoubled and
        #    fails: 12 held shared by T2, T3, T0 (4 each). T1 out.
        bid({0: 20, 1: 10, 2: 13, 3: 13}, 1, 56, "hearts", "redouble"),
        # 2. Anu (seat 0) deals; Chitra (seat 1) is out, Esha bids first.
        #    Esha (T2) bids 40 and fails: pays 3 each to T3 and T0.
        bid({0: 20, 2: 30, 3: 6}, 2, 40),
        # 3. Deal passes from Anu over Chitra to Esha (seat 2); Gita bids first.
        #    Farid (T2) bids 55 doubled and fails: 8 owed each, 16 in all, he
        #    holds 10: 5 each to T3 (after T2) and T0 (wrapping, T1 out).
        bid({0: 1, 2: 54, 3: 1}, 6, 55, "hearts", "double"),
        # 4. Gita (seat 3) deals, Biju bids first. Biju (T0) makes 56
        #    redoubled: T3 holds 24, pays 16.
        bid({0: 56, 3: 0}, 4, 56, "diamonds", "redouble"),
        # 5. Biju (seat 4) deals; Dev (5) and Farid (6) are out: Hari bids
        #    first. Hari (T3) makes 48 doubled: T0 pays 6.
        bid({0: 0, 3: 56}, 7, 48, "diamonds", "double"),
        # 6. Deal passes from Biju over Dev and Farid to Hari (seat 7); Anu
        #    bids first. Anu (T0) makes 56 redoubled: 16 owed, T3 pays its 14.
        bid({0: 56, 3: 0}, 0, 56, "diamonds", "redouble"),
    ]
    settlements, state = replay(4, 7, deals)
    assert [s.dealer for s in settlements] == [7, 0, 2, 3, 4, 7]
    assert [s.first_bidder for s in settlements] == [0, 2, 3, 4, 7, 0]
    assert [s.tables_after for s in settlements] == [
        (16, 0, 16, 16),
        (19, 0, 10, 19),
        (24, 0, 0, 24),
        (40, 0, 0, 8),
        (34, 0, 0, 14),
        (48, 0, 0, 0),
    ]
    assert [s.eliminated for s in settlements] == [(1,), (), (2,), (), (), (3,)]
    assert state.places() == {0: 1, 3: 2, 2: 3, 1: 4}
    assert state.winner == 0


@pytest.mark.parametrize(
    ("teams", "tables", "dealer", "first_bidder", "next_dealer"),
    [
        # 4 teams, T1 out: Anu (0) deals, Chitra (1) is passed over.
        (4, [16, 0, 16, 16], 0, 2, 2),
        # Biju (4) deals, Dev (5) passed over: Farid (6) bids first.
        (4, [16, 0, 16, 16], 4, 6, 6),
        # T1 and T2 out: from Biju (4) over Dev and Farid to Hari (7).
        (4, [24, 0, 0, 24], 4, 7, 7),
        # T3 out: Farid (6) deals, Hari (7) is passed over, wrap round to Anu (0).
        (4, [16, 16, 16, 0], 6, 0, 0),
        # 3 teams, T0 out: Farid (5) deals, Anu (0) passed over, Chitra bids first.
        (3, [0, 18, 18], 5, 1, 1),
    ],
)
def test_dealer_and_first_bidder_pass_over_teams_that_are_out(
    teams, tables, dealer, first_bidder, next_dealer
):
    state = new_state(teams, dealer=dealer, tables=tables)
    assert state.first_bidder == first_bidder
    in_play = [team for team in range(teams) if tables[team]]
    points = dict.fromkeys(in_play, 0)
    points[in_play[0]] = 56
    settlement, after = settle(state, Deal(points))
    assert settlement.dealer == dealer
    assert settlement.first_bidder == first_bidder
    assert settlement.declaring_team == first_bidder % teams
    assert after.dealer == next_dealer


def test_dealer_passes_over_a_team_that_went_out_in_this_deal():
    # 3 teams, Anu (seat 0) deals. Chitra (T1, seat 1) fails 28 holding 2 (4
    # owed): 1 each to T2 and T0, and she is out; the next deal skips her seat
    # and goes to Esha (seat 2).
    state = new_state(3, tables=[17, 2, 17])
    settlement, after = settle(state, bid({0: 28, 1: 0, 2: 28}, 1, 28))
    assert settlement.transfers == {0: 1, 1: -2, 2: 1}
    assert after.dealer == 2
    assert after.first_bidder == 3


def test_no_deal_after_the_game_is_over():
    _settlement, after = settle(new_state(2), bid({0: 56, 1: 0}, 0, 56, "clubs", "redouble"))
    with pytest.raises(GameOver):
        settle(after, bid({0: 56}, 0, 28))
    with pytest.raises(DealError) as caught:
        replay(
            2,
            0,
            [bid({0: 56, 1: 0}, 0, 56, "clubs", "redouble"), bid({0: 56}, 0, 28)],
        )
    assert caught.value.number == 2
    assert isinstance(caught.value.__cause__, GameOver)


# --- Refusals, each naming its field ------------------------------------------


def three_teams_t2_out():
    return new_state(3, tables=[18, 18, 0])


@pytest.mark.parametrize(
    ("state", "deal", "field"),
    [
        # bid out of range, or not a whole number
        (new_state(2), bid({0: 28, 1: 28}, 0, 27), "bid"),
        (new_state(2), bid({0: 28, 1: 28}, 0, 57), "bid"),
        (new_state(2), bid({0: 28, 1: 28}, 0, 0), "bid"),
        (new_state(2), bid({0: 28, 1: 28}, 0, None), "bid"),
        (new_state(2), bid({0: 28, 1: 28}, 0, "30"), "bid"),
        (new_state(2), bid({0: 28, 1: 28}, 0, 30.0), "bid"),
        (new_state(2), bid({0: 28, 1: 28}, 0, True), "bid"),
        # piles not summing to 56
        (new_state(2), bid({0: 30, 1: 30}, 0, 28), "points"),
        (new_state(2), bid({0: 28, 1: 27}, 0, 28), "points"),
        (new_state(3), bid({0: 0, 1: 0, 2: 0}, 0, 28), "points"),
        # negative or too large, and non-whole piles
        (new_state(2), bid({0: -1, 1: 57}, 0, 28), "points"),
        (new_state(2), bid({0: 57, 1: -1}, 0, 28), "points"),
        (new_state(2), bid({0: 27.5, 1: 28.5}, 0, 28), "points"),
        (new_state(2), bid({0: "28", 1: 28}, 0, 28), "points"),
        (new_state(2), bid({0: None, 1: 56}, 0, 28), "points"),
        # a team in play without a pile
        (new_state(2), bid({0: 56}, 0, 28), "points"),
        (new_state(3), bid({0: 28, 1: 28}, 0, 28), "points"),
        (new_state(3), Deal({0: 28, 2: 28}), "points"),
        # a pile for a team that is out, or not in the game
        (three_teams_t2_out(), bid({0: 28, 1: 28, 2: 0}, 0, 28), "points"),
        (new_state(2), bid({0: 28, 1: 28, 2: 0}, 0, 28), "points"),
        (new_state(2), bid({0: 28, 1: 28, -1: 0}, 0, 28), "points"),
        (new_state(2), bid({0: 28, 1: 28, "2": 0}, 0, 28), "points"),
        # declarer not seated, or of a team that is out
        (new_state(2), bid({0: 28, 1: 28}, 4, 28), "declarer"),
        (new_state(2), bid({0: 28, 1: 28}, -1, 28), "declarer"),
        (new_state(2), bid({0: 28, 1: 28}, "0", 28), "declarer"),
        (new_state(2), bid({0: 28, 1: 28}, True, 28), "declarer"),
        (three_teams_t2_out(), bid({0: 28, 1: 28}, 2, 28), "declarer"),
        (three_teams_t2_out(), bid({0: 28, 1: 28}, 5, 28), "declarer"),
        # all pass doubled
        (new_state(2), Deal({0: 28, 1: 28}, doubling="double"), "doubling"),
        (new_state(2), Deal({0: 28, 1: 28}, doubling="redouble"), "doubling"),
        # unknown trump or doubling
        (new_state(2), bid({0: 28, 1: 28}, 0, 28, trump="stars"), "trump"),
        (new_state(2), bid({0: 28, 1: 28}, 0, 28, trump=None), "trump"),
        (new_state(2), bid({0: 28, 1: 28}, 0, 28, doubling="triple"), "doubling"),
        (new_state(2), bid({0: 28, 1: 28}, 0, 28, doubling=None), "doubling"),
    ],
)
def test_impossible_deals_are_refused_naming_the_field(state, deal, field):
    before = (list(state.tables), state.dealer, state.deals_played)
    with pytest.raises(RulesError) as caught:
        settle(state, deal)
    assert caught.value.field == field
    assert not isinstance(caught.value, GameOver)
    assert str(caught.value)  # a readable message
    assert (state.tables, state.dealer, state.deals_played) == before


def test_error_messages_name_the_problem():
    with pytest.raises(RulesError) as caught:
        settle(new_state(2), bid({0: 28, 1: 28}, 0, 57))
    assert caught.value.message == "A bid must be from 28 to 56; 57 is not."

    with pytest.raises(RulesError) as caught:
        settle(new_state(2), bid({0: 30, 1: 30}, 0, 28))
    assert caught.value.message == "The piles add up to 60; they must add up to exactly 56."

    with pytest.raises(RulesError) as caught:
        settle(three_teams_t2_out(), bid({0: 28, 1: 28}, 5, 28))
    assert caught.value.message == "The declarer's team, team 3, is out and cannot bid."
    names = ["Anu & Biju", "Chitra & Dev", "Esha & Farid"]
    assert (
        caught.value.translated(lambda text: text, names)
        == "The declarer's team, Esha & Farid, is out and cannot bid."
    )


def test_game_over_is_refused_with_game_over():
    state = new_state(3, tables=[36, 0, 0])
    assert state.finished and state.winner == 0
    with pytest.raises(GameOver):
        settle(state, bid({0: 56}, 0, 28))


def test_replay_names_the_deal_at_fault():
    deals = [bid({0: 30, 1: 26}, 0, 28), bid({0: 30, 1: 30}, 1, 28)]
    with pytest.raises(DealError) as caught:
        replay(2, 0, deals)
    assert caught.value.number == 2
    assert caught.value.field == "points"


def test_replay_numbers_the_settlements():
    deals = [bid({0: 30, 1: 26}, 0, 28), Deal({0: 30, 1: 26}), bid({0: 0, 1: 56}, 3, 40)]
    settlements, state = replay(2, 0, deals)
    assert [s.number for s in settlements] == [1, 2, 3]
    # 1: Anu makes 28 (+1). 2: Chitra deals, Biju bids first; all pass, T0
    # takes 30 of 28 (+1). 3: Biju deals; Dev makes 40 (+2).
    assert [s.tables_after for s in settlements] == [(13, 11), (14, 10), (12, 12)]
    assert [s.dealer for s in settlements] == [0, 1, 2]
    assert state.dealer == 3
    assert state.deals_played == 3


# --- Club settings (docs/rules.md C) ----------------------------------------------


def test_default_rules():
    assert DEFAULT_RULES.tables_per_team == 12
    assert DEFAULT_RULES.bands == (
        Band(28, 39, 1, 2),
        Band(40, 47, 2, 3),
        Band(48, 55, 3, 4),
        Band(56, 56, 4, 5),
    )
    assert (DEFAULT_RULES.double_factor, DEFAULT_RULES.redouble_factor) == (2, 4)
    assert DEFAULT_RULES.is_default()
    assert not Rules(tables_per_team=6).is_default()


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"tables_per_team": 0}, "tables"),
        ({"tables_per_team": -3}, "tables"),
        ({"double_factor": 0}, "doubling"),
        ({"redouble_factor": 0}, "doubling"),
        # bands that leave a gap
        ({"bands": (Band(28, 39, 1, 2), Band(41, 56, 2, 3))}, "bands"),
        # that overlap
        ({"bands": (Band(28, 40, 1, 2), Band(40, 56, 2, 3))}, "bands"),
        # that do not start at 28
        ({"bands": (Band(29, 56, 1, 2),)}, "bands"),
        # that stop short of 56, or go past it
        ({"bands": (Band(28, 55, 1, 2),)}, "bands"),
        ({"bands": (Band(28, 57, 1, 2),)}, "bands"),
        # out of order
        ({"bands": (Band(40, 56, 2, 3), Band(28, 39, 1, 2))}, "bands"),
        # a band whose high end is below its low end
        ({"bands": (Band(28, 39, 1, 2), Band(40, 39, 2, 3), Band(40, 56, 2, 3))}, "bands"),
        # negative payouts
        ({"bands": (Band(28, 56, -1, 2),)}, "bands"),
        ({"bands": (Band(28, 56, 1, -2),)}, "bands"),
        # no bands at all
        ({"bands": ()}, "bands"),
    ],
)
def test_rules_validation(kwargs, field):
    with pytest.raises(RulesError) as caught:
        Rules(**kwargs)
    assert caught.value.field == field


def test_one_band_for_every_bid_is_valid():
    rules = Rules(bands=(Band(28, 56, 1, 1),))
    assert rules.band_for(28) == rules.band_for(56) == Band(28, 56, 1, 1)


def test_band_for_refuses_a_bid_out_of_range():
    with pytest.raises(RulesError) as caught:
        DEFAULT_RULES.band_for(27)
    assert caught.value.field == "bid"


def test_custom_tables_per_team():
    # 5 tables each: Anu fails 56 (5 owed), pays all 5 and the game is over.
    rules = Rules(tables_per_team=5)
    settlements, state = replay(2, 0, [bid({0: 55, 1: 1}, 0, 56)], rules)
    assert settlements[0].transfers == {0: -5, 1: 5}
    assert state.tables == [0, 10]
    assert state.winner == 1


def test_custom_tables_per_team_of_one():
    rules = Rules(tables_per_team=1)
    state = core.initial_state(3, 0, rules)
    assert state.tables == [1, 1, 1]
    # T0 makes 28: 1 owed by each: both others pay their only table.
    settlement, after = settle(state, bid({0: 28, 1: 14, 2: 14}, 0, 28))
    assert after.tables == [3, 0, 0]
    assert settlement.eliminated == (1, 2)
    assert after.places() == {0: 1, 1: 2, 2: 2}


def test_custom_bands():
    rules = Rules(bands=(Band(28, 45, 2, 3), Band(46, 56, 5, 6)))
    state = core.initial_state(2, 0, rules)
    # 45 made: 2 tables.
    settlement, state = settle(state, bid({0: 45, 1: 11}, 0, 45))
    assert settlement.transfers == {0: 2, 1: -2}
    # 46 failed: 6 tables.
    settlement, state = settle(state, bid({0: 45, 1: 11}, 0, 46))
    assert settlement.transfers == {0: -6, 1: 6}
    assert state.tables == [8, 16]


def test_custom_bands_with_a_zero_payout():
    rules = Rules(bands=(Band(28, 39, 0, 1), Band(40, 56, 2, 3)))
    settlement, after = settle(core.initial_state(2, 0, rules), bid({0: 30, 1: 26}, 0, 30))
    assert settlement.made is True
    assert settlement.transfers == {0: 0, 1: 0}
    assert after.tables == [12, 12]


@pytest.mark.parametrize(
    ("doubling", "made", "failed"),
    [("none", 1, 2), ("double", 3, 6), ("redouble", 5, 10)],
)
def test_custom_doubling_factors(doubling, made, failed):
    rules = Rules(double_factor=3, redouble_factor=5)
    state = core.initial_state(2, 0, rules)
    settlement, _after = settle(state, bid({0: 28, 1: 28}, 0, 28, doubling=doubling))
    assert settlement.transfers == {0: made, 1: -made}
    settlement, _after = settle(state, bid({0: 27, 1: 29}, 0, 28, doubling=doubling))
    assert settlement.transfers == {0: -failed, 1: failed}
