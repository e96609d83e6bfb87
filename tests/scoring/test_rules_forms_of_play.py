"""The forms clubs play (docs/rules.md section D) in the rules core: team sizes, points, kodi,
thani.

Each property plays random valid games of one setting and checks every deal
against an independent reading of docs/rules.md written here: tables conserved in
tables scoring, totals on a points sheet, a kodi's restart, the seats and the
dealer's turn for teams of three and four. The refusals are checked one by one.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from club.scoring import rules as core
from club.scoring.rules import (
    DEFAULT_BANDS,
    Deal,
    DoublingMode,
    GameOver,
    Preset,
    Rules,
    RulesError,
    Scoring,
    Thani,
    replay,
    settle,
)
from tests.scoring.test_rules_properties import piles_strategy

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TRUMPS = ["clubs", "diamonds", "hearts", "spades", "no-trumps"]
DOUBLINGS = ["none", "double", "redouble"]
TABLES = [(2, 2), (3, 2), (4, 2), (2, 3), (2, 4)]  # (teams, team size) a table can seat


@st.composite
def forms_of_play(draw, scoring=None, kodi=None):
    """Settings of any form of play, with the table they are played at."""
    teams, size = draw(st.sampled_from(TABLES))
    scoring = scoring or draw(st.sampled_from(list(Scoring)))
    kodi = False if scoring == Scoring.POINTS else (draw(st.booleans()) if kodi is None else kodi)
    mode = draw(st.sampled_from(list(DoublingMode)))
    rules = Rules(
        tables_per_team=draw(st.sampled_from([1, 2, 3, 6, 7, 12])),
        team_size=size,
        scoring=scoring,
        doubling_mode=mode,
        double_factor=draw(st.sampled_from([1, 2, 3])),
        redouble_factor=draw(st.sampled_from([2, 4])),
        all_pass=draw(st.booleans()),
        kodi=kodi,
        thani=draw(st.sampled_from([None, Thani(6, 8), Thani(0, 3)])),
        deal_limit=draw(st.sampled_from([18, 24])) if scoring == Scoring.POINTS else None,
    )
    return teams, rules


@st.composite
def any_deal(draw, state):
    """A valid deal for the state: a bid, an all pass where allowed, or a thani where played."""
    rules = state.rules
    in_play = state.teams_in_play
    seats = [seat for seat, (team, _) in enumerate(state.seats) if team in in_play]
    kinds = ["bid"] + (["pass"] if rules.all_pass else []) + (["thani"] if rules.thani else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "thani":
        return Deal({}, thani=draw(st.sampled_from(seats)), made=draw(st.booleans()))
    points = draw(piles_strategy(in_play))
    if kind == "pass":
        return Deal(points)
    return Deal(
        points=points,
        declarer=draw(st.sampled_from(seats)),
        bid=draw(st.integers(28, 56)),
        trump=draw(st.sampled_from(TRUMPS)),
        doubling=draw(st.sampled_from(DOUBLINGS)),
    )


# --- An independent reading of docs/rules.md section D -----------------------------


def expected_figure(rules, deal, state):
    """What the deal's contract gives before anyone pays: band (or thani) figure, doubled."""
    if deal.thani is not None:
        return rules.thani.made if deal.made else rules.thani.failed
    bid = rules.min_bid if deal.declarer is None else deal.bid
    band = next(band for band in rules.bands if band.low <= bid <= band.high)
    team = declaring_team(state, deal)
    made = deal.points[team] >= bid
    figure = band.made if made else band.failed
    doubling = "none" if deal.declarer is None else deal.doubling
    if doubling == "none":
        return figure
    if rules.doubling_mode == DoublingMode.MULTIPLY:
        return figure * (rules.double_factor if doubling == "double" else rules.redouble_factor)
    return figure + (rules.double_factor if doubling == "double" else rules.redouble_factor)


def declaring_team(state, deal):
    if deal.thani is not None:
        return state.seats[deal.thani][0]
    if deal.declarer is None:
        return state.seats[state.first_bidder][0]
    return state.seats[deal.declarer][0]


def play(teams, rules, deals_drawn, draw):
    state = core.initial_state(teams, draw(st.integers(0, teams * rules.team_size - 1)), rules)
    for _ in range(deals_drawn):
        if state.finished or state.limit_reached:
            break
        deal = draw(any_deal(state))
        settlement, after = settle(state, deal)
        yield state, deal, settlement, after
        state = after


# --- Seats and the dealer's turn ---------------------------------------------


@pytest.mark.parametrize("teams, size", TABLES)
def test_seats_alternate_teams_and_the_deal_passes_to_the_left(teams, size):
    seats = core.seat_order(teams, size)
    assert len(seats) == teams * size
    assert seats[:teams] == [(team, 0) for team in range(teams)]
    # every player sits between two opponents
    for seat, (team, _) in enumerate(seats):
        assert seats[(seat + 1) % len(seats)][0] != team
    # partners in seat order, each once
    assert sorted(seats) == [(team, p) for team in range(teams) for p in range(size)]
    state = core.initial_state(teams, 0, Rules(team_size=size, kodi=True))
    dealers = []
    for _ in range(2 * len(seats)):
        dealers.append(state.dealer)
        _s, state = settle(state, Deal({t: (56 if t == 0 else 0) for t in range(teams)}))
    assert dealers == [seat % len(seats) for seat in range(2 * len(seats))]


def test_two_teams_of_three_sit_t1_t2_t1_t2_t1_t2():
    assert core.seat_order(2, 3) == [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2)]
    assert core.seat_order(2, 4)[-2:] == [(0, 3), (1, 3)]


@pytest.mark.parametrize(
    "players, cards, each, ranks",
    [(4, 48, 12, 6), (6, 48, 8, 6), (8, 64, 8, 8)],
)
def test_the_cards_follow_the_players_whatever_the_team_sizes(players, cards, each, ranks):
    setup = core.card_setup(players)
    assert (setup.cards_used, setup.cards_each, len(setup.ranks)) == (cards, each, ranks)
    # two packs, four suits: every counting rank appears eight times, for 56 points
    assert sum(points for _rank, points in setup.points) * 8 == 56
    small = core.card_setup(4, small_deck=True)
    assert (small.cards_used, small.cards_each, small.ranks) == (32, 8, ("J", "9", "A", "10"))
    assert core.card_setup(6, small_deck=True) == core.card_setup(6)  # four players only


@pytest.mark.parametrize(
    "teams, size, message",
    [
        (3, 3, "Teams of 3 play two against each other, not 3 teams."),
        (4, 4, "Teams of 4 play two against each other, not 4 teams."),
        (5, 2, "Teams of two play two, three or four at a table, not 5."),
        (2, 5, "A team is 2, 3 or 4 players, not 5."),
    ],
)
def test_a_table_that_cannot_be_seated_is_refused(teams, size, message):
    with pytest.raises(RulesError) as refused:
        core.check_table(teams, size)
    assert refused.value.message == message
    if size in core.TEAM_SIZES:
        with pytest.raises(RulesError, match="play two"):
            core.initial_state(teams, 0, Rules(team_size=size))


# --- Tables scoring, for every team size -------------------------------------


@SETTINGS
@given(st.data())
def test_tables_are_conserved_and_paid_as_the_band_says_for_every_team_size(data):
    teams, rules = data.draw(forms_of_play(scoring=Scoring.TABLES, kodi=False))
    start = teams * rules.tables_per_team
    for state, deal, settlement, after in play(teams, rules, 40, data.draw):
        assert sum(after.tables) == start
        assert sum(settlement.transfers.values()) == 0
        team = declaring_team(state, deal)
        assert settlement.declaring_team == team
        owed = expected_figure(rules, deal, state)
        others = [t for t in state.teams_in_play if t != team]
        if settlement.made:
            for other in others:
                assert settlement.transfers[other] == -min(owed, state.tables[other])
        elif state.tables[team] >= owed * len(others):
            assert settlement.transfers[team] == -owed * len(others)
        else:
            assert after.tables[team] == 0
        assert set(settlement.eliminated) == {t for t in state.teams_in_play if not after.tables[t]}
        assert settlement.scored == {} and settlement.kodi == ()


# --- Points scoring ----------------------------------------------------------


@SETTINGS
@given(st.data())
def test_a_points_sheet_scores_the_band_and_moves_nothing(data):
    teams, rules = data.draw(forms_of_play(scoring=Scoring.POINTS))
    totals = [0] * teams
    played = 0
    for state, deal, settlement, after in play(teams, rules, 40, data.draw):
        played += 1
        team = declaring_team(state, deal)
        figure = expected_figure(rules, deal, state)
        if settlement.made:
            expected = {t: (figure if t == team else 0) for t in range(teams)}
        else:
            expected = {t: (0 if t == team else figure) for t in range(teams)}
        assert settlement.scored == expected
        totals = [totals[t] + expected[t] for t in range(teams)]
        assert list(settlement.score_after) == totals == after.scores
        assert after.tables == state.tables and not any(settlement.transfers.values())
        assert settlement.eliminated == () and not after.finished
        assert after.teams_in_play == list(range(teams))
    assert played == min(40, rules.deal_limit)
    places = core.final_places(after)
    for t in range(teams):
        assert places[t] == 1 + sum(1 for other in range(teams) if totals[other] > totals[t])


def test_deals_past_the_limit_are_refused():
    rules = core.preset_rules(Preset.INTERNATIONAL)
    state = core.initial_state(2, 0, rules)
    for _ in range(18):
        _s, state = settle(
            state, Deal({0: 30, 1: 26}, declarer=state.first_bidder, bid=28, trump="hearts")
        )
    with pytest.raises(GameOver) as over:
        settle(state, Deal({0: 30, 1: 26}, declarer=0, bid=28, trump="hearts"))
    assert over.value.message == "The game ends after 18 deals: no more deals can be recorded."


@pytest.mark.parametrize("band", DEFAULT_BANDS, ids=lambda band: f"{band.low}-{band.high}")
@pytest.mark.parametrize("doubling, added", [("none", 0), ("double", 1), ("redouble", 2)])
@pytest.mark.parametrize("made", [True, False])
def test_every_band_made_and_failed_with_added_doubling(band, doubling, added, made):
    """The 56 International sheet: made 1/2/3/4, failed 2/3/4/5 to each opponent, +1 or +2."""
    rules = core.preset_rules(Preset.INTERNATIONAL)
    state = core.initial_state(2, 5, rules)  # seat 0 (team 1) bids first
    bid = band.low
    ours = bid if made else bid - 1
    settlement, _after = settle(
        state, Deal({0: ours, 1: 56 - ours}, declarer=0, bid=bid, trump="spades", doubling=doubling)
    )
    figure = (band.made if made else band.failed) + added
    assert settlement.scored == ({0: figure, 1: 0} if made else {0: 0, 1: figure})
    assert {28: (1, 2), 40: (2, 3), 48: (3, 4), 56: (4, 5)}[band.low] == (band.made, band.failed)


# --- Kodi --------------------------------------------------------------------


@SETTINGS
@given(st.data())
def test_a_kodi_restarts_every_team_and_no_one_is_out(data):
    teams, rules = data.draw(forms_of_play(scoring=Scoring.TABLES, kodi=True))
    start = teams * rules.tables_per_team
    kodis = [0] * teams
    for state, _deal, settlement, after in play(teams, rules, 40, data.draw):
        moved = [state.tables[t] + settlement.transfers[t] for t in range(teams)]
        assert sum(moved) == start and min(moved) >= 0
        took = tuple(t for t in range(teams) if moved[t] == 0)
        assert settlement.kodi == took
        if took:
            assert list(settlement.tables_after) == [rules.tables_per_team] * teams
        else:
            assert list(settlement.tables_after) == moved
        kodis = [kodis[t] + (t in took) for t in range(teams)]
        assert list(settlement.kodis_after) == kodis == after.kodis
        assert settlement.eliminated == () and not after.finished
        assert after.teams_in_play == list(range(teams))
    places = core.final_places(after)
    key = {t: (kodis[t], -after.tables[t]) for t in range(teams)}
    for t in range(teams):
        assert places[t] == 1 + sum(1 for other in range(teams) if key[other] < key[t])


def test_a_kodi_night_through_two_kodis():
    rules = core.preset_rules(Preset.KODI, players=4)
    assert (rules.tables_per_team, rules.kodi, rules.team_size) == (6, True, 2)

    def slam(seat, team):  # 56 redoubled, every card taken: 4 x 4 = 16 tables owed
        piles = {team: 56, 1 - team: 0}
        return Deal(piles, declarer=seat, bid=56, trump="spades", doubling="redouble")

    settlements, state = replay(2, 1, [slam(0, 0), slam(1, 1), slam(0, 0)], rules)
    first, second, third = settlements
    assert first.transfers == {0: 6, 1: -6}  # team 2 pays what it holds
    assert (first.kodi, first.tables_after, first.kodis_after) == ((1,), (6, 6), (0, 1))
    assert (second.kodi, second.tables_after, second.kodis_after) == ((0,), (6, 6), (1, 1))
    assert (third.kodi, third.kodis_after) == ((1,), (1, 2))
    assert state.kodis == [1, 2] and state.tables == [6, 6] and not state.finished
    assert core.final_places(state) == {0: 1, 1: 2}
    even, _ = replay(2, 1, [slam(0, 0), slam(1, 1)], rules)
    assert core.final_places(_) == {0: 1, 1: 1}  # one kodi each, tables level: shared


# --- Thani -------------------------------------------------------------------


@pytest.mark.parametrize("made", [True, False])
def test_a_thani_settles_like_a_contract_of_its_figures(made):
    rules = Rules(team_size=2, tables_per_team=12, thani=Thani(made=8, failed=10))
    state = core.initial_state(3, 0, rules)
    settlement, after = settle(state, Deal({}, thani=4, made=made))  # seat 4: team 2's partner
    assert settlement.thani and settlement.declaring_team == 1 and settlement.bid is None
    if made:
        assert settlement.transfers == {0: -8, 1: 16, 2: -8}
    else:
        assert settlement.transfers == {0: 6, 1: -12, 2: 6}  # pays what it holds, shared
    sheet = Rules(scoring=Scoring.POINTS, deal_limit=10, thani=Thani(made=8, failed=10))
    scored, _ = settle(core.initial_state(3, 0, sheet), Deal({}, thani=4, made=made))
    assert scored.scored == ({0: 0, 1: 8, 2: 0} if made else {0: 10, 1: 0, 2: 10})


@pytest.mark.parametrize(
    "rules, deal, field, message",
    [
        (
            Rules(all_pass=False),
            Deal({0: 30, 1: 26}),
            "declarer",
            "Everyone passed, but in this game the first bidder must open at 28 or more.",
        ),
        (Rules(), Deal({}, thani=1, made=True), "thani", "This game is not played with thani."),
        (
            Rules(thani=Thani(6, 8)),
            Deal({0: 56, 1: 0}, thani=1, made=True, bid=40),
            "thani",
            "A thani has no bid, trumps or piles: only its player and whether it was made.",
        ),
        (
            Rules(thani=Thani(6, 8)),
            Deal({}, thani=1),
            "made",
            "A thani needs whether it was made or failed.",
        ),
        (
            Rules(thani=Thani(6, 8)),
            Deal({}, thani=9, made=True),
            "thani",
            "The thani player must be one of the players seated.",
        ),
    ],
)
def test_deals_the_game_does_not_play_are_refused_naming_the_field(rules, deal, field, message):
    with pytest.raises(core.DealError) as refused:
        replay(2, 0, [deal], rules)
    assert (refused.value.number, refused.value.field, refused.value.message) == (1, field, message)


@pytest.mark.parametrize(
    "values, field, message",
    [
        (
            {"scoring": "points"},
            "deal_limit",
            "A game scored in points needs a deal limit: its session is a set number of deals.",
        ),
        (
            {"scoring": "points", "deal_limit": 18, "kodi": True},
            "kodi",
            "Kodi is counted in tables; a game scored in points has none.",
        ),
        ({"team_size": 5}, "team_size", "A team is 2, 3 or 4 players, not 5."),
        ({"scoring": "sheets"}, "scoring", "sheets is not a way to score."),
        (
            {"doubling_mode": "square"},
            "doubling",
            "square is not a way to double: choose multiply or add.",
        ),
        ({"deal_limit": 0}, "deal_limit", "A deal limit must be at least 1 deal."),
        ({"thani": Thani(-1, 2)}, "thani", "A thani cannot move or score a negative number."),
    ],
)
def test_settings_that_cannot_be_played_are_refused(values, field, message):
    with pytest.raises(RulesError) as refused:
        Rules(**values)
    assert (refused.value.field, refused.value.message) == (field, message)


def test_the_bounds_cover_the_new_settings():
    with pytest.raises(RulesError, match="A thani moves at most 4000, not 4001."):
        core.check_house_rules(Rules(thani=Thani(4001, 1)))
    with pytest.raises(RulesError, match="A game can be at most 1000 deals, not 1001."):
        core.check_house_rules(Rules(deal_limit=1001))


# --- Presets -----------------------------------------------------------------


def test_the_presets_are_bundles_of_settings():
    international = core.preset_rules(Preset.INTERNATIONAL, players=6)
    assert international == Rules(
        team_size=3,
        scoring=Scoring.POINTS,
        doubling_mode=DoublingMode.ADD,
        double_factor=1,
        redouble_factor=2,
        all_pass=False,
        deal_limit=18,
    )
    assert core.preset_rules(Preset.TABLES) == core.DEFAULT_RULES
    assert core.preset_rules(Preset.KODI, 8) == Rules(team_size=4, tables_per_team=7, kodi=True)
    assert core.preset_rules(Preset.KODI, 6).team_size == 3
    for preset, players in [(Preset.TABLES, 4), (Preset.INTERNATIONAL, 6), (Preset.KODI, 8)]:
        assert core.preset_of(core.preset_rules(preset, players), players) == preset
    kodi_limited = Rules(team_size=2, tables_per_team=6, kodi=True, deal_limit=30)
    assert core.preset_of(kodi_limited, 4) == Preset.KODI
    assert core.preset_of(Rules(tables_per_team=10), 4) == Preset.CUSTOM
    # The deal limit is the club's in any preset: 24 deals in an International's later stage.
    later = replace(core.preset_rules(Preset.INTERNATIONAL), deal_limit=24)
    assert core.preset_of(later, 6) == Preset.INTERNATIONAL
    assert core.preset_of(Rules(deal_limit=16), 6) == Preset.TABLES
    assert core.preset_of(replace(later, doubling_mode="multiply"), 6) == Preset.CUSTOM
    with pytest.raises(RulesError, match="56 is played by 4, 6 or 8 players, not 5."):
        core.preset_rules(Preset.KODI, 5)


def test_a_points_sheet_bounds_what_one_deal_can_score():
    """Nothing is conserved on a sheet, so one deal scores at most 4,000 points."""
    big = Rules(
        scoring="points", deal_limit=18, bands=(core.Band(28, 56, 4000, 4000),), redouble_factor=4
    )
    with pytest.raises(RulesError, match="could score 16000"):
        core.check_house_rules(big)
    core.check_house_rules(core.preset_rules(Preset.INTERNATIONAL))
