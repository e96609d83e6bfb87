"""HTML and script in names are shown escaped on every page, kept intact as data in the
JSON exports, and neutralised in every CSV export against spreadsheet formula injection.

The club below is made through the services, with every name chosen to hurt.
"""

from __future__ import annotations

import csv
import io
import json
import random
import re

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils.html import escape

from club.archive.export import export_csv, export_json
from club.archive.load import import_results
from club.games import links
from club.games.models import Game, Player, Team
from club.games.services import Deal, TeamEntry, create_game, load_seating, record_deal, submit_deal
from club.leaderboards import services as register
from club.leaderboards.services.register import ALREADY_THE_CLUBS
from club.scoring import rules as core
from club.tournaments import services as tournament_services
from club.tournaments.models import Tournament
from tests.hostile.conftest import IMG, SCRIPT

pytestmark = pytest.mark.django_db

# Names a spreadsheet would run as formulas, and names a browser would run as HTML.
FORMULAS = [
    '=HYPERLINK("http://evil.example","x")',
    "+1+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
]
# What must never reach a page as markup.
RAW = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "<b>bold</b>"]


@pytest.fixture
def hostile_club(organiser):
    """Games, a tournament with a played and a proposed sitting, links and a waiting deal,
    all named with script, markup, formulas and scripts of every direction."""
    names = [SCRIPT, IMG, "<b>bold</b>", *FORMULAS, "അനു", "สมชาย", "🂡🃏", "דוד"]
    for number, name in enumerate(names):
        register.register_player(name=name, nickname=SCRIPT, member_number=f"<i>{number}</i>")

    game = create_game(
        label=IMG,
        teams=[
            TeamEntry(SCRIPT, IMG, "<b>bold</b> & co"),
            TeamEntry(FORMULAS[0], FORMULAS[1], FORMULAS[2]),
        ],
        first_dealer=0,
        user=organiser,
    )
    seating = load_seating(game)
    script_seat = seating.seat_of(Player.objects.get(name=SCRIPT).pk)
    formula_seat = seating.seat_of(Player.objects.get(name=FORMULAS[0]).pk)
    record_deal(
        game=game,
        number=1,
        entry=Deal(points={0: 30, 1: 26}, declarer=script_seat, bid=28, trump="spades"),
    )
    record_deal(
        game=game,
        number=2,
        entry=Deal(points={0: 6, 1: 50}, declarer=formula_seat, bid=40, trump="no-trumps"),
    )
    links.issue_links(game=game)

    waiting = create_game(
        label=FORMULAS[3],
        teams=[TeamEntry("<i>Ivy</i>", "Zed"), TeamEntry("അനു", "สมชาย", "🂡🃏 דוד")],
        first_dealer=0,
        require_confirmation=True,
    )
    first_link, _second = links.issue_links(game=waiting)
    submit_deal(
        game=waiting,
        number=1,
        entry=Deal(
            points={0: 28, 1: 28},
            declarer=load_seating(waiting).seat_of(Player.objects.get(name="<i>Ivy</i>").pk),
            bid=28,
            trump="hearts",
        ),
        link=first_link,
    )
    tabbed = create_game(
        label="-1+cmd|' /C calc'!A0",
        teams=[TeamEntry("Tab", "Return"), TeamEntry("Yan", "Xu")],
        first_dealer=0,
    )
    record_deal(
        game=tabbed,
        number=1,
        entry=Deal(
            points={0: 56, 1: 0},
            declarer=load_seating(tabbed).seat_of(Player.objects.get(name="Tab").pk),
            bid=30,
            trump="clubs",
        ),
    )
    # The services trim names; the admin keeps text as typed, so a name may yet start
    # with a tab or a line break, which a spreadsheet reads as the start of a formula.
    Player.objects.filter(name="Tab").update(name="\t=1+1", nickname="\r=2+2")
    Player.objects.filter(name="Return").update(name="\r@cmd")

    tournament = tournament_services.create_tournament(
        name=SCRIPT,
        starts_on="2025-07-05",
        venue=IMG,
        rules=core.Rules(tables_per_team=1),
        user=organiser,
    )
    pairs = [
        (SCRIPT, IMG, "<b>bold</b> & co"),
        (FORMULAS[0], FORMULAS[1], FORMULAS[2]),
        ("<b>bold</b>", FORMULAS[3], ""),
        ("അനു", "สมชาย", "\u202eevil"),
    ]
    for first, second, name in pairs:
        tournament_services.register_team(
            tournament=tournament, first=first, second=second, name=name
        )
    sitting = tournament_services.propose_sitting(
        tournament=tournament, game_size=2, rng=random.Random(5)
    )
    tournament_services.confirm_sitting(sitting=sitting, rng=random.Random(5))
    for entry in sitting.games.select_related("game"):
        played = entry.game
        first = played.teams.order_by("position").select_related("first_player").first()
        record_deal(
            game=played,
            number=1,
            entry=Deal(
                points={0: 56, 1: 0},
                declarer=load_seating(played).seat_of(first.first_player_id),
                bid=28,
                trump="clubs",
            ),
        )
    proposed = tournament_services.propose_sitting(
        tournament=tournament, game_size=2, rng=random.Random(6)
    )
    return {
        "game": game,
        "waiting": waiting,
        "first_link": first_link,
        "tournament": tournament,
        "sitting": sitting,
        "proposed": proposed,
    }


def _pages(club) -> list[str]:
    game, tournament = club["game"], club["tournament"]
    sitting, proposed = club["sitting"], club["proposed"]
    player = Player.objects.get(name=SCRIPT)
    link = game.scorer_links.filter(revoked_at__isnull=True).first()
    t = tournament.pk
    return [
        reverse("games:list"),
        reverse("games:new"),
        reverse("games:rules") + f"?game={game.pk}",
        reverse("games:detail", args=[game.pk]),
        reverse("games:detail", args=[club["waiting"].pk]),
        reverse("games:edit", args=[game.pk, 1]),
        reverse("games:links", args=[game.pk]),
        reverse("games:links_print", args=[game.pk]),
        reverse("games:sheet", args=[game.pk]),
        reverse("games:scorer", args=[link.token]),
        reverse("games:scorer", args=[club["first_link"].token]),
        reverse("tournaments:sitting_sheets", args=[t, sitting.number]),
        reverse("tournaments:list"),
        reverse("tournaments:detail", args=[t]),
        reverse("tournaments:live", args=[t]),
        reverse("tournaments:projector", args=[t]),
        reverse("tournaments:sitting", args=[t, sitting.number]),
        reverse("tournaments:sitting", args=[t, proposed.number]),
        reverse("tournaments:print_standings", args=[t]),
        reverse("leaderboards:players"),
        reverse("leaderboards:players") + "?q=%3Cscript%3E",
        reverse("leaderboards:player", args=[player.pk]),
        reverse("leaderboards:player_edit", args=[player.pk]),
        reverse("leaderboards:merge"),
        reverse("leaderboards:player_board"),
        reverse("leaderboards:player_board") + f"?tournament={t}",
        reverse("leaderboards:team_board"),
    ]


def _assert_escaped(text: str, where: str) -> None:
    for raw in RAW:
        assert raw not in text, f"{raw} unescaped on {where}"
    assert not re.search(r"<img\b[^>]*\bonerror=", text, re.IGNORECASE), where


@pytest.mark.parametrize("as_organiser", [True, False])
@pytest.mark.parametrize("htmx", [False, True])
def test_every_page_shows_hostile_names_escaped(
    client, organiser, hostile_club, as_organiser, htmx
):
    client.raise_request_exception = False
    if as_organiser:
        client.force_login(organiser)
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    shown = 0
    for url in _pages(hostile_club):
        response = client.get(url, **headers)
        assert response.status_code in (200, 302), (url, response.status_code)
        if response.status_code == 200:
            text = response.content.decode()
            _assert_escaped(text, url)
            shown += "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    # Not a vacuous pass: the names are really on the pages, escaped.
    assert shown >= 10


def test_messages_that_repeat_a_hostile_name_are_escaped(hostile_club, organiser_client):
    response = organiser_client.post(
        reverse("leaderboards:player_new"), {"name": "<img src=x onerror=alert(2)>"}, follow=True
    )
    assert response.status_code == 200
    text = response.content.decode()
    assert "<img src=x onerror=alert(2)>" not in text
    assert "&lt;img src=x onerror=alert(2)&gt;" in text
    response = organiser_client.post(
        reverse("games:new"),
        {
            "label": "<script>alert(3)</script>",
            "players": "4",
            "first_dealer": "0",
            "tables_per_team": "12",
            "payout": "28-39: 1 2\n40-47: 2 3\n48-55: 3 4\n56-56: 4 5",
            "double_factor": "2",
            "redouble_factor": "4",
            "team1_player1": "<script>alert(3)</script>",
            "team1_player2": "Biju",
            "team2_player1": "Chitra",
            "team2_player2": "Dev",
        },
        follow=True,
    )
    text = response.content.decode()
    assert "<script>alert(3)</script>" not in text
    assert "&lt;script&gt;alert(3)&lt;/script&gt;" in text
    # A refusal that names the clash repeats the name, escaped.
    response = organiser_client.post(reverse("leaderboards:player_new"), {"name": SCRIPT})
    text = response.content.decode()
    assert SCRIPT not in text
    assert escape(str(ALREADY_THE_CLUBS % {"name": SCRIPT})) in text


# --- Exports -----------------------------------------------------------------------------------


def test_json_exports_keep_hostile_names_intact_as_data(client, hostile_club):
    tournament = hostile_club["tournament"]
    response = client.get(reverse("archive:export_json", args=[tournament.pk]))
    assert response["Content-Type"].startswith("application/json")
    document = json.loads(b"".join(response.streaming_content))
    assert document["tournament"]["name"] == SCRIPT
    assert document["tournament"]["venue"] == IMG
    team_names = {team["name"] for team in document["tournament"]["teams"]}
    assert {"<b>bold</b> & co", FORMULAS[2]} <= team_names
    players = {name for team in document["tournament"]["teams"] for name in team["players"]}
    assert {SCRIPT, IMG, FORMULAS[0], FORMULAS[1], "അനു", "สมชาย"} <= players

    club_document = json.loads(export_json())
    labels = {game["label"] for game in club_document["games"]}
    assert {IMG, FORMULAS[3]} <= labels
    seated = {
        name for game in club_document["games"] for t in game["teams"] for name in t["players"]
    }
    assert {"\t=1+1", "\r@cmd", SCRIPT} <= seated


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _check_csv(text: str, where: str) -> list[list[str]]:
    rows = list(csv.reader(io.StringIO(text, newline="")))
    for row in rows:
        for cell in row:
            if cell.startswith(FORMULA_START):
                # Only a number may start so (a change of -2 tables); text never does.
                assert re.fullmatch(r"-\d+", cell), f"{where}: formula cell {cell!r}"
    return rows


def _cells(rows) -> set[str]:
    return {cell for row in rows for cell in row}


def test_game_csv_export_neutralises_formulas(hostile_club, tmp_path):
    rows = _check_csv(export_csv(), "export_csv")
    cells = _cells(rows)
    assert "'-1+cmd|' /C calc'!A0" in cells  # the game label
    assert "'" + FORMULAS[2] in cells  # a team name
    assert "'\t=1+1" in cells  # a declarer typed with a leading tab
    assert any(cell.startswith("'=HYPERLINK") for cell in cells)
    assert SCRIPT in cells  # markup is data in a CSV: kept as it is
    out = tmp_path / "games.csv"
    call_command("export_results", "--format", "csv", "--output", str(out))
    assert _cells(_check_csv(out.read_text(encoding="utf-8"), "command")) == cells


@pytest.mark.parametrize("table", ["standings", "games", "deals"])
def test_tournament_csv_exports_neutralise_formulas(client, hostile_club, table):
    tournament = hostile_club["tournament"]
    response = client.get(reverse(f"archive:{table}_csv", args=[tournament.pk]))
    assert response.status_code == 200
    text = b"".join(response.streaming_content).decode()
    cells = _cells(_check_csv(text, table))
    assert "'" + FORMULAS[2] in cells  # the team named as a formula, in every table
    assert not any(
        cell.startswith(FORMULA_START) and not cell.lstrip("-").isdigit() for cell in cells
    )
    assert any("\u202eevil" in cell for cell in cells)  # right-to-left text stays as data


def test_export_command_writes_tournament_csv_neutralised(hostile_club, tmp_path):
    out = tmp_path / "deals.csv"
    call_command(
        "export_results",
        "--format",
        "csv",
        "--tournament",
        SCRIPT,
        "--table",
        "deals",
        "--output",
        str(out),
    )
    cells = _cells(_check_csv(out.read_text(encoding="utf-8"), "command"))
    assert "'" + FORMULAS[2] in cells  # the team named as a formula


def test_exported_hostile_archive_imports_back_intact(hostile_club):
    """The JSON keeps the strings exactly, so the archive re-imports into an empty club."""
    text = export_json()
    games = json.loads(text)["games"]
    Tournament.objects.all().delete()
    Game.objects.all().delete()
    Team.objects.all().delete()
    Player.objects.all().delete()
    summary = import_results(text)
    assert summary.games == len(games) == 5
    assert Player.objects.filter(name=SCRIPT).exists()
    assert Player.objects.filter(name="=1+1").exists()  # the import trims, as the services do
    assert Game.objects.filter(label=IMG).exists()
    again = json.loads(export_json())["games"]
    assert [game["label"] for game in again] == [game["label"] for game in games]
    assert again[0] == games[0]  # the game named with markup comes back exactly
