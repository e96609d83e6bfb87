"""Import and export of results (``fiftysix-results/1``) through the management commands."""

import copy
import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from club.archive.export import export_json
from club.clubs import known
from club.games.models import Change, Game, GameTeam, LedgerEntry, Pile, Player, Round, Team
from club.games.services import Deal, TeamEntry, create_game, load_seating, record_deal
from club.scoring import rules as core
from tests.factories import seat

LABEL = "Table 1, Friday"

EXAMPLE = {
    "format": "fiftysix-results/1",
    "games": [
        {
            "label": LABEL,
            "tables_per_team": 12,
            "teams": [
                {"name": "Anu & Biju", "players": ["Anu", "Biju"]},
                {"name": "Chitra & Dev", "players": ["Chitra", "Dev"]},
            ],
            "first_dealer": "Anu",
            "rounds": [
                {
                    "declarer": "Chitra",
                    "bid": 32,
                    "trump": "hearts",
                    "doubling": "double",
                    "points": {"Anu & Biju": 20, "Chitra & Dev": 36},
                },
                {"all_pass": True, "points": {"Anu & Biju": 30, "Chitra & Dev": 26}},
            ],
        }
    ],
}

# Three teams with 2 tables each; Chitra & Dev go out in deal 2 (worked out by hand):
# deal 1: Anu makes 28 clubs, both others pay 1 -> 4, 1, 1
# deal 2: Chitra fails 28 and owes 2 to each, holds 1: it goes to the team seated
#         after Chitra & Dev, Esha & Farid -> 4, 0, 2
# deal 3: Esha makes 28 hearts -> Anu & Biju pay 1 -> 3, 0, 3
THREE_LABEL = "Three teams, Saturday"
THREE = {
    "format": "fiftysix-results/1",
    "games": [
        {
            "label": THREE_LABEL,
            "tables_per_team": 2,
            "teams": [
                {"name": "Anu & Biju", "players": ["Anu", "Biju"]},
                {"name": "Chitra & Dev", "players": ["Chitra", "Dev"]},
                {"name": "Esha & Farid", "players": ["Esha", "Farid"]},
            ],
            "first_dealer": "Anu",
            "rounds": [
                {
                    "declarer": "Anu",
                    "bid": 28,
                    "trump": "clubs",
                    "points": {"Anu & Biju": 30, "Chitra & Dev": 13, "Esha & Farid": 13},
                },
                {
                    "declarer": "Chitra",
                    "bid": 28,
                    "trump": "spades",
                    "points": {"Anu & Biju": 20, "Chitra & Dev": 10, "Esha & Farid": 26},
                },
                {
                    "declarer": "Esha",
                    "bid": 28,
                    "trump": "hearts",
                    "points": {"Anu & Biju": 20, "Esha & Farid": 36},
                },
            ],
        }
    ],
}


def write(tmp_path: Path, document, name: str = "results.json") -> Path:
    path = tmp_path / name
    text = document if isinstance(document, str) else json.dumps(document, ensure_ascii=False)
    path.write_text(text, encoding="utf-8")
    return path


def import_file(path: Path) -> str:
    out = io.StringIO()
    call_command("import_results", str(path), stdout=out)
    return out.getvalue()


def export(*args: str) -> str:
    out = io.StringIO()
    call_command("export_results", *args, stdout=out)
    return out.getvalue()


def counts() -> dict[str, int]:
    return {
        model.__name__: model.objects.count()
        for model in (Game, GameTeam, Round, Pile, LedgerEntry, Change, Player, Team)
    }


def wipe() -> None:
    Game.objects.all().delete()
    Team.objects.all().delete()
    Player.objects.all().delete()


def refused(tmp_path: Path, document) -> str:
    """Import ``document``, expect a refusal, check nothing was saved; return the message."""
    before = counts()
    with pytest.raises(CommandError) as info:
        import_file(write(tmp_path, document))
    assert counts() == before
    return str(info.value)


def example(**changes):
    document = copy.deepcopy(EXAMPLE)
    document["games"][0].update(changes)
    return document


def three():
    return copy.deepcopy(THREE)


def _play(game, deals):
    for number, entry in enumerate(deals, start=1):
        record_deal(game=game, number=number, entry=entry)


def seed_club():
    """Games written by the services themselves: settings, an elimination, a winner."""
    plain = create_game(
        label="Club night",
        teams=[TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev")],
        first_dealer=1,
    )
    anu, chitra = (seat(plain, name) for name in ("Anu", "Chitra"))
    _play(
        plain,
        [
            Deal({0: 30, 1: 26}, declarer=anu, bid=30, trump="spades"),
            Deal({0: 30, 1: 26}),
            Deal({0: 10, 1: 46}, declarer=chitra, bid=44, trump="no-trumps", doubling="redouble"),
        ],
    )
    custom = create_game(
        label="Quick game (house rules)",
        teams=[
            TeamEntry("Esha", "Farid", "The Locals"),
            TeamEntry("Gita", "Hari"),
            TeamEntry("Anu", "Chitra", "Visitors"),
        ],
        first_dealer=4,
        rules=core.Rules(
            tables_per_team=3,
            bands=(core.Band(28, 40, 1, 1), core.Band(41, 56, 2, 3)),
            double_factor=3,
            redouble_factor=5,
        ),
    )
    esha, gita, anu = (seat(custom, name) for name in ("Esha", "Gita", "Anu"))
    _play(
        custom,
        [
            Deal({0: 40, 1: 8, 2: 8}, declarer=esha, bid=36, trump="hearts"),
            Deal({0: 20, 1: 6, 2: 30}, declarer=gita, bid=30, trump="clubs", doubling="double"),
            Deal({0: 50, 2: 6}, declarer=esha, bid=48, trump="diamonds"),
            Deal({0: 30, 2: 26}, declarer=anu, bid=28, trump="spades", doubling="redouble"),
        ],
    )
    return plain, custom


def derived_rows():
    """Everything the services derive, by label and name (not ids), to compare two imports."""
    games = [
        (
            g.label,
            g.status,
            g.winner.team.name if g.winner else None,
            g.deals_played,
            g.dealer_seat,
            g.first_dealer_seat,
            g.tables_per_team,
            g.payout_bands,
            g.double_factor,
            g.redouble_factor,
        )
        for g in Game.objects.order_by("id")
    ]
    teams = [
        (
            t.game.label,
            t.position,
            t.team.name,
            t.first_player.name,
            t.second_player.name,
            t.tables,
            t.place,
            t.out_in_deal,
        )
        for t in GameTeam.objects.order_by("game_id", "position")
    ]
    rounds = [
        (
            r.game.label,
            r.number,
            r.all_pass,
            r.declarer.name if r.declarer else None,
            r.bid,
            r.trump,
            r.doubling,
            r.dealer.name,
            r.declaring_team.team.name,
            r.made,
            sorted((p.game_team.position, p.points) for p in r.piles.all()),
        )
        for r in Round.objects.order_by("game_id", "number")
    ]
    ledger = [
        (e.round.game.label, e.round.number, e.game_team.position, e.change, e.balance)
        for e in LedgerEntry.objects.order_by(
            "round__game_id", "round__number", "game_team__position"
        )
    ]
    changes = [
        (c.game.label, c.number, c.action, c.before, c.after)
        for c in Change.objects.order_by("game_id", "number", "id")
    ]
    return games, teams, rounds, ledger, changes


# --- Import -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_import_of_the_example_matches_the_rules_worked_by_hand(tmp_path):
    output = import_file(write(tmp_path, EXAMPLE))
    assert "1 game" in output and "2 deals" in output

    game = Game.objects.get(label=LABEL)
    anu_biju, chitra_dev = game.teams.order_by("position")
    deal_1, deal_2 = game.rounds.order_by("number")
    # Seats: Anu 0, Chitra 1, Biju 2, Dev 3. Anu deals first.
    # Deal 1: Chitra & Dev bid 32 doubled and take 36: made, 1 table x 2 from Anu & Biju.
    assert deal_1.dealer.name == "Anu"
    assert deal_1.declaring_team == chitra_dev and deal_1.made
    assert [(e.change, e.balance) for e in deal_1.ledger.order_by("game_team__position")] == [
        (-2, 10),
        (2, 14),
    ]
    # Deal 2: Chitra deals, Biju bids first; all pass, so Anu & Biju are contracted
    # to 28 without trumps. They take 30: made, 1 table from Chitra & Dev.
    assert deal_2.dealer.name == "Chitra"
    assert deal_2.all_pass and deal_2.declarer is None
    assert (deal_2.bid, deal_2.trump, deal_2.doubling) == (28, "no-trumps", "none")
    assert deal_2.declaring_team == anu_biju and deal_2.made
    assert [(e.change, e.balance) for e in deal_2.ledger.order_by("game_team__position")] == [
        (1, 11),
        (-1, 13),
    ]
    anu_biju.refresh_from_db()
    chitra_dev.refresh_from_db()
    assert (anu_biju.tables, chitra_dev.tables) == (11, 13)
    assert game.status == Game.Status.IN_PROGRESS and game.winner is None
    assert game.deals_played == 2
    assert game.dealer_seat == 2  # Biju deals next
    assert list(game.changes.order_by("number").values_list("number", "action")) == [
        (1, "recorded"),
        (2, "recorded"),
    ]


@pytest.mark.django_db
def test_import_of_three_teams_puts_one_out_and_follows_the_seats(tmp_path):
    import_file(write(tmp_path, THREE))
    game = Game.objects.get(label=THREE_LABEL)
    teams = list(game.teams.order_by("position"))
    assert [t.tables for t in teams] == [3, 0, 3]
    assert [t.out_in_deal for t in teams] == [None, 2, None]
    assert [r.dealer.name for r in game.rounds.order_by("number")] == ["Anu", "Chitra", "Esha"]
    # Seats Anu 0, Chitra 1, Esha 2, Biju 3, Dev 4, Farid 5; Chitra & Dev are out,
    # so after Esha the deal passes to Biju.
    assert game.dealer_seat == 3


@pytest.mark.django_db
def test_names_are_matched_ignoring_spacing_and_capitals(tmp_path):
    document = example()
    game = document["games"][0]
    game["first_dealer"] = "  anu "
    game["rounds"][0]["declarer"] = "CHITRA"
    game["rounds"][0]["points"] = {"anu & biju": 20, "Chitra  &  Dev": 36}
    import_file(write(tmp_path, document))
    assert Game.objects.get(label=LABEL).teams.get(position=1).tables == 13


@pytest.mark.django_db
def test_a_team_may_be_given_without_a_name(tmp_path):
    document = example()
    game = document["games"][0]
    del game["teams"][0]["name"]
    import_file(write(tmp_path, document))
    assert Game.objects.get(label=LABEL).teams.get(position=0).team.name == "Anu & Biju"


# --- Export and the round trip ---------------------------------------------------------------


@pytest.mark.django_db
def test_export_import_export_gives_the_same_document_byte_for_byte(tmp_path):
    seed_club()
    import_file(write(tmp_path, THREE))
    first = export()
    rows = derived_rows()
    wipe()
    assert Game.objects.count() == 0

    import_file(write(tmp_path, first, "archive.json"))
    second = export()
    assert second == first
    # What the import wrote is what the services wrote, row for row.
    assert derived_rows() == rows


@pytest.mark.django_db
def test_export_writes_computed_fields_and_settings_only_when_not_default(tmp_path):
    seed_club()
    document = json.loads(export())
    assert document["format"] == "fiftysix-results/1"
    plain, custom = document["games"]
    assert [g["label"] for g in document["games"]] == ["Club night", "Quick game (house rules)"]

    assert plain["tables_per_team"] == 12
    assert "payout" not in plain and "doubling_factors" not in plain
    assert plain["first_dealer"] == "Chitra"
    assert plain["status"] == "in_progress" and plain["winner"] is None
    # Chitra deals first. Deal 1: Anu makes 30 (+1). Deal 2: Biju deals, Dev bids first,
    # all pass: Chitra & Dev are contracted to 28 and fail with 26 (-2). Deal 3: Chitra
    # & Dev make 44 redoubled: 2 tables x 4 = 8.
    assert plain["tables"] == {"Anu & Biju": 7, "Chitra & Dev": 17}
    deal_2, deal_3 = plain["rounds"][1:]
    assert deal_2 == {
        "number": 2,
        "dealer": "Biju",
        "all_pass": True,
        "points": {"Anu & Biju": 30, "Chitra & Dev": 26},
        "declaring_team": "Chitra & Dev",
        "made": False,
        "transfers": {"Anu & Biju": 2, "Chitra & Dev": -2},
        "tables_after": {"Anu & Biju": 15, "Chitra & Dev": 9},
        "eliminated": [],
    }
    assert deal_3["transfers"] == {"Anu & Biju": -8, "Chitra & Dev": 8}

    assert custom["tables_per_team"] == 3
    assert custom["payout"] == [
        {"from": 28, "to": 40, "made": 1, "failed": 1},
        {"from": 41, "to": 56, "made": 2, "failed": 3},
    ]
    assert custom["doubling_factors"] == {"double": 3, "redouble": 5}
    # Deal 1: The Locals make 36: 1 from each -> 5, 2, 2. Deal 2: Gita & Hari fail 30
    # doubled (x3), owe 3 each but hold 2: one each -> 6, 0, 3, out. Deal 3: The Locals
    # make 48 (2 tables) -> 8, 0, 1. Deal 4: Visitors fail 28 redoubled, pay their last.
    assert [deal["tables_after"] for deal in custom["rounds"]] == [
        {"The Locals": 5, "Gita & Hari": 2, "Visitors": 2},
        {"The Locals": 6, "Gita & Hari": 0, "Visitors": 3},
        {"The Locals": 8, "Gita & Hari": 0, "Visitors": 1},
        {"The Locals": 9, "Gita & Hari": 0, "Visitors": 0},
    ]
    assert custom["rounds"][1]["eliminated"] == ["Gita & Hari"]
    assert custom["rounds"][2]["points"] == {"The Locals": 50, "Visitors": 6}
    assert custom["status"] == "finished"
    assert custom["winner"] == "The Locals"
    assert custom["tables"] == {"The Locals": 9, "Gita & Hari": 0, "Visitors": 0}


@pytest.mark.django_db
def test_export_to_a_file_and_of_an_empty_club(tmp_path):
    home = known.home()
    empty = {
        "format": "fiftysix-results/1",
        "club": {"name": home.name, "slug": home.slug},
        "players": [],
        "games": [],
    }
    assert json.loads(export()) == empty
    import_file(write(tmp_path, EXAMPLE))
    target = tmp_path / "out.json"
    message = export("--output", str(target))
    assert str(target) in message
    assert target.read_text(encoding="utf-8") == export()


@pytest.mark.django_db
def test_csv_export_has_one_row_per_team_per_deal_and_neutralises_formulas(tmp_path):
    document = copy.deepcopy(THREE)
    document["games"][0]["teams"][0] = {"players": ["=SUM(A1)", "Biju"]}
    for deal in document["games"][0]["rounds"]:
        deal["points"]["=SUM(A1) & Biju"] = deal["points"].pop("Anu & Biju")
    document["games"][0]["first_dealer"] = "=SUM(A1)"
    document["games"][0]["rounds"][0]["declarer"] = "=SUM(A1)"
    document["games"][0]["label"] = "@Saturday -night"
    import_file(write(tmp_path, document))
    import_file(write(tmp_path, EXAMPLE, "example.json"))

    text = export("--format", "csv")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == [
        "game", "deal", "dealer", "declarer", "declaring_team", "all_pass", "bid", "trump",
        "doubling", "made", "team", "points", "change", "tables_after", "eliminated",
    ]  # fmt: skip
    body = rows[1:]
    assert len(body) == 3 * 3 + 2 * 2  # teams x deals, for each game

    first = dict(zip(rows[0], body[0], strict=True))
    assert first["game"] == "'@Saturday -night"
    assert first["dealer"] == "'=SUM(A1)"
    assert first["declarer"] == "'=SUM(A1)"
    assert first["team"] == "'=SUM(A1) & Biju"
    assert not any(cell.startswith(("=", "+", "-", "@")) and not cell.lstrip("-").isdigit()
                   for row in body for cell in row)  # fmt: skip

    by_key = {(r[0], r[1], r[10]): dict(zip(rows[0], r, strict=True)) for r in body}
    out_team = by_key[("'@Saturday -night", "3", "Chitra & Dev")]
    assert out_team["points"] == ""  # out: no pile
    assert out_team["change"] == "0" and out_team["tables_after"] == "0"
    assert by_key[("'@Saturday -night", "2", "Chitra & Dev")]["eliminated"] == "true"
    payer = by_key[(LABEL, "1", "Anu & Biju")]
    assert payer["change"] == "-2"  # a number, not neutralised text
    assert payer["tables_after"] == "10"
    all_pass = by_key[(LABEL, "2", "Anu & Biju")]
    assert (all_pass["all_pass"], all_pass["declarer"], all_pass["bid"]) == ("true", "", "28")
    assert (all_pass["trump"], all_pass["doubling"], all_pass["made"]) == (
        "no-trumps",
        "none",
        "true",
    )


# --- Refusals: nothing is stored and the message says where ---------------------------------


def set_round(number, **values):
    def change(document):
        deal = document["games"][0]["rounds"][number - 1]
        for key, value in values.items():
            if value is DELETE:
                deal.pop(key, None)
            else:
                deal[key] = value

    return change


def set_game(**values):
    def change(document):
        game = document["games"][0]
        for key, value in values.items():
            if value is DELETE:
                game.pop(key, None)
            else:
                game[key] = value

    return change


DELETE = object()
EXAMPLE_LABEL = f'Game "{LABEL}"'
THREE_GAME = f'Game "{THREE_LABEL}"'

EXAMPLE_REFUSALS = [
    # (id, change, what the message must say)
    ("bid below 28", set_round(1, bid=27), [EXAMPLE_LABEL, "deal 1", "bid", "27"]),
    ("bid above 56", set_round(1, bid=57), [EXAMPLE_LABEL, "deal 1", "bid", "57"]),
    ("bid not whole", set_round(1, bid="32"), [EXAMPLE_LABEL, "deal 1", "bid", "whole number"]),
    ("bid missing", set_round(1, bid=DELETE), [EXAMPLE_LABEL, "deal 1", "bid"]),
    (
        "piles not 56",
        set_round(1, points={"Anu & Biju": 21, "Chitra & Dev": 36}),
        [
            f"{EXAMPLE_LABEL}, deal 1, points: "
            "the piles add up to 57; they must add up to exactly 56."
        ],
    ),
    (
        "negative pile",
        set_round(2, points={"Anu & Biju": -4, "Chitra & Dev": 60}),
        [EXAMPLE_LABEL, "deal 2", "points", "-4"],
    ),
    (
        "pile not whole",
        set_round(2, points={"Anu & Biju": 30.5, "Chitra & Dev": 25.5}),
        [EXAMPLE_LABEL, "deal 2", "points", "whole number"],
    ),
    (
        "pile missing",
        set_round(1, points={"Chitra & Dev": 56}),
        [EXAMPLE_LABEL, "deal 1", "points", "Anu & Biju is still playing and needs a pile"],
    ),
    (
        "points not an object",
        set_round(1, points=[20, 36]),
        [EXAMPLE_LABEL, "deal 1", "points"],
    ),
    (
        "pile for a team not in the game",
        set_round(1, points={"Anu & Biju": 20, "Chitra & Dev": 36, "Gita & Hari": 0}),
        [EXAMPLE_LABEL, "deal 1", "points", "Gita & Hari", "not a team of this game"],
    ),
    (
        "declarer not seated",
        set_round(1, declarer="Zed"),
        [EXAMPLE_LABEL, "deal 1", "declarer", "Zed", "not seated"],
    ),
    (
        "doubled all pass",
        set_round(2, doubling="double"),
        [EXAMPLE_LABEL, "deal 2", "doubling", "cannot be doubled"],
    ),
    (
        "redoubled all pass",
        set_round(2, doubling="redouble"),
        [EXAMPLE_LABEL, "deal 2", "doubling", "cannot be doubled or redoubled"],
    ),
    (
        "all pass with a declarer",
        set_round(2, declarer="Anu"),
        [EXAMPLE_LABEL, "deal 2", "declarer"],
    ),
    ("unknown trump", set_round(1, trump="stars"), [EXAMPLE_LABEL, "deal 1", "trump", "stars"]),
    (
        "unknown doubling",
        set_round(1, doubling="triple"),
        [EXAMPLE_LABEL, "deal 1", "doubling", "triple"],
    ),
    ("all_pass not a flag", set_round(2, all_pass="yes"), [EXAMPLE_LABEL, "deal 2", "all_pass"]),
    ("unknown field in a deal", set_round(1, colour="red"), [EXAMPLE_LABEL, "deal 1", "colour"]),
    ("a deal is not an object", set_game(rounds=[1]), [EXAMPLE_LABEL, "deal 1"]),
    (
        "a deal after the game has ended",
        set_game(tables_per_team=2),
        [EXAMPLE_LABEL, "deal 2", "already over after deal 1", "Chitra & Dev had won"],
    ),
    (
        "one team",
        set_game(teams=[{"name": "Anu & Biju", "players": ["Anu", "Biju"]}]),
        [EXAMPLE_LABEL, "teams", "4, 6 or 8 players", "1 team."],
    ),
    (
        "five teams",
        set_game(teams=[{"players": [f"A{n}", f"B{n}"]} for n in range(5)]),
        [EXAMPLE_LABEL, "teams", "4, 6 or 8 players", "5 teams"],
    ),
    (
        # Teams of three are played, but every team of a game is one size.
        "a team of three beside a pair",
        set_game(
            teams=[
                {"name": "Anu & Biju", "players": ["Anu", "Biju", "Eli"]},
                {"name": "Chitra & Dev", "players": ["Chitra", "Dev"]},
            ]
        ),
        [EXAMPLE_LABEL, "teams", "team 2 is 2 players but team 1 is 3"],
    ),
    (
        "a team of five",
        set_game(
            teams=[
                {"name": "Anu & Biju", "players": ["Anu", "Biju", "Eli", "Fay", "Gil"]},
                {"name": "Chitra & Dev", "players": ["Chitra", "Dev"]},
            ]
        ),
        [EXAMPLE_LABEL, "teams", "team 1 must be 2, 3 or 4 players, not 5"],
    ),
    (
        "a team of one",
        set_game(
            teams=[
                {"name": "Anu & Biju", "players": ["Anu", "Biju"]},
                {"name": "Chitra & Dev", "players": ["Chitra"]},
            ]
        ),
        [EXAMPLE_LABEL, "teams", "team 2 must be 2, 3 or 4 players, not 1"],
    ),
    (
        "one player in two teams",
        set_game(
            teams=[
                {"name": "Anu & Biju", "players": ["Anu", "Biju"]},
                {"name": "Chitra & Dev", "players": ["Chitra", "anu"]},
            ]
        ),
        [EXAMPLE_LABEL, "teams", "plays in two teams"],
    ),
    (
        "a player twice in one team",
        set_game(
            teams=[
                {"name": "Anu & Biju", "players": ["Anu", "Anu"]},
                {"name": "Chitra & Dev", "players": ["Chitra", "Dev"]},
            ]
        ),
        [EXAMPLE_LABEL, "teams", "named twice"],
    ),
    (
        "two teams with one name",
        set_game(
            teams=[
                {"name": "Friends", "players": ["Anu", "Biju"]},
                {"name": "friends", "players": ["Chitra", "Dev"]},
            ]
        ),
        [EXAMPLE_LABEL, "teams", "both called"],
    ),
    (
        "player name not text",
        set_game(
            teams=[
                {"name": "Anu & Biju", "players": ["Anu", 7]},
                {"name": "Chitra & Dev", "players": ["Chitra", "Dev"]},
            ]
        ),
        [EXAMPLE_LABEL, "teams", "must be text"],
    ),
    ("teams not a list", set_game(teams={"Anu": "Biju"}), [EXAMPLE_LABEL, "teams"]),
    ("teams missing", set_game(teams=DELETE), [EXAMPLE_LABEL, "teams"]),
    (
        "first dealer not seated",
        set_game(first_dealer="Zed"),
        [EXAMPLE_LABEL, "first_dealer", "Zed", "not seated"],
    ),
    ("first dealer missing", set_game(first_dealer=DELETE), [EXAMPLE_LABEL, "first_dealer"]),
    ("rounds missing", set_game(rounds=DELETE), [EXAMPLE_LABEL, "rounds"]),
    ("rounds not a list", set_game(rounds={}), [EXAMPLE_LABEL, "rounds"]),
    ("no tables", set_game(tables_per_team=0), [EXAMPLE_LABEL, "tables_per_team"]),
    ("tables not whole", set_game(tables_per_team="12"), [EXAMPLE_LABEL, "tables_per_team"]),
    (
        "payout with a gap",
        set_game(
            payout=[
                {"from": 28, "to": 39, "made": 1, "failed": 2},
                {"from": 41, "to": 56, "made": 2, "failed": 3},
            ]
        ),
        [EXAMPLE_LABEL, "payout", "every bid from 28 to 56"],
    ),
    (
        "payout band incomplete",
        set_game(payout=[{"from": 28, "to": 56, "made": 1}]),
        [EXAMPLE_LABEL, "payout", "failed"],
    ),
    (
        "doubling factor zero",
        set_game(doubling_factors={"double": 0, "redouble": 4}),
        [EXAMPLE_LABEL, "doubling_factors"],
    ),
    ("unknown field in a game", set_game(venue="Club house"), [EXAMPLE_LABEL, "venue"]),
    ("label empty", set_game(label="  "), ["Game 1 in the file", "label"]),
    ("label missing", set_game(label=DELETE), ["Game 1 in the file", "label"]),
    ("label not text", set_game(label=12), ["Game 1 in the file", "label"]),
]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("change", "expected"),
    [pytest.param(change, expected, id=name) for name, change, expected in EXAMPLE_REFUSALS],
)
def test_refusals_name_game_deal_and_field_and_store_nothing(tmp_path, change, expected):
    document = copy.deepcopy(EXAMPLE)
    change(document)
    message = refused(tmp_path, document)
    for part in expected:
        assert part in message
    assert "Traceback" not in message


THREE_REFUSALS = [
    (
        "pile for a team that is out",
        set_round(3, points={"Anu & Biju": 20, "Chitra & Dev": 0, "Esha & Farid": 36}),
        [THREE_GAME, "deal 3", "points", "Chitra & Dev is out and reports no pile"],
    ),
    (
        "declarer whose team is out",
        set_round(3, declarer="Dev"),
        [THREE_GAME, "deal 3", "declarer", "Chitra & Dev, is out"],
    ),
]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("change", "expected"),
    [pytest.param(change, expected, id=name) for name, change, expected in THREE_REFUSALS],
)
def test_refusals_about_a_team_that_is_out(tmp_path, change, expected):
    document = three()
    change(document)
    message = refused(tmp_path, document)
    for part in expected:
        assert part in message


@pytest.fixture
def archive(tmp_path):
    """The exported club (the seeded games, the example, three teams), emptied again."""
    seed_club()
    import_file(write(tmp_path, EXAMPLE, "example.json"))
    import_file(write(tmp_path, THREE, "three.json"))
    document = json.loads(export())
    wipe()
    return document


TAMPERING = [
    # (id, game index, deal number or None, field, new value)
    # Games: 0 "Club night", 1 "Quick game (house rules)" (finished), 2 the example,
    # 3 the three-team game.
    ("tables after", 2, 1, "tables_after", {"Anu & Biju": 9, "Chitra & Dev": 15}),
    (
        "tables after of a team out",
        3,
        3,
        "tables_after",
        {"Anu & Biju": 3, "Chitra & Dev": 1, "Esha & Farid": 2},
    ),
    ("winner of a game in progress", 2, None, "winner", "Anu & Biju"),
    ("winner of a finished game", 1, None, "winner", "Visitors"),
    ("no winner of a finished game", 1, None, "winner", None),
    ("status of a finished game", 1, None, "status", "in_progress"),
    ("status of a game in progress", 2, None, "status", "finished"),
    ("tables now", 2, None, "tables", {"Anu & Biju": 12, "Chitra & Dev": 12}),
    ("made", 2, 1, "made", False),
    ("made as a number", 2, 1, "made", 1),
    ("transfers", 2, 2, "transfers", {"Anu & Biju": 2, "Chitra & Dev": -2}),
    ("transfers as text", 2, 2, "transfers", {"Anu & Biju": "1", "Chitra & Dev": "-1"}),
    ("dealer", 2, 2, "dealer", "Anu"),
    ("declaring team", 2, 2, "declaring_team", "Chitra & Dev"),
    ("eliminated", 3, 3, "eliminated", ["Anu & Biju"]),
    ("eliminated left out", 3, 2, "eliminated", []),
    ("deal number", 2, 2, "number", 3),
]


@pytest.mark.django_db
def test_the_archive_imports_as_exported(tmp_path, archive):
    import_file(write(tmp_path, archive))
    assert Game.objects.count() == 4


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("game", "number", "field", "value"),
    [pytest.param(*case[1:], id=case[0]) for case in TAMPERING],
)
def test_a_tampered_archive_is_refused(tmp_path, archive, game, number, field, value):
    document = copy.deepcopy(archive)
    target = document["games"][game]
    if number is not None:
        target = target["rounds"][number - 1]
    assert target[field] != value or type(target[field]) is not type(value)
    target[field] = value
    message = refused(tmp_path, document)
    label = document["games"][game]["label"]
    assert f'Game "{label}"' in message
    if number is not None:
        assert f"deal {number}" in message
    assert f", {field}: " in message


@pytest.mark.django_db
def test_file_level_refusals(tmp_path):
    assert "not valid JSON" in refused(tmp_path, '{"format": "fiftysix-results/1", "games": [')
    assert "not valid JSON" in refused(tmp_path, "")
    message = refused(tmp_path, {"format": "fiftysix-results/2", "games": []})
    assert "fiftysix-results/2" in message and "fiftysix-results/1" in message
    assert "format" in refused(tmp_path, {"games": []})
    assert "games" in refused(tmp_path, {"format": "fiftysix-results/1"})
    assert "games" in refused(tmp_path, {"format": "fiftysix-results/1", "games": {}})
    assert "JSON object" in refused(tmp_path, [1, 2])
    assert "Game 1 in the file" in refused(tmp_path, {"format": "fiftysix-results/1", "games": [3]})
    path = tmp_path / "latin1.json"
    path.write_bytes('{"format": "fiftysix-results/1", "games": [], "x": "é"}'.encode("latin-1"))
    with pytest.raises(CommandError, match="UTF-8"):
        import_file(path)
    with pytest.raises(CommandError, match="Cannot read"):
        import_file(tmp_path / "missing.json")


@pytest.mark.django_db
def test_a_key_given_twice_is_refused(tmp_path):
    text = json.dumps(EXAMPLE).replace(
        '"points": {"Anu & Biju": 20,', '"points": {"Anu & Biju": 2, "Anu & Biju": 20,'
    )
    message = refused(tmp_path, text)
    assert EXAMPLE_LABEL in message and "deal 1" in message and "points" in message


@pytest.mark.django_db
def test_a_label_twice_in_the_file_is_refused(tmp_path):
    document = copy.deepcopy(EXAMPLE)
    document["games"].append(copy.deepcopy(EXAMPLE["games"][0]))
    document["games"][1]["label"] = LABEL.upper()
    message = refused(tmp_path, document)
    assert f'Game "{LABEL.upper()}", label:' in message
    assert "games 1 and 2" in message


@pytest.mark.django_db
def test_a_label_already_in_the_club_is_refused_when_its_game_differs(tmp_path):
    import_file(write(tmp_path, EXAMPLE))
    document = copy.deepcopy(THREE)
    other = copy.deepcopy(EXAMPLE["games"][0])
    other["rounds"] = []  # another game under the same label: none of its deals yet
    for key in ("status", "winner", "tables", "score", "kodis"):
        other.pop(key, None)
    document["games"].insert(0, other)
    message = refused(tmp_path, document)
    assert f"{EXAMPLE_LABEL}, label:" in message and "already has a game" in message
    assert Game.objects.count() == 1


@pytest.mark.django_db
def test_a_game_already_in_the_club_as_the_file_has_it_is_left_as_it_is(tmp_path):
    import_file(write(tmp_path, EXAMPLE))
    before = export_json()
    document = copy.deepcopy(THREE)
    document["games"].insert(0, copy.deepcopy(EXAMPLE["games"][0]))
    out = io.StringIO()
    call_command("import_results", str(write(tmp_path, document)), stdout=out)
    assert "1 game of the file is here already, as the file has it" in out.getvalue()
    assert Game.objects.count() == 1 + len(THREE["games"])
    after = export_json()

    def games(text: str) -> str:
        return text.split('\n  "games": [', 1)[1]

    assert games(after).startswith(games(before).rsplit("\n  ]", 1)[0])  # the first, untouched
    # Its players too, with the identifiers they had; the file's new players beside them.
    kept = json.loads(before)["players"]
    assert [p for p in json.loads(after)["players"] if p in kept] == kept
    assert [p["name"] for p in json.loads(after)["players"] if p not in kept] == ["Esha", "Farid"]


@pytest.mark.django_db
def test_a_fault_in_a_later_game_stores_nothing_from_the_earlier_ones(tmp_path):
    document = copy.deepcopy(EXAMPLE)
    bad = copy.deepcopy(THREE["games"][0])
    bad["rounds"][2]["bid"] = 60
    document["games"].append(bad)
    message = refused(tmp_path, document)
    assert f"{THREE_GAME}, deal 3, bid:" in message
    assert Game.objects.count() == 0


@pytest.mark.django_db
def test_a_team_name_other_players_have_here_is_imported_as_a_team_of_its_own(tmp_path):
    """A team's name is a label: the file's team of a name that other players have here
    is imported as a team of its own, each with its own players. The same players are
    the same team whatever the file calls them, under this site's name."""
    create_game(
        label="Earlier game",
        teams=[TeamEntry("Gita", "Hari", "Anu & Biju"), TeamEntry("Esha", "Farid")],
        first_dealer=0,
    )
    document = copy.deepcopy(THREE)
    document["games"][0]["teams"][2]["name"] = "Ravi's team"
    for deal in document["games"][0]["rounds"]:
        deal["points"]["Ravi's team"] = deal["points"].pop("Esha & Farid")
    document["games"].append(copy.deepcopy(EXAMPLE["games"][0]))
    import_file(write(tmp_path, document))

    assert Game.objects.count() == 3
    named = Team.objects.filter(name="Anu & Biju")
    assert sorted([p.name for p in team.players] for team in named) == [
        ["Anu", "Biju"],
        ["Gita", "Hari"],
    ]
    theirs = named.get(first_player__name="Gita")
    assert list(GameTeam.objects.filter(team=theirs).values_list("game__label", flat=True)) == [
        "Earlier game"
    ]
    ours = named.get(first_player__name="Anu")
    seated = GameTeam.objects.filter(team=ours).values_list("game__label", flat=True)
    assert sorted(seated) == sorted([THREE_LABEL, LABEL])
    # Esha & Farid are the team they are here, under its name, whatever the file calls it.
    esha = GameTeam.objects.get(game__label=THREE_LABEL, position=2).team
    assert esha.name == "Esha & Farid"
    assert Team.objects.filter(first_player__name="Esha").count() == 1
    assert not Team.objects.filter(name="Ravi's team").exists()


def test_the_command_line_exits_non_zero_without_a_traceback(tmp_path):
    path = write(tmp_path, "{not json")
    result = subprocess.run(
        [sys.executable, "manage.py", "import_results", str(path)],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0
    assert "not valid JSON" in result.stderr
    assert "Traceback" not in result.stderr


# --- Games stopped early: a deal limit, or time called -----------------------------------


def _limited(limit=None, ended_early=None, rounds=None):
    document = copy.deepcopy(EXAMPLE)
    game = document["games"][0]
    if limit is not None:
        game["deal_limit"] = limit
    if ended_early is not None:
        game["ended_early"] = ended_early
    if rounds is not None:
        game["rounds"] = rounds
    return document


@pytest.mark.django_db
def test_a_game_at_its_deal_limit_is_finished_and_placed_by_tables(tmp_path):
    # By hand: deal 1, Chitra's doubled 32 is made (36): Anu & Biju pay 2 -> 10, 14.
    # Deal 2, Chitra deals and everyone passes: Biju bids first, so Anu & Biju are
    # contracted to 28 and make it (30): Chitra & Dev pay 1 -> 11, 13. The limit of
    # 2 deals ends the game: Chitra & Dev first by tables.
    import_file(write(tmp_path, _limited(limit=2)))
    game = Game.objects.get()
    assert game.deal_limit == 2 and game.is_finished and not game.ended_early
    document = json.loads(export())["games"][0]
    assert list(document)[:5] == ["label", "tables_per_team", "deal_limit", "teams", "first_dealer"]
    assert document["status"] == "finished" and document["winner"] == "Chitra & Dev"
    assert document["tables"] == {"Anu & Biju": 11, "Chitra & Dev": 13}
    assert sorted(game.teams.values_list("place", flat=True)) == [1, 2]
    first = export()
    Game.objects.all().delete()
    import_file(write(tmp_path, first, "again.json"))
    assert export() == first


@pytest.mark.django_db
def test_a_game_on_which_time_was_called_round_trips(tmp_path):
    game = create_game(label="Called", teams=[TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev")])
    record_deal(
        game=game,
        number=1,
        entry=Deal(points={0: 10, 1: 46},
                   declarer=load_seating(game).seat_of(game.teams.get(position=1).first_player_id),
                   bid=28, trump="hearts"),
    )  # fmt: skip
    from club.games.services import end_game

    end_game(game=game)
    first = export()
    document = json.loads(first)["games"][0]
    assert document["ended_early"] is True and document["status"] == "finished"
    assert document["winner"] == "Chitra & Dev" and document["tables"] == {
        "Anu & Biju": 11,
        "Chitra & Dev": 13,
    }
    assert list(document).index("ended_early") == list(document).index("first_dealer") + 1
    Game.objects.all().delete()
    import_file(write(tmp_path, first, "again.json"))
    assert export() == first
    assert Game.objects.get().ended_early


@pytest.mark.django_db
def test_games_without_a_limit_or_a_time_call_are_written_as_before(tmp_path):
    import_file(write(tmp_path, EXAMPLE))
    document = json.loads(export())["games"][0]
    assert "deal_limit" not in document and "ended_early" not in document


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("document", "expected"),
    [
        (_limited(limit=1), "rounds: the game ends after 1 deals but the file has 2"),
        (_limited(limit=0), "deal_limit: the deal limit must be a whole number"),
        (_limited(ended_early="yes"), "ended_early: ended_early must be true or false"),
        (_limited(limit=2, ended_early=True), "ended_early: the game was over by its deals"),
        (
            {**_limited(), "games": [{**_limited()["games"][0], "status": "finished"}]},
            "status: the file says",
        ),
    ],
)
def test_refusals_about_a_game_stopped_early(tmp_path, document, expected):
    message = refused(tmp_path, document)
    assert LABEL in message and expected in message
