"""The archive keys of the forms clubs play, both ways.

Each preset's game is played through the services, exported, imported under
another label and exported again: the two exports are the same but for the
label. Each key is checked by name and value, and a file whose
computed keys disagree with the rules, or that gives keys its game cannot
have, is refused naming the game, the deal and the key.
"""

from __future__ import annotations

import copy
import json

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from club.archive.export import export_json
from club.archive.format import FORMAT, ArchiveError
from club.archive.load import import_results
from club.games.models import Game, GameTeam, Round
from club.games.services import (
    Deal,
    TeamEntry,
    create_game,
    edit_deal,
    end_game,
    load_seating,
    record_deal,
)
from club.scoring import rules as core
from club.scoring.rules import Preset, Rules, Thani
from club.tournaments.models import Tournament
from tests.scoring.test_rules_forms_of_play import any_deal, forms_of_play

pytestmark = pytest.mark.django_db

THREES = [
    TeamEntry("Anu", "Biju", "Kerala Blasters", third="Chitra"),
    TeamEntry("Dev", "Esha", third="Farid"),
]


def contract(game, seat, bid, ours, doubling="none", trump="hearts"):
    seating = load_seating(game)
    team = core.seat_order(len(seating.teams), seating.teams[0].size)[seat][0]
    points = dict.fromkeys(range(len(seating.teams)), 0)
    points[team] = ours
    points[(team + 1) % len(points)] += 56 - ours
    return Deal(points=points, declarer=seat, bid=bid, trump=trump, doubling=doubling)


def play(game, *entries):
    for entry in entries:
        game.refresh_from_db()
        record_deal(game=game, number=game.deals_played + 1, entry=entry)
    game.refresh_from_db()
    return game


def international() -> Game:
    game = create_game(
        label="International night",
        teams=THREES,
        first_dealer=4,
        rules=core.preset_rules(Preset.INTERNATIONAL, 6),
    )
    for number in range(18):
        doubling = ["none", "double", "redouble"][number % 3]
        bid = 28 + number  # made, made, made, then failed by three
        play(game, contract(game, number % 6, bid, bid + (2 if number % 4 else -3), doubling))
    edit_deal(game=game, number=3, entry=contract(game, 2, 40, 20))  # one correction
    return game


def kodi_night() -> Game:
    game = create_game(
        label="Kodi night",
        teams=[TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev")],
        first_dealer=0,
        rules=core.preset_rules(Preset.KODI, 4),
    )
    slam = "redouble"
    play(
        game,
        contract(game, 0, 56, 56, slam),
        contract(game, 1, 56, 56, slam),
        contract(game, 2, 30, 40),
        Deal(points={0: 20, 1: 36}),  # all passed: Anu & Biju to make 28, failed
    )
    end_game(game=game)
    return game


def thani_tables() -> Game:
    game = create_game(
        label="Four tables with thani",
        teams=[
            TeamEntry("Anu", "Biju"),
            TeamEntry("Chitra", "Dev"),
            TeamEntry("Esha", "Farid"),
            TeamEntry("Gita", "Hari"),
        ],
        first_dealer=0,
        rules=Rules(thani=Thani(6, 8), doubling_mode="add", double_factor=1, redouble_factor=3),
    )
    chitra = 1  # her seat, in play order
    play(
        game,
        contract(game, 0, 40, 44, "double"),
        Deal(points={}, thani=chitra, made=True),
        Deal(points={}, thani=chitra, made=False),
    )
    return game


def fours() -> Game:
    game = create_game(
        label="Four a side",
        teams=[
            TeamEntry("Anu", "Biju", third="Chitra", fourth="Dev"),
            TeamEntry("Esha", "Farid", third="Gita", fourth="Hari"),
        ],
        first_dealer=0,
        rules=Rules(team_size=4, all_pass=False, tables_per_team=3),
    )
    play(game, contract(game, 0, 48, 50, "redouble"))  # 3 x 4 = 12: all three tables
    return game


PRESETS = {
    "international": international,
    "kodi": kodi_night,
    "thani": thani_tables,
    "fours": fours,
}


def exported(label: str) -> dict:
    [game] = [g for g in json.loads(export_json())["games"] if g["label"] == label]
    return game


@pytest.mark.parametrize("preset", PRESETS)
def test_each_form_of_play_exports_imports_and_exports_identically(preset):
    game = PRESETS[preset]()
    first = exported(game.label)
    again = copy.deepcopy(first)
    again["label"] = game.label + " (again)"
    summary = import_results(json.dumps({"format": FORMAT, "games": [again]}))
    assert summary.games == 1
    second = exported(game.label + " (again)")
    assert {**second, "label": game.label} == first
    # The stored rows of the import are the original's.
    a, b = Game.objects.get(label=game.label), Game.objects.get(label=game.label + " (again)")
    assert a.rules == b.rules
    columns = ("position", "tables", "score", "kodis", "place", "out_in_deal")
    assert list(a.teams.values_list(*columns)) == list(b.teams.values_list(*columns))


def test_the_keys_of_a_56_international_session():
    game = international()
    document = exported(game.label)
    assert document["scoring"] == "points" and document["doubling_mode"] == "add"
    assert document["all_pass"] is False and document["deal_limit"] == 18
    assert "doubling_factors" not in document  # +1 and +2 are the add mode's defaults
    assert "kodi" not in document and "thani" not in document
    assert document["teams"][0] == {"name": "Kerala Blasters", "players": ["Anu", "Biju", "Chitra"]}
    assert "tables" not in document and set(document["score"]) == {
        "Kerala Blasters",
        "Dev & Esha & Farid",
    }
    first = document["rounds"][0]
    assert set(first) == {
        "number",
        "dealer",
        "declarer",
        "bid",
        "trump",
        "doubling",
        "points",
        "declaring_team",
        "made",
        "scored",
        "score_after",
    }
    assert first["scored"] == {"Kerala Blasters": 0, "Dev & Esha & Farid": 2}  # failed 28: 2
    totals = {name: 0 for name in document["score"]}
    for round_ in document["rounds"]:
        totals = {name: totals[name] + round_["scored"][name] for name in totals}
        assert round_["score_after"] == totals
    assert document["score"] == totals and document["status"] == "finished"


def test_the_keys_of_a_kodi_night_and_of_a_thani():
    kodi = exported(kodi_night().label)
    assert kodi["kodi"] is True and kodi["tables_per_team"] == 6 and kodi["ended_early"] is True
    assert [r["kodi"] for r in kodi["rounds"]] == [["Chitra & Dev"], ["Anu & Biju"], [], []]
    assert kodi["rounds"][0]["tables_after"] == {"Anu & Biju": 6, "Chitra & Dev": 6}
    assert kodi["rounds"][0]["transfers"] == {"Anu & Biju": 6, "Chitra & Dev": -6}
    assert kodi["rounds"][-1]["kodis_after"] == {"Anu & Biju": 1, "Chitra & Dev": 1}
    assert kodi["kodis"] == {"Anu & Biju": 1, "Chitra & Dev": 1}
    assert all("eliminated" not in r for r in kodi["rounds"])
    thani = exported(thani_tables().label)
    assert thani["thani"] == {"made": 6, "failed": 8}
    assert thani["doubling_factors"] == {"double": 1, "redouble": 3}
    made = thani["rounds"][1]
    assert {k: made[k] for k in ("thani", "made", "declaring_team")} == {
        "thani": "Chitra",
        "made": True,
        "declaring_team": "Chitra & Dev",
    }
    assert not {"bid", "trump", "doubling", "points", "declarer"} & set(made)
    assert Round.objects.filter(thani=True).count() == 2


def test_existing_games_export_exactly_as_before():
    """A game of today's form writes none of the new keys (the pinned format)."""
    game = create_game(
        label="Classic", teams=[TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev")]
    )
    play(game, contract(game, 1, 28, 30))
    document = exported("Classic")
    assert set(document) == {
        "label",
        "tables_per_team",
        "teams",
        "first_dealer",
        "status",
        "winner",
        "tables",
        "rounds",
    }
    assert set(document["rounds"][0]) == {
        "number",
        "dealer",
        "declarer",
        "bid",
        "trump",
        "doubling",
        "points",
        "declaring_team",
        "made",
        "transfers",
        "tables_after",
        "eliminated",
    }


def refused(document: dict) -> str:
    with pytest.raises(ArchiveError) as error:
        import_results(json.dumps({"format": FORMAT, "games": [document]}))
    return error.value.message


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d["rounds"][4]["scored"].update({"Kerala Blasters": 9}), "deal 5"),
        (lambda d: d["rounds"][0].update({"transfers": {}}), "has no “transfers”"),
        (lambda d: d.update({"scoring": "sheets"}), "scoring must be tables or points"),
        (lambda d: d.pop("deal_limit"), "needs a deal limit"),
        (lambda d: d["rounds"][0].update({"all_pass": True}), "deal 1"),
        (lambda d: d["teams"][1]["players"].pop(), "every team of a game is the same size"),
        (lambda d: d.update({"kodi": True}), "is counted in tables"),
    ],
    ids=["scored", "transfers", "scoring", "limit", "all pass", "sizes", "kodi"],
)
def test_a_file_that_disagrees_with_its_rules_is_refused_and_nothing_is_saved(change, message):
    game = international()
    document = exported(game.label)
    document["label"] = "Imported"
    change(document)
    assert message in refused(document)
    assert not Game.objects.filter(label="Imported").exists()
    assert GameTeam.objects.count() == 2


def test_a_thani_in_a_game_that_does_not_play_one_is_refused():
    game = thani_tables()
    document = exported(game.label)
    document["label"] = "No thani here"
    del document["thani"]
    assert "not played with thani" in refused(document)
    document["thani"] = {"made": 6, "failed": 8}
    document["rounds"][1]["bid"] = 40
    assert "a thani has no “bid”" in refused(document)


# --- Random games of every form, written as a club's own tool would write them ---


def input_document(label: str, teams: int, rules: Rules, first_dealer: int, deals) -> dict:
    """A file with only what a scorer enters, written here from the settings and deals."""
    size = rules.team_size
    players = [[f"P{team + 1}{seat + 1}" for seat in range(size)] for team in range(teams)]
    names = [f"Team {team + 1}" for team in range(teams)]
    seats = [players[team][partner] for team, partner in core.seat_order(teams, size)]
    document: dict = {"label": label, "tables_per_team": rules.tables_per_team}
    if rules.doubling_mode == "add":
        document["doubling_mode"] = "add"
    document["doubling_factors"] = {
        "double": rules.double_factor,
        "redouble": rules.redouble_factor,
    }
    if rules.scoring == "points":
        document["scoring"] = "points"
    if not rules.all_pass:
        document["all_pass"] = False
    if rules.kodi:
        document["kodi"] = True
    if rules.thani is not None:
        document["thani"] = {"made": rules.thani.made, "failed": rules.thani.failed}
    if rules.deal_limit is not None:
        document["deal_limit"] = rules.deal_limit
    document["teams"] = [{"name": n, "players": p} for n, p in zip(names, players, strict=True)]
    document["first_dealer"] = seats[first_dealer]
    rounds = []
    for deal in deals:
        if deal.thani is not None:
            rounds.append({"thani": seats[deal.thani], "made": deal.made})
            continue
        entry: dict = (
            {"all_pass": True}
            if deal.declarer is None
            else {
                "declarer": seats[deal.declarer],
                "bid": deal.bid,
                "trump": deal.trump,
                "doubling": deal.doubling,
            }
        )
        entry["points"] = {names[team]: pile for team, pile in deal.points.items()}
        rounds.append(entry)
    document["rounds"] = rounds
    return document


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.data())
def test_random_games_of_every_form_import_export_and_import_again(data):
    teams, rules = data.draw(forms_of_play())
    first_dealer = data.draw(st.integers(0, teams * rules.team_size - 1))
    state = core.initial_state(teams, first_dealer, rules)
    deals, settlements = [], []
    for _ in range(data.draw(st.integers(0, 14))):
        if state.finished or state.limit_reached:
            break
        deal = data.draw(any_deal(state))
        settlement, state = core.settle(state, deal)
        deals.append(deal)
        settlements.append(settlement)
    document = input_document("Random", teams, rules, first_dealer, deals)
    with transaction.atomic():
        import_results(json.dumps({"format": FORMAT, "games": [document]}))
        written = exported("Random")
        for round_, settlement in zip(written["rounds"], settlements, strict=True):
            names = {team: f"Team {team + 1}" for team in range(teams)}
            assert round_["made"] == settlement.made
            assert round_["declaring_team"] == names[settlement.declaring_team]
            if rules.scoring == "points":
                assert round_["scored"] == {names[t]: v for t, v in settlement.scored.items()}
                assert "transfers" not in round_
            else:
                assert round_["transfers"] == {names[t]: v for t, v in settlement.transfers.items()}
                assert ("kodi" in round_) == rules.kodi and ("eliminated" in round_) != rules.kodi
        again = {**written, "label": "Random again"}
        import_results(json.dumps({"format": FORMAT, "games": [again]}))
        assert {**exported("Random again"), "label": "Random"} == written
        transaction.set_rollback(True)


def _draft(teams):
    return {
        "format": FORMAT,
        "tournament": {
            "name": "Cup",
            "starts_on": "2026-11-01",
            "status": "draft",
            "teams": teams,
            "sittings": [],
        },
        "games": [],
    }


def test_a_tournaments_teams_of_three_are_kept_whole():
    import_results(json.dumps(_draft([{"name": "Three", "players": ["P1", "P2", "P3"]}])))
    tournament = Tournament.objects.get()
    assert tournament.team_size == 3
    team = tournament.entries.get().team
    assert [player.name for player in team.players] == ["P1", "P2", "P3"]


def test_a_tournaments_teams_are_one_size():
    teams = [
        {"name": "Three", "players": ["P1", "P2", "P3"]},
        {"name": "Two", "players": ["P4", "P5"]},
    ]
    with pytest.raises(ArchiveError, match="every team of a tournament is the same size"):
        import_results(json.dumps(_draft(teams)))
    assert not Tournament.objects.exists()


def test_a_tournament_team_without_its_players_is_told_how_many_it_may_have():
    with pytest.raises(ArchiveError, match="a list of its 2, 3 or 4 players"):
        import_results(json.dumps(_draft([{"name": "Nobody"}])))
