"""A download taken while a scorer records a deal is one moment of the tournament.

The tournament export reads its standings first and its games after. Here a
scorer's deal, which ends a game and so changes the standings, is committed
by another connection exactly between the two reads (the export waits for
it). Read outside one snapshot, the file's standings predated the deal and
its games did not, and the app's own importer refused it. Every export here
must import (under new names, rolled back) and show the tournament as it was
when the download began.
"""

from __future__ import annotations

import io
import json
import threading
from contextlib import contextmanager
from unittest import mock

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.urls import reverse

from club.archive import tournament_export as archive_export
from club.archive.load import import_results
from club.db import one_snapshot
from club.games.models import Round
from club.tournaments import services
from tests.tournaments.helpers import make_tournament, win_game

pytestmark = pytest.mark.django_db(transaction=True)


def skip_on_one_shared_connection():
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        pytest.skip(
            "the in-memory SQLite test database is one shared cache, not a write-ahead log: "
            "another connection cannot write beside a reader; run on PostgreSQL"
        )


@pytest.fixture
def sitting():
    skip_on_one_shared_connection()
    tournament = make_tournament(teams=2)
    sitting = services.propose_sitting(tournament=tournament)
    services.confirm_sitting(sitting=sitting)
    return sitting


def in_another_connection(write) -> None:
    """Run ``write`` on a thread of its own (its own connection) and wait for its commit."""
    failure: list[BaseException] = []

    def run():
        try:
            write()
        except BaseException as error:  # noqa: BLE001 - raised again below
            failure.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(30)
    assert not thread.is_alive(), "the scorer's deal never committed"
    if failure:
        raise failure[0]


@contextmanager
def a_deal_lands_between_standings_and_games(sitting):
    game = sitting.games.get().game
    real = archive_export._tournament_export_games

    def games_after_a_deal(tournament):
        in_another_connection(lambda: win_game(game, "Anu & Biju"))
        return real(tournament)

    with mock.patch.object(archive_export, "_tournament_export_games", games_after_a_deal):
        yield game


def imports_under_new_names(text: str) -> None:
    """Import the file into this club (tournament and games renamed), then undo it."""
    document = json.loads(text)
    document["tournament"]["name"] += " (copy)"
    for sitting in document["tournament"]["sittings"]:
        for game in sitting["games"]:
            game["game"] += " (copy)"
    for game in document["games"]:
        game["label"] += " (copy)"
    with transaction.atomic():
        import_results(json.dumps(document))  # raises ArchiveError if torn
        transaction.set_rollback(True)


def test_a_download_during_a_deal_is_one_moment_and_imports(sitting, client):
    url = reverse("archive:export_json", args=[sitting.tournament_id])
    with a_deal_lands_between_standings_and_games(sitting) as game:
        response = client.get(url)
    assert response.status_code == 200
    text = b"".join(response.streaming_content).decode()
    assert Round.objects.filter(game=game).count() == 1  # the deal was committed meanwhile
    [exported] = json.loads(text)["games"]
    assert exported["rounds"] == [] and exported["status"] == "in_progress"
    imports_under_new_names(text)
    # The next download shows the deal, standings and game alike.
    after = b"".join(client.get(url).streaming_content).decode()
    assert json.loads(after)["games"][0]["status"] == "finished"
    imports_under_new_names(after)


def test_the_command_line_export_is_one_moment_too(sitting):
    out = io.StringIO()
    with a_deal_lands_between_standings_and_games(sitting):
        call_command("export_results", "--tournament", sitting.tournament.name, stdout=out)
    assert json.loads(out.getvalue())["games"][0]["rounds"] == []
    imports_under_new_names(out.getvalue())


def test_a_snapshot_does_not_see_a_write_committed_after_it_began(sitting):
    game = sitting.games.get().game
    with one_snapshot():
        assert Round.objects.filter(game=game).count() == 0  # the snapshot's moment
        in_another_connection(lambda: win_game(game, "Anu & Biju"))
        assert Round.objects.filter(game=game).count() == 0
    assert Round.objects.filter(game=game).count() == 1
