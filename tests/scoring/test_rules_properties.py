"""Property tests of the rules core: random valid games of 2 to 4 teams.

Each example seats 2-4 teams, draws a first dealer and club settings, plays a
run of random valid deals and then, if nobody has won yet, plays on with
deals that must end the game. After every deal the invariants of docs/rules.md are
checked against an independent reading of the rules written here.
"""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from club.scoring import rules as core
from club.scoring.rules import DEFAULT_BANDS, Band, Deal, GameOver, Rules, replay, settle

SETTINGS = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

TRUMPS = ["clubs", "diamonds", "hearts", "spades", "no-trumps"]
DOUBLINGS = ["none", "double", "redouble"]

# Payout schedules to play with: the default one and two club variants.
SCHEDULES = [
    DEFAULT_BANDS,
    (Band(28, 45, 2, 3), Band(46, 56, 5, 6)),
    (Band(28, 39, 0, 1), Band(40, 50, 1, 2), Band(51, 56, 3, 7)),
]


@st.composite
def rules_strategy(draw):
    return Rules(
        tables_per_team=draw(st.sampled_from([1, 2, 3, 5, 8, 12])),
        bands=draw(st.sampled_from(SCHEDULES)),
        double_factor=draw(st.sampled_from([2, 3])),
        redouble_factor=draw(st.sampled_from([4, 5])),
    )


def piles_strategy(teams):
    """Piles for the given teams: whole numbers from 0 to 56 adding up to 56."""

    @st.composite
    def piles(draw):
        cuts = sorted(
            draw(st.lists(st.integers(0, 56), min_size=len(teams) - 1, max_size=len(teams) - 1))
        )
        bounds = [0, *cuts, 56]
        return {team: bounds[i + 1] - bounds[i] for i, team in enumerate(teams)}

    return piles()


@st.composite
def deal_strategy(draw, state):
    in_play = state.teams_in_play
    points = draw(piles_strategy(in_play))
    if draw(st.integers(0, 5)) == 0:
        return Deal(points)  # everyone passed
    seats = [seat for seat, (team, _) in enumerate(state.seats) if team in in_play]
    return Deal(
        points=points,
        declarer=draw(st.sampled_from(seats)),
        bid=draw(st.integers(28, 56)),
        trump=draw(st.sampled_from(TRUMPS)),
        doubling=draw(st.sampled_from(DOUBLINGS)),
    )


def finishing_deal(state):
    """A deal that moves tables towards one winner: the richest team in play
    declares 56 redoubled and takes every card."""
    in_play = state.teams_in_play
    richest = max(in_play, key=lambda team: state.tables[team])
    declarer = next(seat for seat, (team, _) in enumerate(state.seats) if team == richest)
    points = dict.fromkeys(in_play, 0)
    points[richest] = 56
    return Deal(points, declarer=declarer, bid=56, trump="spades", doubling="redouble")


# --- An independent reading of docs/rules.md ---------------------------------------


def expected_band(rules, bid):
    matches = [band for band in rules.bands if band.low <= bid <= band.high]
    assert len(matches) == 1
    return matches[0]


def expected_transfers(state, declaring_team, made, bid, doubling):
    """docs/rules.md A (the table, x factor) and B.2 (paying with too few tables)."""
    n = state.team_count
    band = expected_band(state.rules, bid)
    factor = {
        "none": 1,
        "double": state.rules.double_factor,
        "redouble": state.rules.redouble_factor,
    }[doubling]
    owed = (band.made if made else band.failed) * factor
    # The other teams in play, in play order from the team seated after the declarers.
    others = [
        (declaring_team + k) % n for k in range(1, n) if state.tables[(declaring_team + k) % n] > 0
    ]
    change = dict.fromkeys(range(n), 0)
    if made:
        for team in others:
            pays = min(owed, state.tables[team])
            change[team] -= pays
            change[declaring_team] += pays
    else:
        holding = state.tables[declaring_team]
        if holding >= owed * len(others):
            for team in others:
                change[team] += owed
                change[declaring_team] -= owed
        else:
            change[declaring_team] = -holding
            for i, team in enumerate(others):
                change[team] = holding // len(others) + (1 if i < holding % len(others) else 0)
    return change


def next_seated(state, seat):
    """The next seat after ``seat`` whose team still holds tables."""
    seats = len(state.seats)
    for step in range(1, seats + 1):
        candidate = (seat + step) % seats
        if state.tables[candidate % state.team_count] > 0:
            return candidate
    raise AssertionError("no seat left")


def is_competition_ranking(places):
    """Places like 1, 2, 2, 4: each is one more than the number of teams placed higher."""
    values = list(places.values())
    return all(place == 1 + sum(other < place for other in values) for place in values)


def check_deal(before, deal, settlement, after):
    n = before.team_count
    total = before.rules.tables_per_team * n
    out_before = [team for team in range(n) if before.tables[team] == 0]

    # Tables conserved, never negative; the transfers add up to nothing.
    assert sum(after.tables) == total
    assert min(after.tables) >= 0
    assert sum(settlement.transfers.values()) == 0
    assert set(settlement.transfers) == set(range(n))
    assert all(
        after.tables[team] == before.tables[team] + settlement.transfers[team] for team in range(n)
    )
    assert settlement.tables_after == tuple(after.tables)

    # Teams out report nothing, move nothing and stay out.
    for team in out_before:
        assert team not in settlement.points
        assert settlement.transfers[team] == 0
        assert after.tables[team] == 0
    assert set(settlement.points) == set(before.teams_in_play)
    assert sum(settlement.points.values()) == 56

    # Dealer, first bidder and declaring team.
    assert settlement.dealer == before.dealer
    assert before.tables[before.dealer % n] > 0
    assert settlement.first_bidder == next_seated(before, before.dealer)
    if deal.declarer is None:
        assert settlement.all_pass
        assert settlement.declaring_team == settlement.first_bidder % n
        assert settlement.bid == 28
        assert settlement.trump == "no-trumps"
        assert settlement.doubling == "none"
    else:
        assert settlement.declaring_team == deal.declarer % n
        assert settlement.bid == deal.bid
    # Made exactly when the declaring team's pile reaches the bid.
    assert settlement.made == (deal.points[settlement.declaring_team] >= settlement.bid)
    assert settlement.transfers == expected_transfers(
        before,
        settlement.declaring_team,
        settlement.made,
        settlement.bid,
        str(settlement.doubling),
    )

    # Going out.
    newly_out = tuple(team for team in before.teams_in_play if after.tables[team] == 0)
    assert settlement.eliminated == newly_out
    assert after.teams_in_play  # somebody always remains
    assert after.deals_played == before.deals_played + 1
    assert settlement.number == after.deals_played
    if after.finished:
        assert after.winner is not None
    else:
        assert after.dealer == next_seated(after, before.dealer)

    # Places always form a ranking; teams still playing share first.
    places = after.places()
    assert set(places) == set(range(n))
    assert is_competition_ranking(places)
    for team in after.teams_in_play:
        assert places[team] == 1


@SETTINGS
@given(
    teams=st.integers(2, 4),
    rules=rules_strategy(),
    data=st.data(),
)
def test_random_games(teams, rules, data):
    first_dealer = data.draw(st.integers(0, teams * 2 - 1), label="first dealer")
    state = core.initial_state(teams, first_dealer, rules)
    deals, settlements, out_deal = [], [], {}
    random_deals = data.draw(st.integers(0, 25), label="random deals")

    for number in range(1, 400):
        if state.finished:
            break
        if number <= random_deals:
            deal = data.draw(deal_strategy(state), label=f"deal {number}")
        else:
            deal = finishing_deal(state)
        before = state
        settlement, state = settle(before, deal)
        check_deal(before, deal, settlement, state)
        deals.append(deal)
        settlements.append(settlement)
        for team in settlement.eliminated:
            out_deal[team] = number
    else:
        raise AssertionError("the game did not end")

    # The game ends with exactly one team holding every table.
    total = rules.tables_per_team * teams
    assert state.finished
    assert sorted(state.tables) == [0] * (teams - 1) + [total]
    assert state.winner == state.tables.index(total)
    assert state.seated_players == 2

    # Places: the winner first, the rest in reverse order of going out,
    # teams going out in the same deal sharing their place.
    places = state.places()
    assert places[state.winner] == 1
    assert sorted(out_deal) == sorted(set(range(teams)) - {state.winner})
    assert is_competition_ranking(places)
    for a in out_deal:
        for b in out_deal:
            if out_deal[a] == out_deal[b]:
                assert places[a] == places[b]
            elif out_deal[a] > out_deal[b]:
                assert places[a] < places[b]
    assert len(set(places.values())) == 1 + len(set(out_deal.values()))

    # No deal after the game is over.
    try:
        settle(state, Deal({state.winner: 56}, declarer=state.winner, bid=28, trump="clubs"))
    except GameOver:
        pass
    else:
        raise AssertionError("a deal was accepted after the game ended")

    # Replaying the deals gives exactly what settling them one by one gave.
    replayed, final = replay(teams, first_dealer, deals, rules)
    assert replayed == settlements
    assert final.tables == state.tables
    assert final.out_order == state.out_order
    assert final.deals_played == state.deals_played
    assert final.places() == places


@SETTINGS
@given(teams=st.integers(2, 4), data=st.data())
def test_random_deals_with_default_rules(teams, data):
    """Default settings (12 tables each): a run of random deals, checked after each
    one, and replay agreeing with the deals settled one by one."""
    state = core.initial_state(teams, data.draw(st.integers(0, teams * 2 - 1)))
    deals, settlements = [], []
    for number in range(1, data.draw(st.integers(1, 30)) + 1):
        if state.finished:
            break
        deal = data.draw(deal_strategy(state), label=f"deal {number}")
        before = state
        settlement, state = settle(before, deal)
        check_deal(before, deal, settlement, state)
        deals.append(deal)
        settlements.append(settlement)
    replayed, final = replay(teams, settlements[0].dealer, deals)
    assert replayed == settlements
    assert final.tables == state.tables
    assert final.dealer == state.dealer
