"""The phone's rules (club/static/js/rules.js) settle every deal as the server does.

A deal kept on the phone with no network is shown with the settlement the phone
works out; the server's is the one that counts, so the two must
agree. Random games of every form of play (the three presets at every table
they seat, and custom settings of every kind: team sizes, points, added
doubling, no all pass, kodi, thani, deal limits and a knockout's tie rule) are
played here by ``club.scoring.rules.settle`` and in Node by ``rules.js``, each
carrying its own state forward from the first deal, with a deal that cannot be
mixed in now and then. Deal by deal, what it settles to, the state after it
and whether the game is over must be the same, and a refusal must name the
same field. Half the games reach the phone as its deal form sends them (player
ids, "pass", "thani:<id>"), as a deal kept offline does.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from club.games.deal_form import ALL_PASS, NO, THANI, YES
from club.scoring import rules as core
from club.scoring.rules import Deal, Preset, RulesError, Scoring, preset_rules, settle
from club.scoring.wire import rules_to_wire, state_to_wire
from tests.scoring.node import RULES_JS, needs_node, run_node
from tests.scoring.test_rules_forms_of_play import TABLES, any_deal, forms_of_play
from tests.scoring.test_rules_properties import finishing_deal

RUNNER = Path(__file__).with_name("run_phone_rules.js")
pytestmark = needs_node("the phone's rules are not tested")

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def run_phone(games: list[dict]) -> list[list[dict]]:
    """What rules.js settles each game's deals to, in Node."""
    return run_node(RUNNER, RULES_JS, games)


# --- The games: every preset and custom settings -------------------------------------


@st.composite
def table_and_rules(draw):
    """A table and its settings: a preset as a club picks it, or custom settings."""
    kind = draw(st.sampled_from(["tables", "international", "kodi", "custom", "custom"]))
    if kind == "tables":
        teams = draw(st.sampled_from([2, 3, 4]))
        rules = preset_rules(Preset.TABLES)
        if draw(st.booleans()):  # a small table count ends a game within the deals drawn
            rules = replace(rules, tables_per_team=draw(st.sampled_from([1, 2, 3])))
    elif kind == "international":
        teams, rules = 2, preset_rules(Preset.INTERNATIONAL)
    elif kind == "kodi":
        players = draw(st.sampled_from([4, 6, 8]))
        teams, rules = 2, preset_rules(Preset.KODI, players)
    else:
        teams, rules = draw(forms_of_play())
    # A deal limit (short, to reach it), with or without a knockout's tie rule.
    if rules.scoring == Scoring.POINTS or draw(st.integers(0, 2)) == 0:
        limit = draw(st.integers(1, 6))
        tie = draw(st.sampled_from([None, 0, 1, 2]))
        rules = replace(rules, deal_limit=limit, tie_deals=tie)
    assert (teams, rules.team_size) in TABLES
    return teams, rules


def broken(draw, state: core.GameState) -> Deal:
    """The deal made into one that cannot be: each kind of refusal the rules make."""
    in_play = state.teams_in_play
    out = [team for team in range(state.team_count) if team not in in_play]
    seats_out = [seat for seat, (team, _) in enumerate(state.seats) if team in out]
    piles = dict.fromkeys(in_play, 0)
    piles[in_play[0]] = 56
    kinds = [
        "total",
        "bid_low",
        "bid_high",
        "trump",
        "doubling",
        "missing",
        "seat",
        "pass_bid",
        "pass_doubled",
        "pass_trump",
        "thani",
        "thani_made",
        "thani_piles",
        "thani_doubled",
    ]
    if out:
        kinds += ["out_declarer", "out_pile"]
    kind = draw(st.sampled_from(kinds))
    bid = Deal(piles, declarer=0, bid=40, trump="spades")
    return {
        "total": replace(bid, points={**piles, in_play[0]: 55}),
        "bid_low": replace(bid, bid=state.rules.min_bid - 1),
        "bid_high": replace(bid, bid=57),
        "trump": replace(bid, trump="jokers"),
        "doubling": replace(bid, doubling="quadruple"),
        "missing": replace(bid, points={in_play[0]: 56}),
        "seat": replace(bid, declarer=len(state.seats)),
        "pass_bid": Deal(piles, bid=state.rules.min_bid + 1),
        "pass_doubled": Deal(piles, doubling="double"),
        "pass_trump": Deal(piles, trump="hearts"),
        "thani": Deal({}, thani=0, made=True),
        "thani_made": Deal({}, thani=0),
        "thani_piles": Deal(piles, thani=0, made=False),
        "thani_doubled": Deal({}, thani=0, made=True, doubling="redouble"),
        "out_declarer": replace(bid, declarer=seats_out[0] if seats_out else 0),
        "out_pile": replace(bid, points={**piles, **dict.fromkeys(out, 0)}),
    }[kind]


def player_id(seat: int) -> str:
    return str(1000 + 17 * seat)


def as_fields(deal: Deal) -> dict:
    """The deal as games.deal_form.DealForm posts it, players named by id."""
    if deal.thani is not None:
        return {
            "declarer": f"{THANI}{player_id(deal.thani)}",
            "thani_made": YES if deal.made else NO,
        }
    fields = {f"points_{team}": str(pile) for team, pile in deal.points.items()}
    if deal.declarer is None:
        return {**fields, "declarer": ALL_PASS}
    return {
        **fields,
        "declarer": player_id(deal.declarer),
        "bid": str(deal.bid),
        "trump": str(deal.trump),
        "doubling": str(deal.doubling),
    }


def as_json(deal: Deal) -> dict:
    return {
        "points": {str(team): pile for team, pile in deal.points.items()},
        "declarer": deal.declarer,
        "bid": deal.bid,
        "trump": None if deal.trump is None else str(deal.trump),
        "doubling": str(deal.doubling),
        "thani": deal.thani,
        "made": deal.made,
    }


def settlement_json(settlement: core.Settlement, teams: int, points: bool) -> dict:
    return {
        "number": settlement.number,
        "dealer": settlement.dealer,
        "first_bidder": settlement.first_bidder,
        "declarer": settlement.declarer,
        "declaring_team": settlement.declaring_team,
        "bid": settlement.bid,
        "trump": None if settlement.trump is None else str(settlement.trump),
        "doubling": str(settlement.doubling),
        "points": {str(team): pile for team, pile in settlement.points.items()},
        "made": settlement.made,
        "transfers": [settlement.transfers[team] for team in range(teams)],
        "tables_after": list(settlement.tables_after),
        "eliminated": list(settlement.eliminated),
        "scored": [settlement.scored[team] for team in range(teams)] if points else [],
        "score_after": list(settlement.score_after),
        "kodi": list(settlement.kodi),
        "kodis_after": list(settlement.kodis_after),
    }


@st.composite
def game_played(draw):
    """A game played by the server's rules: what goes to the phone, and what must come back."""
    teams, rules = draw(table_and_rules())
    players = teams * rules.team_size
    state = core.initial_state(teams, draw(st.integers(0, players - 1)), rules)
    by_fields = draw(st.booleans())
    first = {
        "rules": rules_to_wire(rules),
        "state": state_to_wire(state),
        "seats": [player_id(seat) for seat in range(players)],
    }
    steps, expected = [], []
    for _ in range(draw(st.integers(1, 14))):
        over = state.finished or state.limit_reached
        roll = draw(st.integers(0, 9))
        if over:
            # Any deal: the game refuses it. (A finished game may have no team left to bid.)
            deal = finishing_deal(core.initial_state(teams, 0, rules) if state.finished else state)
            sent = {"deal": as_json(deal)}
        elif roll == 0:
            deal = broken(draw, state)
            sent = {"deal": as_json(deal)}
        else:
            deal = finishing_deal(state) if roll == 1 else draw(any_deal(state))
            sent = {"fields": as_fields(deal)} if by_fields else {"deal": as_json(deal)}
        steps.append(sent)
        try:
            settlement, after = settle(state, deal)
        except RulesError as error:
            expected.append({"refused": error.field})
            if over:
                break
            continue
        expected.append(
            {
                "settlement": settlement_json(settlement, teams, rules.scoring == Scoring.POINTS),
                "after": state_to_wire(after),
                "finished": after.finished or after.limit_reached,
            }
        )
        state = after
    return {**first, "deals": steps}, expected


# --- The tests -----------------------------------------------------------------------


@SETTINGS
@given(st.lists(game_played(), min_size=1, max_size=8))
def test_the_phone_settles_every_deal_as_the_server_does(games):
    phone = run_phone([sent for sent, _ in games])
    for number, ((sent, expected), answered) in enumerate(zip(games, phone, strict=True)):
        for deal, (want, got) in enumerate(zip(expected, answered, strict=True), start=1):
            assert got == want, (
                f"game {number}, deal {deal}: the phone says {got}, the server {want}; "
                f"rules {sent['rules']}"
            )


def test_the_phone_settles_a_known_deal_to_the_known_tables():
    """One deal worked by hand, so that the two agreeing can't mean both are wrong.

    Four teams of two with 12 tables: seat 1 (team 1) bids 40 doubled and takes 44:
    band 40-47 gives 2 tables, doubled 4, from each of the three other teams.
    """
    rules = preset_rules(Preset.TABLES)
    state = core.initial_state(4, 0, rules)
    deal = Deal({0: 4, 1: 44, 2: 4, 3: 4}, declarer=1, bid=40, trump="hearts", doubling="double")
    [[answered]] = run_phone(
        [
            {
                "rules": rules_to_wire(rules),
                "state": state_to_wire(state),
                "seats": [player_id(seat) for seat in range(8)],
                "deals": [{"deal": as_json(deal)}],
            }
        ]
    )
    assert answered["settlement"]["made"] is True
    assert answered["settlement"]["transfers"] == [-4, 12, -4, -4]
    assert answered["after"]["tables"] == [8, 24, 8, 8]
    assert answered["after"]["dealer"] == 1  # the deal passes to the left


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"bid": "1e1"}, "bid"),  # Number() reads 10; the deal form refuses it
        ({"bid": "0x1c"}, "bid"),
        ({"bid": ""}, "bid"),
        ({"points_0": "+20"}, "points"),
        ({"points_0": "20.0"}, "points"),
        ({"points_0": ""}, "points"),
    ],
)
def test_the_phone_reads_whole_numbers_only_as_the_deal_form_does(fields, field):
    rules = preset_rules(Preset.TABLES)
    state = core.initial_state(2, 0, rules)
    posted = {
        "declarer": player_id(1),
        "bid": "30",
        "trump": "hearts",
        "doubling": "none",
        "points_0": "20",
        "points_1": "36",
        **fields,
    }
    game = {
        "rules": rules_to_wire(rules),
        "state": state_to_wire(state),
        "seats": [player_id(seat) for seat in range(4)],
    }
    [[answered]] = run_phone([{**game, "deals": [{"fields": posted}]}])
    assert answered == {"refused": field}
    [[fine]] = run_phone(
        [
            {
                **game,
                "deals": [
                    {
                        "fields": {**posted, **dict.fromkeys(fields, None)}
                        | {"bid": "30", "points_0": "20"}
                    }
                ],
            }
        ]
    )
    assert fine["settlement"]["made"] is True
