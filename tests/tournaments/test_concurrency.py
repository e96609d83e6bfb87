"""Two organisers drawing the same sitting at the same moment get one draw."""

import datetime
import threading
import time
from unittest import mock

import pytest
from django.db import connection

from club.scoring import draws
from club.tournaments import services
from club.tournaments.models import Sitting, TournamentEvent


@pytest.mark.django_db(transaction=True)
def test_two_organisers_drawing_the_same_sitting_make_one_draw():
    if not connection.features.has_select_for_update:
        pytest.skip(
            "SQLite has no row locks and its in-memory test database fails a second "
            "writer at once instead of making it wait; the tournament lock is exercised "
            "on PostgreSQL."
        )
    tournament = services.create_tournament(name="Onam cup", starts_on=datetime.date(2026, 9, 1))
    for first, second in [("Anu", "Biju"), ("Chitra", "Dev"), ("Esha", "Farid"), ("Gita", "Hari")]:
        services.register_team(tournament=tournament, first=first, second=second)
    barrier = threading.Barrier(2)
    results = []
    propose = draws.propose_draw

    def slow_propose(*args, **kwargs):
        # Runs while the tournament row is locked: hold it long enough for the
        # other organiser to arrive and wait.
        time.sleep(0.5)
        return propose(*args, **kwargs)

    def organiser():
        try:
            barrier.wait()
            results.append(services.propose_sitting(tournament=tournament).pk)
        except Exception as error:  # noqa: BLE001 - reported by the assertion below
            results.append(repr(error))
        finally:
            connection.close()

    with mock.patch.object(draws, "propose_draw", slow_propose):
        threads = [threading.Thread(target=organiser) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)

    sitting = Sitting.objects.get(tournament=tournament)
    assert results == [sitting.pk, sitting.pk]
    assert (
        TournamentEvent.objects.filter(
            tournament=tournament, action=TournamentEvent.Action.DRAWN
        ).count()
        == 1
    )
