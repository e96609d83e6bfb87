"""The phone checks a deal entry as the server does, in the same words.

``club.scoring.entry.read_entry`` (what the deal form runs on the server) and
``checkEntry`` in ``club/static/js/entry.js`` (what the phone runs as the keys are tapped)
are given the same random entries of games of every form of play: valid entries, and
entries wrong in every way a form can be (no declarer, a bid of 27 or 57 or "1e1", no
trumps, doubling where none is allowed, each contradiction of a thani, piles missing, not
whole, past 56 or not adding to 56). Each answer must be the same: the same mistakes at
the same fields, in the same words, or the same deal read. Whatever passes is then
settled by the rules core without a refusal: the phone lets nothing through that the
server would turn back. ``tests/games/test_entry_checks.py`` does the same through the
pages themselves.
"""

from __future__ import annotations

from dataclasses import asdict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from club.scoring import entry
from club.scoring import rules as core
from club.scoring.rules import Deal, GameOver, RulesError
from club.scoring.wire import rules_to_wire
from tests.scoring.node import needs_node, run_entry_checks
from tests.scoring.test_rules_forms_of_play import forms_of_play

pytestmark = needs_node("the phone's checks are not tested")

TEAM_NAMES = ["Anu & Biju", "Chitra & Dev", "50% Club", "Esha & Farid"]


def wire_for(rules: core.Rules, seats: list[str], in_play: list[int], teams: int) -> dict:
    """What the page gives the phone (games.deal_form.DealForm.phone_entry), in English."""
    return {
        "rules": rules_to_wire(rules),
        "seats": seats,
        "in_play": in_play,
        "teams": TEAM_NAMES[:teams],
        "messages": entry.messages_for(rules),
    }


@st.composite
def field_values(draw, rules: core.Rules, seats: list[str], in_play: list[int]) -> dict:
    """An entry as a form could post it: mostly sensible, often wrong somewhere."""
    ids = [*seats, *(f"thani:{seat}" for seat in seats)]
    declarer = draw(st.sampled_from(["", "pass", "999", "x", *ids, *seats, *seats]))
    bid = draw(
        st.sampled_from(["", "thani", "27", "28", "30", "41", "56", "57", "1e1", " 32 ", "-1"])
    )
    trump = draw(st.sampled_from(["", "no-trumps", "spades", "hearts", "clubs", "jokers"]))
    fields = {
        "declarer": declarer,
        "bid": bid,
        "trump": trump,
        "doubling": draw(st.sampled_from(["", "none", "none", "double", "redouble", "triple"])),
        "thani_made": draw(st.sampled_from(["", "", "", "yes", "no", "maybe"])),
    }
    # Piles: the 56 shared out, or something wrong with one of them.
    shares = [draw(st.integers(0, 56)) for _ in in_play[:-1]]
    piles = [*shares, 56 - sum(shares)] if sum(shares) <= 56 else [*shares, 0]
    for team, pile in zip(in_play, piles, strict=True):
        fields[f"points_{team}"] = str(pile)
    if draw(st.booleans()):
        team = draw(st.sampled_from(in_play))
        fields[f"points_{team}"] = draw(
            st.sampled_from(
                ["", "x", "57", "2.5", "+5", "99", "-1", "-0", "05", "२०", "൩൬", "๔๒", " 30\t"]
                + ["\x1c20", "\ufeff20", "\u00a030", "3\u0e50"]
            )
        )
    if draw(st.integers(0, 3)) == 0:
        for team in in_play:
            fields[f"points_{team}"] = ""
    return fields


@st.composite
def entries(draw):
    teams, rules = draw(forms_of_play())
    players = teams * rules.team_size
    seats = [str(100 + seat) for seat in range(players)]
    out = sorted(draw(st.sets(st.integers(0, teams - 1), max_size=teams - 2)))
    in_play = (
        [team for team in range(teams) if team not in out]
        if rules.eliminates
        else list(range(teams))
    )
    fields = draw(field_values(rules, seats, in_play))
    return teams, rules, seats, in_play, fields


def python_answer(rules, seats, in_play, teams, fields) -> dict:
    read, errors = entry.read_entry(rules, seats, in_play, fields)
    return {
        "errors": [
            {
                "code": error.code,
                "field": error.field,
                "words": error.translated(lambda text: text, TEAM_NAMES[:teams]),
            }
            for error in errors
        ],
        "entry": None if read is None else {k: v for k, v in asdict(read).items()},
    }


def phone_entry(answer: dict) -> dict | None:
    """The phone's entry as Python's reads: piles keyed by whole numbers, each key there."""
    read = answer["entry"]
    if read is None:
        return None
    full = {
        "kind": read["kind"],
        "seat": read.get("seat"),
        "bid": read.get("bid"),
        "trump": read.get("trump"),
        "doubling": read.get("doubling", "none"),
        "made": read.get("made"),
        "points": None,
    }
    if read.get("points") is not None:
        full["points"] = {int(team): pile for team, pile in read["points"].items()}
    return full


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(entries(), min_size=20, max_size=20))
def test_the_phone_checks_every_entry_as_the_server_does_in_the_same_words(batch):
    cases = [
        {"wire": wire_for(rules, seats, in_play, teams), "fields": fields}
        for teams, rules, seats, in_play, fields in batch
    ]
    phone = run_entry_checks(cases)
    for (teams, rules, seats, in_play, fields), answer in zip(batch, phone, strict=True):
        server = python_answer(rules, seats, in_play, teams, fields)
        assert answer["errors"] == server["errors"], fields
        assert phone_entry(answer) == server["entry"], fields


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries(), st.integers(0, 7))
def test_what_passes_the_check_the_rules_settle(case, dealer):
    """Nothing let through by the entry check is refused by the rules (a game not over)."""
    teams, rules, seats, in_play, fields = case
    read, errors = entry.read_entry(rules, seats, in_play, fields)
    if errors:
        assert read is None
        return
    state = core.initial_state(teams, dealer % len(seats), rules)
    state.tables = [rules.tables_per_team if team in in_play else 0 for team in range(teams)]
    if state.finished:
        return
    if read.kind == "thani":
        deal = Deal({}, thani=read.seat, made=read.made)
    elif read.kind == "pass":
        deal = Deal(dict(read.points))
    else:
        deal = Deal(
            dict(read.points),
            declarer=read.seat,
            bid=read.bid,
            trump=read.trump,
            doubling=read.doubling,
        )
    try:
        core.settle(state, deal)
    except GameOver:
        pass
    except RulesError as error:  # pragma: no cover - the failure this test looks for
        pytest.fail(f"the entry check let through what the rules refuse: {error} ({fields})")


def test_an_entry_wrong_everywhere_is_told_every_mistake_at_once():
    """Not one group at a time: the declarer, the bid, the trumps and a pile, together."""
    rules = core.DEFAULT_RULES
    fields = {"declarer": "", "bid": "57", "trump": "", "points_0": "30", "points_1": ""}
    read, errors = entry.read_entry(rules, ["1", "2", "3", "4"], [0, 1], fields)
    assert read is None
    assert [(error.field, error.message) for error in errors] == [
        ("declarer", "Choose who won the bidding, or All passed."),
        ("bid", "A bid must be from 28 to 56; 57 is not."),
        ("trump", "Choose the trumps, or no trumps."),
        ("points_1", "Enter the pile of team 2."),
    ]


@pytest.mark.parametrize(
    "pile",
    ["२०", "൨൦", "๒๐", " 20\t", "\x1c20", "\ufeff20", "\u00a020", "-0", "020", "-1", "2\u0e50"],
)
def test_digits_and_spaces_read_alike(pile):
    """The digits of the club's languages' keyboards and the spaces around a number read the
    same on both sides: as 20, or refused alike."""
    rules = core.DEFAULT_RULES
    seats = ["1", "2", "3", "4"]
    fields = {"declarer": "1", "bid": "30", "trump": "hearts", "points_0": pile, "points_1": "36"}
    (phone,) = run_entry_checks([{"wire": wire_for(rules, seats, [0, 1], 2), "fields": fields}])
    server = python_answer(rules, seats, [0, 1], 2, fields)
    assert phone["errors"] == server["errors"]
    assert phone_entry(phone) == server["entry"]
