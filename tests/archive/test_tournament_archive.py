"""Tournament results out: the whole-tournament archive, CSV tables, downloads, printout.

The tournament used here (worked out by hand; every team starts with 2 tables):

- 5 teams: Anu & Biju (A), Chitra & Dev (C), Esha & Farid (E), Gita & Hari (G),
  Indu & Jacob (J).
- Sitting 1, games of 2: Table 1 A v C, Table 2 E v G, bye J.
  A makes 28 twice: C pays 1 and 1 and is out -> A 1st (3 points), C 2nd (1).
  E makes 28 twice: G out -> E 1st (3), G 2nd (1).
- Sitting 2, one game of 3: Table 1 A, E, J; byes C and G.
  J makes 28: A and E pay 1 each -> A 1, E 1, J 4. Time is called: placed by
  tables, J 1st (4 points), A and E share 2nd ((2 + 0) / 2 = 1 point each).

Standings: A 4 points (won 1, net tables +2 in sitting 1 and -1 in sitting 2
= +1, made 2 of 2), E the same: A and E tie on everything, and the game between
them does not split them (they shared 2nd in it), so they share a place. J has
4 points too, won 1, but net +2: J ranks above them on net tables. Order: J 1st
(4, won 1, net +2), A and E 2nd= (4, won 1, net +1), C and G 4th= (1 point,
won 0, net -2, no contract; they never met).
"""

from __future__ import annotations

import copy
import csv
import datetime
import io
import json
import random

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.http import StreamingHttpResponse
from django.urls import reverse

from club.archive.format import ArchiveError, points_text
from club.archive.load import import_results
from club.games.models import Change, Game, GameTeam, LedgerEntry, Pile, Player, Round, Team
from club.games.services import Deal, load_seating, record_deal
from club.scoring import rules as core
from club.tournaments import services
from club.tournaments.models import (
    Bye,
    Sitting,
    SittingGame,
    Standing,
    Tournament,
    TournamentEvent,
    TournamentTeam,
)

pytestmark = pytest.mark.django_db

NAME = "Vishu Pairs 2025"
PAIRS = [("Anu", "Biju"), ("Chitra", "Dev"), ("Esha", "Farid"), ("Gita", "Hari"), ("Indu", "Jacob")]
A, C, E, G, J = (f"{first} & {second}" for first, second in PAIRS)
NAMES = sorted(name for pair in PAIRS for name in pair)


def _made(game: Game, declaring: str) -> None:
    """``declaring``'s first player bids 28 spades and takes all 56 points."""
    teams = list(game.teams.select_related("team").order_by("position"))
    team = next(t for t in teams if t.team.name == declaring)
    record_deal(
        game=game,
        number=game.deals_played + 1,
        entry=Deal(
            points={t.position: 56 if t is team else 0 for t in teams if t.tables},
            declarer=load_seating(game).seat_of(team.first_player_id),
            bid=28,
            trump="spades",
        ),
    )


def _sitting(tournament, games, byes, size=2) -> Sitting:
    entry = {e.team.name: e.pk for e in tournament.entries.select_related("team")}
    sitting = services.propose_sitting(tournament=tournament, game_size=size, rng=random.Random(1))
    services.adjust_sitting(
        sitting=sitting,
        games=[[entry[name] for name in game] for game in games],
        byes=[entry[name] for name in byes],
    )
    return services.confirm_sitting(sitting=sitting, rng=random.Random(2))


def _game(sitting: Sitting, table: str) -> Game:
    return sitting.games.get(table_label=table).game


def build(*, final=False) -> Tournament:
    tournament = services.create_tournament(
        name=NAME,
        starts_on=datetime.date(2025, 4, 14),
        ends_on=datetime.date(2025, 4, 15),
        venue="Town hall, Thrissur",
        rules=core.Rules(tables_per_team=2),
    )
    for first, second in PAIRS:
        services.register_team(tournament=tournament, first=first, second=second)
    one = _sitting(tournament, [[A, C], [E, G]], [J])
    for _ in range(2):
        _made(_game(one, "Table 1"), A)
        _made(_game(one, "Table 2"), E)
    two = _sitting(tournament, [[A, E, J]], [C, G], size=3)
    _made(_game(two, "Table 1"), J)
    services.call_time(sitting=two)
    if final:
        services.finish_tournament(tournament=tournament)
        services.make_final(tournament=tournament)
    tournament.refresh_from_db()
    return tournament


def export(*args: str) -> str:
    out = io.StringIO()
    call_command("export_results", *args, stdout=out)
    return out.getvalue()


def import_text(tmp_path, text: str) -> str:
    path = tmp_path / "tournament.json"
    path.write_text(text, encoding="utf-8")
    out = io.StringIO()
    call_command("import_results", str(path), stdout=out)
    return out.getvalue()


def wipe() -> None:
    """An empty club again (the archive is kept in a string)."""
    Tournament.objects.all().delete()
    Game.objects.all().delete()
    Team.objects.all().delete()
    Player.objects.all().delete()


def counts() -> dict[str, int]:
    models = (Tournament, TournamentTeam, Sitting, SittingGame, Bye, Standing, TournamentEvent)
    models += (Game, GameTeam, Round, Pile, LedgerEntry, Change, Player, Team)
    return {model.__name__: model.objects.count() for model in models}


def refused(tmp_path, document) -> str:
    before = counts()
    with pytest.raises(CommandError) as info:
        import_text(tmp_path, json.dumps(document, ensure_ascii=False))
    assert counts() == before
    return str(info.value)


def csv_rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


# --- The archive -------------------------------------------------------------------


def test_the_archive_holds_the_tournament_as_worked_out_by_hand():
    build()
    document = json.loads(export("--tournament", NAME))
    assert list(document) == ["format", "club", "players", "tournament", "games"]
    assert document["club"] == {"name": "56 Club", "slug": "club"}  # the home club's
    # Everyone the document names (here the five teams' players), each with the identifier
    # that travels with them, by name.
    players = Player.objects.filter(name__in=NAMES).order_by("name")
    assert document["players"] == [
        {"name": player.name, "id": str(player.identifier)} for player in players
    ]
    assert [player["name"] for player in document["players"]] == NAMES
    tournament = document["tournament"]
    assert tournament["name"] == NAME
    assert tournament["starts_on"] == "2025-04-14" and tournament["ends_on"] == "2025-04-15"
    assert tournament["venue"] == "Town hall, Thrissur"
    assert tournament["status"] == "running"
    assert tournament["final"] is False and tournament["provisional"] is True
    assert tournament["tables_per_team"] == 2
    assert "payout" not in tournament and "doubling_factors" not in tournament
    assert tournament["deals_per_game"] is None
    assert tournament["points_by_place"] == {"2": [3, 1], "3": [4, 2, 0], "4": [5, 3, 1, 0]}
    assert tournament["require_confirmation"] is False
    assert [team["name"] for team in tournament["teams"]] == [A, C, E, G, J]
    assert tournament["teams"][0]["players"] == ["Anu", "Biju"]

    one, two = tournament["sittings"]
    assert one["number"] == 1 and one["game_size"] == 2 and one["byes"] == [J]
    assert [game["table"] for game in one["games"]] == ["Table 1", "Table 2"]
    assert two["game_size"] == 3 and two["byes"] == [C, G]
    labels = [game["label"] for game in document["games"]]
    assert labels == [g["game"] for s in (one, two) for g in s["games"]]

    assert tournament["standings"] == [
        {"place": 1, "shared": False, "team": J, "points": "4", "games": 1, "won": 1,
         "net_tables": 2, "declared": 1, "made": 1, "byes": 1},
        {"place": 2, "shared": True, "team": A, "points": "4", "games": 2, "won": 1,
         "net_tables": 1, "declared": 2, "made": 2, "byes": 0},
        {"place": 2, "shared": True, "team": E, "points": "4", "games": 2, "won": 1,
         "net_tables": 1, "declared": 2, "made": 2, "byes": 0},
        {"place": 4, "shared": True, "team": C, "points": "1", "games": 1, "won": 0,
         "net_tables": -2, "declared": 0, "made": 0, "byes": 1},
        {"place": 4, "shared": True, "team": G, "points": "1", "games": 1, "won": 0,
         "net_tables": -2, "declared": 0, "made": 0, "byes": 1},
    ]  # fmt: skip

    # The game stopped by calling time: finished, placed by tables, no single winner.
    three = document["games"][2]
    assert three["ended_early"] is True and three["status"] == "finished"
    assert three["winner"] == J and three["tables"] == {A: 1, E: 1, J: 4}
    assert "deal_limit" not in three


def test_export_import_export_is_the_same_document_byte_for_byte(tmp_path):
    build(final=True)
    first = export("--tournament", NAME)
    assert json.loads(first)["tournament"]["final"] is True
    wipe()
    output = import_text(tmp_path, first)
    assert f"“{NAME}”" in output and "3 games with 5 deals" in output
    assert export("--tournament", NAME) == first

    tournament = Tournament.objects.get()
    assert tournament.is_final and tournament.status == "finished"
    assert list(tournament.sittings.values_list("status", flat=True)) == ["confirmed"] * 2
    assert Game.objects.filter(results_locked=True).count() == 3
    ended = Game.objects.get(ended_early=True)
    assert ended.is_finished and ended.sitting_entry.sitting.number == 2
    stored = {
        s.entry.team.name: (s.place, s.shared, s.points)
        for s in Standing.objects.select_related("entry__team")
    }
    assert stored[J] == (1, False, 4) and stored[A] == (2, True, 4) and stored[C] == (4, True, 1)
    assert sorted(Bye.objects.values_list("entry__team__name", flat=True)) == [C, G, J]


def test_a_running_tournament_round_trips_and_a_proposed_draw_is_left_out(tmp_path):
    tournament = build()
    services.propose_sitting(tournament=tournament, rng=random.Random(3))  # not a result
    first = export("--tournament", NAME)
    assert len(json.loads(first)["tournament"]["sittings"]) == 2
    wipe()
    import_text(tmp_path, first)
    assert export("--tournament", NAME) == first
    assert Sitting.objects.count() == 2


def test_the_plain_export_still_writes_every_game_and_reimports_them(tmp_path):
    build()
    plain = json.loads(export())
    assert list(plain) == ["format", "club", "players", "games"] and len(plain["games"]) == 3
    assert [player["name"] for player in plain["players"]] == NAMES  # all sat at a game


def test_several_tournaments_export_as_a_list_that_imports_whole(tmp_path):
    build()
    other = services.create_tournament(name="Empty Cup", starts_on=datetime.date(2025, 5, 1))
    services.register_team(tournament=other, first="Zara", second="Yusuf")
    both = export("--tournament", NAME, "--tournament", "empty cup")
    assert [d["tournament"]["name"] for d in json.loads(both)] == [NAME, "Empty Cup"]
    wipe()
    import_text(tmp_path, both)
    assert export("--tournament", NAME, "--tournament", "Empty Cup") == both


def test_an_unknown_tournament_is_named():
    with pytest.raises(CommandError, match="no tournament called “Nothing”"):
        export("--tournament", "Nothing")


# --- Refusals ----------------------------------------------------------------------


@pytest.fixture
def archive() -> dict:
    build(final=True)
    document = json.loads(export("--tournament", NAME))
    wipe()
    return document


def test_tampered_standings_are_refused_naming_tournament_and_field(tmp_path, archive):
    tampered = copy.deepcopy(archive)
    tampered["tournament"]["standings"][0]["points"] = "5"
    message = refused(tmp_path, tampered)
    assert f'Tournament "{NAME}"' in message and "standings[1].points" in message
    assert '"5"' in message and '"4"' in message and "Nothing was imported" in message

    tampered = copy.deepcopy(archive)
    tampered["tournament"]["standings"][3]["team"] = G  # C and G swapped
    assert "standings[4].team" in refused(tmp_path, tampered)

    tampered = copy.deepcopy(archive)
    del tampered["tournament"]["standings"][-1]
    assert "5 teams" in refused(tmp_path, tampered)


def test_a_duplicate_team_is_refused(tmp_path, archive):
    archive["tournament"]["teams"].append({"name": A, "players": ["Kavya", "Latif"]})
    message = refused(tmp_path, archive)
    assert f'Tournament "{NAME}", teams:' in message
    assert "teams 1 and 6 are both called “Anu & Biju”" in message


def test_a_player_in_two_teams_is_refused(tmp_path, archive):
    archive["tournament"]["teams"].append({"name": "Anu & Kavya", "players": ["anu", "Kavya"]})
    message = refused(tmp_path, archive)
    assert "anu plays in two teams (team 1 and team 6)" in message.replace("Anu", "anu", 1)
    assert f'Tournament "{NAME}"' in message


def test_a_sitting_game_naming_an_unknown_label_is_refused(tmp_path, archive):
    archive["tournament"]["sittings"][0]["games"][1]["game"] = "Somebody else's game"
    message = refused(tmp_path, archive)
    assert "sittings[1].games[2].game" in message
    assert "“Somebody else's game”" in message or "Somebody else's game" in message
    assert "not one of the games of the file" in message


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda d: d["tournament"].update(provisional=True), "provisional"),
        (lambda d: d["tournament"].update(status="running"), "final"),
        (lambda d: d["tournament"].update(starts_on="14/04/2025"), "YYYY-MM-DD"),
        (lambda d: d["tournament"]["sittings"][1].update(number=3), "sittings[2].number"),
        (lambda d: d["tournament"]["sittings"][1].update(game_size=2), "has 3 teams"),
        (lambda d: d["tournament"]["sittings"][1]["byes"].append(J), "once per sitting"),
        (lambda d: d["tournament"]["sittings"][1]["byes"].append("Nobody"), "not a team"),
        (lambda d: d["tournament"]["sittings"].pop(), "is in no sitting"),
        (lambda d: d["tournament"].update(points_by_place={"2": [1, 3]}), "points_by_place"),
        (lambda d: d["tournament"].update(tables_per_team=3), "house rules"),
        (lambda d: d["tournament"].update(colour="red"), "colour"),
        (lambda d: d["games"][2].update(ended_early=False), "status"),
    ],
)
def test_other_tournament_refusals_store_nothing(tmp_path, archive, change, expected):
    change(archive)
    assert expected in refused(tmp_path, archive)


def test_a_tournament_already_in_the_club_is_refused(tmp_path):
    build()
    text = export("--tournament", NAME)
    before = counts()
    with pytest.raises(CommandError, match="already"):
        import_text(tmp_path, text)
    assert counts() == before


def test_import_results_raises_archive_error_for_a_bad_document_in_a_list():
    with pytest.raises(ArchiveError, match="Document 2 of the list"):
        import_results(json.dumps([{"format": "fiftysix-results/1", "games": []}, 3]))


@pytest.mark.parametrize(
    ("numerator", "denominator", "text"),
    [(4, 1, "4"), (5, 2, "2.5"), (4, 3, "4/3"), (7, 4, "1.75"), (0, 1, "0")],
)
def test_points_are_written_exactly(numerator, denominator, text):
    from fractions import Fraction

    assert points_text(Fraction(numerator, denominator)) == text


# --- CSV ---------------------------------------------------------------------------


def test_csv_standings_games_and_deals_say_provisional_then_final():
    build()
    standings = csv_rows(export("--tournament", NAME, "--format", "csv", "--table", "standings"))
    assert standings[0] == [
        "results", "place", "shared", "team", "points", "games", "won",
        "net_tables", "declared", "made", "byes",
    ]  # fmt: skip
    assert len(standings) == 1 + 5
    assert standings[1] == ["provisional", "1", "false", J, "4", "1", "1", "2", "1", "1", "1"]
    assert standings[2][:4] == ["provisional", "2", "true", A]

    games = csv_rows(export("--tournament", NAME, "--format", "csv", "--table", "games"))
    assert games[0][:6] == ["results", "sitting", "table", "game", "status", "deals"]
    assert games[0][6:9] == ["team_1", "place_1", "tables_1"] and len(games[0]) == 18
    assert len(games) == 1 + 3
    three = games[3]
    assert three[:3] == ["provisional", "2", "Table 1"] and three[4:6] == ["finished", "1"]
    assert three[6:15] == [A, "2", "1", E, "2", "1", J, "1", "4"]
    assert three[15:] == ["", "", ""]

    deals = csv_rows(export("--tournament", NAME, "--format", "csv"))
    assert deals[0][:4] == ["results", "sitting", "table", "game"]
    assert len(deals[0]) == 3 + 15
    assert len(deals) == 1 + 2 * 2 + 2 * 2 + 1 * 3  # a row per team per deal
    assert {row[0] for row in deals[1:]} == {"provisional"}

    tournament = Tournament.objects.get()
    services.finish_tournament(tournament=tournament)
    services.make_final(tournament=tournament)
    for table in ("standings", "games", "deals"):
        rows = csv_rows(export("--tournament", NAME, "--format", "csv", "--table", table))
        assert {row[0] for row in rows[1:]} == {"final"}


def test_csv_text_cells_are_neutralised():
    tournament = services.create_tournament(
        name="=Formula Open", starts_on=datetime.date(2025, 1, 1)
    )
    services.register_team(tournament=tournament, first="+Plus", second="Minus", name="@Team")
    rows = csv_rows(
        export("--tournament", "=Formula Open", "--format", "csv", "--table", "standings")
    )
    assert rows[1][3] == "'@Team"


def test_csv_of_several_tournaments_is_refused():
    build()
    services.create_tournament(name="Other", starts_on=datetime.date(2025, 1, 1))
    with pytest.raises(CommandError, match="one tournament at a time"):
        export("--tournament", NAME, "--tournament", "Other", "--format", "csv")


# --- Downloads and the printout ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content_type", "file_name"),
    [
        ("export_json", "application/json", "vishu-pairs-2025-results.json"),
        ("standings_csv", "text/csv", "vishu-pairs-2025-standings.csv"),
        ("games_csv", "text/csv", "vishu-pairs-2025-games.csv"),
        ("deals_csv", "text/csv", "vishu-pairs-2025-deals.csv"),
    ],
)
def test_downloads_are_public_attachments(client, name, content_type, file_name):
    tournament = build()
    response = client.get(reverse(f"archive:{name}", args=[tournament.pk]))
    assert response.status_code == 200
    assert response["Content-Type"] == f"{content_type}; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="{file_name}"'
    assert isinstance(response, StreamingHttpResponse)
    text = b"".join(response.streaming_content).decode("utf-8")
    if content_type == "text/csv":
        table = name.removesuffix("_csv")
        assert text == export("--tournament", NAME, "--format", "csv", "--table", table)
    else:
        assert text == export("--tournament", NAME)


def test_downloads_of_a_missing_tournament_are_404_and_writes_are_refused(client):
    tournament = build()
    assert client.get(reverse("archive:standings_csv", args=[tournament.pk + 1])).status_code == 404
    assert client.post(reverse("archive:export_json", args=[tournament.pk])).status_code == 405


def test_a_name_without_ascii_letters_still_gives_a_file_name(client):
    tournament = services.create_tournament(name="ഓണം", starts_on=datetime.date(2025, 9, 1))
    response = client.get(reverse("archive:standings_csv", args=[tournament.pk]))
    assert f"tournament-{tournament.pk}-standings.csv" in response["Content-Disposition"]


def test_the_printout_shows_provisional_until_final(client, django_assert_max_num_queries):
    tournament = build()
    url = reverse("tournaments:print_standings", args=[tournament.pk])
    with django_assert_max_num_queries(8):
        response = client.get(url)
    assert response.status_code == 200
    page = response.content.decode()
    assert "printout-status provisional" in page and ">Provisional<" in page
    assert "Standings after 2 sittings" in page
    rows = page.split("<tbody>")[1].split("</tbody>")[0].count("<tr>")
    assert rows == 5
    assert "2=" in page and "4=" in page
    assert 'style="' not in page  # the Content Security Policy allows no inline style

    services.finish_tournament(tournament=tournament)
    services.make_final(tournament=tournament)
    page = client.get(url).content.decode()
    assert "Final results" in page and "printout-status provisional" not in page
