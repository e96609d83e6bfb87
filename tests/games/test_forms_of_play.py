"""The forms clubs play, stored: teams of three and four, points sheets, kodi, thani.

Games are started, recorded, corrected and undone through the services, and
after every write what is stored (the ledger, each team's tables, points and
kodis, the places) must equal a replay of the deals by the rules core.
"""

from __future__ import annotations

import pytest

from club.games.models import Game, GameTeam, LedgerEntry, Round, Team
from club.games.services import (
    Deal,
    ScoringError,
    TeamEntry,
    create_game,
    edit_deal,
    end_game,
    load_seating,
    record_deal,
    replay_game,
    undo_last_deal,
)
from club.scoring import rules as core
from club.scoring.rules import Preset, Rules, Thani

pytestmark = pytest.mark.django_db

THREES = [
    TeamEntry("Anu", "Biju", "Kerala Blasters", third="Chitra"),
    TeamEntry("Dev", "Esha", third="Farid"),
]
FOURS = [
    TeamEntry("Anu", "Biju", third="Chitra", fourth="Dev"),
    TeamEntry("Esha", "Farid", third="Gita", fourth="Hari"),
]


def assert_stored_as_replayed(game: Game) -> None:
    """Every derived row equals a replay of the deals (the ledger equals a replay)."""
    game.refresh_from_db()
    seating, settlements, state = replay_game(game)
    ledger = {
        (entry.round.number, entry.game_team.position): (entry.change, entry.balance)
        for entry in LedgerEntry.objects.filter(round__game=game).select_related(
            "round", "game_team"
        )
    }
    expected = {}
    for settlement in settlements:
        for team in seating.teams:
            if settlement.score_after:
                figures = (settlement.scored[team.position], settlement.score_after[team.position])
            else:
                figures = (
                    settlement.transfers[team.position],
                    settlement.tables_after[team.position],
                )
            expected[settlement.number, team.position] = figures
    assert ledger == expected
    teams = list(game.teams.order_by("position"))
    assert [team.tables for team in teams] == state.tables
    assert [team.score for team in teams] == state.scores
    assert [team.kodis for team in teams] == state.kodis
    assert [(team.declared, team.made) for team in teams] == [
        (
            sum(s.declaring_team == team.position for s in settlements),
            sum(s.declaring_team == team.position and s.made for s in settlements),
        )
        for team in teams
    ]
    assert game.deals_played == len(settlements)
    if game.rules.scoring == core.Scoring.TABLES:
        assert sum(state.tables) == game.tables_per_team * len(teams)  # tables conserved


def bid(game, seat, bid_, ours, doubling="none"):
    """A contract by the player in ``seat``, whose team takes ``ours`` of the 56."""
    seating = load_seating(game)
    team = core.seat_order(len(seating.teams), seating.teams[0].size)[seat][0]
    points = {position: (ours if position == team else 0) for position in range(len(seating.teams))}
    other = next(position for position in points if position != team)
    points[other] = 56 - ours
    return Deal(
        points=points,
        declarer=seat,
        bid=bid_,
        trump="hearts",
        doubling=doubling,
    )


def next_deal(game, entry):
    game.refresh_from_db()
    return record_deal(game=game, number=game.deals_played + 1, entry=entry)


def test_two_teams_of_three_sit_alternately_and_keep_every_player():
    game = create_game(
        label="Three against three", teams=THREES, first_dealer=0, rules=Rules(team_size=3)
    )
    seating = load_seating(game)
    assert [player.name for player in seating.players] == [
        "Anu",
        "Dev",
        "Biju",
        "Esha",
        "Chitra",
        "Farid",
    ]
    first, second = seating.teams
    assert (first.size, first.team.name, second.team.name) == (
        3,
        "Kerala Blasters",
        "Dev & Esha & Farid",
    )
    assert Team.objects.get(name="Dev & Esha & Farid").player_ids == {
        p.pk for p in seating.players[1::2]
    }
    # The same three again, in another order, are the same team.
    again = create_game(
        label="Again",
        teams=[THREES[0], TeamEntry("Farid", "Dev", third="Esha")],
        rules=Rules(team_size=3),
    )
    assert load_seating(again).teams[1].team == second.team
    for number in range(1, 7):  # the deal passes to each of the six in turn
        next_deal(game, bid(game, (number - 1) % 6, 28, 30))
        assert_stored_as_replayed(game)
    dealers = list(
        Round.objects.filter(game=game).order_by("number").values_list("dealer__name", flat=True)
    )
    assert dealers == ["Anu", "Dev", "Biju", "Esha", "Chitra", "Farid"]


def test_teams_of_four_at_eight_players():
    game = create_game(label="Four a side", teams=FOURS, first_dealer=7, rules=Rules(team_size=4))
    assert len(load_seating(game).players) == 8
    next_deal(game, bid(game, 0, 40, 44, doubling="double"))
    assert_stored_as_replayed(game)
    game.refresh_from_db()
    assert [team.tables for team in game.teams.order_by("position")] == [16, 8]


@pytest.mark.parametrize(
    "teams, rules, message",
    [
        (
            [TeamEntry("Anu", "Biju", third="Chitra"), TeamEntry("Dev", "Esha")],
            Rules(team_size=3),
            "Every team of a game has the same number of players; these have 2, 3.",
        ),
        (
            [TeamEntry(f"A{i}", f"B{i}", third=f"C{i}") for i in range(3)],
            Rules(team_size=3),
            "Teams of 3 play two against each other, not 3 teams.",
        ),
        (
            THREES,
            Rules(),
            "This game's teams are of 3 players, but its settings are for teams of 2.",
        ),
        (
            [TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Anu")],
            Rules(),
            "Anu is named twice at this game (team 1 and team 2).",
        ),
    ],
)
def test_a_table_that_cannot_be_played_is_refused_and_nothing_is_saved(teams, rules, message):
    with pytest.raises(ScoringError) as refused:
        create_game(label="Refused", teams=teams, rules=rules)
    assert refused.value.message == message
    assert not Game.objects.exists() and not Team.objects.exists()


def test_a_56_international_session_on_the_points_sheet():
    rules = core.preset_rules(Preset.INTERNATIONAL, players=6)
    game = create_game(label="International", teams=THREES, first_dealer=5, rules=rules)
    assert game.deal_limit == 18 and game.rules == rules
    # deal 1: Anu (team 1) bids 40 doubled and takes 44: 2 + 1 = 3 points
    next_deal(game, bid(game, 0, 40, 44, doubling="double"))
    # deal 2: Dev (team 2) bids 30 and takes 20: failed, team 1 scores 2
    next_deal(game, bid(game, 1, 30, 20))
    assert_stored_as_replayed(game)
    teams = list(game.teams.order_by("position"))
    assert [team.score for team in teams] == [5, 0]
    assert [team.tables for team in teams] == [12, 12]  # nothing moves on a sheet
    with pytest.raises(ScoringError, match="first bidder must open at 28 or more"):
        next_deal(game, Deal(points={0: 30, 1: 26}))
    # correcting deal 1 to made undoubled rescoring everything after it
    edit_deal(game=game, number=1, entry=bid(game, 0, 40, 44))
    assert_stored_as_replayed(game)
    assert [t.score for t in game.teams.order_by("position")] == [4, 0]
    for _ in range(16):
        game.refresh_from_db()
        next_deal(game, bid(game, 1, 28, 30))  # team 2 makes 28 each time: 1 point a deal
    game.refresh_from_db()
    assert game.is_finished and game.deals_played == 18
    teams = list(game.teams.order_by("position"))
    assert [t.score for t in teams] == [4, 16] and [t.place for t in teams] == [2, 1]
    assert game.winner == teams[1]
    assert_stored_as_replayed(game)
    with pytest.raises(ScoringError):
        next_deal(game, bid(game, 1, 28, 30))
    undo_last_deal(game=game, number=18)
    game.refresh_from_db()
    assert not game.is_finished and game.winner is None
    assert_stored_as_replayed(game)


def test_a_kodi_night_restarts_the_tables_and_counts_kodis():
    rules = core.preset_rules(Preset.KODI, players=4)
    game = create_game(
        label="Kodi night",
        teams=[TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev")],
        first_dealer=3,
        rules=rules,
    )
    slam = bid(game, 0, 56, 56, doubling="redouble")  # 16 tables owed: team 2 pays its 6
    next_deal(game, slam)
    assert_stored_as_replayed(game)
    teams = list(game.teams.order_by("position"))
    assert [(t.tables, t.kodis, t.out_in_deal) for t in teams] == [(6, 0, None), (6, 1, None)]
    next_deal(game, bid(game, 1, 56, 56, doubling="redouble"))  # and now team 1 takes one
    next_deal(game, bid(game, 0, 28, 30))  # 1 table across
    assert_stored_as_replayed(game)
    game.refresh_from_db()
    assert not game.is_finished
    end_game(game=game)
    game.refresh_from_db()
    teams = list(game.teams.order_by("position"))
    assert [(t.tables, t.kodis, t.place) for t in teams] == [(7, 1, 1), (5, 1, 2)]
    assert game.is_finished and game.winner == teams[0]
    assert_stored_as_replayed(game)


@pytest.mark.parametrize("made", [True, False])
def test_a_thani_is_recorded_corrected_and_replayed(made):
    rules = Rules(thani=Thani(made=8, failed=10))
    game = create_game(
        label="Thani",
        teams=[TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev"), TeamEntry("Esha", "Farid")],
        first_dealer=0,
        rules=rules,
    )
    chitra = load_seating(game).players[1]  # in seat 1
    round_ = next_deal(game, Deal(points={}, thani=1, made=made))
    round_.refresh_from_db()
    assert (round_.thani, round_.bid, round_.trump, round_.declarer, round_.made) == (
        True,
        None,
        "",
        chitra,
        made,
    )
    assert not round_.piles.exists()
    assert_stored_as_replayed(game)
    tables = [t.tables for t in game.teams.order_by("position")]
    assert tables == ([4, 28, 4] if made else [18, 0, 18])  # failed: pays its 12, shared
    # corrected to an ordinary contract and back to a thani
    edit_deal(game=game, number=1, entry=bid(game, 1, 28, 30))
    assert_stored_as_replayed(game)
    edit_deal(game=game, number=1, entry=Deal(points={}, thani=1, made=not made))
    assert_stored_as_replayed(game)
    assert Round.objects.get(game=game, number=1).thani


def test_a_thani_where_the_game_does_not_play_one_is_refused_naming_the_deal():
    game = create_game(
        label="No thani", teams=[TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev")]
    )
    with pytest.raises(ScoringError) as refused:
        next_deal(game, Deal(points={}, thani=0, made=True))
    assert refused.value.message == "Deal 1: This game is not played with thani."
    assert not Round.objects.exists() and not LedgerEntry.objects.exists()
    assert list(GameTeam.objects.values_list("tables", flat=True)) == [12, 12]
