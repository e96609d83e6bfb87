"""The club's backup page (/clubs/<slug>/backup/): its organisers download the club's
backup; an organiser of another club is told it is not their club's; a visitor is sent to
log in. The permission tables (tests/test_permissions.py, tests/test_clubs_isolation.py)
try it with every other page.
"""

from __future__ import annotations

import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from club.clubs import known
from club.clubs.models import Club
from club.games.models import Game
from club.games.services import TeamEntry, create_game, record_deal
from club.ops.backup_format import signature_verifies
from tests.ops.backup_helpers import _deal

URL = "/clubs/gulf/backup/"


@pytest.fixture
def gulf(db, django_user_model):
    """Two clubs, each with a game and an organiser of its own (no site administrator)."""
    home = known.home()
    gulf = Club.objects.create(name="Gulf 56", slug="gulf", time_zone="Asia/Dubai")
    gulf.organisers.add(django_user_model.objects.create_user(username="rashid", password="pw"))
    home.organisers.add(django_user_model.objects.create_user(username="anu", password="pw"))
    create_game(label="Home night", teams=[TeamEntry("Anu", "Biju"), TeamEntry("Chitra", "Dev")])
    _play(gulf, "Gulf night")
    return gulf


def _play(club: Club, label: str) -> Game:
    game = create_game(
        label=label,
        teams=[TeamEntry(f"{label} A", f"{label} B"), TeamEntry(f"{label} C", f"{label} D")],
        club=club,
        first_dealer=0,
    )
    record_deal(game=game, number=1, entry=_deal(game, 0, [30, 26]))
    return game


def _logged_in(client, django_user_model, username: str):
    client.force_login(django_user_model.objects.get(username=username))
    return client


def test_the_clubs_organiser_downloads_its_backup(gulf, client, django_user_model):
    organiser = _logged_in(client, django_user_model, "rashid")
    page = organiser.get(URL)
    assert page.status_code == 200
    assert "no-store" in page["Cache-Control"]
    text = page.content.decode()
    assert f'action="{URL}"' in text and "Download the club's backup" in text
    assert "Gulf 56" in text and "Home night" not in text

    response = organiser.post(URL)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert "no-store" in response["Cache-Control"]
    assert re.fullmatch(
        r'attachment; filename="fiftysix-gulf-backup-\d{8}-\d{6}\.json"',
        response["Content-Disposition"],
    )
    document = json.loads(response.content)
    assert document["manifest"]["scope"] == {"club": "gulf"}
    assert signature_verifies(document["manifest"])
    assert [row["label"] for row in document["tables"]["games.game"]] == ["Gulf night"]
    assert [row["username"] for row in document["tables"]["auth.user"]] == ["rashid"]


def test_another_clubs_organiser_is_refused_and_a_visitor_sent_to_log_in(
    gulf, client, django_user_model
):
    anonymous = client.get(URL)
    assert anonymous.status_code == 302
    assert "/accounts/login/?next=/clubs/gulf/backup/" in anonymous["Location"]
    assert client.post(URL).status_code == 302
    other = _logged_in(client, django_user_model, "anu")
    assert other.get(URL).status_code == 403
    refused = other.post(URL)
    assert refused.status_code == 403
    assert b"fiftysix-club-backup" not in refused.content
    # Their own club's backup is theirs.
    assert other.post("/clubs/club/backup/").status_code == 200


def test_a_site_administrator_downloads_any_clubs_backup(gulf, client, django_user_model):
    admin = django_user_model.objects.create_user(username="admin", password="pw", is_staff=True)
    client.force_login(admin)
    response = client.post(URL)
    assert response.status_code == 200
    assert json.loads(response.content)["manifest"]["scope"] == {"club": "gulf"}


def test_the_games_page_offers_the_backup_to_the_clubs_organisers_only(
    gulf, client, django_user_model
):
    assert f'href="{URL}"'.encode() not in client.get("/clubs/gulf/").content
    organiser = _logged_in(client, django_user_model, "rashid")
    assert f'href="{URL}"'.encode() in organiser.get("/clubs/gulf/").content


def _queries(browser) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert browser.post(URL).status_code == 200
    return len(queries)


def test_the_backup_reads_as_many_queries_whatever_the_club_holds(
    gulf, client, django_user_model, django_assert_max_num_queries
):
    organiser = _logged_in(client, django_user_model, "rashid")
    small = _queries(organiser)
    for number in range(5):
        _play(gulf, f"Gulf night {number}")
    with django_assert_max_num_queries(small):
        organiser.post(URL)
    print(f"\nthe club's backup: {small} queries")  # the closing note's figure
    assert small <= 40
