"""An import does not hold up the rest of the club.

An import writes a whole file in one transaction. The club's token for kept pages
(club.games.versions) is one row a club, moved whenever a player or a team is added: moved as
the import added the file's players, that row stayed locked until the import committed,
and every organiser who started a game with a new player, or added a player or a team,
waited for it (twice a new game's page gave up under gunicorn's timeout). Now the import
moves the token once, as its last statement.

Here one thread imports a file and is held just after its first game is written, its
transaction open; meanwhile the test starts a game of new players and teams, adds a
player to the register and registers a new team for a tournament, each through its
service, each on its own connection, and each must be done within two seconds. Then
the import goes on and commits, and the token has moved at most once for all of it.
"""

from __future__ import annotations

import datetime
import json
import threading
import time
from unittest import mock

import pytest
from django.db import connection

from club.archive import load
from club.archive.export import export_json
from club.archive.load import import_results
from club.clubs import known
from club.games import services
from club.games.models import ClubVersion, Game, Player, Team
from club.games.services import TeamEntry
from club.leaderboards import services as register
from club.scoring import rules as core
from club.tournaments import services as tournament_services
from tests.factories import deal

pytestmark = pytest.mark.django_db(transaction=True)

HELD = 10  # seconds the import waits, at most, for the test to let it go on
QUICK = 2  # seconds each write elsewhere may take while the import is held


def _night() -> str:
    """Three games of players and teams new to the club, the first one played out."""
    games = []
    for table in range(3):
        game = services.create_game(
            label=f"Publish table {table}",
            teams=[
                TeamEntry(f"Hema {table}", f"Ivan {table}", f"Hema & Ivan {table}"),
                TeamEntry(f"Jaya {table}", f"Kiran {table}", f"Jaya & Kiran {table}"),
            ],
            first_dealer=0,
            rules=core.Rules(tables_per_team=1),
        )
        services.record_deal(
            game=game, number=1, entry=deal(game, {0: 40, 1: 16}, f"Hema {table}", 28, "spades")
        )
        games.append(game)
    text = export_json()
    for game in games:
        game.delete()
    Team.objects.all().delete()
    Player.objects.all().delete()
    assert len(json.loads(text)["games"]) == 3
    return text


def _names() -> int:
    return ClubVersion.objects.get(club=known.home()).names


def test_the_club_adds_games_players_and_teams_while_a_file_imports():
    if connection.vendor == "sqlite":
        pytest.skip(
            "SQLite writes one transaction at a time (each begins IMMEDIATE): while an "
            "import writes, every other write waits for it, whatever it locks"
        )
    text = _night()
    tournament = tournament_services.create_tournament(
        name="Monsoon Pairs", starts_on=datetime.date(2026, 7, 1)
    )
    before = _names()

    first_written, go_on = threading.Event(), threading.Event()
    outcome: dict[str, object] = {}
    write = load._Writer.write

    def written_then_held(self, games):
        write(self, games)
        first_written.set()
        go_on.wait(HELD)

    def import_the_file():
        try:
            outcome["summary"] = import_results(text)
        except Exception as error:  # noqa: BLE001 - reported by the test below
            outcome["error"] = error
        finally:
            connection.close()

    importer = threading.Thread(target=import_the_file)
    with mock.patch.object(load._Writer, "write", written_then_held):
        importer.start()
        try:
            assert first_written.wait(30), outcome
            took = {}
            started = time.monotonic()
            services.create_game(
                label="Table 9 tonight",
                teams=[TeamEntry("Lata", "Manoj"), TeamEntry("Nimmi", "Omar")],
            )
            took["a game of new players and teams"] = time.monotonic() - started
            started = time.monotonic()
            register.register_player(name="Padma", member_number="56-100")
            took["a player"] = time.monotonic() - started
            started = time.monotonic()
            tournament_services.register_team(
                tournament=tournament, first="Queen", second="Ravi", name="Q & R"
            )
            took["a team"] = time.monotonic() - started
            moved_elsewhere = _names() - before
        finally:
            go_on.set()
            importer.join(60)
    assert not importer.is_alive()
    assert "error" not in outcome, outcome
    assert outcome["summary"].games == 3

    assert all(seconds < QUICK for seconds in took.values()), took
    assert Game.objects.filter(label__startswith="Publish table").count() == 3
    assert Player.objects.filter(name__in=["Lata", "Padma", "Queen", "Hema 2"]).count() == 4
    assert Team.objects.filter(name__in=["Q & R", "Lata & Manoj", "Jaya & Kiran 1"]).count() == 3
    # The import's six players and six teams moved the token at most once, at its end (new,
    # they showed on no page before it: nothing needs moving for them).
    assert _names() - before - moved_elsewhere in (0, 1)
