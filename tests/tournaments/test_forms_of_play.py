"""Tournaments of the forms clubs play.

A tournament picks a preset (or custom settings) for all its games: an
International tournament registers teams of three, draws games of two teams
and plays 18-deal points sheets; its standings break ties of tournament points
and games won by the score difference where a tables tournament uses net
tables. Each figure below is worked out by hand from the deals recorded.
"""

from __future__ import annotations

import datetime
import json
import random
import re

import pytest

from club.games.models import Game
from club.games.services import Deal, edit_deal, load_seating
from club.scoring import rules as core
from club.tournaments import services
from club.tournaments.models import Standing, Tournament, TournamentTeam
from club.tournaments.services.draw import TWO_TEAMS_A_GAME
from club.tournaments.services.teams import OWN_PARTNER, PLAYS_FOR_ANOTHER, TEAM_OF_THREE
from tests.archive.test_forms_of_play import play
from tests.archive.test_tournament_archive import csv_rows, export, import_text, refused, wipe

pytestmark = pytest.mark.django_db

THREES = [
    ("Anu", "Biju", "Chitra"),
    ("Dev", "Esha", "Farid"),
    ("Gita", "Hari", "Indu"),
    ("Jacob", "Kavya", "Latif"),
]
NAME = "Onam International"


def international(name=NAME, teams=THREES, **kwargs):
    tournament = services.create_tournament(
        name=name,
        starts_on=datetime.date(2026, 8, 29),
        rules=core.preset_rules(core.Preset.INTERNATIONAL),
        **kwargs,
    )
    for first, second, third in teams:
        services.register_team(tournament=tournament, first=first, second=second, third=third)
    return tournament


def contract(game, team_name, bid, ours, doubling="none"):
    """The first player of ``team_name`` declares ``bid``; that team takes ``ours`` of 56."""
    seating = load_seating(game)
    team = next(team for team in seating.teams if team.team.name == team_name)
    other = next(other for other in seating.teams if other is not team)
    return Deal(
        points={team.position: ours, other.position: 56 - ours},
        declarer=seating.seat_of(team.players[0].pk),
        bid=bid,
        trump="spades",
        doubling=doubling,
    )


def first_sitting(tournament, seed=3):
    """The first sitting: teams 1 and 2 (in registration order) at one table, 3 and 4 at
    the next, as the organiser set the draw."""
    sitting = services.propose_sitting(tournament=tournament, rng=random.Random(seed))
    entries = list(tournament.entries.order_by("id").values_list("id", flat=True))
    games = [entries[at : at + 2] for at in range(0, len(entries) - 1, 2)]
    sitting = services.adjust_sitting(sitting=sitting, games=games, byes=entries[len(games) * 2 :])
    return services.confirm_sitting(sitting=sitting, rng=random.Random(seed))


def game_of(sitting, team_name) -> Game:
    return Game.objects.get(sitting_entry__sitting=sitting, teams__team__name=team_name)


def standings(tournament) -> list[tuple]:
    return [
        (row.place, row.entry.team.name, row.points, row.won, row.net_tables, row.score_difference)
        for row in Standing.objects.filter(tournament=tournament)
        .select_related("entry__team")
        .order_by("place", "entry__team__name")
    ]


def played_international():
    """Two games of two teams of three, called after three deals each.

    Table of Anu's team: Anu's team makes 28 (+1), is set at 40 (the other
    team +3), makes 48 doubled (3 + 1 = +4): 5 - 3, Anu's team wins by 2.
    Table of Gita's team: Gita's team makes 28 three times (+1 each): 3 - 0, by 3.
    Both winners have 3 tournament points and a game won; the score
    difference (+3 against +2) puts Gita's team first.
    """
    tournament = international()
    sitting = first_sitting(tournament)
    anu, gita = "Anu & Biju & Chitra", "Gita & Hari & Indu"
    table = game_of(sitting, anu)
    play(
        table,
        contract(table, anu, 28, 30),
        contract(table, anu, 40, 30),
        contract(table, anu, 48, 50, "double"),
    )
    other = game_of(sitting, gita)
    play(other, *(contract(other, gita, 28, 32) for _ in range(3)))
    services.call_time(sitting=sitting)
    tournament.refresh_from_db()
    return tournament, sitting, table, other


def test_an_international_tournament_plays_every_game_by_its_preset():
    tournament = international()
    assert tournament.rules == core.preset_rules(core.Preset.INTERNATIONAL)
    assert tournament.team_size == 3 and tournament.deal_limit == 18
    sitting = first_sitting(tournament)
    games = list(Game.objects.filter(sitting_entry__sitting=sitting))
    assert len(games) == 2
    for game in games:
        assert game.rules == core.preset_rules(core.Preset.INTERNATIONAL)
        seating = load_seating(game)
        assert [len(team.players) for team in seating.teams] == [3, 3]
        registered = {
            entry.team_id: [player.name for player in entry.team.players]
            for entry in TournamentTeam.objects.filter(tournament=tournament)
        }
        for team in seating.teams:
            assert [player.name for player in team.players] == registered[team.team_id]


def test_standings_break_a_tie_by_the_score_difference():
    tournament, _sitting, table, other = played_international()
    assert [team.score for team in table.teams.order_by("-score")] == [5, 3]
    assert [team.score for team in other.teams.order_by("-score")] == [3, 0]
    assert standings(tournament) == [
        (1, "Gita & Hari & Indu", 3, 1, 0, 3),
        (2, "Anu & Biju & Chitra", 3, 1, 0, 2),
        (3, "Dev & Esha & Farid", 1, 0, 0, -2),
        (4, "Jacob & Kavya & Latif", 1, 0, 0, -3),
    ]
    # The differences of every game add up to nothing, as net tables do.
    assert sum(row[5] for row in standings(tournament)) == 0


def test_a_correction_moves_the_standings_again():
    tournament, _sitting, table, _other = played_international()
    # Deal 2 was made after all (the declaring team took 44 of 56): +2 instead of the
    # other team's +3, so Anu's team ends 1 + 2 + 4 = 7 - 0 and leads by 7.
    edit_deal(game=table, number=2, entry=contract(table, "Anu & Biju & Chitra", 40, 44))
    tournament.refresh_from_db()
    assert standings(tournament)[0] == (1, "Anu & Biju & Chitra", 3, 1, 0, 7)


def test_a_tables_tournament_still_ranks_by_net_tables_and_differs_by_nothing():
    tournament = services.create_tournament(
        name="Tables Cup", starts_on=datetime.date(2026, 8, 29), rules=core.Rules(tables_per_team=1)
    )
    for first, second, _third in THREES:
        services.register_team(tournament=tournament, first=first, second=second)
    assert tournament.team_size == 2
    sitting = first_sitting(tournament)
    for entry in sitting.games.select_related("game"):
        game = entry.game
        name = sorted(game.teams.values_list("team__name", flat=True))[0]
        play(game, contract(game, name, 28, 56))
    tournament.refresh_from_db()
    rows = standings(tournament)
    assert [row[4] for row in rows] == [1, 1, -1, -1]
    assert [row[5] for row in rows] == [0, 0, 0, 0]


# --- Registering and drawing ---------------------------------------------------


def test_a_team_of_three_registers_with_its_players_in_seat_order():
    tournament = international(teams=[])
    entry = services.register_team(
        tournament=tournament, first="Usha", second="Vinod", third="Wilson", name="Thrissur"
    )
    assert entry.team.name == "Thrissur"
    assert [player.name for player in entry.team.players] == ["Usha", "Vinod", "Wilson"]


@pytest.mark.parametrize(
    "players, message, values",
    [
        ({"first": "Usha", "second": "Vinod"}, TEAM_OF_THREE, {}),
        (
            {"first": "Usha", "second": "Vinod", "third": "Wilson", "fourth": "Yamuna"},
            TEAM_OF_THREE,
            {},
        ),
        ({"first": "Usha", "second": "Vinod", "third": "usha"}, OWN_PARTNER, {"player": "usha"}),
        (
            {"first": "Usha", "second": "Vinod", "third": "Chitra"},
            PLAYS_FOR_ANOTHER,
            {"player": "Chitra", "team": "Anu & Biju & Chitra"},
        ),
    ],
)
def test_a_team_of_the_wrong_size_or_a_player_twice_is_refused(players, message, values):
    tournament = international()
    before = TournamentTeam.objects.count()
    with pytest.raises(services.TournamentError, match=re.escape(message % values)):
        services.register_team(tournament=tournament, **players)
    assert TournamentTeam.objects.count() == before


def test_teams_of_three_are_drawn_two_to_a_game():
    tournament = international()
    with pytest.raises(services.TournamentError, match=re.escape(str(TWO_TEAMS_A_GAME))):
        services.propose_sitting(tournament=tournament, game_size=3)
    assert not tournament.sittings.exists()


def test_a_kodi_tournament_plays_kodi_games_of_its_tables():
    tournament = services.create_tournament(
        name="Kodi Cup",
        starts_on=datetime.date(2026, 8, 29),
        rules=core.preset_rules(core.Preset.KODI, 4),
        deal_limit=6,
    )
    for first, second, _third in THREES:
        services.register_team(tournament=tournament, first=first, second=second)
    sitting = first_sitting(tournament)
    game = Game.objects.filter(sitting_entry__sitting=sitting).first()
    assert game.kodi and game.tables_per_team == 6 and game.deal_limit == 6
    name = game.teams.order_by("position").first().team.name
    # 48 made with redoubling: 3 x 4 = 12 tables, more than the other team's 6: a kodi.
    play(game, contract(game, name, 48, 50, "redouble"))
    assert sorted(game.teams.values_list("kodis", "tables")) == [(0, 6), (1, 6)]


# --- The archive -------------------------------------------------------------------


def test_an_international_tournament_round_trips_byte_for_byte(tmp_path):
    played_international()
    first = export("--tournament", NAME)
    document = json.loads(first)["tournament"]
    assert {key: document[key] for key in ("scoring", "doubling_mode", "all_pass")} == {
        "scoring": "points",
        "doubling_mode": "add",
        "all_pass": False,
    }
    assert document["deals_per_game"] == 18
    assert document["teams"][0] == {
        "name": "Anu & Biju & Chitra",
        "players": ["Anu", "Biju", "Chitra"],
    }
    top = document["standings"][0]
    assert top["team"] == "Gita & Hari & Indu" and top["score_difference"] == 3
    assert "net_tables" not in top
    wipe()
    import_text(tmp_path, first)
    assert export("--tournament", NAME) == first
    tournament = Tournament.objects.get()
    assert tournament.team_size == 3 and tournament.rules.scoring == core.Scoring.POINTS


def test_a_tampered_score_difference_is_refused(tmp_path):
    played_international()
    document = json.loads(export("--tournament", NAME))
    wipe()
    document["tournament"]["standings"][0]["score_difference"] = 4
    message = refused(tmp_path, document)
    assert "standings[1].score_difference" in message and "4" in message


def test_the_csv_tables_of_a_points_tournament_name_the_score():
    played_international()
    rows = csv_rows(export("--tournament", NAME, "--format", "csv", "--table", "standings"))
    assert "score_difference" in rows[0] and "net_tables" not in rows[0]
    assert rows[1][rows[0].index("score_difference")] == "3"
    games = csv_rows(export("--tournament", NAME, "--format", "csv", "--table", "games"))
    assert games[0][6:9] == ["team_1", "place_1", "score_1"]
    scores = {games[row][column]: games[row][column + 2] for row in (1, 2) for column in (6, 9)}
    assert scores == {
        "Anu & Biju & Chitra": "5",
        "Dev & Esha & Farid": "3",
        "Gita & Hari & Indu": "3",
        "Jacob & Kavya & Latif": "0",
    }


def test_a_kodi_tournament_of_teams_of_four_round_trips_byte_for_byte(tmp_path):
    fours = [
        ("Anu", "Biju", "Chitra", "Dev"),
        ("Esha", "Farid", "Gita", "Hari"),
    ]
    tournament = services.create_tournament(
        name="Kodi Fours",
        starts_on=datetime.date(2026, 8, 29),
        rules=core.preset_rules(core.Preset.KODI, 8),
        deal_limit=10,
    )
    assert tournament.tables_per_team == 7 and tournament.team_size == 4
    for first, second, third, fourth in fours:
        services.register_team(
            tournament=tournament, first=first, second=second, third=third, fourth=fourth
        )
    sitting = first_sitting(tournament)
    game = Game.objects.get(sitting_entry__sitting=sitting)
    anu = "Anu & Biju & Chitra & Dev"
    # 56 redoubled: 4 x 4 = 16 tables, more than Esha's team's 7: a kodi, then 7 each again;
    # then a 40 failed (3 tables to Esha's team): 4 - 10.
    play(game, contract(game, anu, 56, 56, "redouble"), contract(game, anu, 40, 20))
    services.call_time(sitting=sitting)
    game.refresh_from_db()
    assert sorted(game.teams.values_list("team__name", "kodis", "tables", "place")) == [
        (anu, 0, 4, 1),
        ("Esha & Farid & Gita & Hari", 1, 10, 2),
    ]
    first = export("--tournament", "Kodi Fours")
    document = json.loads(first)
    assert document["tournament"]["kodi"] is True
    assert document["tournament"]["teams"][1]["players"] == ["Esha", "Farid", "Gita", "Hari"]
    assert document["tournament"]["standings"][0]["net_tables"] == -3  # kodis placed it
    wipe()
    import_text(tmp_path, first)
    assert export("--tournament", "Kodi Fours") == first


# --- A shared first place is no win -----------------------------------------------------


def test_a_game_tied_when_time_is_called_is_no_win_and_older_files_stay_valid(tmp_path):
    tournament = services.create_tournament(
        name="Level Cup", starts_on=datetime.date(2026, 8, 29), rules=core.Rules()
    )
    for first, second, _third in THREES[:2]:
        services.register_team(tournament=tournament, first=first, second=second)
    sitting = first_sitting(tournament)
    services.call_time(sitting=sitting)  # no deal: 12 tables each, first place shared
    tournament.refresh_from_db()
    assert [row[3] for row in standings(tournament)] == [0, 0]  # W: nobody won
    first = export("--tournament", "Level Cup")
    document = json.loads(first)
    assert document["games"][0]["winner"] is None
    assert [row["won"] for row in document["tournament"]["standings"]] == [0, 0]
    # As the file was written before: the shared first counted as a win for both.
    for row in document["tournament"]["standings"]:
        row["won"] = 1
    older = json.dumps(document, ensure_ascii=False, indent=2)
    wipe()
    import_text(tmp_path, older)
    assert export("--tournament", "Level Cup") == first  # stored by today's rule
    wipe()
    for row in document["tournament"]["standings"]:
        row["won"] = 2  # right by neither rule
    assert "standings[1].won" in refused(tmp_path, document)


def test_rebuild_standings_ranks_an_upgraded_club_by_todays_rule():
    from io import StringIO

    from django.core.management import call_command

    tournament = services.create_tournament(
        name="Level Cup", starts_on=datetime.date(2026, 8, 29), rules=core.Rules()
    )
    for first, second, _third in THREES[:2]:
        services.register_team(tournament=tournament, first=first, second=second)
    services.call_time(sitting=first_sitting(tournament))
    Standing.objects.update(won=1)  # as a release before this one stored them
    out = StringIO()
    call_command("rebuild_standings", stdout=out)
    assert "Rebuilt the standings of 1 tournament(s)." in out.getvalue()
    assert list(Standing.objects.values_list("won", flat=True)) == [0, 0]
